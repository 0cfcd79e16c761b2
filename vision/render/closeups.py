"""Close-up photos: one card far larger than a table camera sees it, for ``identify``'s zoom.

The table scenes draw cards 34–100 px wide in a 640×480 frame; a family photographing one
card with a phone fills much of the picture with it. This draws that: one worn face with
rounded corners, turned by ``angle``, ``height`` pixels tall, on a random table top.
``render_near_table`` draws a table as a camera mounted nearer it sees it (a low camera),
``render_far_table`` as one mounted farther (a high camera).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.decks import all_decks
from vision.render.faces import CARD_H, CARD_W, TRAIN_STYLES, card_alpha, render_face, wear
from vision.render.scenes import FRAME_H, FRAME_W, MIN_VISIBLE, render_scene
from vision.render.tables import table
from vision.runtime.zoom import shrink_on_canvas


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


def zoom_in_matrix(width: int, height: int, centre: np.ndarray, factor: float) -> np.ndarray:
    """The 2×3 affine that crops a ``width``×``height`` frame round ``centre`` (kept inside
    the frame) and enlarges the crop by ``factor`` (≥ 1) back to the frame's size."""
    w, h = width / factor, height / factor
    x0 = float(np.clip(centre[0] - w / 2, 0, width - w))
    y0 = float(np.clip(centre[1] - h / 2, 0, height - h))
    return np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]])


def render_near_table(
    rng: np.random.Generator, factor: float, card_width: float | None = None
) -> tuple[np.ndarray, list[tuple[np.ndarray, str | None, str]]] | None:
    """A rendered table (training styles) cropped round one of its cards and enlarged by
    ``factor`` to the frame's size, as a camera ``factor`` times nearer sees it (cards
    ``card_width`` px wide before, random 34–100 otherwise): (BGR photo,
    [(quad, colour, value)] of the cards whose centre is in it), or None (no card)."""
    scene = render_scene(all_decks(), rng, TRAIN_STYLES, card_width=card_width)
    cards = [o for o in scene.objects if o.kind in ("card", "back") and o.visible >= MIN_VISIBLE]
    if not cards:
        return None
    centre = cards[int(rng.integers(len(cards)))].quad.mean(0)
    m = zoom_in_matrix(FRAME_W, FRAME_H, centre, factor)
    bgr = np.ascontiguousarray(scene.image[..., ::-1])
    photo = cv2.warpAffine(bgr, m, (FRAME_W, FRAME_H), flags=cv2.INTER_CUBIC)
    truth = []
    for o in cards:  # cards whose centre is in the photo
        quad = o.quad @ m[:, :2].T + m[:, 2]
        cx, cy = quad.mean(0)
        if 0 <= cx < FRAME_W and 0 <= cy < FRAME_H:
            truth.append((quad, o.meta.get("color"), o.meta.get("value", "back")))
    return photo, truth


def render_far_table(
    rng: np.random.Generator, factor: float, card_width: float | None = None, capture: int = 1
) -> tuple[np.ndarray, list[tuple[np.ndarray, str | None, str]]] | None:
    """A rendered table (training styles) shrunk by ``factor`` (< 1) amid its mirror images,
    as a camera ``1/factor`` times farther sees cards (``card_width`` as above): (BGR
    photo, [(quad, colour, value)] of the table's own cards), or None (no card). The
    mirrored cards around it are not in the truth: count cards read right, not boxes left
    over. ``capture``: the same view taken with ``capture`` times the pixels a side (the
    table then shrunk by ``factor · capture``, at most 1: no pixel is made up)."""
    if not 0 < factor * capture <= 1:
        raise ValueError(f"a table {factor} times as near, {capture}x the pixels: enlarged")
    scene = render_scene(all_decks(), rng, TRAIN_STYLES, card_width=card_width)
    cards = [o for o in scene.objects if o.kind in ("card", "back") and o.visible >= MIN_VISIBLE]
    if not cards:
        return None
    bgr = np.ascontiguousarray(scene.image[..., ::-1])
    if capture == 1:
        photo, r, (left, top) = shrink_on_canvas(bgr, factor)
    else:  # as shrink_on_canvas, on a canvas ``capture`` times the frame's sides
        r = factor * capture
        sw, sh = round(FRAME_W * r), round(FRAME_H * r)
        left, top = (FRAME_W * capture - sw) // 2, (FRAME_H * capture - sh) // 2
        small = cv2.resize(bgr, (sw, sh), interpolation=cv2.INTER_AREA)
        right, bottom = FRAME_W * capture - sw - left, FRAME_H * capture - sh - top
        photo = cv2.copyMakeBorder(small, top, bottom, left, right, cv2.BORDER_REFLECT_101)
    truth = [
        (o.quad * r + (left, top), o.meta.get("color"), o.meta.get("value", "back")) for o in cards
    ]
    return photo, truth
