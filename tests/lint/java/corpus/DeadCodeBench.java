package demo.deadcode;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

// Situations of JMHSample_08_DeadCode and JMHSample_09_Blackholes, written for rigorbench.
@State(Scope.Thread)
public class DeadCodeBench {
    private double input = Math.PI;
    private double other = 2.5;
    private String text = "hello world";
    private double sink;

    @Benchmark
    public void baseline() {
        // intentionally empty
    }

    @Benchmark
    public void dropsLog() {
        Math.log(input); // expect: RETU
    }

    @Benchmark
    public double returnsLog() {
        return Math.log(input);
    }

    @Benchmark
    public double dropsFirstOfTwo() {
        Math.log(input); // expect: RETU
        return Math.log(other);
    }

    @Benchmark
    public double combinesBoth() {
        return Math.log(input) + Math.log(other);
    }

    @Benchmark
    public void consumesBoth(Blackhole bh) {
        bh.consume(Math.log(input));
        bh.consume(Math.log(other));
    }

    @Benchmark
    public void unusedLocal() {
        double r = Math.sqrt(input) * 2; // expect: RETU
    }

    @Benchmark
    public void localChainEndsUnused() {
        double a = Math.sin(input);
        double b = a + other; // expect: RETU
    }

    @Benchmark
    public void storesToField() {
        double r = Math.cbrt(input);
        this.sink = r;
    }

    @Benchmark
    public double flowsThroughLocals() {
        double a = Math.log(input);
        double b = a * a;
        double c = b + 1;
        return c;
    }

    @Benchmark
    public void stringLengthDropped() {
        text.length(); // expect: RETU
    }

    @Benchmark
    public int stringLengthReturned() {
        return text.length();
    }

    @Benchmark
    public void parseDropped(Blackhole bh) {
        Integer.parseInt("12"); // expect: RETU, FINAL
        bh.consume(text.hashCode());
    }

    @Benchmark
    public void unknownCallHasEffects(java.util.List<String> out) {
        out.add(text.trim());
    }

    @Benchmark
    public void twoUnused() {
        int h = text.hashCode();
        int n = Integer.bitCount(h * 31);
        if (n > 3) {
            int m = n + 1; // expect: RETU
        }
    }

    // JMHSample_09: a private helper that only computes; dropping its result is dead code.
    private double square(double d) {
        for (int c = 0; c < 4; c++) {
            d = d * d / Math.PI;
        }
        return d;
    }

    @Benchmark
    public double dropsPrivateHelper() {
        square(input); // expect: RETU
        return square(other);
    }

    @Benchmark
    public void consumesPrivateHelper(Blackhole bh) {
        bh.consume(square(input));
        bh.consume(square(other));
    }
}
