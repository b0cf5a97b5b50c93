"""Shared helpers of the tests: bounded waiting, the daemon's journal, asyncio runs."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from labeld_client import Alert, AsyncClient, Client, Gap
from labeld_client.client import AlertStream
from labeld_client.pytest_plugin import LabeldInstance

T = TypeVar("T")

ZPL = b"^XA^FO30,30^A0N,40,40^FDHello^FS^XZ\n"


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 10.0, every: float = 0.01) -> T:
    """Poll ``probe`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}")
        time.sleep(every)


def run_async(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run ``coro`` in a fresh event loop, bounded by ``timeout`` seconds."""

    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coro

    return asyncio.run(bounded())


def journal(db_path: str, above: int = 0) -> list[tuple[int, str, str]]:
    """(seq, id, state) of every event labeld's journal holds above ``above``."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        rows = con.execute(
            "SELECT seq, id, state FROM alerts WHERE seq > ? ORDER BY seq", (above,)
        ).fetchall()
    finally:
        con.close()
    return [(int(s), str(i), str(st)) for s, i, st in rows]


def latest_seq(client: Client) -> int:
    """The daemon's latest alert seq (a throwaway subscribe on its own connection)."""
    probe = Client(client.socket_path, timeout=10)
    try:
        return int(probe.call("subscribe", topics=["alerts"])["seq"])
    finally:
        probe.close()


def take(stream: AlertStream, n: int, timeout: float = 10.0) -> list[Alert | Gap]:
    """The next ``n`` items of ``stream`` (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    items: list[Alert | Gap] = []
    while len(items) < n:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"got {len(items)} of {n} items within {timeout} s: {items}")
        item = stream.next(timeout=remaining)
        if item is not None:
            items.append(item)
    return items


def take_until(
    stream: AlertStream, done: Callable[[list[Alert | Gap]], bool], timeout: float = 10.0
) -> list[Alert | Gap]:
    deadline = time.monotonic() + timeout
    items: list[Alert | Gap] = []
    while not done(items):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"condition not met within {timeout} s; items so far: {items}")
        item = stream.next(timeout=min(remaining, 0.5))
        if item is not None:
            items.append(item)
    return items


def seqs(items: list[Alert | Gap]) -> list[int]:
    return [i.seq for i in items if isinstance(i, Alert)]


class Toggler:
    """Raises alert events: toggles a fault on simulated printers (each call is one event)."""

    FAULTS = ("mediaEmpty", "coverOpen", "paused", "mediaJam")

    def __init__(self, client: Client, printers: tuple[str, ...] = ("sim:zebra", "sim:ql")) -> None:
        self.client = client
        self.printers = printers
        self.state: dict[str, str | None] = {p: None for p in printers}
        self.n = 0

    def step(self) -> None:
        p = self.printers[self.n % len(self.printers)]
        fault = None if self.state[p] else self.FAULTS[(self.n // len(self.printers)) % len(self.FAULTS)]
        self.n += 1
        self.client.simulate(p, fault)
        self.state[p] = fault

    def run(self, count: int) -> None:
        for _ in range(count):
            self.step()


class Background(threading.Thread):
    """A thread whose exception fails the test when joined."""

    def __init__(self, target: Callable[[], Any], name: str) -> None:
        super().__init__(name=name, daemon=True)
        self._fn = target
        self.error: BaseException | None = None
        self.result: Any = None

    def run(self) -> None:
        try:
            self.result = self._fn()
        except BaseException as e:  # noqa: BLE001 - reported by finish()
            self.error = e

    def finish(self, timeout: float) -> Any:
        self.join(timeout)
        if self.is_alive():
            raise AssertionError(f"thread {self.name} did not finish within {timeout} s")
        if self.error is not None:
            raise self.error
        return self.result


class Bridge:
    """An AsyncClient driven from synchronous test code: every coroutine runs on an event
    loop in a thread of its own, so one scenario can test Client and AsyncClient alike.
    Async iterators come back as lists (``all_products``, ``job_updates``) or as a
    :class:`BridgeStream` (``alerts``). What the loop would only log (a task's exception
    never retrieved: a reader task that died unseen) fails the test at ``close()``."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.loop = asyncio.new_event_loop()
        self.unseen: list[dict[str, Any]] = []
        self.loop.set_exception_handler(lambda _loop, context: self.unseen.append(context))
        self.thread = threading.Thread(target=self.loop.run_forever, name="bridge-loop", daemon=True)
        self.thread.start()
        self.ac = make()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.ac, name)
        if name == "job_updates":
            return lambda *a, **k: BridgeIter(self, attr(*a, **k))
        if name in ("all_products",):

            def collect(*a: Any, **k: Any) -> list[Any]:
                async def gather() -> list[Any]:
                    return [x async for x in attr(*a, **k)]

                return self.run(gather())

            return collect
        if name == "alerts":

            def open_stream(*a: Any, **k: Any) -> BridgeStream:
                async def make() -> Any:
                    return attr(*a, **k)  # in the loop, as an app would: it starts at once

                return BridgeStream(self, self.run(make()))

            return open_stream
        if asyncio.iscoroutinefunction(attr):
            return lambda *a, **k: self.run(attr(*a, **k))
        return attr

    def close(self) -> None:
        try:
            self.run(self.ac.close(), timeout=15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            if not self.thread.is_alive():
                self.loop.close()
        unseen = [c for c in self.unseen if not _harmless(c)]
        assert not unseen, f"the event loop saw what no caller did: {unseen}"


def _harmless(context: dict[str, Any]) -> bool:
    """What an event loop reports that is not the kit's: a transport the library closed
    while a write of the test's was in flight."""
    return isinstance(context.get("exception"), (ConnectionResetError, BrokenPipeError))


class BridgeStream:
    """An AsyncAlertStream with the blocking stream's ``next(timeout)`` and ``close()``."""

    def __init__(self, bridge: Bridge, stream: Any) -> None:
        self.bridge = bridge
        self.stream = stream

    def next(self, timeout: float | None = None) -> Any:
        return self.bridge.run(self.stream.next(timeout), timeout=(timeout or 60) + 10)

    def __next__(self) -> Any:
        return self.next()

    def __iter__(self) -> BridgeStream:
        return self

    def close(self) -> None:
        self.bridge.run(self.stream.aclose(), timeout=15)

    def __enter__(self) -> BridgeStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def freeze(pid: int) -> None:
    """SIGSTOP ``pid`` and wait until every thread of it has stopped (the signal is
    delivered asynchronously: a thread may still answer a request meanwhile)."""
    os.kill(pid, signal.SIGSTOP)

    def stopped() -> bool:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return True
        for t in tasks:
            try:
                with open(f"/proc/{pid}/task/{t}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state not in ("T", "t"):
                return False
        return True

    wait_for(f"process {pid} to stop", stopped, timeout=10, every=0.002)


@contextmanager
def frozen(labeld: LabeldInstance) -> Iterator[None]:
    """labeld stopped (it answers nothing, its socket still accepts) for the block, and
    continued after it unless the block killed it."""
    assert labeld.proc is not None
    freeze(labeld.proc.pid)
    try:
        yield
    finally:
        if labeld.proc is not None and labeld.proc.poll() is None:
            os.kill(labeld.proc.pid, signal.SIGCONT)


class BridgeIter:
    """An async iterator consumed from synchronous code, one item at a time."""

    def __init__(self, bridge: Bridge, agen: Any) -> None:
        self.bridge = bridge
        self.agen = agen

    def __iter__(self) -> BridgeIter:
        return self

    def __next__(self) -> Any:
        done = object()

        async def step() -> Any:
            try:
                return await self.agen.__anext__()
            except StopAsyncIteration:
                return done

        item = self.bridge.run(step())
        if item is done:
            raise StopIteration
        return item


class UnixServer:
    """A Unix socket in a temporary directory of its own: a thread accepts, and each
    connection is handed to ``serve(index, conn)`` on a thread of its own (``count``:
    connections accepted so far). Subclasses set their state before calling __init__."""

    def __init__(self, prefix: str, name: str) -> None:
        self.dir = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
        self.path = os.path.join(self.dir, name)
        self.count = 0
        self._srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._srv.bind(self.path)
        self._srv.listen(16)
        threading.Thread(target=self._accept, name=f"{prefix}-accept", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._srv.accept()
            except OSError:
                return
            i = self.count
            self.count += 1
            threading.Thread(target=self.serve, args=(i, conn), daemon=True).start()

    def serve(self, i: int, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._srv.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Relay(UnixServer):
    """A Unix socket in front of labeld's that forwards every connection both ways, except
    one: once ``arm()``-ed, the next connection whose first request is an alerts
    ``subscribe`` is held (not forwarded) until ``release()``: a stream whose subscribe
    labeld has not answered yet, for as long as a test needs."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._armed = False
        self._lock = threading.Lock()
        self.held = threading.Event()
        self._released = threading.Event()
        self._socks: list[socket.socket] = []
        super().__init__("lbr", "relay.sock")

    def arm(self) -> None:
        with self._lock:
            self._armed = True
            self.held.clear()
            self._released.clear()

    def release(self) -> None:
        self._released.set()

    def serve(self, i: int, client: socket.socket) -> None:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            self._socks += [client, upstream]
        try:
            upstream.connect(self.target)
            first = b""
            while b"\n" not in first:
                chunk = client.recv(65536)
                if not chunk:
                    return
                first += chunk
            with self._lock:
                hold = self._armed and b'"subscribe"' in first and b'"alerts"' in first
                if hold:
                    self._armed = False
            if hold:
                self.held.set()
                self._released.wait(30)
            upstream.sendall(first)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            self._pump(upstream, client)
        except OSError:
            pass
        finally:
            client.close()
            upstream.close()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self._released.set()
        super().close()
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes a pump blocked in recv
            except OSError:
                pass
            s.close()


class WebEndpoint:
    """labeld's web endpoint for one test (the test's labeld was started with
    ``--listen-http`` and, for wss, ``--tls-self-signed``: see conftest): its URL, the
    fingerprint labeld logs for its self-signed certificate, tokens, and clients."""

    def __init__(self, labeld: LabeldInstance, tls: bool) -> None:
        self.labeld = labeld
        self.tls = tls
        self.port = int(labeld.args[labeld.args.index("--listen-http") + 1].rsplit(":", 1)[1])
        self.url = f"{'wss' if tls else 'ws'}://127.0.0.1:{self.port}/v1/ws"

    def wait(self) -> None:
        """Until this start of labeld logged its endpoint (restarts log it again)."""
        deadline = time.monotonic() + 30
        while self.labeld.log_tail(1_000_000).count("web endpoint on ") < self.labeld.starts:
            assert time.monotonic() < deadline, self.labeld.log_tail()
            time.sleep(0.01)

    @property
    def fingerprint(self) -> str | None:
        """The SHA-256 labeld logged for its certificate (None over ws://)."""
        if not self.tls:
            return None
        found = re.findall(r"SHA-256 ([0-9A-F:]{95})", self.labeld.log_tail(1_000_000))
        assert found, self.labeld.log_tail()
        return str(found[-1])

    def token(self, name: str, role: str = "admin") -> str:
        """A new token's secret (made over the Unix socket: the test runs labeld, it is an
        administrator)."""
        admin = Client(self.labeld.socket_path, timeout=10)
        try:
            return str(admin.call("tokens.create", name=name, role=role)["secret"])
        finally:
            admin.close()

    def revoke(self, name: str) -> None:
        admin = Client(self.labeld.socket_path, timeout=10)
        try:
            admin.revoke_token(name)
        finally:
            admin.close()

    def client(self, token: str, *, timeout: float | None = 30, **kwargs: Any) -> Client:
        kwargs.setdefault("fingerprint", self.fingerprint)
        return Client(self.url, token=token, timeout=timeout, **kwargs)

    def async_client(self, token: str, *, timeout: float | None = 30, **kwargs: Any) -> AsyncClient:
        kwargs.setdefault("fingerprint", self.fingerprint)
        return AsyncClient(self.url, token=token, timeout=timeout, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
