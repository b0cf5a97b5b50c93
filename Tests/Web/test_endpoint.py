"""/metrics read by Prometheus's own parser; TLS checked from outside with openssl; the
WebSocket spoken by the websockets library."""

from __future__ import annotations

import asyncio
import json
import ssl
import subprocess
import urllib.request

from conftest import Labeld


def test_metrics_parse_with_prometheus_client(labeld: Labeld) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    labeld.call("printers.simulate", {"printer": "sim:ql", "fault": "mediaEmpty"})
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % labeld.port, timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in ("labeld_printers", "labeld_printer_up", "labeld_alerts_active", "labeld_jobs", "labeld_clients"):
        assert name in families, name
    up = {s.labels["printer"]: s.value for s in families["labeld_printer_up"].samples}
    assert up == {"sim:ql": 0.0, "sim:zebra": 1.0}
    active = [(s.labels, s.value) for s in families["labeld_alerts_active"].samples]
    assert active == [({"kind": "printerError", "reason": "mediaEmpty"}, 1.0)]


def openssl(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, *args],
        input="", capture_output=True, text=True, timeout=30,
    )


def test_tls_12_and_13_only_with_the_logged_fingerprint(labeld_tls: Labeld) -> None:
    port = labeld_tls.port
    for old in ("-tls1", "-tls1_1"):
        r = openssl(port, old)
        assert "Cipher is (NONE)" in r.stdout or r.returncode != 0, old
    for good in ("-tls1_2", "-tls1_3"):
        r = openssl(port, good)
        assert "BEGIN CERTIFICATE" in r.stdout or "Server certificate" in r.stdout, good
        assert "Cipher is (NONE)" not in r.stdout, good
    # The fingerprint labeld logged is the certificate's, as openssl computes it.
    pem = openssl(port, "-showcerts").stdout
    cert = pem[pem.index("-----BEGIN CERTIFICATE-----"): pem.index("-----END CERTIFICATE-----") + 25]
    fp = subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256"], input=cert,
                        capture_output=True, text=True, timeout=30).stdout
    assert labeld_tls.fingerprint() and labeld_tls.fingerprint() in fp


def test_websockets_library_over_tls_with_the_pinned_certificate(labeld_tls: Labeld) -> None:
    from websockets.asyncio.client import connect

    secret = labeld_tls.token("tablet", "operator")
    context = ssl.create_default_context(cafile=labeld_tls.state + "/tls/cert.pem")
    context.check_hostname = False

    async def talk() -> list[dict[str, object]]:
        async with connect("wss://127.0.0.1:%d/v1/ws" % labeld_tls.port, ssl=context,
                           additional_headers={"Authorization": "Bearer " + secret}) as ws:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": {"topics": ["alerts"]}}))
            first = json.loads(await ws.recv())
            labeld_tls.call("printers.simulate", {"printer": "sim:zebra", "fault": "coverOpen"})
            alert = json.loads(await asyncio.wait_for(ws.recv(), 30))
            return [first, alert]

    first, alert = asyncio.run(talk())
    assert first["id"] == 1 and "result" in first
    assert alert["method"] == "alert" and alert["params"]["reason"] == "coverOpen"


def test_python_kit_over_wss_pins_the_certificate(labeld_tls: Labeld) -> None:
    import pytest

    from labeld_client import Client, ClientError

    secret = labeld_tls.token("pinned", "viewer")
    url = "wss://127.0.0.1:%d/v1/ws" % labeld_tls.port
    with Client(url, token=secret, fingerprint=labeld_tls.fingerprint(), timeout=30) as c:
        assert c.hello().server == "labeld"
        assert {p.id for p in c.printers()} == {"sim:ql", "sim:zebra"}
    # Another certificate's hash: nothing is sent, the token least of all.
    with pytest.raises(ClientError, match="not the pinned one"):
        Client(url, token=secret, fingerprint="00" * 32, timeout=30).hello()
    # labeld's log has no secret in it.
    assert secret not in labeld_tls.log
