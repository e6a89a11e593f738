module example.com/rigorbench/corpus

go 1.22
