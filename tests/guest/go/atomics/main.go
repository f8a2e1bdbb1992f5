// Tests GOMAXPROCS > 1 with sync/atomic: 8 goroutines on GOMAXPROCS 4 make exact counts with atomic.Add,
// a CompareAndSwap retry loop, atomic.Int64 (a 64-bit field) and a sync.Mutex-protected counter; a
// Swap-based spin lock keeps a non-atomic counter exact; sync.Once runs once; atomic.Value publishes
// complete values.
package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

const (
	goroutines = 8
	iters      = 20000
)

type counters struct {
	add   uint32
	cas   uint64
	typed atomic.Int64
	spin  int32
	plain int64 // guarded by spin
	mu    sync.Mutex
	mutex int64 // guarded by mu
	once  int32
}

func work(c *counters, once *sync.Once, v *atomic.Value, id int) {
	for i := 0; i < iters; i++ {
		atomic.AddUint32(&c.add, 1)
		for {
			old := atomic.LoadUint64(&c.cas)
			if atomic.CompareAndSwapUint64(&c.cas, old, old+3) {
				break
			}
		}
		c.typed.Add(-2)
		for atomic.SwapInt32(&c.spin, 1) != 0 {
			runtime.Gosched()
		}
		c.plain++
		atomic.StoreInt32(&c.spin, 0)
		c.mu.Lock()
		c.mutex++
		c.mu.Unlock()
		once.Do(func() { atomic.AddInt32(&c.once, 1) })
		if i%1000 == 0 {
			v.Store([2]int{id, -id})
			p := v.Load().([2]int)
			check.That(p[0] == -p[1], "atomic.Value: torn value %v", p)
		}
	}
}

func main() {
	check.Watchdog(30*time.Second, "atomics")
	runtime.GOMAXPROCS(4)
	check.That(runtime.GOMAXPROCS(0) == 4, "GOMAXPROCS is %d", runtime.GOMAXPROCS(0))
	var c counters
	var once sync.Once
	var v atomic.Value
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(id int) { defer wg.Done(); work(&c, &once, &v, id) }(g)
	}
	wg.Wait()
	const n = goroutines * iters
	check.That(c.add == n, "atomic.AddUint32: %d, want %d", c.add, n)
	check.That(c.cas == 3*n, "CompareAndSwap: %d, want %d", c.cas, 3*n)
	check.That(c.typed.Load() == -2*n, "atomic.Int64: %d, want %d", c.typed.Load(), -2*n)
	check.That(c.plain == n, "spin-locked counter: %d, want %d", c.plain, n)
	check.That(c.mutex == n, "mutex counter: %d, want %d", c.mutex, n)
	check.That(c.once == 1, "sync.Once ran %d times", c.once)
	check.Pass("GOMAXPROCS 4 with sync/atomic")
}
