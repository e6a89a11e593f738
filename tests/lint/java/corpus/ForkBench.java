package demo.forks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

// Situations of JMHSample_12_Forking, written for rigorbench.
@Fork(0) // expect: FORK
public class ForkBench {
    interface Counter { int inc(); }

    Counter a = () -> 1;

    @Benchmark
    @Fork(value = 0) // expect: FORK
    public int noFork() {
        return a.inc();
    }

    @Benchmark
    @Fork(1)
    public int oneFork() {
        return a.inc();
    }

    @Benchmark
    @Fork(value = 2, jvmArgsAppend = "-Xmx1g")
    public int twoForks() {
        return a.inc();
    }

    public static void main(String[] args) throws Exception {
        Options opt = new OptionsBuilder()
                .include(ForkBench.class.getSimpleName())
                .forks(0) // expect: FORK
                .build();
        new Runner(opt).run();
        Options fine = new OptionsBuilder().forks(3).build();
    }
}
