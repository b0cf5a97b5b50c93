"""Client and AsyncClient over labeld's web endpoint (ws:// on loopback): the same calls,
errors, alert stream and job progress as on the Unix socket, and a token refused at once.
(wss:// with a pinned certificate: Tests/Web/test_endpoint.py.)"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from helpers import ZPL, Bridge

from labeld_client import Alert, AsyncClient, Client, ClientError, NotPermitted, Unreachable
from labeld_client.pytest_plugin import LabeldInstance


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PORT = _free_port()
pytestmark = pytest.mark.labeld_args("--listen-http", f"127.0.0.1:{PORT}")

Maker = Callable[..., Any]


def _url(labeld: LabeldInstance, starts: int = 1) -> str:
    # The endpoint starts just after the socket answers: wait for its log line (the
    # ``starts``-th, after restarts).
    deadline = time.monotonic() + 30
    pattern = r"web endpoint on http://127\.0\.0\.1:(\d+)"
    while len(re.findall(pattern, labeld.log_tail(100_000))) < starts:
        assert time.monotonic() < deadline, labeld.log_tail()
        time.sleep(0.02)
    return f"ws://127.0.0.1:{PORT}/v1/ws"


def _token(labeld: LabeldInstance, name: str, role: str) -> str:
    admin = labeld.client()
    try:
        return str(admin.call("tokens.create", name=name, role=role)["secret"])
    finally:
        admin.close()


@pytest.fixture(params=["sync", "async"])
def remote(request: pytest.FixtureRequest) -> Iterator[Maker]:
    """Makes a Client, or an AsyncClient through a Bridge, for a URL and a token; closes
    them all afterwards."""
    made: list[Any] = []

    def make(url: str, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", 30)
        if request.param == "sync":
            client: Any = Client(url, **kwargs)
        else:
            client = Bridge(lambda: AsyncClient(url, **kwargs))
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def test_calls_and_errors_over_a_websocket(labeld: LabeldInstance, remote: Maker) -> None:
    c = remote(_url(labeld), token=_token(labeld, "py", "viewer"))
    assert c.hello().server == "labeld"
    assert {p.id for p in c.printers()} == {p.id for p in labeld.printers()}
    with pytest.raises(NotPermitted):
        c.call("alerts.dismiss", id="printerError:nothing")
    # The connection is still good after a refusal.
    assert c.printer("sim:zebra").id == "sim:zebra"


def test_alert_stream_over_a_websocket(labeld: LabeldInstance, remote: Maker) -> None:
    c = remote(_url(labeld), token=_token(labeld, "py-alerts", "operator"))
    printer = labeld.printers()[0].id
    stream = c.alerts()
    try:
        labeld.simulate(printer, "coverOpen")
        item = stream.next(timeout=30)
        assert isinstance(item, Alert)
        assert item.printer == printer and item.reason == "coverOpen"
    finally:
        stream.close()


def test_a_job_printed_over_a_websocket(labeld: LabeldInstance, remote: Maker) -> None:
    c = remote(_url(labeld), token=_token(labeld, "py-jobs", "operator"))
    job = c.submit("sim:zebra", document=ZPL)
    done = c.wait_job(job.id, timeout=30)
    assert done.state == "completed" and done.printed == 1


def test_across_a_restart_over_a_websocket(labeld: LabeldInstance, remote: Maker) -> None:
    """labeld killed and started again: the next call reconnects, and the alert stream
    goes on where it was, nothing handed out twice."""
    c = remote(_url(labeld), token=_token(labeld, "py-restart", "admin"))
    stream = c.alerts()
    try:
        labeld.simulate("sim:zebra", "coverOpen")
        first = stream.next(timeout=30)
        assert isinstance(first, Alert) and first.reason == "coverOpen"
        labeld.restart()
        _url(labeld, starts=2)
        assert c.simulate("sim:zebra", "mediaEmpty").reasons == ["mediaEmpty"]
        seen = [first]
        while not any(isinstance(a, Alert) and a.reason == "mediaEmpty" for a in seen):
            seen.append(stream.next(timeout=30))
        seqs = [a.seq for a in seen if isinstance(a, Alert)]
        assert seqs == sorted(set(seqs)), seqs  # in order, none twice
    finally:
        stream.close()


def test_a_wrong_token_is_refused(labeld: LabeldInstance, remote: Maker) -> None:
    c = remote(_url(labeld), token="ldt_wrong", timeout=10)
    with pytest.raises(ClientError, match="refused the token"):
        c.hello()


def test_nothing_listening_is_unreachable(remote: Maker) -> None:
    c = remote(f"ws://127.0.0.1:{_free_port()}/v1/ws", token="ldt_any", timeout=10)
    with pytest.raises(Unreachable):
        c.hello()


@pytest.mark.parametrize("kind", [Client, AsyncClient])
def test_a_url_needs_a_token(kind: Callable[..., Any]) -> None:
    with pytest.raises(ClientError, match="token="):
        kind("ws://127.0.0.1:1/v1/ws")
