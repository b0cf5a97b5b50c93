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


# Steps of a case:
#   ("sub", result, expect_active)   the subscribe result; whether alerts.active must follow
#   ("alert", Alert)                  an alert notification
#   ("active", [Alert])               the alerts.active result
#   ("offer", Alert)                  a SaveFailed's alert offered by the client
#   ("drop",)                         the connection went away
#   ("since", value)                  the next subscribe must carry this since (None: none)
# Handed-out items are written as ints (an Alert's seq) and ("gap", after, seq, [ended seqs]).


@dataclass
class Case:
    name: str
    steps: list[tuple[Any, ...]]
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
            ("since", None),
            ("sub", {"seq": 10}, True),
            ("alert", ev(11, B)),  # arrives while alerts.active is in flight
            ("active", [ev(5, A)]),  # the snapshot was taken before 11
            ("alert", ev(12, A, "cleared")),
        ],
        out=[5, 11, 12],
        position=12,
        active=[11],
    ),
    Case(
        "fresh start: a live event must not hide older snapshot items (naive watermark bug)",
        [
            ("sub", {"seq": 10}, True),
            ("alert", ev(11, B)),
            ("active", [ev(3, C), ev(5, A), ev(11, B)]),  # snapshot taken after 11
        ],
        out=[3, 5, 11],
        position=11,
        active=[3, 5, 11],
    ),
    Case(
        "fresh start: a snapshot item newer than the live events read is not handed out twice",
        [
            ("sub", {"seq": 10}, True),
            ("alert", ev(11, B)),
            ("active", [ev(5, A), ev(11, B), ev(12, C)]),  # 12 raised after the live 11 was read
            ("alert", ev(12, C)),  # its live copy arrives now
            ("alert", ev(13, C, "cleared")),
        ],
        out=[5, 11, 12, 13],
        position=13,
        active=[5, 11],
    ),
    Case(
        "fresh start with nothing at all: position becomes the daemon's seq",
        [("sub", {"seq": 0}, True), ("active", []), ("drop",), ("since", 0)],
        out=[],
        position=0,
    ),
    Case(
        "resume without gap: live at once, replay handed out in order",
        [
            ("since", 20),
            ("sub", {"seq": 23}, False),
            ("alert", ev(21, A)),
            ("alert", ev(22, B)),
            ("alert", ev(23, A, "cleared")),
        ],
        out=[21, 22, 23],
        position=23,
        start=20,
        active=[22],
    ),
    Case(
        "duplicate replay after a reconnect is skipped",
        [
            ("sub", {"seq": 12}, False),
            ("alert", ev(11, A)),
            ("alert", ev(12, B)),
            ("drop",),
            ("since", 12),
            ("sub", {"seq": 13}, False),
            ("alert", ev(11, A)),  # a server replaying too much: skipped
            ("alert", ev(12, B)),
            ("alert", ev(13, C)),
            ("alert", ev(13, C)),  # the same event twice: once
        ],
        out=[11, 12, 13],
        position=13,
        start=10,
        active=[11, 12, 13],
    ),
    Case(
        "gap: an alert that ended inside the lost range is withdrawn, the active ones follow",
        [
            ("sub", {"seq": 14}, True),
            ("active", []),
            ("alert", ev(15, A)),
            ("alert", ev(18, B)),
            ("alert", ev(20, C)),
            ("drop",),
            ("since", 20),
            ("sub", {"seq": 40, "gap": True}, True),
            # A was cleared in the lost range; B was raised again (30); C is unchanged (20)
            ("active", [ev(20, C), ev(30, B)]),
        ],
        out=[15, 18, 20, ("gap", 20, 40, [15]), 30],
        position=40,
        active=[20, 30],
    ),
    Case(
        "gap: an alert whose ending event arrives live while syncing is not withdrawn",
        [
            ("sub", {"seq": 14}, True),
            ("active", []),
            ("alert", ev(15, A)),
            ("alert", ev(16, B)),
            ("drop",),
            ("sub", {"seq": 40, "gap": True}, True),
            ("alert", ev(41, A, "cleared")),  # live, while alerts.active is in flight
            ("active", []),
        ],
        out=[15, 16, ("gap", 16, 40, [16]), 41],
        position=41,
        active=[],
    ),
    Case(
        "reset: since newer than the daemon's seq (another journal) starts over",
        [
            ("sub", {"seq": 99}, True),
            ("active", [ev(90, A), ev(95, B)]),
            ("drop",),
            ("since", 99),
            ("sub", {"seq": 7, "gap": True}, True),
            ("active", [ev(3, C), ev(6, A)]),  # A still active (new journal), B gone
        ],
        out=[90, 95, ("gap", 99, 7, [95]), 3, 6],
        position=7,
        active=[3, 6],
    ),
    Case(
        "reset: an offer of the old journal hides no event of the new one",
        [
            ("sub", {"seq": 50}, False),
            ("offer", ev(52, C)),  # answered by the old daemon, its copy never came
            ("drop",),
            ("sub", {"seq": 3, "gap": True}, True),  # a new journal
            ("active", []),
            ("alert", ev(52, D)),  # the new journal's 52 is another event
        ],
        out=[52, ("gap", 50, 3, [52]), 52],
        position=52,
        start=50,
        active=[52],
    ),
    Case(
        "reset: later events of the new journal follow normally",
        [
            ("sub", {"seq": 50}, False),
            ("drop",),
            ("sub", {"seq": 2, "gap": True}, True),
            ("active", []),
            ("alert", ev(3, A)),
            ("drop",),
            ("since", 3),
        ],
        out=[("gap", 50, 2, []), 3],
        position=3,
        start=50,
        active=[3],
    ),
    Case(
        "offer before the channel's copy: handed out at once, the copy skipped",
        [
            ("sub", {"seq": 10}, False),
            ("offer", ev(11, C)),
            ("alert", ev(11, C)),
            ("alert", ev(12, A)),
        ],
        out=[11, 12],
        position=12,
        start=10,
        active=[11, 12],
    ),
    Case(
        "offer after the channel's copy: nothing more",
        [
            ("sub", {"seq": 10}, False),
            ("alert", ev(11, C)),
            ("offer", ev(11, C)),
            ("alert", ev(12, A)),
        ],
        out=[11, 12],
        position=12,
        start=10,
        active=[11, 12],
    ),
    Case(
        "offer overtakes earlier channel events; they still come, in order",
        [
            ("sub", {"seq": 10}, False),
            ("offer", ev(13, C)),
            ("alert", ev(11, A)),
            ("alert", ev(12, B)),
            ("alert", ev(13, C)),
            ("alert", ev(14, A, "cleared")),
        ],
        out=[13, 11, 12, 14],
        position=14,
        start=10,
        active=[12, 13],
    ),
    Case(
        "offer while syncing a fresh start: held, then it comes once, in its place",
        [
            ("sub", {"seq": 10}, True),
            ("offer", ev(11, C)),  # not live yet: held
            ("alert", ev(11, C)),
            ("active", [ev(5, A), ev(11, C)]),
        ],
        out=[5, 11],
        position=11,
        active=[5, 11],
    ),
    Case(
        "offer before a fresh start whose alert was cleared before the start: never handed out",
        [
            ("offer", ev(11, C)),  # the save failed before the subscribe was answered
            ("sub", {"seq": 12}, True),  # 12 cleared it: the start is after both
            ("active", [ev(5, A)]),
            ("alert", ev(13, B)),
        ],
        out=[5, 13],  # not 11: its clearing (12) is before the start and never follows
        position=13,
        active=[5, 13],
    ),
    Case(
        "offer before a fresh start, still active: once, from the snapshot",
        [
            ("offer", ev(11, C)),
            ("sub", {"seq": 11}, True),
            ("active", [ev(5, A), ev(11, C)]),
            ("alert", ev(12, C, "cleared")),
        ],
        out=[5, 11, 12],
        position=12,
        active=[5],
    ),
    Case(
        "offer newer than where a fresh start begins: once when live, its copy skipped",
        [
            ("sub", {"seq": 10}, True),
            ("offer", ev(12, C)),  # raised after the start; its copy not read yet
            ("active", [ev(5, A)]),  # the snapshot was taken before 12
            ("alert", ev(11, B)),
            ("alert", ev(12, C)),
            ("alert", ev(13, C, "cleared")),
        ],
        out=[5, 12, 11, 13],
        position=13,
        active=[5, 11],
    ),
    Case(
        "offer before a resume's subscribe answer: after the early events, its copy skipped",
        [
            ("since", 10),
            ("offer", ev(12, C)),
            ("alert", ev(11, A)),  # came before the answer: waits for it
            ("sub", {"seq": 12}, False),
            ("alert", ev(12, C)),
            ("alert", ev(13, B)),
        ],
        out=[11, 12, 13],
        position=13,
        start=10,
        active=[11, 12, 13],
    ),
    Case(
        "offer while re-syncing after a gap: weighed against the new start",
        [
            ("sub", {"seq": 10}, False),
            ("alert", ev(11, A)),
            ("drop",),
            ("sub", {"seq": 40, "gap": True}, True),
            ("offer", ev(30, C)),  # within the lost range, ended since: not handed out
            ("offer", ev(41, D)),  # after the start: handed out once live
            ("active", [ev(20, B)]),
            ("alert", ev(41, D)),
        ],
        out=[11, ("gap", 11, 40, [11]), 20, 41],
        position=41,
        start=10,
        active=[20, 41],
    ),
    Case(
        "an offer held across a lost connection is weighed on the next one",
        [
            ("offer", ev(11, C)),
            ("drop",),  # before the first subscribe was answered
            ("since", None),
            ("sub", {"seq": 11}, True),
            ("active", [ev(11, C)]),
        ],
        out=[11],
        position=11,
        active=[11],
    ),
    Case(
        "offer, then a reconnect before the copy: the replayed copy is still skipped",
        [
            ("sub", {"seq": 10}, False),
            ("offer", ev(12, C)),
            ("drop",),
            ("since", 10),
            ("sub", {"seq": 12}, False),
            ("alert", ev(11, A)),
            ("alert", ev(12, C)),
            ("alert", ev(13, B)),
        ],
        out=[12, 11, 13],
        position=13,
        start=10,
        active=[11, 12, 13],
    ),
    Case(
        "the channel's copy of an offered event moves the position (no duplicate on resume)",
        [
            ("sub", {"seq": 10}, False),
            ("offer", ev(11, C)),
            ("alert", ev(11, C)),
            ("drop",),
            ("since", 11),
            ("sub", {"seq": 11}, False),
            ("alert", ev(11, C)),
        ],
        out=[11],
        position=11,
        start=10,
        active=[11],
    ),
    Case(
        "an offered event older than an event of the same id changes nothing in `active`",
        [
            ("sub", {"seq": 10}, False),
            ("offer", ev(12, C)),
            ("alert", ev(11, C, "cleared")),
            ("alert", ev(12, C)),
        ],
        out=[12, 11],
        position=12,
        start=10,
        active=[12],
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
