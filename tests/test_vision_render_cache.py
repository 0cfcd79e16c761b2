"""Cached training renders are reused only when they were rendered from the same recipe."""

from __future__ import annotations

import json
from pathlib import Path

from vision import train_data as data
from vision.render import cache


def _fake_chunk(args: tuple) -> tuple[int, int]:
    """A chunk worker that writes one file naming its seed (module level: picklable)."""
    folder, _models, n, seed, _decks, _threads, split, _size = args
    target = folder / "symbol" / split / "7"
    target.mkdir(parents=True, exist_ok=True)
    (target / f"{seed}.png").write_bytes(str(seed).encode())
    return seed, n


def _render(tmp_path: Path, seed: int, worker=_fake_chunk) -> list[str]:
    import vision.train as train

    logged: list[str] = []
    plan = train.TrainPlan(render_workers=1)
    models = tmp_path / "models"
    models.mkdir(exist_ok=True)
    (models / "card-detector.onnx").write_bytes(b"detector one")
    chunk = tmp_path / "crops96-fresh-15"
    data.render_chunks(plan, models, [(chunk, 3, seed, "train")], 96, logged.append, worker)
    return logged


def test_a_chunk_is_reused_only_for_the_recipe_it_was_rendered_from(tmp_path: Path) -> None:
    chunk = tmp_path / "crops96-fresh-15"
    assert _render(tmp_path, 417) == ["3 crops at 96 px (seed 417)"]
    assert _render(tmp_path, 417) == []  # same recipe: kept
    # same folder name, another seed (round 10 reused round 9's chunk names): rendered again
    assert _render(tmp_path, 418) == ["3 crops at 96 px (seed 418)"]
    files = sorted(p.name for p in chunk.rglob("*.png"))
    assert files == ["418.png"]  # nothing of the old chunk is left in it
    marker = json.loads((chunk / "done").read_text())
    assert marker["recipe"]["seed"] == 418
    assert marker["recipe"]["kind"] == "_fake_chunk"
    # which detector cut it is recorded, not compared
    assert marker["provenance"]["detector"] == cache.file_digest(
        tmp_path / "models" / "card-detector.onnx"
    )
    (tmp_path / "models" / "card-detector.onnx").write_bytes(b"detector two")
    assert _render(tmp_path, 418) == []


def test_an_empty_marker_from_older_code_is_not_trusted(tmp_path: Path) -> None:
    chunk = tmp_path / "crops96-fresh-15"
    (chunk / "symbol").mkdir(parents=True)
    (chunk / "symbol" / "stale.png").write_bytes(b"old")
    (chunk / "done").touch()
    assert _render(tmp_path, 417) == ["3 crops at 96 px (seed 417)"]
    assert not (chunk / "symbol" / "stale.png").exists()


def test_a_recipe_records_the_render_switches_that_are_on() -> None:
    from vision.render.fonts import more_typefaces
    from vision.render.frames import more_frames

    plain = cache.recipe(kind="detector-tables", n=2000, seed=91)
    with more_frames(), more_typefaces():
        framed = cache.recipe(kind="detector-tables", n=2000, seed=91)
    assert plain["switches"] == []
    assert framed["switches"] == ["more_frames", "more_typefaces"]


def test_detector_tables_render_again_when_the_frames_switch_changes(
    tmp_path: Path, monkeypatch
) -> None:
    """Round 9's framed tables and an unframed set with the same name and seed differ."""
    import vision.render.dataset as dataset
    from vision.decks import load_deck
    from vision.render.frames import more_frames

    written: list[bool] = []

    def write(folder: Path, *_args) -> None:
        from vision.render.frames import frames_on

        folder.mkdir(parents=True, exist_ok=True)
        written.append(frames_on())

    monkeypatch.setattr(dataset, "write_detector_dataset", write)
    decks = [load_deck("deck-dash")]
    folder = tmp_path / "detector-data-round11"
    with more_frames():
        data.detector_tables(folder, 16, 91, decks)
        data.detector_tables(folder, 16, 91, decks)
    data.detector_tables(folder, 16, 91, decks)
    data.detector_tables(folder, 24, 91, decks)
    assert written == [True, False, False]


def test_a_union_is_built_again_when_a_part_was_rendered_again(tmp_path: Path) -> None:

    part = tmp_path / "crops96-fresh-15"
    _render(tmp_path, 417)
    union = data.union(tmp_path / "crops96-fresh-round11", [part])
    assert sorted(p.name for p in union.rglob("*.png")) == ["417.png"]
    _render(tmp_path, 418)
    union = data.union(tmp_path / "crops96-fresh-round11", [part])
    assert sorted(p.name for p in union.rglob("*.png")) == ["418.png"]
