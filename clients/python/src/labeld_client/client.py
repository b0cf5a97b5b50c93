"""The blocking client: :class:`Client`, its alert stream and job progress."""

from __future__ import annotations

import math
import os
import select
import socket
import struct
import threading
import time
import weakref
from collections.abc import Generator, Iterator, Mapping
from typing import Any, TypeVar, overload

from . import _methods as m
from ._common import DEFAULT, DEFAULT_TIMEOUT, Candidates, Closing, Eof, NotSent, Overflow, Retry, Woken
from ._common import answer, connect_failed, deadline_in, paced
from ._streams import StreamCore
from ._websocket import Remote, WebSocketConn
from ._wire import READ_CHUNK, LineBuffer, decode_message, encode_request, socket_candidates
from .errors import ENDS_STREAMS, ClientError, ProtocolViolation, Timeout, Unreachable
from .jobs import JobWatch
from .models import Alert, Gap, HelloResult, Job, Page, Printer, Product, RenderResult, SaveResult

__all__ = ["Client", "AlertStream", "DEFAULT_TIMEOUT"]

_POLLIN = select.POLLIN | select.POLLPRI
_POLLOUT = select.POLLOUT

JSONObject = dict[str, Any]
T = TypeVar("T")


def _remaining_ms(deadline: float | None) -> int | None:
    if deadline is None:
        return None
    return max(0, math.ceil((deadline - time.monotonic()) * 1000))


_Woken = Woken


class _SyncConn:
    """One connection, split into lines.

    A call connection is a blocking socket whose SO_RCVTIMEO/SO_SNDTIMEO bound each wait
    (one syscall per read); a stream's connection (``watch``) is non-blocking and polled
    together with a wake-up pipe.
    """

    def __init__(self, path: str, deadline: float | None) -> None:
        self.path = path
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            remaining = None if deadline is None else max(0.001, deadline - time.monotonic())
            sock.settimeout(remaining)
            sock.connect(path)
        except OSError as e:  # TimeoutError too
            sock.close()
            raise connect_failed(path, e) from None
        sock.settimeout(None)
        self.sock = sock
        self.fd = sock.fileno()
        self.buf = LineBuffer()
        self.next_id = 1
        self.closed = False
        self._rcvtimeo = 0.0  # 0: for ever
        self._poll_wake: Any = None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sock.close()

    @property
    def pending(self) -> int:
        """Bytes read and not yet taken as a message."""
        return self.buf.pending

    def watch(self, wake_fd: int) -> None:
        """Poll from now on, and raise _Woken when ``wake_fd`` becomes readable."""
        self.sock.setblocking(False)
        p = select.poll()
        p.register(self.fd, _POLLIN)
        p.register(wake_fd, _POLLIN)
        self._poll_wake = (p, wake_fd)

    def _set_timeouts(self, seconds: float) -> None:
        tv = struct.pack("@ll", int(seconds), int((seconds % 1) * 1_000_000))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
        self._rcvtimeo = seconds

    def _bound(self, deadline: float | None) -> None:
        """Make one blocking wait end by ``deadline`` (a little later at worst)."""
        if deadline is None:
            if self._rcvtimeo != 0.0:
                self._set_timeouts(0.0)
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout("no answer from labeld in time")
        current = self._rcvtimeo
        if current == 0.0 or current > remaining * 1.01 + 0.01:
            self._set_timeouts(max(remaining, 0.001))

    def send(self, data: bytes, deadline: float | None) -> None:
        if self._poll_wake is not None:
            return self._send_polled(data, deadline)
        self._bound(deadline)
        sent = 0
        total = len(data)
        view = memoryview(data)
        while sent < total:
            try:
                sent += self.sock.send(view[sent:] if sent else data)
            except BlockingIOError:
                self._bound(deadline)  # raises Timeout once the deadline has passed
            except OSError as e:
                if sent == 0:
                    raise NotSent() from e
                raise Eof() from e

    def _send_polled(self, data: bytes, deadline: float | None) -> None:
        view = memoryview(data)
        sent = 0
        while sent < len(data):
            try:
                sent += self.sock.send(view[sent:])
            except BlockingIOError:
                p = select.poll()
                p.register(self.fd, _POLLOUT)
                if not p.poll(_remaining_ms(deadline)):
                    raise Timeout("labeld did not take the request in time") from None
            except OSError as e:
                if sent == 0:
                    raise NotSent() from e
                raise Eof() from e

    def read_message(self, deadline: float | None) -> JSONObject:
        buf = self.buf
        polled = self._poll_wake is not None
        while True:
            if buf.pending:
                line = buf.next_line()
                if line is not None:
                    return decode_message(line)
            if polled:
                p, wake_fd = self._poll_wake
                events = p.poll(_remaining_ms(deadline))
                if not events:
                    raise Timeout("no answer from labeld in time")
                if any(fd == wake_fd for fd, _ in events):
                    raise _Woken()
            else:
                self._bound(deadline)
            try:
                data = self.sock.recv(READ_CHUNK)
            except BlockingIOError:
                continue  # SO_RCVTIMEO expired (_bound decides) or a spurious wake-up
            except OSError as e:
                raise Eof() from e
            if not data:
                raise Eof()
            if not buf.pending and data[-1:] == b"\n" and data.find(b"\n") == len(data) - 1:
                return decode_message(data[:-1])  # the usual case: exactly one line
            buf.feed(data)


def _connect(paths: list[str], deadline: float | None, remote: Remote | None = None) -> _SyncConn | WebSocketConn:
    """A connection to the first of ``paths`` where labeld listens (see Candidates), or to
    ``remote``, labeld's web endpoint."""
    if remote is not None:
        return remote.connect(deadline)
    tried = Candidates()
    for path in paths:
        try:
            return _SyncConn(path, deadline)
        except Unreachable as e:
            tried.failed(e)
    raise tried.none_answered()


class Client(Closing):
    """A blocking labeld client; calls from several threads are safe (they take turns
    on one connection, opened on first use and reopened after it drops).

    ``socket_path`` is labeld's socket; None finds it as labeld does, and then, when
    nothing listens there, the system service's /run/labeld/labeld.sock is tried too
    (``socket_paths``, in order; ``socket_path`` is the first). ``timeout`` bounds each
    call (seconds; None waits for ever).

    From another machine, ``socket_path`` is the web endpoint's URL instead
    (``"wss://labels.local:8443/v1/ws"``, or ``ws://`` on the same machine) with
    ``token=`` (``labelctl tokens create``); ``fingerprint=`` pins labeld's certificate by
    its SHA-256 (as labeld logs it), ``cafile=`` trusts a CA or the certificate itself.
    It needs the ``websockets`` package (``pip install './clients/python[websocket]'`` from
    a clone of labeld); without it a call raises :class:`TransportUnsupported`.
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
            self.socket_paths = [socket_path]
        else:
            if isinstance(socket_path, str):
                Remote.check_scheme(socket_path)
            self.socket_paths = socket_candidates(socket_path)
        self.socket_path = self.socket_paths[0]
        self.timeout = timeout
        self._lock = threading.Lock()
        self._conn: _SyncConn | WebSocketConn | None = None
        self._streams: weakref.WeakSet[AlertStream] = weakref.WeakSet()
        self._streams_lock = threading.Lock()
        self._closed = False

    # --- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the connection and every alert stream this client created."""
        self._closed = True
        with self._streams_lock:
            streams = list(self._streams)
        for s in streams:
            s.close()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Client:
        return self

    def _exit(self, ok: bool) -> None:
        self.close()

    # --- calls ---------------------------------------------------------------------

    def call(self, method: str, /, **params: Any) -> JSONObject:
        """Call ``method`` with ``params``; returns its result object."""
        return self._request(method, params or None, self.timeout)

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: Any = DEFAULT
    ) -> JSONObject:
        """Like :meth:`call`, with params as a mapping and an optional per-call timeout."""
        t: float | None = self.timeout if timeout is DEFAULT else timeout
        return self._request(method, dict(params) if params else None, t)

    def _request(self, method: str, params: JSONObject | None, t: float | None) -> JSONObject:
        if self._closed:
            raise ClientError("the client is closed")
        if t is None:
            deadline = None
            self._lock.acquire()
        else:
            deadline = time.monotonic() + t
            if not self._lock.acquire(True, t if t > 0 else 0):
                raise Timeout(f"{method}: other calls on this client did not finish in time")
        try:
            msg = self._exchange(method, params, deadline)
        finally:
            self._lock.release()
        return answer(method, msg, self._offer)

    def _exchange(self, method: str, params: JSONObject | None, deadline: float | None) -> JSONObject:
        retry = Retry(method)
        while True:
            conn = self._conn
            if conn is None:
                conn = self._conn = _connect(self.socket_paths, deadline, self._remote)
            rid = conn.next_id
            conn.next_id += 1
            try:
                conn.send(encode_request(rid, method, params), deadline)
            except NotSent:
                self._drop()  # a connection that died before (labeld restarted)
                retry.not_sent(conn.path)
                continue
            except Eof:
                # labeld closed the connection while taking the request (a line too long
                # for it is answered, then closed): its answer may already be here
                salvage = True
                read_by: float | None = time.monotonic() + 0.5
                if deadline is not None and deadline < time.monotonic() + 0.5:
                    read_by = deadline
            except BaseException:
                self._drop()
                raise
            else:
                salvage = False
                read_by = deadline
            try:
                while True:
                    msg = conn.read_message(read_by)
                    if "method" in msg and "id" not in msg:
                        continue  # a notification (this connection subscribed to something)
                    mid = msg.get("id")
                    if mid == rid or (mid is None and "error" in msg):
                        if salvage:
                            self._drop()
                        return msg
                    # an answer to an earlier request on this connection: not ours
            except (Eof, Timeout) as e:
                self._drop()
                if isinstance(e, Timeout) and not salvage:
                    raise
                retry.answer_lost(conn.path)
                continue
            except BaseException:
                # a timeout, a protocol violation, an interrupt: the connection's state is
                # unknown (an answer may still come), so the next call starts afresh
                self._drop()
                raise

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _offer(self, alert: Alert) -> None:
        with self._streams_lock:
            streams = list(self._streams)
        for s in streams:
            s._offer(alert)

    # --- typed helpers (what each sends and returns: _methods) ----------------------

    def _typed(self, call: m.Call[T]) -> T:
        return call.result(self.request(call.method, call.params))

    def hello(self, client: str | None = "labeld_client (python)") -> HelloResult:
        return self._typed(m.hello(client))

    def printers(self) -> list[Printer]:
        return self._typed(m.printers())

    def printer(self, printer_id: str) -> Printer:
        return self._typed(m.printer(printer_id))

    def refresh_printers(self) -> list[Printer]:
        return self._typed(m.refresh_printers())

    def simulate(self, printer: str, fault: str | None) -> Printer:
        """Give simulated printer ``printer`` the fault ``fault`` (None clears it)."""
        return self._typed(m.simulate(printer, fault))

    def products(self, limit: int | None = None, after: str | None = None) -> Page[Product]:
        return self._typed(m.products(limit, after))

    def all_products(self, page_size: int = 500) -> Iterator[Product]:
        after: str | None = None
        while True:
            page = self.products(limit=page_size, after=after)
            yield from page.items
            if page.next is None:
                return
            after = str(page.next)

    def product(self, sku: str) -> Product:
        return self._typed(m.product(sku))

    def save_product(
        self,
        product: m.ProductLike,
        expected_version: int | None = None,
        print: Mapping[str, Any] | None = None,  # noqa: A002 - the protocol's name
    ) -> SaveResult:
        return self._typed(m.save_product(product, expected_version, print))

    def delete_product(self, sku: str) -> bool:
        return self._typed(m.delete_product(sku))

    def templates(self, limit: int | None = None, after: str | None = None) -> Page[JSONObject]:
        return self._typed(m.templates(limit, after))

    def template(self, name: str) -> JSONObject:
        return self._typed(m.template(name))

    def save_template(self, template: Mapping[str, Any]) -> JSONObject:
        return self._typed(m.save_template(template))

    def render(
        self,
        template: str,
        sku: str | None = None,
        data: Mapping[str, Any] | None = None,
        printer: str | None = None,
        language: str | None = None,
        format: str = "png",  # noqa: A002 - the protocol's name
        dpi: int | None = None,
    ) -> RenderResult:
        return self._typed(m.render(template, sku, data, printer, language, format, dpi))

    def submit(
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
        return self._typed(call)

    def job(self, job_id: int) -> Job:
        return self._typed(m.job(job_id))

    def cancel(self, job_id: int) -> Job:
        return self._typed(m.cancel(job_id))

    def jobs(
        self,
        printer: str | None = None,
        states: list[str] | None = None,
        limit: int | None = None,
        after: int | None = None,
    ) -> Page[Job]:
        return self._typed(m.jobs(printer, states, limit, after))

    def active_alerts(self) -> list[Alert]:
        return self._typed(m.active_alerts())

    def dismiss(self, alert_id: str) -> bool:
        return self._typed(m.dismiss(alert_id))

    def devices(self) -> JSONObject:
        return self._typed(m.devices())

    def create_token(self, name: str, role: str) -> JSONObject:
        """A web-endpoint token (administrators): ``{"token", "secret"}``, the secret shown once."""
        return self._typed(m.create_token(name, role))

    def tokens(self) -> list[JSONObject]:
        return list(self._typed(m.tokens())["tokens"])

    def revoke_token(self, name: str) -> JSONObject:
        """``{"revoked", "closed"}``: open connections of the token are closed at once."""
        return self._typed(m.revoke_token(name))

    # --- streams -------------------------------------------------------------------

    def alerts(
        self, since: int | None = None, resume_file: str | os.PathLike[str] | None = None
    ) -> AlertStream:
        """Every alert event after the starting point, exactly once, in seq order, and a
        :class:`Gap` where labeld no longer had some. Runs on a connection of its own
        until closed (``with client.alerts() as stream: for item in stream: ...``)."""
        stream = AlertStream(self, since=since, resume_file=resume_file)
        with self._streams_lock:
            self._streams.add(stream)
        stream._start()
        return stream

    def _forget(self, stream: AlertStream) -> None:
        with self._streams_lock:
            self._streams.discard(stream)

    def job_updates(self, job_id: int, timeout: float | None = None) -> Iterator[Job]:
        """Each change of job ``job_id`` up to and including its terminal state, across
        reconnects (while labeld is not running, it keeps trying). ``timeout`` bounds the
        whole sequence (Timeout), None: no bound. An :class:`Unreachable` for a socket this
        user may not open is raised at once."""
        return self._job_updates(job_id, deadline_in(timeout))

    def wait_job(self, job_id: int, timeout: float | None = None) -> Job:
        """The job once it is completed, canceled or aborted (Timeout after ``timeout``)."""
        gen = self._job_updates(job_id, deadline_in(timeout))
        try:
            last: Job | None = None
            for last in gen:
                if last.terminal:
                    return last
            raise ProtocolViolation(f"job {job_id}'s updates ended before a terminal state")
        finally:
            gen.close()

    def _job_updates(self, job_id: int, deadline: float | None) -> Generator[Job, None, None]:
        watch = JobWatch(job_id)
        while True:
            try:
                conn = _connect(self.socket_paths, deadline, self._remote)
            except Unreachable as e:
                if e.lasting:
                    raise  # no permission: waiting does not mend it
                _sleep_within(watch.backoff.next_delay(), deadline, e)
                continue
            try:
                conn.send(watch.subscribe(), deadline)
                while True:
                    out = watch.on_message(conn.read_message(deadline))
                    if isinstance(out, bytes):
                        conn.send(out, deadline)
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
            _sleep_within(watch.backoff.next_delay(), deadline, None)


def _sleep_within(delay: float, deadline: float | None, cause: BaseException | None) -> None:
    pause, late = paced(delay, deadline)
    time.sleep(pause)
    if late is not None:
        raise late from cause


class AlertStream(Closing):
    """An iterator of :class:`Alert` and :class:`Gap` items (see ``Client.alerts``).

    A thread of its own reads the stream's connection, reconnecting with back-off, and
    keeps at most ``max_ready`` items ahead of the consumer (then it stops reading, and a
    consumer that falls far behind is sent ``overflow`` and resumes). While labeld is not
    running it keeps trying; an :class:`Unreachable` for a socket this user may not open
    is raised from ``next()`` at once; the stream tries again (after the back-off) only
    when ``next()`` is called again, as the Swift kit's does.

    What a retry cannot mend ends the stream (``errors.ENDS_STREAMS``: a refused or revoked
    token, a certificate not trusted, no WebSocket support, a protocol violation): the
    reader stops, and ``next()`` (and so a ``for`` loop) raises it once the items read
    before it are handed out, again each time it is asked. The reader never dies unseen:
    whatever stops it is raised to the consumer the same way (``failure``).
    """

    max_ready = 1024

    def __init__(
        self,
        client: Client,
        since: int | None = None,
        resume_file: str | os.PathLike[str] | None = None,
    ) -> None:
        self._client_ref = weakref.ref(client)
        self._paths = client.socket_paths
        self._remote = client._remote
        self._timeout = client.timeout
        self._lock = threading.Lock()
        self._not_empty = threading.Condition(self._lock)
        self._not_full = threading.Condition(self._lock)
        # a consumer waiting in next(): what a reader stopped by a lasting error waits for
        self._asked = threading.Condition(self._lock)
        self._asking = 0
        # every call into the core holds the lock: the core wakes the two sides through it
        self._core = StreamCore(
            since, resume_file, wake=self._not_empty.notify_all, room=self._not_full.notify
        )
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name="labeld-alerts", daemon=True)
        #: connections made, overflow notifications received, last transport problem
        self.connects = 0
        self.overflows = 0
        self.last_error: BaseException | None = None

    def _start(self) -> None:
        self._thread.start()

    @property
    def position(self) -> int | None:
        """The seq of the last event handed out or accounted for (None: fresh)."""
        with self._lock:
            return self._core.sync.position

    # --- consumer side -------------------------------------------------------------

    def __iter__(self) -> AlertStream:
        return self

    def __next__(self) -> Alert | Gap:
        item = self.next()
        assert item is not None  # no timeout: it waits
        return item

    @property
    def failure(self) -> ClientError | None:
        """What ended the stream (see the class), or None while it runs."""
        return self._core.failure

    @overload
    def next(self, timeout: None = None) -> Alert | Gap: ...
    @overload
    def next(self, timeout: float) -> Alert | Gap | None: ...

    def next(self, timeout: float | None = None) -> Alert | Gap | None:
        """The next item, waiting for it; with ``timeout``, None when none came within
        that many seconds (a quiet channel is no error: nothing is wrong, nothing was
        lost). Raises only what the stream has to say (``failure``, a socket this user may
        not open, labeld's refusal of the subscribe) and StopIteration once closed."""
        deadline = deadline_in(timeout)
        with self._lock:
            while True:
                item = self._core.take()
                if item is not None:
                    return item
                if self._core.closed:
                    raise StopIteration
                self._asking += 1
                self._asked.notify_all()
                try:
                    if deadline is None:
                        self._not_empty.wait()
                    else:
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            return None
                        self._not_empty.wait(remaining)
                finally:
                    self._asking -= 1

    def close(self, *, handled: bool = True) -> None:
        """Stop the stream and close its connection. With a resume file, the item handed
        out last counts as handled (its position is stored) unless ``handled`` is False."""
        with self._lock:
            if not self._core.close(handled):
                return
            self._not_empty.notify_all()
            self._not_full.notify_all()
            self._asked.notify_all()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
        os.close(self._wake_r)
        os.close(self._wake_w)
        client = self._client_ref()
        if client is not None:
            client._forget(self)

    def __enter__(self) -> AlertStream:
        return self

    def _exit(self, ok: bool) -> None:
        self.close(handled=ok)

    def _offer(self, alert: Alert) -> None:
        with self._lock:
            self._core.offer(alert)

    # --- the reader thread ---------------------------------------------------------

    def _wait_room(self) -> None:
        with self._lock:
            while len(self._core.ready) >= self.max_ready and not self._core.closed:
                self._not_full.wait()

    def _sleep(self, delay: float) -> bool:
        """Sleep unless closed meanwhile; True when closed."""
        r, _, _ = select.select([self._wake_r], [], [], delay)
        return bool(r) or self._core.closed

    def _wait_asked(self) -> bool:
        """Wait until the consumer has taken the error posted and asks for more (or the
        stream is closed); True when closed."""
        with self._lock:
            core = self._core
            while not core.closed and (core.error is not None or self._asking == 0):
                self._asked.wait()
            return core.closed

    def _run(self) -> None:
        """The reader thread: whatever ends it is the consumer's to see, never a traceback
        on stderr and a consumer left waiting."""
        try:
            self._read()
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            with self._lock:
                self._core.fail(e)

    def _read(self) -> None:
        core = self._core
        while not core.closed:
            try:
                conn = _connect(self._paths, deadline_in(self._timeout), self._remote)
            except ENDS_STREAMS as e:
                self.last_error = e
                with self._lock:
                    core.fail(e)
                return
            except (Unreachable, Timeout, OSError) as e:
                self.last_error = e
                if isinstance(e, Unreachable) and e.lasting:
                    # no permission: waiting does not mend it. Raised to the consumer at
                    # once; tried again (after the back-off) when the consumer asks again
                    with self._lock:
                        core.post(e)
                    if self._wait_asked():
                        return
                if self._sleep(core.backoff.next_delay()):
                    return
                continue
            overflow = False
            error: Exception | None = None
            try:
                conn.watch(self._wake_r)
                self._session(conn)
            except _Woken:
                return
            except Overflow:
                overflow = True
            except Exception as e:
                error = self.last_error = e
            finally:
                conn.close()
                with self._lock:
                    core.disconnected(error)
            if core.ended:
                return
            if overflow:
                self.overflows += 1
                continue
            if self._sleep(core.backoff.next_delay()):
                return

    def _session(self, conn: _SyncConn | WebSocketConn) -> None:
        """Runs one connection until it ends (Overflow: labeld dropped it)."""
        core = self._core
        with self._lock:
            request: bytes | None = core.subscribe()
        self.connects += 1
        answer_by: float | None = None
        while True:
            if request is not None:
                conn.send(request, deadline_in(self._timeout))
                answer_by = deadline_in(self._timeout)
            msg = conn.read_message(answer_by if core.answer_due else None)
            with self._lock:
                request = core.on_message(msg)
            if conn.pending == 0 or len(core.ready) >= self.max_ready:
                self._wait_room()
                if core.closed:
                    raise _Woken()
