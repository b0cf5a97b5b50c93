"""pytest plugin ``labeld``: a real labeld for each test.

Fixture ``labeld`` (function scope): a private labeld with two simulated printers
(``sim:zebra``, ZPL; ``sim:ql``, Brother QL), ``--no-cups --no-usb --no-config``, its
socket in a short temporary directory, stopped at teardown (SIGTERM, then SIGKILL after
10 s); its log is shown when the test fails (and its state directory kept when
``LABELD_KEEP_STATE=1``). With ``--labeld-socket PATH`` the fixture
attaches to a running labeld instead (a rig with real printers): ``managed`` is False and
``kill()``, ``restart()``, ``stop()`` and ``sim_output()`` skip the test saying why.

Options: ``--labeld-binary PATH`` (default $LABELD_BINARY, else ``labeld`` on PATH),
``--labeld-socket PATH``. Marker: ``@pytest.mark.labeld_args("--alert-retention", "5")``
adds daemon arguments.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .aio import AsyncClient
from .client import Client
from .models import Printer

__all__ = ["LabeldInstance", "labeld"]

DEFAULT_PRINTERS = ("zebra=zpl", "ql=brother-ql")
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0
LOG_TAIL_LINES = 300

_instance_key = pytest.StashKey["LabeldInstance"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("labeld", "labeld daemon for tests")
    group.addoption(
        "--labeld-binary",
        action="store",
        default=None,
        metavar="PATH",
        help="labeld binary to start for each test (default: $LABELD_BINARY, else labeld on PATH)",
    )
    group.addoption(
        "--labeld-socket",
        action="store",
        default=None,
        metavar="PATH",
        help="attach to the labeld listening on PATH (real printers) instead of starting one",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "labeld_args(*args): extra command-line arguments for the test's labeld"
    )


class LabeldInstance:
    """What the ``labeld`` fixture yields."""

    def __init__(
        self,
        *,
        socket_path: str,
        state_dir: str | None,
        managed: bool,
        binary: str | None = None,
        args: list[str] | None = None,
        workdir: str | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.state_dir = state_dir
        self.managed = managed
        self.binary = binary
        self.args = list(args or [])
        self.workdir = workdir
        self.log_path = os.path.join(workdir, "labeld.log") if workdir else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._clients: list[Client] = []
        self._async_clients: list[AsyncClient] = []
        self._admin: Client | None = None

    # --- clients -------------------------------------------------------------------

    def client(self, *, timeout: float | None = 30.0) -> Client:
        """A new Client for this labeld, closed at teardown."""
        c = Client(self.socket_path, timeout=timeout)
        self._clients.append(c)
        return c

    def async_client(self, *, timeout: float | None = 30.0) -> AsyncClient:
        """A new AsyncClient for this labeld (close it in its loop; aborted at teardown)."""
        c = AsyncClient(self.socket_path, timeout=timeout)
        self._async_clients.append(c)
        return c

    def _admin_client(self) -> Client:
        if self._admin is None:
            self._admin = self.client()
        return self._admin

    def simulate(self, printer: str, fault: str | None) -> Printer:
        """Give simulated printer ``printer`` the fault ``fault`` (None clears it)."""
        return self._admin_client().simulate(printer, fault)

    def printers(self) -> list[Printer]:
        return self._admin_client().printers()

    # --- process control (private instance only) -------------------------------------

    def _need_managed(self, what: str) -> None:
        if not self.managed:
            pytest.skip(
                f"{what} needs a private labeld; this run is attached to the labeld at "
                f"{self.socket_path} (--labeld-socket), which the tests do not control"
            )

    def start(self) -> None:
        self._need_managed("start()")
        assert self.binary is not None and self.log_path is not None
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("labeld is already running")
        cmd = [self.binary, *self.args]
        log = open(self.log_path, "ab")
        try:
            log.write(f"--- start {self.starts + 1}: {' '.join(cmd)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        finally:
            log.close()
        self.starts += 1
        self._wait_ready()

    def _wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT
        delay = 0.002
        while True:
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError(
                    f"labeld exited with status {code} before it was ready:\n{self.log_tail()}"
                )
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.settimeout(1.0)
                s.connect(self.socket_path)
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError(
                        f"labeld did not listen on {self.socket_path} within "
                        f"{START_TIMEOUT:.0f} s:\n{self.log_tail()}"
                    ) from None
            finally:
                s.close()
            time.sleep(delay)
            delay = min(0.05, delay * 2)

    def kill(self) -> None:
        """SIGKILL labeld and wait for it (a crash: nothing is shut down cleanly)."""
        self._need_managed("kill()")
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=STOP_TIMEOUT)

    def stop(self) -> int | None:
        """SIGTERM labeld, SIGKILL after 10 s; its exit status."""
        self._need_managed("stop()")
        return self._stop()

    def _stop(self) -> int | None:
        p = self.proc
        if p is None:
            return None
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait(timeout=STOP_TIMEOUT)
        return p.returncode

    def restart(self, *, hard: bool = True) -> None:
        """Kill (SIGKILL; ``hard=False``: SIGTERM) and start again, same state and socket."""
        self._need_managed("restart()")
        if hard:
            self.kill()
        else:
            self._stop()
        self.start()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def sim_output(self, printer_name: str, job_id: int) -> bytes | None:
        """The bytes simulated printer ``printer_name`` wrote for job ``job_id``, or None."""
        self._need_managed("sim_output()")
        assert self.state_dir is not None
        pattern = os.path.join(glob.escape(self.state_dir), "sim", glob.escape(printer_name), f"{job_id}.*")
        for path in sorted(glob.glob(pattern)):
            with open(path, "rb") as f:
                return f.read()
        return None

    @property
    def db_path(self) -> str | None:
        return os.path.join(self.state_dir, "labeld.db") if self.state_dir else None

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        if not self.log_path or not os.path.exists(self.log_path):
            return "(no log)"
        with open(self.log_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        parts = text.splitlines()
        if len(parts) > lines:
            parts = [f"... ({len(parts) - lines} earlier lines)"] + parts[-lines:]
        return "\n".join(parts)

    def _teardown(self) -> None:
        for ac in self._async_clients:
            try:
                ac.abort()
            except Exception:
                pass
        for c in self._clients:
            try:
                c.close()
            except Exception:
                pass
        if self.managed:
            self._stop()


def _binary(config: pytest.Config) -> str | None:
    opt = config.getoption("--labeld-binary")
    if opt:
        return str(opt)
    env = os.environ.get("LABELD_BINARY")
    if env:
        return env
    return shutil.which("labeld")


@pytest.fixture
def labeld(request: pytest.FixtureRequest) -> Iterator[LabeldInstance]:
    """A labeld for this test: private (started and stopped here) unless
    ``--labeld-socket`` attaches to a running one."""
    config = request.config
    attach = config.getoption("--labeld-socket")
    if attach:
        inst = LabeldInstance(socket_path=str(attach), state_dir=None, managed=False)
        request.node.stash[_instance_key] = inst
        try:
            yield inst
        finally:
            inst._teardown()
        return
    binary = _binary(config)
    if not binary:
        pytest.fail(
            "no labeld binary: pass --labeld-binary PATH, set LABELD_BINARY, or put labeld "
            "on PATH (or attach to a running one with --labeld-socket PATH)",
            pytrace=False,
        )
    if not os.access(binary, os.X_OK):
        pytest.fail(f"labeld binary {binary} is not executable", pytrace=False)
    extra: list[str] = []
    for marker in reversed(list(request.node.iter_markers("labeld_args"))):
        extra.extend(str(a) for a in marker.args)
    # socket paths are limited to 107 bytes: keep the directory short
    workdir = tempfile.mkdtemp(prefix="lbd", dir="/tmp" if os.path.isdir("/tmp") else None)
    socket_path = os.path.join(workdir, "s")
    state_dir = os.path.join(workdir, "state")
    args = [
        "--socket",
        socket_path,
        "--state-dir",
        state_dir,
        "--no-cups",
        "--no-usb",
        "--no-config",
    ]
    for p in DEFAULT_PRINTERS:
        args += ["--simulate", p]
    args += ["--log-level", "debug", *extra]
    inst = LabeldInstance(
        socket_path=socket_path,
        state_dir=state_dir,
        managed=True,
        binary=binary,
        args=args,
        workdir=workdir,
    )
    request.node.stash[_instance_key] = inst
    try:
        inst.start()
        yield inst
    finally:
        inst._teardown()
        if not (os.environ.get("LABELD_KEEP_STATE") and getattr(request.node, "_labeld_failed", False)):
            shutil.rmtree(workdir, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    inst = item.stash.get(_instance_key, None)
    if inst is None or not report.failed:
        return
    item._labeld_failed = True  # type: ignore[attr-defined]
    if inst.managed:
        keep = "kept" if os.environ.get("LABELD_KEEP_STATE") else "removed; LABELD_KEEP_STATE=1 keeps it"
        where = f"labeld log (state in {inst.state_dir}, {keep})"
        report.sections.append((where, inst.log_tail()))
    else:
        report.sections.append(("labeld", f"attached to {inst.socket_path}"))
