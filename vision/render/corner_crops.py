"""Corner-model training patches, cut from whole rendered tables as the runtime cuts them.

Every labelled card gives a crop from its jittered true box and one from the box the
detector drew around it (``scene_crops`` does the same for the whole-card models); each crop
gives its four corner patches (``vision.runtime.corners``). A patch is labelled with the
card's value when it shows an index corner that is at least ``READABLE`` visible, ``none``
when it shows a corner without an index (every training style prints its indices top-left
and bottom-right), an index corner mostly under something else, a back or a false alarm.
Index corners between the two thresholds are left out: neither label is true of them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.decks import DeckProfile
from vision.render.dataset import write_image
from vision.render.scene_crops import table_boxes
from vision.render.scenes import Placed, render_scene
from vision.runtime.corners import NONE, corner_patches
from vision.runtime.rectify import box_corners, portrait, rectify

INDEX_CORNERS = (0, 2)  # TL and BR, in the card's own corner order
READABLE = 0.85  # an index corner at least this visible can be read …
HIDDEN = 0.5  # … one less visible than this cannot
NONE_KEEP = 0.5  # share of the plain "none" patches kept, so they do not swamp the values


def crop_turn(obb: tuple[float, ...], quad: np.ndarray) -> int | None:
    """Which of the card's corners (0..3, TL TR BR BL) the crop of ``obb`` has at its top
    left: 0 upright, 2 upside down, None when the box lies across the card."""
    crop_tl = box_corners(*portrait(*obb))[0]
    k = int(np.argmin(np.linalg.norm(np.asarray(quad) - crop_tl, axis=1)))
    return k if k in (0, 2) else None


def patch_labels(obb: tuple[float, ...], obj: Placed | None) -> list[str | None]:
    """The label of each of the crop's four patches (None: leave it out)."""
    if obj is None or obj.kind != "card":
        return [NONE] * 4
    turn = crop_turn(obb, obj.quad)
    if turn is None:
        return [None] * 4
    labels: list[str | None] = []
    for k in range(4):
        corner = (k + turn) % 4
        vis = obj.corners_visible[corner]
        if corner not in INDEX_CORNERS or vis < HIDDEN:
            labels.append(NONE)
        elif vis >= READABLE:
            labels.append(obj.meta["value"])
        else:
            labels.append(None)
    return labels


def write_corner_crops(
    out: Path,
    detect,
    n_tables: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    split: str,
    crop_size: int,
    patch_size: int,
    empty_fraction: float = 0.05,
) -> int:
    """Render ``n_tables`` tables and write their corner patches to
    ``out/corner/<split>/<class>/`` (a folder per class met). Returns how many."""
    rng = np.random.default_rng(seed)
    made = 0
    for i in range(n_tables):
        scene = render_scene(decks, rng, styles, empty=rng.random() < empty_fraction)
        for b, (obb, obj) in enumerate(table_boxes(scene, detect, rng)):
            labels = patch_labels(obb, obj)
            if all(label is None for label in labels):
                continue
            patches = corner_patches(rectify(scene.image, obb, crop_size), patch_size)
            for k, (label, patch) in enumerate(zip(labels, patches, strict=True)):
                if label is None or (label == NONE and rng.random() > NONE_KEEP):
                    continue
                path = out / "corner" / split / label / f"t{seed}_{i:05d}_{b}_{k}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                write_image(path, patch)  # raises when it cannot: no crop silently missing
                made += 1
    return made
