#!/usr/bin/python3
"""An emulated network label printer for labeld's tests, on 127.0.0.1 only: a Zebra ZPL
printer on a raw TCP port (AppSocket/JetDirect, 9100 on real printers), or (--kind ql) a
Brother QL-820NWB that prints the raster it receives there and answers its 32-byte status
over SNMP only, through a real net-snmp snmpd on a private UDP port (`pass` of
1.3.6.1.4.1.2435.3.3.9.1.6.1.0 to a pass_persist script reading DIR/status.hex).

    netprinter.py --dir DIR [--port N] [--kind zebra|ql]

Prints "PORT N" (and " SNMP M" for ql) on its first line once it listens (N and M are
free ports). The QL keeps each job it prints as DIR/job-N.ql (jobs wait while the cover
is open or no roll is in). Each
^XA..^XZ label it receives is DIR/label-N.zpl once printed; labels wait in its buffer
while an error is set, and a label cut off by a dropped connection is thrown away, as a
printer switched off loses it. ~HQES and ~HS are answered on the connection they came
on, as a Zebra's print server does.

Control: lines written to the FIFO DIR/control:
  errors HEX        the ~HQES error flags (0 none; 1 media out, 4 head open, ...)
  silent on|off     accept connections and take data, but never answer (nor print)
  off               switched off: connections are dropped and refused until `on`
  on                switched on again, on the same port
  off-after BYTES   switch off once BYTES more bytes have arrived (mid-job)
  cover open|closed, media none|62|29   (ql: the status the SNMP agent answers; a continuous
                                        roll of that width)
Events (printed labels, switches) are appended to DIR/events.log.
"""

import argparse
import ctypes
import os
import signal
import select
import socket
import subprocess
import sys
import threading
import time

import zebra_status

LOCK = threading.Lock()


class Zebra:
    def __init__(self, out_dir, port):
        self.dir = out_dir
        self.port = port
        self.error_flags = 0
        self.silent = False
        self.powered = True
        self.off_after = None
        self.labels = 0
        self.waiting = []
        self.listener = None
        self.clients = {}
        self.listen()

    def event(self, line):
        with open(os.path.join(self.dir, "events.log"), "a") as f:
            f.write("%.3f %s\n" % (time.time(), line))

    def write_file(self, name, data):
        """Writes a printed label whole or not at all: a test that reads it as soon as
        labeld says the job completed must never see half of it."""
        tmp = os.path.join(self.dir, "." + name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(self.dir, name))

    def listen(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(8)
        self.port = s.getsockname()[1]
        self.listener = s

    def switched_off_by(self, data):
        """Counts `data` towards `off N`: True once the printer switched off on it."""
        if self.off_after is None:
            return False
        self.off_after -= len(data)
        if self.off_after > 0:
            return False
        self.off_after = None
        self.switch_off()
        return True

    def switch_off(self):
        self.powered = False
        for c in list(self.clients):
            c.close()
        self.clients.clear()
        if self.listener:
            self.listener.close()
            self.listener = None
        self.event("switched off")

    def switch_on(self):
        if not self.powered:
            self.powered = True
            self.listen()
            self.event("switched on")

    def received(self, conn, data):
        if self.switched_off_by(data):
            return
        if self.silent:
            return
        text = self.clients[conn] + data
        # In the order received: a status query answers for every label that came before
        # it (printed, as this printer prints at once, before the answer says so).
        while True:
            hs, hq, end = text.find(b"~HS"), text.find(b"~HQES"), text.find(b"^XZ")
            first = min(i for i in (hs, hq, end, len(text)) if i >= 0)
            if first == len(text):
                break
            if first == end:
                start = text.find(b"^XA", 0, end)
                self.waiting.append(text[start if start >= 0 else 0 : end + 3])
                text = text[end + 3 :]
                continue
            self.flush()
            if first == hq:
                text = text[:hq] + text[hq + 5 :]
                conn.sendall(self.hqes())
            else:
                text = text[:hs] + text[hs + 3 :]
                conn.sendall(self.hs())
        self.clients[conn] = text
        self.flush()

    def flush(self):
        if self.error_flags or not self.powered:
            return
        while self.waiting:
            label = self.waiting.pop(0)
            self.labels += 1
            self.write_file("label-%d.zpl" % self.labels, label)
            self.event("printed label %d" % self.labels)

    def hqes(self):
        return zebra_status.hqes(self.error_flags)

    def hs(self):
        return zebra_status.hs(self.error_flags, len(self.waiting))

    def command(self, words):
        w = words[0]
        if w == "errors":
            self.error_flags = int(words[1], 16)
            self.flush()
        elif w == "silent":
            self.silent = words[1] == "on"
        elif w == "off":
            self.switch_off()
        elif w == "on":
            self.switch_on()
            self.flush()
        elif w == "off-after":
            self.off_after = int(words[1])
        else:
            return False
        return True

    def serve(self):
        while True:
            with LOCK:
                socks = ([self.listener] if self.listener else []) + list(self.clients)
            if not socks:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select(socks, [], [], 0.05)
            except (OSError, ValueError):
                continue
            with LOCK:
                for s in ready:
                    if s is self.listener:
                        try:
                            conn, _ = s.accept()
                        except OSError:
                            continue
                        self.clients[conn] = b""
                    elif s in self.clients:
                        try:
                            data = s.recv(65536)
                        except OSError:
                            data = b""
                        if not data:
                            # A label cut off by the connection's end is lost.
                            self.clients.pop(s, None)
                            s.close()
                            continue
                        self.received(s, data)


class BrotherQL(Zebra):
    """A QL-820NWB on the network: it takes raster on TCP and answers nothing there."""

    ARGS = {0x53: 0, 0x61: 1, 0x21: 1, 0x4D: 1, 0x41: 1, 0x4B: 1, 0x64: 2, 0x7A: 10}

    def __init__(self, out_dir, port):
        self.cover_open = False
        self.roll = "62"
        self.jobs = 0
        super().__init__(out_dir, port)
        self.write_status()

    def write_status(self):
        b = bytearray(32)
        b[0:6] = b"\x80\x20\x42\x34\x41\x30"
        if self.roll is None:
            b[8] |= 0x01
        else:
            b[10], b[11] = int(self.roll), 0x0A
        if self.cover_open:
            b[9] |= 0x10
        tmp = os.path.join(self.dir, "status.hex.tmp")
        with open(tmp, "w") as f:
            f.write(" ".join("%02X" % x for x in b))
        os.replace(tmp, os.path.join(self.dir, "status.hex"))

    def errors(self):
        return self.cover_open or self.roll is None

    def received(self, conn, data):
        if self.switched_off_by(data):
            return
        buf = self.clients[conn] + data
        i = 0
        n = len(buf)
        while i < n:
            c = buf[i]
            if c == 0x1B:
                if i + 2 >= n:
                    break
                if buf[i + 1] == 0x40:
                    i += 2
                    continue
                need = 3 + self.ARGS.get(buf[i + 2], 0)
            elif c == 0x4D:
                need = 2
            elif c == 0x67 or c == 0x77:
                if i + 3 > n:
                    break
                need = 3 + buf[i + 2]
            elif c == 0x1A:
                self.waiting.append(bytes(buf[: i + 1]))
                buf = buf[i + 1 :]
                n = len(buf)
                i = 0
                continue
            else:
                need = 1
            if i + need > n:
                break
            i += need
        self.clients[conn] = buf
        self.flush()

    def flush(self):
        if self.errors() or not self.powered:
            return
        while self.waiting:
            job = self.waiting.pop(0)
            self.jobs += 1
            self.write_file("job-%d.ql" % self.jobs, job)
            self.event("printed job %d" % self.jobs)

    def command(self, words):
        if words[0] == "cover":
            self.cover_open = words[1] == "open"
        elif words[0] == "media":
            self.roll = None if words[1] == "none" else words[1]
        else:
            return super().command(words)
        self.write_status()
        self.flush()
        return True


def start_snmpd(out_dir):
    """A private snmpd on a free UDP port of 127.0.0.1 answering the status block."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    oid = ".1.3.6.1.4.1.2435.3.3.9.1.6.1.0"
    # pass_persist, not pass: snmpd caches what a `pass` program printed for seconds,
    # and a status must be the printer's state now.
    script = os.path.join(out_dir, "pass.sh")
    with open(script, "w") as f:
        f.write(
            "#!/bin/sh\nwhile read cmd; do case \"$cmd\" in\n"
            "PING) echo PONG ;;\n"
            "get) read oid; if [ \"$oid\" = \"%s\" ]; then echo %s; echo octet; cat %s/status.hex; "
            "echo; else echo NONE; fi ;;\n"
            "getnext) read oid; echo NONE ;;\n"
            "set) read oid; read value; echo not-writable ;;\n"
            "*) exit 0 ;;\nesac; done\n" % (oid, oid, out_dir))
    conf = os.path.join(out_dir, "snmpd.conf")
    with open(conf, "w") as f:
        f.write("agentaddress udp:127.0.0.1:%d\nrocommunity public 127.0.0.1\n"
                "pass_persist .1.3.6.1.4.1.2435.3.3.9.1.6.1 /bin/sh %s\n" % (port, script))
    log = open(os.path.join(out_dir, "snmpd.log"), "w")

    def die_with_parent():
        # PR_SET_PDEATHSIG: snmpd ends when the emulator does, however it ends.
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)

    child = subprocess.Popen(
        ["/usr/sbin/snmpd", "-f", "-Lo", "-C", "-c", conf, "-p", os.path.join(out_dir, "snmpd.pid"),
         "-M", "/dev/null", "-m", ""], stdout=log, stderr=log, preexec_fn=die_with_parent)
    # Ready once it answers: wait for its listening socket (bounded).
    for _ in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.bind(("127.0.0.1", port))
            s.close()
            time.sleep(0.02)
        except OSError:
            s.close()
            break
    return child, port


def main():
    # A parent may start us with signals blocked (the test runner's threads do): clear the
    # mask, or snmpd, which inherits it, would ignore the SIGTERM that ends it.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--kind", default="zebra", choices=["zebra", "ql"])
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    snmpd = None
    if args.kind == "ql":
        printer = BrotherQL(args.dir, args.port)
        snmpd, snmp_port = start_snmpd(args.dir)
    else:
        printer = Zebra(args.dir, args.port)
    control = os.path.join(args.dir, "control")
    if not os.path.exists(control):
        os.mkfifo(control)

    def reader():
        fd = os.open(control, os.O_RDWR)
        with os.fdopen(fd, "r") as f:
            for line in f:
                words = line.split()
                if not words:
                    continue
                with LOCK:
                    ok = printer.command(words)
                printer.event(("did %s" if ok else "bad command %s") % " ".join(words))

    threading.Thread(target=reader, daemon=True).start()
    threading.Thread(target=printer.serve, daemon=True).start()
    print("PORT %d%s" % (printer.port, " SNMP %d" % snmp_port if snmpd else ""), flush=True)
    # Until stdin closes (the test ends), so the emulator never outlives it.
    sys.stdin.read()
    if snmpd:
        snmpd.terminate()
        snmpd.wait(timeout=10)


if __name__ == "__main__":
    main()
