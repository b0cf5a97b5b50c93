"""Pure pieces: socket discovery, framing, parsing, job progress, resume file, back-off."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from labeld_client import Alert, Job, Printer, Product, ProtocolViolation, ResumeFileError
from labeld_client._wire import (
    MAX_LINE,
    Backoff,
    READ_ONLY_METHODS,
    SYSTEM_SOCKET,
    LineBuffer,
    client_socket_candidates,
    decode_message,
    default_socket_path,
    encode_request,
    is_read_only,
    resolve_socket,
)
from labeld_client.alerts import load_resume_file, store_resume_file
from labeld_client.jobs import JobProgress

# --- discovery ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "uid", "expected"),
    [
        ({"LABELD_SOCKET": "/x/l.sock", "RUNTIME_DIRECTORY": "/r"}, 1000, "/x/l.sock"),
        ({"RUNTIME_DIRECTORY": "/run/a:/run/b", "XDG_RUNTIME_DIR": "/u"}, 1000, "/run/a/labeld.sock"),
        ({"XDG_RUNTIME_DIR": "/run/user/1000"}, 0, "/run/labeld/labeld.sock"),
        ({"XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/run/user/1000/labeld.sock"),
        ({}, 1000, "/tmp/labeld-1000/labeld.sock"),
        ({"LABELD_SOCKET": "", "XDG_RUNTIME_DIR": ""}, 1234, "/tmp/labeld-1234/labeld.sock"),
    ],
)
def test_socket_discovery(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], uid: int, expected: str) -> None:
    for var in ("LABELD_SOCKET", "RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(os, "getuid", lambda: uid)
    assert default_socket_path() == expected


def test_resolve_follows_the_protocols_order() -> None:
    """The Swift kit's SocketPathTests.resolve_followsTheProtocolsOrder, case for case."""
    assert resolve_socket("/x.sock", {"LABELD_SOCKET": "/e"}, 7) == "/x.sock"
    assert resolve_socket(None, {"LABELD_SOCKET": "/e"}, 7) == "/e"
    assert resolve_socket(None, {"RUNTIME_DIRECTORY": "/run/a:/run/b"}, 7) == "/run/a/labeld.sock"
    assert resolve_socket(None, {}, 0) == "/run/labeld/labeld.sock"
    assert resolve_socket(None, {"XDG_RUNTIME_DIR": "/run/user/7"}, 7) == "/run/user/7/labeld.sock"
    assert resolve_socket(None, {}, 7) == "/tmp/labeld-7/labeld.sock"
    assert resolve_socket("", {"LABELD_SOCKET": ""}, 7) == "/tmp/labeld-7/labeld.sock"  # empty: not set


def test_clients_fall_back_to_the_system_service_unless_a_path_was_named() -> None:
    """The Swift kit's SocketPathTests.clients_fallBackToTheSystemService_unlessAPathWasNamed."""
    assert SYSTEM_SOCKET == "/run/labeld/labeld.sock"
    assert client_socket_candidates(None, {"XDG_RUNTIME_DIR": "/run/user/7"}, 7) == [
        "/run/user/7/labeld.sock",
        "/run/labeld/labeld.sock",
    ]
    assert client_socket_candidates(None, {}, 0) == ["/run/labeld/labeld.sock"]  # no duplicate
    assert client_socket_candidates("/x.sock", {}, 7) == ["/x.sock"]
    assert client_socket_candidates(None, {"LABELD_SOCKET": "/e"}, 7) == ["/e"]
    assert client_socket_candidates(None, {"RUNTIME_DIRECTORY": "/run/labeld"}, 7) == [
        "/run/labeld/labeld.sock"
    ]
    # and what an empty value means: not named
    assert client_socket_candidates(None, {"LABELD_SOCKET": ""}, 7) == [
        "/tmp/labeld-7/labeld.sock",
        "/run/labeld/labeld.sock",
    ]


def test_explicit_path_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    from labeld_client import AsyncClient, Client

    monkeypatch.setenv("LABELD_SOCKET", "/from/env.sock")
    assert Client("/explicit.sock").socket_path == "/explicit.sock"
    assert Client("/explicit.sock").socket_paths == ["/explicit.sock"]
    assert Client().socket_paths == ["/from/env.sock"]
    monkeypatch.delenv("LABELD_SOCKET")
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/4242")
    monkeypatch.setattr(os, "getuid", lambda: 4242)
    for c in (Client(), AsyncClient()):
        # the first candidate, before anything is connected
        assert c.socket_path == "/run/user/4242/labeld.sock"
        assert c.socket_paths == ["/run/user/4242/labeld.sock", "/run/labeld/labeld.sock"]


# --- framing -----------------------------------------------------------------------------


def test_requests_are_one_line_with_integer_ids() -> None:
    line = encode_request(7, "products.save", {"product": {"sku": "a\nb", "name": "Übung"}})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    msg = json.loads(line)
    assert msg == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "products.save",
        "params": {"product": {"sku": "a\nb", "name": "Übung"}},
    }
    assert "params" not in json.loads(encode_request(1, "hello", None))
    with pytest.raises(ValueError):
        encode_request(1, "x", {"price": float("nan")})


def test_line_buffer_splits_and_joins() -> None:
    buf = LineBuffer()
    buf.feed(b'{"a":1}\n{"b"')
    assert buf.next_line() == b'{"a":1}'
    assert buf.next_line() is None
    buf.feed(b":2}\n\n")
    assert buf.next_line() == b'{"b":2}'
    assert buf.next_line() == b""
    assert buf.next_line() is None and buf.pending == 0


def test_line_buffer_bounds_a_line() -> None:
    buf = LineBuffer(limit=10)
    buf.feed(b"0123456789")
    assert buf.next_line() is None
    buf.feed(b"x")
    with pytest.raises(ProtocolViolation):
        buf.next_line()
    buf2 = LineBuffer(limit=10)
    buf2.feed(b"0123456789012\n")
    with pytest.raises(ProtocolViolation):
        buf2.next_line()
    assert MAX_LINE == 64 * 1024 * 1024


def test_decode_message() -> None:
    assert decode_message(b'{"id":1,"result":{}}') == {"id": 1, "result": {}}
    for bad in (b"[]", b"nope", b'{"a":1} x', b"\xff"):
        with pytest.raises(ProtocolViolation):
            decode_message(bad)


def test_read_only_methods() -> None:
    """The Swift kit's LabeldClient.onlyReads, method for method (every protocol method is
    on one side); a method neither kit knows is not retried, whatever its name."""
    reads = [
        "hello", "printers.list", "printers.get", "products.get", "products.list",
        "templates.list", "templates.get", "labels.render", "jobs.get", "jobs.list",
        "alerts.active", "devices.list", "tokens.list",
    ]  # fmt: skip
    others = [
        "printers.refresh", "printers.simulate", "products.save", "products.delete",
        "templates.save", "jobs.submit", "jobs.cancel", "alerts.dismiss", "subscribe",
        "tokens.create", "tokens.revoke",
    ]  # fmt: skip
    assert READ_ONLY_METHODS == frozenset(reads)
    for m in reads:
        assert is_read_only(m), m
    for m in [*others, "widgets.get", "widgets.list", ""]:
        assert not is_read_only(m), m


def test_backoff() -> None:
    b = Backoff()
    delays = [b.next_delay() for _ in range(10)]
    bases = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0]
    for d, base in zip(delays, bases):
        assert base * 0.8 <= d <= base * 1.2
    b.reset()
    assert 0.04 <= b.next_delay() <= 0.06


# --- parsing -----------------------------------------------------------------------------


def test_lenient_parsing() -> None:
    p = Printer.from_json(
        {
            "id": "usb:04f9:209d:A1B2",
            "name": "ql",
            "transport": "usb",
            "model": "QL-820NWB",
            "language": "brother-ql",
            "dpi": 300,
            "state": "stopped",
            "reasons": ["coverOpen", "somethingNew"],
            "media": {"widthMM": 62, "lengthMM": 0, "kind": "continuous", "redBlack": True},
            "labelsRemaining": 12,
            "futureField": {"x": 1},
        }
    )
    assert p.reasons == ["coverOpen", "somethingNew"]  # unknown reasons kept as strings
    assert p.media is not None and p.media.red_black and p.labels_remaining == 12
    a = Alert.from_json(
        {
            "seq": 42,
            "id": "saveError:product:PEN",
            "kind": "saveError",
            "state": "active",
            "time": "2025-06-02T09:15:30Z",
            "message": "m",
            "entity": "product",
            "key": "PEN",
            "reason": "aNewReason",
            "expectedVersion": 2,
            "storedVersion": 3,
            "newField": True,
        }
    )
    assert a.time == datetime(2025, 6, 2, 9, 15, 30, tzinfo=timezone.utc)
    assert (a.reason, a.expected_version, a.stored_version) == ("aNewReason", 2, 3)
    with pytest.raises(ProtocolViolation):
        Alert.from_json({"id": "x", "state": "active", "time": "2025-06-02T09:15:30Z"})  # no seq
    with pytest.raises(ProtocolViolation):
        Alert.from_json({"seq": 1, "id": "x", "state": "active", "time": "yesterday"})
    prod = Product.from_json({"sku": "A", "name": "a", "version": 3, "fields": {"k": "v", "n": 1}})
    assert prod.fields == {"k": "v"} and prod.updated_at is None
    assert prod.to_json() == {"sku": "A", "name": "a", "fields": {"k": "v"}}


# --- job progress ------------------------------------------------------------------------

T = datetime(2025, 6, 2, 9, 0, tzinfo=timezone.utc)


def job(state: str, printed: int = 0, dt: int = 0, job_id: int = 5) -> Job:
    return Job(
        id=job_id,
        printer="sim:zebra",
        state=state,
        copies=3,
        printed=printed,
        created_at=T,
        updated_at=T + timedelta(seconds=dt),
    )


def test_job_progress_filters_repeats_going_back_and_after_the_end() -> None:
    p = JobProgress(5)
    feed = [
        job("pending"),
        job("pending"),  # the same again (jobs.get after a reconnect): not again
        job("processing", 0, 1),
        job("processing", 1, 1),  # same second, more printed: a change
        job("processing", 0, 1),  # same second, fewer printed: going back
        job("pending", 0, 0),  # older: ignored
        job("processing", 2, 2, job_id=6),  # another job
        job("completed", 3, 3),
        job("completed", 3, 4),  # nothing after a terminal state
    ]
    out: list[Any] = [(j.state, j.printed) for j in feed if p.accept(j)]
    assert out == [("pending", 0), ("processing", 0), ("processing", 1), ("completed", 3)]
    assert p.done


# --- resume file ---------------------------------------------------------------------------


def test_resume_file(tmp_path: Any) -> None:
    path = tmp_path / "pos.json"
    assert load_resume_file(path) is None  # missing: a fresh start
    store_resume_file(path, 42)
    assert json.loads(path.read_text()) == {"seq": 42}
    assert load_resume_file(path) == 42
    assert [p.name for p in tmp_path.iterdir()] == ["pos.json"]  # no temporary left behind
    for bad in ("", "{", "[]", '{"seq": -1}', '{"seq": 1.5}', '{"other": 1}', '{"seq": true}', '{"seq": null}'):
        path.write_text(bad)
        with pytest.raises(ResumeFileError):
            load_resume_file(path)


# --- the package's shape and its errors ----------------------------------------------------


def _imports(source: str, module: str) -> set[str]:
    """The kit's modules ``module`` imports (``from .x import``, ``from . import x``, also
    under TYPE_CHECKING and inside functions: a circle there is a circle all the same)."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module)
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("labeld_client."):
            found.add((node.module or "").split(".")[1])
    return found - {module}


def test_the_kit_imports_in_no_circle() -> None:
    """errors.py and models.py used to import each other; no module of the kit may import
    itself through others."""
    import labeld_client

    root = os.path.dirname(labeld_client.__file__)
    graph: dict[str, set[str]] = {}
    for name in os.listdir(root):
        if name.endswith(".py") and name != "__init__.py":
            with open(os.path.join(root, name)) as f:
                graph[name[:-3]] = _imports(f.read(), name[:-3]) & {n[:-3] for n in os.listdir(root)}
    assert "models" not in graph["_base"] and "errors" not in graph["models"]

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, set()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    circles = [m for m in graph if reaches(m, m, {m})]
    assert circles == [], f"import circles through {circles}"


def test_opening_failures_are_typed() -> None:
    """What a WebSocket handshake may end in, and what the kit makes of it: lasting
    (ENDS_STREAMS) or waited out (Unreachable)."""
    import ssl

    from websockets.datastructures import Headers
    from websockets.exceptions import InvalidMessage, InvalidStatus, NegotiationError
    from websockets.http11 import Response

    from labeld_client import CertificateRejected, TransportUnsupported, Unauthorized, Unreachable
    from labeld_client._websocket import opening_failed

    url = "wss://labels.local:8443/v1/ws"

    def status(code: int) -> Exception:
        return opening_failed(url, InvalidStatus(Response(code, "x", Headers())))

    refused = status(401)
    assert isinstance(refused, Unauthorized) and (refused.status, refused.url) == (401, url)
    assert isinstance(status(403), Unauthorized)
    for code in (400, 404, 426):
        assert isinstance(status(code), ProtocolViolation), code
    for code in (500, 503, 429):
        assert isinstance(status(code), Unreachable), code
    assert isinstance(opening_failed(url, NegotiationError("no subprotocol")), ProtocolViolation)
    eof = InvalidMessage("did not receive a valid HTTP response")
    eof.__cause__ = EOFError("connection closed while reading HTTP status line")
    assert isinstance(opening_failed(url, eof), Unreachable)  # labeld went away mid-handshake
    garbage = InvalidMessage("did not receive a valid HTTP response")
    garbage.__cause__ = ValueError("unsupported protocol; expected HTTP/1.1: SSH-2.0")
    assert isinstance(opening_failed(url, garbage), ProtocolViolation)
    untrusted = ssl.SSLCertVerificationError(1, "certificate verify failed: self-signed certificate")
    untrusted.verify_message = "self-signed certificate"
    rejected = opening_failed(url, untrusted)
    assert isinstance(rejected, CertificateRejected) and rejected.reason == "self-signed certificate"
    assert isinstance(opening_failed(url, ConnectionRefusedError(111, "refused")), Unreachable)
    unsupported = TransportUnsupported("x")
    assert opening_failed(url, unsupported) is unsupported


def test_a_websocket_closed_under_a_read() -> None:
    from websockets.exceptions import ConnectionClosedError, ConnectionClosedOK, ProtocolError
    from websockets.frames import Close

    from labeld_client._common import Eof
    from labeld_client._websocket import closed

    url = "ws://127.0.0.1:1/v1/ws"
    assert isinstance(closed(url, ConnectionClosedOK(Close(1000, ""), Close(1000, ""), True)), Eof)
    assert isinstance(closed(url, ConnectionClosedError(None, None)), Eof)  # labeld went away
    assert isinstance(closed(url, ConnectionClosedError(Close(1009, "too big"), None)), Eof)
    ours = closed(url, ConnectionClosedError(Close(1002, "reserved bits"), None))
    assert isinstance(ours, ProtocolViolation) and "1002" in str(ours)
    theirs = ConnectionClosedError(None, Close(1002, "bad frame"))
    theirs.__cause__ = ProtocolError("reserved bits must be 0")
    assert isinstance(closed(url, theirs), ProtocolViolation)


def test_every_error_class_is_in_the_docs_table() -> None:
    """docs/clients.md's error tables name every exception the kit exports (a new one
    without its row is a newcomer's surprise)."""
    import labeld_client

    docs = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "clients.md")
    if not os.path.exists(docs):
        pytest.skip("docs/clients.md is not beside this kit (an installed copy)")
    with open(docs) as f:
        text = f.read()
    section = text[text.index("## Errors") : text.index("## The one-alert recipe")]
    exported = [
        name for name in labeld_client.__all__
        if isinstance(getattr(labeld_client, name), type)
        and issubclass(getattr(labeld_client, name), Exception)
    ]  # fmt: skip
    missing = [name for name in exported if f"`{name}`" not in section]
    assert missing == [], f"not in clients.md's error tables: {missing}"
