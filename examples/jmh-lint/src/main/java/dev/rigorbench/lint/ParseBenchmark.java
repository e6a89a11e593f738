package dev.rigorbench.lint;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(0)
public class ParseBenchmark {

    // A final primitive input: the JIT treats it as a constant and folds the work.
    private final int radix = 16;

    private String[] tokens;

    private char digit;

    @Setup(Level.Invocation)
    public void prepare() {
        tokens = new String[] {"1f", "ff", "7a", "c0"};
        digit = tokens[0].charAt(0);
    }

    @Benchmark
    public void parseOne() {
        Character.digit(digit, radix);
    }

    @Benchmark
    public long parseAll() {
        long sum = 0;
        for (String token : tokens) {
            sum += hexPair(token.charAt(0), token.charAt(1));
        }
        return sum;
    }

    // Two hex digits: a few instructions, so summed in a loop the calls can be merged.
    static int hexPair(char high, char low) {
        return Character.digit(high, 16) * 16 + Character.digit(low, 16);
    }
}
