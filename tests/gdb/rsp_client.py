"""A minimal client of GDB's remote protocol for the stub's own tests (bad_input.py, stress_allstop.py):
packets with checksums and acknowledgements, raw bytes, and symbol addresses from the debuggee's ELF."""

import socket
import struct
import time

# Generous: a sanitized a64run on a loaded two-core machine answers slowly; a hang still fails (ctest
# times each test out long before the sum of these).
TIMEOUT = 60


def symbol_address(path, name):
    """The value of a symbol in an ELF64 little-endian file's .symtab."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off)
            start = strtab[4] + st_name
            if data[start:data.index(b"\0", start)] == name.encode():
                return st_value
    raise SystemExit(f"bad_input: no symbol {name} in {path}")


def checksum(body):
    """The protocol's checksum: the sum of the bytes, modulo 256."""
    return sum(body) & 0xFF


class Client:
    def __init__(self, port):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as gdb: no Nagle delays
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = b""

    def raw(self, data):
        self.s.sendall(data)

    def read_byte(self):
        while not self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("the stub closed the connection")
            self.buf += chunk
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def reply(self):
        """The next packet's body (acknowledged), skipping '+'."""
        while True:
            b = self.read_byte()
            if b == b"$":
                break
            if b not in (b"+",):
                raise AssertionError(f"unexpected byte {b!r} before a packet")
        body = b""
        while True:
            b = self.read_byte()
            if b == b"#":
                break
            body += b
        cs = self.read_byte() + self.read_byte()
        assert int(cs, 16) == checksum(body), f"bad checksum from the stub: {body!r}"
        self.raw(b"+")
        return body.decode("latin-1")

    def ask(self, body):
        b = body.encode("latin-1")
        self.raw(b"$" + b + b"#%02x" % checksum(b))
        return self.reply()

    def expect_nak(self, frame):
        self.raw(frame)
        b = self.read_byte()
        assert b == b"-", f"wanted '-' for {frame[:40]!r}, got {b!r}"

    def close(self):
        self.s.close()
