package demo.fold;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

// A @State class inherited from a project superclass and nested state classes.
public class StateElsewhereBench {

    public abstract static class BaseState {
        public final int base = 16; // expect: FINAL
        public int mutable = 3;
    }

    @State(Scope.Benchmark)
    public static class Input extends BaseState {
    }

    public static class NotAState {
        public final int plain = 5;
    }

    @org.openjdk.jmh.annotations.State(org.openjdk.jmh.annotations.Scope.Thread)
    public static class Holder<T> {
        final long limit = 99L; // expect: FINAL
        java.util.List<T> items;
    }

    @Benchmark
    public int readsInherited(Input in) {
        return in.base * in.mutable;
    }

    @Benchmark
    public int readsNonState(NotAState other) {
        return other.plain + 1;
    }

    @org.openjdk.jmh.annotations.Benchmark
    public long readsGenericHolder(Holder<String> holder) {
        return holder.limit + holder.items.size();
    }
}
