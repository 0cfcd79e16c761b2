"""Close-up photos: one card far larger than a table camera sees it, for ``identify``'s zoom.

The table scenes draw cards 34–100 px wide in a 640×480 frame; a family photographing one
card with a phone fills much of the picture with it. This draws that: one worn face with
rounded corners, turned by ``angle``, ``height`` pixels tall, on a random table top.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render.faces import CARD_H, CARD_W, card_alpha, render_face, wear
from vision.render.scenes import FRAME_H, FRAME_W
from vision.render.tables import table


def render_close_up(
    color: str | None,
    value: str,
    style: str,
    rng: np.random.Generator,
    *,
    height: float,
    angle: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """A BGR 640×480 photo of one card ``height`` px tall, centred and turned by ``angle``
    degrees, and the card's four corners in the photo (4×2)."""
    face = wear(render_face(color, value, style, rng), rng)
    alpha = card_alpha(rng)
    scale = height / CARD_H
    m = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, scale)
    m[:, 2] += (FRAME_W / 2 - CARD_W / 2, FRAME_H / 2 - CARD_H / 2)
    size = (FRAME_W, FRAME_H)
    warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    photo = table(FRAME_H, FRAME_W, rng) * (1 - a) + warped * a
    corners = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float64)
    quad = corners @ m[:, :2].T + m[:, 2]
    bgr = np.clip(photo, 0, 255).astype(np.uint8)[..., ::-1]
    return np.ascontiguousarray(bgr), quad
