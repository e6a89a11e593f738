package dev.rigorbench.demo;

import dev.rigorbench.demo.lib.Numbers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Counting primes in a window of integers ({@link Numbers#countPrimes}).
 *
 * <p>Demonstrates an IMPROVEMENT measured as THROUGHPUT (operations per
 * millisecond, higher is better): v2 of the library uses a better
 * trial-division scheme and gets faster.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
@State(Scope.Benchmark)
public class PrimeCountBenchmark {

    /** Start and end of the window; non-final fields, so the JIT cannot precompute the answer. */
    int from = 200_000;
    int to = 200_512;

    @Benchmark
    public int countPrimes() {
        return Numbers.countPrimes(from, to);
    }
}
