module a64run.local/workloads/stall

go 1.19
