"""``vision.files``: a calibration or a model is replaced whole or not at all."""

from __future__ import annotations

import stat

import pytest

from vision.files import PLAIN_MODE, copy_whole, written_whole


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_write_cut_short_leaves_the_old_file_and_no_temporary_one(tmp_path):
    dest = tmp_path / "zones.json"
    dest.write_text("old")
    with pytest.raises(OSError), written_whole(dest) as part:
        part.write_text("half a new")
        raise OSError(28, "No space left on device")
    assert dest.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zones.json"]


def test_a_whole_write_replaces_the_file_with_its_mode(tmp_path):
    dest = tmp_path / "models" / "cards.onnx"  # the folder is made
    with written_whole(dest, sync=True) as part:
        part.write_text("new")
    assert dest.read_text() == "new" and _mode(dest) == PLAIN_MODE  # not mkstemp's 0600
    dest.chmod(0o640)
    with written_whole(dest) as part:
        part.write_text("newer")
    assert dest.read_text() == "newer" and _mode(dest) == 0o640  # kept
    assert sorted(p.name for p in dest.parent.iterdir()) == ["cards.onnx"]


def test_a_copy_has_its_sources_mode(tmp_path):
    src = tmp_path / "best.pt"
    src.write_bytes(b"weights")
    src.chmod(0o600)
    dest = copy_whole(src, tmp_path / "models" / "cards.pt")
    assert dest.read_bytes() == b"weights" and _mode(dest) == 0o600
