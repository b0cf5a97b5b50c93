#!/usr/bin/env python3
"""Benchmark the Python client kit against a private labeld.

    python3 clients/python/bench.py LABELD_BINARY [--calls N] [--events N] [--timeout S]

(a) ``hello`` round trip: a plain socket with the same framing (one JSON line out, one
    in, parsed) against ``Client.call("hello")``, ``Client.hello()`` and
    ``AsyncClient.call("hello")``; medians of interleaved rounds, and the kit's ratio.
(b) alert replay: N events put in the journal, then read back through
    ``Client.alerts(since=0)`` and ``AsyncClient.alerts(since=0)`` (events/s).

Needs labeld_client importable (installed, or run from a checkout: src/ is added).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "src"))

from labeld_client import Alert, AsyncClient, Client, ClientError  # noqa: E402

PRINTERS = [f"p{i}" for i in range(8)]


def progress(text: str) -> None:
    sys.stderr.write(f"\r\033[K{text}")
    sys.stderr.flush()


def done_progress() -> None:
    sys.stderr.write("\r\033[K")
    sys.stderr.flush()


class Daemon:
    def __init__(self, binary: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="lbb", dir="/tmp")
        self.socket = os.path.join(self.dir, "s")
        args = [
            binary,
            "--socket",
            self.socket,
            "--state-dir",
            os.path.join(self.dir, "state"),
            "--no-cups",
            "--no-usb",
            "--no-config",
            "--alert-retention",
            "1000000",
            "--log-level",
            "warning",
        ]
        for p in PRINTERS:
            args += ["--simulate", f"{p}=zpl"]
        self.log = open(os.path.join(self.dir, "labeld.log"), "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"labeld exited with {self.proc.returncode}; log in {self.log.name}")
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(self.socket)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("labeld did not start within 20 s") from None
                time.sleep(0.01)
            finally:
                s.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def bench_calls(path: str, calls: int, deadline: float) -> dict[str, float]:
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(path)
    rid = [0]

    def raw_hello() -> Any:
        rid[0] += 1
        raw.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"hello","params":{"client":"bench"}}\n' % rid[0])
        buf = raw.recv(65536)
        while not buf.endswith(b"\n"):
            buf += raw.recv(65536)
        return json.loads(buf)

    client = Client(path)
    client.hello()

    loop = asyncio.new_event_loop()
    aclient = AsyncClient(path)

    async def async_hello(n: int) -> list[float]:
        out = []
        for _ in range(n):
            t = time.perf_counter()
            await aclient.call("hello", client="bench")
            out.append(time.perf_counter() - t)
        return out

    kinds: dict[str, Callable[[], object]] = {
        "raw socket": raw_hello,
        "Client.call": lambda: client.call("hello", client="bench"),
        "Client.hello": lambda: client.hello("bench"),
    }
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    samples["AsyncClient.call"] = []
    rounds = 20
    per_round = max(1, calls // rounds)
    for r in range(rounds):
        if time.monotonic() > deadline:
            break
        progress(f"(a) hello round trips: round {r + 1}/{rounds}")
        # interleaved in small batches, so that drift in the machine's load hits all alike
        for _ in range(per_round // 10):
            for name, fn in kinds.items():
                for _ in range(10):
                    t = time.perf_counter()
                    fn()
                    samples[name].append(time.perf_counter() - t)
        samples["AsyncClient.call"] += loop.run_until_complete(async_hello(per_round))
    done_progress()
    loop.run_until_complete(aclient.close())
    loop.close()
    client.close()
    raw.close()
    return {k: statistics.median(v) for k, v in samples.items() if v}


def fill_journal(path: str, events: int, deadline: float) -> int:
    """Raise ``events`` alert events (faults toggled on 8 simulated printers, one thread
    each); returns how many were raised."""
    count = [0]
    lock = threading.Lock()
    per = events // len(PRINTERS)

    def work(printer: str) -> None:
        c = Client(path, timeout=30)
        try:
            for i in range(per):
                if time.monotonic() > deadline:
                    return
                c.simulate(f"sim:{printer}", "mediaEmpty" if i % 2 == 0 else None)
                with lock:
                    count[0] += 1
        finally:
            c.close()

    threads = [threading.Thread(target=work, args=(p,), daemon=True) for p in PRINTERS]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        progress(f"(b) filling the journal: {count[0]}/{per * len(PRINTERS)} events")
        time.sleep(0.2)
    done_progress()
    return count[0]


class Replay:
    """Counts the alerts one kit's stream replays, until ``expected`` or the deadline."""

    def __init__(self, kit: str, expected: int, deadline: float) -> None:
        self.kit = kit
        self.expected = expected
        self.deadline = deadline
        self.got = 0
        self.t0 = time.perf_counter()

    def wait(self) -> float | None:
        """How long to wait for the next item; None once done or out of time."""
        remaining = self.deadline - time.monotonic()
        return min(remaining, 5) if self.got < self.expected and remaining > 0 else None

    def count(self, item: Any) -> None:
        if isinstance(item, Alert):
            self.got += 1
            if self.got % 2000 == 0:
                progress(f"(b) replay, {self.kit}: {self.got}/{self.expected}")

    def result(self) -> tuple[int, float]:
        dt = time.perf_counter() - self.t0
        done_progress()
        return self.got, dt


def bench_replay_sync(path: str, expected: int, deadline: float) -> tuple[int, float]:
    replay = Replay("Client", expected, deadline)  # the time includes opening and closing
    with Client(path) as client, client.alerts(since=0) as stream:
        while (wait := replay.wait()) is not None:
            try:
                item = stream.next(timeout=wait)
            except ClientError:
                break
            if item is None:
                break  # nothing within the wait
            replay.count(item)
    return replay.result()


def bench_replay_async(path: str, expected: int, deadline: float) -> tuple[int, float]:
    async def run() -> tuple[int, float]:
        replay = Replay("AsyncClient", expected, deadline)
        async with AsyncClient(path) as client, client.alerts(since=0) as stream:
            while (wait := replay.wait()) is not None:
                try:
                    item = await stream.next(timeout=wait)
                except ClientError:
                    break
                if item is None:
                    break  # nothing within the wait
                replay.count(item)
        return replay.result()

    return asyncio.run(run())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", help="the labeld binary to start")
    ap.add_argument("--calls", type=int, default=4000, help="hello round trips per kind (default 4000)")
    ap.add_argument("--events", type=int, default=8000, help="alert events to replay (default 8000)")
    ap.add_argument("--timeout", type=float, default=150, help="give up after this many seconds (default 150)")
    args = ap.parse_args()
    deadline = time.monotonic() + args.timeout

    daemon = Daemon(os.path.abspath(args.binary))
    try:
        medians = bench_calls(daemon.socket, args.calls, deadline)
        raised = fill_journal(daemon.socket, args.events, deadline)
        sync_got, sync_dt = bench_replay_sync(daemon.socket, raised, deadline)
        async_got, async_dt = bench_replay_async(daemon.socket, raised, deadline)
    finally:
        daemon.stop()

    raw = medians["raw socket"]
    print(f"labeld {args.binary}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
    print()
    print(f"(a) hello round trip, median of ~{args.calls} each (interleaved)")
    print(f"    {'':22} {'median':>10} {'vs raw':>8}")
    for name, value in medians.items():
        print(f"    {name:22} {value * 1e6:8.1f} us {value / raw:7.2f}x")
    print()
    print(f"(b) alert replay through alerts(since=0), {raised} events in the journal")
    print(f"    {'':22} {'events':>8} {'seconds':>9} {'events/s':>10}")
    for name, got, dt in (("Client", sync_got, sync_dt), ("AsyncClient", async_got, async_dt)):
        print(f"    {name:22} {got:8d} {dt:9.2f} {got / dt if dt else 0:10.0f}")
    ok = sync_got == raised and async_got == raised
    if not ok:
        print("    (replay incomplete: timed out)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
