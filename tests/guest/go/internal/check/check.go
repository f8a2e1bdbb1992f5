// Package check holds what the Go guest tests share: the failure verdict (a message on stderr and exit
// status 1), a watchdog that turns a hang into a failure, and the reference-lane exec detour.
package check

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Failf prints "FAIL: <message>" on stderr and exits with status 1.
func Failf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

// That fails the test with the message when ok is false.
func That(ok bool, format string, args ...any) {
	if !ok {
		Failf(format, args...)
	}
}

// Pass prints the PASS line; the exit status 0 is the verdict.
func Pass(what string) {
	fmt.Printf("PASS: %s\n", what)
}

// Watchdog fails the test when it is still running after d (a hang becomes a message, not a timeout).
func Watchdog(d time.Duration, what string) {
	time.AfterFunc(d, func() { Failf("%s: still running after %v", what, d) })
}

// OnReferenceQemu is true in the qemu-aarch64 lane (run_guest.sh exports A64RUN_REFERENCE=qemu). Use it only
// for the exec detour below or to skip a check that hits a documented qemu bug.
func OnReferenceQemu() bool {
	return os.Getenv("A64RUN_REFERENCE") == "qemu"
}

// Self is this program's absolute path.
func Self() string {
	p, err := os.Executable()
	if err != nil {
		Failf("os.Executable: %v", err)
	}
	return p
}

// Command is exec.Command for an arm64 program. qemu-aarch64 7.2 hands a guest execve to the host kernel
// unchanged, and this host has no binfmt_misc handler for aarch64 (DESIGN.md section 4), so in the reference
// lane the program runs as `qemu-aarch64 PROGRAM ARGS...` (tests/guest/procs/self_exec.h does the same for
// the C tests). Under a64run the guest's own execve must run the arm64 program.
func Command(program string, args ...string) *exec.Cmd {
	if !OnReferenceQemu() {
		return exec.Command(program, args...)
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		Failf("reference lane: qemu-aarch64 not on PATH: %v", err)
	}
	return exec.Command(qemu, append([]string{program}, args...)...)
}
