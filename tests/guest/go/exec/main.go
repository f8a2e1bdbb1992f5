// Tests os/exec: this arm64 Go program runs itself with arguments (stdin piped in, stdout and stderr
// captured, the environment passed, exit status 7 reported as an ExitError), a child killed by a signal is
// reported as such, and busybox from the real-binaries tree runs (echo, sh -c with arithmetic) when
// A64RUN_BUSYBOX names an existing file (skipped otherwise, with a note).
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

func child(args []string) {
	switch args[0] {
	case "echo":
		in, _ := io.ReadAll(os.Stdin)
		fmt.Printf("child:%s:%s:%s", strings.Join(args[1:], ","), os.Getenv("A64RUN_GO_EXEC"), bytes.ToUpper(in))
		fmt.Fprint(os.Stderr, "to stderr")
		os.Exit(7)
	case "sleep":
		time.Sleep(time.Minute)
	}
	os.Exit(3)
}

func selfExec() {
	cmd := check.Command(check.Self(), "child", "echo", "a b", "c")
	cmd.Env = append(os.Environ(), "A64RUN_GO_EXEC=env-ok")
	cmd.Stdin = strings.NewReader("piped input")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	check.That(errors.As(err, &ee), "self exec: want an ExitError, got %v", err)
	check.That(ee.ExitCode() == 7, "self exec: exit code %d, want 7", ee.ExitCode())
	want := "child:a b,c:env-ok:PIPED INPUT"
	check.That(out.String() == want, "self exec: stdout %q, want %q", out.String(), want)
	check.That(errOut.String() == "to stderr", "self exec: stderr %q", errOut.String())
}

func killedChild() {
	cmd := check.Command(check.Self(), "child", "sleep")
	check.That(cmd.Start() == nil, "start sleeping child failed")
	time.Sleep(100 * time.Millisecond)
	check.That(cmd.Process.Signal(syscall.SIGTERM) == nil, "signal to child failed")
	err := cmd.Wait()
	var ee *exec.ExitError
	check.That(errors.As(err, &ee), "killed child: want an ExitError, got %v", err)
	ws := ee.Sys().(syscall.WaitStatus)
	check.That(ws.Signaled() && ws.Signal() == syscall.SIGTERM, "killed child: status %v", ws)
}

func busybox() {
	bb := os.Getenv("A64RUN_BUSYBOX")
	if _, err := os.Stat(bb); bb == "" || err != nil {
		fmt.Fprintf(os.Stderr, "note: busybox part skipped: A64RUN_BUSYBOX=%q is not a file\n", bb)
		return
	}
	out, err := check.Command(bb, "echo", "hello", "busybox").Output()
	check.That(err == nil && string(out) == "hello busybox\n", "busybox echo: %q, %v", out, err)
	out, err = check.Command(bb, "sh", "-c", "echo $((6*7)); exit 5").Output()
	var ee *exec.ExitError
	check.That(errors.As(err, &ee) && ee.ExitCode() == 5, "busybox sh: want exit 5, got %v", err)
	check.That(string(out) == "42\n", "busybox sh: stdout %q", out)
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "child" {
		child(os.Args[2:])
	}
	check.Watchdog(30*time.Second, "exec")
	selfExec()
	killedChild()
	busybox()
	check.Pass("os/exec of an arm64 Go binary and of busybox")
}
