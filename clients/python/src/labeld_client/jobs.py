"""Job sequences (``job_updates``, ``wait_job``) without I/O, shared by both clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import _methods
from ._common import Overflow, answer
from ._wire import Backoff, encode_request
from .errors import error_from_wire
from .models import Job

__all__ = ["JobProgress", "JobWatch"]


@dataclass
class JobProgress:
    """Hands a change out only if (state, printed, updatedAt) differ from the last one
    handed out, never going back (an update older than the last is ignored), and nothing
    after a terminal state."""

    job_id: int
    last: Job | None = None

    @property
    def done(self) -> bool:
        return self.last is not None and self.last.terminal

    def accept(self, job: Job) -> bool:
        if job.id != self.job_id or self.done:
            return False
        last = self.last
        if last is not None:
            if (job.state, job.printed, job.updated_at) == (last.state, last.printed, last.updated_at):
                return False
            if job.updated_at < last.updated_at:
                return False
            if job.updated_at == last.updated_at and job.printed < last.printed:
                return False
        self.last = job
        return True


class JobWatch:
    """One job's changes over one connection after another; the client does the I/O.

    On each new connection the client sends :meth:`subscribe`, then feeds every message
    to :meth:`on_message` and sends or hands out what comes back, until :attr:`done`.
    Once labeld has taken the subscribe, ``jobs.get`` catches up with whatever happened
    while no connection was up (a change read both ways is handed out once). ``backoff``
    paces the client's reconnects; a taken subscribe resets it.
    """

    def __init__(self, job_id: int) -> None:
        self.progress = JobProgress(job_id)
        self.backoff = Backoff()
        self._get = _methods.job(job_id)
        self._subscribed = False

    @property
    def done(self) -> bool:
        return self.progress.done

    def subscribe(self) -> bytes:
        self._subscribed = False
        return encode_request(1, "subscribe", {"topics": ["jobs"]})

    def on_message(self, msg: dict[str, Any]) -> bytes | Job | None:
        """A request to send now, a change to hand out, or None. Raises :class:`Overflow`
        when labeld dropped this reader (reconnect at once), a LabeldError when it
        refused the subscribe or the job (an unknown job is an answer: no reason to wait),
        a ProtocolViolation (reconnect after the back-off)."""
        if not self._subscribed:
            if msg.get("id") == 1 and "method" not in msg:
                if "error" in msg:
                    raise error_from_wire(msg["error"])
                self._subscribed = True
                self.backoff.reset()
                return encode_request(2, self._get.method, self._get.params)
            return None  # nothing comes before the subscribe's answer; ignored if it did
        if msg.get("id") == 2 and "method" not in msg:
            job = self._get.result(answer(self._get.method, msg))
        elif msg.get("method") == "job":
            job = Job.from_json(msg.get("params"))
        elif msg.get("method") == "overflow":
            raise Overflow()
        else:
            return None
        return job if self.progress.accept(job) else None
