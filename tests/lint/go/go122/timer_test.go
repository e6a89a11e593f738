package corpus

import (
	"runtime"
	"sort"
	"strings"
	"testing"
)

type config struct{ N int }

func BenchmarkStopStartCheap(b *testing.B) {
	count := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer() // expect: GO-TIMER
		count = 0
		b.StartTimer()
		count++
	}
	sink = count
}

func BenchmarkStopStartNothing(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer() // expect: GO-TIMER
		b.StartTimer()
		sink += i
	}
}

func BenchmarkStartTopStopBottom(b *testing.B) {
	xs := []int{3, 1, 2}
	for i := 0; i < b.N; i++ {
		b.StartTimer()
		sink += xs[i%3]
		b.StopTimer() // expect: GO-TIMER
	}
}

func BenchmarkCountDownBN(b *testing.B) {
	for ; b.N > 0; b.N-- { // expect: GO-BN
		sink++
	}
}

func BenchmarkSetBN(b *testing.B) {
	b.N = 1000 // expect: GO-BN
	for i := 0; i < b.N; i++ {
		sink++
	}
}

func BenchmarkBNAddress(b *testing.B) {
	p := &b.N // expect: GO-BN
	for i := 0; i < *p; i++ {
		sink++
	}
}

func BenchmarkOnce(b *testing.B) { // expect: GO-NOLOOP
	sink += len(strings.Repeat("a", 1000))
}

func BenchmarkUnnamed(_ *testing.B) { // expect: GO-NOLOOP
	sink++
}

func BenchmarkOnlyReports(b *testing.B) { // expect: GO-NOLOOP
	b.ReportAllocs()
	sink++
}

// Negative cases.

// A benchmark that measures a size, not a time: it reports its own metric once.
func BenchmarkSizeOnly(b *testing.B) {
	b.StopTimer()
	sizes := strings.Repeat("a", 1000)
	b.ReportMetric(float64(len(sizes)), "bytes")
}

func BenchmarkStopStartAroundCopy(b *testing.B) {
	reference := []int{5, 3, 9, 1, 7}
	data := make([]int, len(reference))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(data, reference) // a call: its cost is not known to be small
		b.StartTimer()
		sort.Ints(data)
	}
}

func BenchmarkStopStartAroundLoop(b *testing.B) {
	data := make([]int, 64)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range data {
			data[j] = len(data) - j
		}
		b.StartTimer()
		sort.Ints(data)
	}
}

func BenchmarkTimedGC(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StartTimer()
		runtime.GC() // the timed work dwarfs the pair's cost
		b.StopTimer()
	}
}

func BenchmarkLocalCountDown(b *testing.B) {
	cfg := config{}
	for n := b.N; n > 0; n-- {
		cfg.N = n // another struct's N
	}
	sink = cfg.N
}

func BenchmarkSkipped(b *testing.B) {
	b.Skip("needs a network")
}

func BenchmarkDelegates(b *testing.B) {
	benchmarkHelper(b, "apple")
}

func BenchmarkWithSubBenchmarks(b *testing.B) {
	b.Run("inc", func(b *testing.B) {
		for range b.N {
			sink++
		}
	})
}

// Not a benchmark the testing package runs (lower-case name): GO-NOLOOP does not apply.
func benchmarkUnused(b *testing.B) {
	sink++
}
