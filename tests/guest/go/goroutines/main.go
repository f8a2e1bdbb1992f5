// Tests goroutines, channels and select: a pipeline of 64 stages carries 2000 numbers in order, 200
// goroutines fan in through a buffered channel, an unbuffered ping-pong runs 5000 round trips, select picks
// among ready channels (each one some of the time), takes default when none is ready, and times out with
// time.After; closing a channel releases every receiver.
package main

import (
	"sync"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

func pipeline() {
	const stages, n = 64, 2000
	in := make(chan int)
	var c chan int = in
	for i := 0; i < stages; i++ {
		next := make(chan int)
		go func(from <-chan int, to chan<- int) {
			for v := range from {
				to <- v + 1
			}
			close(to)
		}(c, next)
		c = next
	}
	go func() {
		for i := 0; i < n; i++ {
			in <- i
		}
		close(in)
	}()
	want := 0
	for v := range c {
		check.That(v == want+stages, "pipeline: got %d, want %d", v, want+stages)
		want++
	}
	check.That(want == n, "pipeline: %d values came out, want %d", want, n)
}

func fanIn() {
	const workers, each = 200, 50
	out := make(chan int, 16)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				out <- w*each + i
			}
		}(w)
	}
	go func() { wg.Wait(); close(out) }()
	seen := make([]bool, workers*each)
	count := 0
	for v := range out {
		check.That(!seen[v], "fan-in: %d received twice", v)
		seen[v] = true
		count++
	}
	check.That(count == workers*each, "fan-in: %d values, want %d", count, workers*each)
}

func pingPong() {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v * 2
		}
		close(pong)
	}()
	for i := 0; i < 5000; i++ {
		ping <- i
		check.That(<-pong == 2*i, "ping-pong: wrong answer at %d", i)
	}
	close(ping)
	_, ok := <-pong
	check.That(!ok, "ping-pong: pong still open after ping closed")
}

func selects() {
	a, b := make(chan int, 1), make(chan int, 1)
	hits := [2]int{}
	for i := 0; i < 400; i++ {
		a <- 1
		b <- 2
		select {
		case <-a:
			hits[0]++
			<-b
		case <-b:
			hits[1]++
			<-a
		}
	}
	check.That(hits[0] > 50 && hits[1] > 50, "select: not uniform among ready cases: %v", hits)
	select {
	case <-a:
		check.Failf("select: empty channel was ready")
	default:
	}
	t0 := time.Now()
	select {
	case <-a:
		check.Failf("select: empty channel was ready")
	case <-time.After(30 * time.Millisecond):
	}
	el := time.Since(t0)
	check.That(el >= 30*time.Millisecond && el < 3*time.Second, "select: time.After(30ms) took %v", el)
}

func broadcast() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); <-done }()
	}
	close(done)
	wg.Wait()
}

func main() {
	check.Watchdog(20*time.Second, "goroutines")
	pipeline()
	fanIn()
	pingPong()
	selects()
	broadcast()
	check.Pass("goroutines, channels, select")
}
