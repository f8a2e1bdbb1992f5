// stall: the preemption stall workload. K goroutines each lock their OS thread and pin it to one CPU, then
// loop: epoll_wait on an idle epoll fd with a 1 ms timeout (EINTR: keep waiting), then ~20 us of pure-Go
// compute calibrated on the fastest CPU. Allocator goroutines make pointer-bearing garbage at a paced rate
// (-alloc-mib MiB/s in total, no catch-up bursts) over a live heap they churn, so GC cycles keep running and
// the GC keeps suspending the pinned goroutines (SIGURG when they run). An unpinned goroutine sleeps 1 ms
// in a loop. After -secs one line:
//
//	RESULT go=... goarch=... cpus=... gomaxprocs=... gogc=... godebug=... gc_cycles=... max_gap_ms=...
//	       tick_gap_ms=... threshold_ms=... verdict=OK|STALL
//
// max_gap_ms is the longest time between two wakes of any pinned loop (a gap still open at the end
// counts); tick_gap_ms the same for the unpinned sleeper. Exit status 1 with verdict=STALL when max_gap_ms
// exceeds -threshold-ms. See README.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

var epoch = time.Now()

// now is monotonic nanoseconds since the start.
func now() int64 { return int64(time.Since(epoch)) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "stall: "+format+"\n", args...)
	os.Exit(2)
}

// gapTracker records the longest time between two wakes of one loop; the loop's own goroutine writes it,
// main reads it at the end (a loop stalled at that moment still has its open gap counted).
type gapTracker struct {
	last   atomic.Int64
	maxGap atomic.Int64
	wakes  atomic.Int64
}

func (g *gapTracker) wake(t int64) {
	if gap := t - g.last.Load(); gap > g.maxGap.Load() {
		g.maxGap.Store(gap)
	}
	g.last.Store(t)
	g.wakes.Add(1)
}

func (g *gapTracker) gapAt(end int64) int64 {
	if open := end - g.last.Load(); open > g.maxGap.Load() {
		return open
	}
	return g.maxGap.Load()
}

var sink atomic.Uint64

// compute is the pure-Go work unit: a xorshift loop (preemptible anywhere, no calls, no allocation).
func compute(iters int) {
	x := uint64(88172645463325252)
	for i := 0; i < iters; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	sink.Add(x)
}

// calibrate returns the iterations that take computeUs on the fastest CPU (best of several trials, on a
// thread pinned there; the thread ends with the goroutine, so the pin does not leak).
func calibrate(cpu int, computeUs float64) int {
	res := make(chan int)
	go func() {
		runtime.LockOSThread()
		if err := pinThread(cpu); err != nil {
			fail("calibration: pin to cpu %d: %v", cpu, err)
		}
		const n = 200000
		best := int64(1 << 62)
		for i := 0; i < 15; i++ {
			t0 := now()
			compute(n)
			best = min64(best, now()-t0)
		}
		res <- int(float64(n) * computeUs * 1e3 / float64(max64(best, 1)))
	}()
	return <-res
}

// pinnedLoop is one of the K pinned goroutines; it runs until the process exits.
func pinnedLoop(cpu, iters int, g *gapTracker, ready chan<- error) {
	runtime.LockOSThread()
	if err := pinThread(cpu); err != nil {
		ready <- fmt.Errorf("pin to cpu %d: %v", cpu, err)
		return
	}
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		ready <- fmt.Errorf("epoll_create1: %v", err)
		return
	}
	events := make([]syscall.EpollEvent, 1)
	g.last.Store(now())
	ready <- nil
	for {
		for {
			if _, err := syscall.EpollWait(epfd, events, 1); err != syscall.EINTR {
				break
			}
		}
		g.wake(now())
		compute(iters)
	}
}

func ticker(g *gapTracker) {
	g.last.Store(now())
	for {
		time.Sleep(time.Millisecond)
		g.wake(now())
	}
}

type config struct {
	secs, thresholdMs, allocMiB, liveMiB, computeUs float64
	cpus, class                                     string
}

func parseFlags() config {
	var c config
	flag.Float64Var(&c.secs, "secs", 10, "how long to run, seconds")
	flag.StringVar(&c.cpus, "cpus", "", "CPUs to pin one loop each to, e.g. 0,2-3 (default: -class, else all allowed)")
	flag.StringVar(&c.class, "class", "", "little or big: pin to that class of CPUs (cpu_capacity)")
	flag.Float64Var(&c.thresholdMs, "threshold-ms", 50, "a wake gap above this is a STALL (exit status 1)")
	flag.Float64Var(&c.allocMiB, "alloc-mib", 256, "garbage to allocate per second, MiB, all allocators together")
	flag.Float64Var(&c.liveMiB, "live-mib", 32, "live heap the allocators churn, MiB")
	flag.Float64Var(&c.computeUs, "compute-us", 20, "compute per wake, microseconds on the fastest CPU")
	flag.Parse()
	if c.class != "" && c.class != "little" && c.class != "big" {
		fail("-class must be little or big")
	}
	if c.secs <= 0 || c.thresholdMs <= 0 || c.allocMiB < 0 || c.liveMiB < 0 || c.computeUs < 0 {
		fail("-secs, -threshold-ms must be positive; -alloc-mib, -live-mib, -compute-us not negative")
	}
	return c
}

func selectCPUs(c config, allowed []int) []int {
	switch {
	case c.cpus != "":
		cpus, err := parseList(c.cpus)
		if err != nil {
			fail("%v", err)
		}
		return cpus
	case c.class != "":
		return classCPUs(c.class, allowed)
	}
	return allowed
}

func main() {
	c := parseFlags()
	allowed := allowedCPUs()
	cpus := selectCPUs(c, allowed)
	iters := calibrate(fastestCPU(allowed), c.computeUs)

	loops := make([]gapTracker, len(cpus))
	ready := make(chan error)
	for i, cpu := range cpus {
		go pinnedLoop(cpu, iters, &loops[i], ready)
		if err := <-ready; err != nil {
			fail("%v", err)
		}
	}
	var tick gapTracker
	go ticker(&tick)
	allocated := startAllocators(c.allocMiB, c.liveMiB)
	gc0 := numGC()

	time.Sleep(time.Duration(c.secs * float64(time.Second)))
	end := now()
	var maxGap int64
	gaps := make([]string, len(loops))
	for i := range loops {
		maxGap = max64(maxGap, loops[i].gapAt(end))
		gaps[i] = fmt.Sprintf("%.1f", ms(loops[i].gapAt(end)))
	}
	report(c, cpus, iters, numGC()-gc0, maxGap, tick.gapAt(end), gaps, allocated.Load())
}

func report(c config, cpus []int, iters int, cycles uint32, maxGap, tickGap int64, gaps []string, alloc int64) {
	verdict := "OK"
	if ms(maxGap) > c.thresholdMs {
		verdict = "STALL"
	}
	gogc := debug.SetGCPercent(100)
	fmt.Printf("RESULT go=%s goarch=%s cpus=%s class=%s gomaxprocs=%d gogc=%d godebug=%s secs=%g "+
		"compute_iters=%d alloc_mib_s=%.1f gc_cycles=%d max_gap_ms=%.3f loop_gaps_ms=%s tick_gap_ms=%.3f "+
		"threshold_ms=%g verdict=%s\n",
		runtime.Version(), runtime.GOARCH, listString(cpus), orDash(c.class), runtime.GOMAXPROCS(0), gogc,
		orDash(os.Getenv("GODEBUG")), c.secs, iters, float64(alloc)/(1<<20)/c.secs, cycles, ms(maxGap),
		strings.Join(gaps, ","), ms(tickGap), c.thresholdMs, verdict)
	if verdict == "STALL" {
		os.Exit(1)
	}
	os.Exit(0)
}

func numGC() uint32 {
	var st debug.GCStats
	debug.ReadGCStats(&st)
	return uint32(st.NumGC)
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
