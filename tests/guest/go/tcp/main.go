// Tests net on loopback TCP: an echo server (one goroutine per connection) and 4 concurrent clients each
// sending 256 KiB in chunks and reading it back byte for byte; a read deadline on an idle connection times
// out (lower and upper bound); a closed listener makes Accept fail; dialing a closed port is refused.
package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"a64run.local/tests/guest/go/internal/check"
)

func serve(ln net.Listener, done chan<- error) {
	for {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		go func() {
			defer c.Close()
			_, _ = io.Copy(c, c)
		}()
	}
}

func client(addr string, id int, wg *sync.WaitGroup) {
	defer wg.Done()
	c, err := net.Dial("tcp", addr)
	check.That(err == nil, "client %d: dial: %v", id, err)
	defer c.Close()
	data := make([]byte, 256<<10)
	for i := range data {
		data[i] = byte(i*7 + id)
	}
	go func() {
		for off := 0; off < len(data); off += 4096 {
			if _, err := c.Write(data[off : off+4096]); err != nil {
				return
			}
		}
	}()
	got := make([]byte, len(data))
	_, err = io.ReadFull(c, got)
	check.That(err == nil, "client %d: read: %v", id, err)
	check.That(bytes.Equal(got, data), "client %d: echoed data differs", id)
}

func deadline(addr string) {
	c, err := net.Dial("tcp", addr)
	check.That(err == nil, "deadline: dial: %v", err)
	defer c.Close()
	t0 := time.Now()
	check.That(c.SetReadDeadline(t0.Add(60*time.Millisecond)) == nil, "SetReadDeadline failed")
	_, err = c.Read(make([]byte, 1))
	el := time.Since(t0)
	check.That(errors.Is(err, os.ErrDeadlineExceeded), "deadline: want a timeout, got %v", err)
	check.That(el >= 55*time.Millisecond && el < 3*time.Second, "deadline: read returned after %v", el)
}

func main() {
	check.Watchdog(30*time.Second, "tcp")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check.That(err == nil, "listen: %v", err)
	addr := ln.Addr().String()
	done := make(chan error, 1)
	go serve(ln, done)

	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go client(addr, i, &wg)
	}
	wg.Wait()
	deadline(addr)

	ln.Close()
	select {
	case err := <-done:
		check.That(errors.Is(err, net.ErrClosed), "Accept after Close: %v", err)
	case <-time.After(5 * time.Second):
		check.Failf("Accept did not return after the listener closed")
	}
	_, err = net.Dial("tcp", addr)
	check.That(err != nil, "dial to a closed listener succeeded")
	check.Pass("loopback TCP")
}
