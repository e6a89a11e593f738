package godemo

import (
	"fmt"
	"hash/adler32"
	"strconv"
	"testing"
)

// Results are stored in package-level sinks so the compiler cannot drop the work.
var (
	sinkString string
	sinkUint32 uint32
)

func makeWords(n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	return words
}

var sizes = []int{10, 100, 1000}

// BenchmarkJoin compares two ways of joining strings, as sub-benchmarks named
// like "BenchmarkJoin/concat/size=100" (ns/op, B/op and allocs/op).
func BenchmarkJoin(b *testing.B) {
	impls := []struct {
		name string
		join func([]string) string
	}{
		{"concat", JoinConcat},
		{"builder", JoinBuilder},
	}
	for _, impl := range impls {
		for _, n := range sizes {
			words := makeWords(n)
			b.Run(fmt.Sprintf("%s/size=%d", impl.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					sinkString = impl.join(words)
				}
			})
		}
	}
}

// BenchmarkAdler32 reports throughput (MB/s) through b.SetBytes, with one
// sub-benchmark per input size.
func BenchmarkAdler32(b *testing.B) {
	for _, n := range []int{64, 4096} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkUint32 = Adler32(data)
			}
		})
	}
}

// BenchmarkItoa is a plain benchmark without sub-benchmarks.
func BenchmarkItoa(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkString = strconv.Itoa(i)
	}
}

func TestJoin(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		words := makeWords(n)
		if got, want := JoinConcat(words), JoinBuilder(words); got != want {
			t.Errorf("n=%d: JoinConcat=%q, JoinBuilder=%q", n, got, want)
		}
	}
	if got := JoinBuilder([]string{"a", "b"}); got != "a,b" {
		t.Errorf("JoinBuilder = %q, want %q", got, "a,b")
	}
}

func TestAdler32(t *testing.T) {
	data := []byte("rigorbench")
	if got, want := Adler32(data), adler32.Checksum(data); got != want {
		t.Errorf("Adler32 = %#x, want %#x", got, want)
	}
}
