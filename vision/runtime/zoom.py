"""Cards larger or smaller than learnt: detect on the frame shrunk, or on enlarged tiles.

Why: the detector learnt cards 34–100 px wide in a 640×480 frame (a camera above a table;
Ultralytics' scale augmentation stretches that by a quarter). A photo of one card held near
the lens shows it several times larger: measured, a card 300 px tall in a 640×480 image got
no box and one 420 px tall got a box round its top half. Shrinking the frame by 2 and by 4
(centred on a canvas of the frame's size, mirrored to its edges) brings such cards into
the learnt range; their boxes are mapped back to the frame and merged with the full-size
pass by the same greedy rotated NMS, so the reading still cuts each card from the full
frame's pixels. A shrunk pass's box reaching out of the frame is dropped (``within_frame``).

The cards of one deck are one size, and a camera sees them all from about one distance, so a
box lying inside another box twice its area is a mistake: a part of a close-up card (its
big symbol, an index) found at full size, or a group of cards found as one large card when
shrunk. Which it is, the reading says: ``suppress_nested`` keeps, of boxes nested so, the
one read with the most confidence (a part reads badly, and so does a group).

Cards *smaller* than learnt (a table camera mounted high) are found on 2×2 overlapping
tiles of the frame (``detect_tiled``): the detector letterboxes each tile up to its input,
so its cards reach it larger; a box cut by a tile's inner edge is dropped, as the overlap
holds the whole card in the next tile.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.runtime.detections import Detections
from vision.runtime.geometry import nms_rotated, unletterbox_obb
from vision.runtime.rectify import box_corners


def shrink_on_canvas(frame: np.ndarray, factor: float) -> tuple[np.ndarray, float, tuple[int, int]]:
    """``frame`` shrunk by ``factor`` (< 1), centred on a canvas of its own size and
    mirrored out to the canvas's edges; returns the canvas, the scale and the (left, top)
    offset, as :func:`letterbox` does (so :func:`unletterbox_obb` maps boxes back).
    Mirrored, not grey: on grey the photo's own edge looked like a large card's (measured:
    false card backs round the photo's corners)."""
    h, w = frame.shape[:2]
    sw, sh = max(1, round(w * factor)), max(1, round(h * factor))
    left, top = (w - sw) // 2, (h - sh) // 2
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    canvas = cv2.copyMakeBorder(
        small, top, h - sh - top, left, w - sw - left, cv2.BORDER_REFLECT_101
    )
    return canvas, factor, (left, top)


def zoom_factors(passes: int) -> tuple[float, ...]:
    """The shrink factors of ``passes`` extra passes: 1/2, 1/4, …"""
    return tuple(0.5 ** (k + 1) for k in range(passes))


def detect_shrunk(
    detect: Callable[[np.ndarray], Detections], frame: np.ndarray, factor: float
) -> Detections:
    """``detect`` on the frame shrunk by ``factor`` (< 1), boxes mapped back to the frame;
    boxes reaching out of it (``within_frame``) are dropped."""
    canvas, r, pad = shrink_on_canvas(frame, factor)
    d = detect(canvas)
    obb = unletterbox_obb(d.obb.astype(np.float32).copy(), r, pad)
    return Detections(obb, d.confidence, d.class_id)[within_frame(obb, *frame.shape[1::-1])]


def detect_zoomed_out(
    detect: Callable[[np.ndarray], Detections], frame: np.ndarray, passes: int, iou: float
) -> Detections:
    """``detect`` on the frame and on it shrunk ``passes`` times, merged by rotated NMS."""
    found = [detect(frame)]
    found += [detect_shrunk(detect, frame, factor) for factor in zoom_factors(passes)]
    return merged(found, iou)


def merged(found: list[Detections], iou: float) -> Detections:
    """Boxes of several passes as one set, overlaps resolved by the greedy rotated NMS."""
    if not sum(len(d) for d in found):
        return Detections.empty()
    obb = np.concatenate([d.obb for d in found]).astype(np.float32)
    conf = np.concatenate([d.confidence for d in found]).astype(np.float32)
    cls = np.concatenate([d.class_id for d in found])
    keep = nms_rotated(obb, conf, iou)
    return Detections(obb[keep], conf[keep], cls[keep])


def corners_of(obb: np.ndarray) -> np.ndarray:
    """The four corners of each oriented box (N×4×2)."""
    return np.stack([box_corners(*map(float, b)) for b in obb])


TILE_EDGE = 2.0  # px: a tile's box this near an inner edge of the tile is a card cut by it


def tile_origins(size: int, tile: int) -> tuple[int, ...]:
    """Where the two overlapping tiles along one side start (one when a tile is the side)."""
    return (0,) if tile >= size else (0, size - tile)


def detect_tiled(
    detect: Callable[[np.ndarray], Detections], frame: np.ndarray, tile: float, iou: float
) -> Detections:
    """``detect`` on 2×2 overlapping tiles, each ``tile`` (0.6–1) of the frame's sides, so
    small cards reach the detector ``1/tile`` times larger (it letterboxes each tile to its
    input). A box reaching an inner edge of its tile is a card the edge cuts: the tiles
    overlap by ``2·tile − 1`` of the frame, more than a small card, so the whole card is
    found in the next tile. Boxes are merged by the same rotated NMS."""
    if not 0.5 < tile <= 1:
        raise ValueError(f"2×2 tiles cover the frame only when larger than half of it: {tile}")
    h, w = frame.shape[:2]
    tw, th = max(1, round(w * tile)), max(1, round(h * tile))
    found = []
    for y0 in tile_origins(h, th):
        for x0 in tile_origins(w, tw):
            d = detect(frame[y0 : y0 + th, x0 : x0 + tw])
            if len(d) == 0:
                continue
            corners = corners_of(d.obb)
            xs, ys = corners[..., 0], corners[..., 1]
            cut = np.zeros(len(d), bool)
            if x0 > 0:
                cut |= xs.min(1) < TILE_EDGE
            if x0 + tw < w:
                cut |= xs.max(1) > tw - TILE_EDGE
            if y0 > 0:
                cut |= ys.min(1) < TILE_EDGE
            if y0 + th < h:
                cut |= ys.max(1) > th - TILE_EDGE
            d = d[~cut]
            obb = d.obb.astype(np.float32).copy()
            obb[:, 0] += x0
            obb[:, 1] += y0
            found.append(Detections(obb, d.confidence, d.class_id))
    return merged(found, iou)


BEYOND_EDGE = 0.15  # of the frame's side: how far a zoomed pass's box may reach out of it


def within_frame(obb: np.ndarray, width: int, height: int) -> np.ndarray:
    """Which boxes keep their corners within ``BEYOND_EDGE`` of the frame: a shrunk pass
    also finds the mirrored cards around the frame (and, near the photo's edge, boxes
    round a card and its mirror image)."""
    if len(obb) == 0:
        return np.zeros(0, bool)
    corners = corners_of(obb)
    mx, my = BEYOND_EDGE * width, BEYOND_EDGE * height
    xs, ys = corners[..., 0], corners[..., 1]
    ok = (xs >= -mx) & (xs <= width + mx) & (ys >= -my) & (ys <= height + my)
    return ok.all(1)


# share of the smaller box's area inside the larger box. A close-up's corner index is often
# found with a loose box reaching past the card's edge, 72–79 % on it: 0.7, not 0.8, drops
# them (bench/vision_closeups.py, three seeds: 453 → 459 of 480 photos read; enlarged tables
# −2 of 605 faces and −6 of 105 extra boxes; validation tables with zoom unchanged, 2 960
# of 3 149 faces; card scales measured the same)
NESTED_INSIDE = 0.7
NESTED_AREA = 2.0  # the larger box's area over the smaller's, at least


def suppress_nested(obb: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Indices (in order) of the boxes to keep: best first, a box is dropped when it lies
    inside a kept box (at least ``NESTED_INSIDE`` of its area, itself at most
    1/``NESTED_AREA`` of the other's) or a kept box lies inside it so."""
    polys = [box_corners(*map(float, b)).astype(np.float32) for b in obb]
    areas = [float(b[2] * b[3]) for b in obb]

    def nested(i: int, j: int) -> bool:
        small, big = (i, j) if areas[i] <= areas[j] else (j, i)
        if areas[small] <= 0 or areas[big] < NESTED_AREA * areas[small]:
            return False
        inter, _ = cv2.intersectConvexConvex(polys[big], polys[small])
        return inter >= NESTED_INSIDE * areas[small]

    kept: list[int] = []
    for i in np.argsort(-np.asarray(confidence), kind="stable"):
        if not any(nested(int(i), k) for k in kept):
            kept.append(int(i))
    return np.array(sorted(kept), dtype=np.int64)
