"""Top-down table scenes with domain randomisation, and their labels.

A scene is composed from generic *sprites* (an RGB image, an alpha mask, a label) placed by
affine maps; occlusion is tracked in an id buffer so each label knows how much of its object
is still visible. The same compositor can place other pieces later (Wash Dash clothes, pins,
the dryer) by handing it other sprites.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.decks import DeckProfile
from vision.render.faces import CARD_H, CARD_W, card_alpha, render_back, render_face, wear
from vision.render.tables import occluder, table
from vision.runtime.corners import CORNER_H, CORNER_W

FRAME_W, FRAME_H = 640, 480
MIN_VISIBLE = 0.4  # a card less visible than this is not labelled (it is a pile's edge)


@dataclass
class Sprite:
    rgb: np.ndarray  # float32 h×w×3, 0..255
    alpha: np.ndarray  # float32 h×w, 0..1
    kind: str  # detector class: "card" or "back"
    meta: dict = field(default_factory=dict)


@dataclass
class Placed:
    """A labelled object in a finished frame."""

    kind: str
    quad: np.ndarray  # 4×2 corners in frame pixels, in the object's own order TL, TR, BR, BL
    visible: float
    meta: dict
    # visible fraction of each corner region (CORNER_W × CORNER_H of the card), same order as
    # ``quad``: whether an index printed there can be read at all
    corners_visible: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)


@dataclass
class Scene:
    image: np.ndarray  # uint8 H×W×3 RGB
    objects: list[Placed]


def card_sprite(
    deck: DeckProfile,
    rng: np.random.Generator,
    styles: tuple[str, ...],
    back_p: float = 0.12,
    balanced: bool = False,
) -> Sprite:
    """A random card of ``deck`` (face in a random style, or a back).

    ``balanced`` draws every kind of card equally often (for classifier training) instead of
    as often as the deck holds it (for realistic scenes)."""
    alpha = card_alpha(rng)
    if rng.random() < back_p:
        return Sprite(wear(render_back(rng, deck.back_text), rng), alpha, "back", {})
    if balanced:
        spec = deck.cards[int(rng.integers(len(deck.cards)))]
        value = spec.value
        color = deck.colors[int(rng.integers(len(deck.colors)))] if spec.colored else None
    else:
        full = deck.full_deck()
        color, value = full[int(rng.integers(len(full)))]
    style = styles[int(rng.integers(len(styles)))]
    label = deck.spec(value).label
    face = wear(render_face(color, value, style, rng, label=label), rng)
    return Sprite(face, alpha, "card", {"color": color, "value": value, "style": style})


def _affine(cx: float, cy: float, width: float, angle_deg: float, w: int, h: int) -> np.ndarray:
    s = width / w
    a = np.radians(angle_deg)
    c, si = np.cos(a) * s, np.sin(a) * s
    m = np.array([[c, -si, 0.0], [si, c, 0.0]])
    m[:, 2] = [cx, cy] - m[:, :2] @ np.array([w / 2, h / 2])
    return m


class Canvas:
    """Composites sprites onto a table, keeping an id buffer for occlusion."""

    def __init__(self, background: np.ndarray) -> None:
        self.img = background.astype(np.float32)
        self.ids = np.full(background.shape[:2], -1, np.int32)
        self.items: list[tuple[Sprite, np.ndarray, float]] = []  # sprite, quad, full area

    def place(
        self, sp: Sprite, m: np.ndarray, rng: np.random.Generator, shadow: bool = True
    ) -> None:
        H, W = self.ids.shape
        h, w = sp.alpha.shape
        a = cv2.warpAffine(sp.alpha, m, (W, H), flags=cv2.INTER_LINEAR)
        if shadow:
            off = rng.uniform(1, 5, 2)
            ms = m.copy()
            ms[:, 2] += off
            sh = cv2.warpAffine(sp.alpha, ms, (W, H))
            sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(1.5, 4))[..., None]
            self.img *= 1 - sh * rng.uniform(0.25, 0.5)
        rgb = cv2.warpAffine(sp.rgb, m, (W, H), flags=cv2.INTER_LINEAR)
        self.img = self.img * (1 - a[..., None]) + rgb * a[..., None]
        idx = len(self.items)
        self.ids[a > 0.5] = idx
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        quad = corners @ m[:, :2].T + m[:, 2]
        self.items.append((sp, quad, float((a > 0.5).sum())))

    def occlude(self, rgb: np.ndarray, alpha: np.ndarray, rng: np.random.Generator) -> None:
        sh = cv2.GaussianBlur(np.roll(alpha, (6, 6), (0, 1)), (0, 0), 5)[..., None]
        self.img *= 1 - sh * 0.35
        self.img = self.img * (1 - alpha[..., None]) + rgb * alpha[..., None]
        self.ids[alpha > 0.5] = -2


def _fan(canvas: Canvas, sprites: list[Sprite], rng: np.random.Generator, width: float) -> None:
    n = len(sprites)
    # Each card covers at most half of the one below (issue 5: "fanned cards overlapping up
    # to half"): spread sideways (the usual fan, index strips showing) or, less often, along
    # the cards' length, by half to 0.85 of the card's extent that way. Until round 4 the
    # cards were turned 90° from the sideways spread this step was meant for, so they
    # overlapped along their length by up to two thirds (VIS-8).
    along = bool(rng.random() < 0.3)
    extent = width * (CARD_H / CARD_W) if along else width
    step = extent * rng.uniform(0.5, 0.85)
    ang = rng.uniform(0, 360)
    d = np.array([np.cos(np.radians(ang)), np.sin(np.radians(ang))])
    span = step * (n - 1)
    margin = width * 1.0
    fh, fw = canvas.ids.shape
    lo = np.array([margin, margin]) + np.abs(d) * span / 2
    hi = np.array([fw - margin, fh - margin]) - np.abs(d) * span / 2
    if np.any(hi <= lo):
        return
    center = rng.uniform(lo, hi)
    spread = rng.uniform(0, 8)
    card_ang = ang + (90 if along else 0) + rng.uniform(-15, 15)
    for k, sp in enumerate(sprites):
        c = center + d * (k - (n - 1) / 2) * step
        m = _affine(c[0], c[1], width, card_ang + (k - (n - 1) / 2) * spread, CARD_W, CARD_H)
        canvas.place(sp, m, rng)


def _pile(canvas: Canvas, sprites: list[Sprite], rng: np.random.Generator, width: float) -> None:
    m0 = width * 0.9
    fh, fw = canvas.ids.shape
    cx, cy = rng.uniform(m0, fw - m0), rng.uniform(m0, fh - m0)
    base = rng.uniform(0, 360)
    for sp in sprites:
        j = rng.normal(0, width * 0.08, 2)
        m = _affine(cx + j[0], cy + j[1], width, base + rng.normal(0, 25), CARD_W, CARD_H)
        canvas.place(sp, m, rng)


def _singles(canvas: Canvas, sprites: list[Sprite], rng: np.random.Generator, width: float) -> None:
    m0 = width * 0.9
    fh, fw = canvas.ids.shape
    for sp in sprites:
        cx, cy = rng.uniform(m0, fw - m0), rng.uniform(m0, fh - m0)
        m = _affine(cx, cy, width * rng.uniform(0.95, 1.05), rng.uniform(0, 360), CARD_W, CARD_H)
        canvas.place(sp, m, rng)


# The camera's faults a scene draws, by name. ``render_scene(skip_faults=...)`` still draws
# each skipped fault's random numbers but leaves the image alone, so the table, its cards and
# every other fault come out the same: bench/vision_faults.py measures what each one costs.
FAULTS = ("light", "glare", "blur", "noise", "jpeg")


def _light(
    img: np.ndarray, rng: np.random.Generator, skip: frozenset[str] = frozenset()
) -> np.ndarray:
    H, W = img.shape[:2]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # illumination gradient and vignette
    g = 1 + rng.uniform(-0.35, 0.35) * (xx / W - 0.5) + rng.uniform(-0.35, 0.35) * (yy / H - 0.5)
    r2 = ((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2
    g *= 1 - rng.uniform(0, 0.6) * r2
    lit = img * g[..., None] * rng.uniform(0.55, 1.25)
    # colour cast / white balance (warm tungsten to cool daylight)
    cast = np.array([rng.uniform(0.8, 1.2), rng.uniform(0.88, 1.1), rng.uniform(0.75, 1.2)])
    img = img.astype(np.float64) if "light" in skip else lit * cast
    # glare: bright soft spots that wash out colour
    for _ in range(int(rng.poisson(0.8))):
        spot = np.zeros((H, W), np.float32)
        cv2.ellipse(
            spot,
            (int(rng.integers(W)), int(rng.integers(H))),
            (int(rng.integers(15, 90)), int(rng.integers(10, 60))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        spot = cv2.GaussianBlur(spot, (0, 0), rng.uniform(5, 20))
        strength = rng.uniform(60, 220)
        if "glare" not in skip:
            img = img + spot[..., None] * strength
    return img


def _perspective(rng: np.random.Generator, strength: float) -> np.ndarray:
    src = np.float32([[0, 0], [FRAME_W, 0], [FRAME_W, FRAME_H], [0, FRAME_H]])
    jitter = rng.uniform(-strength, strength, (4, 2)) * [FRAME_W, FRAME_H]
    return cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))


def _degrade(
    img: np.ndarray, rng: np.random.Generator, skip: frozenset[str] = frozenset()
) -> np.ndarray:
    if rng.random() < 0.4:
        sigma = rng.uniform(0.5, 1.8)
        if "blur" not in skip:
            img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.2:  # motion blur
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, rot, (k, k))
        if "blur" not in skip:
            img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    noise = rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    if "noise" not in skip:
        img = img + noise
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        q = int(rng.integers(30, 95))
        if "jpeg" not in skip:
            _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
            img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return img


def corner_quads(quad: np.ndarray) -> list[np.ndarray]:
    """The four corner regions (TL, TR, BR, BL) of a card quad, each a 4×2 quad in the same
    pixels (bilinear in the card's own coordinates)."""
    q = np.asarray(quad, np.float64)

    def at(u: float, v: float) -> np.ndarray:
        return (1 - v) * ((1 - u) * q[0] + u * q[1]) + v * ((1 - u) * q[3] + u * q[2])

    out = []
    for u0, v0 in (
        (0.0, 0.0),
        (1 - CORNER_W, 0.0),
        (1 - CORNER_W, 1 - CORNER_H),
        (0.0, 1 - CORNER_H),
    ):
        u1, v1 = u0 + CORNER_W, v0 + CORNER_H
        out.append(np.array([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)]))
    return out


def visible_fraction(ids: np.ndarray, item: int, quad: np.ndarray) -> float:
    """Share of the pixels inside ``quad`` whose top object is ``item``."""
    H, W = ids.shape
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    inside = mask.astype(bool)
    total = max(float(cv2.contourArea(quad.astype(np.float32))), 1.0)
    return min(1.0, float((ids[y0:y1, x0:x1][inside] == item).sum()) / total)


def render_scene(
    deck: DeckProfile | list[DeckProfile],
    rng: np.random.Generator,
    styles: tuple[str, ...],
    *,
    empty: bool = False,
    max_cards: int = 12,
    skip_faults: frozenset[str] = frozenset(),
    card_width: float | None = None,
) -> Scene:
    """One 640×480 top-down frame of a table with cards (or none), clutter and bad light;
    ``skip_faults`` (names in ``FAULTS``) leaves those camera faults out of the same scene;
    ``card_width`` (px) fixes the cards' size, one camera's (random 34–100 otherwise)."""
    unknown = set(skip_faults) - set(FAULTS)
    if unknown:
        raise ValueError(f"unknown camera fault(s) {sorted(unknown)}; known: {FAULTS}")
    decks = deck if isinstance(deck, list) else [deck]
    dk = decks[int(rng.integers(len(decks)))]
    canvas = Canvas(table(FRAME_H, FRAME_W, rng))
    width = float(rng.uniform(34, 100))  # card width in pixels: camera height varies
    if card_width is not None:  # drawn all the same: the same seed renders the same table
        width = float(card_width)
    if not empty:
        budget = int(rng.integers(1, max_cards + 1))
        while budget > 0:
            mode = rng.choice(["single", "fan", "pile", "backs"], p=[0.4, 0.3, 0.2, 0.1])
            n = min(
                budget, int(rng.integers(1, 4)) if mode == "single" else int(rng.integers(2, 8))
            )
            budget -= n
            if mode == "backs":
                sprites = [
                    Sprite(wear(render_back(rng, dk.back_text), rng), card_alpha(rng), "back")
                    for _ in range(n)
                ]
                _pile(canvas, sprites, rng, width)
                continue
            sprites = [card_sprite(dk, rng, styles) for _ in range(n)]
            {"single": _singles, "fan": _fan, "pile": _pile}[str(mode)](canvas, sprites, rng, width)
    for _ in range(int(rng.poisson(1.6 if empty else 0.7))):
        kind = None if empty or rng.random() < 0.5 else "hand"
        rgb, alpha = occluder(FRAME_H, FRAME_W, rng, kind)
        canvas.occlude(rgb, alpha, rng)
    img = _light(canvas.img, rng, skip_faults)
    ids = canvas.ids
    hom = _perspective(rng, rng.uniform(0, 0.06))
    img = cv2.warpPerspective(img, hom, (FRAME_W, FRAME_H), borderMode=cv2.BORDER_REFLECT)
    ids = cv2.warpPerspective(
        ids.astype(np.float32), hom, (FRAME_W, FRAME_H), flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)
    img = _degrade(img, rng, skip_faults)
    det = np.linalg.det(hom[:2, :2])
    counts = np.bincount(ids[ids >= 0].ravel(), minlength=len(canvas.items))
    placed: list[Placed] = []
    for i, (sp, quad, area) in enumerate(canvas.items):
        q = cv2.perspectiveTransform(quad.reshape(1, 4, 2), hom).reshape(4, 2)
        vis = float(counts[i]) / max(area * det, 1.0)
        if vis >= MIN_VISIBLE:
            corners = tuple(visible_fraction(ids, i, c) for c in corner_quads(q))
            placed.append(Placed(sp.kind, q, min(vis, 1.0), dict(sp.meta), corners))
    return Scene(img, placed)


CROP_CANVAS = 224


def render_card_patch(
    deck: DeckProfile | list[DeckProfile],
    rng: np.random.Generator,
    styles: tuple[str, ...],
    back_p: float = 0.0,
) -> tuple[np.ndarray, Placed]:
    """A small table patch with one target card in the middle, maybe overlapped by others.

    Cheaper than a full frame and used for classifier crops: same light, clutter and damage,
    and the target is covered by up to half, as in a fanned Dash or a pile.
    """
    decks = deck if isinstance(deck, list) else [deck]
    dk = decks[int(rng.integers(len(decks)))]
    n = CROP_CANVAS
    canvas = Canvas(table(n, n, rng))
    width = float(rng.uniform(34, 100))
    below = rng.random() < 0.3
    if below:
        m = _affine(
            n / 2 + rng.normal(0, 10),
            n / 2 + rng.normal(0, 10),
            width,
            rng.uniform(0, 360),
            CARD_W,
            CARD_H,
        )
        canvas.place(card_sprite(dk, rng, styles), m, rng)
    target = card_sprite(dk, rng, styles, back_p=back_p, balanced=True)
    ang = float(rng.uniform(0, 360))
    canvas.place(target, _affine(n / 2, n / 2, width, ang, CARD_W, CARD_H), rng)
    if rng.random() < 0.45:  # a fan neighbour on top covering up to half
        cover = rng.uniform(0.15, 0.5)
        side = 1 if rng.random() < 0.5 else -1
        a = np.radians(ang)
        along = np.array([np.cos(a), np.sin(a)]) * side * width * (1 - cover)
        m = _affine(
            n / 2 + along[0], n / 2 + along[1], width, ang + rng.normal(0, 5), CARD_W, CARD_H
        )
        canvas.place(card_sprite(dk, rng, styles), m, rng)
    if rng.random() < 0.15:
        rgb, alpha = occluder(n, n, rng, "hand")
        canvas.occlude(rgb, alpha, rng)
    img = _degrade(_light(canvas.img, rng), rng)
    sp, quad, area = canvas.items[1 if below else 0]
    vis = float((canvas.ids == (1 if below else 0)).sum()) / max(area, 1.0)
    return img, Placed(sp.kind, quad, min(vis, 1.0), dict(sp.meta))


def render_other_patch(
    deck: DeckProfile | list[DeckProfile], rng: np.random.Generator, styles: tuple[str, ...]
) -> tuple[np.ndarray, Placed]:
    """A card-sized window on clutter or table with no card in it (a detector's false alarm),
    or on the edge of a card, so the classifier can say "other"."""
    decks = deck if isinstance(deck, list) else [deck]
    n = CROP_CANVAS
    canvas = Canvas(table(n, n, rng))
    width = float(rng.uniform(34, 100))
    if rng.random() < 0.3:  # a card's edge, mostly outside the window
        a = rng.uniform(0, 2 * np.pi)
        off = np.array([np.cos(a), np.sin(a)]) * width * rng.uniform(0.9, 1.3)
        m = _affine(n / 2 + off[0], n / 2 + off[1], width, rng.uniform(0, 360), CARD_W, CARD_H)
        canvas.place(card_sprite(decks[0], rng, styles), m, rng)
    for _ in range(int(rng.integers(1, 3))):
        rgb, alpha = occluder(n, n, rng)
        canvas.occlude(rgb, alpha, rng)
    img = _degrade(_light(canvas.img, rng), rng)
    h = width / CARD_W * CARD_H
    quad = np.array(
        [[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2], [-width / 2, h / 2]]
    )
    a = np.radians(rng.uniform(0, 360))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return img, Placed("other", quad @ rot.T + n / 2, 1.0, {})
