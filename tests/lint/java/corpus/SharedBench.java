package demo.shared;

import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class SharedBench {
    static int counter;
    static long total;
    static final AtomicLong atomic = new AtomicLong();
    static volatile int flag;
    static int[] table = new int[8];
    static final int LIMIT = 8;
    int own;

    @Benchmark
    public int incrementsStatic() {
        return ++counter; // expect: SHARED
    }

    @Benchmark
    public long addsToStatic() {
        total += own; // expect: SHARED
        SharedBench.flag = 1; // expect: SHARED
        return total;
    }

    @Benchmark
    public long atomicIsFine() {
        return atomic.incrementAndGet();
    }

    @Benchmark
    public synchronized int synchronizedIsFine() {
        return ++counter;
    }

    @Benchmark
    public int syncBlockIsFine() {
        synchronized (SharedBench.class) {
            counter++;
        }
        return counter;
    }

    @Benchmark
    public int instanceFieldIsFine() {
        own++;
        return own + table[own & 7];
    }
}
