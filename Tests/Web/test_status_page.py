"""The status page in a real browser: Debian's chromium, driven by selenium (headless).
It signs in from a link, shows the simulated printers, shows a fault injected on one as it
happens (no polling: over the WebSocket) in words, dismisses an alert from the keyboard,
and reconnects on its own after labeld restarts; the token box goes once signed in and
comes back on sign-out or when the token is refused; labels left show where the printer
counts them."""

from __future__ import annotations

import base64
import os
import re
import struct
import time
import zlib
from collections.abc import Callable, Iterator

import pytest

from conftest import REPO, Labeld

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
    reason="needs Debian's chromium and chromium-driver (make deps installs them)",
)


@pytest.fixture
def browser() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait_until(what: str, check: Callable[[], bool], timeout: float = 15) -> float:
    """Polls `check` until it holds; returns how long it took (readiness, not timing)."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout:
            raise AssertionError("timed out waiting until " + what)
        time.sleep(0.02)
    return time.monotonic() - start


def body(driver: object) -> str:
    return str(driver.find_element("tag name", "body").text)  # type: ignore[attr-defined]


def printer_rows(driver: object) -> dict[str, list[str]]:
    """The printers table as shown: each row's cells (name, state, faults, media, labels
    left), by the printer's name."""
    rows = driver.execute_script(  # type: ignore[attr-defined]
        "return [...document.querySelectorAll('#printers tr')]"
        ".map((r) => [...r.cells].map((c) => c.textContent))")
    return {row[0]: row for row in rows}


def cell(driver: object, printer: str, column: int) -> str | None:
    row = printer_rows(driver).get(printer)
    return row[column] if row else None


FAULTS, LABELS_LEFT = 2, 4


def signed_in(driver: object) -> bool:
    """The board shows and the token box does not (nor its field)."""
    find = driver.find_element  # type: ignore[attr-defined]
    return (find("id", "board").is_displayed() and not find("id", "signin").is_displayed()
            and not find("id", "token").is_displayed() and find("id", "signout").is_displayed())


def token_box_shown(driver: object) -> bool:
    find = driver.find_element  # type: ignore[attr-defined]
    return (find("id", "token").is_displayed() and not find("id", "board").is_displayed()
            and not find("id", "signout").is_displayed())


def documented_reasons() -> list[str]:
    """Every Reason in docs/protocol.md's table ("### Reason")."""
    with open(os.path.join(REPO, "docs", "protocol.md"), encoding="utf-8") as f:
        section = f.read().split("### Reason\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


def png(width: int, height: int) -> bytes:
    """An 8-bit grey PNG, white with a black frame."""
    rows = b""
    for y in range(height):
        line = bytes(0 if y in (0, height - 1) or x in (0, width - 1) else 255 for x in range(width))
        rows += b"\x00" + line

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def test_signs_in_sees_faults_live_dismisses_and_reconnects(labeld: Labeld, browser: object) -> None:
    d = browser
    secret = labeld.token("shop-floor", "operator")
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, secret))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    # The token left the address bar (and the history) at once.
    assert "#token" not in d.current_url and secret not in d.current_url  # type: ignore[attr-defined]
    text = body(d)
    assert "zebra" in text and "ql" in text and "No alerts" in text
    # A fault injected on one printer shows as it happens: in words on the printer, and
    # the alert's message.
    labeld.call("printers.simulate", {"printer": "sim:ql", "fault": "coverOpen"})
    seen = wait_until("the fault shows",
                      lambda: cell(d, "ql", FAULTS) == "Cover open" and "cover open" in body(d))
    print("fault shown %.0f ms after it was injected" % (seen * 1000))
    assert "coverOpen" not in body(d)
    # Dismissed from the keyboard: the button takes focus and Enter presses it.
    from selenium.webdriver.common.keys import Keys

    button = d.find_element("css selector", "#alerts button")  # type: ignore[attr-defined]
    assert "Dismiss" in button.text
    button.send_keys(Keys.ENTER)
    wait_until("the alert is gone", lambda: "No alerts" in body(d))
    assert labeld.call("alerts.active")["alerts"] == []
    # labeld restarts: the page says it lost the connection, comes back on its own and is
    # live again, and what happens afterwards still shows.
    labeld.restart()
    wait_until("the page reconnects", lambda: "Live" in body(d), timeout=30)
    labeld.call("printers.simulate", {"printer": "sim:zebra", "fault": "mediaEmpty"})
    wait_until("the new fault shows", lambda: cell(d, "zebra", FAULTS) == "Out of labels")
    assert "mediaEmpty" not in body(d)
    # The queue: a job waiting behind the fault is listed.
    labeld.call("jobs.submit", {"printer": "sim:zebra", "document": {"format": "native", "data": "XlhBXlha"}})
    wait_until("the waiting job shows", lambda: "0 of 1" in body(d))


def test_a_wrong_token_is_refused_and_the_form_says_so(labeld: Labeld, browser: object) -> None:
    d = browser
    d.get("http://127.0.0.1:%d/" % labeld.port)  # type: ignore[attr-defined]
    wait_until("the sign-in form shows", lambda: "Sign in" in body(d))
    field = d.find_element("id", "token")  # type: ignore[attr-defined]
    field.send_keys("ldt_not-a-token")
    d.find_element("css selector", "#signin button").click()  # type: ignore[attr-defined]
    wait_until("the refusal shows", lambda: "did not accept" in body(d))
    # A viewer signs in, sees the printers, and its preview works (labels.render).
    secret = labeld.token("wall", "viewer")
    field = d.find_element("id", "token")  # type: ignore[attr-defined]
    field.clear()
    field.send_keys(secret)
    d.find_element("css selector", "#signin button").click()  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    sku = d.find_element("id", "preview-sku")  # type: ignore[attr-defined]
    sku.send_keys("SKU-1001")
    d.find_element("css selector", "#preview-form button").click()  # type: ignore[attr-defined]
    wait_until(
        "the preview shows",
        lambda: bool(d.execute_script(  # type: ignore[attr-defined]
            "const i = document.getElementById('preview'); return !i.hidden && i.complete && i.naturalWidth > 0")),
    )


def test_the_page_is_readable_on_a_phone(labeld: Labeld, browser: object) -> None:
    d = browser
    d.set_window_size(375, 740)  # type: ignore[attr-defined]
    secret = labeld.token("phone", "viewer")
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, secret))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    # Nothing wider than the screen: no sideways scrolling.
    width = d.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    assert width <= 375


def test_the_token_box_goes_once_signed_in_and_comes_back_on_sign_out(labeld: Labeld, browser: object) -> None:
    d = browser
    d.get("http://127.0.0.1:%d/" % labeld.port)  # type: ignore[attr-defined]
    wait_until("the token box shows", lambda: token_box_shown(d))
    d.find_element("id", "token").send_keys(labeld.token("counter", "operator"))  # type: ignore[attr-defined]
    d.find_element("css selector", "#signin button").click()  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    assert signed_in(d), "the token box is still shown after signing in"
    assert "Token" not in body(d) and "Sign in" not in body(d)
    # Signing out brings the token box back, and nothing of the board.
    d.find_element("id", "signout").click()  # type: ignore[attr-defined]
    wait_until("the token box is back", lambda: token_box_shown(d))
    assert "Not signed in" in body(d)
    assert d.execute_script("return sessionStorage.getItem('labeld-token')") is None  # type: ignore[attr-defined]


def test_a_revoked_token_brings_the_token_box_back(labeld: Labeld, browser: object) -> None:
    d = browser
    secret = labeld.token("wall", "viewer")
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, secret))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    assert signed_in(d)
    assert labeld.call("tokens.revoke", {"name": "wall"})["closed"] >= 1
    # Not "reconnecting" for ever: labeld answers, so the token was refused.
    wait_until("the token box is back", lambda: token_box_shown(d) and "no longer accepts" in body(d))
    # A good token signs in again from the same box.
    d.find_element("id", "token").send_keys(labeld.token("wall-2", "viewer"))  # type: ignore[attr-defined]
    d.find_element("css selector", "#signin button").click()  # type: ignore[attr-defined]
    wait_until("the page is live again", lambda: "Live" in body(d) and signed_in(d))


def test_every_reason_shows_in_words_and_an_unknown_one_as_it_came(labeld: Labeld, browser: object) -> None:
    d = browser
    reasons = documented_reasons()
    assert len(reasons) >= 17 and "mediaEmpty" in reasons and "unknown" in reasons
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, labeld.token("t", "viewer")))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    table = d.execute_async_script(  # type: ignore[attr-defined]
        "const done = arguments[arguments.length - 1];"
        "import('/reasons.js').then((m) => done({table: m.REASONS, text: m.reasonText('aNewReason')}));")
    # The page's table has a row for every Reason the protocol documents, and no other.
    assert sorted(table["table"]) == sorted(reasons)
    assert table["text"] == "aNewReason", "a code the table does not know is shown as it came"
    assert table["table"]["mediaEmpty"] == "Out of labels"
    for code, words in table["table"].items():
        assert words and words != code and not re.search(r"[a-z][A-Z]", words), code
    # Each one, raised on a printer, shows in its words and never as its code.
    for code in reasons:
        labeld.call("printers.simulate", {"printer": "sim:zebra", "fault": code})
        words = table["table"][code]
        wait_until("%s shows as %r" % (code, words), lambda: cell(d, "zebra", FAULTS) == words)
        assert code not in " ".join(" ".join(row) for row in printer_rows(d).values())
    labeld.call("printers.simulate", {"printer": "sim:zebra", "fault": None})
    wait_until("the faults are gone", lambda: cell(d, "zebra", FAULTS) == "none")


def test_labels_left_show_where_the_printer_counts_them(labeld_dymo550: Labeld, browser: object) -> None:
    d = browser
    labeld = labeld_dymo550
    dymo = "usb:0922:0028:F1"
    wait_until("the DYMO 550 is found", lambda: any(
        p["id"] == dymo for p in labeld.call("printers.list")["printers"]), timeout=30)
    name = next(p["name"] for p in labeld.call("printers.list")["printers"] if p["id"] == dymo)
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, labeld.token("t", "viewer")))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d) and name in printer_rows(d))
    # Printers that do not count their labels say so; the cell is never empty.
    for row in printer_rows(d).values():
        assert row[LABELS_LEFT] != ""
    assert cell(d, "zebra", LABELS_LEFT) == "—" and cell(d, "ql", LABELS_LEFT) == "—"
    # A label printed: the 550 answers with the labels left on its roll (200 at first).
    document = base64.b64encode(png(120, 60)).decode()
    labeld.call("jobs.submit", {"printer": dymo, "document": {"format": "png", "data": document}})
    wait_until("the labels left show", lambda: cell(d, name, LABELS_LEFT) == "199", timeout=30)
