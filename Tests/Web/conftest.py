"""A private labeld with its web endpoint on loopback, for the web tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

BINARY = os.environ.get("LABELD_BINARY", "")
REPO = os.environ.get("LABELD_REPO", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Labeld:
    """labeld in a temp dir; `restart` keeps its state and port. `wrapper` runs it as the
    child of another program (the emulated USB printers: see `usb_printers`)."""

    def __init__(self, extra: list[str], wrapper: list[str] | None = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="labeld-web-")
        self.sock = os.path.join(self.dir, "labeld.sock")
        self.state = os.path.join(self.dir, "state")
        self.port = free_port()
        self.extra = extra
        self.wrapper = wrapper or []
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def log(self) -> str:
        with open(os.path.join(self.dir, "labeld.log"), encoding="utf-8", errors="replace") as f:
            return f.read()

    def start(self) -> None:
        listen = "127.0.0.1:%d" % self.port
        args = [BINARY, "--no-config", "--no-cups", "--socket", self.sock, "--state-dir", self.state,
                "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql", "--seed", os.path.join(REPO, "seeds"),
                "--listen-http", listen, "--log-level", "debug"] + self.extra
        log = open(os.path.join(self.dir, "labeld.log"), "ab")
        self.proc = subprocess.Popen(self.wrapper + args, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 30
        while "web endpoint on" not in self.log.split("labeld stopping")[-1] or not self._answers():
            if self.proc.poll() is not None:
                raise RuntimeError("labeld exited: " + self.log)
            if time.monotonic() > deadline:
                raise RuntimeError("labeld did not start: " + self.log)
            time.sleep(0.02)

    def _answers(self) -> bool:
        try:
            self.call("hello")
            return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def restart(self) -> None:
        self.stop()
        with open(os.path.join(self.dir, "labeld.log"), "a") as f:
            f.write("labeld stopping (test restart)\n")
        self.start()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """One call over the Unix socket (as root: an administrator)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(30)
            s.connect(self.sock)
            request: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
            if params is not None:
                request["params"] = params
            s.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        answer = json.loads(data)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["result"]

    def token(self, name: str, role: str) -> str:
        return str(self.call("tokens.create", {"name": name, "role": role})["secret"])

    def fingerprint(self) -> str:
        m = re.search(r"SHA-256 ([0-9A-F:]{95})", self.log)
        return m.group(1) if m else ""

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def labeld() -> Iterator[Labeld]:
    if not BINARY:
        pytest.skip("LABELD_BINARY is not set: run Tests/Web/run-tests.sh LABELD_BINARY")
    d = Labeld([])
    try:
        yield d
    finally:
        d.cleanup()


EMULATOR = os.path.join(REPO, "Tests", "Emulators", "usbprinter.py")


def usb_printers(directory: str, printers: list[str]) -> list[str]:
    """The wrapper that runs labeld on a bus of emulated USB printers (umockdev, the real
    libusb path; Tests/Emulators/usbprinter.py), e.g. ["dymo550:F1"]."""
    return (["/usr/bin/umockdev-wrapper", "/usr/bin/python3", EMULATOR, "--dir", directory]
            + [arg for p in printers for arg in ("--printer", p)] + ["--"])


def emulator_missing() -> str | None:
    if not os.path.exists("/usr/bin/umockdev-wrapper"):
        return "umockdev-wrapper is missing (Debian package umockdev)"
    check = subprocess.run(["/usr/bin/python3", "-c", "import gi; gi.require_version('UMockdev', '1.0')"],
                           stderr=subprocess.DEVNULL)
    return None if check.returncode == 0 else "python3-gi or gir1.2-umockdev-1.0 is missing"


@pytest.fixture
def labeld_dymo550() -> Iterator[Labeld]:
    """labeld with a DYMO LabelWriter 550 (usb:0922:0028:F1) on an emulated USB bus, beside
    the simulated printers: the 550 counts the labels left on its roll."""
    if not BINARY:
        pytest.skip("LABELD_BINARY is not set: run Tests/Web/run-tests.sh LABELD_BINARY")
    missing = emulator_missing()
    if missing:
        pytest.skip(missing)
    bus = tempfile.mkdtemp(prefix="labeld-web-bus-")
    d = Labeld(["--usb-timeout-ms", "700"], wrapper=usb_printers(bus, ["dymo550:F1"]))
    try:
        yield d
    finally:
        d.cleanup()
        shutil.rmtree(bus, ignore_errors=True)


@pytest.fixture
def labeld_tls() -> Iterator[Labeld]:
    if not BINARY:
        pytest.skip("LABELD_BINARY is not set: run Tests/Web/run-tests.sh LABELD_BINARY")
    d = Labeld(["--tls-self-signed"])
    try:
        yield d
    finally:
        d.cleanup()
