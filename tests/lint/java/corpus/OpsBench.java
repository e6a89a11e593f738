package demo.ops;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class OpsBench {
    double x = 1.5;
    int[] data = new int[100];

    int leaf(int v) {
        return v + 1;
    }

    int helperWithLoop() {
        int s = 0;
        for (int v : data) s += v;
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(100) // expect: OPINV
    public double noLoop() {
        return Math.log(x);
    }

    @Benchmark
    @OperationsPerInvocation(100)
    public int loops() {
        int s = 0;
        for (int i = 0; i < 100; i++) {
            s ^= data[i];
        }
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(1)
    public double one() {
        return Math.log(x);
    }

    @Benchmark
    @OperationsPerInvocation(100)
    public int delegatesToLoop() {
        return helperWithLoop();
    }

    @Benchmark
    @OperationsPerInvocation(100)
    public int[] sortsHundred() {
        java.util.Arrays.sort(data); // expect: STALE
        return data;
    }

    @Benchmark
    @OperationsPerInvocation(value = 10) // expect: OPINV
    public int leafOnly() {
        return leaf(data.length);
    }

    @Benchmark
    @OperationsPerInvocation(100)
    public long streams() {
        return java.util.stream.IntStream.of(data).map(v -> v * 2).sum();
    }
}
