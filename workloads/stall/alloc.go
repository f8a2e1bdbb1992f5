// The allocators of the stall workload: pointer-bearing garbage at a paced rate over a churned live heap.
package main

import (
	"runtime"
	"sync/atomic"
	"time"
)

// node is 64 bytes with one pointer: lists of them give the GC pointers to chase.
type node struct {
	next *node
	val  [7]uint64
}

const (
	nodeBytes = 64
	// An allocator that overslept by up to this much makes up for it in the next chunks (sleeps overshoot
	// by tens of microseconds); beyond it the missed chunks are dropped.
	maxLag = int64(2 * time.Millisecond)
)

// startAllocators starts one allocator per GOMAXPROCS (at most 4) sharing allocMiB MiB/s and a live heap
// of liveMiB MiB, and returns the byte counter they add to.
func startAllocators(allocMiB, liveMiB float64) *atomic.Int64 {
	var total atomic.Int64
	if allocMiB <= 0 {
		return &total
	}
	n := runtime.GOMAXPROCS(0)
	if n > 4 {
		n = 4
	}
	perMs := int(allocMiB*(1<<20)/1000) / n // bytes per millisecond per allocator
	slots := int(liveMiB*(1<<20)) / n / max(perMs, nodeBytes)
	for i := 0; i < n; i++ {
		go allocator(max(perMs/nodeBytes, 1), max(slots, 1), &total)
	}
	return &total
}

// allocator makes one list of nodesPerMs nodes every millisecond and stores it in the next slot of its
// live ring, so the list it replaces (allocated a ring ago) becomes garbage. When it falls more than maxLag
// behind (the machine, the GC, or the emulator is slower than the rate) it skips the missed chunks: no
// catch-up bursts.
func allocator(nodesPerMs, slots int, total *atomic.Int64) {
	live := make([]*node, slots)
	next := now()
	for i := 0; ; i++ {
		var head *node
		for j := 0; j < nodesPerMs; j++ {
			head = &node{next: head}
			head.val[0] = uint64(j)
		}
		live[i%slots] = head
		total.Add(int64(nodesPerMs * nodeBytes))
		next += int64(time.Millisecond)
		if t := now(); t > next+maxLag {
			next = t
		} else if t < next {
			time.Sleep(time.Duration(next - t))
		}
	}
}
