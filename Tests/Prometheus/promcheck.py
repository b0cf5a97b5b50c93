"""What Tests/Prometheus/run-tests.sh asks of Prometheus's API and of labeld's /metrics.

    promcheck.py metrics HOST PORT CAFILE [TOKEN]      the status of GET /metrics over TLS
    promcheck.py secret                                 the secret of `labelctl --json
                                                        tokens create` read on stdin
    promcheck.py ready PROM                             Prometheus answers /-/ready
    promcheck.py target-up PROM LABEL=VALUE...          the target with these labels is up
    promcheck.py alert PROM STATE NAME LABEL=VALUE...   an alert NAME with these labels is
                                                        in STATE (pending, firing; absent:
                                                        there is none)
    promcheck.py series PROM SELECTOR                   the query SELECTOR has a sample

PROM is Prometheus's base URL. Exit 0 when it holds, 1 when not (with what was found on
stderr), 2 on a usage error. Standard library only.
"""

from __future__ import annotations

import http.client
import json
import ssl
import sys
import urllib.parse
import urllib.request
from typing import Any


def api(prom: str, path: str) -> Any:
    with urllib.request.urlopen(prom + path, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise SystemExit("Prometheus answered %s: %s" % (path, body))
    return body["data"]


def labels(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        out[key] = value
    return out


def matches(have: dict[str, str], want: dict[str, str]) -> bool:
    return all(have.get(k) == v for k, v in want.items())


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command, args = argv[1], argv[2:]
    if command == "metrics":
        host, port, cafile = args[0], int(args[1]), args[2]
        context = ssl.create_default_context(cafile=cafile)
        # The certificate is checked against the pinned file; its names are Prometheus's
        # to check (server_name), not this probe's.
        context.check_hostname = False
        c = http.client.HTTPSConnection(host, port, context=context, timeout=10)
        headers = {"Authorization": "Bearer " + args[3]} if len(args) > 3 else {}
        c.request("GET", "/metrics", headers=headers)
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace")
        print(r.status)
        if r.status == 200 and "labeld_printer_up{" not in body:
            print("no labeld_printer_up in /metrics:\n" + body, file=sys.stderr)
            return 1
        return 0
    if command == "secret":
        print(json.load(sys.stdin)["secret"])
        return 0
    if command == "ready":
        try:
            with urllib.request.urlopen(args[0] + "/-/ready", timeout=5) as r:
                return 0 if r.status == 200 else 1
        except OSError:
            return 1
    if command == "target-up":
        want = labels(args[1:])
        targets = api(args[0], "/api/v1/targets?state=active")["activeTargets"]
        for t in targets:
            if matches(t["labels"], want) and t["health"] == "up":
                return 0
        print("targets: %s" % [(t["labels"], t["health"], t["lastError"]) for t in targets],
              file=sys.stderr)
        return 1
    if command == "alert":
        state, name, want = args[1], args[2], labels(args[3:])
        want["alertname"] = name
        alerts = [a for a in api(args[0], "/api/v1/alerts")["alerts"] if matches(a["labels"], want)]
        found = [a["state"] for a in alerts]
        if (state == "absent" and not found) or (state != "absent" and found == [state]):
            return 0
        print("alerts %s: %s" % (want, found), file=sys.stderr)
        return 1
    if command == "series":
        query = urllib.parse.urlencode({"query": args[1]})
        result = api(args[0], "/api/v1/query?" + query)["result"]
        if result:
            for r in result:
                metric = dict(r["metric"])
                name = metric.pop("__name__", "")
                pairs = ",".join('%s="%s"' % kv for kv in sorted(metric.items()))
                print("%s{%s} %s" % (name, pairs, r["value"][1]))
            return 0
        print("no sample for %s" % args[1], file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
