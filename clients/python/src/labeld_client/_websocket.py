"""labeld's web endpoint as a connection of the blocking client: protocol v1 over a
WebSocket (one JSON-RPC message per text frame), through the ``websockets`` package (the
``websocket`` extra). TLS is checked before the token is sent: against ``cafile`` or the
system's CAs, or, with ``fingerprint``, against the certificate's SHA-256 alone."""

from __future__ import annotations

import hashlib
import re
import select
import socket
import ssl
import time
import urllib.parse
from typing import Any

from ._common import Eof, NotSent, Woken, connect_failed
from ._wire import MAX_LINE, decode_message
from .errors import (
    CertificateRejected,
    ClientError,
    ProtocolViolation,
    Timeout,
    TransportUnsupported,
    Unauthorized,
    Unreachable,
)

JSONObject = dict[str, Any]

#: How long closing a WebSocket waits for the TCP connection to end after the close
#: frames (the websockets package's ``close_timeout``, 10 s by default). The kit has all
#: it needs once the close frame is sent or received; waiting longer would only hold the
#: caller of ``close()`` (or a read that found labeld closing) when the other end is slow
#: to end its TCP connection (labeld over TLS sometimes is, by seconds).
CLOSE_TIMEOUT = 0.2

#: A URL's scheme: what ``Client("https://…")`` is told it cannot use.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

#: Close codes by which labeld says the client broke RFC 6455 (a protocol error, a type of
#: data it does not take, a text that is not UTF-8): a retry would break it again.
_BROKEN_CLOSE_CODES = frozenset({1002, 1003, 1007})


def _normalized(fingerprint: str) -> str:
    return fingerprint.replace(":", "").replace(" ", "").lower()


def written(digest: bytes) -> str:
    """A SHA-256 as labeld logs it: ``AB:CD:…``."""
    return ":".join(f"{b:02X}" for b in digest)


def missing_websockets() -> TransportUnsupported:
    return TransportUnsupported(
        "a ws:// or wss:// URL needs the websockets package: "
        "pip install './clients/python[websocket]' (from a clone of labeld)"
    )


def pin_mismatch(url: str, der: bytes | None, pinned: str) -> CertificateRejected:
    presented = written(hashlib.sha256(der).digest()) if der else None
    expected = written(bytes.fromhex(pinned)) if len(pinned) == 64 else pinned
    return CertificateRejected(
        f"{url}: the certificate's SHA-256 is not the pinned one (presented "
        f"{presented or 'none'}, pinned {expected}); the token was not sent",
        url=url,
        presented=presented,
        pinned=expected,
        reason="not the pinned certificate",
    )


def check_pin(url: str, der: bytes | None, pinned: str | None) -> None:
    """Raises :class:`CertificateRejected` unless the certificate ``der`` is the pinned one."""
    if pinned is not None and (der is None or hashlib.sha256(der).hexdigest() != pinned):
        raise pin_mismatch(url, der, pinned)


def opening_failed(url: str, e: Exception) -> Exception:
    """What a WebSocket to labeld that could not be opened raises. Lasting (a retry does
    not mend it; streams end): a refused token (:class:`Unauthorized`), a certificate not
    trusted (:class:`CertificateRejected`), an answer that is no WebSocket of labeld's
    (:class:`ProtocolViolation`). Otherwise :class:`Unreachable` (:class:`Timeout` when it
    took too long): labeld is away, restarting, or the network is; streams keep trying."""
    from websockets.exceptions import InvalidHandshake, InvalidMessage, InvalidStatus

    if isinstance(e, InvalidStatus):
        status = e.response.status_code
        if status in (401, 403):
            why = "it is missing, wrong or revoked" if status == 401 else "this origin is not allowed"
            return Unauthorized(f"{url}: labeld refused the token ({status}: {why})", url=url, status=status)
        if status >= 500 or status in (408, 429):
            return Unreachable(f"{url}: the handshake was answered {status}", path=url)
        return ProtocolViolation(
            f"{url}: the WebSocket handshake was answered {status}: this is not labeld's web "
            "endpoint (its path is /v1/ws)"
        )
    if isinstance(e, ClientError):
        return e
    if isinstance(e, ssl.SSLCertVerificationError):
        return CertificateRejected(
            f"{url}: the certificate is not trusted ({e.verify_message or e}); the token was not sent",
            url=url,
            reason=e.verify_message or str(e),
        )
    if isinstance(e, OSError):  # ssl.SSLError and TimeoutError too
        return connect_failed(url, e)
    if isinstance(e, InvalidMessage) and isinstance(e.__cause__, (EOFError, OSError)):
        return Unreachable(f"{url}: the connection closed during the handshake", path=url)
    if isinstance(e, InvalidHandshake):
        return ProtocolViolation(f"{url}: not a WebSocket handshake of labeld's: {e}")
    return Unreachable(f"{url}: {e}", path=url)


def closed(url: str, e: Exception) -> Exception:
    """What a WebSocket that closed under a read raises: :class:`ProtocolViolation` when
    labeld's frames broke RFC 6455 or labeld closed it for ours (1002, 1003, 1007), else
    Eof (labeld went away: reconnect)."""
    from websockets.exceptions import ConnectionClosed, PayloadTooBig, ProtocolError

    cause = e.__cause__
    if isinstance(cause, (ProtocolError, UnicodeDecodeError, PayloadTooBig)):
        return ProtocolViolation(f"{url}: labeld's WebSocket frames broke RFC 6455: {cause}")
    rcvd = e.rcvd if isinstance(e, ConnectionClosed) else None
    if rcvd is not None and rcvd.code in _BROKEN_CLOSE_CODES:
        return ProtocolViolation(f"{url}: labeld closed the WebSocket with {rcvd.code} ({rcvd.reason})")
    return Eof()


class Remote:
    """Where and how to reach labeld's web endpoint."""

    @staticmethod
    def is_url(text: str) -> bool:
        return text.startswith("ws://") or text.startswith("wss://")

    @staticmethod
    def check_scheme(text: str) -> None:
        """Raises :class:`TransportUnsupported` for a URL that is not ws:// or wss://."""
        if _SCHEME.match(text) and not Remote.is_url(text):
            raise TransportUnsupported(
                f"{text}: labeld is reached at a Unix socket's path, a ws:// URL (this machine) "
                "or a wss:// URL (labeld's web endpoint, e.g. wss://labels.local:8443/v1/ws)"
            )

    def __init__(self, url: str, *, token: str | None, fingerprint: str | None, cafile: str | None) -> None:
        if not token:
            raise ClientError("a WebSocket URL needs token= (labelctl tokens create NAME --role ROLE)")
        parts = urllib.parse.urlsplit(url)
        if parts.hostname is None:
            raise TransportUnsupported(f"not a WebSocket URL: {url}")
        self.url = url
        self.tls = parts.scheme == "wss"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.path = parts.path or "/v1/ws"
        self.token = token
        self.fingerprint = _normalized(fingerprint) if fingerprint else None
        if self.fingerprint is not None and not re.fullmatch(r"[0-9a-f]{64}", self.fingerprint):
            raise TransportUnsupported("fingerprint= is a SHA-256: 64 hex digits, with or without colons")
        self.cafile = cafile
        if (fingerprint or cafile) and not self.tls:
            raise TransportUnsupported("fingerprint= and cafile= are for wss:// URLs")

    def _context(self) -> ssl.SSLContext:
        if self.fingerprint is not None:
            # Pinned: the certificate's own hash is the check (a self-signed one has no CA).
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        else:
            context = ssl.create_default_context(cafile=self.cafile)
            if self.cafile is not None:
                context.check_hostname = False  # the file names the very certificate
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        return context

    def connect(self, deadline: float | None) -> WebSocketConn:
        return WebSocketConn(self, deadline)


class WebSocketConn:
    """One WebSocket to labeld, with the interface of the Unix socket's connection."""

    def __init__(self, remote: Remote, deadline: float | None) -> None:
        try:
            from websockets.sync.client import connect
            from websockets.typing import Subprotocol
        except ImportError:
            raise missing_websockets() from None
        self.path = remote.url
        timeout = None if deadline is None else max(0.001, deadline - time.monotonic())
        try:
            sock: socket.socket = socket.create_connection((remote.host, remote.port), timeout=timeout)
        except OSError as e:
            raise connect_failed(remote.url, e) from None
        try:
            # A request goes out whole at once, as asyncio's transports send (Nagle would
            # hold the last piece of a large one until labeld's delayed ACK, up to 40 ms).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if remote.tls:
                sock = remote._context().wrap_socket(sock, server_hostname=remote.host)
                check_pin(remote.url, sock.getpeercert(binary_form=True), remote.fingerprint)
            uri = f"ws://{remote.host}:{remote.port}{remote.path}"
            # Entered as the library asks (its close is ours, in close()).
            self.ws = connect(
                uri, sock=sock, additional_headers={"Authorization": "Bearer " + remote.token},
                subprotocols=[Subprotocol("labeld.v1")],
                open_timeout=timeout, max_size=MAX_LINE, ping_interval=20, ping_timeout=20,
                close_timeout=CLOSE_TIMEOUT,
            ).__enter__()
        except Exception as e:
            sock.close()
            raise opening_failed(remote.url, e) from None
        self.next_id = 1
        self.closed = False
        self._wake: int | None = None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ws.close()

    @property
    def pending(self) -> int:
        """Messages read ahead are the library's: none are counted here."""
        return 0

    def watch(self, wake_fd: int) -> None:
        """From now on, a read also ends (Woken) when ``wake_fd`` becomes readable."""
        self._wake = wake_fd

    def send(self, data: bytes, deadline: float | None) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            self.ws.send(data.rstrip(b"\n").decode("utf-8"))
        except ConnectionClosed as e:
            raise NotSent() from e

    def read_message(self, deadline: float | None) -> JSONObject:
        from websockets.exceptions import ConnectionClosed

        while True:
            if self._wake is not None and select.select([self._wake], [], [], 0)[0]:
                raise Woken()
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise Timeout("no answer from labeld in time")
            # A stream's read wakes now and then to see whether it was closed.
            wait = remaining if self._wake is None else min(remaining or 0.1, 0.1)
            try:
                message = self.ws.recv(timeout=wait)
            except TimeoutError:
                continue
            except ConnectionClosed as e:
                raise closed(self.path, e) from e
            if isinstance(message, bytes):
                raise ProtocolViolation(f"{self.path}: a binary message (labeld sends text only)")
            return decode_message(message.encode("utf-8"))
