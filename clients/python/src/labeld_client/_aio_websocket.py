"""labeld's web endpoint for the asyncio client: protocol v1 over a WebSocket (one JSON-RPC
message per text frame), through the ``websockets`` package's asyncio implementation (the
``websocket`` extra). As in the blocking client, TLS is checked before the token is sent:
against ``cafile`` or the system's CAs, or, with ``fingerprint``, against the
certificate's SHA-256 alone (checked on the connection itself, before the handshake)."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

from ._common import NotSent, connect_failed
from ._websocket import CLOSE_TIMEOUT, Remote, check_pin, closed, missing_websockets, opening_failed
from ._wire import MAX_LINE, decode_message
from .errors import ProtocolViolation, Timeout

JSONObject = dict[str, Any]


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


async def open_websocket(remote: Remote, deadline: float | None) -> Any:
    """A WebSocket to ``remote`` with its handshake done (a ``websockets`` ClientConnection)."""
    try:
        from websockets.asyncio.client import ClientConnection, connect
        from websockets.typing import Subprotocol
    except ImportError:
        raise missing_websockets() from None

    pin = remote.fingerprint

    class Pinned(ClientConnection):  # type: ignore[misc,unused-ignore]  # Any without the extra
        """Checks the pinned certificate once TLS is up and before the handshake, which
        carries the token, is sent."""

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            if pin is not None:
                tls = self.transport.get_extra_info("ssl_object")
                check_pin(remote.url, tls.getpeercert(binary_form=True) if tls is not None else None, pin)
            await super().handshake(*args, **kwargs)

    loop = asyncio.get_running_loop()
    try:
        # The address resolved and connected here (no proxy from the environment: labeld
        # is on the shop's network), TLS and the handshake by the library on this socket.
        infos = await loop.getaddrinfo(remote.host, remote.port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise connect_failed(remote.url, e) from None
    sock.setblocking(False)
    try:
        async with asyncio.timeout(_remaining(deadline)):
            await loop.sock_connect(sock, address)
            extra: dict[str, Any] = {}
            if remote.tls:
                extra = {"ssl": remote._context(), "server_hostname": remote.host}
            scheme = "wss" if remote.tls else "ws"
            return await connect(
                f"{scheme}://{remote.host}:{remote.port}{remote.path}",
                sock=sock,
                additional_headers={"Authorization": "Bearer " + remote.token},
                subprotocols=[Subprotocol("labeld.v1")],
                create_connection=Pinned,
                open_timeout=None,  # the deadline above bounds it all
                max_size=MAX_LINE,
                ping_interval=20,
                ping_timeout=20,
                close_timeout=CLOSE_TIMEOUT,
                **extra,
            )
    except Exception as e:
        sock.close()
        raise opening_failed(remote.url, e) from None
    except BaseException:  # cancelled
        sock.close()
        raise


class WebPull:
    """A WebSocket read only when its owner asks (alert streams, job progress): the
    interface of the Unix socket's ``_Pull``."""

    def __init__(self, ws: Any, url: str) -> None:
        self.ws = ws
        self.url = url
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ws.transport.abort()

    async def send(self, data: bytes) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(data.rstrip(b"\n").decode("utf-8"))
        except ConnectionClosed as e:
            raise NotSent() from e

    async def read_message(self, deadline: float | None) -> JSONObject:
        from websockets.exceptions import ConnectionClosed

        try:
            async with asyncio.timeout(_remaining(deadline)):
                message = await self.ws.recv()
        except TimeoutError:
            raise Timeout("no answer from labeld in time") from None
        except ConnectionClosed as e:
            raise closed(self.url, e) from e
        if isinstance(message, bytes):
            raise ProtocolViolation(f"{self.url}: a binary message (labeld sends text only)")
        return decode_message(message.encode("utf-8"))
