"""Review 35, the vision command line: what a full disk left behind, and FFmpeg's noise.

A full disk is a child process whose files may not grow past a few KiB (``RLIMIT_FSIZE``;
Python ignores SIGXFSZ, so the write fails with EFBIG as it would with ENOSPC).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli import main
from vision.commands import write_new_file
from vision.table.zones import TableLayout, ZoneKind, rectangle

ROOT = Path(__file__).resolve().parents[1]


def limited(size: int) -> Any:
    """For ``subprocess``: no file the child writes may grow past ``size`` bytes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def tabletop(*args: str, size: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limited(size) if size else None,
    )


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# -- 1. vision render / train: an image that cannot be written --------------------------------
def test_render_says_which_image_it_cannot_write_and_leaves_no_label_without_it(
    tmp_path: Path,
) -> None:
    """Before: ``cv2.imwrite`` failed quietly, its label was written anyway, exit 0, and
    ``vision eval`` scored the smaller set. 4 KiB: room for data.yaml, none for a scene."""
    out = tmp_path / "set"
    done = tabletop("vision", "render", "--n", "3", "--decks", "dos", str(out), size=4096)
    image = out / "images" / "1000_00000.jpg"
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [
        f"tabletop vision render: cannot write {image}: File too large"
    ]
    assert files(out) == ["render.json"]  # no label, no half image, no temporary file


CROPS = """
import json, sys
from pathlib import Path
from vision.commands import deck_profile
from vision.render.dataset import write_crops
from vision.render.faces import TRAIN_STYLES
try:
    write_crops(Path(sys.argv[1]), 3, 7, [deck_profile("dos")], TRAIN_STYLES, "train")
    print(json.dumps(None))
except OSError as exc:
    print(json.dumps([exc.filename, exc.strerror]))
"""


def test_train_crops_that_cannot_be_written_raise_naming_the_crop(tmp_path: Path) -> None:
    """``vision train``'s classifier crops: before, an unwritten crop was lost in silence,
    or linking it into the colour tree failed with "No such file or directory"."""
    out = tmp_path / "crops"
    done = subprocess.run(
        [sys.executable, "-c", CROPS, str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limited(512),
    )
    assert done.returncode == 0, done.stderr
    failed = json.loads(done.stdout)
    assert failed is not None, "write_crops returned as if every crop was written"
    name, why = failed
    assert Path(name).parent.parent == out / "symbol" / "train" and name.endswith(".png")
    assert why == "File too large"
    assert files(out) == []


# -- 2. vision eval --json: a report written whole or not at all -------------------------------
def test_eval_json_that_cannot_be_written_leaves_no_half_report_and_the_rerun_writes_it(
    tmp_path: Path,
) -> None:
    """Before: half a report (not JSON) stayed under its name, and the rerun was refused by
    CLI-1 because the file existed."""
    assert main(["vision", "render", "--n", "2", "--decks", "dos", str(tmp_path / "set")]) == 0
    report = tmp_path / "report.json"
    argv = ("vision", "eval", str(tmp_path / "set"), "--json", str(report))
    full = tabletop(*argv, size=1024)
    assert full.returncode == 2, full
    assert (
        full.stderr.splitlines()[-1]
        == f"tabletop vision eval: cannot write {report}: File too large"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]  # nor a temporary file
    again = tabletop(*argv)
    assert again.returncode == 0, again.stderr
    assert json.loads(report.read_text())["images"] == 2


def test_write_new_file_never_writes_over_a_file_and_leaves_no_temporary_one(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "report.json"
    kept.write_text("last week\n")
    with pytest.raises(FileExistsError):
        write_new_file(kept, "{}\n")
    assert kept.read_text() == "last week\n"
    fresh = tmp_path / "new.json"
    write_new_file(fresh, "{}\n")
    assert fresh.read_text() == "{}\n" and (fresh.stat().st_mode & 0o777) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "report.json"]
    write_new_file(Path(os.devnull), "{}\n")  # a device is written to, as before


def test_write_new_file_where_links_fail_writes_the_file_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FAT stick has no hard links (EPERM): the report is still written, once."""
    import vision.commands

    def no_links(*_a: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(vision.commands.os, "link", no_links)
    report = tmp_path / "report.json"
    write_new_file(report, "{}\n")
    assert report.read_text() == "{}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    with pytest.raises(FileExistsError):
        write_new_file(report, "[]\n")
    assert report.read_text() == "{}\n"


# -- 3. vision watch: one line of ours, none of FFmpeg's ---------------------------------------
@pytest.fixture
def zones(tmp_path: Path) -> Path:
    layout = TableLayout((rectangle("discard", ZoneKind.DISCARD, (0.3, 0.3, 0.7, 0.7)),))
    path = tmp_path / "zones.json"
    path.write_text(json.dumps(layout.to_dict()))
    return path


def cut_video(path: Path) -> Path:
    """A Motion-JPEG video whose last frame is cut short (a copy interrupted)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    rng = np.random.default_rng(0)
    for _ in range(4):
        writer.write(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8))
    writer.release()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 7 // 8])
    return path


def test_watch_on_a_file_that_is_no_video_says_so_in_one_line(tmp_path: Path, zones: Path) -> None:
    """Before: FFmpeg's "[png @ 0x…] Invalid PNG signature" lines came first."""
    not_video = tmp_path / "not.png"
    not_video.write_text("hello")
    done = tabletop("vision", "watch", "--game", "deck-dash", "--zones", str(zones), str(not_video))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"tabletop vision watch: no frame could be read from {not_video}"
    ]


def test_watch_on_a_cut_video_prints_none_of_ffmpegs_decoder_messages(
    tmp_path: Path, zones: Path
) -> None:
    """Before: "[mjpeg @ 0x…] overread 8" among what watch says."""
    video = cut_video(tmp_path / "cut.avi")
    done = tabletop("vision", "watch", "--game", "deck-dash", "--zones", str(zones), str(video))
    assert done.returncode == 0, done.stderr
    assert all(line.startswith("tabletop vision watch: ") for line in done.stderr.splitlines())


def test_opencv_quiet_keeps_an_ffmpeg_log_level_set_to_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision.table.frames import opencv_quiet

    monkeypatch.setenv("OPENCV_FFMPEG_LOGLEVEL", "32")
    with opencv_quiet():
        pass
    assert os.environ["OPENCV_FFMPEG_LOGLEVEL"] == "32"
