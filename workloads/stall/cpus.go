// CPU selection for the stall workload: -cpus LIST, or -class little|big from the kernel's cpu_capacity
// (falling back to the lower and upper halves of the CPU ids on a homogeneous machine), and the raw
// sched_setaffinity/sched_getaffinity calls the pinned loops use.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

type cpuMask [16]uint64 // 1024 CPUs

func getAffinity() (cpuMask, error) {
	var m cpuMask
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	if e != 0 {
		return m, e
	}
	return m, nil
}

// pinThread pins the calling thread (the caller holds runtime.LockOSThread) to one CPU.
func pinThread(cpu int) error {
	var m cpuMask
	m[cpu/64] |= 1 << (cpu % 64)
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	if e != 0 {
		return e
	}
	return nil
}

func allowedCPUs() []int {
	m, err := getAffinity()
	if err != nil {
		fail("sched_getaffinity: %v", err)
	}
	var cpus []int
	for c := 0; c < len(m)*64; c++ {
		if m[c/64]&(1<<(c%64)) != 0 {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// parseList reads a CPU list such as "0,2-3".
func parseList(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

func capacity(cpu int) int {
	b, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu))
	if err != nil {
		return -1
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return v
}

// classCPUs returns the CPUs of a class among the allowed ones: the lowest-capacity CPUs (little) or the
// highest (big); without capacities, or when they are all equal, the lower or upper half of the ids.
func classCPUs(class string, allowed []int) []int {
	caps := map[int]int{}
	lo, hi := int(^uint(0)>>1), -1
	for _, c := range allowed {
		caps[c] = capacity(c)
		lo, hi = min(lo, caps[c]), max(hi, caps[c])
	}
	if lo >= 0 && lo != hi {
		want := map[string]int{"little": lo, "big": hi}[class]
		var out []int
		for _, c := range allowed {
			if caps[c] == want {
				out = append(out, c)
			}
		}
		return out
	}
	ids := append([]int(nil), allowed...)
	sort.Ints(ids)
	half := max(1, len(ids)/2)
	if class == "little" {
		return ids[:half]
	}
	return ids[len(ids)-half:]
}

// fastestCPU is where the compute loop is calibrated: the highest capacity (the first big CPU).
func fastestCPU(allowed []int) int {
	return classCPUs("big", allowed)[0]
}

func listString(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
