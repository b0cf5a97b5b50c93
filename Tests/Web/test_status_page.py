"""The status page in a real browser: Debian's chromium, driven by selenium (headless).
It signs in from a link, shows the simulated printers, shows a fault injected on one as it
happens (no polling: over the WebSocket), dismisses an alert from the keyboard, and
reconnects on its own after labeld restarts."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import pytest

from conftest import Labeld

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


def test_signs_in_sees_faults_live_dismisses_and_reconnects(labeld: Labeld, browser: object) -> None:
    d = browser
    secret = labeld.token("shop-floor", "operator")
    d.get("http://127.0.0.1:%d/#token=%s" % (labeld.port, secret))  # type: ignore[attr-defined]
    wait_until("the page is live", lambda: "Live" in body(d))
    # The token left the address bar (and the history) at once.
    assert "#token" not in d.current_url and secret not in d.current_url  # type: ignore[attr-defined]
    text = body(d)
    assert "zebra" in text and "ql" in text and "No alerts" in text
    # A fault injected on one printer shows as it happens.
    labeld.call("printers.simulate", {"printer": "sim:ql", "fault": "coverOpen"})
    seen = wait_until("the fault shows", lambda: "coverOpen" in body(d) and "cover open" in body(d))
    print("fault shown %.0f ms after it was injected" % (seen * 1000))
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
    wait_until("the new fault shows", lambda: "mediaEmpty" in body(d))
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
