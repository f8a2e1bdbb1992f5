#!/usr/bin/env python3
"""All-stop stress for a64run's gdb stub: every stop must hold every guest thread, and no breakpoint hit
may be lost or reported twice.

The debuggee's "stress" mode runs four threads that each count in a loop and call stress_bp 25 times, one
that counts and never stops by itself (only a kick can stop it), a thread looping in nanosleep, and one
blocked in read(2). The client plays gdb's part: a breakpoint on
stress_bp; at each stop it reads the counters twice 30 ms apart (equal: nobody ran), reads every thread's
registers (each thread is parked, the sleeper and the reader included), then steps the stopped thread over
the breakpoint with the others held (vCont;s:tid), puts the breakpoint back and continues. Every few
rounds it sends the interrupt byte instead of waiting. Exactly 100 breakpoint hits must be reported, 25
per counting thread, and the program exits 0 (its reader got its byte: a stopped read restarts).
"""

import argparse
import collections
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsp_client import TIMEOUT, Client, checksum, symbol_address  # noqa: E402

THREADS, ROUNDS = 4, 25


def stop_tid(reply):
    assert reply.startswith("T"), f"not a stop reply: {reply!r}"
    for field in reply[3:].split(";"):
        if field.startswith("thread:"):
            return int(field[7:], 16)
    raise AssertionError(f"no thread in {reply!r}")


def resume(c, action):
    body = action.encode()
    c.raw(b"$" + body + b"#%02x" % checksum(body))


def check_stopped(c, counts_addr, sleep_addr, spin_addr):
    size = 8 * THREADS

    def look():
        return c.ask(f"m{counts_addr:x},{size:x}"), c.ask(f"m{sleep_addr:x},8"), c.ask(f"m{spin_addr:x},8")

    before = look()
    time.sleep(0.03)
    after = look()
    assert before == after, f"a thread ran while stopped: {before} -> {after}"
    threads = c.ask("qfThreadInfo")
    assert threads.startswith("m"), threads
    tids = [int(t, 16) for t in threads[1:].split(",")]
    for tid in tids:
        assert c.ask(f"Hg{tid:x}") == "OK"
        regs = c.ask("g")
        assert not regs.startswith("E"), f"thread {tid:x}: registers not available ({regs})"
    return len(tids)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--emulator", required=True)
    p.add_argument("--program", required=True)
    args = p.parse_args()
    bp = symbol_address(args.program, "stress_bp")
    counts = symbol_address(args.program, "stress_counts")
    sleeps = symbol_address(args.program, "sleep_count")
    spins = symbol_address(args.program, "spin_count")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emu = subprocess.Popen([args.emulator, "-g", str(port), args.program, "stress"])
    c = Client(port)
    c.ask("?")
    assert c.ask(f"Z0,{bp:x},4") == "OK"
    hits = collections.Counter()
    stops = interrupts = 0
    most_threads = 0
    while True:
        resume(c, "vCont;c")
        if stops % 3 == 2:
            c.raw(b"\x03")
        reply = c.reply()
        if reply.startswith("W"):
            assert reply == "W00", f"program exit {reply}"
            break
        stops += 1
        tid = stop_tid(reply)
        most_threads = max(most_threads, check_stopped(c, counts, sleeps, spins))
        if reply.startswith("T02"):
            interrupts += 1
            continue
        assert "swbreak" in reply, f"unexpected stop {reply!r}"
        hits[tid] += 1
        # Step the thread over its breakpoint with every other thread held, as gdb does.
        assert c.ask(f"z0,{bp:x},4") == "OK"
        resume(c, f"vCont;s:{tid:x}")
        step = c.reply()
        assert stop_tid(step) == tid and step.startswith("T05"), f"step of {tid:x}: {step!r}"
        assert c.ask(f"Z0,{bp:x},4") == "OK"
    status = emu.wait(timeout=TIMEOUT)
    print(f"stops {stops}, interrupts {interrupts}, breakpoint hits {sorted(hits.values())}, "
          f"threads at most {most_threads}, exit {status}")
    assert sorted(hits.values()) == [ROUNDS] * THREADS, f"hits per thread {dict(hits)}"
    assert most_threads >= THREADS + 4, "the spinner, sleeper and reader were never all seen stopped"
    assert interrupts > 0, "no interrupt byte came while the program ran"
    assert status == 0, f"the program exited {status}"
    print("PASS: stress_allstop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
