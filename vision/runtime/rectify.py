"""Crop rectification: turn an oriented card box into an upright, square classifier input.

The detector gives an oriented box (centre, size, angle). We always put the card's long side
vertical; which end is "up" stays unknown (180° ambiguity), so the classifier is trained on
both orientations. Training crops go through this same function, so training and runtime see
identical pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

MIN_CROP = 64  # smallest rectified crop side


def crop_side(*classifier_inputs: int) -> int:
    """The side to cut crops at: the largest classifier input, never under ``MIN_CROP``, so
    no classifier sees a crop blown up (training and runtime both ask this)."""
    return max(MIN_CROP, *classifier_inputs)


def portrait(cx: float, cy: float, w: float, h: float, theta: float) -> tuple[float, ...]:
    """The same rotated box with its long side as height (angle adjusted by 90° if needed)."""
    if w > h:
        return cx, cy, h, w, theta + np.pi / 2
    return cx, cy, w, h, theta


def box_corners(cx: float, cy: float, w: float, h: float, theta: float) -> np.ndarray:
    """Corners TL, TR, BR, BL (clockwise in image coordinates) of a rotated box, 4×2 float."""
    c, s = np.cos(theta), np.sin(theta)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    rot = np.array([[c, -s], [s, c]])
    return local @ rot.T + np.array([cx, cy])


def rectify(
    image: np.ndarray, obb: tuple[float, float, float, float, float], size: int
) -> np.ndarray:
    """Warp the card inside ``obb`` (cx, cy, w, h, theta radians) to a size×size image."""
    corners = box_corners(*portrait(*obb)).astype(np.float32)
    dst = np.float32([[0, 0], [size, 0], [size, size]])
    m = cv2.getAffineTransform(corners[:3], dst)
    return cv2.warpAffine(
        image,
        m,
        (size, size),
        flags=cv2.INTER_AREA if obb[2] > size else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def quad_to_obb(quad: np.ndarray) -> tuple[float, float, float, float, float]:
    """The minimum-area rotated box around 4 corner points, as (cx, cy, w, h, theta radians)."""
    (cx, cy), (w, h), ang = cv2.minAreaRect(np.asarray(quad, np.float32))
    return float(cx), float(cy), float(w), float(h), float(np.radians(ang))
