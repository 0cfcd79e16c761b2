"""The torch-free runtime pieces: letterbox, OBB decoding, rotated NMS, rectification,
the Detections container and the evaluator (scored against the labels themselves)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.decks import load_deck
from vision.evaluate import (
    average_precision,
    evaluate,
    identity_of,
    label_path,
    read_labels,
    read_names,
)
from vision.render.dataset import write_eval_dataset
from vision.render.faces import CARD_H, CARD_W, HELDOUT_STYLE, TRAIN_STYLES, render_face
from vision.runtime.detections import Detections, obb_to_xyxy
from vision.runtime.geometry import decode_obb, letterbox, nms_rotated, polygon_iou, probiou
from vision.runtime.rectify import box_corners, quad_to_obb, rectify


def test_letterbox_keeps_aspect_and_pads() -> None:
    img = np.zeros((480, 640, 3), np.uint8)
    out, r, (left, top) = letterbox(img, 320)
    assert out.shape == (320, 320, 3)
    assert r == 0.5 and left == 0 and top == 40
    assert (out[:40] == 114).all() and (out[40:280] == 0).all()


@pytest.mark.parametrize(
    ("hw", "scale", "top"),
    [((384, 480), 0.75, 12), ((384, 512), 0.8, 0)],  # (384, 512): the shipped detector's
)
def test_letterbox_to_the_cameras_shape_pads_only_to_the_stride(
    hw: tuple[int, int], scale: float, top: int
) -> None:
    """A detector exported at a 4:3-ish (height, width) gets a 640×480 frame scaled to its
    width and padded by a few rows above and below, as Ultralytics' own predict letterboxes
    it."""
    img = np.zeros((480, 640, 3), np.uint8)
    out, r, (left, pad_top) = letterbox(img, hw)
    assert out.shape == (*hw, 3)
    assert r == pytest.approx(scale) and left == 0 and pad_top == top
    inside = round(480 * scale)
    assert (out[:top] == 114).all() and (out[top : top + inside] == 0).all()
    assert (out[top + inside :] == 114).all()


def test_the_shipped_detector_runs_wider_than_trained_and_finds_the_square_exports_cards(
    tmp_path,
) -> None:
    """The reader letterboxes to the detector's own (height, width). The shipped detector,
    trained on square 480 px scenes, is exported at (384, 512) (`TrainPlan.det_run_hw`,
    round 14: larger cards, no padding, fewer input pixels); it finds the cards the square 480
    export of the same weights finds."""
    import shutil
    import subprocess
    import sys

    from vision.decks import all_decks
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scenes import render_scene
    from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig
    from vision.train import TrainPlan

    shutil.copy(MODELS_DIR / "card-detector.pt", tmp_path / "card-detector.pt")
    for name in ("card-symbol.onnx", "card-color.onnx"):
        shutil.copy(MODELS_DIR / name, tmp_path / name)
    # torch's tracer keeps state between exports: export in a fresh process, as a user would
    export = (
        "import sys; from pathlib import Path; from vision.yolo import export_onnx, setup_offline;"
        "setup_offline(); d = Path(sys.argv[1]);"
        "export_onnx(d / 'card-detector.pt', 480, d / 'card-detector.onnx')"
    )
    subprocess.run([sys.executable, "-c", export, str(tmp_path)], check=True, capture_output=True)
    config = ReaderConfig(int8=False)
    shipped, square = CardReader(MODELS_DIR, config=config), CardReader(tmp_path, config=config)
    assert shipped.detector.input_hw == TrainPlan().det_run_hw == (384, 512)
    assert square.detector.input_hw == (480, 480)
    rng = np.random.default_rng(900_003)
    compared = 0
    for _ in range(3):
        frame = render_scene(all_decks(), rng, TRAIN_STYLES).image[..., ::-1].copy()
        a, b = square.detect(frame), shipped.detect(frame)
        assert abs(len(a) - len(b)) <= 1
        if len(a) and len(b):
            iou = probiou(a.obb, b.obb)
            assert np.median(iou.max(1)) > 0.9
            compared += len(a)
    assert compared > 0


def test_probiou_same_box_is_one_and_far_box_is_zero() -> None:
    a = np.array([[100, 100, 40, 60, 0.3]], np.float32)
    b = np.array([[100, 100, 40, 60, 0.3], [400, 400, 40, 60, 0.3]], np.float32)
    iou = probiou(a, b)
    assert iou[0, 0] > 0.99 and iou[0, 1] < 0.01


def test_nms_keeps_best_of_overlapping_and_separate_boxes() -> None:
    boxes = np.array(
        [[100, 100, 40, 60, 0.0], [102, 101, 40, 60, 0.05], [300, 100, 40, 60, 1.0]], np.float32
    )
    keep = nms_rotated(boxes, np.array([0.8, 0.9, 0.7]), 0.5)
    assert keep.tolist() == [1, 2]


def test_greedy_nms_keeps_a_fan_card_that_fast_nms_chains_away() -> None:
    """A overlaps B, B overlaps C, A does not overlap C: greedy NMS keeps A and C (B is gone,
    so it cannot drop C); Ultralytics' Fast-NMS lets the dropped B drop C too."""
    fan = np.array(
        [[100, 100, 40, 60, 0.0], [112, 100, 40, 60, 0.0], [124, 100, 40, 60, 0.0]], np.float32
    )
    scores = np.array([0.9, 0.8, 0.7])
    pair = probiou(fan, fan)
    assert pair[0, 1] > 0.5 and pair[1, 2] > 0.5 and pair[0, 2] < 0.5
    assert nms_rotated(fan, scores, 0.5).tolist() == [0, 2]
    assert nms_rotated(fan, scores, 0.5, fast=True).tolist() == [0]


def test_decode_obb_reads_ultralytics_layout() -> None:
    # (1, 4 + nc + 1, anchors): cx, cy, w, h, class score, angle
    out = np.zeros((1, 6, 3), np.float32)
    out[0, :, 0] = [50, 60, 20, 30, 0.9, 0.5]
    out[0, :, 1] = [51, 60, 20, 30, 0.6, 0.5]  # duplicate of the first
    out[0, :, 2] = [200, 60, 20, 30, 0.1, 0.0]  # below threshold
    obb, scores, cls = decode_obb(out, conf=0.25, iou=0.5)
    assert obb.tolist() == [[50, 60, 20, 30, 0.5]]
    assert scores.tolist() == [np.float32(0.9)] and cls.tolist() == [0]


def test_fused_boxes_are_the_score_weighted_mean_of_their_near_duplicates() -> None:
    from vision.runtime.geometry import fuse_boxes

    boxes = np.array(
        [
            [100, 100, 40, 60, 0.05],  # kept
            [104, 100, 40, 60, 0.05],  # its near-duplicate
            [101, 101, 60, 40, 0.03 - np.pi / 2],  # the same card, written wide
            [300, 100, 40, 60, 0.0],  # another card: kept, alone
        ],
        np.float32,
    )
    scores = np.array([0.9, 0.3, 0.3, 0.8], np.float32)
    fused = fuse_boxes(boxes, scores, np.array([0, 3]), fuse_iou=0.7)
    w = scores[:3] / scores[:3].sum()
    assert np.allclose(fused[0, :4], [w @ [100, 104, 101], w @ [100, 100, 101], 40, 60], atol=1e-4)
    assert np.isclose(fused[0, 4], w @ [0.05, 0.05, 0.03], atol=1e-3)  # angles agree mod π
    assert np.allclose(fused[1], boxes[3], atol=1e-5)  # alone: unchanged
    # a kept box written wide stays wide; at a strict threshold nothing joins it
    assert np.allclose(fuse_boxes(boxes, scores, np.array([2]), 0.99), boxes[2:3], atol=1e-5)
    out = np.zeros((1, 6, 2), np.float32)
    out[0, :, 0] = [50, 60, 20, 30, 0.9, 0.5]
    out[0, :, 1] = [52, 60, 20, 30, 0.9, 0.5]
    assert np.allclose(decode_obb(out, 0.25, 0.5, fuse_iou=0.5)[0], [[51, 60, 20, 30, 0.5]])


def test_rectify_undoes_rotation_up_to_a_half_turn() -> None:
    face = render_face("red", "7", "paper", np.random.default_rng(0)).astype(np.uint8)
    frame = np.full((400, 400, 3), 30, np.uint8)
    angle = 37.0
    m = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, 1.0)
    m[:, 2] += [200 - CARD_W / 2, 200 - CARD_H / 2]
    cv2.warpAffine(face, m, (400, 400), frame, borderMode=cv2.BORDER_TRANSPARENT)
    corners = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], float)
    quad = corners @ m[:, :2].T + m[:, 2]
    crop = rectify(frame, quad_to_obb(quad), 64).astype(float)
    want = cv2.resize(face, (64, 64), interpolation=cv2.INTER_AREA).astype(float)
    err = min(np.abs(crop - want).mean(), np.abs(crop[::-1, ::-1] - want).mean())
    assert err < 12


def test_box_corners_are_clockwise() -> None:
    c = box_corners(0, 0, 10, 20, 0.0)
    assert c.tolist() == [[-5, -10], [5, -10], [5, 10], [-5, 10]]


def test_detections_select_and_serialise() -> None:
    d = Detections(
        np.array([[10, 10, 4, 8, 0.0], [50, 50, 4, 8, np.pi / 2]], np.float32),
        np.array([0.9, 0.5], np.float32),
        np.array([0, 0]),
        np.array(["red", None], dtype=object),
        np.array(["7", "wild"], dtype=object),
    )
    assert len(d) == 2
    sel = d[d.confidence > 0.6]
    assert len(sel) == 1 and sel.value[0] == "7"
    assert d.cards()[1] == {
        "color": None,
        "value": "wild",
        "confidence": 0.5,
        "box": [46.0, 48.0, 54.0, 52.0],
    }
    assert obb_to_xyxy(d.obb)[0].tolist() == [8, 6, 12, 14]
    assert len(Detections.empty()) == 0


def test_average_precision_edges() -> None:
    assert average_precision(np.array([1.0, 1.0]), np.array([0.9, 0.8]), 2) == 1.0
    assert average_precision(np.array([0.0]), np.array([0.9]), 1) == 0.0


def test_polygon_iou_half_overlap() -> None:
    a = np.array([[0, 0], [2, 0], [2, 2], [0, 2]])
    b = a + [1, 0]
    assert abs(polygon_iou(a, b) - 1 / 3) < 1e-6


def _oracle(root):
    """A predictor that answers the labels themselves (tests the scorer, not a model)."""
    names = read_names(root / "data.yaml")

    def predict(image, _cache={}):  # noqa: B006
        h, w = image.shape[:2]
        key = image.tobytes()[:4096] + image.tobytes()[-4096:]
        path = _cache[key]
        gt = read_labels(path, w, h)
        obb = np.array([quad_to_obb(p) for p in gt.polys], np.float32).reshape(-1, 5)
        colors, values = [], []
        for c in gt.names:
            nm = names[c]
            col, _, val = nm.partition(" ")
            colors.append(col if val else None)
            values.append(val or nm)
        return Detections(
            obb,
            np.ones(len(obb), np.float32),
            np.zeros(len(obb), np.int64),
            np.array(colors, dtype=object),
            np.array(values, dtype=object),
        )

    for img_path in sorted((root / "images").glob("*.jpg")):
        image = cv2.imread(str(img_path))
        predict.__defaults__[0][image.tobytes()[:4096] + image.tobytes()[-4096:]] = label_path(
            img_path
        )
    return predict


def test_eval_scores_perfect_answers_as_perfect(tmp_path) -> None:
    root = tmp_path / "set"
    write_eval_dataset(root, 4, 21, [load_deck("deck-dash")], TRAIN_STYLES)
    rep = evaluate(root, _oracle(root))
    assert rep.images == 4
    assert rep.map50 > 0.99 and rep.map50_95 > 0.9
    assert rep.identity_accuracy == 1.0 and rep.frames_with_false_card == 0


def test_eval_counts_a_wrong_colour_as_wrong(tmp_path) -> None:
    root = tmp_path / "set"
    write_eval_dataset(root, 3, 22, [load_deck("dos")], TRAIN_STYLES)
    oracle = _oracle(root)

    def wrong(image):
        d = oracle(image)
        swap = {"red": "blue", "blue": "red", "green": "yellow", "yellow": "green", None: None}
        flipped = np.array([swap[c] for c in d.color], dtype=object)
        return Detections(d.obb, d.confidence, d.class_id, flipped, d.value)

    truth = evaluate(root, oracle)
    rep = evaluate(root, wrong)
    coloured = sum(r["cards"] for r in truth.per_class if " " in r["class"])
    assert coloured > 0
    assert rep.identity_correct == truth.identity_correct - coloured


def test_identity_names_for_colourless_cards() -> None:
    assert identity_of(None, "wild") == "wild"
    assert identity_of("red", "7") == "red 7"
    assert identity_of(None, "back") == "back"


def test_ruling_vis7_doubtful_readings_are_dropped() -> None:
    """The shipped reader with and without the 0.3 floor on the same rendered tables: the
    floor removes exactly the readings under it and nothing else."""
    from vision.render.scenes import render_scene
    from vision.runtime.reader import CardReader, ReaderConfig

    rng = np.random.default_rng(31)
    decks = [load_deck("deck-dash"), load_deck("dos")]
    # tables with cards (the models doubt nothing on empty ones), in the held-out style, where
    # doubt is common enough not to hang on one borderline card (in the training styles a
    # single reading sat under 0.3, and OpenCV 5.1 read it at 0.42)
    frames = [
        np.ascontiguousarray(render_scene(decks, rng, (HELDOUT_STYLE,)).image[..., ::-1])
        for _ in range(20)
    ]
    floor = CardReader(config=ReaderConfig(threads=1))
    assert floor.config.min_confidence == 0.3
    everything = CardReader(config=ReaderConfig(threads=1, min_confidence=0.0))
    dropped = 0
    for frame in frames:
        kept, raw = floor(frame), everything(frame)
        assert (kept.confidence >= 0.3).all()
        sure = raw.confidence >= 0.3
        assert np.allclose(np.sort(kept.confidence), np.sort(raw.confidence[sure]))
        dropped += int((~sure).sum())
    assert dropped > 0, "no doubtful reading on these tables: the test would prove nothing"


def test_crops_are_cut_at_the_largest_classifier_input_never_under_64() -> None:
    from vision.runtime.reader import CardReader
    from vision.runtime.rectify import MIN_CROP, crop_side

    assert crop_side(96, 32) == 96
    assert crop_side(32, 48) == MIN_CROP == 64
    reader = CardReader()
    assert reader.crop_size == crop_side(reader.symbol.imgsz, reader.color.imgsz)
    obb = np.array([[320, 240, 60, 90, 0.3]], np.float32)
    frame = np.zeros((480, 640, 3), np.uint8)
    assert reader.crops(frame, obb)[0].shape == (reader.crop_size, reader.crop_size, 3)


def _probabilities(names: list[str], **chosen: float) -> np.ndarray:
    """A probability row over ``names`` with the ``chosen`` ones set and the rest shared."""
    row = np.full(len(names), 0.0, np.float32)
    for name, p in chosen.items():
        row[names.index(name)] = p
    rest = [i for i, n in enumerate(names) if n not in chosen]
    row[rest] = (1 - sum(chosen.values())) / len(rest)
    return row


def test_ruling_vis9_with_no_deck_only_cards_of_known_decks_are_named() -> None:
    """A Block reads red and a Cut the Deck reads colourless: no deck has either card. With no
    deck named the reader names the likeliest card that some deck has; ``known_cards_only``
    off (``--deck any``) names symbol and colour apart, as before round 12."""
    from vision.runtime.reader import CardReader, ReaderConfig

    known = CardReader(config=ReaderConfig(threads=1))
    free = CardReader(config=ReaderConfig(threads=1, known_cards_only=False))
    symbols, colors = known._sym_names, known._col_names
    block = _probabilities(symbols, block=0.8, **{"7": 0.1})
    reddish = _probabilities(colors, red=0.7, none=0.25)
    assert free._decide(block, reddish)[:2] == ("red", "block")
    assert known._decide(block, reddish)[:2] == (None, "block")
    cut = _probabilities(symbols, cut=0.9)
    pale = _probabilities(colors, none=0.6, red=0.3)
    assert free._decide(cut, pale)[:2] == (None, "cut")
    assert known._decide(cut, pale)[:2] == ("red", "cut")
    # a card some deck has is named as before
    seven = _probabilities(symbols, **{"7": 0.9})
    assert known._decide(seven, reddish)[:2] == free._decide(seven, reddish)[:2] == ("red", "7")
