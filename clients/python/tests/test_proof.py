"""The proof: exactly once, in seq order, across crashes, gaps, overflows and app restarts.

Every check compares what reached the client with what labeld's journal holds
(``alerts(seq, id, state, time, json)`` in STATE_DIR/labeld.db).
"""

from __future__ import annotations

import functools
import json
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers import (
    ZPL,
    Background,
    Bridge,
    Relay,
    Toggler,
    journal,
    seqs,
    take,
    take_until,
    wait_for,
)

from labeld_client import (
    Alert,
    AsyncClient,
    Client,
    ClientError,
    Gap,
    Job,
    ProductInput,
    SaveFailed,
)
from labeld_client.aio import AsyncAlertStream
from labeld_client.alerts import ResumeFileError
from labeld_client.client import AlertStream
from labeld_client.pytest_plugin import LabeldInstance


def conflict(client: Any, sku: str) -> Alert:
    """A saveError (conflict) for ``sku``: the alert the failed save raised."""
    try:
        client.save_product(ProductInput(sku=sku, name=sku), expected_version=999)
    except SaveFailed as e:
        assert e.alert is not None
        return e.alert
    raise AssertionError("the save did not fail")


def check_against_journal(items: list[Alert | Gap], labeld: LabeldInstance, above: int) -> list[int]:
    """Every journaled event above ``above`` was delivered exactly once, in seq order,
    with the journal's id and state; nothing else was."""
    assert labeld.db_path is not None
    rows = journal(labeld.db_path, above)
    got = [i for i in items if isinstance(i, Alert) and i.seq > above]
    got_seqs = [a.seq for a in got]
    assert got_seqs == sorted(set(got_seqs)), "not in increasing seq order, or delivered twice"
    missing = sorted({r[0] for r in rows} - set(got_seqs))
    extra = sorted(set(got_seqs) - {r[0] for r in rows})
    assert not missing, f"journaled but never delivered: {missing[:20]} ({len(missing)})"
    assert not extra, f"delivered but not in the journal: {extra[:20]} ({len(extra)})"
    by_seq = {a.seq: a for a in got}
    for seq, alert_id, state in rows:
        assert (by_seq[seq].id, by_seq[seq].state) == (alert_id, state), f"seq {seq}"
    return got_seqs


# --- (a) kill -9 and restart mid-stream --------------------------------------------------


@pytest.mark.labeld_args("--alert-retention", "1000000")
def test_a_exactly_once_across_kill9_restarts(labeld: LabeldInstance) -> None:
    seed = int(os.environ.get("LABELD_CHAOS_SEED") or random.randrange(1 << 32))
    print(f"chaos seed {seed} (LABELD_CHAOS_SEED={seed} replays this schedule)")
    rng = random.Random(seed)
    kills = int(os.environ.get("LABELD_CHAOS_KILLS", "8"))

    # two streams from the start of the journal: the blocking kit's and the asyncio kit's
    sync_client = labeld.client(timeout=5)
    bridge = Bridge(lambda: labeld.async_client(timeout=5))
    streams: dict[str, Any] = {
        "sync": sync_client.alerts(since=0),
        "async": bridge.alerts(since=0),
    }
    got: dict[str, list[Alert | Gap]] = {k: [] for k in streams}
    stop_raising = threading.Event()
    stop_consuming = threading.Event()

    def consume(name: str) -> None:
        stream = streams[name]
        while not stop_consuming.is_set():
            item = stream.next(timeout=0.2)
            if item is not None:
                got[name].append(item)

    raised = [0]

    def raise_alerts() -> None:
        # a client of its own that reconnects after each crash
        raiser = Client(labeld.socket_path, timeout=2)
        toggler = Toggler(raiser)
        i = 0
        while not stop_raising.is_set():
            i += 1
            try:
                if i % 7 == 0:
                    conflict(raiser, f"SKU-{i % 5}")
                else:
                    toggler.step()
                raised[0] += 1
            except ClientError:
                toggler.state = {p: None for p in toggler.state}  # a restart clears faults
                time.sleep(0.01)
        raiser.close()

    consumers = [Background(functools.partial(consume, n), f"consume-{n}") for n in streams]
    raiser_thread = Background(raise_alerts, "raise")
    for w in [*consumers, raiser_thread]:
        w.start()
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.05, 0.35))
            labeld.kill()
            time.sleep(rng.uniform(0.0, 0.15))
            labeld.start()
        time.sleep(rng.uniform(0.05, 0.35))
        stop_raising.set()
        raiser_thread.finish(30)
        assert labeld.db_path is not None
        last = journal(labeld.db_path)[-1][0]
        for name in streams:
            wait_for(
                f"the {name} stream to reach seq {last}",
                functools.partial(lambda n: max(seqs(got[n]), default=0) >= last, name),
                timeout=30,
            )
        time.sleep(0.3)  # anything (wrongly) after the journal's end would show up now
        stop_consuming.set()
        for w in consumers:
            w.finish(30)
    finally:
        stop_raising.set()
        stop_consuming.set()
        for w in [*consumers, raiser_thread]:
            w.join(10)
        for s in streams.values():
            s.close()
        bridge.close()

    assert raised[0] > 50, f"only {raised[0]} alerts raised"
    for name, items in got.items():
        gaps = [i for i in items if isinstance(i, Gap)]
        assert not gaps, f"{name}: labeld reported a gap with a retention of 1,000,000: {gaps}"
        delivered = check_against_journal(items, labeld, 0)
        print(
            f"{name}: {len(delivered)} events exactly once over {kills} kill -9s "
            f"({streams[name].connects} connections); seed {seed}"
        )


# --- (b) a reply-borne save failure ---------------------------------------------------------


@pytest.fixture
def small_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams read only a few items ahead of their consumer."""
    monkeypatch.setattr(AlertStream, "max_ready", 8)
    monkeypatch.setattr(AsyncAlertStream, "max_ready", 8)


def test_b_save_failure_delivered_once_and_raised(
    kit: Any, labeld: LabeldInstance, small_ready: None
) -> None:
    # a backlog the stream replays slowly (it reads 8 items ahead), so that the channel's
    # copy of the failure comes long after the reply: the offer must hand it out at once
    admin = labeld.client()
    Toggler(admin).run(400)
    kit.save_product(ProductInput(sku="PEN-HB-12", name="Pencil"))
    stream = kit.alerts(since=0)
    try:
        first = take(stream, 1)
        with pytest.raises(SaveFailed) as e:
            kit.save_product(ProductInput(sku="PEN-HB-12", name="stale"), expected_version=7)
        failed = e.value.alert
        assert failed is not None and failed.reason == "conflict"
        everything = {r[0] for r in journal(labeld.db_path or "")}
        assert failed.seq in everything
        items = first + take_until(stream, lambda got: everything <= set(seqs(first + got)), timeout=20)
        assert stream.next(timeout=0.3) is None  # nothing more
    finally:
        stream.close()
    assert seqs(items).count(failed.seq) == 1, "the failure is delivered exactly once"
    position = seqs(items).index(failed.seq)
    assert position < len(items) - 1 and seqs(items)[position + 1] < failed.seq, (
        "handed out at once (ahead of the backlog), not when its channel copy came"
    )
    # apart from the early copy, the stream is the journal, in order
    rest = [i for i in items if not (isinstance(i, Alert) and i.seq == failed.seq)]
    assert seqs(rest) == sorted(seqs(rest))
    delivered = set(seqs(items))
    assert delivered == {r[0] for r in journal(labeld.db_path or "")}


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_b_offer_before_the_stream_is_live(labeld: LabeldInstance, flavour: str) -> None:
    """A failed save answered while a brand-new stream still waits for labeld's answer to
    its subscribe (held by a relay): an alert cleared before the stream's start is never
    handed out, since its clearing would never follow; one still active comes once, from
    the snapshot, and its clearing follows."""
    admin = labeld.client()
    admin.save_product(ProductInput(sku="EDIT", name="v1"))
    relay = Relay(labeld.socket_path)
    kit: Any = (
        Client(relay.path, timeout=10)
        if flavour == "sync"
        else Bridge(lambda: AsyncClient(relay.path, timeout=10))
    )
    try:
        # the alert is cleared before the stream starts
        relay.arm()
        stream = kit.alerts()
        try:
            assert relay.held.wait(10), "the stream's subscribe never came"
            gone = conflict(kit, "EDIT")
            admin.save_product(ProductInput(sku="EDIT", name="v2"), expected_version=1)  # clears it
            relay.release()
            admin.simulate("sim:zebra", "mediaEmpty")  # something the stream must show
            items = take_until(
                stream, lambda got: any(isinstance(i, Alert) and i.kind == "printerError" for i in got)
            )
            assert [(i.id, i.state) for i in items if isinstance(i, Alert)] == [
                ("printerError:sim:zebra", "active")
            ], f"the failed save ({gone.seq}) was handed out: {items}"
            assert stream.next(timeout=0.3) is None  # nothing more
        finally:
            stream.close()

        # the alert is still active when the stream starts
        relay.arm()
        stream = kit.alerts()
        try:
            assert relay.held.wait(10), "the stream's subscribe never came"
            kept = conflict(kit, "EDIT")
            relay.release()
            items = take_until(stream, lambda got: kept.seq in seqs(got))
            admin.save_product(ProductInput(sku="EDIT", name="v3"), expected_version=2)  # clears it
            items += take_until(
                stream, lambda got: any(isinstance(i, Alert) and i.id == kept.id for i in got)
            )
            assert stream.next(timeout=0.3) is None  # nothing more
        finally:
            stream.close()
        assert [(i.id, i.state) for i in items if isinstance(i, Alert)] == [
            ("printerError:sim:zebra", "active"),  # the snapshot, in seq order
            (kept.id, "active"),
            (kept.id, "cleared"),
        ], items
        assert seqs(items).count(kept.seq) == 1
    finally:
        kit.close()
        relay.close()


def test_b_live_save_failure_once(kit: Any, labeld: LabeldInstance) -> None:
    """The common case: a live stream, an Edit sheet's stale save; also a failure the
    stream has already delivered is not handed out again. A printer error and a save
    error on the one channel, each once, in seq order."""
    stream = kit.alerts()
    try:
        admin = labeld.client()
        admin.simulate("sim:zebra", "mediaEmpty")
        items = take(stream, 1)
        kit.save_product(ProductInput(sku="A", name="a"))
        with pytest.raises(SaveFailed) as e:
            kit.save_product(ProductInput(sku="A", name="b"), expected_version=5)
        assert e.value.alert is not None
        admin.simulate("sim:zebra", None)  # a later event: the stream is past the failure
        items += take_until(stream, lambda got: any(i.state == "cleared" for i in got if isinstance(i, Alert)))
        assert seqs(items).count(e.value.alert.seq) == 1
        assert stream.next(timeout=0.3) is None  # nothing more
    finally:
        stream.close()
    assert [(a.id, a.state) for a in items if isinstance(a, Alert)] == [
        ("printerError:sim:zebra", "active"),
        ("saveError:product:A", "active"),
        ("printerError:sim:zebra", "cleared"),
    ]
    assert seqs(items) == sorted(seqs(items))


# --- (c) gap after retention ----------------------------------------------------------------


@contextmanager
def socket_moved(labeld: LabeldInstance) -> Iterator[str]:
    """Restart labeld (kill -9) on another socket path (and web port), so that clients of
    the usual ones cannot reach it meanwhile; back on them afterwards (kill -9 again)."""
    usual = labeld.socket_path
    other = os.path.join(os.path.dirname(usual), "other")
    i = labeld.args.index("--socket")
    # its web endpoint, if any, moves too: to a port the kernel picks
    w = labeld.args.index("--listen-http") + 1 if "--listen-http" in labeld.args else None
    usual_web = labeld.args[w] if w is not None else ""
    labeld.kill()
    labeld.args[i + 1] = labeld.socket_path = other
    if w is not None:
        labeld.args[w] = "127.0.0.1:0"
    labeld.start()
    try:
        yield other
    finally:
        labeld.kill()
        labeld.args[i + 1] = labeld.socket_path = usual
        if w is not None:
            labeld.args[w] = usual_web
        labeld.start()


@pytest.mark.labeld_args("--alert-retention", "5")
def test_c_gap_after_retention(kit: Any, labeld: LabeldInstance) -> None:
    stream = kit.alerts()
    try:
        x = conflict(kit, "X")  # will end while the stream is away
        y = conflict(kit, "Y")  # stays active
        items = take_until(stream, lambda got: {x.seq, y.seq} <= set(seqs(got)))
        # (both were offered by the failed saves: wait until the stream itself is there)
        wait_for("the stream to be live", lambda: (stream.position or 0) >= y.seq)
        position = max(seqs(items))
        with socket_moved(labeld) as other:
            away = Client(other, timeout=10)
            away.save_product(ProductInput(sku="X", name="X"))  # clears saveError:product:X
            zs = [conflict(away, f"Z{n}") for n in range(6)]  # pushes it out of retention
            away.close()

        after = take_until(stream, lambda got: {z.seq for z in zs} <= set(seqs(got)), timeout=20)
        gap = after[0]
        assert isinstance(gap, Gap), after
        assert gap.after == position and gap.seq >= max(z.seq for z in zs)
        assert [a.id for a in gap.ended] == ["saveError:product:X"]
        assert gap.ended[0].seq == x.seq and gap.ended[0].state == "active"
        # the still-active alerts follow the gap: each Z once; Y was delivered already
        assert sorted(seqs(after[1:])) == sorted(z.seq for z in zs)
        assert all(isinstance(i, Alert) and i.state == "active" for i in after[1:])
        assert stream.next(timeout=0.3) is None  # nothing more
    finally:
        stream.close()
    active = {a.id for a in kit.active_alerts()}
    assert active == {"saveError:product:Y"} | {f"saveError:product:Z{n}" for n in range(6)}


# --- (d) overflow of a slow consumer -------------------------------------------------------


@pytest.mark.labeld_args("--max-queued-messages", "16", "--alert-retention", "100000")
def test_d_overflow_of_a_slow_consumer(
    kit: Any, labeld: LabeldInstance, small_ready: None, transport: str
) -> None:
    if transport != "unix":
        # Loopback TCP buffers megabytes between labeld's queue and the stream: thousands
        # of alerts before labeld's 16 queued messages fill. What an overflow does to a
        # stream (StreamCore, Overflow) is the same on every transport.
        pytest.skip("labeld's overflow is reached in bounded time over the Unix socket only")
    admin = labeld.client()
    toggler = Toggler(admin)
    stream = kit.alerts()
    try:
        toggler.step()
        start = take(stream, 1)
        above = start[0].seq - 1 if isinstance(start[0], Alert) else 0
        # the consumer does not iterate while many alerts are raised
        raised = 0
        log = labeld.log_path or ""

        def overflowed() -> bool:
            with open(log, "rb") as f:
                return b"overflowed" in f.read()

        while not overflowed():
            toggler.run(50)
            raised += 50
            assert raised < 5000, "labeld never overflowed the stream's connection"
        toggler.run(50)
        assert labeld.db_path is not None
        last = journal(labeld.db_path)[-1][0]
        items = start + take_until(stream, lambda got: max(seqs(got), default=0) >= last, timeout=30)
        assert stream.next(timeout=0.3) is None  # nothing more
        assert stream.overflows >= 1 and stream.connects >= 2
    finally:
        stream.close()
    assert not [i for i in items if isinstance(i, Gap)]
    delivered = check_against_journal(items, labeld, above)
    assert len(delivered) >= raised


# --- (e) a job that completes during a restart ----------------------------------------------


@pytest.mark.labeld_args("--simulate", "slow=zpl,speed=60")
def test_e_job_completed_during_restart(kit: Any, labeld: LabeldInstance) -> None:
    admin = labeld.client()
    job = kit.submit("sim:slow", copies=2, document=ZPL)  # one label a second
    updates = kit.job_updates(job.id, timeout=60)
    first = next(updates)  # the watcher is subscribed
    assert first.id == job.id and not first.terminal
    wait_for("the job to print", lambda: admin.job(job.id).state == "processing", timeout=10)
    with socket_moved(labeld) as other:
        # the watcher cannot reach this labeld: the job resumes and completes unseen
        away = Client(other, timeout=10)

        def ended() -> Job | None:
            j: Job = away.job(job.id)
            return j if j.terminal else None

        done = wait_for("the job to complete", ended, timeout=20)
        away.close()
        assert done.state == "completed"
    rest = list(updates)
    assert rest[-1].state == "completed" and rest[-1].printed == 2
    assert kit.wait_job(job.id, timeout=10).state == "completed"
    out = labeld.sim_output("slow", job.id)
    assert out is not None and out.count(ZPL) >= 2  # a resent copy after a crash is allowed


def test_e_wait_job_across_a_plain_restart(kit: Any, labeld: LabeldInstance) -> None:
    admin = labeld.client()
    admin.simulate("sim:zebra", "paused")
    job = kit.submit("sim:zebra", document=ZPL)
    waiter = Background(lambda: kit.wait_job(job.id, timeout=30), "wait_job")
    waiter.start()
    labeld.restart()  # kill -9; sim faults are gone after a start: the job prints
    done = waiter.finish(40)
    assert (done.id, done.state, done.printed) == (job.id, "completed", 1)
    assert labeld.sim_output("zebra", job.id) == ZPL


# --- (f) a resume file across two iterator lifetimes ------------------------------------------


def test_f_resume_file_across_lifetimes(kit: Any, labeld: LabeldInstance, tmp_path: Any) -> None:
    path = tmp_path / "alerts.json"
    admin = labeld.client()
    toggler = Toggler(admin)
    before = [conflict(kit, "OLD-1"), conflict(kit, "OLD-2")]  # active before the app starts
    first = kit.alerts(resume_file=path)  # no file: a fresh start
    try:
        items1 = take_until(first, lambda got: {a.seq for a in before} <= set(seqs(got)))
        toggler.run(4)
        items1 += take(first, 4)
        # the last item is not handled until the consumer asks for another
        stored = json.loads(path.read_text())["seq"]
        assert stored == seqs(items1)[-2]
    finally:
        first.close()  # an orderly close: the last item counts as handled
    assert json.loads(path.read_text()) == {"seq": seqs(items1)[-1]}

    toggler.run(4)  # while the app is not running
    conflict(admin, "NEW-1")
    second = kit.alerts(resume_file=path)
    try:
        items2 = take(second, 5)
        assert second.next(timeout=0.3) is None  # nothing more
    finally:
        second.close()
    assert set(seqs(items1)).isdisjoint(seqs(items2)), "no event twice"
    assert not [i for i in items1 + items2 if isinstance(i, Gap)]
    # none missing: every event after the first stream's snapshot is in one lifetime or the other
    check_against_journal(items1 + items2, labeld, max(a.seq for a in before))
    assert json.loads(path.read_text()) == {"seq": seqs(items2)[-1]}

    # since= given explicitly wins over the file
    third = kit.alerts(since=seqs(items2)[-2], resume_file=path)
    try:
        assert seqs(take(third, 1)) == [seqs(items2)[-1]]
    finally:
        third.close(handled=False) if isinstance(third, AlertStream) else third.close()


def test_f_unreadable_resume_file_is_an_error(kit: Any, tmp_path: Any) -> None:
    path = tmp_path / "alerts.json"
    path.write_text("{not json")
    with pytest.raises(ResumeFileError):
        kit.alerts(resume_file=path)
    path.write_text('{"seq": "12"}')
    with pytest.raises(ResumeFileError):
        kit.alerts(resume_file=path)
    path.chmod(0)
    if os.geteuid() != 0:
        with pytest.raises(ResumeFileError):
            kit.alerts(resume_file=path)
