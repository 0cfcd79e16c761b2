"""Training plan plumbing that needs no training: stage names and the round-2 crop union."""

from __future__ import annotations

from pathlib import Path

from vision.commands import STAGE_NAMES
from vision.train import ROUND2, STAGES, _union


def test_cli_stage_names_are_the_training_stages() -> None:
    assert STAGE_NAMES == STAGES
    assert set(ROUND2) <= set(STAGES)


def test_union_links_every_crop_of_every_part(tmp_path: Path) -> None:
    for part, names in (("one", ("a.png", "b.png")), ("two", ("c.png",))):
        folder = tmp_path / part / "symbol" / "train" / "7"
        folder.mkdir(parents=True)
        for n in names:
            (folder / n).write_bytes(n.encode())
    out = _union(tmp_path / "all", [tmp_path / "one", tmp_path / "two"])
    got = sorted(p.name for p in (out / "symbol" / "train" / "7").iterdir())
    assert got == ["a.png", "b.png", "c.png"]
    assert (out / "symbol" / "train" / "7" / "c.png").read_bytes() == b"c.png"
    assert (out / "done").exists()


def test_detector_union_yaml_lists_every_split(tmp_path: Path) -> None:
    from vision.train import _both_yaml

    path = _both_yaml(tmp_path / "all.yaml", [tmp_path / "a", tmp_path / "b"])
    text = path.read_text()
    for root in ("a", "b"):
        for split in ("train", "val"):
            assert str((tmp_path / root / "images" / split).resolve()) in text
    assert '0: "card"' in text
