"""The renderer: every card in every style, labelled scenes, YOLO files."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decks import SYMBOLS, load_deck
from vision.evaluate import read_labels, read_names
from vision.render.dataset import identity_names, write_eval_dataset
from vision.render.faces import ALL_STYLES, CARD_H, CARD_W, HELDOUT_STYLE, TRAIN_STYLES, render_face
from vision.render.scenes import FRAME_H, FRAME_W, render_scene


def test_heldout_styles_are_not_trained_on() -> None:
    from vision.render.faces import (
        EMBLEM_STYLE,
        HELDOUT_STYLES,
        SECOND_HELDOUT_STYLE,
        THIRD_HELDOUT_STYLE,
    )

    assert HELDOUT_STYLES == (HELDOUT_STYLE, SECOND_HELDOUT_STYLE, THIRD_HELDOUT_STYLE)
    assert not set(HELDOUT_STYLES) & {*TRAIN_STYLES, EMBLEM_STYLE}
    assert set(ALL_STYLES) == {*TRAIN_STYLES, EMBLEM_STYLE, *HELDOUT_STYLES}
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


def test_heldout_glyphs_are_never_reshaped() -> None:
    """Round 2 varies stroke weight and width of training digits only: the held-out style
    must stay exactly what it was, or its figure would stop measuring transfer."""
    from vision.render.faces import glyph
    from vision.render.fonts import TRAIN_FONTS

    font = TRAIN_FONTS[0]
    plain = [glyph("8", font, 0, np.random.default_rng(s), 60, 40) for s in range(6)]
    varied = [glyph("8", font, 0, np.random.default_rng(s), 60, 40, vary=True) for s in range(6)]
    assert all(np.array_equal(p[0][0], plain[0][0][0]) for p in plain)
    assert any(
        v[0][0].shape != plain[0][0][0].shape or v[0][0].sum() != plain[0][0][0].sum()
        for v in varied
    )


def test_round2_layouts_differ_from_each_other() -> None:
    new = ("circle", "split", "corners", "gradient")
    assert set(new) <= set(TRAIN_STYLES)
    faces = [render_face("green", "4", s, np.random.default_rng(5)) for s in new]
    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            assert np.abs(faces[i] - faces[j]).mean() > 10, (new[i], new[j])


def test_crops_without_wide_jitter_are_the_first_rounds_crops(tmp_path) -> None:
    """Adding the wide-jitter option must not change crops already rendered for a seed."""
    from vision.render.dataset import write_crops

    deck = [load_deck("dos")]
    write_crops(tmp_path / "a", 6, 3, deck, ("paper",), "train")
    write_crops(tmp_path / "b", 6, 3, deck, ("paper",), "train", wide_jitter_p=0.0)
    write_crops(tmp_path / "c", 6, 3, deck, ("paper",), "train", wide_jitter_p=1.0)
    a = sorted((tmp_path / "a" / "symbol").rglob("*.png"))
    b = sorted((tmp_path / "b" / "symbol").rglob("*.png"))
    c = sorted((tmp_path / "c" / "symbol").rglob("*.png"))
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    assert [p.read_bytes() for p in a] != [p.read_bytes() for p in c]


def test_round8_typefaces_draw_every_digit_and_stay_out_of_the_heldout_style() -> None:
    """Round 8's extra fonts (pip font packages) draw ten distinct digits each; they join the
    training faces only inside ``more_typefaces()``, so earlier chunks render as before, and
    the held-out style never draws from them."""
    from vision.render.fonts import (
        HELDOUT_FONTS,
        MORE_TRAIN_FONTS,
        TRAIN_FONTS,
        more_typefaces,
        text_mask,
        training_fonts,
    )

    assert len(MORE_TRAIN_FONTS) == 19
    assert not set(MORE_TRAIN_FONTS) & (set(TRAIN_FONTS) | set(HELDOUT_FONTS))
    for font in MORE_TRAIN_FONTS:
        masks = [text_mask(d, font, 40) for d in "0123456789"]
        assert all(m.max() > 0.5 for m in masks), font
        assert len({(m.shape, m.round(1).tobytes()) for m in masks}) == 10, font
    assert training_fonts() == TRAIN_FONTS
    with more_typefaces():
        assert training_fonts() == TRAIN_FONTS + MORE_TRAIN_FONTS
        rng = np.random.default_rng(0)
        heldout = [render_face("red", "7", HELDOUT_STYLE, rng) for _ in range(3)]
    assert training_fonts() == TRAIN_FONTS
    again = np.random.default_rng(0)
    assert all(np.array_equal(h, render_face("red", "7", HELDOUT_STYLE, again)) for h in heldout)


def test_faces_outside_more_typefaces_render_as_before() -> None:
    """A face rendered after a ``more_typefaces()`` block is the same as one rendered with
    no such block ever entered (the earlier rounds' chunks must stay reproducible)."""
    from vision.render.fonts import more_typefaces

    before = [render_face("blue", v, "oval", np.random.default_rng(9)) for v in "1234"]
    with more_typefaces():
        inside = [render_face("blue", v, "oval", np.random.default_rng(9)) for v in "1234"]
    after = [render_face("blue", v, "oval", np.random.default_rng(9)) for v in "1234"]
    assert all(np.array_equal(b, a) for b, a in zip(before, after, strict=True))
    assert any(not np.array_equal(b, i) for b, i in zip(before, inside, strict=True))


def test_printed_frames_join_training_faces_only_inside_more_frames() -> None:
    """Round 9's printed frames: faces rendered outside ``more_frames()`` are as before (no
    random number taken), the held-out styles are never framed, and inside about
    ``FRAMED_SHARE`` of training faces change."""
    from vision.render.faces import HELDOUT_STYLES
    from vision.render.frames import FRAMED_SHARE, more_frames

    def faces(style: str, n: int = 200) -> list[np.ndarray]:
        return [render_face("green", "4", style, np.random.default_rng(s)) for s in range(n)]

    before = faces("paper")
    with more_frames():
        inside = faces("paper")
        heldout_inside = [f for style in HELDOUT_STYLES for f in faces(style, 30)]
    after = faces("paper")
    assert all(np.array_equal(b, a) for b, a in zip(before, after, strict=True))
    changed = sum(not np.array_equal(b, i) for b, i in zip(before, inside, strict=True))
    assert abs(changed / len(before) - FRAMED_SHARE) < 0.1
    assert all(f.shape == (CARD_H, CARD_W, 3) for f in inside)
    assert all(-0.01 < f.min() <= f.max() < 255.01 for f in inside)  # float rounding only
    heldout = [f for style in HELDOUT_STYLES for f in faces(style, 30)]
    assert all(np.array_equal(a, b) for a, b in zip(heldout_inside, heldout, strict=True))


def test_a_printed_margin_shrinks_the_design_inside_a_plain_band() -> None:
    """A framed face either draws rules or sets the whole design inside a margin: then its
    outermost rows and columns are one flat colour (paper, or paper tinted with the ink)."""
    from vision.render.frames import add_frame

    design = np.random.default_rng(1).uniform(0, 255, (CARD_H, CARD_W, 3)).astype(np.float32)
    red, paper = (200, 30, 30), (250, 250, 245)
    flat_edges = 0
    for seed in range(60):
        framed = add_frame(design.copy(), red, paper, np.random.default_rng(seed))
        assert framed.shape == design.shape
        edge = np.concatenate([framed[0], framed[-1], framed[:, 0], framed[:, -1]])
        if np.ptp(edge, axis=0).max() == 0:
            flat_edges += 1
            colour = edge[0]
            assert colour[0] >= 200 and colour[1] <= 250  # between the paper and the red ink
    assert flat_edges > 5


def test_the_emblem_style_is_for_new_chunks_only_and_draws_every_kind_of_emblem() -> None:
    """Round 13's emblem style joins the styles its own chunks draw from, twice as often as
    each other style; ``TRAIN_STYLES`` (what every earlier chunk drew from) is unchanged and
    no held-out style is trained on."""
    from vision.render.emblems import emblem_mask
    from vision.render.faces import EMBLEM_STYLE, HELDOUT_STYLES, ROUND13_STYLES

    assert EMBLEM_STYLE not in TRAIN_STYLES
    assert (*TRAIN_STYLES, EMBLEM_STYLE, EMBLEM_STYLE) == ROUND13_STYLES
    assert not set(ROUND13_STYLES) & set(HELDOUT_STYLES)
    areas, fits = [], []
    for seed in range(40):
        mask, hx, hy = emblem_mask(CARD_W, CARD_H, np.random.default_rng(seed))
        areas.append(mask.mean())
        fits.append(mask[round(CARD_H / 2), round(CARD_W / 2)])
        assert 0 < hx < CARD_W / 2 and 0 < hy < CARD_H / 2
    assert min(fits) > 0.5, "the symbol's centre lies on the emblem"
    assert min(areas) > 0.08
    assert max(areas) < 0.7
    assert len({round(a, 2) for a in areas}) > 20, "shapes and sizes vary"


@pytest.mark.parametrize("fault", ["light", "glare", "blur", "noise", "jpeg"])
def test_a_camera_fault_left_out_leaves_the_same_table(fault: str) -> None:
    """bench/vision_faults.py compares a table with and without one fault: the cards, their
    places and the random numbers drawn must be the same, only the image may differ."""
    from vision.render.scenes import FAULTS

    assert fault in FAULTS
    deck = load_deck("deck-dash")
    with_it, without = np.random.default_rng(11), np.random.default_rng(11)
    changed = 0
    for _ in range(6):
        a = render_scene(deck, with_it, TRAIN_STYLES)
        b = render_scene(deck, without, TRAIN_STYLES, skip_faults=frozenset({fault}))
        assert with_it.bit_generator.state == without.bit_generator.state
        assert [(o.kind, o.meta, o.visible) for o in a.objects] == [
            (o.kind, o.meta, o.visible) for o in b.objects
        ]
        assert all(
            np.array_equal(p.quad, q.quad) for p, q in zip(a.objects, b.objects, strict=True)
        )
        assert b.image.shape == a.image.shape and b.image.dtype == a.image.dtype
        changed += not np.array_equal(a.image, b.image)
    assert changed > 0  # the fault was drawn on some of the six tables, and left out there


def test_an_unknown_camera_fault_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown camera fault"):
        render_scene(load_deck("dos"), np.random.default_rng(1), TRAIN_STYLES, skip_faults={"fog"})
