"""Rendered Wash Dash dryers seen from the table camera, with their true state and zones.

A dryer is a frame with three horizontal bars; pieces hang below a bar and pins clip them to
it, sticking up above the bar. The whole dryer is composed in its own pixel grid, then placed
on a random table with Vision I's compositor, light (colour casts, gradients, glare),
perspective and camera damage (blur, noise, JPEG), so the reader meets the same domain
randomisation as the card models. Each sample also carries the *empty* dryer under nearly
the same light (the reference a game takes when the dryers are cleared between rounds) and
calibration zones drawn the way a family would draw them: a little off.

States follow the shapes of the deck's task cards (WD-5), per bar: one piece with one pin
(fig. 4a), one piece held by two pins (4b), two pieces sharing one pin (4c), one piece on
three pins (T45, T46) and three pieces on one pin (T47, T48); mixed, partial and empty dryers.
``random_state`` draws the figures' shapes only unless told otherwise (``SHAPES``): the
held-out figure has always been measured on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from referee.washdash.dryer import Dryer, HungPiece
from referee.washdash.pieces import Piece, PinColor
from vision.dryer import profile as P
from vision.render.faces import ink
from vision.render.scenes import FRAME_H, FRAME_W, Canvas, Sprite, _degrade, _light, _perspective
from vision.render.tables import SKIN, occluder, smooth_noise, table
from vision.table.zones import TableLayout, Zone, ZoneKind

DW, DH = 320, 240  # the dryer's own pixel grid


# --- states ---------------------------------------------------------------------------------
# The shapes of task a bar can hold (every card of the deck is made of them, WD-5): one piece
# on one pin, on two pins, two pieces sharing a pin, one piece on three pins, three pieces on
# one pin. A player owns one of each piece and pin, so a three-part shape fills a dryer's pins
# (or pieces) and the other bars stay empty of them.
SHAPES = ("one", "two_pins", "shared", "three_pins", "three_shared")
# ``random_state``'s odds per bar: the rules' figures 4a-4c, as the held-out bench (``python
# -m bench.table dryers``) has drawn them since it was written; its per-shape figures pass
# one shape at a time.
FIGURE_ODDS: Mapping[str, float] = {"one": 0.6, "two_pins": 0.2, "shared": 0.2}


@dataclass
class DryerSample:
    image: np.ndarray  # BGR uint8, FRAME_H×FRAME_W
    empty: np.ndarray  # the same dryer with nothing hung, BGR uint8
    dryer: Dryer
    layout: TableLayout  # seat_0_dryer + seat_0_dryer_bar_1..3, normalised


def random_state(rng: np.random.Generator, odds: Mapping[str, float] = FIGURE_ODDS) -> Dryer:
    """A dryer state the rules allow: per bar a shape of task drawn with ``odds`` (names
    from ``SHAPES``; a shape its parts have run out for is hung as one piece on one pin)."""
    unknown = set(odds) - set(SHAPES)
    if unknown:
        raise ValueError(f"unknown shapes {sorted(unknown)}; use {', '.join(SHAPES)}")
    pieces = list(Piece)
    pins = list(PinColor)
    rng.shuffle(pieces)
    rng.shuffle(pins)
    bars: list[list[HungPiece]] = [[], [], []]
    if rng.random() < 0.06:
        return Dryer()
    free_bars = [0, 1, 2]
    rng.shuffle(free_bars)
    total = sum(odds.values())
    kinds = rng.choice(list(odds), size=3, p=[v / total for v in odds.values()])
    for kind in kinds:
        if not free_bars or not pieces or not pins:
            break
        if rng.random() < 0.15:  # a partial dryer: stop early
            break
        bars[free_bars.pop()] = _shape_of(str(kind), pieces, pins)
    return Dryer(tuple(tuple(b) for b in bars))


_PARTS = {"two_pins": 2, "three_pins": 3, "shared": 2, "three_shared": 3}


def _shape_of(kind: str, pieces: list[Piece], pins: list[PinColor]) -> list[HungPiece]:
    """One bar's pieces of the shape ``kind``, taken from the end of ``pieces`` and ``pins``."""
    n = _PARTS.get(kind, 1)
    if kind.endswith("pins") and len(pins) >= n:
        held = tuple(sorted((pins.pop() for _ in range(n)), key=_pin_order))
        return [HungPiece(pieces.pop(), held)]
    if kind.endswith("shared") and len(pieces) >= n:
        pin = pins.pop()
        return [HungPiece(pieces.pop(), (pin,)) for _ in range(n)]
    return [HungPiece(pieces.pop(), (pins.pop(),))]


def bar_shape(bar: Sequence[HungPiece]) -> str | None:
    """The shape of task (``SHAPES``) of one bar's pieces, None for an empty bar or another
    shape (a piece on two pins sharing one with another: no card asks for it)."""
    if len(bar) == 1:
        return {1: "one", 2: "two_pins", 3: "three_pins"}.get(len(bar[0].pins))
    pins = {p for h in bar for p in h.pins}
    if len(pins) == 1 and all(len(h.pins) == 1 for h in bar):
        return {2: "shared", 3: "three_shared"}.get(len(bar))
    return None


def _pin_order(p: PinColor) -> int:
    return list(PinColor).index(p)


# --- drawing parts ----------------------------------------------------------------------------
def _shape(
    piece: Piece, w: int, h: int, rng: np.random.Generator
) -> tuple[np.ndarray, float, float]:
    """Alpha mask of a piece in a w×h box, and its top edge's extent (x0, x1) as shares of w."""
    a = np.zeros((h, w), np.uint8)
    if piece is Piece.PANTS:
        waist = int(h * rng.uniform(0.18, 0.28))
        cv2.rectangle(a, (int(w * 0.08), 0), (int(w * 0.92), waist), 255, -1)
        gap = rng.uniform(0.04, 0.1)
        cv2.fillPoly(
            a,
            [
                np.int32(
                    [
                        [w * 0.08, waist],
                        [w * (0.5 - gap / 2), waist],
                        [w * (0.47 - gap / 2), h - 1],
                        [w * 0.05, h - 1],
                    ]
                )
            ],
            255,
        )
        cv2.fillPoly(
            a,
            [
                np.int32(
                    [
                        [w * (0.5 + gap / 2), waist],
                        [w * 0.92, waist],
                        [w * 0.95, h - 1],
                        [w * (0.53 + gap / 2), h - 1],
                    ]
                )
            ],
            255,
        )
        top = (0.08, 0.92)
    elif piece is Piece.DRESS:
        t0, t1 = rng.uniform(0.15, 0.22), rng.uniform(0.78, 0.85)
        waist = h * rng.uniform(0.3, 0.45)
        cv2.fillPoly(
            a,
            [
                np.int32(
                    [
                        [w * t0, 0],
                        [w * t1, 0],
                        [w * (t1 - 0.03), waist],
                        [w, h - 1],
                        [0, h - 1],
                        [w * (t0 + 0.03), waist],
                    ]
                )
            ],
            255,
        )
        top = (t0, t1)
    else:  # shirt: a T with sleeves
        sl = h * rng.uniform(0.3, 0.45)
        cv2.rectangle(a, (int(w * 0.2), 0), (int(w * 0.8), h - 1), 255, -1)
        cv2.fillPoly(
            a, [np.int32([[w * 0.2, 0], [0, sl * 0.6], [w * 0.08, sl], [w * 0.2, sl * 0.7]])], 255
        )
        cv2.fillPoly(
            a,
            [np.int32([[w * 0.8, 0], [w - 1, sl * 0.6], [w * 0.92, sl], [w * 0.8, sl * 0.7]])],
            255,
        )
        cv2.ellipse(a, (w // 2, 0), (int(w * 0.1), int(h * 0.07)), 0, 0, 180, 0, -1)
        top = (0.2, 0.8)
    return cv2.GaussianBlur(a, (3, 3), 0).astype(np.float32) / 255, top[0], top[1]


def _fabric(rgb: tuple[int, int, int], h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    img = np.empty((h, w, 3), np.float32)
    img[:] = rgb
    img *= (0.82 + 0.3 * smooth_noise(h, w, rng, 4))[..., None]
    for _ in range(int(rng.integers(0, 4))):  # folds
        x = int(rng.integers(0, w))
        cv2.line(
            img,
            (x, int(h * 0.2)),
            (x + int(rng.integers(-8, 8)), h - 1),
            tuple(float(v) * 0.75 for v in rgb),
            int(rng.integers(1, 3)),
            cv2.LINE_AA,
        )
    return img


def _over(
    dst: np.ndarray, dst_a: np.ndarray, rgb: np.ndarray, a: np.ndarray, x: int, y: int
) -> None:
    """Alpha-composite rgb/a onto dst at (x, y), clipped."""
    h, w = a.shape
    H, W = dst_a.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return
    sa = a[y0 - y : y1 - y, x0 - x : x1 - x][..., None]
    dst[y0:y1, x0:x1] = dst[y0:y1, x0:x1] * (1 - sa) + rgb[y0 - y : y1 - y, x0 - x : x1 - x] * sa
    dst_a[y0:y1, x0:x1] = np.maximum(dst_a[y0:y1, x0:x1], sa[..., 0])


def _pin_sprite(
    color: str, w: int, h: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    rgb = np.empty((h, w, 3), np.float32)
    c = ink(color, rng)
    rgb[:] = c
    rgb *= (0.85 + 0.25 * smooth_noise(h, w, rng, 2))[..., None]
    cv2.line(rgb, (w // 2, 0), (w // 2, h - 1), tuple(v * 0.6 for v in c), 1)  # the prongs' seam
    sy = int(h * rng.uniform(0.45, 0.6))
    g = float(rng.uniform(120, 200))
    cv2.rectangle(rgb, (0, sy), (w - 1, sy + max(1, h // 12)), (g, g, g), -1)  # the spring
    a = np.ones((h, w), np.float32)
    a[0, 0] = a[0, -1] = 0.3
    return rgb, a


def _frame(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[float], int]:
    """The empty dryer: posts, three rods, a foot rail. Unsaturated plastic, metal or wood."""
    kind = rng.choice(["white", "grey", "wood", "dark", "pastel"])
    if kind == "white":
        col = np.array([rng.uniform(215, 250)] * 3)
    elif kind == "grey":
        col = np.array([rng.uniform(110, 190)] * 3)
    elif kind == "wood":
        col = np.array([rng.uniform(170, 215), rng.uniform(140, 175), rng.uniform(95, 130)])
    elif kind == "dark":
        col = np.array([rng.uniform(25, 70)] * 3)
    else:
        base = rng.uniform(170, 235)
        col = base - rng.uniform(0, 35, 3)
    rgb = np.zeros((DH, DW, 3), np.float32)
    a = np.zeros((DH, DW), np.float32)
    post = int(rng.integers(8, 14))
    rod = int(rng.integers(4, 8))
    bars = [DH * r + rng.normal(0, 2) for r in P.BAR_ROWS]
    mask = np.zeros((DH, DW), np.uint8)
    cv2.rectangle(mask, (2, 0), (2 + post, DH - 1), 255, -1)
    cv2.rectangle(mask, (DW - 3 - post, 0), (DW - 3, DH - 1), 255, -1)
    for y in bars:
        cv2.rectangle(mask, (2, int(y - rod / 2)), (DW - 3, int(y + rod / 2)), 255, -1)
    cv2.rectangle(mask, (0, DH - 8), (DW - 1, DH - 1), 255, -1)
    a = mask.astype(np.float32) / 255
    rgb[:] = col
    rgb *= (0.85 + 0.25 * smooth_noise(DH, DW, rng, 3))[..., None]
    # a rod is round: a highlight along its top
    for y in bars:
        cv2.line(
            rgb,
            (2, int(y - rod / 4)),
            (DW - 3, int(y - rod / 4)),
            tuple(float(min(255, v * 1.15 + 20)) for v in col),
            1,
        )
    return rgb, a, bars, rod


# A piece on three pins is spread along its bar to take them: drawn as wide as pieces come.
SPREAD = (0.28, P.PIECE_WIDTH[1])
# Where a piece's pins clip its top edge (shares of the edge), per number of pins; the first
# range is the one pin's, as drawn since the renderer was written.
PIN_SPOTS = {
    2: ((0.12, 0.3), (0.7, 0.88)),
    3: ((0.06, 0.18), (0.44, 0.56), (0.82, 0.94)),
}


@dataclass(frozen=True)
class Drawn:
    """A part ``_hang`` drew on bar ``bar`` (0-based), in the dryer's own pixel grid: a piece
    (``x``: its top edge's extent) or a pin (``x``: its extent), named by its colour (a
    colour names one piece and one pin). ``layer``: the order it was drawn in (later in front)."""

    part: str  # "piece" or "pin"
    color: str
    bar: int
    x: tuple[int, int]
    layer: int


def _hang(
    dryer: Dryer,
    rgb: np.ndarray,
    a: np.ndarray,
    bars: list[float],
    rod: int,
    rng: np.random.Generator,
) -> list[Drawn]:
    """Draw each bar's pieces and their pins onto the dryer; what was drawn, and where."""
    spacing = DH * (P.BAR_ROWS[1] - P.BAR_ROWS[0])
    drawn: list[Drawn] = []
    for b, bar in enumerate(dryer.bars):
        if not bar:
            continue
        top_y = int(bars[b] - rod / 2)
        wide = SPREAD if len(bar[0].pins) >= 3 else P.PIECE_WIDTH
        sizes = [
            (int(DW * rng.uniform(*wide)), int(spacing * rng.uniform(*P.PIECE_HEIGHT))) for _ in bar
        ]
        shapes = [_shape(h.piece, w, hh, rng) for h, (w, hh) in zip(bar, sizes, strict=True)]
        pw = int(DW * rng.uniform(*P.PIN_WIDTH))
        ph = int(DH * rng.uniform(*P.PIN_HEIGHT))
        if len(bar) == 1:
            xs, stack = [int(rng.uniform(_LO_X, _HI_X - sizes[0][0]))], [0]
            pins = _pins_on(bar[0], xs[0], sizes[0][0], shapes[0], rng)
        else:
            xs, pins, stack = _place_sharing(bar, sizes, shapes, pw, rng)
        for k in stack:
            (w, hh), (mask, t0, t1), x = sizes[k], shapes[k], xs[k]
            fabric = _fabric(ink(bar[k].piece.color.value, rng), hh, w, rng)
            _over(rgb, a, fabric, mask, x, top_y)
            edge = (int(x + w * t0), int(x + w * t1))
            drawn.append(Drawn("piece", bar[k].piece.color.value, b, edge, len(drawn)))
        for color, x in pins:
            prgb, pa = _pin_sprite(color, pw, ph, rng)
            _over(rgb, a, prgb, pa, int(x - pw / 2), int(top_y - ph * rng.uniform(*P.PIN_ABOVE)))
            left = int(x - pw / 2)
            drawn.append(Drawn("pin", color, b, (left, left + pw), len(drawn)))
    return drawn


_LO_X, _HI_X = 18, DW - 18  # pieces hang between the posts


def _pins_on(
    hung: HungPiece,
    x: int,
    w: int,
    shape: tuple[np.ndarray, float, float],
    rng: np.random.Generator,
) -> list[tuple[str, int]]:
    """(colour, x centre) of each pin clipping a lone piece's top edge: one in its middle,
    two or three spread along it (in a random order of colours), or none."""
    _, t0, t1 = shape
    edge0, edge1 = x + w * t0, x + w * t1
    if len(hung.pins) == 1:
        lo, hi = edge0 + 0.3 * (edge1 - edge0), edge0 + 0.7 * (edge1 - edge0)
        return [(hung.pins[0].value, int(rng.uniform(lo, hi)))]
    order = list(hung.pins)
    rng.shuffle(order)
    spots = PIN_SPOTS.get(len(order), ())  # none: a piece hung with no pin (TBL-7's tests)
    return [
        (pin.value, int(edge0 + rng.uniform(*spot) * (edge1 - edge0)))
        for pin, spot in zip(order, spots, strict=True)
    ]


def _place_sharing(
    bar: tuple[HungPiece, ...],
    sizes: list[tuple[int, int]],
    shapes: list[tuple[np.ndarray, float, float]],
    pw: int,
    rng: np.random.Generator,
) -> tuple[list[int], list[tuple[str, int]], list[int]]:
    """Pieces sharing one pin: their left xs, the pin (colour, x centre) and the order they
    are drawn in (the last in front). Two overlap at the pin (fig. 4c), the second in front;
    three fan out from it, the outer two clipped by a corner and the middle one by the middle
    of its top edge, stacked in any order (the one at the back may hardly show)."""
    if len(bar) == 2:
        (w0, _), (w1, _) = sizes
        (_, _, t1a), (_, t0b, _) = shapes[0], shapes[1]
        right_a = w0 * t1a - pw * rng.uniform(0.3, 0.6)
        left_b = w1 * t0b + pw * rng.uniform(0.3, 0.6)
        span = right_a + (w1 - left_b)
        x_a = int(rng.uniform(_LO_X, _HI_X - span))
        pin_x = int(x_a + right_a)
        return [x_a, int(pin_x - left_b)], [(bar[0].pins[0].value, pin_x)], [0, 1]
    left, middle, right = (int(k) for k in rng.permutation(3))
    # each piece's reach from the pin, leftwards and rightwards
    reach = {}
    for k, inset in ((left, -1.0), (middle, 0.0), (right, 1.0)):
        (w, _), (_, t0, t1) = sizes[k], shapes[k]
        if inset < 0:  # its top edge's right end just past the pin
            to_pin = w * t1 - pw * rng.uniform(0.3, 0.6)
        elif inset > 0:  # its top edge's left end just before the pin
            to_pin = w * t0 + pw * rng.uniform(0.3, 0.6)
        else:  # the middle of its top edge under the pin
            to_pin = w * (t0 + t1) / 2 + pw * rng.uniform(-0.3, 0.3)
        reach[k] = (to_pin, w - to_pin)
    pin_lo = _LO_X + max(r[0] for r in reach.values())
    pin_hi = _HI_X - max(r[1] for r in reach.values())
    pin_x = int(rng.uniform(pin_lo, max(pin_lo, pin_hi)))
    xs = [int(pin_x - reach[k][0]) for k in range(3)]
    stack = [int(k) for k in rng.permutation(3)]
    return xs, [(bar[0].pins[0].value, pin_x)], stack


# --- the scene ----------------------------------------------------------------------------------
def _zones(
    m: np.ndarray,
    hom: np.ndarray,
    bars: list[float],
    rod: int,
    rng: np.random.Generator,
    sloppy: float,
) -> TableLayout:
    """Calibration zones as a family would draw them on the tablet: a little off."""

    def to_frame(pts: np.ndarray) -> list[tuple[float, float]]:
        p = pts @ m[:, :2].T + m[:, 2]
        p = cv2.perspectiveTransform(p.reshape(1, -1, 2), hom).reshape(-1, 2)
        p += rng.normal(0, sloppy, p.shape) * [FRAME_W, FRAME_H]
        p[:, 0] = np.clip(p[:, 0] / FRAME_W, 0, 1)
        p[:, 1] = np.clip(p[:, 1] / FRAME_H, 0, 1)
        return [(float(x), float(y)) for x, y in p]

    zones = [
        Zone(
            "seat_0_dryer",
            ZoneKind.DRYER,
            tuple(to_frame(np.float64([[0, 0], [DW, 0], [DW, DH], [0, DH]]))),
            0,
        )
    ]
    half = rod / 2 + DH * 0.03
    for b, y in enumerate(bars):
        quad = np.float64([[2, y - half], [DW - 3, y - half], [DW - 3, y + half], [2, y + half]])
        zones.append(
            Zone(f"seat_0_dryer_bar_{b + 1}", ZoneKind.BAR, tuple(to_frame(quad)), 0, b + 1)
        )
    return TableLayout(tuple(zones))


def render_dryer(
    rng: np.random.Generator,
    dryer: Dryer | None = None,
    *,
    sloppy: float = 0.004,
    table_rgb: tuple[int, int, int] | None = None,
    width: float | None = None,
    hand: str | None = None,
    tone: int | None = None,
) -> DryerSample:
    """One 640×480 frame with one dryer (state random unless given).

    ``table_rgb`` lays a plain cloth of that colour instead of a random table, and ``width``
    fixes the dryer's width in the frame (px; random 200-360 otherwise): tests use them to
    stage the hard cases (a pin the colour of the cloth, a small dryer). ``hand`` (one of
    ``HANDS``) holds a hand over the dryer in ``image`` (not in ``empty``), of skin tone
    ``tone`` (an index into ``SKIN``; random otherwise). None of them changes the random
    draws of anything else: the same seed with and without a hand is the same dryer."""
    dryer = dryer if dryer is not None else random_state(rng)
    frame_rgb, frame_a, bars, rod = _frame(rng)
    full_rgb, full_a = frame_rgb.copy(), frame_a.copy()
    _hang(dryer, full_rgb, full_a, bars, rod, rng)
    bg = table(FRAME_H, FRAME_W, rng)
    if table_rgb is not None:
        shade = smooth_noise(FRAME_H, FRAME_W, np.random.default_rng(list(table_rgb)), 6)
        bg = (np.float32(table_rgb) * (0.9 + 0.2 * shade)[..., None]).clip(0, 255)
    drawn_width = float(rng.uniform(200, 360))  # camera height and table size vary
    width = drawn_width if width is None else float(width)
    s = width / DW
    ang = np.radians(rng.normal(0, 3))
    c, si = np.cos(ang) * s, np.sin(ang) * s
    m = np.array([[c, -si, 0.0], [si, c, 0.0]])
    cx = rng.uniform(width / 2 + 10, FRAME_W - width / 2 - 10)
    cy = rng.uniform(DH * s / 2 + 10, FRAME_H - DH * s / 2 - 10)
    m[:, 2] = [cx, cy] - m[:, :2] @ np.array([DW / 2, DH / 2])
    hom = _perspective(rng, rng.uniform(0, 0.04))
    light_seed = int(rng.integers(2**31))
    clutter_seed = int(rng.integers(2**31))
    camera_seed = int(rng.integers(2**31))  # the same camera: same focus and compression
    out = []
    for k, (rgb, a, drift) in enumerate(
        ((full_rgb, full_a, 1.0), (frame_rgb, frame_a, rng.uniform(0.93, 1.07)))
    ):
        canvas = Canvas(bg)
        shadow_rng = np.random.default_rng(light_seed + 1)
        canvas.place(Sprite(rgb, a, "dryer"), m, shadow_rng)
        crng = np.random.default_rng(clutter_seed)
        for _ in range(int(crng.poisson(0.6))):
            orgb, oa = occluder(
                FRAME_H, FRAME_W, crng, str(crng.choice(["mug", "note", "pen", "coin", "phone"]))
            )
            canvas.occlude(orgb, oa * _outside(m, oa.shape), crng)
        if hand is not None and k == 0:  # its own generator: the other draws stay as they are
            hrng = np.random.default_rng(clutter_seed + 1)
            canvas.occlude(*hand_over(m, width, hrng, hand, tone), hrng)
        img = _light(canvas.img, np.random.default_rng(light_seed)) * drift
        img = cv2.warpPerspective(img, hom, (FRAME_W, FRAME_H), borderMode=cv2.BORDER_REFLECT)
        img = img + rng.normal(0, 2.0, img.shape)  # sensor noise differs frame to frame
        img = _degrade(img, np.random.default_rng(camera_seed))
        out.append(cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    layout = _zones(m, hom, bars, rod, rng, sloppy)
    return DryerSample(out[0], out[1], dryer, layout)


# --- a hand over the dryer ---------------------------------------------------------------------
HANDS = ("bare", "sleeve", "phone")  # a bare hand and forearm, a sleeved arm, a phone held


def hand_over(
    m: np.ndarray,
    width: float,
    rng: np.random.Generator,
    kind: str = "bare",
    tone: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A hand held over the dryer placed by ``m`` (``width`` px wide in the frame): (rgb,
    alpha) at frame size, for ``Canvas.occlude``. The palm lies over the dryer or just off
    its edge, fingers pointing in, the forearm running out of the frame the way it came: an
    arm always reaches in from outside the dryer. A family's Wash Dash dryer is about a
    hand wide, so the hand is 0.5-1.1 dryer widths long (a child's to an adult's)."""
    if kind not in HANDS:
        raise ValueError(f"hand must be one of {HANDS}, not {kind!r}")
    skin = np.float32(SKIN[int(rng.integers(len(SKIN))) if tone is None else tone])
    skin = skin * rng.uniform(0.9, 1.08)
    s = width * rng.uniform(0.5, 1.1)  # fingertip to wrist ≈ s
    u, v = rng.uniform(-0.1, 1.1), rng.uniform(-0.1, 1.1)  # the palm, in dryer shares
    palm = np.float64([u * DW, v * DH]) @ m[:, :2].T + m[:, 2]
    ang = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(ang), np.sin(ang)])  # the fingers point this way
    n = np.array([-d[1], d[0]])
    alpha = np.zeros((FRAME_H, FRAME_W), np.float32)

    def line(mask: np.ndarray, a: np.ndarray, b: np.ndarray, thick: float) -> None:
        pa, pb = tuple(int(t) for t in a), tuple(int(t) for t in b)
        cv2.line(mask, pa, pb, 1.0, max(1, int(thick)), cv2.LINE_AA)

    deg = float(np.degrees(ang))
    axes = (int(s * 0.3), int(s * 0.26))
    cv2.ellipse(alpha, tuple(int(t) for t in palm), axes, deg, 0, 360, 1.0, -1, cv2.LINE_AA)
    for k, off in enumerate((-0.21, -0.07, 0.07, 0.21)):
        base = palm + d * s * 0.2 + n * s * off
        line(alpha, base, base + d * s * (0.4 if k in (1, 2) else 0.32), s * 0.11)
    thumb = palm + n * s * 0.28 * rng.choice([-1, 1])
    line(alpha, palm, thumb + d * s * 0.22, s * 0.12)
    elbow = palm - d * 3 * max(FRAME_W, FRAME_H)  # the forearm leaves the frame
    line(alpha, palm, elbow, s * 0.42)
    rgb = np.empty((FRAME_H, FRAME_W, 3), np.float32)
    rgb[:] = skin
    rgb *= (0.82 + 0.3 * smooth_noise(FRAME_H, FRAME_W, rng, 6))[..., None]
    if kind in ("sleeve", "phone"):  # a sleeve from the wrist up, any colour the shop had
        sleeve = np.zeros_like(alpha)
        line(sleeve, palm - d * s * 0.45, elbow, s * 0.55)
        colour = rng.integers(0, 256, 3).astype(np.float32)
        rgb = rgb * (1 - sleeve[..., None]) + colour * sleeve[..., None]
        alpha = np.maximum(alpha, sleeve)
    if kind == "phone":  # held in the palm, screen up: dark glass in a coloured case
        box = cv2.boxPoints(
            (tuple(palm + d * s * 0.15), (s * 0.85, s * 0.45), float(np.degrees(ang)))
        )
        phone = np.zeros_like(alpha)
        cv2.fillPoly(phone, [box.astype(np.int32)], 1.0, cv2.LINE_AA)
        glass = rng.uniform(15, 60, 3).astype(np.float32)
        rgb = rgb * (1 - phone[..., None]) + glass * phone[..., None]
        alpha = np.maximum(alpha, phone)
    return rgb, alpha


def _outside(m: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """1 outside the dryer's footprint, 0 inside: table clutter sits beside the dryer."""
    mask = np.ones(shape, np.float32)
    quad = np.float64([[0, 0], [DW, 0], [DW, DH], [0, DH]]) @ m[:, :2].T + m[:, 2]
    cv2.fillPoly(mask, [quad.astype(np.int32)], 0.0)
    return mask
