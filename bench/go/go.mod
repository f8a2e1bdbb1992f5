module a64run.local/bench/go

go 1.19
