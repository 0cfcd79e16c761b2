"""The renderer: every card in every style, labelled scenes, YOLO files."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decks import SYMBOLS, load_deck
from vision.evaluate import read_labels, read_names
from vision.render.dataset import identity_names, write_eval_dataset
from vision.render.faces import ALL_STYLES, CARD_H, CARD_W, HELDOUT_STYLE, TRAIN_STYLES, render_face
from vision.render.scenes import FRAME_H, FRAME_W, render_scene


def test_heldout_style_is_not_trained_on() -> None:
    assert HELDOUT_STYLE not in TRAIN_STYLES
    assert len(TRAIN_STYLES) >= 5


@pytest.mark.parametrize("style", ALL_STYLES)
def test_every_symbol_renders_visibly_in_every_style(style: str) -> None:
    rng = np.random.default_rng(1)
    for value in SYMBOLS:
        face = render_face("blue", value, style, rng)
        assert face.shape == (CARD_H, CARD_W, 3)
        assert face.std() > 20, f"{value} in {style} is nearly blank"


def test_symbols_differ_in_the_same_style() -> None:
    faces = [render_face("red", v, "paper", np.random.default_rng(3)) for v in ("6", "9", "skip")]
    assert np.abs(faces[0] - faces[1]).mean() > 3
    assert np.abs(faces[0] - faces[2]).mean() > 3


def test_scene_labels_lie_in_the_frame_and_are_visible() -> None:
    rng = np.random.default_rng(7)
    deck = load_deck("deck-dash")
    seen = 0
    for _ in range(4):
        scene = render_scene(deck, rng, TRAIN_STYLES)
        assert scene.image.shape == (FRAME_H, FRAME_W, 3)
        for obj in scene.objects:
            seen += 1
            assert obj.visible >= 0.4
            centre = obj.quad.mean(0)
            assert 0 <= centre[0] <= FRAME_W and 0 <= centre[1] <= FRAME_H
            if obj.kind == "card":
                assert deck.allows(obj.meta["color"], obj.meta["value"])
    assert seen > 0


def test_empty_table_has_no_labels() -> None:
    scene = render_scene(load_deck("dos"), np.random.default_rng(2), TRAIN_STYLES, empty=True)
    assert scene.objects == []


def test_eval_dataset_is_yolo_format(tmp_path) -> None:
    root = tmp_path / "set"
    write_eval_dataset(root, 3, 11, [load_deck("hit-the-deck")], TRAIN_STYLES)
    names = read_names(root / "data.yaml")
    assert names == identity_names()
    images = sorted((root / "images").glob("*.jpg"))
    assert len(images) == 3
    total = 0
    for img in images:
        gt = read_labels(root / "labels" / (img.stem + ".txt"), FRAME_W, FRAME_H)
        total += len(gt.names)
        for poly in gt.polys:
            assert poly.shape == (4, 2)
    assert total > 0
