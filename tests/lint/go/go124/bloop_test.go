// Package bloop is the labelled corpus of GO-BLOOP (go.mod says go 1.24) and of the other
// rules' behaviour next to b.Loop.
package bloop

import (
	"os"
	"strings"
	"testing"
)

var sink int

func BenchmarkClassic(b *testing.B) {
	s := strings.Repeat("ab", 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		sink += strings.Count(s, "a")
	}
}

func BenchmarkRangeN(b *testing.B) {
	for range b.N { // expect: GO-BLOOP
		sink++
	}
}

func BenchmarkDiscarded(b *testing.B) {
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		_ = strings.ToUpper("abc") // expect: GO-RESULT
	}
}

func BenchmarkTimedSetup(b *testing.B) {
	data, _ := os.ReadFile("go.mod") // expect: GO-SETUP
	for i := 0; i < b.N; i++ {       // expect: GO-BLOOP
		sink += len(data)
	}
}

func BenchmarkSubBenchmarks(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(strings.Repeat("x", n), func(b *testing.B) {
			for range b.N { // expect: GO-BLOOP
				sink += n
			}
		})
	}
}

func BenchmarkBlankLines(b *testing.B) {
	s := strings.Repeat("ab", 8)

	b.ResetTimer()

	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		sink += len(s)
	}
}

// Flagged, but --fix leaves them alone.

func BenchmarkUsesLoopVariable(b *testing.B) {
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		sink += i
	}
}

func BenchmarkReadsBNAfter(b *testing.B) {
	n := 0
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		n += 3
	}
	b.ReportMetric(float64(n)/float64(b.N), "things/op")
}

func BenchmarkStopsTimer(b *testing.B) {
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		b.StopTimer() // expect: GO-TIMER
		sink = 0
		b.StartTimer()
		sink += len(strings.Fields("a b c"))
	}
}

func BenchmarkCountDownHeader(b *testing.B) {
	for n := b.N; n > 0; n-- { // expect: GO-BLOOP
		sink++
	}
}

func BenchmarkInsideAnotherLoop(b *testing.B) {
	for _, s := range []string{"a", "b"} {
		for i := 0; i < b.N; i++ { // expect: GO-BLOOP
			sink += len(s)
		}
	}
}

func BenchmarkBreaks(b *testing.B) {
	for i := 0; i < b.N; i++ { // expect: GO-BLOOP
		if sink > 1<<40 {
			break
		}
		sink++
	}
}

// Negative cases: b.Loop keeps results alive and resets the timer itself.

func BenchmarkLoopKeepsResults(b *testing.B) {
	for b.Loop() {
		strings.ToUpper("abc")
	}
}

func BenchmarkLoopAfterSetup(b *testing.B) {
	data, _ := os.ReadFile("go.mod")
	for b.Loop() {
		sink += len(data)
	}
}
