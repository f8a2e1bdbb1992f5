// Tests asynchronous preemption (SIGURG to the running thread, the handler redirecting it to asyncPreempt):
// with GOMAXPROCS 1 a goroutine spins in `for {}` (no function call, so only a signal can stop it), yet
// another goroutine keeps ticking, runtime.GC() (which must stop the spinner) completes, and main itself
// gets the CPU back after each sleep.
package main

import (
	"runtime"
	"sync/atomic"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

var started, ticks atomic.Int64

//go:noinline
func spin() {
	started.Store(1)
	for {
	}
}

func main() {
	check.Watchdog(20*time.Second, "preempt")
	runtime.GOMAXPROCS(1)
	go spin()
	go func() {
		for {
			time.Sleep(time.Millisecond)
			ticks.Add(1)
		}
	}()
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	t0 := time.Now()
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	check.That(ms.NumGC >= gc0+3, "GC cycles: %d -> %d", gc0, ms.NumGC)
	gcTime := time.Since(t0)
	t0 = time.Now()
	before := ticks.Load()
	time.Sleep(300 * time.Millisecond)
	n := ticks.Load() - before
	// Each tick needs the spinner preempted (sysmon asks after 10 ms of running): ~20-30 ticks in 300 ms.
	check.That(n >= 5, "the ticking goroutine ran only %d times in %v beside the spinner", n, time.Since(t0))
	check.That(started.Load() == 1, "spinner never started")
	println("3 GCs in", gcTime.String(), "and", n, "ticks in 300ms beside a spinning goroutine")
	check.Pass("async preemption of a spinning goroutine")
}
