"""``tabletop vision teach`` given bad photos, folders and outputs: one clear line, exit 2, no
traceback, before any training, and nothing of the family's deleted or half-replaced."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from referee.cli import main
from vision.decks import load_deck
from vision.teach.guide import EMPTY, guide_order, photo_name, read_folder
from vision.teach.render import ZONE, capture_pass

DECK = "deck-dash"


@pytest.fixture(scope="module")
def a_pass():
    return capture_pass(load_deck(DECK), "ticket", 11)


def write_pass(folder: Path, a_pass, name=lambda n: n) -> Path:
    empty, shots = a_pass
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{EMPTY}.jpg"), empty)
    for i, (ident, img) in enumerate(zip(guide_order(load_deck(DECK)), shots, strict=True)):
        cv2.imwrite(str(folder / f"{name(photo_name(i, ident))}.jpg"), img)
    return folder


def teach(tmp_path: Path, capsys, *args: str) -> tuple[int, str]:
    zone = ",".join(str(v) for v in ZONE)
    argv = ["vision", "teach", "--deck", DECK, "--zone", zone, "--variants", "1", "--epochs", "1"]
    code = main([*argv, *args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_a_photo_turned_the_other_way_is_named_not_a_traceback(tmp_path, capsys, a_pass):
    photos = write_pass(tmp_path / "p", a_pass)
    first = photo_name(0, guide_order(load_deck(DECK))[0])
    turned = cv2.rotate(a_pass[1][0], cv2.ROTATE_90_CLOCKWISE)
    cv2.imwrite(str(photos / f"{first}.jpg"), turned)
    code, err = teach(tmp_path, capsys, "--photos", str(photos), "--out", str(tmp_path / "o"))
    assert code == 2
    assert f"{first}.jpg: 240×320 pixels but the empty-zone photo is 320×240" in err
    assert not (tmp_path / "o").exists()


def test_a_zone_smaller_than_a_pixel_is_said_once(tmp_path, capsys, a_pass):
    photos = write_pass(tmp_path / "p", a_pass)
    code = main(
        ["vision", "teach", "--deck", DECK, "--photos", str(photos), "--zone", "0,0,.001,.001"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.count("capture zone is 0×0 pixels") == 1


def test_no_photo_named_by_the_guide_is_an_error_not_a_teach_on_nothing(tmp_path, capsys, a_pass):
    photos = write_pass(tmp_path / "p", a_pass, name=lambda n: n.replace("_", "-"))
    code, err = teach(tmp_path, capsys, "--photos", str(photos), "--out", str(tmp_path / "o"))
    assert code == 2
    assert "no photo named by the guide (such as 001_red_1.jpg" in err
    assert not (tmp_path / "o").exists()


def test_photo_names_are_read_whatever_their_case(tmp_path, a_pass):
    photos = write_pass(tmp_path / "p", a_pass, name=str.upper)
    (photos / f"{EMPTY}.jpg").rename(photos / f"{EMPTY.upper()}.JPG")
    empty, pairs = read_folder(photos, load_deck(DECK))
    assert empty.name == f"{EMPTY.upper()}.JPG"
    assert [i for _, i in pairs] == guide_order(load_deck(DECK))
    cv2.imwrite(str(photos / f"{EMPTY}.png"), a_pass[0])
    with pytest.raises(ValueError, match="more than one empty-zone photo"):
        read_folder(photos, load_deck(DECK))


def test_teach_never_deletes_a_folder_it_did_not_write(tmp_path, capsys, a_pass):
    """Photos kept in OUT/data were deleted by the data set's rmtree before this fix."""
    photos = write_pass(tmp_path / "ours" / "data", a_pass)
    code, err = teach(tmp_path, capsys, "--photos", str(photos), "--out", str(tmp_path / "ours"))
    assert code == 2
    assert "data already holds files teach did not write" in err
    assert len(list(photos.iterdir())) == 1 + len(a_pass[1])


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda t: ["--out", str(t / "file.txt")], "is a file, not a folder"),
        (lambda t: ["--check", str(t / "missing")], "--check"),
        (lambda t: ["--camera", str(t / "missing.avi")], "no camera, video or image folder"),
    ],
    ids=["out-is-a-file", "check-missing", "camera-missing"],
)
def test_bad_out_check_or_camera_is_one_line_before_training(tmp_path, capsys, a_pass, make, words):
    photos = write_pass(tmp_path / "p", a_pass)
    (tmp_path / "file.txt").write_text("x")
    args = make(tmp_path)
    if "--camera" not in args:
        args = ["--photos", str(photos), *args]
    code, err = teach(tmp_path, capsys, "--out", str(tmp_path / "o"), *args)
    assert code == 2, err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "model").exists()  # nothing was trained


def test_a_camera_that_stops_early_is_one_line(tmp_path, capsys, a_pass):
    few = tmp_path / "few"
    few.mkdir()
    cv2.imwrite(str(few / "a.png"), a_pass[0])
    code, err = teach(tmp_path, capsys, "--camera", str(few), "--out", str(tmp_path / "o"))
    assert code == 2 and "the camera stopped after 0 of" in err


def test_a_failed_teach_leaves_the_previous_taught_model_whole(tmp_path, monkeypatch, a_pass):
    """The export of the colour model fails: the folder keeps the old model, not a mix."""
    import vision.teach.finetune as ft
    import vision.yolo as yolo

    model = tmp_path / "model"
    model.mkdir()
    for name in ("card-symbol.onnx", "card-color.onnx", "teach.json"):
        (model / name).write_text("old")
    monkeypatch.setattr(ft, "_tune", lambda weights, *a: Path(str(weights)))
    monkeypatch.setattr(yolo, "setup_offline", lambda: None)

    def export(weights, imgsz, out):
        if "color" in str(weights):
            raise RuntimeError("stopped")
        Path(out).write_text("new")

    monkeypatch.setattr(yolo, "export_onnx", export)
    with pytest.raises(RuntimeError):
        ft.finetune(tmp_path / "data", model, ft.TeachPlan(), log=lambda m: None)
    assert {p.name: p.read_text() for p in model.iterdir()} == dict.fromkeys(
        ("card-symbol.onnx", "card-color.onnx", "teach.json"), "old"
    )
    monkeypatch.setattr(yolo, "export_onnx", lambda w, i, out: Path(out).write_text("new"))
    ft.finetune(tmp_path / "data", model, ft.TeachPlan(), log=lambda m: None)
    assert (model / "card-color.onnx").read_text() == "new"
    assert json.loads((model / "teach.json").read_text())["plan"]["variants"] == 24
    assert not (tmp_path / "model.partial").exists() and not (tmp_path / "model.old").exists()
