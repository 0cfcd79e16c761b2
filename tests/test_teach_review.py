"""``tabletop vision teach`` re-read (day 33 review): a taught model keeps every class the shipped
models read, whatever was photographed; teach trains under ``--out`` whatever its form; a profile
with no card or with another deck's name is refused; an empty-zone photo that does not match the
card photos is refused; a live capture keeps its photos; missing weights and an unwritable
Ultralytics folder are said before anything. No test here trains a model."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from tests.cli_run import run
from vision.decks import COLOR_CLASSES, SYMBOL_CLASSES, DeckError, load_deck
from vision.table.frames import Frame
from vision.teach import finetune as ft
from vision.teach.capture import LiveCapture
from vision.teach.guide import EMPTY, TeachError, guide_order, photo_name, read_folder
from vision.teach.preflight import check_out, check_photos
from vision.teach.render import ZONE, capture_pass

MISMATCH = "the empty photo does not match this one: same place, same light"
TINY = {
    "name": "tiny",
    "colors": ["red", "blue"],
    "cards": [
        {"value": "1", "colored": True},
        {"value": "wild", "colored": False, "label": "WILD"},
    ],
}


def profile(folder: Path, data: dict, stem: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem or data['name']}.json"
    path.write_text(json.dumps(data))
    return path


def write_pass(folder: Path, deck, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    empty, shots = capture_pass(deck, "ticket", seed)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{EMPTY}.jpg"), empty)
    for i, (ident, img) in enumerate(zip(guide_order(deck), shots, strict=True)):
        cv2.imwrite(str(folder / f"{photo_name(i, ident)}.jpg"), img)
    return empty, shots


# -- 1. every class of the shipped models keeps examples --------------------------------------


def test_ruling_tbl25_a_deck_photographed_in_part_keeps_every_class_in_both_splits(tmp_path):
    """Only the red 1 of a red/blue deck photographed: before, the blue, green and yellow
    colour folders and the WILD symbol folder (a value the deck has, so never rendered) were
    deleted, Ultralytics shrank the heads, and the taught folder could read no deck."""
    deck = load_deck(profile(tmp_path, TINY))
    empty, shots = capture_pass(deck, "ticket", 7)
    plan = ft.TeachPlan(variants=1, fillers=1)
    counts = ft.build_dataset(
        tmp_path / "data", [(shots[0], ("red", "1"))], empty, ZONE, deck, plan
    )
    assert counts["captured"] == 1
    for task, classes in (("symbol", SYMBOL_CLASSES), ("color", COLOR_CLASSES)):
        for split in ("train", "val"):
            folder = tmp_path / "data" / task / split
            assert sorted(p.name for p in folder.iterdir()) == sorted(classes)
            empty_classes = [c for c in classes if not any((folder / c).iterdir())]
            assert empty_classes == [], (task, split)


def test_ruling_tbl25_a_colour_no_photo_shows_is_rendered_in_that_colour(tmp_path, monkeypatch):
    """Before, fillers were drawn only for values the profile lacks, each in the first colour
    some deck has it in (red): a colour no photo showed had no example at all."""
    import vision.teach.render as render

    drawn = []
    real_card = render.card

    def card(d, ident, style, rng):
        drawn.append(ident)
        return real_card(d, ident, style, rng)

    monkeypatch.setattr(render, "card", card)
    deck = load_deck(profile(tmp_path, TINY))
    plan = ft.TeachPlan(fillers=1)
    got = ft._fillers(deck, plan, np.random.default_rng(0), {"1", "wild"}, {"red", "none"})
    rendered = [(symbol, color) for _, symbol, color in got if symbol not in ("other", "back")]
    assert len(rendered) == len(drawn)
    for (symbol, color), (drawn_color, value) in zip(rendered, drawn, strict=True):
        assert color == (drawn_color or "none")
        assert symbol in (None, value)
    colour_only = {color for symbol, color in rendered if symbol is None}
    assert colour_only == {"yellow", "green", "blue"}  # the colours no photo shows
    symbols = {symbol for symbol, _ in rendered if symbol is not None}
    assert symbols == set(SYMBOL_CLASSES) - {"1", "wild", "back", "other"}


def test_ruling_tbl25_a_taught_model_that_lost_classes_is_refused_and_the_old_one_stays(
    tmp_path, monkeypatch
):
    """Ultralytics drops a class it finds no example of ("Overriding model.yaml nc=5 with nc=3")
    and teach exited 0 with a model identify then refused. The taught model's classes are now
    compared with the shipped weights' before anything is replaced."""
    import vision.yolo as yolo

    model = tmp_path / "model"
    model.mkdir()
    for name in ("card-symbol.onnx", "card-color.onnx", "teach.json"):
        (model / name).write_text("old")

    def shrinking_fit(m, data, out, name, **settings):
        m.model.names = {i: n for i, n in enumerate(sorted(SYMBOL_CLASSES)) if n != "wild"}
        return Path(out) / name / "weights"

    monkeypatch.setattr(yolo, "fit", shrinking_fit)
    with pytest.raises(TeachError, match=r"the taught symbol model .*\(wild missing\)"):
        ft.finetune(tmp_path / "data", model, ft.TeachPlan(), log=lambda m: None)
    assert {p.name: p.read_text() for p in model.iterdir()} == dict.fromkeys(
        ("card-symbol.onnx", "card-color.onnx", "teach.json"), "old"
    )
    assert not (tmp_path / "model.partial").exists()


def test_ruling_tbl25_no_last_batch_of_one_image(tmp_path):
    """129 colour training images (4 × 32 + 1: a family pass whose green and yellow were
    rendered) made Ultralytics refuse the colour model's last batch with a ValueError
    traceback, after the symbol model had trained."""
    for n in (129, 128, 130, 33):
        train = tmp_path / str(n)
        for i in range(n):
            (train / f"c{i % 5}").mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(train / f"c{i % 5}" / f"{i:04d}.png"), np.zeros((4, 4, 3), np.uint8))
        ft._no_lone_batch(train, 32)
        got = len(list(train.glob("*/*.png")))
        assert got % 32 != 1 and got - n in (0, 1)


# -- 2. a relative --out ---------------------------------------------------------------------


class _Stop(Exception):
    pass


def test_ruling_tbl27_a_relative_out_trains_under_out_not_the_installs_runs(tmp_path, monkeypatch):
    """Ultralytics puts a relative ``project`` under its own runs_dir (the install's runs/):
    the default ``--out runs/taught/DECK`` left ~23 MB there per teach, never cleaned."""
    import vision.yolo as yolo

    class Model:
        names = dict(enumerate(sorted(SYMBOL_CLASSES)))

    projects = []

    def fit(m, data, out, name, **settings):
        projects.append(Path(out))
        raise _Stop

    monkeypatch.setattr(yolo, "yolo_model", lambda cfg, threads: Model())
    monkeypatch.setattr(yolo, "fit", fit)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(_Stop):
        ft.finetune(Path("runs/taught/tiny/data"), Path("runs/taught/tiny/model"), ft.TeachPlan())
    assert projects == [tmp_path / "runs" / "taught" / "tiny" / "model.partial" / "runs"]


# -- 3. a profile with no card ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"name": "none", "colors": ["red"], "cards": []}, "no card: 'cards' is empty"),
        (
            {"name": "none", "colors": [], "cards": [{"value": "1", "colored": True}]},
            "no card: every card is coloured and 'colors' is empty",
        ),
    ],
    ids=["no-cards", "no-colours"],
)
def test_ruling_vis16_a_profile_with_no_card_is_refused(tmp_path, capsys, data, words):
    """Before: ``--guide`` printed nothing (exit 0), ``--photos`` was an IndexError traceback,
    and identify read with a deck of no card."""
    path = profile(tmp_path, data)
    with pytest.raises(DeckError, match=words):
        load_deck(path)
    code, out, err = run(["vision", "teach", "--deck", str(path), "--guide"], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == f"tabletop vision teach: {path}: {words}"
    colourless = {"name": "wilds", "colors": [], "cards": [{"value": "wild", "colored": False}]}
    assert load_deck(profile(tmp_path, colourless)).identities() == [(None, "wild")]


# -- 4. an empty-zone photo that does not match ----------------------------------------------


@pytest.mark.parametrize(
    "spoil",
    [
        lambda e: np.clip(e.astype(np.float32) * 1.35 + 10, 0, 255).astype(np.uint8),
        lambda e: np.roll(e, 8, axis=1),
    ],
    ids=["re-exposed", "shifted-8px"],
)
def test_ruling_tbl26_an_empty_photo_that_does_not_match_is_refused(tmp_path, spoil):
    """The largest changed blob was taken for the card whatever its shape: with the empty photo
    re-exposed, most of the table was "the card" and was taught as the red 1."""
    deck = load_deck("deck-dash")
    empty, _ = write_pass(tmp_path / "p", deck, 101)
    check_photos(tmp_path / "p", deck, ZONE)  # the matching photos pass
    check_photos(tmp_path / "p", deck, (0.0, 0.0, 1.0, 1.0))
    cv2.imwrite(str(tmp_path / "p" / f"{EMPTY}.jpg"), spoil(empty))
    with pytest.raises(TeachError, match=MISMATCH) as caught:
        check_photos(tmp_path / "p", deck, (0.0, 0.0, 1.0, 1.0))
    assert "\n" not in str(caught.value)


def test_ruling_tbl26_live_capture_does_not_take_what_is_not_card_shaped(tmp_path):
    """The camera re-exposed as the card went down: the whole zone "changed" and was taken."""
    deck = load_deck("deck-dash")
    empty, shots = capture_pass(deck, "ticket", 3)
    bright = np.clip(shots[0].astype(np.float32) * 1.35 + 10, 0, 255).astype(np.uint8)
    script = [empty] * 10 + [bright] * 10 + [shots[0]] * 10
    frames = (Frame(img, i, i) for i, img in enumerate(script))
    said = []
    capture = LiveCapture(ZONE, still_frames=5, say=said.append, aspect=deck.aspect)
    _, got = capture.run(frames, ["the red 1"])
    assert len(got) == 1 and np.array_equal(got[0], shots[0])
    not_taken = [s for s in said if s.startswith("Not taken: ")]
    assert len(not_taken) == 1 and MISMATCH in not_taken[0]


# -- 5. a live capture keeps its photos ------------------------------------------------------


def test_ruling_tbl27_a_live_capture_keeps_its_photos_when_the_fine_tune_fails(
    tmp_path, capsys, monkeypatch
):
    """Before, the frames taken lived only in memory: a fine-tune that failed lost every card
    the family had put down."""
    path = profile(tmp_path / "decks", TINY)
    deck = load_deck(path)
    empty, shots = capture_pass(deck, "ticket", 101)
    camera = tmp_path / "camera"
    camera.mkdir()
    script = [empty] * 12
    for shot in shots:
        script += [shot] * 12 + [empty] * 12
    for i, img in enumerate(script):
        cv2.imwrite(str(camera / f"{i:04d}.png"), img)

    def full_disk(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ft, "build_dataset", full_disk)
    out = tmp_path / "out"
    argv = ["vision", "teach", "--deck", str(path), "--out", str(out), "--variants", "1"]
    code, _, err = run([*argv, "--camera", str(camera)], capsys)
    assert code == 2 and err.strip().endswith("tabletop vision teach: No space left on device")
    photos = out / "photos"
    assert f"--photos {photos}" in err
    empty_path, pairs = read_folder(photos, deck)
    assert [ident for _, ident in pairs] == guide_order(deck)
    assert np.array_equal(cv2.imread(str(empty_path)), empty)  # lossless: the pixels taught
    assert all(
        np.array_equal(cv2.imread(str(p)), s) for (p, _), s in zip(pairs, shots, strict=True)
    )
    # capturing again would overwrite them: refused before the camera opens
    code, _, err = run([*argv, "--camera", str(camera)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{photos} already holds photos: teach from them with --photos {photos}" in err
    # and teaching from them gets as far as the data set, with every card
    built = []
    monkeypatch.setattr(ft, "build_dataset", lambda root, shots, *a: built.append(shots) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        main([*argv, "--photos", str(photos)])
    assert [ident for _, ident in built[0]] == guide_order(deck)


# -- 6. a profile named otherwise than its file ----------------------------------------------


def test_ruling_tbl28_a_profile_named_otherwise_than_its_file_is_refused(tmp_path, capsys):
    """A profile copied from deck-dash.json as ourdeck.json, "name" left as is, was taught as
    deck-dash (runs/taught/deck-dash, replacing that deck's taught model); a "name" holding
    ../.. put the model outside runs/taught."""
    ours = profile(tmp_path, {**TINY, "name": "deck-dash"}, stem="ourdeck")
    code, out, err = run(["vision", "teach", "--deck", str(ours), "--guide"], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == (
        f"tabletop vision teach: {ours}: its \"name\" is 'deck-dash': make it 'ourdeck',"
        " the file's name (teach keeps the taught model under it)"
    )
    pathname = profile(tmp_path, {**TINY, "name": "../../elsewhere"}, stem="elsewhere")
    code, _, err = run(["vision", "teach", "--deck", str(pathname), "--guide"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is a path" in err
    good = profile(tmp_path, TINY)
    assert run(["vision", "teach", "--deck", str(good), "--guide"], capsys)[0] == 0


# -- 7. what the fine-tune needs, checked before anything ------------------------------------


def test_ruling_tbl27_missing_weights_are_said_before_anything(tmp_path):
    """An install with the ONNX models only: the refusal came after the whole data set was
    built (and, with --camera, after every card was put down)."""
    models = tmp_path / "models"
    models.mkdir()
    (models / "card-symbol.onnx").write_text("x")
    with pytest.raises(TeachError, match=r"card-symbol\.pt: not found: .*--models"):
        check_out(tmp_path / "out", models_dir=models)
    assert not (tmp_path / "out").exists()


def test_ruling_tbl27_an_unwritable_ultralytics_folder_is_said_before_anything(
    tmp_path, monkeypatch
):
    """A read-only install: Ultralytics' settings folder (runs/ultralytics-config) could not be
    made, after the data set was built."""
    import os

    config = tmp_path / "install" / "runs" / "ultralytics-config"
    (tmp_path / "install").mkdir()
    real = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: real(p, mode) and Path(p) != tmp_path / "install"
    )
    with pytest.raises(TeachError, match="make it writable") as caught:
        check_out(tmp_path / "out", config_dir=config)
    assert str(caught.value).startswith(f"{tmp_path / 'install'}: cannot write there")


def test_ruling_tbl26_an_empty_photo_in_other_light_under_a_lamp_is_refused():
    """Under a lamp only the lit middle changes past the threshold when the empty photo was
    exposed otherwise: a blob with a card's proportions, which the shape checks took for the
    card. The dim table round it changed by the same factor, and says so."""
    from vision.teach.capture import CaptureError, find_card

    h, w = 240, 320
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.sqrt(((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2)
    light = np.clip(150 - 90 * r**2, 0, 255)  # bright middle, dim edges
    table = np.dstack([light * 0.6, light * 0.9, light * 0.5])  # green felt
    photo = table.copy()
    photo[82:159, 100:221] = 235  # a 121×77 card in the middle
    photo = photo.astype(np.uint8)
    obb = find_card(photo, table.astype(np.uint8), aspect=88 / 63)  # the right empty photo
    assert round(max(obb[2:4])) in range(119, 125)
    for gain in (1.2, 1.35, 1.6):
        with pytest.raises(CaptureError, match="times as bright as in the empty photo"):
            find_card(photo, np.clip(table * gain, 0, 255).astype(np.uint8), aspect=88 / 63)
