"""Params and result parsing of the typed helpers, shared by Client and AsyncClient."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from .errors import ProtocolViolation
from .models import (
    HelloResult,
    Job,
    Page,
    Printer,
    Product,
    ProductInput,
    RenderResult,
    SaveResult,
)

JSONObject = dict[str, Any]

ProductLike = ProductInput | Product | Mapping[str, Any]


def _member(result: JSONObject, key: str, method: str) -> Any:
    if key not in result:
        raise ProtocolViolation(f"{method} result has no {key!r}")
    return result[key]


def _list(result: JSONObject, key: str, method: str) -> list[Any]:
    v = _member(result, key, method)
    if not isinstance(v, list):
        raise ProtocolViolation(f"{method} result's {key!r} is not an array")
    return v


def hello(result: JSONObject) -> HelloResult:
    return HelloResult.from_json(result)


def printers(result: JSONObject, method: str = "printers.list") -> list[Printer]:
    return [Printer.from_json(p) for p in _list(result, "printers", method)]


def printer(result: JSONObject, method: str = "printers.get") -> Printer:
    return Printer.from_json(_member(result, "printer", method))


def page_params(limit: int | None, after: Any) -> JSONObject:
    params: JSONObject = {}
    if limit is not None:
        params["limit"] = limit
    if after is not None:
        params["after"] = after
    return params


def _next(result: JSONObject) -> str | int | None:
    n = result.get("next")
    return n if isinstance(n, (str, int)) and not isinstance(n, bool) else None


def products_page(result: JSONObject) -> Page[Product]:
    items = [Product.from_json(p) for p in _list(result, "products", "products.list")]
    return Page(items=items, next=_next(result))


def product(result: JSONObject, method: str = "products.get") -> Product:
    return Product.from_json(_member(result, "product", method))


def product_json(p: ProductLike) -> JSONObject:
    if isinstance(p, (ProductInput, Product)):
        return p.to_json()
    return {k: v for k, v in p.items() if k not in ("version", "updatedAt")}


def save_product_params(
    p: ProductLike, expected_version: int | None, print_: Mapping[str, Any] | None
) -> JSONObject:
    params: JSONObject = {"product": product_json(p)}
    if expected_version is not None:
        params["expectedVersion"] = expected_version
    if print_ is not None:
        params["print"] = dict(print_)
    return params


def save_result(result: JSONObject) -> SaveResult:
    job = result.get("job")
    return SaveResult(
        product=product(result, "products.save"),
        job=Job.from_json(job) if job is not None else None,
    )


def templates_page(result: JSONObject) -> Page[JSONObject]:
    items = _list(result, "templates", "templates.list")
    return Page(items=[t for t in items if isinstance(t, dict)], next=_next(result))


def template(result: JSONObject, method: str = "templates.get") -> JSONObject:
    t = _member(result, "template", method)
    if not isinstance(t, dict):
        raise ProtocolViolation(f"{method} result's template is not an object")
    return t


def render_params(
    template_name: str,
    sku: str | None,
    data: Mapping[str, Any] | None,
    printer_id: str | None,
    language: str | None,
    format_: str,
    dpi: int | None,
) -> JSONObject:
    params: JSONObject = {"template": template_name, "format": format_}
    if sku is not None:
        params["sku"] = sku
    if data is not None:
        params["data"] = dict(data)
    if printer_id is not None:
        params["printer"] = printer_id
    if language is not None:
        params["language"] = language
    if dpi is not None:
        params["dpi"] = dpi
    return params


def render_result(result: JSONObject) -> RenderResult:
    data = _member(result, "data", "labels.render")
    if not isinstance(data, str):
        raise ProtocolViolation("labels.render result's data is not a string")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ProtocolViolation("labels.render result's data is not base64") from e
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


def submit_params(
    printer_id: str,
    copies: int,
    template_name: str | None,
    sku: str | None,
    data: Mapping[str, Any] | None,
    document: bytes | str | None,
    document_format: str,
) -> JSONObject:
    params: JSONObject = {"printer": printer_id, "copies": copies}
    if template_name is not None:
        params["template"] = template_name
    if sku is not None:
        params["sku"] = sku
    if data is not None:
        params["data"] = dict(data)
    if document is not None:
        raw = document.encode("utf-8") if isinstance(document, str) else bytes(document)
        params["document"] = {
            "format": document_format,
            "data": base64.b64encode(raw).decode("ascii"),
        }
    return params


def job(result: JSONObject, method: str = "jobs.get") -> Job:
    return Job.from_json(_member(result, "job", method))


def jobs_params(
    printer_id: str | None, states: list[str] | None, limit: int | None, after: int | None
) -> JSONObject:
    params = page_params(limit, after)
    if printer_id is not None:
        params["printer"] = printer_id
    if states is not None:
        params["states"] = list(states)
    return params


def jobs_page(result: JSONObject) -> Page[Job]:
    items = [Job.from_json(j) for j in _list(result, "jobs", "jobs.list")]
    return Page(items=items, next=_next(result))


def alerts_list(result: JSONObject) -> list[Any]:
    return _list(result, "alerts", "alerts.active")


def dismissed(result: JSONObject) -> bool:
    return result.get("dismissed") is True
