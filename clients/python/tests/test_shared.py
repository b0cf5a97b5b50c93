"""What Client and AsyncClient share, on its own (no daemon): the typed helpers' requests
and results, the retry policy, job sequences, the alert streams' core."""

from __future__ import annotations

import json
from typing import Any

import pytest

from labeld_client import (
    ENDS_STREAMS,
    Alert,
    ClientError,
    ConnectionLost,
    Gap,
    JobNotFound,
    ProtocolViolation,
    Unauthorized,
)
from labeld_client import _methods as m
from labeld_client._common import Eof, Overflow, Retry
from labeld_client._streams import StreamCore
from labeld_client.jobs import JobWatch

# --- typed helpers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "method", "params"),
    [
        (m.hello(None), "hello", None),
        (m.hello("x"), "hello", {"client": "x"}),
        (m.printers(), "printers.list", None),
        (m.simulate("sim:zebra", None), "printers.simulate", {"printer": "sim:zebra", "fault": None}),
        (m.products(None, None), "products.list", {}),
        (m.products(2, "B"), "products.list", {"limit": 2, "after": "B"}),
        (
            m.save_product({"sku": "A", "name": "a", "version": 3, "updatedAt": "t"}, 3, {"copies": 1}),
            "products.save",
            {"product": {"sku": "A", "name": "a"}, "expectedVersion": 3, "print": {"copies": 1}},
        ),
        (
            m.render("t", None, None, None, None, "png", None),
            "labels.render",
            {"template": "t", "format": "png"},
        ),
        (
            m.render("t", "S", {"k": "v"}, "p", "zpl", "native", 300),
            "labels.render",
            {"template": "t", "format": "native", "sku": "S", "data": {"k": "v"}, "printer": "p",
             "language": "zpl", "dpi": 300},
        ),  # fmt: skip
        (
            m.submit("p", 2, None, None, None, "^XA", "native"),
            "jobs.submit",
            {"printer": "p", "copies": 2, "document": {"format": "native", "data": "XlhB"}},
        ),
        (m.jobs(None, ["pending"], None, 5), "jobs.list", {"after": 5, "states": ["pending"]}),
        (m.dismiss("a"), "alerts.dismiss", {"id": "a"}),
    ],
)
def test_requests(call: m.Call[Any], method: str, params: dict[str, Any] | None) -> None:
    """Optional members the caller left out are not sent; a fault of None is (it clears)."""
    assert (call.method, call.params) == (method, params)


def test_results_name_the_method() -> None:
    with pytest.raises(ProtocolViolation, match="printers.refresh result has no 'printers'"):
        m.refresh_printers().result({})
    with pytest.raises(ProtocolViolation, match="templates.save result's template is not an object"):
        m.save_template({}).result({"template": []})
    with pytest.raises(ProtocolViolation, match="labels.render result's data is not base64"):
        m.render("t", None, None, None, None, "png", None).result({"data": "%%"})
    page = m.templates(None, None).result({"templates": [{"name": "a"}, "junk"], "next": True})
    assert (page.items, page.next) == ([{"name": "a"}], None)
    assert m.delete_product("A").result({"deleted": True}) is True
    assert m.dismiss("a").result({"dismissed": 1}) is False


# --- retrying a call -----------------------------------------------------------------------


def test_retry_policy() -> None:
    fresh = Retry("printers.simulate")
    fresh.not_sent("/s")  # nothing went out: once more, whatever the method
    with pytest.raises(ConnectionLost, match="printers.simulate"):
        fresh.not_sent("/s")
    with pytest.raises(ConnectionLost, match="may or may not have run"):
        Retry("printers.simulate").answer_lost("/s")  # it may have run: never again
    read = Retry("printers.list")
    read.answer_lost("/s")  # only reads: once more
    with pytest.raises(ConnectionLost):
        read.answer_lost("/s")


# --- job sequences ---------------------------------------------------------------------------

T = "2025-06-02T09:00:00Z"


def job(state: str, printed: int = 0, updated: str = T) -> dict[str, Any]:
    return {"id": 5, "printer": "sim:zebra", "state": state, "copies": 1, "printed": printed,
            "createdAt": T, "updatedAt": updated}  # fmt: skip


def test_job_watch() -> None:
    watch = JobWatch(5)
    assert json.loads(watch.subscribe()) == {
        "jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": {"topics": ["jobs"]}
    }  # fmt: skip
    assert watch.on_message({"method": "job", "params": job("pending")}) is None  # not subscribed yet
    get = watch.on_message({"id": 1, "result": {"seq": 0}})
    assert isinstance(get, bytes)
    assert json.loads(get) == {"jsonrpc": "2.0", "id": 2, "method": "jobs.get", "params": {"job": 5}}
    first = watch.on_message({"id": 2, "result": {"job": job("processing")}})
    assert first is not None and not isinstance(first, bytes) and first.state == "processing"
    assert watch.on_message({"method": "job", "params": job("processing")}) is None  # the same again
    assert watch.on_message({"method": "alert", "params": {}}) is None
    with pytest.raises(Overflow):
        watch.on_message({"method": "overflow"})
    # a new connection: the subscribe again, then jobs.get catches up
    watch.subscribe()
    assert isinstance(watch.on_message({"id": 1, "result": {}}), bytes)
    done = watch.on_message({"id": 2, "result": {"job": job("completed", 1, "2025-06-02T09:00:01Z")}})
    assert done is not None and not isinstance(done, bytes) and done.terminal and watch.done


def test_job_watch_unknown_job_is_an_answer() -> None:
    watch = JobWatch(5)
    watch.subscribe()
    watch.on_message({"id": 1, "result": {}})
    with pytest.raises(JobNotFound):
        watch.on_message({"id": 2, "error": {"code": 1003, "message": "no job 5", "data": {"job": 5}}})


# --- the alert streams' core -------------------------------------------------------------------


def alert(seq: int, state: str = "active") -> dict[str, Any]:
    return {"seq": seq, "id": "printerError:sim:zebra", "kind": "printerError", "state": state, "time": T}


def test_stream_core(tmp_path: Any) -> None:
    calls: list[str] = []
    path = tmp_path / "pos.json"
    core = StreamCore(None, path, wake=lambda: calls.append("wake"), room=lambda: calls.append("room"))
    assert json.loads(core.subscribe())["params"] == {"topics": ["alerts"]} and core.answer_due
    active = core.on_message({"id": 1, "result": {"seq": 4}})  # a fresh start: the snapshot next
    assert active is not None and json.loads(active)["method"] == "alerts.active"
    assert core.on_message({"id": 2, "result": {"alerts": [alert(3)]}}) is None
    assert not core.answer_due and calls == ["wake"]
    core.on_message({"method": "alert", "params": alert(5, "cleared")})
    first = core.take()
    assert isinstance(first, Alert) and first.seq == 3 and not path.exists()  # not handled yet
    second = core.take()
    assert isinstance(second, Alert) and second.seq == 5  # asking again: 3 handled, and 4 (a mark)
    assert json.loads(path.read_text()) == {"seq": 4}
    assert core.take() is None and calls.count("room") == 3
    with pytest.raises(Overflow):
        core.on_message({"method": "overflow"})
    # a transport problem only reconnects; labeld's refusal and a bug are told to the consumer
    core.disconnected(Eof())
    assert core.error is None
    core.disconnected(KeyError("x"))
    with pytest.raises(ClientError, match="the alert stream failed"):
        core.take()
    assert core.close(handled=True) and not core.close(handled=True)
    assert json.loads(path.read_text()) == {"seq": 5}


def test_stream_core_gap_after_reconnect() -> None:
    core = StreamCore(10, None, wake=lambda: None, room=lambda: None)
    assert json.loads(core.subscribe())["params"] == {"topics": ["alerts"], "since": 10}
    assert core.on_message({"id": 1, "result": {"seq": 40, "gap": True}}) is not None
    core.on_message({"id": 2, "result": {"alerts": []}})
    item = core.take()
    assert isinstance(item, Gap) and (item.after, item.seq) == (10, 40)
    assert core.sync.position == 40


def test_stream_core_refused_subscribe_is_raised() -> None:
    core = StreamCore(None, None, wake=lambda: None, room=lambda: None)
    core.subscribe()
    with pytest.raises(ProtocolViolation):
        core.on_message({"id": 1, "result": "nope"})
    error = {"code": 1005, "message": "not permitted", "data": {"uid": 7}}
    core.subscribe()
    with pytest.raises(ClientError) as e:
        core.on_message({"id": 1, "error": error})
    core.disconnected(e.value)
    with pytest.raises(ClientError, match="not permitted"):
        core.take()


def test_stream_core_ends_with_what_a_retry_cannot_mend() -> None:
    """ENDS_STREAMS ends the stream: the items read before it first, then the error, again
    each time it is asked (not a StopIteration: the app must see why); once the app closes
    the stream, it ends plainly. Anything else that stops a reader ends it the same way,
    wrapped in a ClientError that keeps the cause."""
    wakes: list[str] = []
    core = StreamCore(None, None, wake=lambda: wakes.append("wake"), room=lambda: None)
    core.subscribe()
    core.on_message({"id": 1, "result": {"seq": 4}})
    core.on_message({"id": 2, "result": {"alerts": [alert(3)]}})
    refused = Unauthorized("refused", url="wss://x/v1/ws", status=401)
    core.disconnected(refused)
    assert core.failure is refused and core.ended and not core.closed
    first = core.take()
    assert isinstance(first, Alert) and first.seq == 3
    for _ in range(2):
        with pytest.raises(Unauthorized):
            core.take()
    core.fail(ProtocolViolation("later"))  # the first failure stays the one
    assert core.failure is refused
    core.close(handled=True)
    assert core.take() is None

    for final in ENDS_STREAMS:
        assert issubclass(final, ClientError)
    bug = StreamCore(None, None, wake=lambda: None, room=lambda: None)
    bug.fail(RuntimeError("a bug"))
    with pytest.raises(ClientError, match="reader stopped") as e:
        bug.take()
    assert isinstance(e.value.__cause__, RuntimeError)
    # a protocol violation on the connection ends it; a transport problem never does
    violated = StreamCore(None, None, wake=lambda: None, room=lambda: None)
    violated.disconnected(Eof())
    violated.disconnected(ConnectionLost("x"))
    assert violated.failure is None
    violated.disconnected(ProtocolViolation("not JSON"))
    with pytest.raises(ProtocolViolation):
        violated.take()
