// The Go program the gdb tests debug (tests/gdb/scenarios/go.gdb): main.main calls square with a local to
// print; the exit status is the sum of the squares of 0..counter-1 (5 for counter 3).
package main

import (
	"fmt"
	"os"
)

var counter = 3

func square(x int) int {
	y := x * x
	return y
}

func main() {
	total := 0
	for i := 0; i < counter; i++ {
		total += square(i)
	}
	fmt.Println("total", total)
	os.Exit(total)
}
