// Probe 9: Go signal delivery through os/signal.
//
//	go.notify     syscall.Kill(self, SIGUSR1) until the signal arrives on a signal.Notify channel: p50/p99
//	go.signals_s  signals per second when the sender waits for each one to be received (a handshake
//	              through a second goroutine) before sending the next
//
// Output follows bench/probes/common.h (RESULT, SAMPLES, FAIL lines). A watchdog ends the probe with a
// FAIL line if no signal arrives for 3 s, so a lost signal shows as a failure, not as a hang.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

var progress atomic.Int64

func watchdog(what *atomic.Value) {
	last := progress.Load()
	for {
		time.Sleep(3 * time.Second)
		now := progress.Load()
		if now == last {
			fmt.Printf("FAIL %s: no signal received for 3 s\n", what.Load())
			os.Exit(1)
		}
		last = now
	}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func notifyRoundTrip(ch chan os.Signal, pid, n int) {
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			fmt.Printf("FAIL go.notify: kill: %v\n", err)
			os.Exit(1)
		}
		<-ch
		lat = append(lat, time.Since(t0))
		progress.Add(1)
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	var sb strings.Builder
	for _, d := range lat {
		fmt.Fprintf(&sb, " %.3f", us(d))
	}
	fmt.Printf("SAMPLES go.notify unit=us%s\n", sb.String())
	fmt.Printf("RESULT go.notify.p50=%.3f unit=us\n", us(lat[(n-1)/2]))
	fmt.Printf("RESULT go.notify.p99=%.3f unit=us\n", us(lat[(n*99+99)/100-1]))
}

func signalRate(ch chan os.Signal, pid int, dur time.Duration) {
	ack := make(chan struct{})
	go func() {
		for range ch {
			ack <- struct{}{}
		}
	}()
	count := 0
	start := time.Now()
	for time.Since(start) < dur {
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			fmt.Printf("FAIL go.signals_s: kill: %v\n", err)
			os.Exit(1)
		}
		<-ack
		count++
		progress.Add(1)
	}
	fmt.Printf("RESULT go.signals_s=%.0f unit=1/s\n", float64(count)/time.Since(start).Seconds())
}

func main() {
	n := flag.Int("n", 2000, "round trips for go.notify")
	dur := flag.Duration("d", time.Second, "duration of the go.signals_s run")
	flag.Parse()
	var what atomic.Value
	what.Store("go.notify")
	go watchdog(&what)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	pid := syscall.Getpid()
	notifyRoundTrip(ch, pid, *n)
	what.Store("go.signals_s")
	signalRate(ch, pid, *dur)
}
