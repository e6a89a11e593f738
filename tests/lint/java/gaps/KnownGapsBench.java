package demo.gaps;

import static java.lang.Math.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.*;

// Ground truth for known limitations: labels say what a perfect linter would report.
// tests/lint/test_lint_corpus.py lists the expected disagreements explicitly.
@State(Scope.Thread)
public class KnownGapsBench {
    static final int ZERO = 0;
    static final int SIZE = 100;
    double x = 3.0;
    List<Integer> list = new ArrayList<>(List.of(3, 1, 2));
    int[] big = new int[10_000_000];

    // A do-nothing project helper: the value does not really escape (missed: we treat
    // every project call as having effects).
    static void use(double v) {
    }

    @Benchmark
    public void staticImportDropped() {
        log(x); // expect: RETU
    }

    @Benchmark
    public void collectionCallDropped() {
        Collections.max(list); // expect: RETU
    }

    @Benchmark
    public void helperDoesNothing() {
        double r = sqrt(x); // expect: RETU
        use(r);
    }

    @Benchmark
    public long parksInstead() {
        LockSupport.parkNanos(1000); // expect: SLEEP
        return 1;
    }

    @Benchmark
    @Fork(value = ZERO) // expect: FORK
    public double forkConstant() {
        return x;
    }

    @Benchmark
    @OperationsPerInvocation(SIZE) // expect: OPINV
    public double opsConstant() {
        return exp(x);
    }

    // Legitimate per-invocation setup: each call sorts ten million ints (well over 1 ms),
    // the section 5.3 INVO false positive; a perfect linter would stay silent.
    @Setup(Level.Invocation)
    public void shuffle() {
        for (int i = 0; i < big.length; i++) {
            big[i] = (i * 7919) % 10_007;
        }
    }

    @Benchmark
    public int[] sortBig() {
        java.util.Arrays.sort(big);
        return big;
    }
}
