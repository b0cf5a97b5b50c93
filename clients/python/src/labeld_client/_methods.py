"""The typed helpers, once for Client and AsyncClient.

Each function here builds a :class:`Call`: the method, its params and how its result is
read. A client's helper only carries it over its transport
(``call.result(self.request(call.method, call.params))``, awaited or not), so what a
helper sends and what it returns cannot drift apart between the two clients.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .errors import ProtocolViolation
from .models import Alert, HelloResult, Job, Page, Printer, Product, ProductInput, RenderResult, SaveResult

JSONObject = dict[str, Any]

ProductLike = ProductInput | Product | Mapping[str, Any]

T = TypeVar("T")

#: Reads a result object; the method's name is for the messages of what it raises.
Read = Callable[[JSONObject, str], T]


@dataclass(slots=True)  # not frozen: one is built for every call, and frozen costs twice as much
class Call(Generic[T]):
    method: str
    params: JSONObject | None
    read: Read[T]

    def result(self, result: JSONObject) -> T:
        return self.read(result, self.method)


# --- reading results ---------------------------------------------------------------------


def _member(result: JSONObject, key: str, method: str) -> Any:
    if key not in result:
        raise ProtocolViolation(f"{method} result has no {key!r}")
    return result[key]


def _list(result: JSONObject, key: str, method: str) -> list[Any]:
    v = _member(result, key, method)
    if not isinstance(v, list):
        raise ProtocolViolation(f"{method} result's {key!r} is not an array")
    return v


def _one(key: str, convert: Callable[[Any], T]) -> Read[T]:
    return lambda result, method: convert(_member(result, key, method))


def _each(key: str, convert: Callable[[Any], T]) -> Read[list[T]]:
    return lambda result, method: [convert(v) for v in _list(result, key, method)]


def _paged(items: Read[list[T]]) -> Read[Page[T]]:
    def read(result: JSONObject, method: str) -> Page[T]:
        n = result.get("next")
        after = n if isinstance(n, (str, int)) and not isinstance(n, bool) else None
        return Page(items=items(result, method), next=after)

    return read


def _hello(result: JSONObject, method: str) -> HelloResult:
    return HelloResult.from_json(result)


def _raw(result: JSONObject, method: str) -> JSONObject:
    return result


def _flag(key: str) -> Read[bool]:
    return lambda result, method: result.get(key) is True


def _template(result: JSONObject, method: str) -> JSONObject:
    t = _member(result, "template", method)
    if not isinstance(t, dict):
        raise ProtocolViolation(f"{method} result's template is not an object")
    return t


def _templates(result: JSONObject, method: str) -> list[JSONObject]:
    return [t for t in _list(result, "templates", method) if isinstance(t, dict)]


_printer = _one("printer", Printer.from_json)
_printers = _each("printers", Printer.from_json)
_product = _one("product", Product.from_json)
_job = _one("job", Job.from_json)


def _saved(result: JSONObject, method: str) -> SaveResult:
    job = result.get("job")
    return SaveResult(
        product=_product(result, method), job=Job.from_json(job) if job is not None else None
    )


def _rendered(result: JSONObject, method: str) -> RenderResult:
    data = _member(result, "data", method)
    if not isinstance(data, str):
        raise ProtocolViolation(f"{method} result's data is not a string")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ProtocolViolation(f"{method} result's data is not base64") from e
    fmt = result.get("format")
    mt = result.get("mediaType")
    w = result.get("width")
    h = result.get("height")
    return RenderResult(
        format=fmt if isinstance(fmt, str) else "",
        media_type=mt if isinstance(mt, str) else "",
        data=raw,
        width=w if isinstance(w, int) and not isinstance(w, bool) else None,
        height=h if isinstance(h, int) and not isinstance(h, bool) else None,
    )


# --- building params ---------------------------------------------------------------------


def _given(**params: Any) -> JSONObject:
    """The params that are not None: the protocol's optional members are left out."""
    return {k: v for k, v in params.items() if v is not None}


def _product_json(p: ProductLike) -> JSONObject:
    if isinstance(p, (ProductInput, Product)):
        return p.to_json()
    return {k: v for k, v in p.items() if k not in ("version", "updatedAt")}


def _copy(m: Mapping[str, Any] | None) -> JSONObject | None:
    return None if m is None else dict(m)


def _document(document: bytes | str | None, document_format: str) -> JSONObject | None:
    if document is None:
        return None
    raw = document.encode("utf-8") if isinstance(document, str) else bytes(document)
    return {"format": document_format, "data": base64.b64encode(raw).decode("ascii")}


# --- the helpers, in the clients' order -----------------------------------------------------


def hello(client: str | None) -> Call[HelloResult]:
    return Call("hello", {"client": client} if client is not None else None, _hello)


def printers() -> Call[list[Printer]]:
    return Call("printers.list", None, _printers)


def printer(printer_id: str) -> Call[Printer]:
    return Call("printers.get", {"printer": printer_id}, _printer)


def refresh_printers() -> Call[list[Printer]]:
    return Call("printers.refresh", None, _printers)


def simulate(printer_id: str, fault: str | None) -> Call[Printer]:
    return Call("printers.simulate", {"printer": printer_id, "fault": fault}, _printer)


def products(limit: int | None, after: str | None) -> Call[Page[Product]]:
    params = _given(limit=limit, after=after)
    return Call("products.list", params, _paged(_each("products", Product.from_json)))


def product(sku: str) -> Call[Product]:
    return Call("products.get", {"sku": sku}, _product)


def save_product(
    p: ProductLike, expected_version: int | None, print_: Mapping[str, Any] | None
) -> Call[SaveResult]:
    params = {"product": _product_json(p)} | _given(
        expectedVersion=expected_version, print=_copy(print_)
    )
    return Call("products.save", params, _saved)


def delete_product(sku: str) -> Call[bool]:
    return Call("products.delete", {"sku": sku}, _flag("deleted"))


def templates(limit: int | None, after: str | None) -> Call[Page[JSONObject]]:
    return Call("templates.list", _given(limit=limit, after=after), _paged(_templates))


def template(name: str) -> Call[JSONObject]:
    return Call("templates.get", {"name": name}, _template)


def save_template(t: Mapping[str, Any]) -> Call[JSONObject]:
    return Call("templates.save", {"template": dict(t)}, _template)


def render(
    template_name: str,
    sku: str | None,
    data: Mapping[str, Any] | None,
    printer_id: str | None,
    language: str | None,
    format_: str,
    dpi: int | None,
) -> Call[RenderResult]:
    params = {"template": template_name, "format": format_} | _given(
        sku=sku, data=_copy(data), printer=printer_id, language=language, dpi=dpi
    )
    return Call("labels.render", params, _rendered)


def submit(
    printer_id: str,
    copies: int,
    template_name: str | None,
    sku: str | None,
    data: Mapping[str, Any] | None,
    document: bytes | str | None,
    document_format: str,
) -> Call[Job]:
    params = {"printer": printer_id, "copies": copies} | _given(
        template=template_name,
        sku=sku,
        data=_copy(data),
        document=_document(document, document_format),
    )
    return Call("jobs.submit", params, _job)


def job(job_id: int) -> Call[Job]:
    return Call("jobs.get", {"job": job_id}, _job)


def cancel(job_id: int) -> Call[Job]:
    return Call("jobs.cancel", {"job": job_id}, _job)


def jobs(
    printer_id: str | None, states: list[str] | None, limit: int | None, after: int | None
) -> Call[Page[Job]]:
    states_ = None if states is None else list(states)
    params = _given(limit=limit, after=after, printer=printer_id, states=states_)
    return Call("jobs.list", params, _paged(_each("jobs", Job.from_json)))


def active_alerts() -> Call[list[Alert]]:
    return Call("alerts.active", None, _each("alerts", Alert.from_json))


def dismiss(alert_id: str) -> Call[bool]:
    return Call("alerts.dismiss", {"id": alert_id}, _flag("dismissed"))


def devices() -> Call[JSONObject]:
    return Call("devices.list", None, _raw)


def create_token(name: str, role: str) -> Call[JSONObject]:
    """labeld addition, administrators only: ``{"token": {...}, "secret"}``."""
    return Call("tokens.create", {"name": name, "role": role}, _raw)


def tokens() -> Call[JSONObject]:
    return Call("tokens.list", None, _raw)


def revoke_token(name: str) -> Call[JSONObject]:
    return Call("tokens.revoke", {"name": name}, _raw)

