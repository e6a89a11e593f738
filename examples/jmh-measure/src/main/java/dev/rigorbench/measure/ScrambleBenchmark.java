package dev.rigorbench.measure;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A loop that adds up the results of a heavy call and returns the sum. Lint sees a loop
 * accumulating the result of a side-effect-free helper with a fixed bound and warns that the
 * JIT could merge the calls (LOOP); but each call is thousands of dependent shifts and xors,
 * microseconds of work that no merging shortens, so consuming every result separately (the
 * fix) should measure the same.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ScrambleBenchmark {

    private long[] seeds;

    @Setup
    public void makeSeeds() {
        seeds = new long[8];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = 0x9E3779B97F4A7C15L * (i + 1);
        }
    }

    // Each round depends on the one before: the chain cannot be shortened or vectorised.
    private static long scramble(long seed) {
        long h = seed;
        for (int round = 0; round < 4000; round++) {
            h ^= h << 13;
            h ^= h >>> 7;
            h ^= h << 17;
        }
        return h;
    }

    @Benchmark
    public long scrambleAll() {
        long sum = 0;
        for (int i = 0; i < seeds.length; i++) {
            sum += scramble(seeds[i]);
        }
        return sum;
    }
}
