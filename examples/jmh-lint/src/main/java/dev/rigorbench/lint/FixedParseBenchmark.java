package dev.rigorbench.lint;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
public class FixedParseBenchmark {

    private int radix = 16;

    private String[] tokens;

    private char digit;

    @Setup(Level.Trial)
    public void prepare() {
        tokens = new String[] {"1f", "ff", "7a", "c0"};
        digit = tokens[0].charAt(0);
    }

    @Benchmark
    public int parseOne() {
        return Character.digit(digit, radix);
    }

    @Benchmark
    public void parseAll(Blackhole bh) {
        for (String token : tokens) {
            bh.consume(ParseBenchmark.hexPair(token.charAt(0), token.charAt(1)));
        }
    }
}
