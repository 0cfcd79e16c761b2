"""Printed frames: a paper margin and thin rules between a card's design and its edge.

Many printed decks set their design inside a pale margin or one or two thin rules near the
edge (a real UNO card has a white border). The training styles hold few such frames, and on
the held-out style — a pale tint inside two rules — the round-8 detector boxed the inner rule
instead of the card's edge (its boxes ~7 % small). Faces rendered inside ``more_frames()``
get a frame at random; outside it nothing is drawn and no random number is taken, so every
earlier chunk still renders byte for byte as it did.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import cv2
import numpy as np

from vision.render.switches import Switch

RGB = tuple[int, int, int]

FRAMED_SHARE = 0.6  # of faces rendered inside ``more_frames()``; the rest stay unframed
_more_frames = Switch("more_frames")


def more_frames() -> AbstractContextManager[None]:
    """Training faces rendered inside get a printed frame (``add_frame``) at random."""
    return _more_frames.on()


def frames_on() -> bool:
    """Whether faces rendered here may get a printed frame."""
    return _more_frames.is_on()


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x * (1 - t) + y * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def add_frame(img: np.ndarray, ink: RGB, paper: RGB, rng: np.random.Generator) -> np.ndarray:
    """``img`` (float32 H×W×3) with, at random, its design shrunk inside a margin of paper
    (sometimes tinted with the card's ink) and/or one or two rules at 2–14 px from the edge."""
    if rng.random() >= FRAMED_SHARE:
        return img
    H, W = img.shape[:2]
    out = img
    margin = rng.random() < 0.6
    if margin:
        mx = int(rng.integers(3, 13))
        my = max(3, round(mx * rng.uniform(1.0, 1.6)))
        inner = cv2.resize(img, (W - 2 * mx, H - 2 * my), interpolation=cv2.INTER_AREA)
        out = np.empty_like(img)
        out[:] = _blend(paper, ink, float(rng.uniform(0.0, 0.45)) if rng.random() < 0.5 else 0.0)
        out[my : H - my, mx : W - mx] = inner
    dark: RGB = (20, 20, 20)
    for _ in range(int(rng.integers(0 if margin else 1, 3))):
        inset = int(rng.integers(2, 15))
        colour = (ink, ink, dark, paper)[int(rng.integers(4))]
        thickness = int(rng.integers(1, 3))
        corners = ((inset, inset), (W - inset - 1, H - inset - 1))
        cv2.rectangle(out, *corners, colour, thickness, cv2.LINE_AA)
    return out
