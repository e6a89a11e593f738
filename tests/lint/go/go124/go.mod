module example.com/rigorbench/bloop

go 1.24
