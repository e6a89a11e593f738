package demo.params;

import java.util.Arrays;
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class ParamBench {
    @Param({"16", "4096"})
    int size;

    @Param({"plain", "sorted"})
    String order; // expect: PARAMU

    @Param({"1", "7"})
    int stride;

    int[] values;

    @Setup(Level.Trial)
    public void build() {
        size = 256; // expect: PARAMW
        values = new int[size];
        for (int i = 0; i < values.length; i++) {
            values[i] = (i * 31) % 97;
        }
        stride = Math.max(stride, 1);
    }

    @Benchmark
    public int walk() {
        int sum = 0;
        for (int i = 0; i < values.length; i += stride) {
            sum += values[i];
        }
        return sum;
    }

    @Benchmark // expect: PARAMU
    public int[] copy() {
        return Arrays.copyOf(values, values.length);
    }
}
