package corpus

import (
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

var (
	sink       int
	sinkString string
)

func BenchmarkDiscardBlank(b *testing.B) {
	s := "hello, world"
	for i := 0; i < b.N; i++ {
		_ = strings.ToUpper(s) // expect: GO-RESULT
	}
}

func BenchmarkBareCall(b *testing.B) {
	for i := 0; i < b.N; i++ {
		math.Sqrt(float64(i)) // expect: GO-RESULT
	}
}

func BenchmarkDeadLocal(b *testing.B) {
	for i := 0; i < b.N; i++ {
		n := bits.OnesCount64(uint64(i)) // expect: GO-RESULT
		_ = n
	}
}

func BenchmarkDeadChain(b *testing.B) {
	for i := 0; i < b.N; i++ {
		a := strconv.Itoa(i) // expect: GO-RESULT
		c := len(a) * 2      // expect: GO-RESULT
		_ = c
	}
}

func BenchmarkPurePackageFunctions(b *testing.B) {
	xs := []int{1, 2, 3, 2}
	for range b.N {
		_ = Count(xs, 2) // expect: GO-RESULT
		_ = Shout("a")   // expect: GO-RESULT
	}
}

func BenchmarkOverwrittenThenBlank(b *testing.B) {
	var last int
	for i := 0; i < b.N; i++ {
		last = bits.Len(uint(i)) // expect: GO-RESULT
	}
	_ = last // a read into '_' keeps nothing alive
}

func BenchmarkParallelDead(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		x := 0
		for pb.Next() {
			x = x*31 + 7 // expect: GO-RESULT
		}
	})
}

func BenchmarkSubBenchmark(b *testing.B) {
	b.Run("upper", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = strings.ToUpper("x") // expect: GO-RESULT
		}
	})
}

func benchmarkHelper(b *testing.B, s string) {
	for i := 0; i < b.N; i++ {
		_ = strings.Count(s, "a") // expect: GO-RESULT
	}
}

func BenchmarkHelper(b *testing.B) { benchmarkHelper(b, "banana") }

// Negative cases: the result is kept, or the call has effects the compiler must keep.

func BenchmarkSunkPackageVar(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkString = strings.ToUpper("abc")
	}
}

func BenchmarkUsedAfterLoop(b *testing.B) {
	n := 0
	for i := 0; i < b.N; i++ {
		n += bits.OnesCount(uint(i))
	}
	sink = n
}

func BenchmarkUsedInCondition(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if !strings.HasPrefix("abc", "a") {
			b.Fatal("no prefix")
		}
	}
}

func BenchmarkSideEffects(b *testing.B) {
	var c Counter
	xs := make([]int, 8)
	buf := make([]byte, 0, 32)
	var hits atomic.Int64
	for i := 0; i < b.N; i++ {
		_ = c.Add(1)                           // a method on a pointer mutates
		_ = Record(i)                          // writes package state
		_ = Fill(xs, i)                        // writes through its argument
		_ = Depth(3)                           // recursive: never inlined
		_ = Opaque(i)                          // //go:noinline
		_, _ = os.Stat(".")                    // I/O
		_ = hits.Add(1)                        // atomic
		_ = strconv.AppendInt(buf[:0], 42, 10) // writes into buf
		_ = append(xs[:0], i)                  // writes into xs
	}
}

func BenchmarkValueMethod(b *testing.B) {
	c := Counter{n: 3}
	for i := 0; i < b.N; i++ {
		_ = c.Value() // method calls are never judged
	}
}

func BenchmarkIndexMayPanic(b *testing.B) {
	xs := []int{1, 2, 3}
	for i := 0; i < b.N; i++ {
		_ = xs[i%3]
	}
}

func BenchmarkLocalReadLater(b *testing.B) {
	var r string
	for i := 0; i < b.N; i++ {
		r = strconv.Itoa(i)
	}
	if r == "" {
		b.Fatal("empty")
	}
}

func BenchmarkClosureConsumes(b *testing.B) {
	keep := func(s string) { sinkString = s }
	for i := 0; i < b.N; i++ {
		s := strings.Repeat("a", 3)
		keep(s)
	}
}

func BenchmarkParallelKept(b *testing.B) {
	var all atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		x := 0
		for pb.Next() {
			x = x*31 + 7
		}
		all.Add(int64(x))
	})
}

func BenchmarkConstantIsNoComputation(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var r rune = -1
		sink += int(r)
	}
}

func BenchmarkSuppressed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = strings.ToLower("ABC") // rigorbench:ignore GO-RESULT the loop overhead is what we measure
	}
}
