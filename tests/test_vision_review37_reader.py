"""Review 37, the card reader: a grey photo's confident misreads, a wrong corner model, an
image too large to decode.

1. On a grey (NoIR, night-mode) photo the colour model says "none"; no deck has a colourless
   4, so a sure 4 (0.9996) came out as a Hit Hand (0.0004) at 0.87: the reading's share among
   the allowed pairs ignored that the symbol model all but excluded the value it names.
2. The symbol model copied over ``card-corner.onnx`` ended identify/eval/watch in
   ``ValueError: 'none' is not in list``; the colour model there was used silently.
3. A 1 MB PNG of 20 000 × 20 000 black pixels was decoded (2.7 GB, 52 s).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.test_vision_bad_input import huge_png
from vision.decks import load_deck
from vision.images import TOO_LARGE, header_size, read_image
from vision.render.faces import TRAIN_STYLES
from vision.render.scenes import render_scene
from vision.runtime.detections import Detections
from vision.runtime.onnx_model import ModelError
from vision.runtime.reader import CORNER, MODELS_DIR, SYMBOL, CardReader, ReaderConfig
from vision.table.to_events import DEFAULT_THRESHOLD

# -- 1. a reading the symbol model all but excludes is doubtful --------------------------------


def _row(names: list[str], **chosen: float) -> np.ndarray:
    """A probability row over ``names``: the ``chosen`` ones set, the rest sharing what is left."""
    row = np.zeros(len(names), np.float32)
    for name, p in chosen.items():
        row[names.index(name)] = p
    rest = [i for i, n in enumerate(names) if n not in chosen]
    row[rest] = (1 - sum(chosen.values())) / len(rest)
    return row


@pytest.fixture(scope="module")
def reader() -> CardReader:
    """The shipped reader with no deck named (VIS-9: cards some known deck holds)."""
    return CardReader(config=ReaderConfig(threads=1, corner_weight=0))


def test_ruling_vis12_a_reading_whose_deck_pairs_the_models_doubt_is_doubtful(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grey 4: the symbol model says "4" at 0.9996, the colour model "none"; no known deck
    has a colourless 4, so the likeliest allowed pair is the colourless Hit Hand the symbol
    model gave 0.0004. That is the reading, but a doubtful one (it was 0.87 and more)."""
    names, colors = reader.symbol_names, reader._col_names
    grey_four = _row(names, **{"4": 0.9996, "hithand": 0.0004})
    colourless = _row(colors, none=0.9998)
    color, value, conf = reader._decide(grey_four, colourless)
    assert (color, value) == (None, "hithand")
    assert conf < 0.001
    # through read: a well-found box is dropped by VIS-7's floor, not logged as a Hit Hand
    probs = {id(reader.symbol): grey_four, id(reader.color): colourless}
    monkeypatch.setattr(
        reader, "_classify", lambda model, crops: np.stack([probs[id(model)]] * len(crops))
    )
    box = Detections(
        np.array([[320, 240, 60, 90, 0]], np.float32),
        np.array([0.95], np.float32),
        np.zeros(1, np.int64),
    )
    assert len(reader.read(np.full((480, 640, 3), 90, np.uint8), box)) == 0


def test_a_pale_card_read_in_its_decks_colour_keeps_its_confidence(reader: CardReader) -> None:
    """Overruling the colour model is how a pale card is read (VIS-9): a sure Cut the Deck the
    colour model calls colourless (no deck has one) is still a confident cut."""
    names, colors = reader.symbol_names, reader._col_names
    cut = _row(names, cut=0.999)
    pale_yellow = _row(colors, none=0.97, yellow=0.0299)
    color, value, conf = reader._decide(cut, pale_yellow)
    assert (color, value) == ("yellow", "cut")
    assert conf > 0.9


def test_ruling_vis12_grey_tables_name_no_value_the_symbol_model_excluded_with_confidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rendered tables of the three decks turned grey: the reader meets cards whose allowed
    pairs all name a value the symbol model gave under 5 % (the case above), and none of
    them is read with the confidence the table referee logs a play at (TBL-2)."""
    grey_reader = CardReader(config=ReaderConfig(threads=1))
    names = grey_reader.symbol_names
    readings: list[tuple[np.ndarray, str, float]] = []
    decide = grey_reader._decide

    def spy(ps: np.ndarray, pc: np.ndarray) -> tuple[str | None, str, float]:
        color, value, p = decide(ps, pc)
        readings.append((ps, value, p))
        return color, value, p

    monkeypatch.setattr(grey_reader, "_decide", spy)
    rng = np.random.default_rng(3707)
    decks = [load_deck(n) for n in ("dos", "deck-dash", "hit-the-deck")]
    for k in range(6):
        scene = render_scene(decks[k % 3], rng, TRAIN_STYLES)
        grey = cv2.cvtColor(cv2.cvtColor(scene.image, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2BGR)
        grey_reader(grey)
    excluded = [
        (value, p)
        for ps, value, p in readings
        if value not in ("back", "other") and ps[names.index(value)] < 0.05
    ]
    assert excluded, "no grey card's allowed pairs were all excluded: the test tests nothing"
    assert max(p for _, p in excluded) < DEFAULT_THRESHOLD


# -- 2. a corner model of other classes ---------------------------------------------------------


@pytest.mark.parametrize("impostor", ["card-symbol.onnx", "card-color.onnx"])
def test_a_corner_model_of_other_classes_is_a_model_error(tmp_path: Path, impostor: str) -> None:
    """Another classifier saved as the corner model is refused at loading, naming the file:
    the symbol model crashed on its missing ``none``, the colour model was used silently."""
    for f in MODELS_DIR.glob("card-*.onnx"):
        if not f.name.startswith(CORNER.removesuffix(".onnx")):
            (tmp_path / f.name).symlink_to(f)
    shutil.copy(MODELS_DIR / impostor, tmp_path / CORNER)
    with pytest.raises(ModelError) as err:
        CardReader(tmp_path, config=ReaderConfig(threads=1))
    message = str(err.value)
    assert message.startswith(f"{tmp_path / CORNER}: must be a corner model")
    assert message.endswith("another model saved under this name?") and "\n" not in message
    if impostor == SYMBOL:
        assert "lacks 'none' and has 'back', 'other'" in message
    # the shipped corner model, and none at all, still load
    (tmp_path / CORNER).unlink()
    assert CardReader(tmp_path, config=ReaderConfig(threads=1)).corner is None
    (tmp_path / CORNER).symlink_to(MODELS_DIR / CORNER)
    assert CardReader(tmp_path, config=ReaderConfig(threads=1)).corner is not None


# -- 3. an image too large to decode ------------------------------------------------------------


def test_an_image_too_large_to_decode_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 000 × 20 000 pixels is under OpenCV's own limit, so it was decoded (2.7 GB): now the
    header says no, and OpenCV never sees the bytes."""
    decoded: list[int] = []
    imdecode = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", lambda *a: decoded.append(1) or imdecode(*a))
    image, why = read_image(huge_png(tmp_path / "bomb.png", 20_000, 20_000))
    assert (image, why, decoded) == (None, TOO_LARGE, [])
    assert "too large" in TOO_LARGE
    # a panorama's long side alone is no reason: it is the pixel count
    small = np.zeros((2, 30_000, 3), np.uint8)
    cv2.imwrite(str(tmp_path / "strip.png"), small)
    image, why = read_image(tmp_path / "strip.png")
    assert why is None and image.shape == (2, 30_000, 3)


@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".webp", ".tiff", ".gif"])
def test_the_header_gives_the_size_of_each_camera_format(ext: str) -> None:
    """The header's size is the decoded size, for every format read before decoding."""
    ok, buf = cv2.imencode(ext, np.full((40, 60, 3), 120, np.uint8))
    assert ok and header_size(memoryview(buf)) == (60, 40)


def test_big_endian_tiff_and_extended_webp_headers_are_read(tmp_path: Path) -> None:
    tiff = b"MM\x00*" + struct.pack(">IH", 8, 2)
    tiff += struct.pack(">HHIHH", 256, 3, 1, 20_000, 0) + struct.pack(">HHII", 257, 4, 1, 9_000)
    assert header_size(memoryview(tiff)) == (20_000, 9_000)
    webp = b"RIFF" + bytes(4) + b"WEBPVP8X" + bytes(8)
    webp += (15_000 - 1).to_bytes(3, "little") + (10_000 - 1).to_bytes(3, "little")
    assert header_size(memoryview(webp)) == (15_000, 10_000)
    (tmp_path / "canvas.webp").write_bytes(webp)
    assert read_image(tmp_path / "canvas.webp") == (None, TOO_LARGE)


def test_a_header_too_broken_to_read_is_left_to_opencv(tmp_path: Path) -> None:
    (tmp_path / "cut.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00")
    assert header_size(memoryview(b"\xff\xd8\xff\xe0\x00")) is None
    assert read_image(tmp_path / "cut.jpg") == (None, "not an image OpenCV can decode")
