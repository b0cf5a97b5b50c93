"""/metrics read by Prometheus's own parser; TLS checked from outside with openssl; the
WebSocket spoken by the websockets library."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import ssl
import subprocess
import time
import urllib.request
from typing import Any

from conftest import BINARY, Labeld


def test_metrics_parse_with_prometheus_client(labeld: Labeld) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    labeld.call("printers.simulate", {"printer": "sim:ql", "fault": "mediaEmpty"})
    job = labeld.call("jobs.submit", {"printer": "sim:zebra", "copies": 2,
                                      "document": {"format": "native", "data": "XlhBXlha"}})["job"]["id"]
    deadline = time.monotonic() + 30
    while labeld.call("jobs.get", {"job": job})["job"]["state"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % labeld.port, timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in ("labeld_printers", "labeld_printer_up", "labeld_alerts_active", "labeld_jobs",
                 "labeld_clients", "labeld_store_bytes", "labeld_jobs_ended", "labeld_copies_printed",
                 "labeld_request_seconds"):
        assert name in families, name
    assert families["labeld_copies_printed"].type == "counter"
    assert [s.value for s in families["labeld_copies_printed"].samples if s.name.endswith("_total")] == [2.0]
    ended = {s.labels["state"]: s.value for s in families["labeld_jobs_ended"].samples if s.name.endswith("_total")}
    assert ended == {"completed": 1.0, "canceled": 0.0, "aborted": 0.0}
    histogram = families["labeld_request_seconds"]
    assert histogram.type == "histogram"
    count = [s.value for s in histogram.samples if s.name == "labeld_request_seconds_count"]
    assert count and count[0] >= 4
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


def test_python_asyncio_kit_over_wss_pins_the_certificate(labeld_tls: Labeld) -> None:
    import pytest

    from labeld_client import AsyncClient, ClientError

    secret = labeld_tls.token("pinned-aio", "viewer")
    url = "wss://127.0.0.1:%d/v1/ws" % labeld_tls.port

    async def pinned() -> None:
        async with AsyncClient(url, token=secret, fingerprint=labeld_tls.fingerprint(), timeout=30) as c:
            assert (await c.hello()).server == "labeld"
            assert {p.id for p in await c.printers()} == {"sim:ql", "sim:zebra"}
        # Another certificate's hash: the handshake, and the token in it, is never sent.
        async with AsyncClient(url, token=secret, fingerprint="00" * 32, timeout=30) as c:
            with pytest.raises(ClientError, match="not the pinned one"):
                await c.hello()

    asyncio.run(pinned())
    assert secret not in labeld_tls.log


def _make_cert(directory: str, name: str) -> tuple[str, str]:
    cert, key = os.path.join(directory, name + ".pem"), os.path.join(directory, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=" + name],
                   check=True, capture_output=True, timeout=30)
    return cert, key


def _served_fingerprint(port: int) -> str:
    pem = openssl(port, "-showcerts").stdout
    cert = pem[pem.index("-----BEGIN CERTIFICATE-----"): pem.index("-----END CERTIFICATE-----") + 25]
    return subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256"], input=cert,
                          capture_output=True, text=True, timeout=30).stdout.strip().split("=")[-1]


def _fingerprint_of(path: str) -> str:
    return subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", path],
                          capture_output=True, text=True, timeout=30).stdout.strip().split("=")[-1]


def test_sighup_reads_the_certificate_again_and_a_bad_pair_keeps_the_old(tmp_path: Any) -> None:
    import pytest

    if not BINARY:
        pytest.skip("LABELD_BINARY is not set")
    live_cert, live_key = str(tmp_path / "live.pem"), str(tmp_path / "live.key")
    first, first_key = _make_cert(str(tmp_path), "first")
    second, second_key = _make_cert(str(tmp_path), "second")
    shutil.copy(first, live_cert)
    shutil.copy(first_key, live_key)
    d = Labeld(["--tls-cert", live_cert, "--tls-key", live_key])
    try:
        assert _served_fingerprint(d.port) == _fingerprint_of(first)
        # Renewed in place, then SIGHUP: new connections get the new certificate.
        shutil.copy(second, live_cert)
        shutil.copy(second_key, live_key)
        assert d.proc is not None
        d.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while _served_fingerprint(d.port) != _fingerprint_of(second):
            assert time.monotonic() < deadline, d.log
            time.sleep(0.05)
        # A key that is not the certificate's: refused, logged, the second one kept.
        shutil.copy(first_key, live_key)
        d.proc.send_signal(signal.SIGHUP)
        while "does not match the certificate" not in d.log:
            assert time.monotonic() < deadline + 30, d.log
            time.sleep(0.05)
        assert _served_fingerprint(d.port) == _fingerprint_of(second)
    finally:
        d.cleanup()


def test_testssl_finds_no_protocol_below_tls_12(labeld_tls: Labeld) -> None:
    """testssl.sh (Debian's), protocols only: SSLv2, SSLv3, TLS 1.0 and 1.1 not offered."""
    import pytest

    if shutil.which("testssl") is None:
        pytest.skip("needs Debian's testssl.sh (make deps installs it)")
    r = subprocess.run(
        ["testssl", "--protocols", "--quiet", "--color", "0", "--warnings", "off",
         "127.0.0.1:%d" % labeld_tls.port],
        capture_output=True, text=True, timeout=300,
    )
    lines = {line.split()[0] + " " + line.split()[1]: line for line in r.stdout.splitlines()
             if line.strip().startswith(("SSLv", "TLS")) and len(line.split()) > 2}
    for old in ("SSLv2", "SSLv3", "TLS 1", "TLS 1.1"):
        key = next((k for k in lines if k.strip() == old or k.startswith(old + " ")), None)
        assert key is not None and "not offered" in lines[key], r.stdout
    for good in ("TLS 1.2", "TLS 1.3"):
        assert "offered" in lines[good] and "not offered" not in lines[good], r.stdout
