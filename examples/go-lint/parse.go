// Package golint holds Go benchmarks with the mistakes 'rigorbench lint' finds
// (see README.md); parse.go is the code under test.
package golint

import "strconv"

// SumFields adds the comma-separated integers of line.
func SumFields(line string) int {
	total, start := 0, 0
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == ',' {
			n, _ := strconv.Atoi(line[start:i])
			total += n
			start = i + 1
		}
	}
	return total
}
