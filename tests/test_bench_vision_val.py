"""The validation bench that chooses model files: sets rendered once, scored as ``eval`` does."""

from __future__ import annotations

from pathlib import Path

from bench.vision_val import ValSet, render_set, score_models, table
from vision.evaluate import evaluate
from vision.runtime.reader import MODELS_DIR, CardReader

TINY = (ValSet("scenes", 7101, 2), ValSet("heldout", 7102, 2), ValSet("empty", 7103, 2))


def test_sets_are_rendered_once_and_scored_like_vision_eval(tmp_path: Path) -> None:
    roots = {s.name: render_set(tmp_path, s) for s in TINY}
    stamp = (roots["scenes-7101"] / "done").stat().st_mtime_ns
    assert render_set(tmp_path, TINY[0]) == roots["scenes-7101"]  # kept, not rendered again
    assert (roots["scenes-7101"] / "done").stat().st_mtime_ns == stamp

    scores = score_models(MODELS_DIR, roots)
    report = evaluate(roots["heldout-7102"], CardReader(MODELS_DIR))
    assert scores["heldout-7102"].faces == report.faces > 0
    assert scores["heldout-7102"].read == report.identity_correct
    assert scores["empty-7103"].faces == 0

    text = table({Path("base"): scores, Path("again"): scores}, TINY)
    base, again = text.splitlines()[1:]
    faces = scores["scenes-7101"].faces + scores["heldout-7102"].faces
    total = scores["scenes-7101"].read + scores["heldout-7102"].read
    assert f"faces read ({faces})" in text.splitlines()[0]
    assert f"{total} (+0)" in again and "(+" not in base
