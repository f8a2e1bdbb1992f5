#!/usr/bin/env python3
"""Bad input for a64run's gdb stub, from a client of its own (gdb never sends most of this).

Run 1 (the debuggee in "spin" mode, which loops until `magic` is 7):
  - line noise, a wrong checksum (answered '-'), a packet longer than the stub takes ('-'), and malformed
    or out-of-range packets, each answered with an error or the empty reply, never a crash;
  - memory at unmapped or impossible addresses: an error reply;
  - a second client while the first is attached: its connection is closed;
  - the interrupt byte while running: a T02 stop reply;
  - the first client goes away while the program is stopped: the program runs on (it spins);
  - a new client attaches to the running program (T02), writes magic = 7, continues: exit 7 (W07).
Run 2 (the common path): a breakpoint is hit, the client resumes and closes the connection at once, while
the program runs: the breakpoint goes with it and the program ends normally (status 0).
Run 3: -g with a Unix socket path; and -g values that are no address: an error before the program runs.
"""

import argparse
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsp_client import TIMEOUT, Client, checksum, symbol_address  # noqa: E402


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f"ok: {what}")


def malformed(c, magic):
    c.raw(b"line noise \x7f")
    c.expect_nak(b"$g#00")
    c.expect_nak(b"$" + b"A" * 20000 + b"#00")
    errors = ["m", "mzz,4", "M0,4:zz", "M0,2:00", "X0,2:a", "Z0,1,4", "Z0,0,3", "p9999", "pzz", "P0=12",
              "G00", "Hgzz", "qXfer:features:read:target.xml:zz", "qXfer:auxv:read::ffffffff,10", "vCont;x",
              "vCont;C", "vCont;Czz", "vCont;c:zz", "QPassSignals:zz", "Z2,0,0", "Z2,0,100000"]
    for pkt in errors:
        r = c.ask(pkt)
        check(r.startswith("E"), f"{pkt!r} -> error reply {r!r}")
    for pkt in ["m0,4", "m" + "f" * 16 + ",4", "m1,ffffffffffffffff", "M0,4:00000000", "X10,1:\x00"]:
        r = c.ask(pkt)
        check(r == "E0e", f"{pkt!r} (no such memory) -> {r!r}")
    check(c.ask("Z9,0,4") == "", "unknown Z type -> empty reply")
    check(c.ask("qNoSuchQuery") == "", "unknown query -> empty reply")
    check(c.ask("Hg7ffffffe") == "E03", "no such thread -> E03")
    check("PacketSize=" in c.ask("qSupported:multiprocess+"), "qSupported still answered")
    check(c.ask(f"m{magic:x},4") == "01000000", "magic reads 1")


def run_spin(args, port):
    magic = symbol_address(args.program, "magic")
    emu = subprocess.Popen([args.emulator, "-g", str(port), args.program, "spin"], stdout=subprocess.PIPE)
    c = Client(port)
    check(c.ask("?").startswith("T05thread:"), "initial stop T05")
    malformed(c, magic)
    second = Client(port)
    second.s.settimeout(TIMEOUT)
    check(second.s.recv(100) == b"", "a second client is turned away")
    second.close()
    c.raw(b"$vCont;c#%02x" % checksum(b"vCont;c"))
    assert c.read_byte() == b"+"
    time.sleep(0.2)
    c.raw(b"\x03")
    check(c.reply().startswith("T02thread:"), "interrupt byte -> T02")
    c.close()  # gone while stopped: the program spins on
    time.sleep(0.3)
    check(emu.poll() is None, "the program runs on after its debugger left")
    c = Client(port)
    check(c.ask("?").startswith("T02thread:"), "a new client stops the running program (T02)")
    check(c.ask(f"M{magic:x},4:07000000") == "OK", "magic = 7 written")
    c.raw(b"$vCont;c#%02x" % checksum(b"vCont;c"))
    check(c.reply() == "W07", "exit reported as W07")
    check(emu.wait(timeout=TIMEOUT) == 7, "a64run exits 7")


def run_close_while_running(args, port):
    add = symbol_address(args.program, "add")
    emu = subprocess.Popen([args.emulator, "-g", str(port), args.program], stdout=subprocess.PIPE)
    c = Client(port)
    c.ask("?")
    check(c.ask(f"Z0,{add:x},4") == "OK", "breakpoint at add")
    c.raw(b"$vCont;c#%02x" % checksum(b"vCont;c"))
    check("swbreak" in c.reply(), "breakpoint hit")
    c.raw(b"$vCont;c#%02x" % checksum(b"vCont;c"))
    c.close()
    out, _ = emu.communicate(timeout=TIMEOUT)
    check(emu.returncode == 0 and b"total=33" in out, "closed while running: the program ends normally")


def run_unix_socket_and_bad_addresses(args):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gdb.sock")
        emu = subprocess.Popen([args.emulator, "-g", path, args.program], stdout=subprocess.PIPE)
        deadline = time.monotonic() + TIMEOUT
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        c = Client.__new__(Client)
        c.s, c.buf = s, b""
        check(c.ask("?").startswith("T05"), "-g with a Unix socket path: initial stop")
        c.raw(b"$vCont;c#%02x" % checksum(b"vCont;c"))
        # The exit packet, not yet acknowledged: as gdbserver, the stub waits for the '+' before the process
        # ends, so the acknowledgement never meets a closed socket (EPIPE on a Unix socket).
        frame = b""
        while not (len(frame) >= 3 and frame[-3:-2] == b"#"):
            frame += c.read_byte()
        check(frame.lstrip(b"+") == b"$W00#b7", f"-g with a Unix socket path: exit W00 ({frame!r})")
        time.sleep(0.3)
        check(emu.poll() is None, "the process waits for the client's acknowledgement of W00")
        c.raw(b"+")
        emu.wait(timeout=TIMEOUT)
        check(emu.returncode == 0, "then it ends (status 0)")
    for bad in ["notaport", "99999", "1.2.3:80", ""]:
        r = subprocess.run([args.emulator, "-g", bad, args.program], capture_output=True, timeout=TIMEOUT)
        check(r.returncode != 0 and b"a64run:" in r.stderr and b"total=" not in r.stdout,
              f"-g {bad!r}: an error, the program not run ({r.stderr.decode().strip()})")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--emulator", required=True)
    p.add_argument("--program", required=True)
    args = p.parse_args()
    run_spin(args, free_port())
    run_close_while_running(args, free_port())
    run_unix_socket_and_bad_addresses(args)
    print("PASS: bad_input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
