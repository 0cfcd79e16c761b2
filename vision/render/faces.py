"""Card faces and backs in many art styles.

Styles differ in layout (full-bleed colour, white paper, dark frame, stripes, oval), fonts,
outlines, shadows, corner indices and print wear, so a model trained on them has to learn
*colour and symbol* rather than one drawing. The ``HELDOUT_STYLES`` are never used for
training: they measure how well the model transfers to a deck it has never seen.
``HELDOUT_STYLE`` (ticket) was held out from the start; round 9 drew printed frames into the
training faces after studying its failures, so ``SECOND_HELDOUT_STYLE`` (halftone), drawn
before any model read it, keeps one measure of transfer that no training choice has seen.
Round 12 added ``THIRD_HELDOUT_STYLE`` (badge) for the validation tables only, so that choices
about transfer are made on a style that is neither trained on nor the evaluation's.
"""

from __future__ import annotations

import colorsys

import cv2
import numpy as np

from vision.decks import NUMBERS
from vision.render.emblems import emblem_mask
from vision.render.fonts import HELDOUT_FONTS, TRAIN_FONTS, Font, text_mask, training_fonts
from vision.render.frames import add_frame, frames_on
from vision.render.glyphs import draw_symbol

CARD_W, CARD_H = 112, 176
TRAIN_STYLES: tuple[str, ...] = (
    "oval",
    "paper",
    "bold",
    "frame",
    "stripes",
    # second training round: more layouts, so that colour and symbol are all that is shared
    "circle",
    "split",
    "corners",
    "gradient",
)
HELDOUT_STYLE = "ticket"
SECOND_HELDOUT_STYLE = "halftone"
THIRD_HELDOUT_STYLE = "badge"
HELDOUT_STYLES: tuple[str, ...] = (HELDOUT_STYLE, SECOND_HELDOUT_STYLE, THIRD_HELDOUT_STYLE)
# Round 13: a training style for new chunks only (``TRAIN_STYLES`` stays as it was, so every
# earlier chunk renders as it did): a random emblem behind the symbol (``emblems.py``)
EMBLEM_STYLE = "emblem"
# the styles round 13's chunks draw from: the emblem style twice as often as each other one
ROUND13_STYLES: tuple[str, ...] = (*TRAIN_STYLES, EMBLEM_STYLE, EMBLEM_STYLE)
ALL_STYLES: tuple[str, ...] = (*TRAIN_STYLES, EMBLEM_STYLE, *HELDOUT_STYLES)

# Hue ranges (degrees) and saturation/value ranges for each printed colour.
_HUES = {"red": (-10, 8), "yellow": (44, 56), "green": (100, 150), "blue": (200, 228)}

RGB = tuple[int, int, int]
Layer = tuple[np.ndarray, RGB | None]


def ink(color: str | None, rng: np.random.Generator) -> RGB:
    """A printed shade of ``color``; colourless cards get a neutral dark ink."""
    if color is None:
        v = float(rng.uniform(0.05, 0.3))
        s = float(rng.uniform(0.0, 0.15))
        h = float(rng.uniform(0, 1))
    else:
        lo, hi = _HUES[color]
        h = (float(rng.uniform(lo, hi)) % 360) / 360
        s = float(rng.uniform(0.65, 1.0))
        v = float(rng.uniform(0.72, 1.0)) if color == "yellow" else float(rng.uniform(0.55, 0.95))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (int(r * 255), int(g * 255), int(b * 255))


def _paper(rng: np.random.Generator) -> RGB:
    v = int(rng.integers(225, 256))
    return (v, v - int(rng.integers(0, 12)), v - int(rng.integers(0, 25)))


def _fit(mask: np.ndarray, h: int, w: int) -> np.ndarray:
    scale = min(h / mask.shape[0], w / mask.shape[1])
    nh, nw = max(2, int(mask.shape[0] * scale)), max(2, int(mask.shape[1] * scale))
    return cv2.resize(mask, (nw, nh), interpolation=cv2.INTER_AREA)


def _reshape(m: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A printed digit's weight and width differ between decks: thicken or thin the strokes
    and condense or widen the glyph (training styles only)."""
    if rng.random() < 0.5:
        k = int(rng.integers(1, 4))
        kernel = np.ones((2 * k + 1, 2 * k + 1), np.uint8)
        m = cv2.dilate(m, kernel) if rng.random() < 0.6 else cv2.erode(m, kernel)
    if rng.random() < 0.5:
        nw = max(2, int(m.shape[1] * rng.uniform(0.7, 1.35)))
        m = cv2.resize(m, (nw, m.shape[0]), interpolation=cv2.INTER_AREA)
    return m


def glyph(
    value: str,
    font: Font,
    variant: int,
    rng: np.random.Generator,
    h: int,
    w: int,
    vary: bool = False,
) -> list[Layer]:
    """Layers picturing ``value`` fitted into an h×w box (``vary``: reshape digits)."""
    if value in NUMBERS:
        m = text_mask(value, font, 120)
        if vary:
            m = _reshape(m, rng)
        if value in ("6", "9"):  # real decks underline 6 and 9 so they read upright
            bar = np.zeros((28, m.shape[1]), np.float32)
            bar[14:26, :] = 1.0
            m = np.vstack([m, bar])
        return [(_fit(m, h, w), None)]
    layers = draw_symbol(value, font, variant, rng)
    # crop all layers to their joint bounding box so symbols fill the box like digits do
    joint = np.max(np.stack([m for m, _ in layers]), axis=0)
    ys, xs = np.nonzero(joint > 0.05)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return [(_fit(m[y0:y1, x0:x1], h, w), c) for m, c in layers]


def paste(
    img: np.ndarray,
    layers: list[Layer],
    cx: float,
    cy: float,
    rgb: RGB,
    *,
    rotate180: bool = False,
    outline: RGB | None = None,
    outline_px: int = 2,
    shadow: bool = False,
) -> None:
    """Composite glyph layers centred at (cx, cy) in ``img`` (float32 H×W×3, 0..255)."""
    for mask, col in layers:
        m = mask[::-1, ::-1] if rotate180 else mask
        h, w = m.shape
        x0, y0 = round(cx - w / 2), round(cy - h / 2)
        pad = outline_px + 3
        big = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
        big[pad : pad + h, pad : pad + w] = m
        bx0, by0 = x0 - pad, y0 - pad
        # clip to the image
        ix0, iy0 = max(bx0, 0), max(by0, 0)
        ix1, iy1 = min(bx0 + big.shape[1], img.shape[1]), min(by0 + big.shape[0], img.shape[0])
        if ix1 <= ix0 or iy1 <= iy0:
            continue
        sub = big[iy0 - by0 : iy1 - by0, ix0 - bx0 : ix1 - bx0]
        region = img[iy0:iy1, ix0:ix1]
        if shadow:
            sh = np.roll(np.roll(cv2.GaussianBlur(sub, (0, 0), 1.5), 2, 0), 2, 1)[..., None]
            region[:] = region * (1 - 0.5 * sh)
        if outline is not None:
            k = np.ones((2 * outline_px + 1, 2 * outline_px + 1), np.uint8)
            o = cv2.dilate(sub, k)[..., None]
            region[:] = region * (1 - o) + np.array(outline, np.float32) * o
        a = sub[..., None]
        region[:] = region * (1 - a) + np.array(col or rgb, np.float32) * a


def _font(rng: np.random.Generator, heldout: bool) -> Font:
    pool = HELDOUT_FONTS if heldout else training_fonts()
    return pool[int(rng.integers(len(pool)))]


def _label_layers(text: str, font: Font, h: int, w: int) -> list[Layer]:
    return [(_fit(text_mask(text, font, 60), h, w), None)]


def render_face(
    color: str | None,
    value: str,
    style: str,
    rng: np.random.Generator,
    label: str = "",
) -> np.ndarray:
    """One card face, float32 H×W×3 in 0..255 (RGB), without rounded corners or wear."""
    W, H = CARD_W, CARD_H
    heldout = style in HELDOUT_STYLES
    font = _font(rng, heldout)
    idx_font = font if rng.random() < 0.6 else _font(rng, heldout)
    variant = int(rng.integers(0, 4))
    c = ink(color, rng)
    white: RGB = _paper(rng)
    img = np.empty((H, W, 3), np.float32)
    big_h = int(H * rng.uniform(0.36, 0.5))
    big_w = int(W * rng.uniform(0.62, 0.8))
    idx_h, idx_w = int(H * rng.uniform(0.11, 0.16)), int(W * rng.uniform(0.2, 0.3))
    mx, my = W * rng.uniform(0.13, 0.2), H * rng.uniform(0.1, 0.14)
    big = glyph(value, font, variant, rng, big_h, big_w, vary=not heldout)
    small = glyph(value, idx_font, variant, rng, idx_h, idx_w, vary=not heldout)
    show_label = bool(label) and rng.random() < 0.5

    if style == "oval":
        img[:] = white
        b = int(rng.integers(4, 9))
        cv2.rectangle(img, (b, b), (W - b - 1, H - b - 1), c, -1)
        oval = np.zeros((H, W), np.float32)
        cv2.ellipse(
            oval,
            (W // 2, H // 2),
            (int(W * 0.36), int(H * 0.46)),
            float(rng.uniform(20, 40)),
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        img[:] = img * (1 - oval[..., None]) + np.array(white, np.float32) * oval[..., None]
        paste(
            img,
            big,
            W / 2,
            H / 2,
            c,
            outline=(20, 20, 20),
            outline_px=int(rng.integers(1, 4)),
            shadow=bool(rng.random() < 0.5),
        )
        for rot, (x, y) in ((False, (mx + 2, my + 2)), (True, (W - mx - 2, H - my - 2))):
            paste(img, small, x, y, white, rotate180=rot, outline=(20, 20, 20), outline_px=1)
    elif style == "paper":
        img[:] = white
        inset = int(rng.integers(3, 8))
        cv2.rectangle(
            img,
            (inset, inset),
            (W - inset - 1, H - inset - 1),
            c,
            int(rng.integers(1, 4)),
            cv2.LINE_AA,
        )
        cy = H / 2 - (8 if show_label else 0)
        paste(img, big, W / 2, cy, c, shadow=bool(rng.random() < 0.3))
        for rot, (x, y) in ((False, (mx + 2, my + 2)), (True, (W - mx - 2, H - my - 2))):
            paste(img, small, x, y, c, rotate180=rot)
        if show_label:
            paste(img, _label_layers(label, font, 10, int(W * 0.8)), W / 2, H * 0.82, c)
    elif style == "bold":
        img[:] = c
        fg: RGB = white if rng.random() < 0.6 else (15, 15, 15)
        paste(
            img,
            big,
            W / 2,
            H / 2,
            fg,
            outline=(15, 15, 15) if fg == white else white,
            outline_px=int(rng.integers(1, 4)),
        )
        r = int(max(idx_h, idx_w) * 0.62)
        for rot, (x, y) in ((False, (mx + 3, my + 3)), (True, (W - mx - 3, H - my - 3))):
            cv2.circle(img, (int(x), int(y)), r, white, -1, cv2.LINE_AA)
            paste(
                img,
                glyph(value, idx_font, variant, rng, int(r * 1.2), int(r * 1.2)),
                x,
                y,
                c,
                rotate180=rot,
            )
    elif style == "frame":
        dark: RGB = tuple(int(v) for v in rng.integers(10, 50, 3))  # type: ignore[assignment]
        img[:] = dark
        m = int(rng.integers(8, 16))
        inner = np.zeros((H, W), np.uint8)
        cv2.rectangle(inner, (m, int(m * 1.6)), (W - m, H - int(m * 1.6)), 255, -1)
        inner = cv2.GaussianBlur(inner, (5, 5), 0).astype(np.float32)[..., None] / 255
        img[:] = img * (1 - inner) + np.array(c, np.float32) * inner
        paste(img, big, W / 2, H / 2, white, outline=dark, outline_px=int(rng.integers(1, 3)))
        for rot, (x, y) in ((False, (mx, my * 0.7)), (True, (W - mx, H - my * 0.7))):
            paste(img, small, x, y, c if color else white, rotate180=rot)
    elif style == "stripes":
        img[:] = white
        band = np.zeros((H, W), np.float32)
        ang = float(rng.uniform(-35, 35))
        cv2.ellipse(
            band,
            (W // 2, H // 2),
            (W, int(H * rng.uniform(0.2, 0.3))),
            ang,
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        img[:] = img * (1 - band[..., None]) + np.array(c, np.float32) * band[..., None]
        fg2: RGB = (15, 15, 15) if rng.random() < 0.5 else white
        paste(
            img,
            big,
            W / 2,
            H / 2,
            fg2,
            outline=c if fg2 == white else white,
            outline_px=2,
            shadow=True,
        )
        for rot, (x, y) in ((False, (mx + 2, my + 2)), (True, (W - mx - 2, H - my - 2))):
            paste(img, small, x, y, c, rotate180=rot)
    elif style == "ticket":
        tint = np.array(c, np.float32) * 0.25 + np.array(white, np.float32) * 0.75
        img[:] = tint
        for k, t in ((4, 2), (9, 1)):
            cv2.rectangle(img, (k, k), (W - k - 1, H - k - 1), c, t, cv2.LINE_AA)
        cv2.rectangle(img, (9, int(H * 0.78)), (W - 10, H - 10), c, -1)
        paste(img, big, W / 2, H * 0.43, c, outline=white, outline_px=1)
        tiny = glyph(value, idx_font, variant, rng, int(H * 0.1), int(W * 0.2))
        for x, y in ((W * 0.2, H * 0.1), (W * 0.8, H * 0.1)):
            paste(img, tiny, x, y, c)
        paste(img, tiny, W / 2, H * 0.87, white)
    elif style == "halftone":
        _style_halftone(img, (font, idx_font), value, variant, c, white, rng)
    elif style == "badge":
        _style_badge(img, (font, idx_font), value, variant, c, white, rng)
    elif style in _MORE_STYLES:
        _MORE_STYLES[style](img, big, small, c, white, (mx, my), rng)
    else:
        raise ValueError(f"unknown style {style!r}")
    if frames_on() and not heldout:
        img = add_frame(img, c, white, rng)
    return img


_Corner = tuple[float, float]


def _corner_points(W: int, H: int, m: _Corner, inset: float = 2) -> tuple[tuple, tuple]:
    mx, my = m
    return ((False, (mx + inset, my + inset)), (True, (W - mx - inset, H - my - inset)))


def _style_circle(img, big, small, c, white, m, rng) -> None:
    """Colour card, a white disc in the middle holding the coloured symbol."""
    H, W = img.shape[:2]
    img[:] = c
    r = int(W * rng.uniform(0.38, 0.46))
    cv2.circle(img, (W // 2, H // 2), r, white, -1, cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.circle(img, (W // 2, H // 2), r, (20, 20, 20), int(rng.integers(1, 4)), cv2.LINE_AA)
    paste(img, big, W / 2, H / 2, c, outline=(20, 20, 20) if rng.random() < 0.4 else None)
    for rot, (x, y) in _corner_points(W, H, m):
        paste(img, small, x, y, white, rotate180=rot)


def _style_split(img, big, small, c, white, m, rng) -> None:
    """Half colour, half paper, split on a slant; the symbol straddles the line."""
    H, W = img.shape[:2]
    img[:] = white
    y0, y1 = H * rng.uniform(0.35, 0.65), H * rng.uniform(0.35, 0.65)
    poly = np.array([[0, 0], [W, 0], [W, y1], [0, y0]], np.int32)
    if rng.random() < 0.5:
        poly = np.array([[0, H], [W, H], [W, y1], [0, y0]], np.int32)
    cv2.fillPoly(img, [poly], c, cv2.LINE_AA)
    dark = (15, 15, 15)
    paste(img, big, W / 2, H / 2, dark if rng.random() < 0.5 else white, outline=c, outline_px=2)
    for rot, (x, y) in _corner_points(W, H, m):
        paste(img, small, x, y, dark, rotate180=rot, outline=white, outline_px=1)


def _style_corners(img, big, small, c, white, m, rng) -> None:
    """Paper card with coloured corner blocks; a big coloured symbol, indices in the blocks."""
    H, W = img.shape[:2]
    img[:] = white
    s = int(W * rng.uniform(0.3, 0.42))
    round_ = rng.random() < 0.5
    for rot, (x, y) in _corner_points(W, H, m):
        cx, cy = (0, 0) if not rot else (W, H)
        if round_:
            cv2.circle(img, (cx, cy), int(s * 1.2), c, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(img, (cx - s, cy - s), (cx + s, cy + s), c, -1)
        paste(img, small, x, y, white, rotate180=rot)
    paste(img, big, W / 2, H / 2, c, shadow=bool(rng.random() < 0.5))


def _style_gradient(img, big, small, c, white, m, rng) -> None:
    """Colour shading from light to dark; white symbol with a drop shadow, no outline."""
    H, W = img.shape[:2]
    t = np.linspace(rng.uniform(0.55, 0.8), rng.uniform(1.0, 1.2), H, dtype=np.float32)
    if rng.random() < 0.5:
        t = t[::-1]
    img[:] = np.clip(np.array(c, np.float32)[None, None, :] * t[:, None, None], 0, 255)
    paste(img, big, W / 2, H / 2, white, shadow=True)
    for rot, (x, y) in _corner_points(W, H, m):
        paste(img, small, x, y, white, rotate180=rot)


def _halftone_dots(H: int, W: int, rng: np.random.Generator) -> np.ndarray:
    """A printer's halftone screen: round dots on a turned grid, as a float mask."""
    step = float(rng.uniform(5, 8))
    angle = np.deg2rad(float(rng.uniform(0, 90)))
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    u = xs * np.cos(angle) + ys * np.sin(angle)
    v = -xs * np.sin(angle) + ys * np.cos(angle)
    du = u / step - np.round(u / step)
    dv = v / step - np.round(v / step)
    dist = np.sqrt(du * du + dv * dv) * step
    radius = step * float(rng.uniform(0.3, 0.45))
    return np.clip(radius + 0.5 - dist, 0, 1)


def _style_halftone(img, fonts, value, variant, c, white, rng) -> None:
    """Second held-out style: ink dots over paper, a paper panel with a thin ink rule holding
    the symbol, one index in an ink tab at the top left and a small one at the bottom right."""
    H, W = img.shape[:2]
    dots = _halftone_dots(H, W, rng)[..., None]
    img[:] = np.array(white, np.float32) * (1 - dots) + np.array(c, np.float32) * dots
    pw, ph = int(W * 0.74), int(H * 0.52)
    x0, y0 = (W - pw) // 2, int(H * 0.27)
    cv2.rectangle(img, (x0, y0), (x0 + pw, y0 + ph), white, -1, cv2.LINE_AA)
    cv2.rectangle(img, (x0, y0), (x0 + pw, y0 + ph), c, 1, cv2.LINE_AA)
    font, idx_font = fonts
    big = glyph(value, font, variant, rng, int(ph * 0.82), int(pw * 0.86))
    paste(img, big, W / 2, y0 + ph / 2, c)
    tab = int(H * 0.2)
    cv2.rectangle(img, (0, 0), (int(W * 0.34), tab), c, -1)
    index = glyph(value, idx_font, variant, rng, int(tab * 0.7), int(W * 0.26))
    paste(img, index, W * 0.17, tab / 2, white)
    small = glyph(value, idx_font, variant, rng, int(H * 0.09), int(W * 0.18))
    paste(img, small, W * 0.84, H * 0.9, c, rotate180=True, outline=white, outline_px=1)


def _style_badge(img, fonts, value, variant, c, white, rng) -> None:
    """Third held-out style: paper with a grey double rule, ink bands at top and bottom, a
    six-sided ink badge holding the paper-coloured symbol, and four upright ink indices."""
    H, W = img.shape[:2]
    img[:] = white
    grey = (90, 90, 90)
    cv2.rectangle(img, (3, 3), (W - 4, H - 4), grey, 1, cv2.LINE_AA)
    cv2.rectangle(img, (6, 6), (W - 7, H - 7), grey, 1, cv2.LINE_AA)
    band = int(H * rng.uniform(0.06, 0.09))
    cv2.rectangle(img, (7, 7), (W - 8, 7 + band), c, -1)
    cv2.rectangle(img, (7, H - 8 - band), (W - 8, H - 8), c, -1)
    cx, cy, rx, ry = W / 2, H / 2, W * rng.uniform(0.36, 0.42), H * rng.uniform(0.24, 0.3)
    hexagon = [(cx + rx * np.cos(a), cy + ry * np.sin(a)) for a in np.arange(6) * np.pi / 3]
    cv2.fillPoly(img, [np.array(hexagon, np.int32)], c, cv2.LINE_AA)
    font, idx_font = fonts
    big = glyph(value, font, variant, rng, int(ry * 1.3), int(rx * 1.2))
    paste(img, big, cx, cy, white)
    index = glyph(value, idx_font, variant, rng, int(H * 0.09), int(W * 0.18))
    top, bottom = 7 + band + H * 0.07, H - 8 - band - H * 0.07
    for x, y in ((W * 0.2, top), (W * 0.8, top), (W * 0.2, bottom), (W * 0.8, bottom)):
        paste(img, index, x, y, c)


def _style_emblem(img, big, small, c, white, m, rng) -> None:
    """Round 13: a random emblem (polygon, star, rounded box, ellipse) holding the symbol, on
    paper, on a tint or on full-bleed colour, sometimes with ink bands and a double rule."""
    H, W = img.shape[:2]
    mask, hx, hy = emblem_mask(W, H, rng)
    mode = rng.random()
    dark: RGB = (15, 15, 15)
    ink_emblem = mode < 0.55 or mode >= 0.8
    if mode < 0.55:  # paper card, ink emblem, paper (or dark) symbol, ink indices
        img[:] = white
        fill, fg, idx = c, (white if rng.random() < 0.75 else dark), c
    elif mode < 0.8:  # colour card, paper emblem, ink symbol, paper indices
        img[:] = c
        fill, fg, idx = white, c, white
    else:  # tinted card, ink emblem, paper symbol, ink indices
        img[:] = np.array(c, np.float32) * 0.25 + np.array(white, np.float32) * 0.75
        fill, fg, idx = c, white, c
    if ink_emblem and rng.random() < 0.4:  # ink bands at top and bottom
        band = int(H * rng.uniform(0.05, 0.09))
        cv2.rectangle(img, (0, 0), (W - 1, band), c, -1)
        cv2.rectangle(img, (0, H - 1 - band), (W - 1, H - 1), c, -1)
    if rng.random() < 0.4:  # a double rule
        rule: RGB = (90, 90, 90) if rng.random() < 0.5 else c
        for k in (3, 6):
            cv2.rectangle(img, (k, k), (W - 1 - k, H - 1 - k), rule, 1, cv2.LINE_AA)
    img[:] = img * (1 - mask[..., None]) + np.array(fill, np.float32) * mask[..., None]
    if rng.random() < 0.3:  # an outlined emblem
        edge = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        img[:] = img * (1 - edge[..., None]) + np.array(dark, np.float32) * edge[..., None]
    scale = rng.uniform(0.85, 1.15)
    fitted = [(_fit(layer, int(2 * hy * scale), int(2 * hx * scale)), col) for layer, col in big]
    paste(img, fitted, W / 2, H / 2, fg)
    for rot, (x, y) in _corner_points(W, H, m):
        paste(img, small, x, y, idx, rotate180=rot)


_MORE_STYLES = {
    "circle": _style_circle,
    "split": _style_split,
    "corners": _style_corners,
    "gradient": _style_gradient,
    EMBLEM_STYLE: _style_emblem,
}


def render_back(rng: np.random.Generator, text: str = "") -> np.ndarray:
    """A card back: a dark or coloured pattern with the game's name, as printed backs are."""
    W, H = CARD_W, CARD_H
    base = np.array(rng.integers(0, 120, 3), np.float32)
    img = np.empty((H, W, 3), np.float32)
    img[:] = base
    accent = tuple(int(v) for v in rng.integers(100, 256, 3))
    kind = int(rng.integers(0, 3))
    if kind == 0:
        for k in range(-H, W + H, int(rng.integers(8, 16))):
            cv2.line(img, (k, 0), (k + H, H), accent, 2, cv2.LINE_AA)
    elif kind == 1:
        step = int(rng.integers(10, 18))
        for y in range(0, H, step):
            for x in range(0, W, step):
                cv2.circle(img, (x, y), step // 4, accent, -1, cv2.LINE_AA)
    else:
        cv2.ellipse(img, (W // 2, H // 2), (int(W * 0.4), int(H * 0.45)), 25, 0, 360, accent, -1)
    b = int(rng.integers(3, 9))
    cv2.rectangle(img, (0, 0), (W - 1, H - 1), _paper(rng), b)
    if text:
        f = TRAIN_FONTS[int(rng.integers(len(TRAIN_FONTS)))]
        m = _fit(text_mask(text, f, 60), 30, int(W * 0.8))
        m = np.ascontiguousarray(np.rot90(m)) if rng.random() < 0.5 else m
        paste(img, [(m, None)], W / 2, H / 2, _paper(rng), outline=(0, 0, 0), outline_px=1)
    return img


def wear(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Print wear: faded ink, scratches, stains, grain and a soft print."""
    out = img.copy()
    H, W = out.shape[:2]
    if rng.random() < 0.5:  # faded print
        out = out * rng.uniform(0.75, 1.0) + 255 * rng.uniform(0, 0.2)
    for _ in range(int(rng.integers(0, 5))):  # scratches
        p0 = (int(rng.integers(W)), int(rng.integers(H)))
        p1 = (p0[0] + int(rng.integers(-40, 40)), p0[1] + int(rng.integers(-40, 40)))
        v = float(rng.uniform(150, 255))
        cv2.line(out, p0, p1, (v, v, v), 1, cv2.LINE_AA)
    if rng.random() < 0.3:  # stain
        st = np.zeros((H, W), np.float32)
        cv2.circle(
            st, (int(rng.integers(W)), int(rng.integers(H))), int(rng.integers(5, 25)), 1.0, -1
        )
        st = cv2.GaussianBlur(st, (0, 0), 4)[..., None] * rng.uniform(0.1, 0.35)
        out = out * (1 - st) + np.array([120, 90, 50], np.float32) * st
    out += rng.normal(0, rng.uniform(1, 6), out.shape).astype(np.float32)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    return np.clip(out, 0, 255)


def card_alpha(rng: np.random.Generator) -> np.ndarray:
    """Rounded-corner card mask (float H×W), sometimes with a dog-eared corner."""
    W, H = CARD_W, CARD_H
    r = int(rng.integers(5, 14))
    a = np.zeros((H, W), np.uint8)
    cv2.rectangle(a, (r, 0), (W - r - 1, H - 1), 255, -1)
    cv2.rectangle(a, (0, r), (W - 1, H - r - 1), 255, -1)
    for x, y in ((r, r), (W - r - 1, r), (r, H - r - 1), (W - r - 1, H - r - 1)):
        cv2.circle(a, (x, y), r, 255, -1, cv2.LINE_AA)
    if rng.random() < 0.1:
        k = int(rng.integers(6, 14))
        cv2.fillPoly(a, [np.array([[W - k, 0], [W, 0], [W, k]], np.int32)], 0)
    return a.astype(np.float32) / 255.0
