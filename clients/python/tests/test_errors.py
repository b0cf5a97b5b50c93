"""Every error class from a real daemon's answer; transport errors; their messages."""

from __future__ import annotations

import asyncio
import errno
import grp
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers import ZPL, Background, Bridge, UnixServer, frozen, run_async, wait_for

from labeld_client import (
    Alert,
    AsyncClient,
    Client,
    ClientError,
    ConnectionLost,
    InvalidParams,
    InvalidRequest,
    JobNotFound,
    LabeldError,
    MethodNotFound,
    NotFound,
    PrinterNotAccepting,
    PrinterNotFound,
    ProductInput,
    ProtocolViolation,
    SaveFailed,
    TooManyJobs,
    Timeout,
    Unreachable,
    Unsupported,
)
from labeld_client.errors import error_from_wire, permission_denied_message
from labeld_client.pytest_plugin import LabeldInstance


def test_printer_not_found(kit: Any) -> None:
    with pytest.raises(PrinterNotFound) as e:
        kit.printer("sim:nope")
    err = e.value
    assert isinstance(err, LabeldError) and isinstance(err, ClientError)
    assert (err.code, err.printer) == (1001, "sim:nope")
    assert err.data == {"printer": "sim:nope"} and "sim:nope" in err.message


def test_job_not_found(kit: Any) -> None:
    with pytest.raises(JobNotFound) as e:
        kit.job(987654)
    assert (e.value.code, e.value.job) == (1003, 987654)
    with pytest.raises(JobNotFound):
        kit.wait_job(987654, timeout=10)  # an unknown job is an answer, not a reason to wait


def test_not_found(kit: Any) -> None:
    with pytest.raises(NotFound) as e:
        kit.template("price-62")
    assert (e.value.code, e.value.entity, e.value.key) == (1006, "template", "price-62")
    with pytest.raises(NotFound) as e:
        kit.delete_product("NO-SUCH")
    assert (e.value.entity, e.value.key) == ("product", "NO-SUCH")


def test_invalid_params_names_the_field(kit: Any) -> None:
    with pytest.raises(InvalidParams) as e:
        kit.submit("sim:zebra", copies=1000, document=ZPL)
    assert (e.value.code, e.value.field) == (-32602, "copies")
    assert e.value.reason is not None and "1000" in e.value.reason
    with pytest.raises(InvalidParams) as e:
        kit.save_product(ProductInput(sku="X", name="x", barcode="4006381333932"))
    assert e.value.field == "product.barcode" and "check digit" in (e.value.reason or "")
    with pytest.raises(InvalidParams) as e:
        kit.simulate("sim:zebra", "bogus")
    assert e.value.field == "fault"


def test_method_not_found_via_call(kit: Any) -> None:
    with pytest.raises(MethodNotFound) as e:
        kit.call("printers.delete", printer="sim:zebra")
    assert (e.value.code, e.value.method) == (-32601, "printers.delete")


def test_save_failed_conflict(kit: Any) -> None:
    kit.save_product(ProductInput(sku="PEN-HB-12", name="Pencil"))
    kit.save_product(ProductInput(sku="PEN-HB-12", name="Pencil 2"))
    with pytest.raises(SaveFailed) as e:
        kit.save_product(ProductInput(sku="PEN-HB-12", name="stale"), expected_version=1)
    err = e.value
    assert (err.code, err.reason) == (1004, "conflict")
    alert = err.alert
    assert alert is not None
    assert (alert.kind, alert.id, alert.entity, alert.key, alert.state) == (
        "saveError",
        "saveError:product:PEN-HB-12",
        "product",
        "PEN-HB-12",
        "active",
    )
    assert alert.seq > 0
    assert isinstance(err.data, dict)
    # labeld addition: a conflict says which version the save expected and which is stored
    assert (err.data["expectedVersion"], err.data["storedVersion"]) == (1, 2)
    assert (err.expected_version, err.stored_version) == (1, 2)
    assert (alert.expected_version, alert.stored_version) == (1, 2)
    # the same alert is active on the channel
    assert [a.seq for a in kit.active_alerts()] == [alert.seq]
    # a good save clears it
    kit.save_product(ProductInput(sku="PEN-HB-12", name="fresh"), expected_version=2)
    assert kit.active_alerts() == []


@pytest.mark.labeld_args("--simulate", "spare=zpl,accepting=no")
def test_printer_not_accepting(kit: Any) -> None:
    with pytest.raises(PrinterNotAccepting) as e:
        kit.submit("sim:spare", document=ZPL)
    assert (e.value.code, e.value.printer, e.value.reason) == (1002, "sim:spare", "disabled by configuration")


def test_unsupported(kit: Any) -> None:
    kit.save_template(
        {
            "name": "wide",
            "media": {"widthMM": 100, "lengthMM": 30},
            "elements": [{"type": "box", "x": 1, "y": 1, "width": 90, "height": 20}],
        }
    )
    with pytest.raises(Unsupported) as e:
        kit.submit("sim:zebra", template="wide", data={})  # wider than its 50.8 mm labels
    assert e.value.code == 1007 and e.value.reason


@pytest.mark.labeld_args("--simulate", "held=zpl", "--max-jobs-per-printer", "2")
def test_too_many_jobs(kit: Any) -> None:
    """Past the printer's bound labeld refuses at once with 1008; nothing is stored."""
    kit.simulate("sim:held", "coverOpen")
    first = kit.submit("sim:held", document=ZPL)
    kit.submit("sim:held", document=ZPL)
    with pytest.raises(TooManyJobs) as e:
        kit.submit("sim:held", document=ZPL)
    assert (e.value.code, e.value.bound, e.value.limit, e.value.waiting, e.value.printer) == (
        1008,
        "printer",
        2,
        2,
        "sim:held",
    )
    assert len(kit.jobs(printer="sim:held").items) == 2
    kit.cancel(first.id)
    kit.submit("sim:held", document=ZPL)  # a place came back


def test_message_too_large_is_invalid_request(kit: Any) -> None:
    """labeld answers a line past 1 MiB with -32600 and closes: the kit reports the answer
    (not a lost connection) and the next call reconnects."""
    with pytest.raises(InvalidRequest) as e:
        kit.save_product(ProductInput(sku="BIG", name="x" * 1_200_000))
    assert e.value.code == -32600 and "too large" in e.value.message
    assert kit.hello().server == "labeld"


def test_error_table_is_complete() -> None:
    from labeld_client import errors as E

    table = {
        -32700: E.ParseError,
        -32600: E.InvalidRequest,
        -32601: E.MethodNotFound,
        -32602: E.InvalidParams,
        -32603: E.InternalError,
        1001: E.PrinterNotFound,
        1002: E.PrinterNotAccepting,
        1003: E.JobNotFound,
        1004: E.SaveFailed,
        1005: E.NotPermitted,
        1006: E.NotFound,
        1007: E.Unsupported,
        1008: E.TooManyJobs,
        4242: E.LabeldError,
    }
    for code, cls in table.items():
        err = error_from_wire({"code": code, "message": "m", "data": {"uid": 5}})
        assert type(err) is cls and err.code == code and err.message == "m"
    nope = error_from_wire({"code": 1005, "message": "no", "data": {"uid": 1001}})
    assert isinstance(nope, E.NotPermitted) and nope.uid == 1001
    odd = error_from_wire({"code": 1004, "message": "x", "data": {"not": "an alert"}})
    assert isinstance(odd, SaveFailed) and odd.alert is None and odd.expected_version is None
    with pytest.raises(ProtocolViolation):
        error_from_wire({"code": "1001"})


def test_save_failed_versions_from_a_newer_daemon() -> None:
    alert = {
        "entity": "product",
        "id": "saveError:product:PEN",
        "key": "PEN",
        "kind": "saveError",
        "message": "product PEN was changed by someone else: expected version 2, stored is version 3",
        "reason": "conflict",
        "seq": 42,
        "state": "active",
        "time": "2025-06-02T09:15:30Z",
        "expectedVersion": 2,
        "storedVersion": 3,
    }
    err = error_from_wire({"code": 1004, "message": "save failed", "data": alert})
    assert isinstance(err, SaveFailed) and err.alert is not None
    assert (err.reason, err.expected_version, err.stored_version, err.alert.seq) == ("conflict", 2, 3, 42)
    full = error_from_wire({"code": 1004, "message": "save failed", "data": alert | {"reason": "storageFull"}})
    assert isinstance(full, SaveFailed)
    assert (full.reason, full.expected_version, full.stored_version) == ("storageFull", None, None)


# --- transport ------------------------------------------------------------------------


def not_running_text(path: str, detail: str) -> str:
    """LabelKit's Unreachable.description for .notRunning, word for word."""
    return (
        f"cannot reach labeld at {path}: {detail}: labeld is not running there (start it with "
        "'systemctl start labeld', or 'make run' in a clone)"
    )


def test_unreachable_not_running(tmp_path: Any) -> None:
    path = str(tmp_path / "labeld.sock")
    with pytest.raises(Unreachable) as e:
        Client(path, timeout=5).hello()
    err = e.value
    assert err.not_running and not err.permission_denied and not err.lasting
    assert (err.path, err.errno) == (path, errno.ENOENT)
    assert str(err) == not_running_text(path, "No such file or directory")

    async def main() -> None:
        async with AsyncClient(path, timeout=5) as ac:
            with pytest.raises(Unreachable) as e2:
                await ac.hello()
            assert str(e2.value) == not_running_text(path, "No such file or directory")

    run_async(main(), 10)


def test_unreachable_after_kill_then_back(labeld: LabeldInstance) -> None:
    client = labeld.client(timeout=5)
    client.hello()
    labeld.kill()  # the socket file stays: connect() is refused
    with pytest.raises(Unreachable) as e:
        client.hello()
    assert str(e.value) == not_running_text(labeld.socket_path, "Connection refused")
    assert e.value.not_running and not e.value.permission_denied
    labeld.start()
    assert client.hello().server == "labeld"


def test_permission_message_format() -> None:
    msg = permission_denied_message("/run/labeld/labeld.sock", 0o660, "labeld")
    assert msg == (
        "permission denied for labeld's socket /run/labeld/labeld.sock (mode 0660, group labeld): "
        "your user is not in group labeld; add it with `sudo usermod -aG labeld $USER`, "
        "then log in again"
    )
    assert "start" not in msg
    in_dir = permission_denied_message("/run/labeld/labeld.sock", 0o750, "labeld", directory="/run/labeld")
    assert "(its directory /run/labeld: mode 0750, group labeld)" in in_dir
    unknown = permission_denied_message("/x.sock", None, None)
    assert "permission denied" in unknown and "start" not in unknown


def _permission_check_source(path: str, kit_dir: str) -> str:
    return textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {kit_dir!r})
        from labeld_client import Client, Unreachable
        try:
            Client({path!r}, timeout=5).hello()
            print(json.dumps({{"ok": True}}))
        except Unreachable as e:
            print(json.dumps({{"ok": False, "denied": e.permission_denied, "group": e.group,
                               "message": str(e)}}))
        """
    )


NOBODY: dict[str, Any] = {"user": 65534, "group": 65534, "extra_groups": []}


def _run_python(
    python: str, source: str, timeout: float, as_nobody: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """``python -c source`` in /, as nobody (uid 65534, no groups) unless told otherwise."""
    user = NOBODY if as_nobody else {}
    return subprocess.run([python, "-c", source], capture_output=True, timeout=timeout, cwd="/", **user)


def _python_for_nobody() -> str | None:
    """A Python >= 3.11 that uid 65534 may run (this one may live in root's home)."""
    candidates = [sys.executable, getattr(sys, "_base_executable", ""), "/usr/bin/python3"]
    for exe in dict.fromkeys(c for c in candidates if c):
        try:
            r = _run_python(exe, "import sys; sys.exit(sys.version_info < (3, 11))", timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        if r.returncode == 0:
            return exe
    return None


@contextmanager
def _kit_copy() -> Iterator[str]:
    """A copy of the kit that any user may read (this checkout may sit in root's home)."""
    import labeld_client

    kit_dir = tempfile.mkdtemp(prefix="lbk", dir="/tmp")
    try:
        os.chmod(kit_dir, 0o755)
        shutil.copytree(os.path.dirname(labeld_client.__file__), os.path.join(kit_dir, "labeld_client"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for root, dirs, files in os.walk(kit_dir):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)
        yield kit_dir
    finally:
        shutil.rmtree(kit_dir, ignore_errors=True)


def test_permission_denied_live(labeld: LabeldInstance, tmp_path: Any) -> None:
    """EACCES on connect says which group and how to join it, never "start it"."""
    if os.geteuid() != 0:
        # a bound socket nobody may open
        path = str(tmp_path / "closed.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        os.chmod(path, 0)
        try:
            with pytest.raises(Unreachable) as e:
                Client(path, timeout=5).hello()
        finally:
            srv.close()
        group = grp.getgrgid(os.stat(path).st_gid).gr_name
        assert e.value.permission_denied and e.value.group == group
        assert f"group {group}" in str(e.value) and "usermod -aG" in str(e.value)
        assert "not running" not in str(e.value)
        return
    # root opens any socket: ask as nobody, in a child process
    os.chmod(os.path.dirname(labeld.socket_path), 0o755)  # the socket's own mode decides
    st = os.stat(labeld.socket_path)
    if st.st_mode & 0o007:
        pytest.skip("labeld's socket is open to everyone here: no EACCES to produce")
    python = _python_for_nobody()
    if python is None:
        pytest.skip("running as root (EACCES cannot happen to root) and no Python >= 3.11 that "
                    "nobody (uid 65534) may run to try it; the message is tested above")
    with _kit_copy() as kit_dir:
        out = _run_python(python, _permission_check_source(labeld.socket_path, kit_dir), timeout=30)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    result = json.loads(out.stdout)
    group = grp.getgrgid(st.st_gid).gr_name
    assert result["ok"] is False and result["denied"] is True and result["group"] == group
    assert f"(mode {st.st_mode & 0o777:04o}, group {group})" in result["message"]
    assert f"sudo usermod -aG {group} $USER" in result["message"]
    assert "not running" not in result["message"] and "start" not in result["message"]


_DENIED_STREAMS_SOURCE = """
import asyncio, json, os, sys, time
sys.path.insert(0, KIT)
from labeld_client import AsyncClient, Client, Timeout, Unreachable, _wire
from labeld_client.client import _connect

out = {}

def what(e):
    if isinstance(e, Unreachable):
        return {"path": e.path, "denied": e.permission_denied, "not_running": e.not_running}
    return type(e).__name__

def timed(fn):
    t0 = time.monotonic()
    try:
        fn()
        result = "no error"
    except Exception as e:
        result = what(e)
    return {"result": result, "seconds": round(time.monotonic() - t0, 3)}

async def atimed(coro):
    t0 = time.monotonic()
    try:
        await coro
        result = "no error"
    except Exception as e:
        result = what(e)
    return {"result": result, "seconds": round(time.monotonic() - t0, 3)}

# a connect goes on past a path where labeld is not running, never past a denied one
for name, paths in (("denied_first", [DENIED, MISSING]), ("denied_second", [MISSING, DENIED])):
    out[name] = timed(lambda: _connect(paths, time.monotonic() + 5))

# discovery: this user's own socket is missing, the system service's may not be opened
os.environ.pop("LABELD_SOCKET", None)
os.environ.pop("RUNTIME_DIRECTORY", None)
os.environ["XDG_RUNTIME_DIR"] = os.path.dirname(MISSING)
_wire.SYSTEM_SOCKET = DENIED
client = Client(timeout=5)
out["paths"] = client.socket_paths
out["hello"] = timed(client.hello)

stream = client.alerts()
out["stream"] = timed(lambda: stream.next(timeout=5))
seen = stream.last_error
time.sleep(0.5)  # the consumer does not ask: the stream does not try again
out["stream_idle_tried"] = stream.last_error is not seen
out["stream_again"] = timed(lambda: stream.next(timeout=5))
out["stream_again_tried"] = stream.last_error is not seen
stream.close()
out["job_updates"] = timed(lambda: next(iter(client.job_updates(1, timeout=5))))
out["wait_job"] = timed(lambda: client.wait_job(1, timeout=5))
client.close()

async def main():
    async with AsyncClient(timeout=5) as ac:
        out["apaths"] = ac.socket_paths
        out["ahello"] = await atimed(ac.hello())
        s = ac.alerts()
        out["astream"] = await atimed(s.next(timeout=5))
        seen = s.last_error
        await asyncio.sleep(0.5)
        out["astream_idle_tried"] = s.last_error is not seen
        out["astream_again"] = await atimed(s.next(timeout=5))
        out["astream_again_tried"] = s.last_error is not seen
        await s.aclose()
        out["ajob_updates"] = await atimed(ac.job_updates(1, timeout=5).__anext__())
        out["await_job"] = await atimed(ac.wait_job(1, timeout=5))

asyncio.run(main())
print(json.dumps(out))
"""


def test_permission_denied_is_raised_at_once_by_streams_and_job_sequences() -> None:
    """A socket this user may not open: calls, alert streams (blocking, asyncio) and job
    sequences raise Unreachable(permission_denied) at once, never a Timeout after
    retrying; a stream tries again only when asked again (LabelKit: Unreachable.isLasting).
    Discovery passes over a path where labeld is not running to the system service's,
    and reports the permission there, not "not running"."""
    work = tempfile.mkdtemp(prefix="lbp", dir="/tmp")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.chmod(work, 0o755)
        denied = os.path.join(work, "denied.sock")
        missing = os.path.join(work, "labeld.sock")
        srv.bind(denied)
        srv.listen(8)
        os.chmod(denied, 0)
        python = sys.executable
        as_nobody = os.geteuid() == 0
        if as_nobody:
            found = _python_for_nobody()
            if found is None:
                pytest.skip("root may open any socket, and no Python >= 3.11 that nobody may run")
            python = found
        with _kit_copy() as kit_dir:
            source = (
                f"KIT, DENIED, MISSING = {kit_dir!r}, {denied!r}, {missing!r}\n"
                + _DENIED_STREAMS_SOURCE
            )
            run = _run_python(python, source, timeout=60, as_nobody=as_nobody)
    finally:
        srv.close()
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    out = json.loads(run.stdout)
    refused = {"path": denied, "denied": True, "not_running": False}
    if out["denied_first"]["result"] == "no error":
        pytest.skip("this user may open a socket of mode 0 (CAP_DAC_OVERRIDE)")
    assert out["denied_first"]["result"] == refused
    assert out["denied_second"]["result"] == refused  # not the first path's "not running"
    assert out["paths"] == out["apaths"] == [missing, denied]
    for key in ("hello", "stream", "stream_again", "job_updates", "wait_job",
                "ahello", "astream", "astream_again", "ajob_updates", "await_job"):  # fmt: skip
        assert out[key]["result"] == refused, (key, out[key])
        assert out[key]["seconds"] < 3, (key, out[key])  # at once: not after a 5 s timeout
    assert out["stream_idle_tried"] is False and out["astream_idle_tried"] is False
    assert out["stream_again_tried"] is True and out["astream_again_tried"] is True


def test_streams_keep_trying_while_labeld_is_not_running(tmp_path: Any) -> None:
    """Not running is not lasting: streams and job sequences wait (and keep trying)
    instead of raising Unreachable."""
    path = str(tmp_path / "labeld.sock")
    client = Client(path, timeout=5)
    stream = client.alerts()
    try:
        assert stream.next(timeout=0.3) is None  # nothing more
        first = wait_for("a failed attempt", lambda: stream.last_error)
        assert isinstance(first, Unreachable) and first.not_running
        wait_for("another attempt", lambda: stream.last_error is not first, timeout=5)
    finally:
        stream.close()
    with pytest.raises(Timeout):
        client.wait_job(1, timeout=0.3)

    async def main() -> None:
        async with AsyncClient(path, timeout=5) as ac:
            s = ac.alerts()
            assert await s.next(timeout=0.3) is None  # nothing more
            seen = s.last_error
            assert isinstance(seen, Unreachable) and seen.not_running
            for _ in range(100):
                if s.last_error is not seen:
                    break
                await asyncio.sleep(0.05)
            assert s.last_error is not seen, "the stream tried again"
            with pytest.raises(Timeout):
                await ac.wait_job(1, timeout=0.3)

    run_async(main(), 20)


def test_connect_tries_the_candidates_in_order(labeld: LabeldInstance, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not running (ENOENT, ECONNREFUSED) moves on to the next path; any other failure is
    raised at once; when none answers, the first path's failure. A client that finds its
    socket by discovery reaches the system service's when its own is missing."""
    from labeld_client import _wire
    from labeld_client.aio import _open_first
    from labeld_client.client import _connect

    work = tempfile.mkdtemp(prefix="lbc", dir="/tmp")
    try:
        missing = os.path.join(work, "labeld.sock")
        refused = os.path.join(work, "refused.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(refused)  # a socket file nothing listens on
        s.close()
        a_file = os.path.join(work, "file")
        open(a_file, "w").close()
        not_a_dir = os.path.join(a_file, "labeld.sock")  # ENOTDIR: not "not running"

        conn = _connect([missing, refused, labeld.socket_path], time.monotonic() + 5)
        assert conn.path == labeld.socket_path
        conn.close()
        with pytest.raises(Unreachable) as e:
            _connect([missing, refused], time.monotonic() + 5)
        assert (e.value.path, e.value.errno, e.value.not_running) == (missing, errno.ENOENT, True)
        with pytest.raises(Unreachable) as e:
            _connect([refused, missing], time.monotonic() + 5)
        assert (e.value.path, e.value.errno) == (refused, errno.ECONNREFUSED)
        with pytest.raises(Unreachable) as e:
            _connect([not_a_dir, labeld.socket_path], time.monotonic() + 5)
        assert (e.value.path, e.value.errno, e.value.not_running) == (not_a_dir, errno.ENOTDIR, False)
        assert str(e.value) == f"cannot reach labeld at {not_a_dir}: Not a directory"

        async def order() -> None:
            sock, path = await _open_first([missing, refused, labeld.socket_path], time.monotonic() + 5)
            sock.close()
            assert path == labeld.socket_path
            with pytest.raises(Unreachable) as e:
                await _open_first([missing, refused], time.monotonic() + 5)
            assert e.value.path == missing
            with pytest.raises(Unreachable) as e:
                await _open_first([not_a_dir, labeld.socket_path], time.monotonic() + 5)
            assert e.value.path == not_a_dir

        run_async(order(), 20)

        # discovery: this user's own socket is missing; the system service's answers
        monkeypatch.delenv("LABELD_SOCKET", raising=False)
        monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
        monkeypatch.setenv("XDG_RUNTIME_DIR", work)
        monkeypatch.setattr(os, "getuid", lambda: 4242)
        monkeypatch.setattr(_wire, "SYSTEM_SOCKET", labeld.socket_path)
        client = Client(timeout=10)
        assert client.socket_paths == [missing, labeld.socket_path]
        assert client.hello().server == "labeld"
        assert client.socket_path == missing  # still the first candidate
        with client.alerts() as stream:
            client.simulate("sim:zebra", "mediaEmpty")
            item = stream.next(timeout=10)
            assert isinstance(item, Alert) and item.id == "printerError:sim:zebra"
            client.simulate("sim:zebra", None)
        job = client.submit("sim:zebra", document=ZPL)
        assert client.wait_job(job.id, timeout=20).state == "completed"
        client.close()

        async def discovered() -> None:
            async with AsyncClient(timeout=10) as ac:
                assert ac.socket_paths == [missing, labeld.socket_path]
                assert (await ac.hello()).server == "labeld"
                s = ac.alerts()
                await ac.simulate("sim:ql", "coverOpen")
                item = await s.next(timeout=10)
                assert isinstance(item, Alert) and item.id == "printerError:sim:ql"
                await s.aclose()
                job = await ac.submit("sim:zebra", document=ZPL)
                assert (await ac.wait_job(job.id, timeout=20)).state == "completed"

        run_async(discovered(), 40)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_timeout_when_labeld_hangs(labeld: LabeldInstance) -> None:
    client = labeld.client(timeout=0.5)
    client.hello()
    with frozen(labeld):
        t0 = time.monotonic()
        with pytest.raises(Timeout):
            client.hello()
        assert time.monotonic() - t0 < 3

        async def main() -> None:
            async with AsyncClient(labeld.socket_path, timeout=0.5) as ac:
                t1 = time.monotonic()
                with pytest.raises(Timeout):
                    await ac.hello()
                assert time.monotonic() - t1 < 3

        run_async(main(), 10)
    assert client.hello().server == "labeld"


def test_connection_lost_when_labeld_dies_mid_request(labeld: LabeldInstance) -> None:
    client = labeld.client(timeout=20)
    client.hello()
    with frozen(labeld):
        call = Background(lambda: client.simulate("sim:zebra", "mediaEmpty"), "simulate")
        call.start()
        wait_for("the call to be under way", lambda: client._lock.locked(), timeout=5)
        time.sleep(0.1)  # let it reach recv (the outcome does not depend on it)
        labeld.kill()
        with pytest.raises(ConnectionLost) as e:
            call.finish(10)
        assert "may or may not have run" in str(e.value)
    labeld.start()
    assert client.hello().server == "labeld"


# --- a fake daemon, for what a real one does not do -------------------------------------


class FakeDaemon(UnixServer):
    """A Unix socket server; ``handle(conn_index, sock)`` serves each connection."""

    def __init__(self, handle: Callable[[int, socket.socket], None]) -> None:
        self.handle = handle
        super().__init__("lbf", "s")

    def serve(self, i: int, conn: socket.socket) -> None:
        try:
            self.handle(i, conn)
        except OSError:
            pass
        finally:
            conn.close()


def read_request(conn: socket.socket) -> dict[str, Any]:
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            raise OSError("closed")
        buf += chunk
    msg = json.loads(buf)
    assert isinstance(msg, dict)
    return msg


def answer(conn: socket.socket, req: dict[str, Any], result: Any) -> None:
    conn.sendall(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": result}).encode() + b"\n")


@pytest.fixture
def fake() -> Iterator[Callable[[Callable[[int, socket.socket], None]], FakeDaemon]]:
    made: list[FakeDaemon] = []

    def make(handle: Callable[[int, socket.socket], None]) -> FakeDaemon:
        d = FakeDaemon(handle)
        made.append(d)
        return d

    yield make
    for d in made:
        d.close()


HELLO = {"server": "labeld", "version": "fake", "protocol": 1}


def drop_first(i: int, conn: socket.socket) -> None:
    """The first connection takes one request and closes without answering."""
    req = read_request(conn)
    if i == 0:
        return
    answer(conn, req, HELLO if req["method"] == "hello" else {"printer": None})
    while True:
        answer(conn, read_request(conn), HELLO)


def test_read_only_call_is_retried_once(fake: Any) -> None:
    d = fake(drop_first)
    assert Client(d.path, timeout=5).hello().version == "fake"

    async def main() -> str:
        async with AsyncClient(d.path, timeout=5) as ac:
            return (await ac.hello()).version

    assert run_async(main(), 10) == "fake"


def test_render_is_retried_once_like_the_other_reads(fake: Any) -> None:
    """labels.render changes nothing: asked once more after a lost connection (LabelKit's
    LabeldClient.onlyReads)."""
    rendered = {"format": "png", "mediaType": "image/png", "width": 1, "height": 1, "data": ""}

    def handle(i: int, conn: socket.socket) -> None:
        req = read_request(conn)
        if i % 2 == 0:
            return  # the first connection of each client drops before its answer
        answer(conn, req, rendered)

    d = fake(handle)
    assert Client(d.path, timeout=5).call("labels.render", template="t", data={}) == rendered
    assert d.count == 2

    async def main() -> Any:
        async with AsyncClient(d.path, timeout=5) as ac:
            return await ac.call("labels.render", template="t", data={})

    assert run_async(main(), 10) == rendered
    assert d.count == 4


def test_other_calls_are_not_retried(fake: Any) -> None:
    d = fake(drop_first)
    client = Client(d.path, timeout=5)
    with pytest.raises(ConnectionLost) as e:
        client.call("printers.simulate", printer="sim:zebra", fault=None)
    assert "may or may not have run" in str(e.value)
    assert client.hello().version == "fake"  # the next call reconnects
    assert d.count == 2

    d2 = fake(drop_first)

    async def main() -> None:
        async with AsyncClient(d2.path, timeout=5) as ac:
            with pytest.raises(ConnectionLost):
                await ac.call("printers.simulate", printer="sim:zebra", fault=None)
            assert (await ac.hello()).version == "fake"

    run_async(main(), 10)


def test_not_json_is_a_protocol_violation(fake: Any) -> None:
    def handle(i: int, conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"this is not JSON\n")
        time.sleep(1)

    d = fake(handle)
    with pytest.raises(ProtocolViolation):
        Client(d.path, timeout=5).hello()


def test_a_line_past_64_mib_is_refused(fake: Any) -> None:
    """labeld sending an endless line: ProtocolViolation once 64 MiB have come, never more."""
    sent = [0]

    def handle(i: int, conn: socket.socket) -> None:
        read_request(conn)
        chunk = b"x" * (1 << 20)
        conn.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"pad":"')
        try:
            for _ in range(80):
                conn.sendall(chunk)
                sent[0] += len(chunk)
        except OSError:
            return

    d = fake(handle)
    with pytest.raises(ProtocolViolation) as e:
        Client(d.path, timeout=20).hello()
    assert f"longer than {64 << 20} bytes" in str(e.value)
    assert sent[0] < 80 << 20, "the kit stopped reading at the limit"

    sent[0] = 0

    async def main() -> None:
        async with AsyncClient(d.path, timeout=20) as ac:
            with pytest.raises(ProtocolViolation) as e2:
                await ac.hello()
            assert f"longer than {64 << 20} bytes" in str(e2.value)

    run_async(main(), 30)
    assert sent[0] < 80 << 20, "the asyncio kit stopped reading at the limit"


def test_answer_and_close_while_a_big_request_is_sent(fake: Any) -> None:
    """A daemon that answers a request it will not read to the end, then closes (labeld
    does so for a line past its limit): both kits report the answer at once, never wait
    on a send that cannot finish."""

    def handle(i: int, conn: socket.socket) -> None:
        got = 0
        while got < 256 * 1024:
            chunk = conn.recv(65536)
            if not chunk:
                return
            got += len(chunk)
        conn.sendall(b'{"error":{"code":-32600,"message":"message too large"},"id":null,"jsonrpc":"2.0"}\n')
        conn.shutdown(socket.SHUT_RDWR)

    d = fake(handle)
    big = ProductInput(sku="BIG", name="x" * (8 << 20))
    t0 = time.monotonic()
    with pytest.raises(InvalidRequest):
        Client(d.path, timeout=20).save_product(big)

    async def main() -> None:
        async with AsyncClient(d.path, timeout=20) as ac:
            with pytest.raises(InvalidRequest):
                await ac.save_product(big)

    run_async(main(), 30)
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_a_reader_that_fails_is_never_lost(
    labeld: LabeldInstance, flavour: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever stops a stream's reader thread or task (here a bug, planted) ends the
    stream with a ClientError that keeps the cause, from next() and a for loop alike: no
    traceback on stderr and a consumer waiting for ever (pytest fails a test whose thread
    dies with one: filterwarnings in pyproject.toml; the Bridge, a task's unseen one)."""
    from labeld_client import aio
    from labeld_client import client as blocking

    def broken(*args: Any) -> Any:
        raise RuntimeError("planted")

    # where the reader connects: outside any one connection's handling
    monkeypatch.setattr(blocking, "_connect", broken)
    monkeypatch.setattr(aio, "_open_pull", broken)
    client: Any = labeld.client() if flavour == "sync" else Bridge(labeld.async_client)
    try:
        stream = client.alerts()
        with pytest.raises(ClientError, match="reader stopped") as e:
            stream.next(timeout=10)
        assert isinstance(e.value.__cause__, RuntimeError) and stream.failure is e.value
        with pytest.raises(ClientError, match="reader stopped"):
            for _ in stream:
                pass
        stream.close()
    finally:
        client.close()
