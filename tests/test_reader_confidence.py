"""A reading's confidence counts what the symbol model believes outside the deck (VIS-12).

The reader names the likeliest card the deck holds; its confidence used to be that card's
share of the deck's cards alone, so a model sure of a card the deck lacks (a Hit the Deck 8
at a 1-5 table) made its 6 % on a 3 a confident 3. And a deck value the models have no class
for was never read, without a word.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from vision.decks import DeckProfile, load_deck
from vision.render.faces import HELDOUT_STYLE, SECOND_HELDOUT_STYLE, THIRD_HELDOUT_STYLE
from vision.render.scenes import render_scene
from vision.runtime.detections import Detections
from vision.runtime.geometry import polygon_iou
from vision.runtime.onnx_model import ModelError
from vision.runtime.reader import COLOR, DETECTOR, MODELS_DIR, SYMBOL, CardReader, ReaderConfig
from vision.runtime.rectify import box_corners
from vision.table.labels import refereed_deck
from vision.table.to_events import DEFAULT_THRESHOLD

GAME = "hit-the-deck"


def _row(names: list[str], **chosen: float) -> np.ndarray:
    """A probability row over ``names`` with the ``chosen`` ones set and the rest shared."""
    row = np.zeros(len(names), np.float32)
    for name, p in chosen.items():
        row[names.index(name)] = p
    rest = [i for i, n in enumerate(names) if n not in chosen]
    if rest:
        row[rest] = (1 - sum(chosen.values())) / len(rest)
    return row


def _game_deck() -> DeckProfile:
    """Hit the Deck as the camera referee reads it: the profile narrowed to 1-5 (VIS-3)."""
    return refereed_deck(GAME, load_deck(GAME))


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader(deck=_game_deck(), config=ReaderConfig(threads=1, corner_weight=0))


def test_ruling_vis12_a_card_the_model_sees_outside_the_deck_is_not_a_confident_deck_card(
    reader: CardReader,
) -> None:
    """The model says "8" at 0.90 and "3" at 0.06: the likeliest card of a 1-5 deck is still
    the red 3, but a doubtful one (it was reported at 0.82 and logged as a play)."""
    names, colors = reader.symbol_names, reader._col_names
    red = _row(colors, red=0.97)
    color, value, conf = reader._decide(_row(names, **{"8": 0.90, "3": 0.06}), red)
    assert (color, value) == ("red", "3")
    assert conf < reader.config.min_confidence
    # a 3 the model barely prefers to an 8 and a 9 is a question, not a play (it read 1.0)
    sure_red = _row(colors, red=1.0)
    color, value, conf = reader._decide(_row(names, **{"3": 0.36, "8": 0.32, "9": 0.32}), sure_red)
    assert (color, value) == ("red", "3")
    assert reader.config.min_confidence <= conf < DEFAULT_THRESHOLD
    # with all its mass on the deck's cards the reading's share is kept as it was
    assert reader._decide(_row(names, **{"3": 0.7, "5": 0.3}), sure_red) == pytest.approx(
        ("red", "3", 0.7)
    )


def test_ruling_vis12_the_confidence_floor_drops_a_card_the_model_places_outside_the_deck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through ``read``: a well-found box (0.95) the symbol model calls an 8 is no card of the
    1-5 deck (VIS-7's floor applies); before, it came out as a red 3 at 0.78."""
    reader = CardReader(deck=_game_deck(), config=ReaderConfig(threads=1, corner_weight=0))
    ps = _row(reader.symbol_names, **{"8": 0.90, "3": 0.06})
    pc = _row(reader._col_names, red=0.97)
    probs = {id(reader.symbol): ps, id(reader.color): pc}
    monkeypatch.setattr(
        reader, "_classify", lambda model, crops: np.stack([probs[id(model)]] * len(crops))
    )
    frame = np.full((480, 640, 3), 90, np.uint8)
    box = Detections(
        np.array([[320, 240, 60, 90, 0]], np.float32),
        np.array([0.95], np.float32),
        np.zeros(1, np.int64),
    )
    assert len(reader.read(frame, box)) == 0
    # the same box read as the deck's 3 is reported
    probs[id(reader.symbol)] = _row(reader.symbol_names, **{"3": 0.96})
    read = reader.read(frame, box)
    assert list(zip(read.color, read.value, strict=True)) == [("red", "3")]
    assert read.confidence[0] > DEFAULT_THRESHOLD


def test_ruling_vis12_rendered_cards_outside_the_deck_are_not_logged_deck_cards_are(
    reader: CardReader,
) -> None:
    """Held-out rendered tables of the camera profile (Hit the Deck 1-9) read by the game's
    reader (1-5): no 6-9 is reported as a 1-5 card sure enough to be logged (before, a third
    of them were), and the 1-5 cards are read as well as before."""
    profile = load_deck(GAME)
    allowed = set(reader.deck.identities())
    rng = np.random.default_rng(20240)
    styles = (HELDOUT_STYLE, SECOND_HELDOUT_STYLE, THIRD_HELDOUT_STYLE)
    outside = logged_outside = inside = logged_right = 0
    for k in range(24):
        scene = render_scene(profile, rng, (styles[k % 3],))
        found = reader(np.ascontiguousarray(scene.image[..., ::-1]))
        boxes = [box_corners(*map(float, o)) for o in found.obb]
        for obj in scene.objects:
            if obj.kind != "card":
                continue
            truth = (obj.meta["color"], obj.meta["value"])
            hits = [i for i, b in enumerate(boxes) if polygon_iou(b, obj.quad) > 0.5]
            sure = [i for i in hits if found.confidence[i] >= DEFAULT_THRESHOLD]
            if truth in allowed:
                inside += 1
                right = [i for i in sure if (found.color[i], found.value[i]) == truth]
                logged_right += bool(right)
            else:
                outside += 1
                logged_outside += bool(sure)
    assert outside >= 15 and inside >= 40, "too few cards to say anything"
    assert logged_outside == 0
    assert logged_right >= 0.85 * inside


def _models_without(tmp_path: Path, model: str, name: str) -> Path:
    """The shipped detector, symbol and colour models, ``model``'s class ``name`` renamed: a
    model that never learnt that class (float files only, so no int8 twin is taken)."""
    for m in (DETECTOR, SYMBOL, COLOR):
        shutil.copy(MODELS_DIR / m, tmp_path / m)
    proto = onnx.load(str(tmp_path / model))
    for prop in proto.metadata_props:
        if prop.key == "names":
            assert f"'{name}'" in prop.value
            prop.value = prop.value.replace(f"'{name}'", "'unlearnt'")
    onnx.save(proto, str(tmp_path / model))
    return tmp_path


def test_ruling_vis12_a_deck_value_the_symbol_model_cannot_read_is_refused_at_load(
    tmp_path: Path,
) -> None:
    """A Hit the Deck reader on a symbol model with no "hitnumber" class would never read
    that card (probability 0): loading it is an error naming the value and the model file."""
    d = _models_without(tmp_path, SYMBOL, "hitnumber")
    with pytest.raises(ModelError, match=r"hit-the-deck.*hitnumber.*card-symbol\.onnx"):
        CardReader(d, deck=_game_deck())
    with pytest.raises(ModelError, match=r"known decks.*hitnumber"):
        CardReader(d)  # no deck: every known deck's cards
    # a deck without that card, and ``--deck any``, read with it
    assert CardReader(d, deck=load_deck("deck-dash")).deck is not None
    assert CardReader(d, config=ReaderConfig(known_cards_only=False))._allowed is None


def test_ruling_vis12_a_deck_colour_the_colour_model_cannot_read_is_refused_at_load(
    tmp_path: Path,
) -> None:
    """A colour model with no "none" class cannot read a colourless card (a Hit the Deck
    wild): refused for Hit the Deck; DOS, whose cards all have a colour, reads with it."""
    d = _models_without(tmp_path, COLOR, "none")
    with pytest.raises(ModelError, match=r"colour\(s\) none.*card-color\.onnx"):
        CardReader(d, deck=_game_deck())
    dos = load_deck("dos")
    assert not any(not spec.colored for spec in dos.cards)
    assert CardReader(d, deck=dos).deck == dos
