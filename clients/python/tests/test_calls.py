"""Calls and typed results against a real labeld, for Client and AsyncClient (``kit``)."""

from __future__ import annotations

import threading
from datetime import timezone
from typing import Any

import pytest
from conftest import KIT_TOKEN
from helpers import ZPL

from labeld_client import (
    Alert,
    HelloResult,
    Job,
    NotFound,
    Page,
    Printer,
    Product,
    ProductInput,
    RenderResult,
    SaveResult,
)
from labeld_client.pytest_plugin import LabeldInstance

TEMPLATE: dict[str, Any] = {
    "name": "mini",
    "media": {"widthMM": 50.8, "lengthMM": 25.4},
    "elements": [
        {"type": "text", "x": 1, "y": 1, "width": 48, "height": 8, "text": "${name}"},
        {"type": "barcode", "x": 4, "y": 10, "symbology": "ean13", "data": "${barcode}", "height": 10},
    ],
}

PENCIL = ProductInput(
    sku="PEN-HB-12",
    name="Pencil HB, 12 pack",
    price=2.49,
    currency="EUR",
    barcode="4006381333931",
    fields={"origin": "DE"},
)


def test_hello_and_printers(kit: Any) -> None:
    hello = kit.hello()
    assert isinstance(hello, HelloResult)
    assert (hello.server, hello.protocol) == ("labeld", 1)
    assert hello.version

    printers = kit.printers()
    assert [p.id for p in printers] == ["sim:zebra", "sim:ql"]
    zebra, ql = printers
    assert isinstance(zebra, Printer)
    assert (zebra.language, zebra.dpi, zebra.transport, zebra.state) == ("zpl", 203, "sim", "idle")
    assert zebra.media is not None and zebra.media.width_mm == pytest.approx(50.8)
    assert ql.language == "brother-ql" and ql.media is not None and ql.media.length_mm == 0
    assert ql.accepting and ql.reasons == []

    assert kit.printer("sim:ql") == ql
    assert [p.id for p in kit.refresh_printers()] == ["sim:zebra", "sim:ql"]
    assert kit.devices()["enabled"] is False
    raw = kit.call("hello", client="raw")
    assert raw["server"] == "labeld"


def test_faults_and_alerts(kit: Any) -> None:
    p = kit.simulate("sim:zebra", "mediaEmpty")
    assert p.reasons == ["mediaEmpty"] and p.state == "stopped"
    active = kit.active_alerts()
    assert [a.id for a in active] == ["printerError:sim:zebra"]
    alert = active[0]
    assert isinstance(alert, Alert)
    assert (alert.kind, alert.state, alert.printer, alert.reason) == (
        "printerError",
        "active",
        "sim:zebra",
        "mediaEmpty",
    )
    assert alert.time.tzinfo is not None and alert.time.utcoffset() == timezone.utc.utcoffset(None)
    assert kit.dismiss(alert.id) is True
    assert kit.dismiss(alert.id) is False
    assert kit.active_alerts() == []
    assert kit.simulate("sim:zebra", None).reasons == []


def test_products(kit: Any) -> None:
    saved = kit.save_product(PENCIL, expected_version=0)
    assert isinstance(saved, SaveResult) and saved.job is None
    p = saved.product
    assert isinstance(p, Product)
    assert (p.sku, p.version, p.price, p.currency, p.fields) == (
        "PEN-HB-12",
        1,
        2.49,
        "EUR",
        {"origin": "DE"},
    )
    assert p.updated_at is not None and p.updated_at.tzinfo is not None
    # a Product goes back in as it came out (version/updatedAt are not sent)
    again = kit.save_product(p, expected_version=1).product
    assert again.version == 2
    # and a plain dict works too
    assert kit.save_product({"sku": "ERASER-1", "name": "Eraser"}).product.version == 1
    for i in range(3):
        kit.save_product(ProductInput(sku=f"BOOK-{i}", name=f"Notebook {i}"))
    assert kit.product("PEN-HB-12") == again

    first = kit.products(limit=2)
    assert isinstance(first, Page)
    assert [x.sku for x in first.items] == ["BOOK-0", "BOOK-1"] and first.next == "BOOK-1"
    rest = kit.products(limit=10, after=first.next)
    assert [x.sku for x in rest.items] == ["BOOK-2", "ERASER-1", "PEN-HB-12"] and rest.next is None
    assert [x.sku for x in kit.all_products(page_size=2)] == [
        "BOOK-0",
        "BOOK-1",
        "BOOK-2",
        "ERASER-1",
        "PEN-HB-12",
    ]

    assert kit.delete_product("ERASER-1") is True
    with pytest.raises(NotFound) as e:
        kit.product("ERASER-1")
    assert (e.value.entity, e.value.key) == ("product", "ERASER-1")


def test_all_products_pages_of_500(labeld: LabeldInstance) -> None:
    client = labeld.client()
    asked: list[Any] = []
    real = client.request

    def spy(method: str, params: Any = None, **kw: Any) -> Any:
        asked.append((method, dict(params or {})))
        return real(method, params, **kw)

    client.request = spy  # type: ignore[method-assign]
    for i in range(3):
        client.save_product(ProductInput(sku=f"S{i}", name="x"))
    assert [p.sku for p in client.all_products()] == ["S0", "S1", "S2"]
    assert asked[-1] == ("products.list", {"limit": 500})


def test_templates_and_render(kit: Any, labeld: LabeldInstance) -> None:
    saved = kit.save_template(TEMPLATE)
    assert saved["name"] == "mini" and saved["media"] == {"lengthMM": 25.4, "widthMM": 50.8}
    assert kit.template("mini") == saved
    page = kit.templates()
    assert [t["name"] for t in page.items] == ["mini"] and page.next is None

    png = kit.render("mini", data={"name": "OK", "barcode": "4006381333931"}, language="zpl")
    assert isinstance(png, RenderResult)
    assert png.data.startswith(b"\x89PNG\r\n\x1a\n") and png.media_type == "image/png"
    assert (png.width, png.height) == (406, 203)  # 50.8 x 25.4 mm at 203 dpi

    kit.save_product(PENCIL)
    native = kit.render("mini", sku="PEN-HB-12", printer="sim:zebra", format="native")
    assert native.media_type == "application/vnd.zebra-zpl"
    assert native.data.startswith(b"^XA") and b"Pencil HB, 12 pack" in native.data

    # what the printer got is exactly what render said it would get
    job = kit.submit("sim:zebra", template="mini", sku="PEN-HB-12")
    done = kit.wait_job(job.id, timeout=30)
    assert done.state == "completed" and done.printed == 1
    assert labeld.sim_output("zebra", job.id) == native.data


def test_submit_wait_and_output(kit: Any, labeld: LabeldInstance) -> None:
    job = kit.submit("sim:zebra", copies=2, document=ZPL)
    assert isinstance(job, Job)
    assert (job.printer, job.copies, job.state) == ("sim:zebra", 2, "pending")
    assert job.created_at.tzinfo is not None and job.owner_uid is not None
    done = kit.wait_job(job.id, timeout=30)
    assert (done.state, done.printed, done.terminal) == ("completed", 2, True)
    assert kit.job(job.id) == done
    assert labeld.sim_output("zebra", job.id) == ZPL * 2

    # a template on the QL: the raster it got is what labels.render said it would get
    kit.save_template(TEMPLATE)
    kit.save_template(TEMPLATE | {"name": "wide", "media": {"widthMM": 62, "lengthMM": 29}})
    values = {"name": "QL", "barcode": "4006381333931"}
    native = kit.render("wide", data=values, printer="sim:ql", format="native")
    qjob = kit.submit("sim:ql", template="wide", data=values)
    assert kit.wait_job(qjob.id, timeout=30).state == "completed"
    assert labeld.sim_output("ql", qjob.id) == native.data and len(native.data) > 1000

    # a PNG document (a zebra preview) printed as is: one ^GFA graphic
    preview = kit.render("mini", data={"name": "PNG", "barcode": "4006381333931"}, printer="sim:zebra")
    pjob = kit.submit("sim:zebra", document=preview.data, document_format="png")
    assert kit.wait_job(pjob.id, timeout=30).state == "completed"
    out = labeld.sim_output("zebra", pjob.id)
    assert out is not None and out.startswith(b"^XA") and b"^GFA" in out

    # listing, paging, cancelling a waiting job
    kit.simulate("sim:zebra", "coverOpen")
    waiting = kit.submit("sim:zebra", document=ZPL)
    listed = kit.jobs(printer="sim:zebra", states=["pending", "held"])
    assert [j.id for j in listed.items] == [waiting.id]
    assert [j.id for j in kit.jobs(limit=1).items] == [job.id] and kit.jobs(limit=1).next == job.id
    canceled = kit.cancel(waiting.id)
    assert canceled.state == "canceled"
    assert kit.wait_job(waiting.id, timeout=10).state == "canceled"
    assert labeld.sim_output("zebra", waiting.id) is None
    kit.simulate("sim:zebra", None)


def test_save_and_print(kit: Any, labeld: LabeldInstance) -> None:
    kit.save_template(TEMPLATE)
    result = kit.save_product(PENCIL, print={"printer": "sim:zebra", "template": "mini", "copies": 2})
    assert result.product.version == 1 and result.job is not None
    assert result.job.copies == 2
    assert kit.wait_job(result.job.id, timeout=30).printed == 2
    out = labeld.sim_output("zebra", result.job.id)
    assert out is not None and out.count(b"^XA") == 2 and b"Pencil HB, 12 pack" in out


def test_job_updates_in_order(kit: Any) -> None:
    job = kit.submit("sim:zebra", copies=3, document=ZPL)
    updates = kit.job_updates(job.id, timeout=30)
    updates = list(updates)
    assert updates[-1].state == "completed" and updates[-1].printed == 3
    assert all(not u.terminal for u in updates[:-1])
    printed = [u.printed for u in updates]
    assert printed == sorted(printed)
    keys = [(u.state, u.printed, u.updated_at) for u in updates]
    assert len(keys) == len(set(keys)), "a change is handed out once"


def test_calls_from_many_threads(labeld: LabeldInstance) -> None:
    client = labeld.client()
    errors: list[BaseException] = []
    results: list[int] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        try:
            for i in range(25):
                sku = f"T{n}-{i}"
                v = client.save_product(ProductInput(sku=sku, name=sku)).product.version
                assert client.product(sku).sku == sku
                with lock:
                    results.append(v)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert results == [1] * 200
    assert len(list(client.all_products())) == 200


def test_stale_connection_after_restart_is_replaced(kit: Any, labeld: LabeldInstance) -> None:
    """A call on a connection whose labeld went away reconnects at once: nothing of the
    request had gone out, so even a non-read-only method runs, once."""
    kit.hello()
    labeld.restart()
    p = kit.simulate("sim:zebra", "mediaEmpty")  # not read-only
    assert p.reasons == ["mediaEmpty"]
    assert [a.reason for a in kit.active_alerts()] == ["mediaEmpty"]


def test_web_tokens(kit: Any) -> None:
    """tokens.create/list/revoke (the test's labeld runs as this user: an administrator;
    over a WebSocket the kit signs in with an administrator's token of its own)."""
    mine = [t["name"] for t in kit.tokens()]  # the kit's own over a WebSocket, else none
    assert mine in ([], [KIT_TOKEN])
    made = kit.create_token("py-kit", "viewer")
    assert made["token"]["name"] == "py-kit" and made["token"]["role"] == "viewer"
    assert str(made["secret"]).startswith("ldt_") and len(made["secret"]) == 47
    assert sorted(t["name"] for t in kit.tokens()) == sorted(["py-kit", *mine])
    assert all("secret" not in t for t in kit.tokens())
    assert kit.revoke_token("py-kit") == {"revoked": True, "closed": 0}
    assert [t["name"] for t in kit.tokens()] == mine
