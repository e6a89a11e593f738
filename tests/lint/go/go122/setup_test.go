package corpus

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

const big = 1 << 24

func BenchmarkReadFileTimed(b *testing.B) {
	data, err := os.ReadFile("code.go") // expect: GO-SETUP
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkBigLoopTimed(b *testing.B) {
	xs := make([]int, 0, 1024)
	for i := 0; i < 200_000; i++ { // expect: GO-SETUP
		xs = append(xs[:0], i)
	}
	for i := 0; i < b.N; i++ {
		sink += xs[0]
	}
}

func BenchmarkBigMakeTimed(b *testing.B) {
	buf := make([]byte, big) // expect: GO-SETUP
	for i := 0; i < b.N; i++ {
		sink += len(buf)
	}
}

func BenchmarkNestedLoopsTimed(b *testing.B) {
	grid := 0
	for i := 0; i < 1000; i++ { // expect: GO-SETUP
		for j := 0; j < 1000; j++ {
			grid += i ^ j
		}
	}
	for i := 0; i < b.N; i++ {
		sink += grid
	}
}

func BenchmarkResetTooEarly(b *testing.B) {
	b.ResetTimer()
	data, _ := os.ReadFile("code.go") // expect: GO-SETUP
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkSetupInsideSubBenchmark(b *testing.B) {
	b.Run("read", func(b *testing.B) {
		data, _ := os.ReadFile("code.go") // expect: GO-SETUP
		for i := 0; i < b.N; i++ {
			sink += len(data)
		}
	})
}

func BenchmarkParallelSetupTimed(b *testing.B) {
	data, _ := os.ReadFile("code.go") // expect: GO-SETUP
	var all atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			n += len(data)
		}
		all.Add(int64(n))
	})
}

// Negative cases.

func BenchmarkReadFileThenReset(b *testing.B) {
	data, err := os.ReadFile("code.go")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkReadFilePaused(b *testing.B) {
	b.StopTimer()
	data, _ := os.ReadFile("code.go")
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkSmallSetup(b *testing.B) {
	xs := make([]int, 1000)
	for i := range 1000 {
		xs[i] = i
	}
	s := strings.Repeat("a", 100)
	for i := 0; i < b.N; i++ {
		sink += xs[i%1000] + len(s)
	}
}

func BenchmarkUnknownCost(b *testing.B) {
	xs := MakeInput(1 << 20) // a call of unknown cost is not flagged
	for i := 0; i < b.N; i++ {
		sink += xs[i%len(xs)]
	}
}

func BenchmarkSetupBeforeSubBenchmarks(b *testing.B) {
	data, _ := os.ReadFile("code.go") // sub-benchmarks have timers of their own
	b.Run("len", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += len(data)
		}
	})
}

func BenchmarkIOInCleanup(b *testing.B) {
	b.Cleanup(func() { _ = os.Remove("no-such-file") })
	for i := 0; i < b.N; i++ {
		sink++
	}
}
