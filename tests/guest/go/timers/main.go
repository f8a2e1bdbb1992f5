// Tests timers and tickers, each with a lower bound (the wait really waited) and a generous upper bound
// (it woke): time.Sleep, NewTimer, Stop before the deadline (never fires), Reset, AfterFunc, a 10 ms
// Ticker for 10 ticks, Ticker.Reset, and 100 timers with spread deadlines firing in deadline order.
package main

import (
	"sort"
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
	t0 = time.Now()
	<-tk.C
	<-tk.C
	within("Ticker.Reset(40ms), 2 ticks", time.Since(t0), 70*time.Millisecond)
	tk.Stop()
}

func ordered() {
	const n = 100
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := n - 1; i >= 0; i-- {
		wg.Add(1)
		i := i
		time.AfterFunc(time.Duration(i)*3*time.Millisecond, func() {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			wg.Done()
		})
	}
	wg.Wait()
	// Timers 3 ms apart may fire in one batch on a loaded machine; the order may then swap neighbours only.
	sorted := append([]int(nil), order...)
	sort.Ints(sorted)
	for i, v := range order {
		check.That(sorted[i] == i, "timers: %d missing", i)
		d := v - i
		check.That(d > -20 && d < 20, "timers fired far out of deadline order: %v", order)
	}
}

func main() {
	check.Watchdog(20*time.Second, "timers")
	sleeps()
	tickers()
	ordered()
	check.Pass("timers and tickers")
}
