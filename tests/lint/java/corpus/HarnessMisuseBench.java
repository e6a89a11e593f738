package demo.misuse;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

// Hand timing, sleeping and printing inside benchmarks (Sestoft, Microbenchmarks in Java and C#).
@State(Scope.Thread)
public class HarnessMisuseBench {
    private static final Logger LOGGER = Logger.getLogger("bench");
    private final Logger audit = Logger.getLogger("audit");
    int value = 3;

    private int work() {
        return value * 7;
    }

    @Benchmark
    public long handTimed() {
        long start = System.nanoTime(); // expect: TIMER
        int r = work();
        return System.nanoTime() - start + r; // expect: TIMER
    }

    @Benchmark
    public long wallClock() {
        return System.currentTimeMillis() + Instant.now().getNano(); // expect: TIMER, TIMER
    }

    @Benchmark
    public int sleeps() throws InterruptedException {
        Thread.sleep(1); // expect: SLEEP
        TimeUnit.MICROSECONDS.sleep(10); // expect: SLEEP
        MILLISECONDS.sleep(1); // expect: SLEEP
        return work();
    }

    @Benchmark
    public int prints() {
        int r = work();
        System.out.println("result " + r); // expect: PRINT
        System.err.printf("%d%n", r); // expect: PRINT
        LOGGER.info("done"); // expect: PRINT
        audit.fine("x"); // expect: PRINT
        return r;
    }

    @Benchmark
    public void consumeCpuIsFine(Blackhole bh) {
        Blackhole.consumeCPU(100);
        bh.consume(work());
    }

    @Setup(Level.Trial)
    public void timingInSetupIsFine() {
        long t = System.nanoTime();
        System.out.println("setup at " + t);
    }

    @TearDown
    public void report() {
        LOGGER.info("value " + value);
    }

    @Benchmark
    public int notALogger(java.util.Map<String, Integer> catalog) {
        return catalog.getOrDefault("info", 0) + Math.floorMod(value, 3);
    }
}
