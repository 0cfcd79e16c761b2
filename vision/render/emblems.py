"""Emblems: the shape a deck prints behind its big central symbol.

UNO prints a tilted oval; other decks print discs, diamonds, shields, stars, hexagons or
nothing. Round 13 found the round-12 symbol model reading a fully visible ``10`` as a draw-4
and an ``11`` as a ``12`` when the digits sat in a six-sided badge, in training typefaces as in
unseen ones, while the same digits in the training layouts read right: the model had tied
digits to the few shapes around them that it had seen. The ``emblem`` training style draws a
random one of these shapes, so that the symbol is all that stays the same.
"""

from __future__ import annotations

import cv2
import numpy as np

EMBLEM_KINDS = ("polygon", "star", "rounded", "ellipse")


def _polygon(cx: float, cy: float, rx: float, ry: float, sides: int, turn: float) -> np.ndarray:
    a = turn + np.arange(sides) * 2 * np.pi / sides
    return np.stack([cx + rx * np.cos(a), cy + ry * np.sin(a)], axis=1)


def _star(
    cx: float, cy: float, rx: float, ry: float, points: int, inner: float, turn: float
) -> np.ndarray:
    a = turn + np.arange(2 * points) * np.pi / points
    r = np.where(np.arange(2 * points) % 2 == 0, 1.0, inner)
    return np.stack([cx + rx * r * np.cos(a), cy + ry * r * np.sin(a)], axis=1)


def emblem_mask(w: int, h: int, rng: np.random.Generator) -> tuple[np.ndarray, float, float]:
    """A random emblem centred on a w×h card: (mask in 0..1, half-width, half-height of the
    box the symbol is fitted into: about the shape's inner extent, so a wide symbol may touch
    its edge, as printed ones do)."""
    mask = np.zeros((h, w), np.float32)
    cx, cy = w / 2, h / 2
    rx, ry = w * rng.uniform(0.3, 0.46), h * rng.uniform(0.2, 0.34)
    kind = EMBLEM_KINDS[int(rng.integers(len(EMBLEM_KINDS)))]
    if kind == "polygon":
        sides = int(rng.choice([3, 4, 5, 6, 8]))
        pts = _polygon(cx, cy, rx, ry, sides, float(rng.uniform(0, 2 * np.pi)))
        fit = 0.62 if sides >= 5 else 0.5
    elif kind == "star":
        inner = float(rng.uniform(0.6, 0.8))
        pts = _star(cx, cy, rx, ry, int(rng.integers(5, 9)), inner, float(rng.uniform(0, 6.3)))
        fit = 0.55 * inner + 0.1
    elif kind == "rounded":
        r = int(min(rx, ry) * rng.uniform(0.2, 0.6))
        x0, y0, x1, y1 = int(cx - rx), int(cy - ry), int(cx + rx), int(cy + ry)
        cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), 1.0, -1)
        cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), 1.0, -1)
        for x, y in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
            cv2.circle(mask, (x, y), r, 1.0, -1, cv2.LINE_AA)
        return mask, rx * 0.85, ry * 0.85
    else:
        angle = float(rng.uniform(-45, 45))
        cv2.ellipse(mask, (int(cx), int(cy)), (int(rx), int(ry)), angle, 0, 360, 1.0, -1, 16)
        return mask, rx * 0.66, ry * 0.66
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1.0, cv2.LINE_AA)
    return mask, rx * fit, ry * fit
