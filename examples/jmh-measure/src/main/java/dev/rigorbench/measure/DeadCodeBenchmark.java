package dev.rigorbench.measure;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The dead-code case of the JMH samples (JMHSample_08_DeadCode), written anew: the logarithm
 * in {@code measureWrong} is computed and thrown away, so C2 may delete it and the benchmark
 * then times an empty method; {@code measureRight} returns it, which JMH consumes.
 *
 * The logarithm is computed here in plain arithmetic rather than by Math.log: since JDK 9,
 * HotSpot computes Math.log in a runtime stub that C2 calls and never removes, so a dropped
 * Math.log costs as much as a returned one and would show nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DeadCodeBenchmark {

    // A field, not a constant: the input must stay unknown to the compiler.
    private double x = 1.75;

    // ln(v) for v > 0 from the series 2 * atanh((v - 1) / (v + 1)), 24 terms.
    private static double log(double v) {
        double y = (v - 1) / (v + 1);
        double square = y * y;
        double power = y;
        double sum = 0;
        for (int k = 1; k < 48; k += 2) {
            sum += power / k;
            power *= square;
        }
        return 2 * sum;
    }

    @Benchmark
    public void baseline() {
        // the cost of calling a benchmark method at all, for reference
    }

    @Benchmark
    public void measureWrong() {
        log(x);
    }

    @Benchmark
    public double measureRight() {
        return log(x);
    }
}
