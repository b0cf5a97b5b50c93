"""The asyncio client: :class:`AsyncClient`, with the same surface as ``Client``."""

from __future__ import annotations

import asyncio
import os
import socket
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, TypeVar, overload

from . import _methods as m
from ._common import DEFAULT, DEFAULT_TIMEOUT, AsyncClosing, Candidates, Eof, NotSent, Overflow, Retry
from ._common import answer, connect_failed, deadline_in, paced
from ._aio_websocket import WebPull, open_websocket
from ._streams import StreamCore
from ._websocket import Remote, closed
from ._wire import READ_CHUNK, LineBuffer, decode_message, encode_request, socket_candidates
from .errors import ENDS_STREAMS, ClientError, ProtocolViolation, Timeout, Unreachable
from .jobs import JobWatch
from .models import Alert, Gap, HelloResult, Job, Page, Printer, Product, RenderResult, SaveResult

__all__ = ["AsyncClient", "AsyncAlertStream"]

JSONObject = dict[str, Any]
T = TypeVar("T")


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


async def _open_socket(path: str, deadline: float | None) -> socket.socket:
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        async with asyncio.timeout(_remaining(deadline)):
            await loop.sock_connect(sock, path)
    except OSError as e:  # TimeoutError too
        sock.close()
        raise connect_failed(path, e) from None
    except BaseException:
        sock.close()
        raise
    return sock


async def _open_first(paths: list[str], deadline: float | None) -> tuple[socket.socket, str]:
    """A socket connected to the first of ``paths`` where labeld listens, and that path
    (see Candidates)."""
    tried = Candidates()
    for path in paths:
        try:
            return await _open_socket(path, deadline), path
        except Unreachable as e:
            tried.failed(e)
    raise tried.none_answered()


async def _send(sock: socket.socket, data: bytes) -> None:
    """Send all of ``data``; NotSent when the connection was dead before any byte went."""
    try:
        n = sock.send(data)
    except BlockingIOError:
        n = 0
    except OSError as e:
        raise NotSent() from e
    if n < len(data):
        try:
            await asyncio.get_running_loop().sock_sendall(sock, data[n:])
        except OSError as e:
            raise Eof() from e


class _Pull:
    """A connection read only when its owner asks (alert streams, job progress)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = LineBuffer()
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sock.close()

    async def send(self, data: bytes) -> None:
        await _send(self.sock, data)

    async def read_message(self, deadline: float | None) -> JSONObject:
        loop = asyncio.get_running_loop()
        while True:
            line = self.buf.next_line()
            if line is not None:
                return decode_message(line)
            try:
                async with asyncio.timeout(_remaining(deadline)):
                    data = await loop.sock_recv(self.sock, READ_CHUNK)
            except TimeoutError:
                raise Timeout("no answer from labeld in time") from None
            except OSError as e:
                raise Eof() from e
            if not data:
                raise Eof()
            self.buf.feed(data)


class _Calls:
    """A call connection's bookkeeping: requests may overlap; answers are handed to their
    callers by id as they arrive (the connection keeps reading: answers are bounded by the
    requests, and notifications, which a call connection does not ask for, are dropped)."""

    def __init__(self) -> None:
        self.path = ""
        self.closed = False
        self.next_id = 1
        self.pending: dict[int, asyncio.Future[JSONObject]] = {}

    def _dispatch(self, msg: JSONObject) -> None:
        if "method" in msg and "id" not in msg:
            return  # a notification
        mid = msg.get("id")
        if mid is None and "error" in msg and self.pending:
            mid = min(self.pending)  # labeld could not read a request: the oldest waiting
        fut = self.pending.pop(mid, None) if isinstance(mid, int) else None
        if fut is not None and not fut.done():
            fut.set_result(msg)

    def _fail(self, exc: BaseException) -> None:
        self.closed = True
        pending, self.pending = self.pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(exc)

    def close(self, exc: BaseException | None = None) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Closes, and waits for what reads the connection to end."""
        self.close()

    def register(self) -> tuple[int, asyncio.Future[JSONObject]]:
        if self.closed:
            raise NotSent()
        rid = self.next_id
        self.next_id += 1
        fut: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        return rid, fut

    async def send_request(self, rid: int, method: str, params: JSONObject | None) -> None:
        raise NotImplementedError


class _Main(_Calls, asyncio.Protocol):
    """The client's call connection over the Unix socket."""

    def __init__(self) -> None:
        super().__init__()
        self.transport: asyncio.Transport | None = None
        self.buf = LineBuffer()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        try:
            if not buf.pending and data[-1:] == b"\n" and data.find(b"\n") == len(data) - 1:
                self._dispatch(decode_message(data[:-1]))  # the usual case: one line
                return
            buf.feed(data)
            while (line := buf.next_line()) is not None:
                self._dispatch(decode_message(line))
        except ProtocolViolation as e:
            self.close(e)

    def eof_received(self) -> bool:
        return False  # the transport closes; connection_lost fails what is pending

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(Eof())

    def close(self, exc: BaseException | None = None) -> None:
        if self.transport is not None:
            self.transport.abort()
        self._fail(exc or Eof())

    async def send_request(self, rid: int, method: str, params: JSONObject | None) -> None:
        self.send(rid, method, params)

    def send(self, rid: int, method: str, params: JSONObject | None) -> None:
        t = self.transport
        if self.closed or t is None or t.is_closing():
            self.pending.pop(rid, None)
            raise NotSent()
        t.write(encode_request(rid, method, params))
        if t.is_closing():
            # the write failed at once (labeld went away before): none of it was sent
            self.pending.pop(rid, None)
            raise NotSent()


class _WebMain(_Calls):
    """The client's call connection over a WebSocket: a task reads its messages."""

    def __init__(self, ws: Any, path: str) -> None:
        super().__init__()
        self.ws = ws
        self.path = path
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        error: BaseException = Eof()
        try:
            async for message in self.ws:
                if isinstance(message, bytes):
                    error = ProtocolViolation(f"{self.path}: a binary message (labeld sends text only)")
                    break
                self._dispatch(decode_message(message.encode("utf-8")))
        except ConnectionClosed as e:
            error = closed(self.path, e)
        except ProtocolViolation as e:
            error = e
        except Exception as e:  # noqa: BLE001 - the callers waiting are told, not left waiting
            error = ClientError(f"{self.path}: reading labeld's answers failed: {e!r}")
        finally:
            self._fail(error)
            self.ws.transport.abort()

    def close(self, exc: BaseException | None = None) -> None:
        self.ws.transport.abort()
        self._fail(exc or Eof())

    async def aclose(self) -> None:
        self.close()
        if self._reader is not asyncio.current_task():
            await asyncio.gather(self._reader, return_exceptions=True)

    async def send_request(self, rid: int, method: str, params: JSONObject | None) -> None:
        from websockets.exceptions import ConnectionClosed

        if self.closed:
            self.pending.pop(rid, None)
            raise NotSent()
        try:
            await self.ws.send(encode_request(rid, method, params).rstrip(b"\n").decode("utf-8"))
        except ConnectionClosed:
            self.pending.pop(rid, None)
            raise NotSent() from None


async def _open_pull(
    paths: list[str], remote: Remote | None, deadline: float | None
) -> _Pull | WebPull:
    """A connection read only when asked, to labeld's socket or its web endpoint."""
    if remote is not None:
        return WebPull(await open_websocket(remote, deadline), remote.url)
    return _Pull((await _open_first(paths, deadline))[0])


class AsyncClient(AsyncClosing):
    """The asyncio labeld client; calls from several tasks may overlap on its one
    connection (opened on first use, reopened after it drops).

    ``socket_path`` is labeld's socket; None finds it as labeld does, and then, when
    nothing listens there, the system service's /run/labeld/labeld.sock is tried too
    (``socket_paths``, in order; ``socket_path`` is the first). ``timeout`` bounds each
    call (seconds; None waits for ever).

    From another machine, ``socket_path`` is the web endpoint's URL instead, with
    ``token=`` and optionally ``fingerprint=`` or ``cafile=``, as for ``Client``. It needs
    the ``websockets`` package (``pip install './clients/python[websocket]'`` from a clone
    of labeld); without it a call raises :class:`TransportUnsupported`.
    """

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        token: str | None = None,
        fingerprint: str | None = None,
        cafile: str | None = None,
    ) -> None:
        self._remote: Remote | None = None
        if isinstance(socket_path, str) and Remote.is_url(socket_path):
            self._remote = Remote(socket_path, token=token, fingerprint=fingerprint, cafile=cafile)
            self.socket_paths: list[str] = [socket_path]
        else:
            if isinstance(socket_path, str):
                Remote.check_scheme(socket_path)
            self.socket_paths = socket_candidates(socket_path)
        self.socket_path = self.socket_paths[0]
        self.timeout = timeout
        self._conn: _Calls | None = None
        self._connect_lock: asyncio.Lock | None = None
        self._streams: weakref.WeakSet[AsyncAlertStream] = weakref.WeakSet()
        self._closed = False

    # --- lifecycle -----------------------------------------------------------------

    async def close(self) -> None:
        """Close the connection and every alert stream this client created."""
        self._closed = True
        for s in list(self._streams):
            await s.aclose()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.aclose()

    def abort(self) -> None:
        """Close everything at once, without awaiting (from synchronous code)."""
        self._closed = True
        for s in list(self._streams):
            s.abort()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def __aenter__(self) -> AsyncClient:
        return self

    async def _aexit(self, ok: bool) -> None:
        await self.close()

    # --- calls ---------------------------------------------------------------------

    async def call(self, method: str, /, **params: Any) -> JSONObject:
        """Call ``method`` with ``params``; returns its result object."""
        return await self.request(method, params)

    async def request(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: Any = DEFAULT
    ) -> JSONObject:
        """Like :meth:`call`, with params as a mapping and an optional per-call timeout."""
        t: float | None = self.timeout if timeout is DEFAULT else timeout
        deadline = deadline_in(t)
        if self._closed:
            raise ClientError("the client is closed")
        msg = await self._exchange(method, dict(params) if params else None, deadline)
        return answer(method, msg, self._offer)

    def _offer(self, alert: Alert) -> None:
        for s in list(self._streams):
            s._offer(alert)

    async def _connection(self, deadline: float | None) -> _Calls:
        conn = self._conn
        if conn is not None and not conn.closed:
            return conn
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        async with self._connect_lock:
            conn = self._conn
            if conn is not None and not conn.closed:
                return conn
            if self._remote is not None:
                conn = _WebMain(await open_websocket(self._remote, deadline), self._remote.url)
                self._conn = conn
                return conn
            loop = asyncio.get_running_loop()
            sock, path = await _open_first(self.socket_paths, deadline)
            try:
                _, main = await loop.create_unix_connection(_Main, sock=sock)
                main.path = path
            except BaseException:
                sock.close()
                raise
            self._conn = main
            return main

    async def _exchange(self, method: str, params: JSONObject | None, deadline: float | None) -> JSONObject:
        retry = Retry(method)
        while True:
            conn = await self._connection(deadline)
            fut: asyncio.Future[JSONObject] | None = None
            try:
                rid, fut = conn.register()
                await conn.send_request(rid, method, params)
            except NotSent:
                conn.close()  # a connection that died before (labeld restarted)
                if fut is not None and fut.done() and fut.exception() is None:
                    # answered before the connection closed under the request (one too
                    # large is refused as soon as its length is known, then closed)
                    return fut.result()
                retry.not_sent(conn.path)
                continue
            try:
                async with asyncio.timeout(_remaining(deadline)):
                    return await fut
            except TimeoutError:
                conn.pending.pop(rid, None)
                raise Timeout(f"{method}: no answer from labeld in time") from None
            except Eof:
                retry.answer_lost(conn.path)
                continue
            except asyncio.CancelledError:
                conn.pending.pop(rid, None)
                raise

    # --- typed helpers (what each sends and returns: _methods) ----------------------

    async def _typed(self, call: m.Call[T]) -> T:
        return call.result(await self.request(call.method, call.params))

    async def hello(self, client: str | None = "labeld_client (python, asyncio)") -> HelloResult:
        return await self._typed(m.hello(client))

    async def printers(self) -> list[Printer]:
        return await self._typed(m.printers())

    async def printer(self, printer_id: str) -> Printer:
        return await self._typed(m.printer(printer_id))

    async def refresh_printers(self) -> list[Printer]:
        return await self._typed(m.refresh_printers())

    async def simulate(self, printer: str, fault: str | None) -> Printer:
        """Give simulated printer ``printer`` the fault ``fault`` (None clears it)."""
        return await self._typed(m.simulate(printer, fault))

    async def products(self, limit: int | None = None, after: str | None = None) -> Page[Product]:
        return await self._typed(m.products(limit, after))

    async def all_products(self, page_size: int = 500) -> AsyncIterator[Product]:
        after: str | None = None
        while True:
            page = await self.products(limit=page_size, after=after)
            for p in page.items:
                yield p
            if page.next is None:
                return
            after = str(page.next)

    async def product(self, sku: str) -> Product:
        return await self._typed(m.product(sku))

    async def save_product(
        self,
        product: m.ProductLike,
        expected_version: int | None = None,
        print: Mapping[str, Any] | None = None,  # noqa: A002 - the protocol's name
    ) -> SaveResult:
        return await self._typed(m.save_product(product, expected_version, print))

    async def delete_product(self, sku: str) -> bool:
        return await self._typed(m.delete_product(sku))

    async def templates(self, limit: int | None = None, after: str | None = None) -> Page[JSONObject]:
        return await self._typed(m.templates(limit, after))

    async def template(self, name: str) -> JSONObject:
        return await self._typed(m.template(name))

    async def save_template(self, template: Mapping[str, Any]) -> JSONObject:
        return await self._typed(m.save_template(template))

    async def render(
        self,
        template: str,
        sku: str | None = None,
        data: Mapping[str, Any] | None = None,
        printer: str | None = None,
        language: str | None = None,
        format: str = "png",  # noqa: A002 - the protocol's name
        dpi: int | None = None,
    ) -> RenderResult:
        return await self._typed(m.render(template, sku, data, printer, language, format, dpi))

    async def submit(
        self,
        printer: str,
        *,
        copies: int = 1,
        template: str | None = None,
        sku: str | None = None,
        data: Mapping[str, Any] | None = None,
        document: bytes | str | None = None,
        document_format: str = "native",
    ) -> Job:
        call = m.submit(printer, copies, template, sku, data, document, document_format)
        return await self._typed(call)

    async def job(self, job_id: int) -> Job:
        return await self._typed(m.job(job_id))

    async def cancel(self, job_id: int) -> Job:
        return await self._typed(m.cancel(job_id))

    async def jobs(
        self,
        printer: str | None = None,
        states: list[str] | None = None,
        limit: int | None = None,
        after: int | None = None,
    ) -> Page[Job]:
        return await self._typed(m.jobs(printer, states, limit, after))

    async def active_alerts(self) -> list[Alert]:
        return await self._typed(m.active_alerts())

    async def dismiss(self, alert_id: str) -> bool:
        return await self._typed(m.dismiss(alert_id))

    async def devices(self) -> JSONObject:
        return await self._typed(m.devices())

    async def create_token(self, name: str, role: str) -> JSONObject:
        """A web-endpoint token (administrators): ``{"token", "secret"}``, the secret shown once."""
        return await self._typed(m.create_token(name, role))

    async def tokens(self) -> list[JSONObject]:
        return list((await self._typed(m.tokens()))["tokens"])

    async def revoke_token(self, name: str) -> JSONObject:
        """``{"revoked", "closed"}``: open connections of the token are closed at once."""
        return await self._typed(m.revoke_token(name))

    # --- streams -------------------------------------------------------------------

    def alerts(
        self, since: int | None = None, resume_file: str | os.PathLike[str] | None = None
    ) -> AsyncAlertStream:
        """Every alert event after the starting point, exactly once, in seq order, and a
        :class:`Gap` where labeld no longer had some (``async for item in
        client.alerts(): ...``). Runs on a connection of its own until closed."""
        stream = AsyncAlertStream(self, since=since, resume_file=resume_file)
        self._streams.add(stream)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return stream  # started by the first __anext__, in the loop that runs it
        stream._ensure_started()
        return stream

    def job_updates(self, job_id: int, timeout: float | None = None) -> AsyncIterator[Job]:
        """Each change of job ``job_id`` up to and including its terminal state, across
        reconnects (while labeld is not running, it keeps trying). ``timeout`` bounds the
        whole sequence (Timeout), None: no bound. An :class:`Unreachable` for a socket this
        user may not open is raised at once."""
        return self._job_updates(job_id, deadline_in(timeout))

    async def wait_job(self, job_id: int, timeout: float | None = None) -> Job:
        """The job once it is completed, canceled or aborted (Timeout after ``timeout``)."""
        gen = self._job_updates(job_id, deadline_in(timeout))
        try:
            async for job in gen:
                if job.terminal:
                    return job
            raise ProtocolViolation(f"job {job_id}'s updates ended before a terminal state")
        finally:
            await gen.aclose()

    async def _job_updates(
        self, job_id: int, deadline: float | None
    ) -> AsyncGenerator[Job, None]:
        watch = JobWatch(job_id)
        while True:
            try:
                conn = await _open_pull(self.socket_paths, self._remote, deadline)
            except Unreachable as e:
                if e.lasting:
                    raise  # no permission: waiting does not mend it
                await _sleep_within(watch.backoff.next_delay(), deadline, e)
                continue
            try:
                await conn.send(watch.subscribe())
                while True:
                    out = watch.on_message(await conn.read_message(deadline))
                    if isinstance(out, bytes):
                        await conn.send(out)
                    elif out is not None:
                        yield out
                        if watch.done:
                            return
            except Overflow:
                continue  # at once: labeld dropped this reader for being slow
            except (Eof, NotSent):
                pass  # reconnect (after a back-off) and catch up with jobs.get
            finally:
                conn.close()
            await _sleep_within(watch.backoff.next_delay(), deadline, None)


async def _sleep_within(delay: float, deadline: float | None, cause: BaseException | None) -> None:
    pause, late = paced(delay, deadline)
    await asyncio.sleep(pause)
    if late is not None:
        raise late from cause


class AsyncAlertStream(AsyncClosing):
    """An async iterator of :class:`Alert` and :class:`Gap` items (see
    ``AsyncClient.alerts``). A task of its own reads the stream's connection (started at
    once when created in a running loop, else by the first ``__anext__``), reconnecting
    with back-off, and keeps at most ``max_ready`` items ahead of the consumer. While
    labeld is not running it keeps trying; an :class:`Unreachable` for a socket this user
    may not open is raised from ``next()`` at once; the stream tries again (after the
    back-off) only when ``next()`` is called again, as the Swift kit's does. What a retry
    cannot mend ends the stream, as ``AlertStream``'s (``failure``): ``next()`` and
    ``async for`` raise it; the reader task never ends unseen."""

    max_ready = 1024

    def __init__(
        self,
        client: AsyncClient,
        since: int | None = None,
        resume_file: str | os.PathLike[str] | None = None,
    ) -> None:
        self._client_ref = weakref.ref(client)
        self._paths = client.socket_paths
        self._remote = client._remote
        self._timeout = client.timeout
        self._core = StreamCore(since, resume_file, wake=self._wake, room=self._made_room)
        self._task: asyncio.Task[None] | None = None
        # made in the loop that runs the stream (see _events)
        self._changed: asyncio.Event | None = None
        self._room: asyncio.Event | None = None
        # a consumer waiting in next(): what a reader stopped by a lasting error waits for
        self._asked: asyncio.Event | None = None
        self._asking = 0
        self._conn: _Pull | WebPull | None = None
        self.connects = 0
        self.overflows = 0
        self.last_error: BaseException | None = None

    @property
    def position(self) -> int | None:
        return self._core.sync.position

    def _events(self) -> tuple[asyncio.Event, asyncio.Event]:
        if self._changed is None or self._room is None:
            self._changed = asyncio.Event()
            self._room = asyncio.Event()
            self._asked = asyncio.Event()
        return self._changed, self._room

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def _made_room(self) -> None:
        if self._room is not None:
            self._room.set()

    def _ensure_started(self) -> None:
        if self._task is None and not self._core.closed:
            self._events()
            self._task = asyncio.get_running_loop().create_task(self._run())

    # --- consumer side -------------------------------------------------------------

    def __aiter__(self) -> AsyncAlertStream:
        return self

    async def __anext__(self) -> Alert | Gap:
        item = await self.next()
        assert item is not None  # no timeout: it waits
        return item

    @property
    def failure(self) -> ClientError | None:
        """What ended the stream (see ``AlertStream``), or None while it runs."""
        return self._core.failure

    @overload
    async def next(self, timeout: None = None) -> Alert | Gap: ...
    @overload
    async def next(self, timeout: float) -> Alert | Gap | None: ...

    async def next(self, timeout: float | None = None) -> Alert | Gap | None:
        """The next item, waiting for it; with ``timeout``, None when none came within
        that many seconds (a quiet channel is no error). Raises only what the stream has
        to say, as ``AlertStream.next``, and StopAsyncIteration once closed."""
        self._ensure_started()
        changed, _ = self._events()
        deadline = deadline_in(timeout)
        while True:
            item = self._core.take()
            if item is not None:
                return item
            if self._core.closed:
                raise StopAsyncIteration
            changed.clear()
            self._asking += 1
            if self._asked is not None:
                self._asked.set()
            try:
                async with asyncio.timeout(_remaining(deadline)):
                    await changed.wait()
            except TimeoutError:
                return None
            finally:
                self._asking -= 1

    async def aclose(self, *, handled: bool = True) -> None:
        """Stop the stream and close its connection. With a resume file, the item handed
        out last counts as handled (its position is stored) unless ``handled`` is False."""
        task = self._task
        self.abort(handled=handled)
        if task is not None and task is not asyncio.current_task():
            try:
                await task
            except BaseException:
                pass

    def abort(self, *, handled: bool = False) -> None:
        """Stop at once (from synchronous code); see :meth:`aclose`."""
        if not self._core.close(handled):
            return
        if self._task is not None:
            self._task.cancel()
        if self._conn is not None:
            self._conn.close()
        self._wake()
        client = self._client_ref()
        if client is not None:
            client._streams.discard(self)

    async def __aenter__(self) -> AsyncAlertStream:
        return self

    async def _aexit(self, ok: bool) -> None:
        await self.aclose(handled=ok)

    def _offer(self, alert: Alert) -> None:
        self._core.offer(alert)

    # --- the reader task -----------------------------------------------------------

    async def _run(self) -> None:
        """The reader task: whatever ends it is the consumer's to see (cancelling it is how
        the stream closes)."""
        try:
            await self._read()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._core.fail(e)

    async def _read(self) -> None:
        core = self._core
        while not core.closed:
            try:
                self._conn = conn = await _open_pull(self._paths, self._remote, deadline_in(self._timeout))
            except ENDS_STREAMS as e:
                self.last_error = e
                core.fail(e)
                return
            except (Unreachable, Timeout, OSError) as e:
                self.last_error = e
                if isinstance(e, Unreachable) and e.lasting:
                    # no permission: waiting does not mend it. Raised to the consumer at
                    # once; tried again (after the back-off) when the consumer asks again
                    core.post(e)
                    self._events()
                    assert self._asked is not None
                    while not core.closed and (core.error is not None or self._asking == 0):
                        self._asked.clear()
                        await self._asked.wait()
                    if core.closed:
                        return
                await asyncio.sleep(core.backoff.next_delay())
                continue
            overflow = False
            error: Exception | None = None
            try:
                await self._session(conn)
            except Overflow:
                overflow = True
            except Exception as e:
                error = self.last_error = e
            finally:
                conn.close()
                self._conn = None
                core.disconnected(error)
            if core.ended:
                return
            if overflow:
                self.overflows += 1
                continue
            await asyncio.sleep(core.backoff.next_delay())

    async def _session(self, conn: _Pull | WebPull) -> None:
        """Runs one connection until it ends (Overflow: labeld dropped it)."""
        _, room = self._events()
        core = self._core
        request: bytes | None = core.subscribe()
        self.connects += 1
        answer_by: float | None = None
        while True:
            if request is not None:
                await conn.send(request)
                answer_by = deadline_in(self._timeout)
            msg = await conn.read_message(answer_by if core.answer_due else None)
            request = core.on_message(msg)
            while len(core.ready) >= self.max_ready and not core.closed:
                room.clear()
                await room.wait()
