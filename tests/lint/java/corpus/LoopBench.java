package demo.loops;

import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

// Situations of JMHSample_11_Loops and JMHSample_34_SafeLooping, written for rigorbench.
@State(Scope.Thread)
public class LoopBench {
    int[] xs = new int[100];
    int x = 1;
    int y = 2;

    private int work(int v) {
        return v * 17 + 3;
    }

    @Benchmark
    public int accumulateWrong() {
        int acc = 0;
        for (int v : xs) {
            acc += work(v); // expect: LOOP
        }
        return acc;
    }

    @Benchmark
    public void consumeRight(Blackhole bh) {
        for (int v : xs) {
            bh.consume(work(v));
        }
    }

    @Benchmark
    public long plusAssignExpanded() {
        long sum = 0;
        for (int i = 0; i < xs.length; i++) {
            sum = sum + work(xs[i]); // expect: LOOP
        }
        return sum;
    }

    @Benchmark
    public int keepsOnlyLast() {
        int last = 0;
        int i = 0;
        while (i < xs.length) {
            last = work(xs[i]); // expect: RETU
            i++;
        }
        return last;
    }

    @Benchmark
    public int xorInDoWhile(Blackhole unused) {
        int h = 0;
        int i = 0;
        do {
            h ^= Integer.rotateLeft(xs[i], 3); // expect: LOOP
            i++;
        } while (i < xs.length);
        return h;
    }

    @Benchmark
    public int sumsArrayIsTheWork() {
        int acc = 0;
        for (int v : xs) {
            acc += v;
        }
        return acc;
    }

    @Benchmark
    public int chainedHash() {
        int h = 7;
        for (int v : xs) {
            h = mix(h, v);
        }
        return h;
    }

    private static int mix(int h, int v) {
        return h * 31 + v;
    }

    @Benchmark
    public double reassignedInLoop(Blackhole bh) {
        double acc = 1;
        for (int v : xs) {
            acc *= Math.sqrt(v); // expect: LOOP
        }
        bh.consume(acc);
        return 0;
    }

    @Benchmark
    public int accumulatedButUnused() {
        int acc = 0; // expect: RETU
        for (int v : xs) {
            acc += work(v);
        }
        return x + y;
    }

    @Benchmark
    public void loopOverNothingConsumed(Blackhole bh) {
        int acc = 0;
        for (int v : xs) {
            acc += work(v);
            bh.consume(v);
        }
        bh.consume(acc);
    }

    int k = 7;
    int divisor = 3;

    // JMHSample_11 without a call: the same loop-invariant division, a hundred times.
    @Benchmark
    public int invariantDivision() {
        int sum = 0;
        for (int i = 0; i < 100; i++) {
            sum += k / divisor; // expect: LOOP
        }
        return sum;
    }

    @Benchmark
    public int variantDivision() {
        int sum = 0;
        for (int i = 0; i < xs.length; i++) {
            sum += xs[i] / divisor;
        }
        return sum;
    }
}
