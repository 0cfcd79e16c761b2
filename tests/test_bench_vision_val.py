"""The validation bench that chooses model files: sets rendered once, scored as ``eval`` does."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bench.vision_val import ValSet, render_set, score_models, table
from vision.evaluate import evaluate, read_names
from vision.runtime.reader import MODELS_DIR, CardReader

TINY = (
    ValSet("scenes", 7101, 2),
    ValSet("heldout", 7102, 2),
    ValSet("scenes", 7121, 2, style="badge"),
    ValSet("empty", 7103, 2),
)


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
    assert scores["badge-7121"].faces > 0

    text = table({Path("base"): scores, Path("again"): scores}, TINY)
    base, again = text.splitlines()[1:]
    faced = ("scenes-7101", "heldout-7102", "badge-7121")
    faces = sum(scores[name].faces for name in faced)
    total = sum(scores[name].read for name in faced)
    assert f"faces read ({faces})" in text.splitlines()[0]
    assert f"{total} (+0)" in again and "(+" not in base
    assert "+0 / -0" in again  # the same faces: nothing gained, nothing lost

    # one face fewer and one other face more: a net +0 that the gained / lost column shows
    name = "scenes-7101"
    ids = sorted(scores[name].read_ids)
    assert ids, "the tiny set must hold a face read right"
    swapped = dict(scores)
    swapped[name] = replace(scores[name], read_ids=frozenset(ids[1:]) | {"elsewhere.jpg#0"})
    churn = table({Path("base"): scores, Path("swap"): swapped}, TINY).splitlines()[2]
    assert f"{total} (+0)" in churn and "+1 / -1" in churn
    assert churn.split("+1 / -1")[1].split()[0] == "1.00"  # one each way: no evidence


def test_the_sign_test_tells_a_lopsided_split_from_churn() -> None:
    """Round 16's first seed read +23 / -12 validation faces and its second +20 / -19: the
    first looks like a gain, but a split that uneven comes by chance about one time in ten."""
    from bench.vision_val import sign_test_p

    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(10, 0) == sign_test_p(0, 10) == 2 / 2**10
    assert 0.05 < sign_test_p(23, 12) < 0.1
    assert sign_test_p(20, 19) == 1.0
    assert sign_test_p(30, 5) < 0.001


def test_a_style_set_records_its_style_and_older_sets_keep_their_recipes(tmp_path: Path) -> None:
    """The third held-out style's set (round 12): its recipe names the style, so the older
    sets (no style) keep their recipes and are not rendered again."""
    import json

    badge, plain = render_set(tmp_path, TINY[2]), render_set(tmp_path, TINY[0])
    assert json.loads((badge / "done").read_text())["recipe"]["style"] == "badge"
    assert "style" not in json.loads((plain / "done").read_text())["recipe"]
    assert read_names(badge / "data.yaml") == read_names(plain / "data.yaml")  # same classes


def test_a_folder_may_carry_reader_settings_and_a_wrong_one_is_refused() -> None:
    """`models@iou=0.55,fuse_iou=none`: a reading rule is chosen on the same tables as model
    files; a misspelt field must fail, not quietly measure the defaults."""
    import pytest

    from bench.vision_val import main, reader_spec

    folder, overrides = reader_spec("runs/models-x@iou=0.55,fuse_iou=none,turn_both_ways=false")
    assert folder == Path("runs/models-x")
    assert overrides == {"iou": 0.55, "fuse_iou": None, "turn_both_ways": False}
    assert reader_spec("models") == (Path("models"), {})
    with pytest.raises(SystemExit) as stop:
        main(["models@iuo=0.55"])
    assert stop.value.code == 2
