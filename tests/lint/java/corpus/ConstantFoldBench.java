package demo.fold;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

// Situations of JMHSample_10_ConstantFold, written for rigorbench.
@State(Scope.Thread)
public class ConstantFoldBench {
    private double x = Math.PI;
    private final double wrongX = Math.PI; // expect: FINAL
    private final int size = 10 * 4; // expect: FINAL
    /* keep this comment */ protected final String name = "bench"; // expect: FINAL
    private static final int LIMIT = 1_000; // expect: FINAL
    private final long seed;
    private final int fromCall = Integer.parseInt(System.getProperty("n", "5"));
    private final int unusedByBenchmarks = 7;
    @Param({"1", "2"})
    private int param;

    public ConstantFoldBench() {
        seed = System.nanoTime();
    }

    private int compute(int n) {
        return n * n + param;
    }

    @Setup
    public void setup() {
        x = unusedByBenchmarks + 1.0;
    }

    @Benchmark // expect: PARAMU
    public double measureWrong() {
        return Math.log(wrongX);
    }

    @Benchmark // expect: PARAMU
    public double measureRight() {
        return Math.log(x);
    }

    @Benchmark
    public int usesFinals() {
        return size + this.name.length() + compute(param) % LIMIT;
    }

    @Benchmark // expect: PARAMU
    public long constructorFinalIsNotConstant() {
        return seed ^ fromCall;
    }

    @Benchmark
    public int literalArgument() {
        return compute(42); // expect: FINAL
    }

    @Benchmark // expect: PARAMU
    public double literalToPureCall() {
        return Math.log(3.0) + Math.abs(-2.0); // expect: FINAL, FINAL
    }

    @Benchmark // expect: PARAMU
    public int literalToUnknownCall(java.util.List<Integer> list) {
        return list.get(0);
    }
}
