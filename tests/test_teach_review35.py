"""``tabletop vision teach`` and deck profiles re-read (day 35 review): a deck photographed in part
with colourless cards; a family's ``OUT/model.old`` and ``OUT/model.partial`` are refused, never
deleted; the taught folder keeps the detector's int8 twin and the corner model; profile names
with dots, null text and a size given as ``aspect``; stdout holds only the JSON result;
``identify --models OUT`` points at ``OUT/model``; a taught model reading the check photos worse
than the shipped ones is said. No test here trains a model or imports Ultralytics."""

from __future__ import annotations

import filecmp
import json
import logging
import re
import shutil
import sys
from pathlib import Path

import cv2
import pytest

import vision.yolo as yolo
from tests.cli_run import run
from vision.decks import DeckError, load_deck
from vision.runtime.reader import CardReader
from vision.teach import finetune as ft
from vision.teach.guide import EMPTY, TeachError, guide_order, photo_name
from vision.teach.preflight import check_out
from vision.teach.render import ZONE, capture_pass

ZONE_ARG = ",".join(f"{v:g}" for v in ZONE)
SHIPPED = ft.MODELS
COUNTS = {"captured": 0, "crops": 0, "fillers": 0}


def write_pass(folder: Path, deck_name: str, seed: int, first: int | None = None) -> Path:
    """A rendered capture pass named by the guide: the empty zone and the ``first`` cards."""
    deck = load_deck(deck_name)
    empty, shots = capture_pass(deck, "ticket", seed)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{EMPTY}.jpg"), empty)
    for i, (ident, img) in enumerate(zip(guide_order(deck), shots, strict=True)):
        if first is None or i < first:
            cv2.imwrite(str(folder / f"{photo_name(i, ident)}.jpg"), img)
    return folder


def teach(out: Path, photos: Path, *more: str, deck: str = "deck-dash") -> list[str]:
    where = ["--photos", str(photos), "--zone", ZONE_ARG, "--out", str(out)]
    return ["vision", "teach", "--deck", deck, *where, *more]


def no_training(monkeypatch) -> None:
    """The fine-tune's steps faked: no data set built, no Ultralytics; the 'taught' classifiers
    are the shipped ONNX files, so the taught folder loads."""

    def export(weights, imgsz, dest):
        shutil.copy(SHIPPED / Path(dest).name, dest)

    monkeypatch.setattr(ft, "build_dataset", lambda *a, **k: dict(COUNTS))
    monkeypatch.setattr(ft, "_tune", lambda weights, *a: Path(weights))
    monkeypatch.setattr(yolo, "export_onnx", export)
    monkeypatch.setattr(yolo, "setup_offline", lambda *a, **k: None)


# -- 1. a deck with colourless cards photographed in part ------------------------------------


@pytest.mark.parametrize("deck", ["deck-dash", "hit-the-deck"])
def test_ruling_tbl25_a_deck_with_colourless_cards_photographed_in_part_is_taught(
    tmp_path, capsys, monkeypatch, deck
):
    """Only the first 3 cards photographed: before, sorting the missing cards compared a
    colourless card's (None, 'wild') with ('red', '1') and teach died with a TypeError."""
    built = []
    monkeypatch.setattr(ft, "build_dataset", lambda root, shots, *a: built.append(shots) or COUNTS)
    monkeypatch.setattr(ft, "finetune", lambda *a, **k: {})
    photos = write_pass(tmp_path / "few", deck, 5, first=3)
    code, out, err = run(teach(tmp_path / "out", photos, deck=deck), capsys)
    missing = len(guide_order(load_deck(deck))) - 3
    assert code == 0 and err.strip() == f"note: {missing} cards of the deck have no photo"
    assert json.loads(out)["deck"] == deck
    assert [ident for _, ident in built[0]] == guide_order(load_deck(deck))[:3]


# -- 3. a family's model.old and model.partial -----------------------------------------------


def family_folder(out: Path, end: str) -> dict[str, bytes]:
    """OUT/model.END as a family keeps it: a note and a model copied by hand."""
    folder = out / f"model{end}"
    folder.mkdir(parents=True)
    (folder / "NOTES.txt").write_text("our first taught model, kept by hand")
    shutil.copy(SHIPPED / "card-color.onnx", folder / "card-symbol.onnx")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("end", [".old", ".partial"])
def test_ruling_tbl27_a_familys_model_old_or_partial_is_refused_not_deleted(
    tmp_path, monkeypatch, end
):
    """Before, finetune removed both with shutil.rmtree, whatever they held."""
    kept = family_folder(tmp_path, end)
    monkeypatch.setattr(yolo, "setup_offline", lambda *a, **k: None)

    def trained(*a):
        raise AssertionError("trained before refusing")

    monkeypatch.setattr(ft, "_train_and_export", trained)
    folder = tmp_path / f"model{end}"
    with pytest.raises(
        TeachError, match=re.escape(f"{folder} already holds files teach did not write")
    ):
        ft.finetune(tmp_path / "data", tmp_path / "model", ft.TeachPlan(), log=lambda m: None)
    with pytest.raises(TeachError, match=re.escape(f"{folder} already holds")):
        check_out(tmp_path)  # and before any photo is taken or data set built
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == kept


def test_ruling_tbl27_teach_on_an_out_with_a_familys_model_old_is_one_line(
    tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out"
    kept = family_folder(out, ".old")
    no_training(monkeypatch)
    built = []
    monkeypatch.setattr(ft, "build_dataset", lambda *a: built.append(a) or COUNTS)
    code, stdout, err = run(teach(out, write_pass(tmp_path / "few", "deck-dash", 5, 3)), capsys)
    assert (code, stdout, built) == (2, "", [])
    assert err.strip() == (
        f"tabletop vision teach: {out / 'model.old'} already holds files teach did not write"
        " (teach builds and swaps its model there): choose another --out"
    )
    assert {p.name: p.read_bytes() for p in (out / "model.old").iterdir()} == kept


def test_a_partial_model_a_stopped_teach_left_is_replaced(tmp_path, monkeypatch):
    """What a teach killed mid-export leaves (a run, a hidden temporary file) is teach's own."""
    no_training(monkeypatch)
    partial = tmp_path / "model.partial"
    (partial / "runs").mkdir(parents=True)
    (partial / ".card-symbol.onnx-x1y2").write_text("half")
    (partial / "teach.json").write_text('{"partial": true}\n')
    ft.finetune(tmp_path / "data", tmp_path / "model", ft.TeachPlan(), log=lambda m: None)
    assert json.loads((tmp_path / "model" / "teach.json").read_text())["plan"]["variants"] == 24
    assert not partial.exists() and not (tmp_path / "model.old").exists()


# -- 8. the taught folder keeps the shipped files it does not train --------------------------


def shipped_copy(folder: Path, detector_from: str = "card-detector.onnx") -> Path:
    folder.mkdir()
    for name in ("card-detector.int8.onnx", "card-corner.onnx", "card-corner.int8.onnx"):
        shutil.copy(SHIPPED / name, folder / name)
    shutil.copy(SHIPPED / detector_from, folder / "card-detector.onnx")
    return folder


def test_the_taught_folder_keeps_the_detectors_int8_twin_and_the_corner_model(
    tmp_path, monkeypatch
):
    """Before, only card-detector.onnx was copied: the taught folder read with the float
    detector (slower) and without corners (half-covered cards read worse)."""
    no_training(monkeypatch)
    models = shipped_copy(tmp_path / "models")
    out = tmp_path / "model"
    ft.finetune(tmp_path / "data", out, ft.TeachPlan(), models_dir=models, log=lambda m: None)
    for name in ft.SHARED_FILES:
        assert filecmp.cmp(models / name, out / name, shallow=False), name
    reader = CardReader(out)
    assert reader.detector.int8 and reader.corner is not None and reader.corner.int8


def test_a_stale_int8_twin_is_not_copied(tmp_path, monkeypatch):
    """A twin made from another detector file would only be ignored (and mislead)."""
    no_training(monkeypatch)
    models = shipped_copy(tmp_path / "models", detector_from="card-corner.onnx")
    out = tmp_path / "model"
    ft.finetune(tmp_path / "data", out, ft.TeachPlan(), models_dir=models, log=lambda m: None)
    assert (out / "card-detector.onnx").is_file()
    assert not (out / "card-detector.int8.onnx").exists()
    assert (out / "card-corner.int8.onnx").is_file()


# -- 9. deck profile slips -------------------------------------------------------------------

TWO = {
    "colors": ["red", "blue"],
    "cards": [{"value": "1", "colored": True}, {"value": "wild", "colored": False}],
}


def write(decks: Path, name: str, **fields) -> Path:
    path = decks / f"{name}.json"
    path.write_text(json.dumps({**TWO, "name": name, **fields}))
    return path


def test_ruling_tbl28_a_profile_named_with_a_dot_is_found_by_its_name(decks, capsys):
    """``grandma.v2`` was read as a file ``grandma.v2`` (its ``.v2`` a suffix): "no deck
    profile 'grandma.v2' (known: …, grandma.v2, …)"."""
    write(decks, "grandma.v2")
    assert load_deck("grandma.v2").name == "grandma.v2"
    code, out, err = run(["vision", "teach", "--deck", "grandma.v2", "--guide"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "001_red_1.jpg\tthe red 1"
    # a path is still a path: by its .json, or by a folder in it
    assert load_deck(str(decks / "grandma.v2.json")).name == "grandma.v2"
    with pytest.raises(DeckError, match=re.escape("no deck profile 'elsewhere/grandma.v2'")):
        load_deck("elsewhere/grandma.v2")


@pytest.mark.parametrize(
    ("where", "field"),
    [("card", "label"), ("card", "token"), ("deck", "title"), ("deck", "back_text")],
)
def test_ruling_vis13_a_null_text_field_is_refused_naming_the_profile_and_field(
    decks, capsys, where, field
):
    """``"label": null`` made the guide ask for "the red None"."""
    if where == "card":
        cards = [{"value": "1", "colored": True, field: None}, TWO["cards"][1]]
        path = write(decks, "family", cards=cards)
        what = f"{path}: card '1': '{field}'"
    else:
        path = write(decks, "family", **{field: None})
        what = f"{path}: '{field}'"
    code, out, err = run(["vision", "teach", "--deck", "family", "--guide"], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == f"tabletop vision teach: {what} is text in quotes, not null"


def test_a_null_name_is_refused(decks):
    path = write(decks, "family")
    path.write_text(json.dumps({**TWO, "name": None}))
    with pytest.raises(DeckError, match=re.escape(f"{path}: 'name' is text in quotes, not null")):
        load_deck("family")


@pytest.mark.parametrize("aspect", [63, 88.9, 0.1, 0, -0.64])
def test_ruling_vis13_an_aspect_no_card_has_is_refused_at_loading(decks, capsys, aspect):
    """A card's width in mm given as "aspect" (63) got every photo refused as "not
    card-shaped: the empty photo does not match this one", blaming the photos."""
    path = write(decks, "ourdash", aspect=aspect)
    code, out, err = run(["vision", "teach", "--deck", "ourdash", "--guide"], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == (
        f"tabletop vision teach: {path}: 'aspect' is a positive number from 0.2 to 5, the card's"
        f" width over its height (0.64 for most cards), not {aspect!r}"
    )


@pytest.mark.parametrize("aspect", [0.64, 0.72, 1.4, 0.2, 5])
def test_a_card_shaped_aspect_is_kept(decks, aspect):
    write(decks, "ourdash", aspect=aspect)
    assert load_deck("ourdash").aspect == aspect


# -- 10. stdout is the JSON result; identify --models OUT -----------------------------------


def test_teach_prints_only_its_json_result_on_stdout(tmp_path, capsys, monkeypatch):
    """Ultralytics' logs (128 lines, colour codes) came before the JSON: ``| jq`` failed."""
    no_training(monkeypatch)
    chatty = logging.getLogger("ultralytics")
    handler = logging.StreamHandler(sys.stdout)  # as Ultralytics makes its own at import

    def tune(weights, *a):
        print("Ultralytics 8.4 🚀 train: Scanning …")
        chatty.warning("\x1b[34m\x1b[1mtrain:\x1b[0m found 1420 images")
        return Path(weights)

    monkeypatch.setattr(ft, "_tune", tune)
    chatty.addHandler(handler)
    try:
        photos = write_pass(tmp_path / "few", "deck-dash", 5, 3)
        code, out, err = run(teach(tmp_path / "out", photos), capsys)
    finally:
        chatty.removeHandler(handler)
    assert code == 0
    assert json.loads(out)["model"] == str(tmp_path / "out" / "model")  # one JSON document
    assert "Scanning" in err and "found 1420 images" in err
    assert handler.stream is sys.stdout  # the logger's own stream is given back


def test_identify_with_models_out_asks_for_out_model(tmp_path, capsys):
    """It said "no such model file (tabletop vision export writes them)": export would write
    the shipped models, not find the taught ones."""
    out = tmp_path / "out"
    (out / "model").mkdir(parents=True)
    shutil.copy(SHIPPED / "card-detector.onnx", out / "model" / "card-detector.onnx")
    image = write_pass(tmp_path / "p", "deck-dash", 5, 1) / f"{EMPTY}.jpg"
    code, stdout, err = run(["vision", "identify", str(image), "--models", str(out)], capsys)
    assert (code, stdout) == (2, "")
    assert err.strip() == (
        f"tabletop vision identify: {out}: no card-detector.onnx here: did you mean"
        f" {out / 'model'}? (tabletop vision teach puts a taught model there)"
    )


# -- 4. a taught model reading the check photos worse than the shipped ones -----------------


@pytest.mark.parametrize(("taught", "warned"), [(55, True), (57, False)])
def test_a_taught_model_reading_fewer_check_photos_than_the_shipped_is_said(
    tmp_path, capsys, monkeypatch, taught, warned
):
    """Before, teach reported only the taught model's figure and exited 0 with no word when
    it read fewer of the check photos than the shipped models (a card filed under another's
    name, too few photos)."""
    no_training(monkeypatch)
    out = tmp_path / "out"

    def check(models_dir, frames, empty, zone, deck):
        right = 57 if Path(models_dir) == SHIPPED else taught
        wrong = [f"x{i}" for i in range(len(frames) - right)]
        return {"cards": len(frames), "right": right, "accuracy": right / 57, "wrong": wrong}

    monkeypatch.setattr(ft, "check", check)
    photos = write_pass(tmp_path / "p1", "deck-dash", 5, 3)
    checks = write_pass(tmp_path / "p2", "deck-dash", 6)
    code, stdout, err = run(teach(out, photos, "--check", str(checks)), capsys)
    assert code == 0
    result = json.loads(stdout)["check"]
    assert (result["right"], result["shipped"]["right"]) == (taught, 57)
    assert result["shipped"]["accuracy"] == 1.0 and result["shipped"]["wrong"] == []
    warning = (
        f"tabletop vision teach: warning: the taught model read 55 of the 57 --check photos"
        f" right, the shipped models 57: it is in {out / 'model'} all the same; check that each"
        " photo shows the card its name says, or read with the shipped models (leave out"
        " --models)"
    )
    assert (warning in err.splitlines()) is warned
    assert ("warning" in err) is warned


def test_teachs_output_switch_survives_a_closed_stream_ultralytics_kept() -> None:
    """Ultralytics' log handler keeps the stdout it found at import, which may be closed by
    the time teach runs (in CI: a test's captured stdout): pointing it at stderr flushed that
    stream first and stopped teach with "I/O operation on closed file"."""
    import io
    import logging

    from vision.teach.finetune import output_to_stderr

    gone = io.TextIOWrapper(io.BytesIO())  # a closed file's flush raises, as pytest's does
    gone.close()
    handler = logging.StreamHandler(gone)
    logger = logging.getLogger("ultralytics")
    logger.addHandler(handler)
    try:
        with output_to_stderr():
            assert handler.stream is sys.stderr
        assert handler.stream is gone
    finally:
        logger.removeHandler(handler)
