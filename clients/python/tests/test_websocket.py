"""The blocking Client over labeld's web endpoint (ws:// on loopback): the same calls,
errors and alert stream as on the Unix socket, and a token refused at once."""

from __future__ import annotations

import re
import socket
import time

import pytest

from labeld_client import Alert, Client, ClientError, NotPermitted
from labeld_client.pytest_plugin import LabeldInstance


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PORT = _free_port()
pytestmark = pytest.mark.labeld_args("--listen-http", f"127.0.0.1:{PORT}")


def _url(labeld: LabeldInstance) -> str:
    # The endpoint starts just after the socket answers: wait for its log line.
    deadline = time.monotonic() + 30
    while not re.search(r"web endpoint on http://127\.0\.0\.1:(\d+)", labeld.log_tail(500)):
        assert time.monotonic() < deadline, labeld.log_tail()
        time.sleep(0.02)
    return f"ws://127.0.0.1:{PORT}/v1/ws"


def _token(labeld: LabeldInstance, name: str, role: str) -> str:
    admin = labeld.client()
    try:
        return str(admin.call("tokens.create", name=name, role=role)["secret"])
    finally:
        admin.close()


def test_calls_and_errors_over_a_websocket(labeld: LabeldInstance) -> None:
    url = _url(labeld)
    with Client(url, token=_token(labeld, "py", "viewer"), timeout=30) as c:
        assert c.hello().server == "labeld"
        assert {p.id for p in c.printers()} == {p.id for p in labeld.printers()}
        with pytest.raises(NotPermitted):
            c.call("alerts.dismiss", id="printerError:nothing")


def test_alert_stream_over_a_websocket(labeld: LabeldInstance) -> None:
    url = _url(labeld)
    printer = labeld.printers()[0].id
    with Client(url, token=_token(labeld, "py-alerts", "operator"), timeout=30) as c:
        with c.alerts() as stream:
            labeld.simulate(printer, "coverOpen")
            item = stream.next(timeout=30)
            assert isinstance(item, Alert)
            assert item.printer == printer and item.reason == "coverOpen"


def test_a_wrong_token_is_refused(labeld: LabeldInstance) -> None:
    url = _url(labeld)
    with pytest.raises(ClientError, match="refused the token"):
        Client(url, token="ldt_wrong", timeout=10).hello()


def test_a_url_needs_a_token() -> None:
    with pytest.raises(ClientError, match="token="):
        Client("ws://127.0.0.1:1/v1/ws")
