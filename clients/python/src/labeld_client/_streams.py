"""The alert streams' common part, without I/O or waiting.

:class:`AlertStream` (a reader thread) and :class:`AsyncAlertStream` (a reader task)
each keep a :class:`StreamCore`: the :class:`AlertSync`, the items ready for the consumer,
the resume file's bookkeeping, an error for the consumer, and what each message on the
stream's connection means. Around it they add only their waiting: the blocking stream
calls every method under its lock, and the core tells it, through ``wake`` and ``room``,
when the consumer has something new and when the reader has room again.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from typing import Any

from . import _methods
from ._common import Eof, NotSent, Overflow, answer
from ._wire import Backoff, encode_request
from .alerts import AlertSync, Emit, ResumeFileError, load_resume_file, store_resume_file
from .errors import ENDS_STREAMS, ClientError, LabeldError, error_from_wire
from .models import Alert, Gap

_ACTIVE = _methods.active_alerts()


class StreamCore:
    def __init__(
        self,
        since: int | None,
        resume_file: str | os.PathLike[str] | None,
        wake: Callable[[], None],
        room: Callable[[], None],
    ) -> None:
        self.resume = os.fspath(resume_file) if resume_file is not None else None
        position = since
        if position is None and self.resume is not None:
            position = load_resume_file(self.resume)
        self.sync = AlertSync(position=position)
        self.ready: deque[Emit] = deque()
        self.error: ClientError | None = None
        #: what ended the stream (ENDS_STREAMS, or a reader that failed): raised by every
        #: ``next()`` once the items before it are taken
        self.failure: ClientError | None = None
        self.closed = False
        #: paces the reader's reconnects; a subscribe labeld takes resets it
        self.backoff = Backoff()
        self._wake = wake
        self._room = room
        self._stored: int | None = position
        self._to_store: int | None = None  # the item handed out last, handled once asked again
        self._waiting: dict[int, str] = {}  # request id -> what it asked, until answered

    # --- the consumer's side ---------------------------------------------------------------

    def take(self) -> Alert | Gap | None:
        """The next item, or None when none is ready. Asking again means the item handed
        out before is handled: a resume file stores its position now. An error posted for
        the consumer is raised once the items before it are taken."""
        if self._to_store is not None:
            self._store(self._to_store)
            self._to_store = None
        while self.ready:
            emit = self.ready.popleft()
            self._room()
            if emit.item is None:  # an event accounted for, not handed out
                if emit.position is not None:
                    self._store(emit.position)
                continue
            self._to_store = emit.position
            return emit.item
        if self.error is not None:
            err, self.error = self.error, None
            raise err
        if self.failure is not None and not self.closed:
            raise self.failure
        return None

    @property
    def ended(self) -> bool:
        """Closed, or ended by a failure: the reader stops."""
        return self.closed or self.failure is not None

    def close(self, handled: bool) -> bool:
        """Marks the stream closed (False: it was already). ``handled``: the item handed
        out last counts as handled (a resume file that cannot be written is let be: the
        stream is going away)."""
        if self.closed:
            return False
        self.closed = True
        if handled and self._to_store is not None:
            try:
                self._store(self._to_store)
            except ResumeFileError:
                pass
            self._to_store = None
        return True

    def _store(self, position: int) -> None:
        if self.resume is None or position == self._stored:
            return
        try:
            store_resume_file(self.resume, position)
        except OSError as e:
            raise ResumeFileError(f"cannot write the alert resume file {self.resume}: {e}") from e
        self._stored = position

    def offer(self, alert: Alert) -> None:
        """A save failure a call of the client raised."""
        if not self.closed:
            self._push(self.sync.offer(alert))

    def post(self, error: ClientError) -> None:
        """An error for the consumer's next ``next()``."""
        self.error = error
        self._wake()

    def fail(self, error: BaseException) -> None:
        """The stream ends with ``error``: one a retry cannot mend (ENDS_STREAMS), or
        whatever stopped the reader (a bug: handed to the consumer, never lost with the
        reader). Items read before it are handed out first."""
        if self.failure is not None:
            return
        if isinstance(error, ClientError):
            self.failure = error
        else:
            self.failure = ClientError(f"the alert stream's reader stopped: {error!r}")
            self.failure.__cause__ = error
        self._wake()

    def _push(self, emits: list[Emit]) -> None:
        if emits:
            self.ready.extend(emits)
            self._wake()

    # --- the reader's side: one connection ---------------------------------------------------

    def subscribe(self) -> bytes:
        """The request that starts a connection, from the stream's position."""
        self._waiting = {1: "subscribe"}
        return encode_request(1, "subscribe", self.sync.subscribe_params())

    @property
    def answer_due(self) -> bool:
        """Whether a request waits for its answer (the client's timeout bounds the wait);
        otherwise a quiet connection is waited on for ever."""
        return bool(self._waiting)

    def on_message(self, msg: dict[str, Any]) -> bytes | None:
        """What labeld sent; returns a request to send now, if any. Raises Overflow (labeld
        dropped this reader), the LabeldError of a refused subscribe, or a
        ProtocolViolation."""
        method = msg.get("method")
        if method is None:
            rid = msg.get("id")
            kind = self._waiting.pop(rid, None) if isinstance(rid, int) else None
            if kind == "subscribe":
                if "error" in msg:
                    raise error_from_wire(msg["error"])
                need_active, emits = self.sync.on_subscribed(msg.get("result"))
                self._push(emits)
                self.backoff.reset()
                if need_active:
                    self._waiting[2] = "active"
                    return encode_request(2, _ACTIVE.method, _ACTIVE.params)
            elif kind == "active":
                self._push(self.sync.on_active(_ACTIVE.result(answer(_ACTIVE.method, msg))))
        elif method == "alert":
            self._push(self.sync.on_alert(Alert.from_json(msg.get("params"))))
        elif method == "overflow":
            raise Overflow()
        return None

    def disconnected(self, e: Exception | None) -> None:
        """The connection is gone (``e``: why, None when the stream is closing). What a
        retry cannot mend ends the stream (``failure``); labeld's refusal of the
        subscribe and a bug are posted to the consumer (the reader tries again after the
        back-off all the same); a transport problem only reconnects."""
        self.sync.on_disconnect()
        self._waiting = {}
        if isinstance(e, ENDS_STREAMS):
            self.fail(e)
        elif isinstance(e, LabeldError):
            self.post(e)
        elif e is not None and not isinstance(e, (Eof, NotSent, ClientError, OSError, Overflow)):
            err = ClientError(f"the alert stream failed: {e!r}")
            err.__cause__ = e
            self.post(err)
