"""labeld's web endpoint as a connection of the blocking client: protocol v1 over a
WebSocket (one JSON-RPC message per text frame), through the ``websockets`` package (the
``websocket`` extra). TLS is checked before the token is sent: against ``cafile`` or the
system's CAs, or, with ``fingerprint``, against the certificate's SHA-256 alone."""

from __future__ import annotations

import hashlib
import select
import socket
import ssl
import time
import urllib.parse
from typing import Any

from ._common import Eof, NotSent, Woken, connect_failed
from ._wire import MAX_LINE, decode_message
from .errors import ClientError, Timeout, Unreachable

JSONObject = dict[str, Any]


def _normalized(fingerprint: str) -> str:
    return fingerprint.replace(":", "").replace(" ", "").lower()


def opening_failed(url: str, e: Exception) -> Exception:
    """What a WebSocket to labeld that could not be opened raises: a refused token says
    so, a failed connect is ``Unreachable`` (``Timeout`` when it took too long)."""
    from websockets.exceptions import InvalidStatus

    if isinstance(e, InvalidStatus):
        status = e.response.status_code
        if status == 401:
            return ClientError(f"{url}: labeld refused the token (401)")
        return Unreachable(f"{url}: the handshake was answered {status}", path=url)
    if isinstance(e, ClientError):
        return e
    if isinstance(e, OSError):  # ssl.SSLError and TimeoutError too
        return connect_failed(url, e)
    return Unreachable(f"{url}: {e}", path=url)  # the library's own handshake failures


class Remote:
    """Where and how to reach labeld's web endpoint."""

    @staticmethod
    def is_url(text: str) -> bool:
        return text.startswith("ws://") or text.startswith("wss://")

    def __init__(self, url: str, *, token: str | None, fingerprint: str | None, cafile: str | None) -> None:
        if not token:
            raise ClientError("a WebSocket URL needs token= (labelctl tokens create NAME --role ROLE)")
        parts = urllib.parse.urlsplit(url)
        if parts.hostname is None:
            raise ClientError(f"not a WebSocket URL: {url}")
        self.url = url
        self.tls = parts.scheme == "wss"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.path = parts.path or "/v1/ws"
        self.token = token
        self.fingerprint = _normalized(fingerprint) if fingerprint else None
        self.cafile = cafile
        if (fingerprint or cafile) and not self.tls:
            raise ClientError("fingerprint= and cafile= are for wss:// URLs")

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
        except ImportError:
            raise ClientError(
                "a WebSocket needs the websockets package: pip install 'labeld-client[websocket]'"
            ) from None
        self.path = remote.url
        timeout = None if deadline is None else max(0.001, deadline - time.monotonic())
        try:
            sock: socket.socket = socket.create_connection((remote.host, remote.port), timeout=timeout)
        except OSError as e:
            raise connect_failed(remote.url, e) from None
        try:
            if remote.tls:
                sock = remote._context().wrap_socket(sock, server_hostname=remote.host)
                if remote.fingerprint is not None:
                    der = sock.getpeercert(binary_form=True) or b""
                    if hashlib.sha256(der).hexdigest() != remote.fingerprint:
                        raise ClientError(
                            f"{remote.url}: the certificate's SHA-256 is not the pinned one; "
                            "the token was not sent"
                        )
            uri = f"ws://{remote.host}:{remote.port}{remote.path}"
            # Entered as the library asks (its close is ours, in close()).
            self.ws = connect(
                uri, sock=sock, additional_headers={"Authorization": "Bearer " + remote.token},
                subprotocols=["labeld.v1"],  # type: ignore[list-item]
                open_timeout=timeout, max_size=MAX_LINE, ping_interval=20, ping_timeout=20,
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
                raise Eof() from e
            if isinstance(message, bytes):
                raise Eof()
            return decode_message(message.encode("utf-8"))
