#!/bin/sh
# The web endpoint from outside, with real parts: a real browser (Debian's chromium and
# chromium-driver, driven by selenium) on the status page, Prometheus's own parser on
# /metrics, the websockets library and the Python kit over WebSocket, openssl s_client on
# TLS.
#
#   Tests/Web/run-tests.sh LABELD_BINARY [pytest args...]
#
# Creates (once) a venv in .build/webtests (or $WEBTESTS_VENV) with pinned packages from
# PyPI; every step is bounded by `timeout`. Without /usr/bin/chromium the browser tests
# skip and say so (`make deps` installs it).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 LABELD_BINARY [pytest args...]" >&2
    exit 64
fi
binary=$1
shift
case $binary in /*) ;; *) binary=$(pwd)/$binary ;; esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
venv=${WEBTESTS_VENV:-$repo/.build/webtests}
step() { printf '== %s\n' "$*"; }
if [ ! -x "$venv/bin/python" ]; then
    step "creating $venv"
    timeout 120 python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import pytest, selenium, prometheus_client, websockets, setuptools' 2>/dev/null; then
    step "installing pytest, selenium, prometheus-client, websockets into $venv"
    timeout 300 "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        pytest selenium==4.45.0 prometheus-client==0.26.0 websockets==17.4 "setuptools>=61" wheel
fi
step "installing labeld-client (with its websocket extra's package above)"
timeout 300 "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --no-build-isolation --no-deps --force-reinstall "$repo/clients/python"
cd "$here"
step "pytest (labeld: $binary)"
LABELD_BINARY=$binary LABELD_REPO=$repo timeout 600 "$venv/bin/python" -m pytest \
    -p no:cacheprovider -p no:labeld -q --durations=5 . "$@"
