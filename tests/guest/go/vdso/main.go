// Tests that the Go runtime uses the vDSO a64run maps (AT_SYSINFO_EHDR): runtime.vdsoClockgettimeSym is set
// and points into the image, and the monotonic clock the runtime reads through it agrees with the
// clock_gettime system call. Go 1.19 looks the symbol up with the wrong hashes (x86's __vdso_clock_gettime),
// which only a DT_HASH table tolerates, as Linux links its arm64 vDSO; a64run's once had DT_GNU_HASH too and
// every nanotime was a system call. qemu-aarch64 7.2 maps no vDSO for arm64: there the symbol stays unset.
package main

import (
	"encoding/binary"
	"os"
	"syscall"
	"time"
	"unsafe"

	"a64run.local/tests/guest/go/internal/check"
)

//go:linkname vdsoClockgettimeSym runtime.vdsoClockgettimeSym
var vdsoClockgettimeSym uintptr

//go:linkname nanotime runtime.nanotime
func nanotime() int64

const atSysinfoEhdr = 33

func sysinfoEhdr() uintptr {
	b, err := os.ReadFile("/proc/self/auxv")
	check.That(err == nil, "read /proc/self/auxv: %v", err)
	for i := 0; i+16 <= len(b); i += 16 {
		if binary.LittleEndian.Uint64(b[i:]) == atSysinfoEhdr {
			return uintptr(binary.LittleEndian.Uint64(b[i+8:]))
		}
	}
	return 0
}

func monotonicSyscall() int64 {
	var ts syscall.Timespec
	_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	check.That(e == 0, "clock_gettime(CLOCK_MONOTONIC): %v", e)
	return ts.Nano()
}

func main() {
	check.Watchdog(20*time.Second, "vdso")
	ehdr := sysinfoEhdr()
	if ehdr == 0 {
		check.That(check.OnReferenceQemu(), "no AT_SYSINFO_EHDR in the auxiliary vector")
		check.That(vdsoClockgettimeSym == 0, "no vDSO, yet vdsoClockgettimeSym = %#x", vdsoClockgettimeSym)
		check.Pass("no vDSO (qemu-aarch64 maps none)")
		return
	}
	sym := vdsoClockgettimeSym
	check.That(sym > ehdr && sym < ehdr+64*1024, "vdsoClockgettimeSym = %#x, not in the vDSO at %#x", sym, ehdr)
	// nanotime (through the vDSO) lies between two system calls, every time.
	for i := 0; i < 1000; i++ {
		before := monotonicSyscall()
		mid := nanotime()
		after := monotonicSyscall()
		check.That(before <= mid && mid <= after, "round %d: syscall %d, vDSO %d, syscall %d", i, before, mid, after)
	}
	check.Pass("the runtime reads the clock through the vDSO")
}
