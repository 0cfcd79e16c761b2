"""Hard negatives: what a trained detector wrongly calls a card, cut out for the classifier.

The classifier's "other" class is what lets a frame of mugs, hands and notes stay empty. The
rendered "other" patches in ``write_crops`` guess what a false alarm looks like; these are
the real thing: the detector runs on rendered tables (empty ones, and ones with cards where
a box matches no card — a box across two fanned cards, say), and each such box is cut out
with the runtime's own ``rectify`` and filed as ``other``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.decks import DeckProfile
from vision.render.dataset import CROP_SIZE
from vision.render.scenes import Scene, render_scene
from vision.runtime.geometry import polygon_iou
from vision.runtime.rectify import box_corners, rectify


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
            if rng.random() < 0.5:
                crop = crop[::-1, ::-1]
            name = folder / f"neg{seed}_{i:05d}_{k}.png"
            cv2.imwrite(str(name), cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_RGB2BGR))
            saved += 1
    return saved
