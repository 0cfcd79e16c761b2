"""Installing and running on the Pi: the service recipe in docs/HARDWARE.md, a Pi camera whose
software is missing, an onnxruntime that cannot be loaded, and ``hw test``'s output contract.

Each failure a user can mend is one line, at once: never a traceback, never a wait for a
camera that cannot appear.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import vision.table.frames as frames
from referee.cli import EXIT_BROKEN_PIPE, EXIT_CANNOT_WRITE, build_parser, main
from tests.test_camera_drop import until
from tests.test_cli_fresh_eyes import one_line
from web.services.camera import LiveFeed

REPO = Path(__file__).resolve().parent.parent
HARDWARE_DOC = REPO / "docs" / "HARDWARE.md"
APT_HINT = "sudo apt install python3-picamera2"


# -- A: the systemd unit -------------------------------------------------------------------


def _unit() -> str:
    """The ``ini`` block of HARDWARE.md that is the service unit."""
    blocks = re.findall(r"```ini\n(.*?)```", HARDWARE_DOC.read_text(), re.S)
    units = [b for b in blocks if "ExecStart=" in b]
    assert len(units) == 1
    return units[0]


def test_the_service_unit_serves_the_tablets_not_the_pi_alone() -> None:
    """Before: ``ExecStart=… tabletop serve`` bound 127.0.0.1, which no tablet can reach."""
    exec_start = re.search(r"^ExecStart=(.*)$", _unit(), re.M)
    assert exec_start is not None
    argv = shlex.split(exec_start.group(1))
    assert argv[0].endswith("/.venv/bin/tabletop")
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.host) == ("serve", "0.0.0.0")


def test_the_service_unit_can_be_enabled_at_boot() -> None:
    """Before: no ``[Install]`` section, so ``systemctl enable`` did nothing."""
    assert re.search(r"^\[Install\]\nWantedBy=multi-user\.target$", _unit(), re.M)


# -- B: picamera2 not installed --------------------------------------------------------------


@pytest.fixture
def no_picamera2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2: ImportError


def test_a_missing_picamera2_is_not_waited_for(no_picamera2: None) -> None:
    """Before: treated as an unplugged camera, retried for ever ("trying again until it is
    there"); a module that is not installed never appears."""
    pauses: list[float] = []
    statuses: list[str] = []
    source = frames.ReconnectingSource(
        frames.Picamera2Source, max_retries=3, sleep=pauses.append, on_status=statuses.append
    )
    with pytest.raises(frames.CameraError) as caught:
        source.read()
    assert pauses == [] and statuses == []  # no retry; the caller says the error, once
    assert APT_HINT in str(caught.value) and "--system-site-packages" in str(caught.value)
    assert source.status == str(caught.value)


def test_vision_watch_without_picamera2_says_how_to_install_it_in_one_line(
    no_picamera2: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: Any
) -> None:
    from vision.table.sequences import table_layout

    class Bounded(frames.ReconnectingSource):  # the old code's endless wait, cut short
        def __init__(self, open_source: Callable[[], Any], **kw: Any) -> None:
            super().__init__(open_source, retry_s=0, max_retries=2)

    monkeypatch.setattr(frames, "ReconnectingSource", Bounded)
    zones = tmp_path / "zones.json"
    zones.write_text(json.dumps(table_layout().to_dict()))
    argv = ["vision", "watch", "picamera2", "--game", "dos", "--zones", str(zones)]
    assert main(argv) == 2  # a setup error, as a bad camera spec
    line = one_line(capsys.readouterr().err)  # before: "no camera yet: … trying again", twice
    assert line.startswith("tabletop vision watch: picamera2 is not installed for this Python")
    assert APT_HINT in line


def test_the_dashboard_feed_gives_up_on_a_missing_picamera2_and_says_why(
    no_picamera2: None,
) -> None:
    """Before: the feed's thread retried for ever, saying "trying again until it is there"."""
    feed = LiveFeed("picamera2", retry_s=0.01, stale_s=0.5)
    try:
        assert feed.latest() is None
        until(lambda: feed.ended)
        assert feed.error is not None and APT_HINT in feed.error
        assert "trying again" not in feed.error
    finally:
        feed.close()


def test_a_picamera2_that_imports_badly_is_not_waited_for_either(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Debian's simplejpeg under the virtualenv's numpy 2 fails picamera2's import with a
    ValueError, not an ImportError."""
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    pauses: list[float] = []
    source = frames.ReconnectingSource(frames.Picamera2Source, max_retries=3, sleep=pauses.append)
    with pytest.raises(frames.CameraError, match=r"numpy\.dtype size changed"):
        source.read()
    assert pauses == []


# -- C: an onnxruntime that cannot be imported ---------------------------------------------


@pytest.fixture
def broken_onnxruntime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``import onnxruntime`` fails as a wheel without its shared library does."""
    package = tmp_path / "onnxruntime"
    package.mkdir()
    (package / "__init__.py").write_text(
        "raise ImportError('libonnxruntime.so.1: cannot open shared object file')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)


@pytest.mark.parametrize("command", ["identify", "watch"])
def test_a_broken_onnxruntime_is_one_line_not_a_traceback(
    broken_onnxruntime: None, command: str, tmp_path: Path, capsys: Any, caplog: Any
) -> None:
    """Before: a 36-line ImportError traceback (exit 1)."""
    argv = {
        "identify": ["vision", "identify", str(tmp_path / "frame.png")],
        "watch": ["vision", "watch", str(REPO / "tests/data/table/pile.avi"), "--game", "dos"],
    }[command]
    if command == "watch":
        from vision.table.sequences import table_layout

        zones = tmp_path / "zones.json"
        zones.write_text(json.dumps(table_layout().to_dict()))
        argv += ["--zones", str(zones)]
    with caplog.at_level(logging.WARNING):
        assert main(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"tabletop vision {command}: onnxruntime cannot be loaded (")
    assert "libonnxruntime.so.1" in line and "--force-reinstall" in line
    assert "ignored" not in caplog.text  # not blamed on the int8 twins


# -- D: hw test's output ----------------------------------------------------------------------


def _hw_test(stdout: Any) -> subprocess.CompletedProcess[str]:
    """``hw test`` with each line written as it is printed (as on a terminal, or with
    ``python -u``), so that a write fails inside the test, not in the CLI's flush at exit."""
    env = {k: v for k, v in os.environ.items() if k != "TABLETOP_CONFIG"}
    env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "hw", "test", "--mock", "--script", "all"],
        cwd=REPO,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )


def test_ruling_cli3_hw_test_into_a_closed_pipe_ends_141_silently() -> None:
    """Before: 141, but with "tabletop hw test: [Errno 32] Broken pipe" on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line
    try:
        done = _hw_test(write_end)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (EXIT_BROKEN_PIPE, "")


def test_ruling_cli5_hw_test_on_a_full_disk_ends_74_with_one_line() -> None:
    """Before: "tabletop hw test: [Errno 28] …" and then the CLI's own line: two lines."""
    with open("/dev/full", "w") as full:
        done = _hw_test(full)
    assert done.returncode == EXIT_CANNOT_WRITE
    assert one_line(done.stderr) == "tabletop: cannot write the output: No space left on device"
