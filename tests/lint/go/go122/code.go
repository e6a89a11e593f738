// Package corpus is the labelled corpus of the Go lint rules: each line a rule must flag
// ends in an expect comment naming the rule; every other benchmark is a negative case.
package corpus

import "strings"

// Shout is pure: it only computes on its argument.
func Shout(s string) string { return strings.ToUpper(s) + "!" }

// Count is pure: it reads its slice and assigns only its own locals.
func Count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

var total int

// Record writes package state: a call to it is never removable.
func Record(n int) int {
	total += n
	return total
}

// Fill writes through its slice argument.
func Fill(xs []int, v int) int {
	for i := range xs {
		xs[i] = v
	}
	return len(xs)
}

// Depth calls itself: gc never inlines it, so it never deletes a call to it.
func Depth(n int) int {
	if n == 0 {
		return 0
	}
	return Depth(n-1) + 1
}

// Opaque is pure, but the directive keeps gc from inlining it, so calls stay.
//
//go:noinline
func Opaque(x int) int { return x*x + 1 }

// Counter has a mutating and a reading method.
type Counter struct{ n int }

// Add mutates its receiver.
func (c *Counter) Add(d int) int {
	c.n += d
	return c.n
}

// Value only reads.
func (c Counter) Value() int { return c.n }

// MakeInput builds benchmark input; its cost is unknown to the linter.
func MakeInput(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i * 7 % 13
	}
	return xs
}
