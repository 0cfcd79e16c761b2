"""Vision II: teach your deck — the guide, finding the card, a tiny fine-tune and its check."""

import json

import cv2
import numpy as np
import pytest

from referee.cli import build_parser
from vision.decks import load_deck
from vision.table.frames import Frame
from vision.teach.capture import CaptureError, LiveCapture, crop_card, find_card
from vision.teach.guide import EMPTY, guide_order, photo_name, read_folder, say
from vision.teach.render import ZONE, capture_pass


def cli(argv):
    args = build_parser().parse_args(argv)
    return args.handler(args)


def write_pass(folder, deck, style, seed):
    empty, shots = capture_pass(deck, style, seed)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{EMPTY}.jpg"), empty)
    for i, (ident, img) in enumerate(zip(guide_order(deck), shots, strict=True)):
        cv2.imwrite(str(folder / f"{photo_name(i, ident)}.jpg"), img)
    return empty, shots


def test_guide_names_every_kind_of_card_once_and_reads_them_back(tmp_path, capsys):
    deck = load_deck("hit-the-deck")
    order = guide_order(deck)
    assert len(order) == len(set(order)) == 9 * 4 + 2 * 4 + 3
    assert say((None, "hithand"), deck) == "a HIT THE DECK HAND"
    write_pass(tmp_path / "p", deck, "ticket", 5)
    empty, pairs = read_folder(tmp_path / "p", deck)
    assert empty.stem == EMPTY and [i for _, i in pairs] == order
    (tmp_path / "p" / "099_purple_7.jpg").write_bytes(b"x")
    with pytest.raises(ValueError, match="no purple 7"):
        read_folder(tmp_path / "p", deck)
    assert cli(["vision", "teach", "--deck", "dos", "--guide"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "001_red_1.jpg\tthe red 1"


def test_the_card_is_found_by_what_changed_in_the_zone():
    deck = load_deck("deck-dash")
    empty, shots = capture_pass(deck, "ticket", 9)
    cx, cy, w, h, _ = find_card(shots[0], empty, ZONE)
    assert 0.3 * 320 < cx < 0.7 * 320 and 0.3 * 240 < cy < 0.7 * 240
    assert max(w, h) / 1.0 > 50 and 0.5 < min(w, h) / max(w, h) < 0.8  # a card's proportions
    assert crop_card(shots[0], empty, ZONE).shape == (64, 64, 3)
    with pytest.raises(CaptureError, match="no card"):
        find_card(empty, empty, ZONE)


def test_live_capture_waits_for_each_card_to_lie_still():
    deck = load_deck("deck-dash")
    empty, shots = capture_pass(deck, "ticket", 3)
    rng = np.random.default_rng(0)

    def moving(img):
        out = img.copy()
        out[60:180, 80:240] = rng.integers(0, 255, (120, 160, 3))  # a hand in the zone
        return out

    script = [empty] * 10
    for shot in shots[:2]:
        script += [moving(empty)] * 3 + [shot] * 10 + [moving(empty)] * 3 + [empty] * 10
    frames = (Frame(img, i, i) for i, img in enumerate(script))
    said = []
    got_empty, got = LiveCapture(ZONE, still_frames=5, say=said.append).run(frames, ["A", "B"])
    assert np.array_equal(got_empty, empty)
    assert len(got) == 2 and np.array_equal(got[0], shots[0]) and np.array_equal(got[1], shots[1])
    assert (
        said[0] == "Clear the capture zone."
        and "Put down A." in said
        and said[-1].startswith("Done")
    )


def test_teach_cli_fine_tunes_and_checks_on_a_new_art_style(tmp_path, capsys):
    """A tiny fine-tune (4 crops per card, 1 epoch): it runs end to end offline and the taught
    model reads a second capture pass. The full-size figure is measured separately
    (docs/VISION-TABLE.md)."""
    deck = load_deck("deck-dash")
    write_pass(tmp_path / "pass1", deck, "ticket", 101)
    write_pass(tmp_path / "pass2", deck, "ticket", 202)
    zone = ",".join(str(v) for v in ZONE)
    code = cli(
        [
            "vision",
            "teach",
            "--deck",
            "deck-dash",
            "--photos",
            str(tmp_path / "pass1"),
            "--check",
            str(tmp_path / "pass2"),
            "--zone",
            zone,
            "--out",
            str(tmp_path / "t"),
            "--variants",
            "4",
            "--epochs",
            "1",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (tmp_path / "t" / "model" / "card-symbol.onnx").exists()
    assert (tmp_path / "t" / "model" / "card-color.onnx").exists()
    assert result["captured"] == 57 and result["check"]["cards"] == 57
    assert result["check"]["accuracy"] >= 0.5
    # taught at the shipped symbol model's size, from crops cut that large
    from vision.runtime.onnx_model import OnnxModel
    from vision.runtime.reader import MODELS_DIR

    shipped = OnnxModel(MODELS_DIR / "card-symbol.onnx", 1).imgsz
    assert OnnxModel(tmp_path / "t" / "model" / "card-symbol.onnx", 1).imgsz == shipped
    crop = next((tmp_path / "t" / "data" / "symbol" / "train").glob("*/c000_*.png"))
    assert cv2.imread(str(crop)).shape == (shipped, shipped, 3)


def test_teach_names_every_bad_photo_before_training(tmp_path, capsys):
    deck = load_deck("dos")
    folder = tmp_path / "photos"
    empty, _shots = write_pass(folder, deck, "ticket", seed=5)
    names = [photo_name(i, ident) for i, ident in enumerate(guide_order(deck))]
    cv2.imwrite(str(folder / f"{names[0]}.jpg"), empty)  # the card was not put down
    (folder / f"{names[1]}.jpg").write_bytes(b"not a jpeg")
    rc = cli(["vision", "teach", "--deck", "dos", "--photos", str(folder), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{names[0]}.jpg: no card in the capture zone" in err
    assert f"{names[1]}.jpg: cannot read this image" in err
    assert not (tmp_path / "model").exists()  # nothing was trained


def test_teach_without_the_empty_photo_says_so(tmp_path, capsys):
    rc = cli(["vision", "teach", "--deck", "dos", "--photos", str(tmp_path)])
    assert rc == 2
    assert f"no {EMPTY}.jpg" in capsys.readouterr().err
