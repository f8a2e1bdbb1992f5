// Tests os/signal: Notify for SIGUSR1, SIGUSR2, SIGINT and SIGHUP, each self-sent 20 times with
// syscall.Kill (process-directed) and checked received, by the right channel, once per send; a thread-directed
// tgkill to the calling thread also arrives; Ignore drops a signal (the process survives it); Stop ends
// delivery to a channel.
package main

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

var sigs = []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGHUP}

func expect(ch chan os.Signal, want syscall.Signal, what string) {
	select {
	case got := <-ch:
		check.That(got == want, "%s: received %v, want %v", what, got, want)
	case <-time.After(5 * time.Second):
		check.Failf("%s: %v not received within 5 s", what, want)
	}
}

func expectNone(ch chan os.Signal, what string) {
	select {
	case got := <-ch:
		check.Failf("%s: unexpected %v", what, got)
	case <-time.After(50 * time.Millisecond):
	}
}

func main() {
	check.Watchdog(30*time.Second, "signals")
	pid := syscall.Getpid()
	chans := map[syscall.Signal]chan os.Signal{}
	for _, s := range sigs {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, s)
		chans[s] = ch
	}
	for round := 0; round < 20; round++ {
		for _, s := range sigs {
			check.That(syscall.Kill(pid, s) == nil, "kill(%v) failed", s)
			expect(chans[s], s, "kill")
		}
	}
	for _, s := range sigs {
		expectNone(chans[s], "after the rounds")
	}

	// Thread-directed: tgkill to this goroutine's own thread.
	runtime.LockOSThread()
	check.That(syscall.Tgkill(pid, syscall.Gettid(), syscall.SIGUSR2) == nil, "tgkill failed")
	expect(chans[syscall.SIGUSR2], syscall.SIGUSR2, "tgkill")
	runtime.UnlockOSThread()

	// Stop: the channel gets nothing more. Ignore: SIGHUP's default action would end the process.
	signal.Stop(chans[syscall.SIGUSR1])
	signal.Ignore(syscall.SIGUSR1, syscall.SIGHUP)
	check.That(syscall.Kill(pid, syscall.SIGUSR1) == nil, "kill(SIGUSR1) failed")
	check.That(syscall.Kill(pid, syscall.SIGHUP) == nil, "kill(SIGHUP) failed")
	expectNone(chans[syscall.SIGUSR1], "after Stop")
	expectNone(chans[syscall.SIGHUP], "after Ignore")
	check.Pass("signal.Notify for SIGUSR1, SIGUSR2, SIGINT, SIGHUP")
}
