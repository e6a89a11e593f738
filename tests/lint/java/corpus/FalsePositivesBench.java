package demo.fp;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Scope;
import java.util.ArrayList;
import java.util.List;

// The RETU false-positive causes of Costa et al. section 5.3: values checked by an if that
// throws, by assert, or handed to methods with effects are consumed.
@State(Scope.Thread)
public class FalsePositivesBench {
    int[] data = new int[64];
    int index = 3;
    List<Integer> results = new ArrayList<>();

    static int compute(int x) {
        return x * 31 + 7;
    }

    @Benchmark
    public void checkedByThrow() {
        int r = compute(index);
        if (r != 100) {
            throw new IllegalStateException("unexpected " + r);
        }
    }

    @Benchmark
    public void checkedByAssert() {
        int r = compute(index);
        assert r > 0 : "must be positive";
    }

    @Benchmark
    public void passedToCollection() {
        int r = compute(index);
        results.add(r);
    }

    @Benchmark
    public void indexIntoStoredElement() {
        int i = compute(index) & 63;
        data[i] = 1;
    }

    @Benchmark
    public int loopBoundConsumed() {
        int n = compute(index) % 10;
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += data[i];
        }
        return total;
    }

    @Benchmark
    public int conditionDecidesReturn() {
        int r = compute(index);
        if (r > 50) {
            return 1;
        }
        return 0;
    }

    @Benchmark
    public void lambdaCaptures(Runnable sink) {
        int r = compute(index);
        results.forEach(v -> results.set(0, v + r));
    }

    @Benchmark
    public int tryWithResources() throws Exception {
        try (java.io.StringReader reader = new java.io.StringReader("abc")) {
            return reader.read();
        }
    }

    @Benchmark
    public void helperAssert() {
        int r = compute(index);
        Checks.assertEquals(38, r);
    }
}

class Checks {
    static void assertEquals(int expected, int actual) {
        if (expected != actual) throw new AssertionError();
    }
}
