package demo.voids;

import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

// A void benchmark that drops the result of the measured project method (JMHSample_08/09).
@State(Scope.Thread)
public class VoidBench {
    double x = 2.0;
    int calls;
    Helper helper = new Helper();

    double compute(double v) {
        double r = v * v;
        return r + 1;
    }

    int advance() {
        calls++;
        return calls;
    }

    void reset() {
        calls = 0;
    }

    @Benchmark
    public void dropsCompute() {
        compute(x); // expect: VOID
    }

    @Benchmark
    public void dropsTwo() {
        compute(x); // expect: VOID
        Math.sqrt(x); // expect: RETU
        this.compute(x + 1); // expect: VOID
    }

    @Benchmark
    public void dropsStatic() {
        Helper.twice(3.5); // expect: VOID, FINAL
    }

    @Benchmark
    public void advanceMutatesState() {
        advance();
    }

    @Benchmark
    public void voidCallEscapes() {
        compute(x);
        reset();
    }

    @Benchmark
    public void withBlackhole(Blackhole bh) {
        bh.consume(compute(x));
    }

    @Benchmark
    public double returnsIt() {
        return compute(x);
    }

    @Benchmark
    public void fieldWriteEscapes() {
        compute(x);
        calls = 1;
    }
}

class Helper {
    static double twice(double v) {
        return 2 * v;
    }
}
