"""Exceptions: one class per protocol error code, plus the transport's own.

Every error labeld answers is a :class:`LabeldError` (``.code``, ``.message``,
``.data``) or one of its subclasses; problems of the connection itself are
:class:`ClientError` subclasses that are not ``LabeldError``.
"""

from __future__ import annotations

import errno as _errno
import grp
import os
import stat as _stat
from typing import Any

from ._base import ClientError, ProtocolViolation
from .models import Alert

__all__ = [
    "ClientError",
    "Unreachable",
    "ConnectionLost",
    "Timeout",
    "ProtocolViolation",
    "Unauthorized",
    "CertificateRejected",
    "TransportUnsupported",
    "ENDS_STREAMS",
    "LabeldError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "PrinterNotFound",
    "PrinterNotAccepting",
    "JobNotFound",
    "SaveFailed",
    "NotPermitted",
    "NotFound",
    "Unsupported",
    "TooManyJobs",
    "error_from_wire",
    "unreachable_error",
    "permission_denied_message",
    "not_running_message",
]


class Unreachable(ClientError):
    """The socket could not be connected to.

    ``not_running`` (nothing listens at ``path``: ENOENT, ECONNREFUSED) and
    ``permission_denied`` (EACCES, EPERM: never "start it") tell the two usual causes
    apart; neither is set for anything else (``errno``). ``group`` is the socket's group
    when it was known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str,
        permission_denied: bool = False,
        group: str | None = None,
        not_running: bool = False,
        errno: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.permission_denied = permission_denied
        self.group = group
        self.not_running = not_running
        self.errno = errno

    @property
    def lasting(self) -> bool:
        """Whether waiting cannot mend it: labeld may come back, but a missing permission
        does not come by itself (a new group takes a new login). Streams and job
        sequences raise a lasting one at once and keep trying after any other (the Swift
        kit's ``Unreachable.isLasting``)."""
        return self.permission_denied


class ConnectionLost(ClientError):
    """The connection dropped before the answer came: the request may or may not have run."""


class Timeout(ClientError):
    """No answer within the call's timeout."""


class Unauthorized(ClientError):
    """labeld's web endpoint refused the sign-in: the token is missing, wrong or revoked
    (HTTP ``status`` 401), or the request's origin is not allowed (403). ``url`` is the
    endpoint. A retry with the same token does not mend it: calls raise it, and an alert
    stream or job sequence ends with it, also when the token is revoked while it runs
    (labeld closes the token's connections; the reconnect is refused). The Swift kit's
    ``.unauthorized``."""

    def __init__(self, message: str, *, url: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.url = url
        self.status = status


class CertificateRejected(ClientError):
    """The server's TLS certificate is not the one this client trusts, so nothing was sent
    over it, the token least of all. With ``fingerprint=``: ``presented`` (the
    certificate's SHA-256, written as labeld logs it, ``AB:CD:…``) is not ``pinned``.
    Otherwise the certificate did not verify against ``cafile=`` or the system's CAs
    (``presented`` and ``pinned`` are None; ``reason`` says why). The Swift kit's
    ``.certificateRejected``."""

    def __init__(
        self,
        message: str,
        *,
        url: str,
        presented: str | None = None,
        pinned: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.url = url
        self.presented = presented
        self.pinned = pinned
        self.reason = reason


class TransportUnsupported(ClientError):
    """This client cannot speak the transport asked for: a ``ws://`` or ``wss://`` URL
    without the ``websockets`` package (``pip install './clients/python[websocket]'``
    from a clone of labeld), or a URL whose scheme is neither. The Swift kit's
    ``.transportUnsupported``."""


#: What a retry cannot mend: an alert stream or job sequence ends with one of these (its
#: reader stops; ``next()`` raises it, again each time it is asked, once the items read
#: before it are handed out). A stream keeps trying after any other error.
ENDS_STREAMS: tuple[type[ClientError], ...] = (
    Unauthorized,
    CertificateRejected,
    TransportUnsupported,
    ProtocolViolation,
)


class LabeldError(ClientError):
    """An error answered by labeld: ``code``, ``message`` and ``data`` as on the wire."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (labeld error {code})")
        self.code = code
        self.message = message
        self.data = data

    def _field(self, name: str) -> Any:
        return self.data.get(name) if isinstance(self.data, dict) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class ParseError(LabeldError):
    """-32700: the line was not JSON."""


class InvalidRequest(LabeldError):
    """-32600: not a JSON-RPC request object, or a message too large."""


class MethodNotFound(LabeldError):
    """-32601."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.method: str | None = _str_or_none(self._field("method"))


class InvalidParams(LabeldError):
    """-32602: ``field`` is a path into the params, ``reason`` what is wrong with it."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.field: str | None = _str_or_none(self._field("field"))
        self.reason: str | None = _str_or_none(self._field("reason"))


class InternalError(LabeldError):
    """-32603: a bug in labeld."""


class PrinterNotFound(LabeldError):
    """1001."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.printer: str | None = _str_or_none(self._field("printer"))


class PrinterNotAccepting(LabeldError):
    """1002."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.printer: str | None = _str_or_none(self._field("printer"))
        self.reason: str | None = _str_or_none(self._field("reason"))


class JobNotFound(LabeldError):
    """1003."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.job: int | None = _int_or_none(self._field("job"))


class SaveFailed(LabeldError):
    """1004: labeld could not keep valid data.

    ``alert`` is the saveError alert (with its ``seq``) that labeld also published on
    the alert channel; the client hands it to its running alert streams, so an app
    that shows alerts from a stream shows the failure once.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.alert: Alert | None = None
        if isinstance(data, dict):
            try:
                self.alert = Alert.from_json(data)
            except ProtocolViolation:
                self.alert = None
        self.reason: str | None = self.alert.reason if self.alert else _str_or_none(self._field("reason"))
        conflict = self.reason == "conflict"
        self.expected_version: int | None = (
            self.alert.expected_version if (self.alert and conflict) else None
        )
        self.stored_version: int | None = self.alert.stored_version if (self.alert and conflict) else None


class NotPermitted(LabeldError):
    """1005: ``uid`` is the caller's uid."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.uid: int | None = _int_or_none(self._field("uid"))


class NotFound(LabeldError):
    """1006: ``entity`` is "product" or "template", ``key`` the sku or name."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.entity: str | None = _str_or_none(self._field("entity"))
        self.key: str | None = _str_or_none(self._field("key"))


class Unsupported(LabeldError):
    """1007."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.reason: str | None = _str_or_none(self._field("reason"))


class TooManyJobs(LabeldError):
    """1008: the waiting queue is full. ``bound`` is "printer", "total" or "bytes";
    ``limit`` what it allows and ``waiting`` what waits there now; ``printer`` is named for
    a printer's own bound. Nothing was stored: try again once jobs have printed."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.bound: str | None = _str_or_none(self._field("bound"))
        self.limit: int | None = _int_or_none(self._field("limit"))
        self.waiting: int | None = _int_or_none(self._field("waiting"))
        self.printer: str | None = _str_or_none(self._field("printer"))


_BY_CODE: dict[int, type[LabeldError]] = {
    -32700: ParseError,
    -32600: InvalidRequest,
    -32601: MethodNotFound,
    -32602: InvalidParams,
    -32603: InternalError,
    1001: PrinterNotFound,
    1002: PrinterNotAccepting,
    1003: JobNotFound,
    1004: SaveFailed,
    1005: NotPermitted,
    1006: NotFound,
    1007: Unsupported,
    1008: TooManyJobs,
}


def error_from_wire(error: Any) -> LabeldError:
    """The exception for a response's ``error`` object."""
    if not isinstance(error, dict):
        raise ProtocolViolation(f"error member is not an object: {error!r}")
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        raise ProtocolViolation(f"error code is not an integer: {error!r}")
    message = error.get("message")
    if not isinstance(message, str):
        message = f"labeld error {code}"
    cls = _BY_CODE.get(code, LabeldError)
    return cls(code, message, error.get("data"))


# --- connect errors -------------------------------------------------------------------


def not_running_message(path: str, detail: str | None = None) -> str:
    """The message for ENOENT/ECONNREFUSED on connect (``detail``: the system's words),
    as the Swift kit's ``Unreachable.description`` says it."""
    why = f": {detail}" if detail else ""
    return (
        f"cannot reach labeld at {path}{why}: labeld is not running there "
        "(start it with 'systemctl start labeld', or 'make run' in a clone)"
    )


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except (KeyError, OverflowError):
        return str(gid)


def permission_denied_message(
    path: str, mode: int | None, group: str | None, *, directory: str | None = None
) -> str:
    """The message for EACCES/EPERM on connect.

    ``mode`` and ``group`` come from stat() of the socket, or of ``directory`` (the
    socket's directory) when the socket itself could not be looked at; both None when
    neither could. It never tells the user to start labeld: it is running, they may not
    reach it.
    """
    if group is None:
        return (
            f"permission denied for labeld's socket {path}: your user may not open it "
            "(ask an administrator which group may use labeld, add your user to it with "
            "`sudo usermod -aG GROUP $USER`, then log in again)"
        )
    mode_text = f"mode {mode:04o}, " if mode is not None else ""
    where = f"its directory {directory}: " if directory else ""
    return (
        f"permission denied for labeld's socket {path} ({where}{mode_text}group {group}): "
        f"your user is not in group {group}; add it with `sudo usermod -aG {group} $USER`, "
        "then log in again"
    )


def _socket_owner_group(path: str) -> tuple[int | None, str | None, str | None]:
    """(mode, group name, directory) of the socket, or of its directory (then named) when
    the socket itself cannot be looked at (a directory only its group may search)."""
    try:
        st = os.stat(path)
        return _stat.S_IMODE(st.st_mode), _group_name(st.st_gid), None
    except OSError:
        pass
    directory = os.path.dirname(path) or "."
    try:
        st = os.stat(directory)
        return _stat.S_IMODE(st.st_mode), _group_name(st.st_gid), directory
    except OSError:
        return None, None, None


def unreachable_error(path: str, exc: OSError) -> Unreachable:
    """The :class:`Unreachable` for a failed connect() to ``path``."""
    code = exc.errno
    reason = exc.strerror or (os.strerror(code) if code else str(exc))
    if code in (_errno.EACCES, _errno.EPERM):
        mode, group, directory = _socket_owner_group(path)
        return Unreachable(
            permission_denied_message(path, mode, group, directory=directory),
            path=path,
            permission_denied=True,
            group=group,
            errno=code,
        )
    if code in (_errno.ENOENT, _errno.ECONNREFUSED):
        return Unreachable(not_running_message(path, reason), path=path, not_running=True, errno=code)
    return Unreachable(f"cannot reach labeld at {path}: {reason}", path=path, errno=code)
