// Tests timers and tickers, each with a lower bound (the wait really waited) and a generous upper bound
// (it woke): time.Sleep, NewTimer, Stop before the deadline (never fires), Reset, AfterFunc, a 10 ms
// Ticker for 10 ticks, Ticker.Reset, and 100 AfterFunc timers 3 ms apart, none early and none late by more
// than the slack.
package main

import (
	"sync"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

const slack = 3 * time.Second

func within(what string, el, lo time.Duration) {
	check.That(el >= lo && el < lo+slack, "%s: took %v, want >= %v and < %v", what, el, lo, lo+slack)
}

func sleeps() {
	t0 := time.Now()
	time.Sleep(20 * time.Millisecond)
	within("Sleep(20ms)", time.Since(t0), 20*time.Millisecond)

	t0 = time.Now()
	tm := time.NewTimer(30 * time.Millisecond)
	<-tm.C
	within("NewTimer(30ms)", time.Since(t0), 30*time.Millisecond)

	stopped := time.NewTimer(50 * time.Millisecond)
	check.That(stopped.Stop(), "Stop before the deadline returned false")
	select {
	case <-stopped.C:
		check.Failf("a stopped timer fired")
	case <-time.After(80 * time.Millisecond):
	}

	t0 = time.Now()
	r := time.NewTimer(time.Hour)
	r.Reset(25 * time.Millisecond)
	<-r.C
	within("Reset(25ms)", time.Since(t0), 25*time.Millisecond)

	t0 = time.Now()
	fired := make(chan time.Duration, 1)
	time.AfterFunc(15*time.Millisecond, func() { fired <- time.Since(t0) })
	within("AfterFunc(15ms)", <-fired, 15*time.Millisecond)
}

func tickers() {
	t0 := time.Now()
	tk := time.NewTicker(10 * time.Millisecond)
	for i := 0; i < 10; i++ {
		<-tk.C
	}
	within("10 ticks of 10ms", time.Since(t0), 90*time.Millisecond)
	tk.Reset(40 * time.Millisecond)
	// A tick sent before the Reset (the 10 ms period ran on) stays in the channel: drop it, or the first
	// receive below returns at once (seen under ThreadSanitizer: 68 ms for "2 ticks").
	select {
	case <-tk.C:
	default:
	}
	t0 = time.Now()
	<-tk.C
	<-tk.C
	within("Ticker.Reset(40ms), 2 ticks", time.Since(t0), 70*time.Millisecond)
	tk.Stop()
}

// ordered starts 100 AfterFunc timers 3 ms apart, last first, and checks that each fires no earlier than its
// deadline and within the slack after it. (Their callbacks are goroutines, and each P runs the timers on its
// own heap: with GOMAXPROCS > 1 and a loaded host, a P whose thread waits for a CPU holds its timers back
// while the other P's fire, so the firing order is the deadline order only up to that lateness.)
func ordered() {
	const n = 100
	var mu sync.Mutex
	fired := make([]time.Duration, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := n - 1; i >= 0; i-- {
		wg.Add(1)
		i := i
		time.AfterFunc(time.Duration(i)*3*time.Millisecond, func() {
			mu.Lock()
			fired[i] = time.Since(t0)
			mu.Unlock()
			wg.Done()
		})
	}
	wg.Wait()
	late := 0
	for i, at := range fired {
		deadline := time.Duration(i) * 3 * time.Millisecond
		check.That(at >= deadline, "timer %d fired at %v, before its deadline %v", i, at, deadline)
		if at > deadline+slack {
			late++
		}
	}
	check.That(late == 0, "%d of %d timers fired more than %v late: %v", late, n, slack, fired)
}

func main() {
	check.Watchdog(20*time.Second, "timers")
	sleeps()
	tickers()
	ordered()
	check.Pass("timers and tickers")
}
