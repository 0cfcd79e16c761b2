"""Bad input to the vision commands: a clear one-line error and a non-zero exit, never a
traceback (an image OpenCV refuses to decode, a malformed deck profile or dataset, the wrong
kind of model under a model's name); and ``identify``'s boxes lie inside their image."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.cli_run import run
from vision.commands import read_image
from vision.decks import DeckError, load_deck
from vision.evaluate import DatasetError, EvalReport, evaluate, read_names
from vision.images import TOO_LARGE
from vision.runtime.detections import Detections
from vision.runtime.onnx_model import ModelError
from vision.runtime.reader import COLOR, CORNER, DETECTOR, MODELS_DIR, SYMBOL, CardReader

# -- helpers -----------------------------------------------------------------------------------


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def huge_png(path: Path, width: int = 60_000, height: int = 60_000) -> Path:
    """A 100-byte PNG whose header claims ``width`` × ``height`` pixels (60000×60000: over
    OpenCV's 2^30-pixel limit, so ``cv2.imdecode`` raises instead of returning None)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 100))
        + chunk(b"IEND", b"")
    )
    return path


def small_image(path: Path, w: int = 64, h: int = 48) -> Path:
    cv2.imwrite(str(path), np.full((h, w, 3), 90, np.uint8))
    return path


def tiny_dataset(root: Path, labels: dict[str, str | None], names: str = "0: red 1") -> Path:
    """A YOLO dataset of 64×48 images, one per ``labels`` key; the value is the label file's
    text (None: no label file)."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text(f"names:\n  {names}\n")
    for stem, text in labels.items():
        small_image(root / "images" / f"{stem}.png")
        if text is not None:
            (root / "labels" / f"{stem}.txt").write_text(text)
    return root


def no_cards(_image: np.ndarray) -> Detections:
    return Detections.empty()


def bad_decks_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ours: bytes) -> Path:
    """``models/decks`` as the shipped Deck Dash profile and a family's ``ours.json``."""
    import vision.decks as decks

    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "deck-dash.json").write_bytes((decks.DECKS_DIR / "deck-dash.json").read_bytes())
    (folder / "ours.json").write_bytes(ours)
    monkeypatch.setattr(decks, "DECKS_DIR", folder)
    return folder / "ours.json"


def models_folder(tmp_path: Path, **swap: str) -> Path:
    """The shipped float models linked into a folder, ``swap`` naming another file under a
    model's name (``card_detector="card-color.onnx"``)."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in (DETECTOR, SYMBOL, COLOR, CORNER):
        source = swap.get(name.removesuffix(".onnx").replace("-", "_"), name)
        (folder / name).symlink_to(MODELS_DIR / source)
    return folder


# -- 1. an image OpenCV refuses with an exception -----------------------------------------------


def test_an_image_too_large_for_opencv_is_a_reason_not_an_exception(tmp_path: Path) -> None:
    image, why = read_image(huge_png(tmp_path / "huge.png"))
    assert image is None and "too large" in why


def test_a_broken_image_is_read_without_opencvs_log_lines(tmp_path: Path, capfd) -> None:
    """OpenCV logs its HDR decoder's error text on the process's stderr: not ours to print."""
    data = bytearray(cv2.imencode(".hdr", np.full((40, 60, 3), 90, np.uint8))[1].tobytes())
    data[len(data) // 2 : len(data) // 2 + 20] = bytes(20)
    (tmp_path / "bad.hdr").write_bytes(bytes(data))
    image, why = read_image(tmp_path / "bad.hdr")
    assert image is None and why == "not an image OpenCV can decode"
    assert capfd.readouterr().err == ""


def test_identify_names_a_too_large_image_and_reads_the_next(tmp_path: Path, capsys) -> None:
    huge, fine = huge_png(tmp_path / "huge.png"), small_image(tmp_path / "fine.png")
    code, out, err = run(["vision", "identify", "--deck", "any", str(huge), str(fine)], capsys)
    lines = [json.loads(line) for line in out.strip().splitlines()]
    assert code == 1 and "Traceback" not in err
    assert lines[0]["image"] == str(huge) and "too large" in lines[0]["error"]
    assert lines[1] == {"image": str(fine), "cards": []}


def test_eval_skips_a_too_large_image_and_names_it(tmp_path: Path, capsys) -> None:
    root = tiny_dataset(tmp_path / "set", {"a": "", "b": ""})
    huge_png(root / "images" / "b.png")
    code, out, err = run(["vision", "eval", str(root)], capsys)
    assert code == 1 and "Traceback" not in err
    assert one_line(err).endswith(f"cannot read image {root / 'images' / 'b.png'}: skipped")
    assert "images 1 " in out


def test_a_folder_source_skips_a_too_large_image(tmp_path: Path) -> None:
    from vision.table.frames import ImageFolderSource

    huge_png(tmp_path / "a.png")
    small_image(tmp_path / "b.png")
    source = ImageFolderSource(tmp_path)
    frame = source.read()
    assert frame is not None and frame.index == 1 and frame.image.shape == (48, 64, 3)
    assert source.read() is None


def test_dryer_names_a_too_large_image_and_goes_on(tmp_path: Path, capsys) -> None:
    from vision.table.zones import TableLayout, ZoneKind, rectangle

    layout = TableLayout(
        (
            rectangle("dryer", ZoneKind.DRYER, (0.1, 0.1, 0.9, 0.6), seat=0),
            *(
                rectangle(f"bar{b}", ZoneKind.BAR, (0.1, 0.1 * b, 0.9, 0.1 * b + 0.05), 0, b)
                for b in (1, 2, 3)
            ),
        )
    )
    zones = tmp_path / "zones.json"
    zones.write_text(json.dumps(layout.to_dict()))
    huge = huge_png(tmp_path / "huge.png")
    code, out, err = run(["vision", "dryer", "--zones", str(zones), str(huge)], capsys)
    assert code == 1 and "Traceback" not in err
    assert json.loads(out) == {
        "image": str(huge),
        "error": f"cannot read this image: {TOO_LARGE}",
    }
    argv = ["vision", "dryer", "--zones", str(zones), "--empty", str(huge), str(huge)]
    code, _, err = run(argv, capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop vision dryer: --empty {huge}: {TOO_LARGE}",
    )


def test_teach_check_photos_name_a_too_large_photo(tmp_path: Path) -> None:
    from vision.teach.guide import TeachError
    from vision.teach.preflight import check_photos

    empty = huge_png(tmp_path / "000_empty.png")
    small_image(tmp_path / "001_red_1.png")
    with pytest.raises(TeachError, match=f"{empty}: cannot read this image"):
        check_photos(tmp_path, load_deck("deck-dash"), (0.1, 0.1, 0.9, 0.9))


# -- 2. deck profiles ---------------------------------------------------------------------------

GOOD_CARD = {"value": "7", "colored": True}


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        ({"cards": [{**GOOD_CARD, "copies": "two"}]}, "'copies' is a whole number"),
        ({"cards": [{**GOOD_CARD, "copies": 2.5}]}, "'copies' is a whole number"),
        ({"cards": [{**GOOD_CARD, "copies": 0}]}, "'copies' is a whole number"),
        ({"aspect": "wide"}, "'aspect' is a positive number"),
        ({"aspect": -1}, "'aspect' is a positive number"),
        ({"cards": [{"value": "7", "colored": "false"}]}, "'colored' is true or false"),
        ({"colors": {"red": 1}}, "'colors' is a list"),
        ({"cards": [["7", True]]}, "malformed deck profile"),
    ],
)
def test_a_malformed_profile_field_is_a_deck_error_naming_the_file(
    tmp_path: Path, profile: dict, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "x", "colors": ["red"], "cards": [GOOD_CARD], **profile}))
    with pytest.raises(DeckError, match=message) as caught:
        load_deck(path)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"name": "x", "colors": ["red"], "cards": [{"value": "7", "colored": true,'
            ' "copies": Infinity}]}',
            "'copies' is a whole number",
        ),
        (
            '{"name": "x", "colors": ["red"], "cards": [], "aspect": ' + "9" * 5000 + "}",
            "thousands of digits",
        ),
    ],
    ids=["infinity", "5000-digit-number"],
)
def test_json_python_refuses_is_a_deck_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(DeckError, match=message):
        load_deck(path)


def test_a_utf16_profile_is_a_deck_error(tmp_path: Path) -> None:
    path = tmp_path / "ours.json"
    path.write_text(json.dumps({"name": "ours", "colors": ["red"], "cards": []}), "utf-16")
    with pytest.raises(DeckError, match="not a text file"):
        load_deck(path)


def test_a_zones_file_with_a_5000_digit_number_is_a_zone_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "zones.json"
    path.write_text('{"zones": [], "x": ' + "9" * 5000 + "}")
    code, _, err = run(["vision", "dryer", "--zones", str(path), str(tmp_path / "a.png")], capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop vision dryer: {path}: a number thousands of digits long: no zones file",
    )


def test_the_shipped_profiles_still_load() -> None:
    for name in ("deck-dash", "dos", "hit-the-deck"):
        assert load_deck(name).cards


@pytest.mark.parametrize(
    "ours",
    [
        json.dumps({"name": "ours", "colors": ["red"], "cards": [{**GOOD_CARD, "copies": "two"}]}),
        json.dumps({"name": "ours", "colors": ["red"], "cards": [GOOD_CARD]}).encode("utf-16"),
        b'{"name": "ours", "colors": ["red"], "cards": [], "aspect": ' + b"9" * 5000 + b"}",
    ],
    ids=["copies-text", "utf-16", "5000-digit-number"],
)
def test_ruling_vis13_a_broken_family_profile_is_named_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, ours: str | bytes
) -> None:
    """With no deck named, identify reads every profile in models/decks (VIS-9): a broken one
    stops it with one line naming the file (exit 2), not a traceback and not a silent skip
    (which would read cards the family's deck forbids); ``--deck any`` reads none."""
    path = bad_decks_dir(tmp_path, monkeypatch, ours if isinstance(ours, bytes) else ours.encode())
    image = str(small_image(tmp_path / "table.png"))
    code, out, err = run(["vision", "identify", image], capsys)
    assert code == 2 and not out
    assert one_line(err).startswith(f"tabletop vision identify: {path}: ")
    assert run(["vision", "identify", "--deck", "any", image], capsys)[0] == 0


def test_teach_names_a_broken_family_profile_before_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """teach's fillers read every profile after training: the broken one is said first."""
    path = bad_decks_dir(tmp_path, monkeypatch, b'{"name": "ours"}')
    (tmp_path / "photos").mkdir()
    argv = ["vision", "teach", "--deck", "deck-dash", "--photos", str(tmp_path / "photos")]
    code, _, err = run([*argv, "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert one_line(err).startswith(f"tabletop vision teach: {path}: malformed deck profile")
    assert not (tmp_path / "out").exists()


# -- 3. and 5. datasets -------------------------------------------------------------------------


def test_names_with_a_gap_are_a_dataset_error(tmp_path: Path) -> None:
    (tmp_path / "data.yaml").write_text("names:\n  0: red 1\n  2: red 3\n")
    with pytest.raises(DatasetError, match="no class 1"):
        read_names(tmp_path / "data.yaml")


def test_eval_names_a_label_file_that_is_a_folder(tmp_path: Path, capsys) -> None:
    root = tiny_dataset(tmp_path / "set", {"a": None, "b": ""})
    (root / "labels" / "a.txt").mkdir()
    code, _, err = run(["vision", "eval", str(root)], capsys)
    assert code == 2
    assert one_line(err).startswith(f"tabletop vision eval: {root / 'labels' / 'a.txt'}: cannot")


def test_eval_names_a_gap_in_the_class_names(tmp_path: Path, capsys) -> None:
    root = tiny_dataset(tmp_path / "set", {"a": ""}, names="0: red 1\n  2: red 3")
    code, _, err = run(["vision", "eval", str(root)], capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop vision eval: {root / 'data.yaml'}: names has no class 1 (indices 0…N-1)",
    )


def test_eval_finds_labels_when_a_folder_above_is_called_images(tmp_path: Path) -> None:
    """A flat dataset (labels beside the images) under ``…/images/set``: the ``images``
    folder above the dataset is not its own."""
    root = tmp_path / "images" / "flat"
    root.mkdir(parents=True)
    (root / "data.yaml").write_text("names:\n  0: red 1\n")
    small_image(root / "a.png")
    (root / "a.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    assert evaluate(root, no_cards).faces == 1


def test_eval_finds_labels_in_a_yolo_layout_under_an_images_folder(tmp_path: Path) -> None:
    root = tiny_dataset(tmp_path / "images" / "set", {"a": "0 0.5 0.5 0.2 0.3\n"})
    assert evaluate(root, no_cards).faces == 1


def test_eval_finds_labels_in_a_split_first_layout(tmp_path: Path) -> None:
    """``valid/images/a.png`` → ``valid/labels/a.txt`` (Roboflow's and many YOLO exports'
    layout, no top-level ``images/``): the dataset's own ``images`` folder, wherever inside."""
    root = tmp_path / "set"
    (root / "valid" / "images").mkdir(parents=True)
    (root / "valid" / "labels").mkdir(parents=True)
    (root / "data.yaml").write_text("names:\n  0: red 1\n")
    small_image(root / "valid" / "images" / "a.png")
    (root / "valid" / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    assert evaluate(root, no_cards).faces == 1


def test_ruling_vis15_eval_refuses_a_dataset_without_any_label_file(tmp_path: Path, capsys) -> None:
    """No image with a label file is a dataset laid out wrong, not tables with no card."""
    root = tiny_dataset(tmp_path / "set", {"a": None, "b": None})
    with pytest.raises(DatasetError, match="none of its 2 images has a label file"):
        evaluate(root, no_cards)
    code, out, err = run(["vision", "eval", str(root)], capsys)
    assert code == 2 and not out and "none of its 2 images" in one_line(err)


def test_eval_counts_and_says_the_images_without_a_label_file(tmp_path: Path) -> None:
    root = tiny_dataset(tmp_path / "set", {"a": "0 0.5 0.5 0.2 0.3\n", "b": None, "c": ""})
    rep = evaluate(root, no_cards)
    assert rep.unlabelled == 1 and rep.to_dict()["images_without_labels"] == 1
    assert "1 images have no label file" in rep.table()


def test_eval_table_says_no_faces_not_nan() -> None:
    rep = EvalReport(images=2, identity_accuracy=float("nan"))
    assert "card identity: no faces" in rep.table() and "nan" not in rep.table()


# -- 4. identify's boxes ------------------------------------------------------------------------


class _EdgeReader:
    """A reader that finds one card cut by the image's left edge and one past its bottom."""

    def __call__(self, image: np.ndarray) -> Detections:
        obb = np.array([[5, 20, 30, 40, 0.3], [50, 46, 10, 12, 0.0]], np.float32)
        return Detections(
            obb,
            np.array([0.9, 0.8], np.float32),
            np.zeros(2, np.int64),
            np.array(["red", None], object),
            np.array(["7", "wild"], object),
        )


def test_ruling_vis14_identify_boxes_lie_inside_the_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """identify's ``box`` is the card's bounds within the image, clipped at its edges; the
    table camera's boxes (``cards()`` with no image size) keep their full extent."""
    import vision.commands as commands

    monkeypatch.setattr(commands, "_reader_or_none", lambda _args, _command: _EdgeReader())
    image = small_image(tmp_path / "a.png", 64, 48)
    code, out, _ = run(["vision", "identify", str(image)], capsys)
    boxes = [card["box"] for card in json.loads(out)["cards"]]
    assert code == 0 and len(boxes) == 2
    for x1, y1, x2, y2 in boxes:
        assert 0 <= x1 < x2 <= 64 and 0 <= y1 < y2 <= 48
    assert boxes[0][0] == 0 and boxes[1][3] == 48
    unclipped = [card["box"] for card in _EdgeReader()(np.zeros((48, 64, 3))).cards()]
    assert unclipped[0][0] < 0 and unclipped[1][3] > 48


# -- 6. quantize --eval -------------------------------------------------------------------------


def test_quantize_checks_its_eval_datasets_before_writing_anything(tmp_path: Path, capsys) -> None:
    models = models_folder(tmp_path)
    argv = ["vision", "quantize", "--models", str(models), "--which", "color", "--frames", "1"]
    code, out, err = run([*argv, "--eval", str(tmp_path / "nothing")], capsys)
    assert (code, out) == (2, "")
    assert (
        one_line(err) == f"tabletop vision quantize: {tmp_path / 'nothing' / 'data.yaml'} not found"
    )
    unlabelled = tiny_dataset(tmp_path / "set", {"a": None})
    code, _, err = run([*argv, "--eval", str(unlabelled)], capsys)
    assert code == 2 and "none of its 1 images has a label file" in one_line(err)
    assert not list(models.glob("*.int8.onnx"))


def test_quantize_names_a_broken_family_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    path = bad_decks_dir(tmp_path, monkeypatch, b'{"name": "ours"}')
    models = models_folder(tmp_path)
    argv = ["vision", "quantize", "--models", str(models), "--which", "color", "--frames", "1"]
    code, _, err = run(argv, capsys)
    assert code == 2
    assert one_line(err).startswith(f"tabletop vision quantize: {path}: malformed")
    assert not list(models.glob("*.int8.onnx"))


# -- 7. the wrong kind of model -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("swap", "named"),
    [
        ({"card_detector": COLOR}, DETECTOR),
        ({"card_symbol": DETECTOR}, SYMBOL),
        ({"card_color": DETECTOR}, COLOR),
    ],
    ids=["classifier-as-detector", "detector-as-symbol", "detector-as-colour"],
)
def test_a_model_of_the_wrong_kind_is_refused_at_load(
    tmp_path: Path, swap: dict[str, str], named: str
) -> None:
    folder = models_folder(tmp_path, **swap)
    with pytest.raises(ModelError, match="another model saved under this name") as caught:
        CardReader(folder)
    assert str(caught.value).startswith(str(folder / named))


def test_identify_names_a_classifier_saved_as_the_detector(tmp_path: Path, capsys) -> None:
    folder = models_folder(tmp_path, card_detector=COLOR)
    image = str(small_image(tmp_path / "a.png"))
    code, out, err = run(["vision", "identify", "--models", str(folder), image], capsys)
    assert code == 2 and not out
    assert one_line(err).startswith(f"tabletop vision identify: {folder / DETECTOR}: must be")


def test_the_shipped_models_are_of_the_right_kind() -> None:
    reader = CardReader()
    assert reader.detector.task == "obb" and reader.symbol.task == "classify"


# -- lesser: --zoom-out ------------------------------------------------------------------------


def test_zoom_out_past_its_maximum_is_refused(tmp_path: Path, capsys) -> None:
    image = str(small_image(tmp_path / "a.png"))
    code, out, err = run(["vision", "identify", "--zoom-out", "5", image], capsys)
    assert code == 2 and not out and "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("--zoom-out: 5 is too large: give at most 4")
    assert run(["vision", "identify", "--zoom-out", "4", image], capsys)[0] == 0
