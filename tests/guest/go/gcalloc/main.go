// Tests the garbage collector under allocation pressure: four goroutines (GOMAXPROCS 2, GOGC 25) allocate
// ~64 MiB of pointer-bearing nodes in total while each churns a live set of linked lists whose contents it
// verifies, so many GC cycles run concurrently with the mutators and with moving stacks (deep recursion);
// finalizers run, and explicit runtime.GC() calls complete.
package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

type node struct {
	next  *node
	value uint64
	pad   [6]uint64
	blob  []byte
}

const (
	workers    = 4
	listLen    = 64
	liveLists  = 256
	allocBytes = 64 << 20
)

func makeList(seed uint64) *node {
	var head *node
	for i := 0; i < listLen; i++ {
		head = &node{next: head, value: seed*1000003 + uint64(i), blob: make([]byte, 64)}
		head.blob[0] = byte(seed)
	}
	return head
}

func verify(head *node, seed uint64) {
	i := listLen - 1
	for n := head; n != nil; n = n.next {
		check.That(n.value == seed*1000003+uint64(i) && n.blob[0] == byte(seed),
			"list %d corrupted at %d: value %d", seed, i, n.value)
		i--
	}
	check.That(i == -1, "list %d has the wrong length", seed)
}

// deep grows the goroutine stack (the GC scans and the runtime copies it) and allocates at the bottom.
func deep(n int) *node {
	var pad [32]uint64
	pad[n%32] = uint64(n)
	if n == 0 {
		return makeList(pad[0])
	}
	return deep(n - 1)
}

func mutator(id int, wg *sync.WaitGroup) {
	defer wg.Done()
	live := make([]*node, liveLists)
	seeds := make([]uint64, liveLists)
	perList := listLen * (96 + 64)
	rounds := allocBytes / workers / perList
	for r := 0; r < rounds; r++ {
		slot := r % liveLists
		if live[slot] != nil {
			verify(live[slot], seeds[slot])
		}
		seeds[slot] = uint64(id*rounds + r)
		live[slot] = makeList(seeds[slot])
		if r%500 == 0 {
			verify(deep(2000), 0)
		}
	}
	for i, l := range live {
		if l != nil {
			verify(l, seeds[i])
		}
	}
}

func main() {
	check.Watchdog(30*time.Second, "gcalloc")
	runtime.GOMAXPROCS(2)
	debug.SetGCPercent(25) // a cycle every few MiB: many cycles for the garbage below
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	finalized := make(chan int, 100)
	for i := 0; i < 100; i++ {
		obj := &node{value: uint64(i)}
		runtime.SetFinalizer(obj, func(n *node) { finalized <- int(n.value) })
	}

	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go mutator(w, &wg)
	}
	wg.Wait()
	runtime.GC()
	runtime.GC()

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	cycles := after.NumGC - before.NumGC
	check.That(cycles >= 10, "only %d GC cycles for %d MiB of garbage", cycles, allocBytes>>20)
	check.That(after.TotalAlloc-before.TotalAlloc >= allocBytes, "allocated only %d bytes",
		after.TotalAlloc-before.TotalAlloc)
	got := 0
	timeout := time.After(5 * time.Second)
	for got < 100 {
		select {
		case <-finalized:
			got++
		case <-timeout:
			check.Failf("only %d of 100 finalizers ran", got)
		}
	}
	check.Pass("GC-heavy allocation")
}
