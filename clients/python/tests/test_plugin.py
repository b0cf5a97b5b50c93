"""The pytest plugin itself, run in a pytester sandbox."""

from __future__ import annotations

import pytest

from labeld_client.pytest_plugin import LabeldInstance

pytest_plugins = ["pytester"]


def test_private_instance(labeld: LabeldInstance) -> None:
    assert labeld.managed and labeld.state_dir and len(labeld.socket_path.encode()) < 108
    assert [p.id for p in labeld.printers()] == ["sim:zebra", "sim:ql"]
    assert labeld.simulate("sim:ql", "coverOpen").reasons == ["coverOpen"]
    assert labeld.sim_output("zebra", 1) is None
    assert "--no-cups" in labeld.args and "--no-usb" in labeld.args and "--no-config" in labeld.args
    labeld.stop()
    assert not labeld.running


@pytest.mark.labeld_args("--simulate", "spare=tspl")
def test_marker_adds_arguments(labeld: LabeldInstance) -> None:
    assert [p.id for p in labeld.printers()] == ["sim:zebra", "sim:ql", "sim:spare"]


def test_attached_mode_and_failure_log(pytester: pytest.Pytester, labeld: LabeldInstance) -> None:
    """--labeld-socket attaches to a running labeld: process control skips saying why; a
    private instance's log is shown when a test fails."""
    pytester.makepyfile(
        test_inner="""
        def test_attached(labeld):
            assert not labeld.managed and labeld.state_dir is None
            assert labeld.client().hello().server == "labeld"
            assert labeld.printers()

        def test_kill_skips(labeld):
            labeld.kill()

        def test_sim_output_skips(labeld):
            labeld.sim_output("zebra", 1)
        """
    )
    result = pytester.runpytest_subprocess("-rs", f"--labeld-socket={labeld.socket_path}", "test_inner.py")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*kill() needs a private labeld*--labeld-socket*"])
    assert labeld.running, "an attached run leaves labeld alone"

    assert labeld.binary is not None
    pytester.makepyfile(
        test_fails="""
        def test_broken(labeld):
            labeld.client().hello()
            assert False, "on purpose"
        """
    )
    result = pytester.runpytest_subprocess(f"--labeld-binary={labeld.binary}", "test_fails.py")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*labeld log*", "*listening on*"])


def test_missing_binary_fails_clearly(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LABELD_BINARY", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    pytester.makepyfile(test_x="def test_x(labeld):\n    pass\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no labeld binary: pass --labeld-binary PATH, set LABELD_BINARY*"])
