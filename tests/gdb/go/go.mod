module debuggee

go 1.19
