// Tests runtime.LockOSThread with sched_setaffinity (raw syscalls, as the stall workload uses them): two
// goroutines each lock their thread and pin it to one CPU (the first and the last allowed), then yield,
// sleep and block on channels; each keeps its thread id, sched_getaffinity returns its own mask, and getcpu
// reports the pinned CPU. The affinity is per thread: the main thread's mask is unchanged.
package main

import (
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"a64run.local/tests/guest/go/internal/check"
)

type cpuMask [16]uint64 // 1024 CPUs, the kernel's CONFIG_NR_CPUS on arm64 is at most 4096

func getAffinity() cpuMask {
	var m cpuMask
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	check.That(e == 0, "sched_getaffinity: %v", e)
	return m
}

func setAffinity(m cpuMask) {
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	check.That(e == 0, "sched_setaffinity: %v", e)
}

func only(cpu int) cpuMask {
	var m cpuMask
	m[cpu/64] |= 1 << (cpu % 64)
	return m
}

func getcpu() int {
	var cpu uint32
	_, _, e := syscall.RawSyscall(syscall.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0)
	check.That(e == 0, "getcpu: %v", e)
	return int(cpu)
}

func pinned(cpu int, wg *sync.WaitGroup, ping chan int) {
	defer wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	setAffinity(only(cpu))
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		if i%10 == 0 {
			time.Sleep(time.Millisecond)
		}
		ping <- i
		check.That(syscall.Gettid() == tid, "locked goroutine moved from thread %d to %d", tid, syscall.Gettid())
		check.That(getAffinity() == only(cpu), "cpu %d: sched_getaffinity returned another mask", cpu)
	}
	// The kernel moves a thread off a CPU outside its mask before it returns to user space.
	check.That(getcpu() == cpu, "pinned to cpu %d, getcpu says %d", cpu, getcpu())
}

func main() {
	check.Watchdog(20*time.Second, "affinity")
	runtime.GOMAXPROCS(2)
	orig := getAffinity()
	first, last := -1, -1
	for c := 0; c < len(orig)*64; c++ {
		if orig[c/64]&(1<<(c%64)) != 0 {
			if first < 0 {
				first = c
			}
			last = c
		}
	}
	check.That(first >= 0, "empty initial affinity mask")
	runtime.LockOSThread()
	var wg sync.WaitGroup
	ping := make(chan int)
	wg.Add(2)
	go pinned(first, &wg, ping)
	go pinned(last, &wg, ping)
	go func() { wg.Wait(); close(ping) }()
	n := 0
	for range ping {
		n++
	}
	check.That(n == 100, "received %d pings, want 100", n)
	check.That(getAffinity() == orig, "the main thread's mask changed")
	check.Pass("LockOSThread with sched_setaffinity")
}
