"""The alert stream's state machine on its own: table-driven, no daemon."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pytest

from labeld_client.alerts import AlertSync, Emit
from labeld_client.models import Alert, Gap

T0 = datetime(2025, 6, 2, 9, 0, tzinfo=timezone.utc)


def ev(seq: int, alert_id: str = "printerError:sim:zebra", state: str = "active") -> Alert:
    kind = alert_id.split(":", 1)[0]
    return Alert(seq=seq, id=alert_id, kind=kind, state=state, time=T0, message=f"event {seq}")


A = "printerError:sim:zebra"
B = "printerError:sim:ql"
C = "saveError:product:PEN-1"
D = "saveError:product:PEN-2"


# A case is the steps fed to the machine and what it must have handed out, written with
# the builders below (the runner reads the tuples they make):
#   live(seq)           the subscribe result {"seq": seq}: live at once, no alerts.active
#   syncing(seq)        the subscribe result {"seq": seq}: alerts.active must follow
#   gap(seq)            the subscribe result {"seq": seq, "gap": true}: alerts.active follows
#   alert(seq, id, st)  an alert notification
#   snapshot(*events)   the alerts.active result
#   offer(seq, id)      a SaveFailed's alert offered by the client
#   DROP                the connection went away
#   since(value)        the next subscribe must carry this since (None: none)
# Handed-out items are written as ints (an Alert's seq) and ("gap", after, seq, [ended seqs]).

Step = tuple[Any, ...]
DROP: Step = ("drop",)


def live(seq: int) -> Step:
    return ("sub", {"seq": seq}, False)


def syncing(seq: int) -> Step:
    return ("sub", {"seq": seq}, True)


def gap(seq: int) -> Step:
    return ("sub", {"seq": seq, "gap": True}, True)


def alert(seq: int, alert_id: str = A, state: str = "active") -> Step:
    return ("alert", ev(seq, alert_id, state))


def snapshot(*events: Alert) -> Step:
    return ("active", list(events))


def offer(seq: int, alert_id: str) -> Step:
    return ("offer", ev(seq, alert_id))


def since(value: int | None) -> Step:
    return ("since", value)


@dataclass
class Case:
    name: str
    steps: list[Step]
    out: list[Any]
    position: int | None
    start: int | None = None
    active: list[int] = field(default_factory=list)  # seqs of the events in `active` at the end


def shown(emits: list[Emit]) -> list[Any]:
    out: list[Any] = []
    for e in emits:
        if isinstance(e.item, Alert):
            out.append(e.item.seq)
        elif isinstance(e.item, Gap):
            out.append(("gap", e.item.after, e.item.seq, [a.seq for a in e.item.ended]))
    return out


CASES = [
    Case(
        "fresh start, a live event racing the snapshot (snapshot older than the event)",
        [
            since(None), syncing(10),
            alert(11, B),  # arrives while alerts.active is in flight
            snapshot(ev(5, A)),  # the snapshot was taken before 11
            alert(12, A, "cleared"),
        ],
        out=[5, 11, 12], position=12, active=[11],
    ),
    Case(
        "fresh start: a live event must not hide older snapshot items (naive watermark bug)",
        [syncing(10), alert(11, B), snapshot(ev(3, C), ev(5, A), ev(11, B))],  # snapshot after 11
        out=[3, 5, 11], position=11, active=[3, 5, 11],
    ),
    Case(
        "fresh start: a snapshot item newer than the live events read is not handed out twice",
        [
            syncing(10), alert(11, B),
            snapshot(ev(5, A), ev(11, B), ev(12, C)),  # 12 raised after the live 11 was read
            alert(12, C),  # its live copy arrives now
            alert(13, C, "cleared"),
        ],
        out=[5, 11, 12, 13], position=13, active=[5, 11],
    ),
    Case(
        "fresh start with nothing at all: position becomes the daemon's seq",
        [syncing(0), snapshot(), DROP, since(0)],
        out=[], position=0,
    ),
    Case(
        "resume without gap: live at once, replay handed out in order",
        [since(20), live(23), alert(21, A), alert(22, B), alert(23, A, "cleared")],
        out=[21, 22, 23], position=23, start=20, active=[22],
    ),
    Case(
        "duplicate replay after a reconnect is skipped",
        [
            live(12), alert(11, A), alert(12, B), DROP, since(12), live(13),
            alert(11, A),  # a server replaying too much: skipped
            alert(12, B), alert(13, C),
            alert(13, C),  # the same event twice: once
        ],
        out=[11, 12, 13], position=13, start=10, active=[11, 12, 13],
    ),
    Case(
        "gap: an alert that ended inside the lost range is withdrawn, the active ones follow",
        [
            syncing(14), snapshot(), alert(15, A), alert(18, B), alert(20, C), DROP, since(20), gap(40),
            # A was cleared in the lost range; B was raised again (30); C is unchanged (20)
            snapshot(ev(20, C), ev(30, B)),
        ],
        out=[15, 18, 20, ("gap", 20, 40, [15]), 30], position=40, active=[20, 30],
    ),
    Case(
        "gap: an alert whose ending event arrives live while syncing is not withdrawn",
        [
            syncing(14), snapshot(), alert(15, A), alert(16, B), DROP, gap(40),
            alert(41, A, "cleared"),  # live, while alerts.active is in flight
            snapshot(),
        ],
        out=[15, 16, ("gap", 16, 40, [16]), 41], position=41, active=[],
    ),
    Case(
        "reset: since newer than the daemon's seq (another journal) starts over",
        [
            syncing(99), snapshot(ev(90, A), ev(95, B)), DROP, since(99), gap(7),
            snapshot(ev(3, C), ev(6, A)),  # A still active (new journal), B gone
        ],
        out=[90, 95, ("gap", 99, 7, [95]), 3, 6], position=7, active=[3, 6],
    ),
    Case(
        "reset: an offer of the old journal hides no event of the new one",
        [
            live(50),
            offer(52, C),  # answered by the old daemon, its copy never came
            DROP,
            gap(3),  # a new journal
            snapshot(),
            alert(52, D),  # the new journal's 52 is another event
        ],
        out=[52, ("gap", 50, 3, [52]), 52], position=52, start=50, active=[52],
    ),
    Case(
        "reset: later events of the new journal follow normally",
        [live(50), DROP, gap(2), snapshot(), alert(3, A), DROP, since(3)],
        out=[("gap", 50, 2, []), 3], position=3, start=50, active=[3],
    ),
    Case(
        "offer before the channel's copy: handed out at once, the copy skipped",
        [live(10), offer(11, C), alert(11, C), alert(12, A)],
        out=[11, 12], position=12, start=10, active=[11, 12],
    ),
    Case(
        "offer after the channel's copy: nothing more",
        [live(10), alert(11, C), offer(11, C), alert(12, A)],
        out=[11, 12], position=12, start=10, active=[11, 12],
    ),
    Case(
        "offer overtakes earlier channel events; they still come, in order",
        [live(10), offer(13, C), alert(11, A), alert(12, B), alert(13, C), alert(14, A, "cleared")],
        out=[13, 11, 12, 14], position=14, start=10, active=[12, 13],
    ),
    Case(
        "offer while syncing a fresh start: held, then it comes once, in its place",
        [syncing(10), offer(11, C), alert(11, C), snapshot(ev(5, A), ev(11, C))],  # held till live
        out=[5, 11], position=11, active=[5, 11],
    ),
    Case(
        "offer before a fresh start whose alert was cleared before the start: never handed out",
        [
            offer(11, C),  # the save failed before the subscribe was answered
            syncing(12),  # 12 cleared it: the start is after both
            snapshot(ev(5, A)),
            alert(13, B),
        ],
        out=[5, 13], position=13, active=[5, 13],  # not 11: its clearing (12) never follows
    ),
    Case(
        "offer before a fresh start, still active: once, from the snapshot",
        [offer(11, C), syncing(11), snapshot(ev(5, A), ev(11, C)), alert(12, C, "cleared")],
        out=[5, 11, 12], position=12, active=[5],
    ),
    Case(
        "offer newer than where a fresh start begins: once when live, its copy skipped",
        [
            syncing(10),
            offer(12, C),  # raised after the start; its copy not read yet
            snapshot(ev(5, A)),  # the snapshot was taken before 12
            alert(11, B), alert(12, C), alert(13, C, "cleared"),
        ],
        out=[5, 12, 11, 13], position=13, active=[5, 11],
    ),
    Case(
        "offer before a resume's subscribe answer: after the early events, its copy skipped",
        [
            since(10), offer(12, C),
            alert(11, A),  # came before the answer: waits for it
            live(12), alert(12, C), alert(13, B),
        ],
        out=[11, 12, 13], position=13, start=10, active=[11, 12, 13],
    ),
    Case(
        "offer while re-syncing after a gap: weighed against the new start",
        [
            live(10), alert(11, A), DROP, gap(40),
            offer(30, C),  # within the lost range, ended since: not handed out
            offer(41, D),  # after the start: handed out once live
            snapshot(ev(20, B)), alert(41, D),
        ],
        out=[11, ("gap", 11, 40, [11]), 20, 41], position=41, start=10, active=[20, 41],
    ),
    Case(
        "an offer held across a lost connection is weighed on the next one",
        [offer(11, C), DROP, since(None), syncing(11), snapshot(ev(11, C))],  # DROP: before the answer
        out=[11], position=11, active=[11],
    ),
    Case(
        "offer, then a reconnect before the copy: the replayed copy is still skipped",
        [live(10), offer(12, C), DROP, since(10), live(12), alert(11, A), alert(12, C), alert(13, B)],
        out=[12, 11, 13], position=13, start=10, active=[11, 12, 13],
    ),
    Case(
        "the channel's copy of an offered event moves the position (no duplicate on resume)",
        [live(10), offer(11, C), alert(11, C), DROP, since(11), live(11), alert(11, C)],
        out=[11], position=11, start=10, active=[11],
    ),
    Case(
        "an offered event older than an event of the same id changes nothing in `active`",
        [live(10), offer(12, C), alert(11, C, "cleared"), alert(12, C)],
        out=[12, 11], position=12, start=10, active=[12],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_alert_sync(case: Case) -> None:
    sync = AlertSync(position=case.start)
    out: list[Any] = []
    first_params = sync.subscribe_params()
    assert first_params.get("since") == case.start
    for step in case.steps:
        kind = step[0]
        if kind == "sub":
            need_active, emits = sync.on_subscribed(step[1])
            assert need_active is step[2], f"alerts.active needed after {step[1]}"
            out += shown(emits)
        elif kind == "alert":
            out += shown(sync.on_alert(step[1]))
        elif kind == "active":
            out += shown(sync.on_active(step[1]))
        elif kind == "offer":
            out += shown(sync.offer(step[1]))
        elif kind == "drop":
            sync.on_disconnect()
            sync.subscribe_params()
        elif kind == "since":
            params = sync.subscribe_params()
            if step[1] is None:
                assert "since" not in params
            else:
                assert params["since"] == step[1]
        else:  # pragma: no cover
            raise AssertionError(kind)
    assert out == case.out
    assert sync.position == case.position
    assert sorted(e.seq for e in sync.active.values()) == sorted(case.active)
    assert all(alert_id == e.id for alert_id, e in sync.active.items())
    assert all(s > (sync.position or 0) for s in sync.ahead), "ahead holds only seqs above position"


def test_emit_positions_for_a_resume_file() -> None:
    """Each item carries the position to store once it is handled; an offered event and a
    Gap carry none; an event accounted for without being handed out is a mark."""
    sync = AlertSync(position=None)
    sync.subscribe_params()
    sync.on_subscribed({"seq": 10})
    emits = sync.on_active([ev(5, A), ev(7, B)])
    assert [(e.item.seq if e.item else None, e.position) for e in emits] == [
        (5, 5),
        (7, 7),
        (None, 10),  # the snapshot is accounted for up to the daemon's seq
    ]
    offered = sync.offer(ev(11, C))
    assert [(e.item, e.position) for e in offered] == [(ev(11, C), None)]
    copy = sync.on_alert(ev(11, C))
    assert [(e.item, e.position) for e in copy] == [(None, 11)]
    sync.on_disconnect()
    sync.subscribe_params()
    sync.on_subscribed({"seq": 30, "gap": True})
    emits = sync.on_active([])
    assert isinstance(emits[0].item, Gap) and emits[0].position is None
    assert emits[-1] == Emit(None, 30)


def test_alert_before_subscribe_result_is_not_lost() -> None:
    sync = AlertSync(position=10)
    sync.subscribe_params()
    assert sync.on_alert(ev(11, A)) == []
    need, emits = sync.on_subscribed({"seq": 11})
    assert not need
    assert [e.item.seq for e in emits if e.item] == [11]


def test_active_answer_when_not_syncing_is_a_violation() -> None:
    from labeld_client.errors import ProtocolViolation

    sync = AlertSync(position=3)
    sync.subscribe_params()
    sync.on_subscribed({"seq": 3})
    with pytest.raises(ProtocolViolation):
        sync.on_active([])
    with pytest.raises(ProtocolViolation):
        sync.on_subscribed({"nope": 1})
