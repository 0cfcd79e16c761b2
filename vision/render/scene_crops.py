"""Classifier crops cut from whole rendered tables, the way the runtime will cut them.

The table patches of ``write_crops`` draw one target card with at most one fan neighbour,
so heavily covered cards were rare there; on a whole table (fans of up to seven, piles,
backs on faces) 42 % of the faces are only 40-80 % visible, and the round-2 classifiers
read only 7 % of the 40-60 % visible ones right (models/cards.md). Here every labelled
card of a table gives two crops: one from its true box with a detector-like error, and one
from the box the detector actually drew around it, when it drew one. Boxes that match no
card are filed as ``other`` (the detector's real false alarms).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from vision.decks import DeckProfile
from vision.render.dataset import CROP_SIZE, jittered_obb, make_class_folders, write_image
from vision.render.scenes import Placed, Scene, render_scene
from vision.runtime.geometry import polygon_iou
from vision.runtime.rectify import box_corners, rectify

MATCH_IOU = 0.5  # a detected box this close to a card is that card's crop …
MISS_IOU = 0.3  # … and one overlapping every card less than this is a false alarm
Box = tuple[tuple[float, ...], Placed | None]  # an oriented box and what it covers


def crop_labels(obj: Placed | None) -> tuple[str, str | None]:
    """(symbol class, colour class or None) of a labelled object, or of nothing ("other")."""
    if obj is None:
        return "other", None
    if obj.kind == "card":
        return obj.meta["value"], obj.meta["color"] or "none"
    return obj.kind, None  # "back": no colour to learn


def table_boxes(scene: Scene, detect, rng: np.random.Generator) -> list[Box]:
    """Every labelled object's true box with a detector-like error (40 % of them doubled),
    then each box ``detect`` draws: with the object it covers, or None when it covers none."""
    boxes: list[Box] = []
    for obj in scene.objects:
        spread = 2.0 if rng.random() < 0.4 else 1.0
        boxes.append((jittered_obb(obj.quad, rng, spread), obj))
    bgr = np.ascontiguousarray(scene.image[..., ::-1])
    for obb in detect(bgr).obb:
        poly = box_corners(*obb)
        ious = [polygon_iou(poly, o.quad) for o in scene.objects]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= MATCH_IOU:
            boxes.append((tuple(float(v) for v in obb), scene.objects[best]))
        elif best < 0 or ious[best] < MISS_IOU:
            boxes.append((tuple(float(v) for v in obb), None))
    return boxes


def write_scene_crops(
    out: Path,
    detect,
    n_tables: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    split: str,
    empty_fraction: float = 0.05,
    crop_size: int = CROP_SIZE,
) -> int:
    """Render ``n_tables`` tables, cut crops as described above into ``out/symbol/<split>/…``
    and ``out/color/<split>/…`` (hard links, like ``write_crops``). Returns how many."""
    rng = np.random.default_rng(seed)
    make_class_folders(out, split)
    made = 0
    for i in range(n_tables):
        scene = render_scene(decks, rng, styles, empty=rng.random() < empty_fraction)
        for k, (obb, obj) in enumerate(table_boxes(scene, detect, rng)):
            crop = rectify(scene.image, obb, crop_size)
            if rng.random() < 0.5:
                crop = crop[::-1, ::-1]
            symbol, color = crop_labels(obj)
            path = out / "symbol" / split / symbol / f"t{seed}_{i:05d}_{k}.png"
            write_image(path, crop)  # raises when it cannot: no crop silently missing
            if color is not None:
                os.link(path, out / "color" / split / color / path.name)
            made += 1
    return made
