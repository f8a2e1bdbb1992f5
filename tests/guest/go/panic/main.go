// Tests that a nil dereference becomes a Go panic with a correct traceback: the guest's SIGSEGV (si_addr,
// the faulting PC in the signal frame) is what the runtime turns into "invalid memory address or nil
// pointer dereference" naming the faulting function and line. The child (this program with "child") prints
// the line it is about to fault on, then faults; the parent checks the child's exit status 2 and stderr.
// In-process, recover() catches the same panic in a goroutine and the program runs on.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

type record struct {
	pad   [3]int64
	field int64
}

//go:noinline
func deref(r *record) int64 {
	_, _, line, _ := runtime.Caller(0)
	fmt.Printf("fault at line %d\n", line+3)
	os.Stdout.Sync()
	return r.field // the faulting line: three after the runtime.Caller line
}

//go:noinline
func caller(r *record) int64 {
	return deref(r) + 1
}

func recovered() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err, _ = v.(error)
		}
	}()
	var r *record
	caller(r)
	return nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		var r *record
		caller(r)
		os.Exit(0)
	}
	check.Watchdog(30*time.Second, "panic")

	var rerr runtime.Error
	check.That(errors.As(recovered(), &rerr), "recover() did not return a runtime.Error")
	check.That(strings.Contains(rerr.Error(), "nil pointer dereference"), "recovered: %v", rerr)

	cmd := check.Command(check.Self(), "child")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	check.That(errors.As(err, &ee) && ee.ExitCode() == 2, "child: want exit status 2, got %v\nstderr:\n%s",
		err, errOut.String())
	var line int
	_, serr := fmt.Sscanf(out.String(), "fault at line %d", &line)
	check.That(serr == nil, "child stdout %q", out.String())
	tb := errOut.String()
	for _, want := range []string{
		"panic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=",
		"goroutine 1 [running]:",
		"main.deref(",
		fmt.Sprintf("main.go:%d +0x", line),
		"main.caller(",
		"main.main()",
	} {
		check.That(strings.Contains(tb, want), "traceback lacks %q:\n%s", want, tb)
	}
	check.That(strings.Index(tb, "main.deref(") < strings.Index(tb, "main.caller("),
		"traceback frames out of order:\n%s", tb)
	check.Pass("nil dereference panic traceback")
}
