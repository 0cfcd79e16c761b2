"""Close-up cards (``vision.runtime.zoom``): detector passes on the shrunk frame, mapped back,
and nested boxes resolved by how well each reads."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from referee.cli import main
from vision.render.closeups import render_close_up
from vision.runtime.detections import Detections
from vision.runtime.geometry import polygon_iou
from vision.runtime.zoom import (
    detect_zoomed_out,
    shrink_on_canvas,
    suppress_nested,
    within_frame,
    zoom_factors,
)

SEED = 900_022  # never used for training


def test_the_shrunk_frame_is_centred_and_mirrored_out_to_the_frames_size() -> None:
    frame = np.tile(np.arange(640, dtype=np.uint8)[None, :, None] % 251, (480, 1, 3))
    canvas, scale, (left, top) = shrink_on_canvas(frame, 0.25)
    assert canvas.shape == frame.shape
    assert (left, top) == (240, 180) and scale == 0.25
    small = cv2.resize(frame, (160, 120), interpolation=cv2.INTER_AREA)
    assert np.array_equal(canvas[top : top + 120, left : left + 160], small)
    # mirrored about the edge pixel: no flat band and no new edge for the detector to see
    assert np.array_equal(canvas[top : top + 120, left - 1], small[:, 1])
    assert np.array_equal(canvas[top - 1, left : left + 160], small[1])
    assert zoom_factors(0) == () and zoom_factors(2) == (0.5, 0.25)


def test_boxes_found_on_a_shrunk_frame_are_mapped_back_to_the_frames_pixels() -> None:
    """A fake detector that finds a card only on the second pass (the frame shrunk by 2),
    once where the frame lies and once in the mirrored border: the first comes back at the
    frame's scale and place, the second reaches out of the frame and is dropped."""
    card = np.array([[320.0, 240.0, 200.0, 300.0, 0.3]], np.float32)
    calls = []

    def detect(image: np.ndarray) -> Detections:
        calls.append(image.shape)
        if len(calls) != 2:
            return Detections.empty()
        _, _, (left, top) = shrink_on_canvas(image, 0.5)
        obb = np.array(
            [[320 * 0.5 + left, 240 * 0.5 + top, 100, 150, 0.3], [40, 60, 100, 150, 0.0]],
            np.float32,
        )
        return Detections(obb, np.array([0.9, 0.95], np.float32), np.zeros(2, np.int64))

    frame = np.zeros((480, 640, 3), np.uint8)
    found = detect_zoomed_out(detect, frame, passes=1, iou=0.5)
    assert len(calls) == 2
    assert len(found) == 1
    np.testing.assert_allclose(found.obb, card, atol=1e-4)
    calls.clear()
    assert len(detect_zoomed_out(detect, frame, passes=0, iou=0.5)) == 0
    assert len(calls) == 1
    assert within_frame(card, 640, 480).tolist() == [True]


def test_of_nested_boxes_the_better_read_one_stays() -> None:
    """A close-up card and its big symbol found as a card: the whole card reads better and
    stays. Three cards of a fan inside one box around the fan: the cards read better, so
    the box goes. Two cards side by side are not nested and both stay."""
    whole = [320, 240, 200, 300, 0.0]
    symbol = [320, 240, 80, 100, 0.0]
    assert suppress_nested(np.array([whole, symbol]), np.array([0.9, 0.5])).tolist() == [0]
    assert suppress_nested(np.array([whole, symbol]), np.array([0.4, 0.8])).tolist() == [1]
    fan = [[260, 240, 60, 90, 0.1], [320, 240, 60, 90, 0.0], [380, 240, 60, 90, -0.1]]
    group = [320, 240, 220, 140, 0.0]
    keep = suppress_nested(np.array([group, *fan]), np.array([0.5, 0.9, 0.8, 0.85]))
    assert keep.tolist() == [1, 2, 3]
    apart = np.array([[100, 100, 60, 90, 0.0], [300, 100, 60, 90, 0.0]])
    assert suppress_nested(apart, np.array([0.9, 0.8])).tolist() == [0, 1]
    # a close-up's corner index found loosely, its box reaching past the card's edge: 3/4
    # of it lies on the card (whole card x 220–420, y 90–390; index x 205–265, y 90–170)
    index = [235, 130, 60, 80, 0.0]
    assert suppress_nested(np.array([whole, index]), np.array([0.9, 0.75])).tolist() == [0]
    # a card half on another twice its size is no part of it
    half_on = [230, 130, 80, 160, 0.0]  # 47 % of it lies on the whole card
    assert suppress_nested(np.array([whole, half_on]), np.array([0.9, 0.75])).tolist() == [0, 1]


def test_ruling_vis10_identify_reads_close_up_photos(tmp_path: Path, capsys) -> None:
    """Cards 320–450 px tall in a 640×480 photo (a table camera sees them 54–157 px tall):
    identify (two zoomed-out passes by default) names each card once, on its whole card;
    eval's reader (no zoom by default) is the table camera's."""
    rng = np.random.default_rng(SEED)
    shots = [
        ("red", "7", "paper", 320, 10),
        ("blue", "skip", "oval", 380, -20),
        ("green", "3", "bold", 450, 5),
    ]
    paths, quads = [], []
    for i, (color, value, style, height, angle) in enumerate(shots):
        image, quad = render_close_up(color, value, style, rng, height=height, angle=angle)
        path = tmp_path / f"close{i}.png"
        cv2.imwrite(str(path), image)
        paths.append(str(path))
        quads.append(quad)
    from referee.cli import build_parser

    assert build_parser().parse_args(["vision", "eval", "set"]).zoom_out == 0
    assert main(["vision", "identify", *paths]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for line, (color, value, *_), quad in zip(lines, shots, quads, strict=True):
        assert [(c["color"], c["value"]) for c in line["cards"]] == [(color, value)], line
        x1, y1, x2, y2 = line["cards"][0]["box"]
        box = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
        qx1, qy1 = quad.min(0)
        qx2, qy2 = quad.max(0)
        truth = np.array([[qx1, qy1], [qx2, qy1], [qx2, qy2], [qx1, qy2]], np.float32)
        assert polygon_iou(box, truth) > 0.7, (line, quad)
