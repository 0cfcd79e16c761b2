"""Action-card pictures (skip, reverse, draw 2, hand …) drawn as masks with OpenCV primitives.

Each picture is a list of layers ``(mask, rgb or None)``; None means "the card's ink colour".
Wild-type cards carry their own four colours. ``variant`` changes line weights and details so
two art styles never draw a symbol identically.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.render.fonts import Font, text_mask

S = 200  # drawing canvas; layers are resized by the caller
Layer = tuple[np.ndarray, tuple[int, int, int] | None]
FOUR = ((220, 40, 40), (245, 200, 20), (40, 160, 60), (30, 90, 210))


def _canvas() -> np.ndarray:
    return np.zeros((S, S), np.uint8)


def _arrow(img: np.ndarray, p0, p1, t: int) -> None:
    cv2.arrowedLine(img, p0, p1, 255, t, cv2.LINE_AA, tipLength=0.35)


def _card_outline(img: np.ndarray, cx: int, cy: int, w: int, h: int, ang: float, t: int) -> None:
    box = cv2.boxPoints(((cx, cy), (w, h), ang)).astype(np.int32)
    cv2.fillPoly(img, [box], 0)
    cv2.polylines(img, [box], True, 255, t, cv2.LINE_AA)


def _hand(img: np.ndarray, cx: int, cy: int, s: float, t: int, filled: bool) -> None:
    palm = ((cx, int(cy + 0.25 * s)), (int(0.55 * s), int(0.6 * s)), 0)
    if filled:
        cv2.ellipse(img, palm, 255, -1, cv2.LINE_AA)
    else:
        cv2.ellipse(img, palm, 255, t, cv2.LINE_AA)
    for i, dx in enumerate((-0.2, -0.07, 0.07, 0.2)):
        length = s * (0.42 if i in (1, 2) else 0.36)
        x = int(cx + dx * s)
        cv2.line(img, (x, int(cy)), (x, int(cy - length)), 255, max(t, int(0.1 * s)), cv2.LINE_AA)
    cv2.line(
        img,
        (int(cx - 0.22 * s), int(cy + 0.3 * s)),
        (int(cx - 0.42 * s), int(cy + 0.05 * s)),
        255,
        max(t, int(0.1 * s)),
        cv2.LINE_AA,
    )


def draw_symbol(value: str, font: Font, variant: int, rng: np.random.Generator) -> list[Layer]:
    """Masks (S×S, float 0..1) picturing an action card's symbol."""
    t = int(rng.integers(10, 22))
    img = _canvas()
    layers: list[Layer] = []
    c = S // 2
    if value == "skip":
        cv2.circle(img, (c, c), 70, 255, t, cv2.LINE_AA)
        d = int(70 * math.cos(math.pi / 4))
        cv2.line(img, (c - d, c + d), (c + d, c - d), 255, t, cv2.LINE_AA)
    elif value == "skip2":
        for cx in (c - 45, c + 45):
            cv2.circle(img, (cx, c), 40, 255, max(6, t // 2), cv2.LINE_AA)
            d = int(40 * math.cos(math.pi / 4))
            cv2.line(img, (cx - d, c + d), (cx + d, c - d), 255, max(6, t // 2), cv2.LINE_AA)
    elif value == "reverse":
        if variant % 2:
            _arrow(img, (40, 130), (150, 40), t)
            _arrow(img, (160, 70), (50, 160), t)
        else:
            cv2.ellipse(img, (c, c), (65, 65), 0, 200, 340, 255, t, cv2.LINE_AA)
            cv2.ellipse(img, (c, c), (65, 65), 0, 20, 160, 255, t, cv2.LINE_AA)
            cv2.fillPoly(img, [np.array([[150, 60], [185, 105], [125, 110]], np.int32)], 255)
            cv2.fillPoly(img, [np.array([[50, 140], [15, 95], [75, 90]], np.int32)], 255)
    elif value == "block":
        pts = [
            (c + int(75 * math.cos(a)), c + int(75 * math.sin(a)))
            for a in np.linspace(math.pi / 8, 2 * math.pi + math.pi / 8, 9)[:-1]
        ]
        cv2.fillPoly(img, [np.array(pts, np.int32)], 255)
        cv2.rectangle(img, (c - 50, c - 12), (c + 50, c + 12), 0, -1)
    elif value == "steal":
        for k in range(3):
            _card_outline(img, 70 + k * 8, 110 - k * 8, 60, 90, 0, max(5, t // 2))
        _arrow(img, (110, 110), (185, 40), t)
    elif value == "keep2":
        cv2.rectangle(img, (45, 95), (155, 180), 255, -1)
        cv2.ellipse(img, (c, 95), (40, 50), 0, 180, 360, 255, t, cv2.LINE_AA)
        two = text_mask("2", font, 60)
        y0, x0 = 105, c - two.shape[1] // 2
        region = img[y0 : y0 + two.shape[0], x0 : x0 + two.shape[1]]
        region[:] = (region * (1 - two)).astype(np.uint8)
    elif value in ("draw2", "draw4"):
        n = 2 if value == "draw2" else 4
        for k in range(n):
            ang = (k - (n - 1) / 2) * 18
            _card_outline(img, c + int((k - (n - 1) / 2) * 28), c, 70, 105, ang, max(6, t // 2))
    elif value in ("draw2discard1", "draw4discard3"):
        top, bottom = ("+2", "-1") if value == "draw2discard1" else ("+4", "-3")
        a, b = text_mask(top, font, 70), text_mask(bottom, font, 55)
        for m, y in ((a, 15), (b, 115)):
            w = min(m.shape[1], S - 10)
            x0 = (S - w) // 2
            img[y : y + m.shape[0], x0 : x0 + w] = np.maximum(
                img[y : y + m.shape[0], x0 : x0 + w], (m[:, :w] * 255).astype(np.uint8)
            )
    elif value == "cut":
        cv2.circle(img, (60, 150), 25, 255, max(6, t // 2), cv2.LINE_AA)
        cv2.circle(img, (140, 150), 25, 255, max(6, t // 2), cv2.LINE_AA)
        cv2.line(img, (75, 130), (150, 25), 255, t, cv2.LINE_AA)
        cv2.line(img, (125, 130), (50, 25), 255, t, cv2.LINE_AA)
    elif value == "flip":
        cv2.ellipse(img, (c, c), (70, 40), 0, 30, 330, 255, t, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([[150, 45], [190, 85], [130, 95]], np.int32)], 255)
        _card_outline(img, c, c, 40, 60, 20, max(5, t // 2))
    elif value in ("hithand", "hitnumber", "hitcolor"):
        _hand(
            img,
            c if value == "hithand" else 70,
            95,
            140 if value == "hithand" else 100,
            t,
            filled=bool(variant % 2),
        )
        if value == "hitnumber":
            m = text_mask("#", font, 90)
            w = min(m.shape[1], 80)
            img[60 : 60 + m.shape[0], 110 : 110 + w] = np.maximum(
                img[60 : 60 + m.shape[0], 110 : 110 + w], (m[:, :w] * 255).astype(np.uint8)
            )
        if value == "hitcolor":
            for k, col in enumerate(FOUR):
                dot = _canvas()
                cv2.circle(dot, (150, 40 + k * 40), 17, 255, -1, cv2.LINE_AA)
                layers.append((dot.astype(np.float32) / 255.0, col))
    elif value == "wild":
        rot = float(rng.uniform(-40, 40))
        for k, col in enumerate(FOUR):
            q = _canvas()
            if variant % 2:
                cv2.ellipse(q, (c, c), (60, 85), rot, k * 90, (k + 1) * 90, 255, -1, cv2.LINE_AA)
            else:
                cx = c + (-35 if k % 2 == 0 else 35)
                cy = c + (-35 if k < 2 else 35)
                cv2.circle(q, (cx, cy), 32, 255, -1, cv2.LINE_AA)
            layers.append((q.astype(np.float32) / 255.0, col))
        ring = _canvas()
        cv2.ellipse(ring, (c, c), (66, 92), rot, 0, 360, 255, 6, cv2.LINE_AA)
        layers.append((ring.astype(np.float32) / 255.0, None))
        return layers
    else:
        raise ValueError(f"no picture for {value!r}")
    return [(img.astype(np.float32) / 255.0, None), *layers]
