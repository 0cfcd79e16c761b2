"""Hard negatives: what a trained detector wrongly calls a card, cut out for the classifier.

The classifier's "other" class is what lets a frame of mugs, hands and notes stay empty. The
rendered "other" patches in ``write_crops`` guess what a false alarm looks like; these are
the real thing: the detector runs on rendered tables (empty ones, and ones with cards where
a box matches no card — a box across two fanned cards, say), and each such box is cut out
with the runtime's own ``rectify`` and filed as ``other``. A detector seldom fires on clutter
at training time, so card-shaped clutter (phones, notes) is also cut from its own box.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.decks import DeckProfile
from vision.render.dataset import CROP_SIZE, jittered_obb, write_image
from vision.render.scenes import FRAME_H, FRAME_W, Canvas, Scene, _degrade, _light, render_scene
from vision.render.tables import occluder, table
from vision.runtime.geometry import polygon_iou
from vision.runtime.rectify import box_corners, rectify

CARD_SHAPED_CLUTTER = ("phone", "note")


def false_alarms(
    scene: Scene, obbs: np.ndarray, max_iou: float = 0.3, crop_size: int = CROP_SIZE
) -> list[np.ndarray]:
    """Rectified crops of the boxes in ``obbs`` that overlap no card of ``scene`` by more
    than ``max_iou``."""
    truth = [o.quad for o in scene.objects]
    crops = []
    for obb in obbs:
        poly = box_corners(*obb)
        if not any(polygon_iou(poly, q) > max_iou for q in truth):
            crops.append(rectify(scene.image, tuple(float(v) for v in obb), crop_size))
    return crops


def write_hard_negatives(
    out: Path,
    detect,
    n_scenes: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    split: str = "train",
    empty_fraction: float = 0.5,
    max_iou: float = 0.3,
    crop_size: int = CROP_SIZE,
) -> int:
    """Render ``n_scenes`` tables, run ``detect(bgr) -> Detections`` and save every box that
    overlaps no card by more than ``max_iou`` to ``out/symbol/<split>/other``. Returns how many."""
    rng = np.random.default_rng(seed)
    folder = out / "symbol" / split / "other"
    folder.mkdir(parents=True, exist_ok=True)
    saved = 0
    for i in range(n_scenes):
        scene = render_scene(decks, rng, styles, empty=rng.random() < empty_fraction)
        bgr = np.ascontiguousarray(scene.image[..., ::-1])
        for k, crop in enumerate(false_alarms(scene, detect(bgr).obb, max_iou, crop_size)):
            _file_as_other(folder / f"neg{seed}_{i:05d}_{k}.png", crop, rng)
            saved += 1
    return saved


def _file_as_other(path: Path, crop: np.ndarray, rng: np.random.Generator) -> None:
    """Save an RGB crop, turned 180° half of the time (the runtime's crops may be)."""
    if rng.random() < 0.5:
        crop = crop[::-1, ::-1]
    write_image(path, crop)  # raises when it cannot: no crop silently missing


def clutter_quad(alpha: np.ndarray) -> np.ndarray | None:
    """The minimum-area rotated box (4 corners) around a clutter object's mask, or None
    when it lies outside the frame."""
    ys, xs = np.nonzero(alpha > 0.5)
    if len(xs) < 20:
        return None
    return cv2.boxPoints(cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32)))


def write_clutter_negatives(
    out: Path,
    n: int,
    seed: int,
    split: str = "train",
    crop_size: int = CROP_SIZE,
    kinds: tuple[str, ...] = CARD_SHAPED_CLUTTER,
) -> int:
    """``n`` tables with one card-shaped clutter object each (``kinds`` in turn), under the
    scenes' light and camera faults, cut from the object's own box with a detector-like
    error into ``out/symbol/<split>/other``. Returns how many. Why: on the round-6 empty
    evaluation tables every false card was a phone read as a card back, and the detector's
    own false alarms (``write_hard_negatives``) held few phones."""
    rng = np.random.default_rng(seed)
    folder = out / "symbol" / split / "other"
    folder.mkdir(parents=True, exist_ok=True)
    saved = 0
    for i in range(n):
        canvas = Canvas(table(FRAME_H, FRAME_W, rng))
        rgb, alpha = occluder(FRAME_H, FRAME_W, rng, kinds[i % len(kinds)])
        canvas.occlude(rgb, alpha, rng)
        quad = clutter_quad(alpha)
        if quad is None:
            continue
        image = _degrade(_light(canvas.img, rng), rng)
        spread = 2.0 if rng.random() < 0.4 else 1.0
        crop = rectify(image, jittered_obb(quad, rng, spread), crop_size)
        _file_as_other(folder / f"clutter{seed}_{i:05d}.png", crop, rng)
        saved += 1
    return saved
