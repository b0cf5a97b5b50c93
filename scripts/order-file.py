#!/usr/bin/env python3
"""Writes the link order of labeld's functions (scripts/labeld.order): the functions a
release labeld runs from start-up to idle, so the linker (lld --symbol-ordering-file)
puts them next to one another and an idle labeld maps few pages of its code
(docs/benchmarks.md, "Idle memory").

usage: scripts/order-file.py LABELD > scripts/labeld.order      (make order-file)

A copy of LABELD runs twice under valgrind's callgrind with the demo printers and CUPS and
USB on (their defaults), in a temporary directory: once until it is ready and has idled
3 s, once until it has also answered a client. The functions of the first run are listed
first (most called first), then those only the second ran. Needs valgrind
(callgrind_control) and objcopy (binutils). Bounded: each run has a 120 s timeout.
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
# valgrind cannot read lld's debug information: it runs a copy without it (the symbol
# table, which is all the order needs, stays).
run = os.path.join(work, "labeld")
subprocess.run(["objcopy", "--strip-debug", labeld, run], check=True)


def profile(tag, answer):
    """Runs the copy under callgrind until it is ready (READY=1 on a notify socket of our
    own), optionally answers one printers.list, idles 3 s, and returns the call counts
    of its functions up to that point (a callgrind_control dump, before any shut-down
    code runs)."""
    out = os.path.join(work, f"callgrind-{tag}.out")
    sock = os.path.join(work, f"{tag}.sock")
    notify_path = os.path.join(work, f"{tag}.notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(1)
    argv = [
        "valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
        run, "--no-config", "--socket", sock, "--state-dir", os.path.join(work, f"state-{tag}"),
        "--log-level", "error", "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql",
    ]
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 120
    ready = False
    while time.time() < deadline and proc.poll() is None and not ready:
        try:
            ready = b"READY=1" in notify.recv(4096)
        except OSError:
            pass
    answered = not answer
    while ready and time.time() < deadline and proc.poll() is None and not answered:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(10)
            s.connect(sock)
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"printers.list"}\n')
            answered = s.recv(65536).endswith(b"\n")
            s.close()
        except OSError:
            time.sleep(0.2)
    if not (ready and answered):
        proc.kill()
        sys.exit(f"labeld did not get ready (and answer) under callgrind within 120 s ({tag})")
    time.sleep(3)
    subprocess.run(["callgrind_control", "--dump", str(proc.pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    proc.kill()
    proc.wait(timeout=60)
    return counts_in(out + ".1")  # the dump; `out` itself is only written at exit


def counts_in(path):
    # callgrind's format: ob=/cob= name objects, fn=/cfn= name functions, each "(id) name"
    # the first time and "(id)" after; calls= lines give call counts to the last cfn.
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
    for line in open(path, errors="replace"):
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
    return counts


def ranked(counts, skip=()):
    return [f for f, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            if f and " " not in f and f not in skip]


# What an idle labeld runs comes first, packed, so that at rest it touches as few pages
# as it can; what the first request adds comes after it.
idle = ranked(profile("idle", answer=False))
served = ranked(profile("served", answer=True), skip=set(idle))
sys.stdout.write("".join(n + "\n" for n in idle + served))
subprocess.run(["rm", "-rf", work])
