module a64run.local/tests/guest/go

go 1.19
