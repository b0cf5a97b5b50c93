"""Typed views of labeld's objects (docs/protocol.md, "Objects").

Parsing is lenient where the protocol allows it to be: unknown fields are ignored,
unknown reason, state and language strings are kept as they are. A missing required
field, or one of the wrong JSON type, is a :class:`ProtocolViolation`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

from ._base import ProtocolViolation

__all__ = [
    "REASONS",
    "TERMINAL_JOB_STATES",
    "Media",
    "Printer",
    "JobError",
    "Job",
    "Product",
    "ProductInput",
    "Alert",
    "Gap",
    "Page",
    "RenderResult",
    "SaveResult",
    "HelloResult",
    "parse_time",
]

#: The printer fault reasons protocol 1 names. Any other string reads as "unknown".
REASONS = frozenset(
    {
        "offline",
        "disconnected",
        "notFound",
        "permissionDenied",
        "busy",
        "mediaEmpty",
        "mediaJam",
        "mediaMismatch",
        "coverOpen",
        "ribbonEmpty",
        "cutterError",
        "headError",
        "paused",
        "jobRejected",
        "jobAborted",
        "communication",
        "unknown",
    }
)

TERMINAL_JOB_STATES = frozenset({"completed", "canceled", "aborted"})

T = TypeVar("T")

JSONObject = dict[str, Any]


def _obj(value: Any, what: str) -> JSONObject:
    if not isinstance(value, dict):
        raise ProtocolViolation(f"{what} is not a JSON object: {value!r:.200}")
    return value


def _req_str(o: JSONObject, key: str, what: str) -> str:
    v = o.get(key)
    if not isinstance(v, str):
        raise ProtocolViolation(f"{what}.{key} is missing or not a string")
    return v


def _req_int(o: JSONObject, key: str, what: str) -> int:
    v = o.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ProtocolViolation(f"{what}.{key} is missing or not an integer")
    return v


def _opt_str(o: JSONObject, key: str) -> str | None:
    v = o.get(key)
    return v if isinstance(v, str) else None


def _opt_int(o: JSONObject, key: str) -> int | None:
    v = o.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _opt_num(o: JSONObject, key: str) -> float | None:
    v = o.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def parse_time(text: str) -> datetime:
    """An RFC 3339 time as an aware datetime (UTC when the text says Z)."""
    try:
        t = datetime.fromisoformat(text)
    except (TypeError, ValueError) as e:
        raise ProtocolViolation(f"not an RFC 3339 time: {text!r}") from e
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return t


def _req_time(o: JSONObject, key: str, what: str) -> datetime:
    return parse_time(_req_str(o, key, what))


def _opt_time(o: JSONObject, key: str) -> datetime | None:
    v = o.get(key)
    return parse_time(v) if isinstance(v, str) else None


@dataclass(frozen=True)
class Media:
    width_mm: float
    length_mm: float  # 0: continuous
    kind: str | None = None
    red_black: bool = False

    @classmethod
    def from_json(cls, value: Any) -> Media:
        o = _obj(value, "media")
        return cls(
            width_mm=_opt_num(o, "widthMM") or 0.0,
            length_mm=_opt_num(o, "lengthMM") or 0.0,
            kind=_opt_str(o, "kind"),
            red_black=o.get("redBlack") is True,
        )


@dataclass(frozen=True)
class Printer:
    id: str
    name: str
    transport: str
    model: str
    language: str
    dpi: int
    state: str
    reasons: list[str]
    media: Media | None = None
    uri: str | None = None
    accepting: bool = True
    labels_remaining: int | None = None

    @classmethod
    def from_json(cls, value: Any) -> Printer:
        o = _obj(value, "printer")
        reasons = o.get("reasons") or []
        if not isinstance(reasons, list):
            raise ProtocolViolation("printer.reasons is not an array")
        media = o.get("media")
        return cls(
            id=_req_str(o, "id", "printer"),
            name=_opt_str(o, "name") or "",
            transport=_opt_str(o, "transport") or "",
            model=_opt_str(o, "model") or "",
            language=_opt_str(o, "language") or "unknown",
            dpi=_opt_int(o, "dpi") or 0,
            state=_opt_str(o, "state") or "idle",
            reasons=[r for r in reasons if isinstance(r, str)],
            media=Media.from_json(media) if isinstance(media, dict) else None,
            uri=_opt_str(o, "uri"),
            accepting=o.get("accepting") is not False,
            labels_remaining=_opt_int(o, "labelsRemaining"),
        )


@dataclass(frozen=True)
class JobError:
    reason: str
    message: str

    @classmethod
    def from_json(cls, value: Any) -> JobError:
        o = _obj(value, "job.error")
        return cls(reason=_opt_str(o, "reason") or "unknown", message=_opt_str(o, "message") or "")


@dataclass(frozen=True)
class JobOrigin:
    """Where a job came from: ``kind`` "socket", "web" (``user``: the token's name) or
    "ipp" (``user``: the IPP client's requesting-user-name, ``name``: its job-name)."""

    kind: str
    user: str | None = None
    name: str | None = None

    @classmethod
    def from_json(cls, value: Any) -> JobOrigin:
        o = _obj(value, "job.origin")
        return cls(kind=_opt_str(o, "kind") or "socket", user=_opt_str(o, "user"), name=_opt_str(o, "name"))


@dataclass(frozen=True)
class Job:
    id: int
    printer: str
    state: str
    copies: int
    printed: int
    created_at: datetime
    updated_at: datetime
    owner_uid: int | None = None
    error: JobError | None = None
    #: Where it came from; None from a labeld older than the field (the socket).
    origin: JobOrigin | None = None

    @property
    def terminal(self) -> bool:
        """completed, canceled or aborted: the job will not change again."""
        return self.state in TERMINAL_JOB_STATES

    @classmethod
    def from_json(cls, value: Any) -> Job:
        o = _obj(value, "job")
        owner = o.get("owner")
        err = o.get("error")
        return cls(
            id=_req_int(o, "id", "job"),
            printer=_req_str(o, "printer", "job"),
            state=_req_str(o, "state", "job"),
            copies=_opt_int(o, "copies") or 0,
            printed=_opt_int(o, "printed") or 0,
            created_at=_req_time(o, "createdAt", "job"),
            updated_at=_req_time(o, "updatedAt", "job"),
            owner_uid=_opt_int(owner, "uid") if isinstance(owner, dict) else None,
            error=JobError.from_json(err) if isinstance(err, dict) else None,
            origin=JobOrigin.from_json(o["origin"]) if isinstance(o.get("origin"), dict) else None,
        )


@dataclass(frozen=True)
class ProductInput:
    """What ``products.save`` takes: a product without ``version`` and ``updatedAt``."""

    sku: str
    name: str
    price: float | None = None
    currency: str | None = None
    barcode: str | None = None
    fields: dict[str, str] | None = None

    def to_json(self) -> JSONObject:
        o: JSONObject = {"sku": self.sku, "name": self.name}
        if self.price is not None:
            o["price"] = self.price
        if self.currency is not None:
            o["currency"] = self.currency
        if self.barcode is not None:
            o["barcode"] = self.barcode
        if self.fields is not None:
            o["fields"] = dict(self.fields)
        return o


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    version: int
    updated_at: datetime | None = None
    price: float | None = None
    currency: str | None = None
    barcode: str | None = None
    fields: dict[str, str] | None = None

    def to_input(self) -> ProductInput:
        return ProductInput(
            sku=self.sku,
            name=self.name,
            price=self.price,
            currency=self.currency,
            barcode=self.barcode,
            fields=dict(self.fields) if self.fields is not None else None,
        )

    def to_json(self) -> JSONObject:
        """The product as ``products.save`` takes it (without version and updatedAt)."""
        return self.to_input().to_json()

    @classmethod
    def from_json(cls, value: Any) -> Product:
        o = _obj(value, "product")
        fields = o.get("fields")
        return cls(
            sku=_req_str(o, "sku", "product"),
            name=_opt_str(o, "name") or "",
            version=_opt_int(o, "version") or 0,
            updated_at=_opt_time(o, "updatedAt"),
            price=_opt_num(o, "price"),
            currency=_opt_str(o, "currency"),
            barcode=_opt_str(o, "barcode"),
            fields=(
                {str(k): v for k, v in fields.items() if isinstance(v, str)}
                if isinstance(fields, dict)
                else None
            ),
        )


@dataclass(frozen=True)
class Alert:
    """One event of the alert channel (printerError or saveError)."""

    seq: int
    id: str
    kind: str
    state: str  # active | cleared | dismissed
    time: datetime
    message: str
    printer: str | None = None
    reason: str | None = None
    job: int | None = None
    entity: str | None = None
    key: str | None = None
    expected_version: int | None = None
    stored_version: int | None = None

    @property
    def active(self) -> bool:
        return self.state == "active"

    @classmethod
    def from_json(cls, value: Any) -> Alert:
        o = _obj(value, "alert")
        return cls(
            seq=_req_int(o, "seq", "alert"),
            id=_req_str(o, "id", "alert"),
            kind=_opt_str(o, "kind") or "",
            state=_req_str(o, "state", "alert"),
            time=_req_time(o, "time", "alert"),
            message=_opt_str(o, "message") or "",
            printer=_opt_str(o, "printer"),
            reason=_opt_str(o, "reason"),
            job=_opt_int(o, "job"),
            entity=_opt_str(o, "entity"),
            key=_opt_str(o, "key"),
            expected_version=_opt_int(o, "expectedVersion"),
            stored_version=_opt_int(o, "storedVersion"),
        )


@dataclass(frozen=True)
class Gap:
    """Events after ``after`` were not retained by labeld (or its journal is another one).

    ``ended``: alerts this stream had delivered as active that are no longer active and
    whose ending event was lost; withdraw them. Alerts still active follow as events.
    """

    after: int | None
    seq: int
    ended: list[Alert] = field(default_factory=list)


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next: str | int | None = None


@dataclass(frozen=True)
class RenderResult:
    format: str
    media_type: str
    data: bytes
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class SaveResult:
    product: Product
    job: Job | None = None


@dataclass(frozen=True)
class HelloResult:
    server: str
    version: str
    protocol: int

    @classmethod
    def from_json(cls, value: Any) -> HelloResult:
        o = _obj(value, "hello result")
        return cls(
            server=_opt_str(o, "server") or "",
            version=_opt_str(o, "version") or "",
            protocol=_opt_int(o, "protocol") or 0,
        )
