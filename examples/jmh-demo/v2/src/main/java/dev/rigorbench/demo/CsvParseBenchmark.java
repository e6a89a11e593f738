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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Parsing a line of comma-separated integers ({@link Numbers#sumCsv}).
 *
 * <p>Demonstrates a REGRESSION: v2 of the library checks every character of its input before
 * parsing, which makes this benchmark slower. Average time per operation, in
 * microseconds (lower is better).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
@State(Scope.Benchmark)
public class CsvParseBenchmark {

    /** Number of fields in the line (1,539 characters in all). */
    static final int FIELDS = 220;

    /** The input; built once per trial and deliberately not final (so it is not constant-folded). */
    String line;

    @Setup
    public void buildLine() {
        Random random = new Random(42);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < FIELDS; i++) {
            if (i > 0) {
                sb.append(',');
            }
            // Fixed-width (six-digit) values keep the branch pattern regular, so the
            // timing does not depend on how well the CPU's branch predictor happens
            // to memorise one random line.
            sb.append(100_000 + random.nextInt(900_000));
        }
        line = sb.toString();
    }

    @Benchmark
    public long sumCsv() {
        // Returning the result keeps the JIT from eliminating the work.
        return Numbers.sumCsv(line);
    }
}
