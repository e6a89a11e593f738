package golint

import (
	"os"
	"strings"
	"testing"
)

var (
	sink   int
	header = "id,name,size"
)

func BenchmarkIsHeader(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = strings.HasPrefix(header, "id,")
	}
}

func BenchmarkSumFile(b *testing.B) {
	data, err := os.ReadFile("testdata/numbers.csv")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		sink += SumFields(string(data))
	}
}

func BenchmarkSumOnce(b *testing.B) {
	sink = SumFields(strings.Repeat("7,", 1000) + "7")
}

func BenchmarkSumReset(b *testing.B) {
	count := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		count = 0
		b.StartTimer()
		count += SumFields("1,2,3")
	}
	sink = count
}
