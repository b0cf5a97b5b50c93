"""Client and AsyncClient over labeld's web endpoint, ws:// on loopback and wss:// with its
self-signed certificate pinned: what only a WebSocket has. (Every scenario of the kit —
calls, typed errors, alert streams, job progress — also runs over both: the ``kit``
fixture, conftest.py.)

What a retry cannot mend ends a stream, typed, and never leaves a consumer waiting: a
token refused at once or revoked while a stream runs (``Unauthorized``), a certificate
that is not the pinned one, refused before the token leaves (``CertificateRejected``),
an endpoint that breaks the protocol (``ProtocolViolation``), no WebSocket support
(``TransportUnsupported``). labeld killed three times over wss: every alert once, in
order."""

from __future__ import annotations

import functools
import hashlib
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from helpers import Background, Bridge, Toggler, WebEndpoint, free_port, journal, seqs, take, wait_for

from labeld_client import (
    Alert,
    AsyncClient,
    CertificateRejected,
    Client,
    ClientError,
    Gap,
    NotPermitted,
    ProductInput,
    ProtocolViolation,
    SaveFailed,
    TransportUnsupported,
    Unauthorized,
    Unreachable,
)
from labeld_client.pytest_plugin import LabeldInstance

Maker = Callable[..., Any]

#: How long a stream may take to end with the error it must end with: generous (a loaded
#: machine), and far below "for ever" (what a consumer waited before).
ENDS_WITHIN = 15.0


@pytest.fixture(params=["ws", "wss"])
def transport(request: pytest.FixtureRequest) -> str:
    """Over labeld's web endpoint only (this module's tests are about a WebSocket)."""
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _maker(flavour: str, default_url: str | None, fingerprint: str | None) -> tuple[Maker, list[Any]]:
    made: list[Any] = []

    def make(url: str | None = None, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", 30)
        if fingerprint is not None:
            kwargs.setdefault("fingerprint", fingerprint)
        where = url or default_url
        assert where is not None
        client: Any = (
            Client(where, **kwargs) if flavour == "sync" else Bridge(lambda: AsyncClient(where, **kwargs))
        )
        made.append(client)
        return client

    return make, made


@pytest.fixture
def make(flavour: str, web: WebEndpoint | None) -> Iterator[Maker]:
    """Makes a Client, or an AsyncClient through a Bridge, for the test's endpoint (its
    fingerprint pinned over wss) and a token; closes them all afterwards."""
    assert web is not None
    maker, made = _maker(flavour, web.url, web.fingerprint)
    yield maker
    for client in made:
        client.close()


@pytest.fixture
def make_anywhere(flavour: str) -> Iterator[Maker]:
    """As ``make``, for any URL (no labeld)."""
    maker, made = _maker(flavour, None, None)
    yield maker
    for client in made:
        client.close()


def _ended(stream: Any) -> bool:
    """Whether a stream's reader (thread or task) has stopped."""
    inner = getattr(stream, "stream", stream)  # a BridgeStream's AsyncAlertStream
    thread = getattr(inner, "_thread", None)
    if thread is not None:
        return not thread.is_alive()
    task = inner._task
    return task is None or task.done()


#: The bound for a stream whose token is revoked while it runs: labeld closes the token's
#: connections at once, over TLS too (it wakes libmicrohttpd's forwarding of the upgraded
#: connection, which otherwise noticed the close only at the client's next write).
REVOKED_ENDS_WITHIN = ENDS_WITHIN


def _loop_until_it_raises(
    stream: Any, within: float = ENDS_WITHIN
) -> tuple[list[Alert | Gap], BaseException | None]:
    """``for item in stream`` as an app writes it, in a thread bounded by ``within``
    seconds: a stream that hangs fails the test instead of hanging it."""
    items: list[Alert | Gap] = []

    def loop() -> None:
        for item in stream:
            items.append(item)

    worker = Background(loop, "for-item-in-stream")
    worker.start()
    try:
        worker.finish(within)
    except AssertionError:
        raise
    except BaseException as e:  # noqa: BLE001 - the test looks at it
        return items, e
    return items, None


# --- calls ----------------------------------------------------------------------------


def test_calls_and_errors_over_a_websocket(labeld: LabeldInstance, web: WebEndpoint, make: Maker) -> None:
    c = make(token=web.token("py", "viewer"))
    assert c.hello().server == "labeld"
    assert {p.id for p in c.printers()} == {p.id for p in labeld.printers()}
    with pytest.raises(NotPermitted) as e:
        c.call("alerts.dismiss", id="printerError:nothing")
    assert e.value.data.get("token") == "py"
    # The connection is still good after a refusal.
    assert c.printer("sim:zebra").id == "sim:zebra"


# --- a token refused -------------------------------------------------------------------


def test_a_token_never_valid_is_refused_typed(web: WebEndpoint, make: Maker) -> None:
    """Calls raise Unauthorized; job sequences and alert streams end with it at once; a
    plain ``for`` loop over the stream ends with it instead of hanging."""
    c = make(token="ldt_wrong", timeout=10)
    with pytest.raises(Unauthorized) as e:
        c.hello()
    assert (e.value.status, e.value.url) == (401, web.url)
    assert "refused the token" in str(e.value) and isinstance(e.value, ClientError)
    with pytest.raises(Unauthorized):
        c.wait_job(1, timeout=10)

    stream = c.alerts()
    try:
        items, error = _loop_until_it_raises(stream)
        assert items == [] and isinstance(error, Unauthorized), error
        assert stream.failure is error
        with pytest.raises(Unauthorized):  # ended: asked again, the same answer
            stream.next(timeout=5)
        wait_for("the stream's reader to stop", lambda: _ended(stream), timeout=5)
    finally:
        stream.close()


def test_a_revoked_token_ends_open_streams(labeld: LabeldInstance, web: WebEndpoint) -> None:
    """labeld closes a revoked token's connections; each stream's reconnect is refused and
    the stream ends with Unauthorized, within seconds: the items before it first. Calls
    raise it too. Both clients at once, on one token (one revocation, one wait)."""
    secret = web.token("doomed", "operator")
    sync_make, sync_made = _maker("sync", web.url, web.fingerprint)
    async_make, async_made = _maker("async", web.url, web.fingerprint)
    clients = {"sync": sync_make(token=secret), "async": async_make(token=secret)}
    streams = {name: c.alerts() for name, c in clients.items()}
    try:
        labeld.simulate("sim:zebra", "coverOpen")
        for stream in streams.values():
            first = take(stream, 1, timeout=30)  # the stream is live
            assert isinstance(first[0], Alert) and first[0].reason == "coverOpen"
        labeld.simulate("sim:zebra", None)
        cleared = first[0].seq + 1
        for stream in streams.values():
            wait_for("the clearing to be read", functools.partial(lambda s: s.position == cleared, stream))
        results: dict[str, tuple[list[Alert | Gap], BaseException | None]] = {}
        loops = [
            Background(functools.partial(lambda n: results.update({n: _loop_until_it_raises(streams[n], REVOKED_ENDS_WITHIN)}), name), f"loop-{name}")
            for name in streams
        ]  # fmt: skip
        web.revoke("doomed")
        for loop in loops:
            loop.start()
        for loop in loops:
            loop.finish(REVOKED_ENDS_WITHIN + 5)
        for name, stream in streams.items():
            items, error = results[name]
            assert isinstance(error, Unauthorized) and error.status == 401, (name, error)
            assert [(i.id, i.state) for i in items if isinstance(i, Alert)] == [("printerError:sim:zebra", "cleared")]
            assert isinstance(stream.last_error, Unauthorized) and stream.failure is error
            wait_for("the stream's reader to stop", functools.partial(_ended, stream), timeout=5)
        for c in clients.values():
            with pytest.raises(Unauthorized):
                c.hello()
    finally:
        for stream in streams.values():
            stream.close()
        for c in [*sync_made, *async_made]:
            c.close()


# --- a certificate that is not the pinned one --------------------------------------------


class TLSRecorder:
    """A TLS server with a certificate of its own that records every byte a client sends
    once TLS is up, and answers 401: proof of what a client sent, the token included."""

    def __init__(self, cert: str, key: str) -> None:
        self.cert = cert
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.received: list[bytes] = []  # per connection
        self.handshakes = 0
        self._srv = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._srv.getsockname()[1])
        self.url = f"wss://127.0.0.1:{self.port}/v1/ws"
        threading.Thread(target=self._accept, name="tls-recorder", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._srv.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        got = b""
        try:
            conn.settimeout(10)
            tls = self.context.wrap_socket(conn, server_side=True)
            self.handshakes += 1
            while b"\r\n\r\n" not in got:
                chunk = tls.recv(65536)
                if not chunk:
                    break
                got += chunk
            if got:
                tls.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            tls.close()
        except (OSError, ssl.SSLError):
            pass
        finally:
            self.received.append(got)
            conn.close()

    def close(self) -> None:
        self._srv.close()


def _make_cert(directory: str, name: str) -> tuple[str, str]:
    cert, key = os.path.join(directory, name + ".pem"), os.path.join(directory, name + ".key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=" + name],  # fmt: skip
        check=True, capture_output=True, timeout=30,
    )
    return cert, key


def _fingerprint_of(cert: str) -> str:
    with open(cert) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


@pytest.fixture(scope="module")
def recorder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TLSRecorder]:
    cert, key = _make_cert(str(tmp_path_factory.mktemp("recorder")), "recorder")
    server = TLSRecorder(cert, key)
    yield server
    server.close()


def test_a_wrong_pin_is_refused_before_the_token_leaves(
    recorder: TLSRecorder, make_anywhere: Maker, tmp_path: Any
) -> None:
    """Pinned to another certificate: TLS comes up, then nothing is sent, the token least
    of all (the server records what it received); calls raise CertificateRejected and an
    alert stream ends with it. Pinned to the server's own: the same client sends its
    handshake, token and all, to the same recorder (it records what a client sends)."""
    secret = "ldt_" + "s" * 43
    other = _fingerprint_of(_make_cert(str(tmp_path), "other")[0])
    mine = _fingerprint_of(recorder.cert)
    seen = len(recorder.received)
    c = make_anywhere(recorder.url, token=secret, fingerprint=other, timeout=10)
    with pytest.raises(CertificateRejected) as e:
        c.hello()
    assert (e.value.presented, e.value.pinned) == (mine, other)
    assert "the token was not sent" in str(e.value)
    stream = c.alerts()
    try:
        items, error = _loop_until_it_raises(stream)
        assert items == [] and isinstance(error, CertificateRejected), error
    finally:
        stream.close()
    wait_for("the recorder to finish", lambda: len(recorder.received) >= seen + 2)
    assert recorder.received[seen:] == [b""] * (len(recorder.received) - seen), "something was sent"

    # the control: pinned to the recorder's own certificate, the token goes out
    seen = len(recorder.received)
    trusted = make_anywhere(recorder.url, token=secret, fingerprint=mine, timeout=10)
    with pytest.raises(Unauthorized):
        trusted.hello()
    wait_for("the recorder to finish", lambda: len(recorder.received) > seen)
    assert b"authorization: bearer " + secret.encode() in recorder.received[seen].lower()


def test_a_certificate_no_ca_signed_is_refused(recorder: TLSRecorder, make_anywhere: Maker, tmp_path: Any) -> None:
    """``cafile=`` of another certificate: the handshake fails verification, typed, and
    nothing is sent."""
    cafile = _make_cert(str(tmp_path), "someone-else")[0]
    seen = len(recorder.received)
    c = make_anywhere(recorder.url, token="ldt_any", cafile=cafile, timeout=10)
    with pytest.raises(CertificateRejected) as e:
        c.hello()
    assert e.value.presented is None and e.value.reason
    wait_for("the recorder to finish", lambda: len(recorder.received) > seen)
    assert recorder.received[seen:] == [b""] * (len(recorder.received) - seen)


@pytest.mark.parametrize("transport", ["wss"])
def test_labeld_with_a_wrong_pin(labeld: LabeldInstance, web: WebEndpoint, make: Maker) -> None:
    """labeld's own certificate pinned wrong: refused, typed, naming what labeld presented;
    labeld never saw a token sign in."""
    c = make(token=web.token("pinned", "viewer"), fingerprint="00" * 32, timeout=10)
    with pytest.raises(CertificateRejected) as e:
        c.hello()
    assert e.value.presented == web.fingerprint and e.value.pinned == ":".join(["00"] * 32)
    stream = c.alerts()
    try:
        with pytest.raises(CertificateRejected):
            stream.next(timeout=ENDS_WITHIN)
    finally:
        stream.close()
    assert "token pinned" not in labeld.log_tail(100_000)


# --- an endpoint that breaks the protocol ---------------------------------------------------


class FakeEndpoint:
    """A WebSocket server (the websockets package's) that takes any token and answers every
    message with ``reply``, or refuses the handshake with ``status``."""

    def __init__(self, reply: str = "not JSON", status: int | None = None) -> None:
        from websockets.sync.server import serve
        from websockets.typing import Subprotocol

        def handler(ws: Any) -> None:
            try:
                for _ in ws:
                    ws.send(reply)
            except Exception:  # noqa: BLE001 - the client went away
                pass

        def refuse(connection: Any, request: Any) -> Any:
            return connection.respond(status, "no\n") if status is not None else None

        self.server = serve(
            handler, "127.0.0.1", 0, process_request=refuse, subprotocols=[Subprotocol("labeld.v1")]
        )
        self.url = f"ws://127.0.0.1:{self.server.socket.getsockname()[1]}/v1/ws"
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-endpoint", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.thread.join(10)


def test_an_endpoint_that_breaks_the_protocol_ends_the_stream(make_anywhere: Maker) -> None:
    fake = FakeEndpoint("not JSON")
    try:
        c = make_anywhere(fake.url, token="ldt_any", timeout=10)
        with pytest.raises(ProtocolViolation):
            c.hello()
        stream = c.alerts()
        try:
            items, error = _loop_until_it_raises(stream)
            assert items == [] and isinstance(error, ProtocolViolation), error
            wait_for("the stream's reader to stop", lambda: _ended(stream), timeout=5)
        finally:
            stream.close()
        with pytest.raises(ProtocolViolation):
            c.wait_job(1, timeout=10)
    finally:
        fake.close()


def test_a_handshake_answered_404_is_not_labelds(make_anywhere: Maker) -> None:
    fake = FakeEndpoint(status=404)
    try:
        c = make_anywhere(fake.url, token="ldt_any", timeout=10)
        with pytest.raises(ProtocolViolation, match="answered 404"):
            c.hello()
        stream = c.alerts()
        try:
            with pytest.raises(ProtocolViolation):
                stream.next(timeout=ENDS_WITHIN)
        finally:
            stream.close()
    finally:
        fake.close()


def test_a_handshake_answered_503_is_waited_out(make_anywhere: Maker) -> None:
    """Transient: a stream keeps trying (nothing raised), a call says Unreachable."""
    fake = FakeEndpoint(status=503)
    try:
        c = make_anywhere(fake.url, token="ldt_any", timeout=10)
        with pytest.raises(Unreachable):
            c.hello()
        stream = c.alerts()
        try:
            assert stream.next(timeout=0.5) is None
            assert isinstance(stream.last_error, Unreachable) and stream.failure is None
        finally:
            stream.close()
    finally:
        fake.close()


# --- no WebSocket support -------------------------------------------------------------


def test_without_the_websockets_package(make_anywhere: Maker, monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the websocket extra were not installed: calls raise TransportUnsupported
    naming the install line; a stream ends with it."""
    for name in ("websockets.sync.client", "websockets.asyncio.client"):
        monkeypatch.setitem(sys.modules, name, None)
    c = make_anywhere(f"ws://127.0.0.1:{free_port()}/v1/ws", token="ldt_any", timeout=10)
    with pytest.raises(TransportUnsupported, match=r"pip install '\./clients/python\[websocket\]'"):
        c.hello()
    stream = c.alerts()
    try:
        with pytest.raises(TransportUnsupported):
            stream.next(timeout=ENDS_WITHIN)
    finally:
        stream.close()


@pytest.mark.parametrize("kind", [Client, AsyncClient])
def test_a_route_that_cannot_work_is_refused_at_once(kind: Callable[..., Any]) -> None:
    """As LabelKit's ``.transportUnsupported``: another scheme, a pin over ws://, a pin
    that is not a SHA-256."""
    with pytest.raises(TransportUnsupported, match="wss://"):
        kind("https://labels.local:8443/v1/ws", token="ldt_any")
    with pytest.raises(TransportUnsupported, match="wss://"):
        kind("ws://labels.local:8080/v1/ws", token="ldt_any", fingerprint="00" * 32)
    with pytest.raises(TransportUnsupported, match="SHA-256"):
        kind("wss://labels.local:8443/v1/ws", token="ldt_any", fingerprint="C9:69:76")


@pytest.mark.parametrize("kind", [Client, AsyncClient])
def test_a_url_needs_a_token(kind: Callable[..., Any]) -> None:
    with pytest.raises(ClientError, match="token="):
        kind("ws://127.0.0.1:1/v1/ws")


def test_nothing_listening_is_unreachable_and_waited_out(make_anywhere: Maker) -> None:
    c = make_anywhere(f"ws://127.0.0.1:{free_port()}/v1/ws", token="ldt_any", timeout=10)
    with pytest.raises(Unreachable):
        c.hello()
    stream = c.alerts()
    try:
        assert stream.next(timeout=0.3) is None  # labeld may come: the stream keeps trying
        assert stream.failure is None
    finally:
        stream.close()


# --- three kill -9 over wss ---------------------------------------------------------------


@pytest.mark.labeld_args("--alert-retention", "1000000")
@pytest.mark.parametrize("transport", ["wss"])
def test_exactly_once_across_three_kill9_over_wss(labeld: LabeldInstance, web: WebEndpoint) -> None:
    """Both clients' streams over wss:// (a pinned self-signed certificate) from the
    journal's start while printer faults and failed saves are raised and labeld is killed
    three times: every event once, in seq order, nothing else (compared with labeld's
    journal)."""
    secret = web.token("kill9", "operator")
    sync_client = web.client(secret, timeout=5)
    bridge = Bridge(lambda: web.async_client(secret, timeout=5))
    streams: dict[str, Any] = {"sync": sync_client.alerts(since=0), "async": bridge.alerts(since=0)}
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
        raiser = Client(labeld.socket_path, timeout=2)
        toggler = Toggler(raiser)
        i = 0
        while not stop_raising.is_set():
            i += 1
            try:
                if i % 5 == 0:
                    try:
                        raiser.save_product(ProductInput(sku=f"S{i % 3}", name="x"), expected_version=999)
                    except SaveFailed:
                        pass
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
        for pause in (0.3, 0.2, 0.4):
            time.sleep(pause)
            labeld.kill()
            time.sleep(0.05)
            labeld.start()
        time.sleep(0.3)
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
        sync_client.close()
        bridge.close()

    rows = journal(labeld.db_path)
    kinds = {r[1].split(":")[0] for r in rows}
    assert kinds == {"printerError", "saveError"}, kinds  # both kinds, on the one channel
    assert raised[0] > 20, f"only {raised[0]} alerts raised"
    for name, items in got.items():
        assert not [i for i in items if isinstance(i, Gap)], f"{name}: a gap with a retention of 1,000,000"
        delivered = [i for i in items if isinstance(i, Alert)]
        assert seqs(items) == sorted(set(seqs(items))), f"{name}: not in seq order, or twice"
        assert [(a.seq, a.id, a.state) for a in delivered] == rows, f"{name}: not the journal"
        assert streams[name].connects >= 4, f"{name}: {streams[name].connects} connections"
