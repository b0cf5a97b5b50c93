"""The alert stream's algorithm, as a pure state machine (no I/O).

:class:`AlertSync` is what both clients drive: they feed it what arrives on the stream's
connection (``on_subscribed``, ``on_alert``, ``on_active``, ``on_disconnect``) and what
a call's :class:`~labeld_client.errors.SaveFailed` carried (``offer``), and hand out the
:class:`Emit` items it returns, in order. The semantics are the kit spec's, "Alert
streams: exactly once, in seq order".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from .errors import ClientError, ProtocolViolation
from .models import Alert, Gap

__all__ = ["AlertSync", "Emit", "load_resume_file", "store_resume_file", "ResumeFileError"]

SUBSCRIBING = "subscribing"
SYNCING = "syncing"
LIVE = "live"


@dataclass(frozen=True)
class Emit:
    """One output of the machine.

    ``item`` is what the consumer gets (an Alert or a Gap), or None for a position-only
    mark (an event accounted for without being handed out). ``position`` is the stream's
    position once this item is handled (what a resume file stores), or None when handling
    it does not move the position (a Gap, an offered event).
    """

    item: Alert | Gap | None
    position: int | None


@dataclass
class AlertSync:
    """State: ``position`` (seq of the last event handed out or accounted for; None =
    fresh), ``active`` (id -> last event handed out whose state was active), ``phase``,
    ``buffer`` (events received while syncing), ``ahead`` (seqs handed out early by
    ``offer``), ``held`` (offers that came before the stream was live: weighed once it is;
    an offer older than where a fresh start begins has ended or is in the snapshot, and
    handing it out at once would show an alert whose clearing never follows)."""

    position: int | None = None
    active: dict[str, Alert] = field(default_factory=dict)
    phase: str = SUBSCRIBING
    buffer: list[Alert] = field(default_factory=list)
    ahead: set[int] = field(default_factory=set)
    held: list[Alert] = field(default_factory=list)
    # what the subscribe result said, kept until the alerts.active answer
    _seq: int = 0
    _gap: bool = False
    _reset: bool = False

    # 1. every (re)connection
    def subscribe_params(self) -> dict[str, Any]:
        """The params of the ``subscribe`` to send on a new connection."""
        self.phase = SUBSCRIBING
        self.buffer = []
        params: dict[str, Any] = {"topics": ["alerts"]}
        if self.position is not None:
            params["since"] = self.position
        return params

    # 2. the subscribe result
    def on_subscribed(self, result: Any) -> tuple[bool, list[Emit]]:
        """Returns (whether ``alerts.active`` must be sent now, items to hand out)."""
        if not isinstance(result, dict):
            raise ProtocolViolation(f"subscribe result is not an object: {result!r:.200}")
        seq = result.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ProtocolViolation(f"subscribe result has no integer seq: {result!r:.200}")
        gap = result.get("gap") is True
        reset = self.position is not None and self.position > seq
        self._seq, self._gap, self._reset = seq, gap, reset
        if self.position is None or gap:
            self.phase = SYNCING
            return True, []
        self.phase = LIVE
        early, self.buffer = self.buffer, []
        return False, self._deliver(early) + self._take_held()

    # 3. an alert notification
    def on_alert(self, event: Alert) -> list[Emit]:
        if self.phase != LIVE:
            # syncing: kept for the snapshot merge. (Before the subscribe result no
            # alert may arrive; should one, it is kept the same way, never lost.)
            self.buffer.append(event)
            return []
        return self._deliver([event])

    # 4. the alerts.active result
    def on_active(self, alerts: list[Alert]) -> list[Emit]:
        if self.phase != SYNCING:
            raise ProtocolViolation("alerts.active answered while the stream was not syncing")
        by_seq: dict[int, Alert] = {}
        for e in alerts:
            by_seq[e.seq] = e
        for e in self.buffer:
            by_seq[e.seq] = e
        merged = [by_seq[s] for s in sorted(by_seq)]
        out: list[Emit] = []
        if self._gap:
            floor = None if self._reset else self.position
            snapshot_ids = {a.id for a in alerts}
            ended: list[Alert] = []
            for alert_id, last in list(self.active.items()):
                if alert_id in snapshot_ids:
                    continue
                if any(m.id == alert_id and (floor is None or m.seq > floor) for m in merged):
                    continue
                ended.append(last)
                del self.active[alert_id]
            ended.sort(key=lambda a: a.seq)
            out.append(Emit(Gap(after=self.position, seq=self._seq, ended=ended), None))
            if self._reset:
                # another journal: every event of the snapshot is handed out again, and
                # `active` is rebuilt from them; old seqs mean nothing beside new ones, in
                # `active` or in `ahead` (where one could hide a new event: a loss)
                self.position = None
                self.active = {}
                self.ahead = set()
        out.extend(self._deliver(merged))
        final = max(self.position or 0, self._seq)
        if final != self.position or not out or out[-1].position != final:
            out.append(Emit(None, final))
        self.position = final
        self.phase = LIVE
        self.buffer = []
        return out + self._take_held()

    # 7. the connection went away
    def on_disconnect(self) -> None:
        self.phase = SUBSCRIBING
        self.buffer = []

    # a save failure a call raised
    def offer(self, event: Alert) -> list[Emit]:
        """Hand out ``event`` at once unless it was handed out already; its channel copy
        is then skipped. Before the stream is live (its subscribe not answered yet, or
        re-syncing), the offer is held and weighed once it is live: handed out then only
        if it is newer than where the stream begins and not handed out already."""
        if self.phase != LIVE:
            self.held.append(event)
            return []
        if (self.position is not None and event.seq <= self.position) or event.seq in self.ahead:
            return []
        self.ahead.add(event.seq)
        self._note_active(event)
        return [Emit(event, None)]

    def _take_held(self) -> list[Emit]:
        """The held offers, weighed now that the stream is live."""
        waiting, self.held = self.held, []
        out: list[Emit] = []
        for event in waiting:
            out.extend(self.offer(event))
        return out

    # 5. deliver
    def _deliver(self, events: list[Alert]) -> list[Emit]:
        out: list[Emit] = []
        for e in events:
            if self.position is not None and e.seq <= self.position:
                continue
            if e.seq in self.ahead:
                # handed out early by offer: this is its channel copy, accounted for
                self.ahead.discard(e.seq)
                self.position = e.seq
                out.append(Emit(None, e.seq))
                continue
            self.position = e.seq
            self._note_active(e)
            out.append(Emit(e, e.seq))
        if self.ahead and self.position is not None:
            pos = self.position
            self.ahead = {s for s in self.ahead if s > pos}
        return out

    def _note_active(self, e: Alert) -> None:
        current = self.active.get(e.id)
        if current is not None and current.seq > e.seq:
            return  # an older event (an offered one overtook it) changes nothing
        if e.state == "active":
            self.active[e.id] = e
        else:
            self.active.pop(e.id, None)


# --- resume file ------------------------------------------------------------------------


class ResumeFileError(ClientError):
    """The resume file exists but cannot be read: never silently a fresh start."""


def load_resume_file(path: str | os.PathLike[str]) -> int | None:
    """The position stored in ``path``: None when the file does not exist."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ResumeFileError(f"cannot read the alert resume file {os.fspath(path)}: {e}") from e
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise ResumeFileError(
            f"the alert resume file {os.fspath(path)} is not JSON ({e}); "
            "remove it to start afresh"
        ) from e
    seq = doc.get("seq") if isinstance(doc, dict) else None
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise ResumeFileError(
            f'the alert resume file {os.fspath(path)} does not hold {{"seq": N}}: {raw[:100]!r}; '
            "remove it to start afresh"
        )
    return seq


def store_resume_file(path: str | os.PathLike[str], seq: int) -> None:
    """Write ``{"seq": N}`` to a temporary file beside ``path`` and rename it over
    (no fsync: it survives the app's crash, not a power cut)."""
    p = os.fspath(path)
    directory, base = os.path.split(p)
    tmp = os.path.join(directory, f".{base}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="ascii") as f:
        f.write(json.dumps({"seq": seq}))
    os.replace(tmp, p)
