"""Review 37, vision commands: a dataset is checked whole before any work (every label line,
as YOLO checks it) and scored on its ``val:`` split; ``watch`` narrows a named deck to the
game's referee deck (VIS-3); ``dryer`` reads on after a picture too wide for it; a deck
profile with absurd copies or a colour or value listed twice is refused; ``export`` names a
truncated checkpoint as such."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.cli_run import run
from vision.decks import DeckError, load_deck
from vision.evaluate import DatasetError, evaluate
from vision.runtime.detections import Detections
from vision.runtime.reader import MODELS_DIR

BOX = "0 0.5 0.5 0.2 0.3\n"


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def dataset(root: Path, labels: dict[str, str], yaml: str = "names:\n  0: red 1\n") -> Path:
    """A YOLO dataset of 64×48 images, one per ``labels`` key (``images/KEY.png``, a key may
    hold a folder), its label file holding the value."""
    for stem, text in labels.items():
        image = root / "images" / f"{stem}.png"
        image.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(image), np.full((48, 64, 3), 90, np.uint8))
        label = root / "labels" / f"{stem}.txt"
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text(text)
    (root / "data.yaml").write_text(yaml)
    return root


class Counting:
    """A predictor that finds no card and counts the images it was shown."""

    def __init__(self) -> None:
        self.images = 0

    def __call__(self, _image: np.ndarray) -> Detections:
        self.images += 1
        return Detections.empty()


# -- 1. every label line is checked before any work ---------------------------------------------


def test_a_bad_label_is_found_before_any_work(tmp_path: Path) -> None:
    """The last image's label names class 500 (of 1): no image is read first, and ``quantize
    --eval`` refuses the set before it loads or quantizes any model."""
    from vision.quantize import QuantizePlan, quantize_models

    root = dataset(tmp_path / "set", {"a": BOX, "b": BOX, "c": BOX + "500 0.5 0.5 0.1 0.1\n"})
    predict = Counting()
    with pytest.raises(DatasetError, match=r"labels/c\.txt:2: a class index outside"):
        evaluate(root, predict)
    assert predict.images == 0
    nowhere = tmp_path / "no-models"  # a model would be loaded (ModelError) after the check
    with pytest.raises(DatasetError, match=r"labels/c\.txt:2: a class index outside"):
        quantize_models(nowhere, QuantizePlan(frames=1, check_frames=1), eval_sets=(root,))


# -- 2. the val: split data.yaml names ---------------------------------------------------------


def test_eval_scores_the_val_split_data_yaml_names(tmp_path: Path, capsys) -> None:
    """A standard Ultralytics layout: only ``val:``'s images are scored, and the report says
    which; a list of folders and Roboflow's ``../valid/images`` are read as Ultralytics reads
    them; a renderer's set copied elsewhere (its absolute ``path:`` the original's) scores
    its own images."""
    labels = {"train/a": BOX, "train/b": BOX, "train/c": BOX, "val/d": BOX}
    yaml = "path: {path}\ntrain: images/train\nval: images/val  # held out\nnames:\n  0: red 1\n"
    root = dataset(tmp_path / "set", labels, yaml.format(path=tmp_path / "set"))
    predict = Counting()
    report = evaluate(root, predict)
    assert (predict.images, report.images, report.faces) == (1, 1, 1)
    assert report.to_dict()["scored_folders"] == ["images/val"]
    code, out, _ = run(["vision", "eval", str(root)], capsys)
    assert code == 0 and out.splitlines()[0] == "scored the images in images/val"

    (root / "data.yaml").write_text(
        yaml.format(path="/elsewhere").replace("val: images/val", "val: [images/val, images/train]")
    )
    assert evaluate(root, Counting()).images == 4

    copy = shutil.copytree(root, tmp_path / "copy")  # path: still names the original
    (copy / "data.yaml").write_text(yaml.format(path=root).replace("images/val", "../images/val"))
    shutil.rmtree(root / "images" / "val")
    assert evaluate(copy, Counting()).scored == ["images/val"]

    (copy / "data.yaml").write_text("val: images/test\nnames:\n  0: red 1\n")
    with pytest.raises(DatasetError, match="val: images/test: no such folder"):
        evaluate(copy, Counting())


def test_a_val_written_on_the_next_line_is_read(tmp_path: Path) -> None:
    """``val:`` then its folder on the next line, indented (valid YAML): before, read as no
    ``val:``, so the train split was scored too, silently."""
    labels = {"train/a": BOX, "train/b": BOX, "val/d": BOX}
    yaml = "train: images/train\nval:\n  images/val\nnames:\n  0: red 1\n"
    root = dataset(tmp_path / "set", labels, yaml)
    assert evaluate(root, Counting()).scored == ["images/val"]


def test_the_projects_own_eval_sets_score_every_image_as_before(tmp_path: Path) -> None:
    """``vision render`` writes ``val: images`` and its own absolute ``path:``."""
    root = dataset(tmp_path / "set", {"a": BOX, "b": ""})
    (root / "data.yaml").write_text(f"path: {root.resolve()}\nval: images\nnames:\n  0: red 1\n")
    assert evaluate(root, Counting()).images == 2
    (root / "data.yaml").write_text("names:\n  0: red 1\n")  # no val: every image
    assert evaluate(root, Counting()).scored == ["images"]


# -- 3. label lines YOLO would reject; class names that are not the reader's --------------------


@pytest.mark.parametrize(
    "line",
    [
        "0 nan nan nan nan",
        "0 inf 0.5 0.2 0.2",
        "0 0.1 0.1 0.2 0.1 0.2 0.2",  # a 3-point polygon
        "0 0.5 0.5 0.2 1.5",
        "0 -0.2 0.1 0.4 0.1 0.4 0.4 0.1 0.4",
    ],
)
def test_label_lines_yolo_would_reject_are_refused(tmp_path: Path, capsys, line: str) -> None:
    root = dataset(tmp_path / "set", {"a": BOX, "b": BOX + line + "\n"})
    code, out, err = run(["vision", "eval", str(root)], capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith(f"tabletop vision eval: {root / 'labels' / 'b.txt'}:2: ")


def test_label_values_a_hair_outside_0_1_pass_as_yolo_passes_them(tmp_path: Path) -> None:
    root = dataset(tmp_path / "set", {"a": "0 -0.005 0 1 0 1.005 1 0 1\n"})
    assert evaluate(root, Counting()).faces == 1


def test_eval_warns_when_data_yaml_names_are_not_the_readers(tmp_path: Path, capsys) -> None:
    root = dataset(tmp_path / "set", {"a": BOX}, "names:\n  0: Red 1\n  1: Red 2\n  2: back\n")
    code, _, err = run(["vision", "eval", str(root)], capsys)
    assert code == 0
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "only 1 of its 3 class names" in warning[0]
    assert "in lower case 3 would be" in warning[0]
    assert evaluate(dataset(tmp_path / "ok", {"a": BOX}), Counting(), log=print).images == 1
    assert "warning" not in capsys.readouterr().out


# -- 4. VIS-3: watch narrows a named deck too ----------------------------------------------------


def _watch_deck(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys, *deck: str):
    """The deck ``vision watch --game hit-the-deck [--deck …]`` reads with (the command is
    stopped where it makes its reader), and its exit code and stderr."""
    import vision.runtime.reader as reader
    from vision.runtime.onnx_model import ModelError
    from vision.table.zones import TableLayout, ZoneKind, rectangle

    seen = []

    def recorded(*_args, deck=None, **_kw):
        seen.append(deck)
        raise ModelError("stopped here")

    monkeypatch.setattr(reader, "CardReader", recorded)
    zones = tmp_path / "zones.json"
    TableLayout([rectangle("discard_1", ZoneKind.DISCARD, (0.2, 0.2, 0.8, 0.8))]).save(zones)
    argv = ["vision", "watch", "--game", "hit-the-deck", "--zones", str(zones), str(tmp_path)]
    code, _, err = run([*argv, *deck], capsys)
    return (seen[0] if seen else None), code, err


def test_ruling_vis3_watch_with_a_named_deck_is_still_narrowed_to_the_games_cards(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    """VIS-3: "Reading for a game (… vision watch …) the profile is narrowed to the kinds of
    card the game's referee deck holds": with --deck naming the game's profile or a family's
    own, as without it, an 8 is never answered for Hit the Deck (1–5)."""
    family = tmp_path / "ours.json"
    numbers = [{"value": str(n), "colored": True} for n in range(1, 10)]
    family.write_text(json.dumps({"name": "ours", "colors": ["red", "blue"], "cards": numbers}))
    for named in ((), ("--deck", "hit-the-deck"), ("--deck", str(family))):
        deck, code, _ = _watch_deck(monkeypatch, tmp_path, capsys, *named)
        assert code == 2 and deck is not None, named
        assert deck.allows("red", "3") and not deck.allows("red", "8"), named
    high = [{"value": str(n), "colored": True} for n in range(6, 10)]
    family.write_text(json.dumps({"name": "ours", "colors": ["red"], "cards": high}))
    deck, code, err = _watch_deck(monkeypatch, tmp_path, capsys, "--deck", str(family))
    assert (deck, code) == (None, 2)
    assert one_line(err) == (
        "tabletop vision watch: deck 'ours' holds no card hit-the-deck's referee deck holds"
    )


# -- 5. dryer: a picture too wide for the reader -----------------------------------------------


def test_vision_dryer_reads_on_after_a_picture_too_wide(tmp_path: Path, capsys) -> None:
    from vision.table.zones import TableLayout, ZoneKind, rectangle

    bars = (
        rectangle(f"bar{b}", ZoneKind.BAR, (0.1, 0.1 * b, 0.9, 0.1 * b + 0.05), 0, b)
        for b in (1, 2, 3)
    )
    layout = TableLayout((rectangle("dryer", ZoneKind.DRYER, (0.1, 0.1, 0.9, 0.6), 0), *bars))
    zones = tmp_path / "zones.json"
    zones.write_text(json.dumps(layout.to_dict()))
    wide, plain = tmp_path / "wide.png", tmp_path / "plain.png"
    cv2.imwrite(str(wide), np.full((8, 33_000, 3), 90, np.uint8))  # remap takes < 32 767
    cv2.imwrite(str(plain), np.full((240, 320, 3), 90, np.uint8))
    code, out, _ = run(["vision", "dryer", "--zones", str(zones), str(wide), str(plain)], capsys)
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 1
    assert first == {
        "image": str(wide),
        "error": "cannot read this image: 33000 x 8 px, more than the dryer reader takes"
        " (32766 px a side)",
    }
    assert second["image"] == str(plain) and "dryer" in second
    argv = ["vision", "dryer", "--zones", str(zones), "--empty", str(wide), str(plain)]
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith(f"tabletop vision dryer: --empty {wide}: 33000 x 8 px")


# -- 6. deck profiles: absurd copies, a colour or a value twice ---------------------------------


@pytest.mark.parametrize(
    ("colors", "cards", "why"),
    [
        (["red"], [{"value": "1", "colored": True, "copies": 10**12}], "from 1 to 1000"),
        (["red", "red"], [{"value": "1", "colored": True}], "colour 'red' is listed twice"),
        (
            ["red"],
            [{"value": "1", "colored": True}, {"value": "1", "colored": False}],
            "card '1' is listed twice",
        ),
        (
            ["red"],
            [{"value": "1", "colored": True}, {"value": "1", "colored": True, "copies": 3}],
            "card '1' is listed twice",
        ),
    ],
)
def test_a_deck_profile_with_absurd_copies_or_duplicates_is_refused(
    tmp_path: Path, capsys, colors: list, cards: list, why: str
) -> None:
    path = tmp_path / "ours.json"
    path.write_text(json.dumps({"name": "ours", "colors": colors, "cards": cards}))
    with pytest.raises(DeckError, match=why):
        load_deck(path)
    code, out, err = run(["vision", "render", str(tmp_path / "out"), "--decks", str(path)], capsys)
    assert (code, out) == (2, "")
    assert why in one_line(err)


def test_a_deck_profile_of_1000_copies_loads(tmp_path: Path) -> None:
    path = tmp_path / "ours.json"
    many = [{"value": "1", "colored": True, "copies": 1000}]
    path.write_text(json.dumps({"name": "ours", "colors": ["red", "blue"], "cards": many}))
    assert len(load_deck(path).full_deck()) == 2000


# -- 7. export: a truncated checkpoint is the checkpoint's fault, not the disk's ---------------


def test_export_of_a_truncated_checkpoint_says_so(tmp_path: Path, capsys) -> None:
    """torch reads a checkpoint cut at 5 000 bytes as OSError(EINVAL), "Invalid argument"."""
    models = tmp_path / "models"
    models.mkdir()
    for name in ("card-detector.pt", "card-symbol.pt", "card-color.pt", "card-corner.pt"):
        shutil.copy(MODELS_DIR / name, models / name)
    pt = models / "card-detector.pt"
    pt.write_bytes(pt.read_bytes()[:5000])
    code, out, err = run(["vision", "export", "--models", str(models)], capsys)
    assert (code, out) == (2, "")
    assert one_line(err) == (
        f"tabletop vision export: {pt}: not a checkpoint Ultralytics can load (empty, truncated"
        " or of another format)"
    )
