"""Framing and socket discovery shared by the blocking and the asyncio client."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping
from typing import Any

from .errors import ProtocolViolation

#: The longest line accepted from labeld (bytes, without its newline). Past it the
#: connection is closed: the kit never grows memory without bound.
MAX_LINE = 64 * 1024 * 1024

#: How much one read asks the kernel for.
READ_CHUNK = 64 * 1024

#: Methods that are retried once, transparently, when the connection drops before their
#: answer: they change nothing, so running one twice is harmless. The Swift kit's list
#: (``LabeldClient.onlyReads``), exactly: a method not named here (a newer daemon's) is not
#: retried, whatever its name.
READ_ONLY_METHODS = frozenset(
    {
        "hello",
        "printers.list",
        "printers.get",
        "products.get",
        "products.list",
        "templates.list",
        "templates.get",
        "labels.render",
        "jobs.get",
        "jobs.list",
        "alerts.active",
        "devices.list",
        "tokens.list",
    }
)


def is_read_only(method: str) -> bool:
    return method in READ_ONLY_METHODS


#: The system service's socket (the systemd socket unit's).
SYSTEM_SOCKET = "/run/labeld/labeld.sock"


def resolve_socket(explicit: str | None, environ: Mapping[str, str], uid: int) -> str:
    """Where labeld listens, found as labeld itself finds it (docs/protocol.md, "The
    socket"): ``explicit``; $LABELD_SOCKET; $RUNTIME_DIRECTORY/labeld.sock (its first
    entry); /run/labeld/labeld.sock for root; $XDG_RUNTIME_DIR/labeld.sock;
    /tmp/labeld-$UID/labeld.sock. Pure: the environment and uid are passed in."""
    if explicit:
        return explicit
    named = environ.get("LABELD_SOCKET")
    if named:
        return named
    runtime = environ.get("RUNTIME_DIRECTORY")
    if runtime:
        # systemd may pass several directories separated by ':'; the first is ours
        parts = [p for p in runtime.split(":") if p]
        return (parts[0] if parts else runtime) + "/labeld.sock"
    if uid == 0:
        return SYSTEM_SOCKET
    xdg = environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return xdg + "/labeld.sock"
    return f"/tmp/labeld-{uid}/labeld.sock"


def client_socket_candidates(explicit: str | None, environ: Mapping[str, str], uid: int) -> list[str]:
    """Where a client tries, in order: the path :func:`resolve_socket` gives, then, unless
    a path was given or named by $LABELD_SOCKET or $RUNTIME_DIRECTORY, the system service's
    socket (a labeld addition: a user's own labeld comes first; without one, the shop's
    service answers). The Swift kit's ``SocketPath.clientCandidates``."""
    first = resolve_socket(explicit, environ, uid)
    named = bool(explicit) or bool(environ.get("LABELD_SOCKET")) or bool(environ.get("RUNTIME_DIRECTORY"))
    return [first] if named or first == SYSTEM_SOCKET else [first, SYSTEM_SOCKET]


def default_socket_path() -> str:
    """labeld's socket as this process's environment and uid find it (see
    :func:`resolve_socket`); a client also tries the system service's after it."""
    return resolve_socket(None, os.environ, os.getuid())


def socket_candidates(path: str | os.PathLike[str] | None) -> list[str]:
    """The paths a client of ``path`` (None: discovery) tries, in order."""
    return client_socket_candidates(
        os.fspath(path) if path is not None else None, os.environ, os.getuid()
    )


_encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def _no_default(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _make_fast_encoder() -> Any:
    """The C encoder, built once (JSONEncoder.encode builds it again for every call).
    None when this Python has no C accelerator or a different internal signature."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        enc = make(None, _no_default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, False)
        if "".join(enc({"a": [1, 2.5, None, True, "\u00e9"]}, 0)) != '{"a":[1,2.5,null,true,"\\u00e9"]}':
            return None
        return enc
    except Exception:
        return None


_fast_encoder = _make_fast_encoder()
_scan_once: Any = getattr(json.JSONDecoder(), "scan_once")


def encode_request(request_id: int, method: str, params: dict[str, Any] | None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params:
        msg["params"] = params
    if _fast_encoder is not None:
        try:
            return ("".join(_fast_encoder(msg, 0)) + "\n").encode("ascii")
        except (ValueError, TypeError, RecursionError):
            pass  # let JSONEncoder say what is wrong (NaN, a set, a cycle)
    return (_encoder.encode(msg) + "\n").encode("utf-8")


def decode_message(line: bytes) -> dict[str, Any]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolViolation(f"labeld sent a line that is not UTF-8: {line[:200]!r}") from e
    try:
        msg, end = _scan_once(text, 0)
        if end != len(text):
            msg = json.loads(text)  # trailing whitespace, or more: the full parser decides
    except (StopIteration, ValueError):
        try:
            msg = json.loads(text)
        except ValueError as e:
            raise ProtocolViolation(f"labeld sent a line that is not JSON: {line[:200]!r}") from e
    if not isinstance(msg, dict):
        raise ProtocolViolation(f"labeld sent a JSON value that is not a message: {line[:200]!r}")
    return msg


class LineBuffer:
    """Splits a byte stream into lines; refuses a line longer than ``limit``."""

    __slots__ = ("_buf", "_start", "_scan", "limit")

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._start = 0
        self._scan = 0
        self.limit = limit

    def feed(self, data: bytes) -> None:
        if self._start and self._start == len(self._buf):
            self._buf.clear()
            self._start = self._scan = 0
        self._buf += data

    def next_line(self) -> bytes | None:
        buf = self._buf
        i = buf.find(b"\n", self._scan)
        if i < 0:
            if len(buf) - self._start > self.limit:
                raise ProtocolViolation(
                    f"labeld sent a line longer than {self.limit} bytes; connection closed"
                )
            if self._start:
                del buf[: self._start]
                self._start = 0
            self._scan = len(buf)
            return None
        if i - self._start > self.limit:
            raise ProtocolViolation(
                f"labeld sent a line longer than {self.limit} bytes; connection closed"
            )
        line = bytes(buf[self._start : i])
        self._start = self._scan = i + 1
        return line

    @property
    def pending(self) -> int:
        return len(self._buf) - self._start


class Backoff:
    """50 ms doubling to 5 s, +-20 % jitter; reset after a successful subscribe."""

    def __init__(self, first: float = 0.05, cap: float = 5.0, jitter: float = 0.2) -> None:
        self.first = first
        self.cap = cap
        self.jitter = jitter
        self._next = first

    def reset(self) -> None:
        self._next = self.first

    def next_delay(self) -> float:
        base = self._next
        self._next = min(self.cap, self._next * 2)
        return base * random.uniform(1 - self.jitter, 1 + self.jitter)
