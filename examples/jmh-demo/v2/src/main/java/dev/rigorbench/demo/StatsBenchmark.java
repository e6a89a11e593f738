package dev.rigorbench.demo;

import dev.rigorbench.demo.lib.Numbers;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Standard scores of an array ({@link Numbers#standardize}, which also calls
 * {@link Numbers#mean} and {@link Numbers#variance}).
 *
 * <p>Demonstrates NO CHANGE: this code path is identical in v1 and v2. The
 * {@code size} parameter exercises JMH {@code @Param}s, and the array allocated
 * on every call gives {@code -prof gc} something to report (allocation per
 * operation, garbage collections). Average time per operation, in nanoseconds
 * (lower is better).
 *
 * <p>{@code -p size=0} makes the benchmark method throw (the library rejects
 * empty input); the test-data script uses that to record a failing run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
// The serial collector: on a small shared machine G1's parallel GC threads compete
// with other processes for the cores, which makes this allocating benchmark noisy.
@Fork(value = 3, jvmArgsAppend = "-XX:+UseSerialGC")
@State(Scope.Benchmark)
public class StatsBenchmark {

    @Param({"100", "1000"})
    int size;

    /** The input, filled once per trial; not final, so the JIT cannot treat it as a constant. */
    double[] values;

    @Setup
    public void fill() {
        Random random = new Random(7);
        values = new double[size];
        for (int i = 0; i < size; i++) {
            values[i] = random.nextGaussian() * 10 + 100;
        }
    }

    @Benchmark
    public void standardize(Blackhole bh) {
        // Sinking the result in the Blackhole (or returning it) keeps the JIT from
        // eliminating the computation and the allocation as dead code.
        bh.consume(Numbers.standardize(values));
    }
}
