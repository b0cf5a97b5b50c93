from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers import Bridge, WebEndpoint, free_port

from labeld_client.pytest_plugin import LabeldInstance

#: How a test's client reaches labeld: its Unix socket, its web endpoint over ws:// on
#: loopback, or over wss:// with the self-signed certificate pinned by the fingerprint
#: labeld logs. Every test that takes ``kit`` runs over each, with each client.
TRANSPORTS = ["unix", "ws", "wss"]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test over a WebSocket gets a labeld with its web endpoint on a free port (and TLS
    for wss): the plugin's ``labeld`` fixture reads the marker when it starts."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    transport = params.get("transport", "unix")
    if transport != "unix":
        extra = ["--listen-http", f"127.0.0.1:{free_port()}"]
        if transport == "wss":
            extra.append("--tls-self-signed")
        item.add_marker(pytest.mark.labeld_args(*extra))


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def web(transport: str, labeld: LabeldInstance, monkeypatch: pytest.MonkeyPatch) -> WebEndpoint | None:
    """The web endpoint of the test's labeld (None over the Unix socket). A restart of
    labeld (``start``) also waits for the endpoint, as the socket is waited for."""
    if transport == "unix":
        return None
    endpoint = WebEndpoint(labeld, tls=transport == "wss")
    endpoint.wait()
    start = labeld.start

    def start_and_wait() -> None:
        start()
        endpoint.wait()

    monkeypatch.setattr(labeld, "start", start_and_wait)
    return endpoint


#: The token the ``kit`` fixture's clients sign in with over a WebSocket.
KIT_TOKEN = "kit"


@pytest.fixture(params=["sync", "async"])
def kit(request: pytest.FixtureRequest, labeld: LabeldInstance, web: WebEndpoint | None) -> Iterator[Any]:
    """The Client, or the AsyncClient through a Bridge, over each transport (an
    administrator's token over a WebSocket): the same scenario runs on all six."""
    secret = web.token(KIT_TOKEN, "admin") if web is not None else ""
    if request.param == "sync":
        client = labeld.client() if web is None else web.client(secret)
        try:
            yield client
        finally:
            client.close()
    else:
        bridge = Bridge(labeld.async_client if web is None else lambda: web.async_client(secret))
        try:
            yield bridge
        finally:
            bridge.close()
