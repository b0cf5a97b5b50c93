"""What the blocking and the asyncio client share that is not I/O: timeouts, the
transport's two signals, reading a call's answer, and ``with`` support.

The two clients differ only where they wait (a socket and threads, or the event loop);
every decision that does not wait is made here, in ``_methods`` (the typed helpers),
``jobs`` (job sequences) or ``_streams`` (alert streams), once for both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from ._wire import is_read_only
from .errors import (
    ClientError,
    ConnectionLost,
    ProtocolViolation,
    SaveFailed,
    Timeout,
    Unreachable,
    error_from_wire,
    unreachable_error,
)
from .models import Alert

JSONObject = dict[str, Any]

DEFAULT_TIMEOUT = 60.0


class _Default:
    pass


#: ``request(timeout=DEFAULT)``: the client's own timeout (None would mean no bound).
DEFAULT: Any = _Default()


def deadline_in(timeout: float | None) -> float | None:
    """The moment ``timeout`` seconds from now (None: never)."""
    return None if timeout is None else time.monotonic() + timeout


def paced(delay: float, deadline: float | None) -> tuple[float, Timeout | None]:
    """A back-off of ``delay`` cut short by ``deadline``: how long to sleep, and the Timeout
    to raise after sleeping when the deadline has come by then."""
    if deadline is not None and time.monotonic() + delay > deadline:
        return max(0.0, deadline - time.monotonic()), Timeout("labeld did not answer in time")
    return delay, None


class Eof(Exception):
    """labeld closed the connection."""


class Woken(Exception):
    """A stream was closed from another thread while it waited."""


class NotSent(Exception):
    """The connection was found dead before any byte of the request went out: any method
    may go again on a new connection."""


class Overflow(Exception):
    """labeld dropped a stream's connection for reading too slowly (``overflow``): the
    client reconnects at once, without a back-off, and catches up."""


def lost(path: str, method: str) -> ConnectionLost:
    return ConnectionLost(
        f"the connection to labeld at {path} closed before its answer to {method}: "
        "the request may or may not have run; check with a get/list before retrying"
    )


class Retry:
    """Whether a call goes again, on a new connection, or ends in ConnectionLost: once
    when nothing of it went out (the connection had died before: labeld restarted), and
    once when its answer was lost, for a method that only reads (running it twice is
    harmless; anything else may have run)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self._fresh = 0
        self._again = False

    def not_sent(self, path: str) -> None:
        self._fresh += 1
        if self._fresh > 1:
            raise lost(path, self.method) from None

    def answer_lost(self, path: str) -> None:
        if self._again or not is_read_only(self.method):
            raise lost(path, self.method) from None
        self._again = True


def connect_failed(path: str, e: OSError) -> ClientError:
    """What a failed connect() to ``path`` raises: Timeout when it took too long."""
    if isinstance(e, TimeoutError):
        return Timeout(f"connecting to labeld at {path} timed out")
    return unreachable_error(path, e)


class Candidates:
    """Connecting to the first of the socket paths where labeld listens: a path where it
    is not running is passed over; any other failure (no permission: one to ask for, not
    to hide behind the next path) is raised at once (``failed``); when none answers, the
    first path's failure (``none_answered``)."""

    def __init__(self) -> None:
        self._first: Unreachable | None = None

    def failed(self, e: Unreachable) -> None:
        if not e.not_running:
            raise e
        if self._first is None:
            self._first = e

    def none_answered(self) -> Unreachable:
        return self._first or Unreachable("no socket path to reach labeld at", path="")


def answer(method: str, msg: JSONObject, offer: Callable[[Alert], None] | None = None) -> JSONObject:
    """The result object of labeld's answer ``msg`` to ``method``, or the error it
    carries, raised. A save failure's alert is first ``offer``-ed to the client's alert
    streams: an app that shows alerts from a stream shows it once, now."""
    if "error" in msg:
        err = error_from_wire(msg["error"])
        if offer is not None and isinstance(err, SaveFailed) and err.alert is not None:
            offer(err.alert)
        raise err
    result = msg.get("result")
    if not isinstance(result, dict):
        raise ProtocolViolation(f"{method}: the result is not an object: {result!r:.200}")
    return result


# Leaving ``with``: a client closes; a stream closes too, counting the item handed out
# last as handled only when the block ended without an exception. (Each class has its own
# __enter__, typed as returning itself.)


class Closing:
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._exit(ok=exc_type is None)

    def _exit(self, ok: bool) -> None:
        raise NotImplementedError


class AsyncClosing:
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._aexit(ok=exc_type is None)

    async def _aexit(self, ok: bool) -> None:
        raise NotImplementedError
