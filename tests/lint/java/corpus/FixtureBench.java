package demo.fixtures;

import static org.openjdk.jmh.annotations.Level.Invocation;

import org.openjdk.jmh.annotations.*;

// Situations of JMHSample_07_FixtureLevelInvocation and JMHSample_38_PerInvokeSetup.
@State(Scope.Benchmark)
public class FixtureBench {
    int[] data;
    int[] original = new int[1000];

    @Setup(Level.Invocation) // expect: INVO
    public void copyEveryCall() {
        data = original.clone();
    }

    @TearDown(value = Level.Invocation) // expect: INVO
    public void checkEveryCall() {
        assert data.length > 0 : "Nothing changed?";
    }

    @Setup(Invocation) // expect: INVO
    public void staticImportForm() {
    }

    @Setup(org.openjdk.jmh.annotations.Level.Invocation) // expect: INVO
    public void qualifiedForm() {
    }

    @Setup(Level.Iteration)
    public void perIteration() {
        data = original.clone();
    }

    @Setup
    public void perTrial() {
    }

    @TearDown(Level.Trial)
    public void done() {
    }

    @Benchmark
    public int[] sort() {
        java.util.Arrays.sort(data);
        return data;
    }
}
