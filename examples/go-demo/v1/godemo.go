// Package godemo holds a few small functions benchmarked by godemo_test.go
// (version 1 of rigorbench's Go demo; v2 plants a faster JoinConcat and a
// slower Adler32). Its benchmark output (tests/testdata/go/bench.txt) is a
// golden input for rigorbench's Go benchmark reader; see make_testdata.sh.
package godemo

import "strings"

// JoinConcat joins words with commas by repeated string concatenation,
// which copies the growing result on every step (quadratic, many allocations).
func JoinConcat(words []string) string {
	s := ""
	for i, w := range words {
		if i > 0 {
			s += ","
		}
		s += w
	}
	return s
}

// JoinBuilder joins words with commas using a pre-sized strings.Builder
// (linear, a single allocation).
func JoinBuilder(words []string) string {
	n := 0
	for _, w := range words {
		n += len(w) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, w := range words {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(w)
	}
	return b.String()
}

// Adler32 computes the Adler-32 checksum of data (a byte-at-a-time loop
// without allocation, reported in MB/s via b.SetBytes).
func Adler32(data []byte) uint32 {
	const mod = 65521
	a, b := uint32(1), uint32(0)
	for _, c := range data {
		a = (a + uint32(c)) % mod
		b = (b + a) % mod
	}
	return b<<16 | a
}
