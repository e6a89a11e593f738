// Package godemo, version 2 of rigorbench's Go demo: JoinConcat now calls
// strings.Join (faster than version 1's repeated concatenation) and Adler32
// takes the modulo through a function value and a 64-bit division per byte
// (slower).
package godemo

import "strings"

// adlerStep is called through a function value, so the compiler cannot inline
// it or turn its 64-bit modulo into a multiplication: version 2's slowdown.
var adlerStep = func(x, y, m uint64) uint64 { return (x + y) % m }

// JoinConcat joins words with commas; version 2 lets strings.Join size the
// result once instead of concatenating step by step.
func JoinConcat(words []string) string {
	return strings.Join(words, ",")
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
		a = uint32(adlerStep(uint64(a), uint64(c), mod))
		b = uint32(adlerStep(uint64(b), uint64(a), mod))
	}
	return b<<16 | a
}
