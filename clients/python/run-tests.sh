#!/bin/sh
# Test the Python client kit against a real labeld.
#
#   clients/python/run-tests.sh LABELD_BINARY [pytest args...]
#
# Creates (once) a venv in .build/pykit of the repository, or in $PYKIT_VENV; installs
# pytest, mypy, websockets and this kit into it; runs `mypy --strict` on the kit, its tests
# and bench.py twice: with the websocket extra's package, and as without it (mypy reads
# the packages of a second venv, $PYKIT_VENV-bare, that has pytest and no websockets);
# then the tests, each private labeld started from LABELD_BINARY. Exits non-zero on any
# failure. Every step is bounded by `timeout`.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 LABELD_BINARY [pytest args...]" >&2
    exit 64
fi
binary=$1
shift
case $binary in
    /*) ;;
    *) binary=$(pwd)/$binary ;;
esac
if [ ! -x "$binary" ]; then
    echo "$0: $binary is not an executable labeld" >&2
    exit 66
fi

kit=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$kit/../.." && pwd)
venv=${PYKIT_VENV:-$repo/.build/pykit}
python=${PYTHON:-python3}

step() { printf '== %s\n' "$*"; }

if [ ! -x "$venv/bin/python" ]; then
    step "creating $venv"
    timeout 120 "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import pytest, mypy, setuptools, wheel, websockets' 2>/dev/null; then
    step "installing pytest, mypy, setuptools, wheel into $venv"
    timeout 300 "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        pytest mypy "setuptools>=61" wheel websockets==17.4
fi
bare=$venv-bare
if [ ! -x "$bare/bin/python" ]; then
    step "creating $bare (pytest, and no websockets: the kit without its websocket extra)"
    timeout 120 "$python" -m venv "$bare"
fi
if ! "$bare/bin/python" -c 'import pytest' 2>/dev/null; then
    timeout 300 "$bare/bin/python" -m pip install -q --disable-pip-version-check pytest
fi
if "$bare/bin/python" -c 'import websockets' 2>/dev/null; then
    echo "$0: $bare has the websockets package; it must not" >&2
    exit 70
fi
step "installing labeld-client from $kit"
timeout 300 "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --no-build-isolation --no-deps --force-reinstall "$kit"

cd "$kit"
step "mypy --strict (with the websocket extra)"
timeout 180 "$venv/bin/python" -m mypy --strict --cache-dir "$venv/.mypy_cache" src tests bench.py
step "mypy --strict (without the websocket extra)"
timeout 180 "$venv/bin/python" -m mypy --strict --cache-dir "$venv/.mypy_cache-bare" \
    --python-executable "$bare/bin/python" src tests bench.py

step "pytest (labeld: $binary)"
timeout 600 "$venv/bin/python" -m pytest -p no:cacheprovider -q --durations=5 \
    --labeld-binary "$binary" tests "$@"
