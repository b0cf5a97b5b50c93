#!/usr/bin/python3
"""An emulated network label printer for labeld's tests: a Zebra ZPL printer on a raw TCP
port (AppSocket/JetDirect, 9100 on real printers) of 127.0.0.1 only.

    netprinter.py --dir DIR [--port N]

Prints "PORT N" on its first line once it listens (N is free when --port is 0). Each
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
Events (printed labels, switches) are appended to DIR/events.log.
"""

import argparse
import os
import select
import socket
import sys
import threading
import time

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

    def listen(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(8)
        self.port = s.getsockname()[1]
        self.listener = s

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
        if self.off_after is not None:
            self.off_after -= len(data)
            if self.off_after <= 0:
                self.off_after = None
                self.switch_off()
                return
        if self.silent:
            return
        text = self.clients[conn] + data
        while True:
            hs, hq = text.find(b"~HS"), text.find(b"~HQES")
            if hq >= 0 and (hs < 0 or hq <= hs):
                text = text[:hq] + text[hq + 5 :]
                conn.sendall(self.hqes())
                continue
            if hs >= 0:
                text = text[:hs] + text[hs + 3 :]
                conn.sendall(self.hs())
                continue
            end = text.find(b"^XZ")
            if end < 0:
                break
            start = text.find(b"^XA")
            self.waiting.append(text[start if start >= 0 else 0 : end + 3])
            text = text[end + 3 :]
        self.clients[conn] = text
        self.flush()

    def flush(self):
        if self.error_flags or not self.powered:
            return
        while self.waiting:
            label = self.waiting.pop(0)
            self.labels += 1
            with open(os.path.join(self.dir, "label-%d.zpl" % self.labels), "wb") as f:
                f.write(label)
            self.event("printed label %d" % self.labels)

    def hqes(self):
        e = self.error_flags
        return (
            "\x02\r\n\r\n  PRINTER STATUS\r\n   ERRORS:         %d %08X %08X\r\n"
            "   WARNINGS:       0 00000000 00000000\r\n\x03\r\n" % (1 if e else 0, e >> 32, e & 0xFFFFFFFF)
        ).encode()

    def hs(self):
        e = self.error_flags
        return (
            "\x02030,%d,%d,1245,%03d,0,0,0,000,0,0,0\x03\r\n"
            "\x02001,0,%d,0,1,2,6,0,00000000,1,000\x03\r\n"
            "\x021234,0\x03\r\n" % (e & 1, 1 if e & 0x10000 else 0, len(self.waiting), 1 if e & 4 else 0)
        ).encode()

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
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
    print("PORT %d" % printer.port, flush=True)
    # Until stdin closes (the test ends), so the emulator never outlives it.
    sys.stdin.read()


if __name__ == "__main__":
    main()
