package demo.edge;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

// Fully qualified annotations, generics, lambdas and inner state classes.
public class EdgeCasesBench {

    @org.openjdk.jmh.annotations.State(org.openjdk.jmh.annotations.Scope.Thread)
    public static class Data {
        List<Map<String, Integer>> maps = new ArrayList<>();
        IntUnaryOperator op = v -> v + 1;
        int seed = 5;
    }

    @org.openjdk.jmh.annotations.Benchmark
    public int lambdaResultReturned(Data d) {
        IntUnaryOperator twice = v -> d.op.applyAsInt(d.op.applyAsInt(v));
        return twice.applyAsInt(d.seed);
    }

    @org.openjdk.jmh.annotations.Benchmark
    public void lambdaBuiltButUnused(Data d) {
        IntUnaryOperator unused = v -> v * 2;
    }

    @org.openjdk.jmh.annotations.Benchmark
    public int genericLocal(Data d) {
        Map<String, List<Integer>> grouped = new java.util.HashMap<>();
        grouped.computeIfAbsent("k", k -> new ArrayList<>()).add(d.seed);
        return grouped.size();
    }

    @org.openjdk.jmh.annotations.Benchmark
    public void genericUnused(Data d) {
        List<String> copy = new ArrayList<>(d.maps.size()); // expect: RETU
    }

    @org.openjdk.jmh.annotations.Benchmark
    public int streamInLambda(Data d) {
        return d.maps.stream().mapToInt(m -> {
            int local = m.size();
            return local * 2;
        }).sum();
    }

    @org.openjdk.jmh.annotations.Benchmark
    public void printsInsideLambda(Data d) {
        d.maps.forEach(m -> System.out.println(m)); // expect: PRINT
    }

    @org.openjdk.jmh.annotations.Benchmark
    public String switchExpression(Data d) {
        String label = switch (d.seed) {
            case 1 -> "one";
            default -> "many";
        };
        return label;
    }

    @org.openjdk.jmh.annotations.Benchmark
    public int ternaryAndCast(Data d) {
        long wide = d.seed * 3L;
        int narrow = (int) (wide > 10 ? wide : -wide);
        return narrow;
    }

    public int notABenchmark(Data d) {
        Math.log(d.seed);
        return 0;
    }

    class Inner {
        @org.openjdk.jmh.annotations.Benchmark
        public void innerBenchmark() {
            Math.log(2.0); // expect: RETU, FINAL
        }
    }
}
