module example.com/golint

go 1.24
