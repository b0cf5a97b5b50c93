#!/usr/bin/env python3
"""Writes the link order of labeld's functions (scripts/labeld.order): the functions a
release labeld runs from start-up to idle, so the linker (lld --symbol-ordering-file)
puts them next to one another and an idle labeld maps few pages of its code
(docs/benchmarks.md, "Idle memory").

usage: scripts/order-file.py LABELD > scripts/labeld.order      (make order-file)

A copy of LABELD runs under valgrind's callgrind with the demo printers and CUPS and USB on (their
defaults), in a temporary directory, until it has answered a client and idled 3 s; then
it is stopped. Every function of LABELD that callgrind saw run is listed, most called
first. Needs valgrind and objcopy (binutils). Bounded: the whole run has a 120 s timeout.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

labeld = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp(prefix="labeld-order-")
out = os.path.join(work, "callgrind.out")
sock = os.path.join(work, "s.sock")
# valgrind cannot read lld's debug information: it runs a copy without it (the symbol
# table, which is all the order needs, stays).
run = os.path.join(work, "labeld")
subprocess.run(["objcopy", "--strip-debug", labeld, run], check=True)
argv = [
    "valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
    run, "--no-config", "--socket", sock, "--state-dir", os.path.join(work, "state"),
    "--log-level", "error", "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql",
]
proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 120
answered = False
while time.time() < deadline and proc.poll() is None and not answered:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(sock)
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"printers.list"}\n')
        answered = s.recv(65536).endswith(b"\n")
        s.close()
    except OSError:
        time.sleep(0.2)
if not answered:
    proc.kill()
    sys.exit("labeld did not answer under callgrind within 120 s")
time.sleep(3)
proc.send_signal(signal.SIGTERM)
try:
    proc.wait(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("labeld did not stop under callgrind within 60 s")

# callgrind's format: ob=/cob= name objects, fn=/cfn= name functions, each "(id) name" the
# first time and "(id)" after; calls= lines give call counts to the last cfn.
objects, functions = {}, {}
def name(table, text):
    m = re.match(r"\((\d+)\)(?: (.*))?", text)
    if not m:
        return text
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), "")

counts = {}
ob = cob = ""
fn = cfn = ""
for line in open(out, errors="replace"):
    line = line.rstrip("\n")
    key, _, value = line.partition("=")
    if key == "ob":
        ob = name(objects, value)
    elif key == "cob":
        cob = name(objects, value)
    elif key == "fn":
        fn = name(functions, value)
        cob = ob
        if ob == run:
            counts.setdefault(fn, 0)
    elif key == "cfn":
        cfn = name(functions, value)
    elif key == "calls" and cob == run:
        counts[cfn] = counts.get(cfn, 0) + int(value.split()[0])
        cob = ob
names = [f for f, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if f and " " not in f]
sys.stdout.write("".join(n + "\n" for n in names))
subprocess.run(["rm", "-rf", work])
