"""Rendered table videos with their truth: cards played on a pile, hands passing, a card put
down and taken back, camera shake, a bumped camera, long still stretches.

Built from Vision I's pieces (card faces in any art style, table surfaces, hands, light and
camera damage) so the watcher meets what the card models were trained for. The scene is
composed once per change; a frame only adds the moving hand (with motion blur along its
path), so a long video renders quickly. Light is the same for the whole video (one room),
sensor noise and compression differ frame to frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.decks import DeckProfile
from vision.render.closeups import zoom_in_matrix
from vision.render.faces import CARD_H, CARD_W
from vision.render.scenes import Canvas, Sprite, _affine, _light
from vision.render.tables import SKIN, smooth_noise, table
from vision.runtime.zoom import shrink_on_canvas
from vision.table.frames import Frame
from vision.table.zones import TableLayout, ZoneKind, rectangle
from vision.teach.guide import guide_order
from vision.teach.render import card

W, H = 640, 480
FPS = 30.0
DISCARD = (0.40, 0.30, 0.64, 0.70)
DRAW = (0.12, 0.30, 0.34, 0.70)


def table_layout() -> TableLayout:
    return TableLayout(
        (
            rectangle("draw_pile", ZoneKind.DRAW_PILE, DRAW),
            rectangle("discard_1", ZoneKind.DISCARD, DISCARD),
        )
    )


@dataclass
class Truth:
    plays: list[tuple[int, str]] = field(default_factory=list)  # (frame settled, token)
    kinds: list[str] = field(default_factory=list)  # what each frame shows, for reports
    tops: list[str] = field(default_factory=list)  # the discard pile's top card, per frame
    covered: list[bool] = field(default_factory=list)  # a hand over the discard pile
    centers: list[tuple[float, float]] = field(default_factory=list)  # top card, normalised
    # the camera knocked: (the first frame it shows, dx, dy), the picture's move, normalised
    bumps: list[tuple[int, float, float]] = field(default_factory=list)

    def camera_offset(self, frame: int) -> tuple[float, float]:
        """How far the picture has moved by ``frame`` (normalised), the bumps summed."""
        moves = [(dx, dy) for first, dx, dy in self.bumps if first <= frame]
        return (sum(m[0] for m in moves), sum(m[1] for m in moves))


@dataclass
class Video:
    frames: list[np.ndarray]  # BGR uint8
    truth: Truth
    layout: TableLayout
    fps: float = FPS

    def source(self, start_ns: int = 0) -> Iterator[Frame]:
        for i, img in enumerate(self.frames):
            yield Frame(img, start_ns + round(i * 1e9 / self.fps), i)


def _hand(rng: np.random.Generator, s: float) -> tuple[np.ndarray, np.ndarray]:
    """A hand and forearm pointing up (fingers at the top), rgb and alpha, size ~(3s × s)."""
    h, w = int(s * 3.2), int(s * 1.1)
    a = np.zeros((h, w), np.float32)
    cx, palm_y = w // 2, int(s * 0.75)
    cv2.ellipse(a, (cx, palm_y), (int(s * 0.33), int(s * 0.3)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
    for k, off in enumerate((-0.24, -0.08, 0.08, 0.24)):
        x = int(cx + s * off)
        top = int(palm_y - s * (0.7 if k in (1, 2) else 0.6))
        cv2.line(a, (x, palm_y), (x, top), 1.0, max(2, int(s * 0.12)), cv2.LINE_AA)
    cv2.line(a, (cx, palm_y), (cx, h), 1.0, int(s * 0.5), cv2.LINE_AA)  # forearm
    col = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.85, 1.1)
    rgb = np.empty((h, w, 3), np.float32)
    rgb[:] = col
    rgb *= (0.8 + 0.35 * smooth_noise(h, w, rng, 3))[..., None]
    if rng.random() < 0.5:  # a sleeve
        sleeve = np.zeros((h, w), np.float32)
        cv2.line(sleeve, (cx, int(palm_y + s * 0.9)), (cx, h), 1.0, int(s * 0.62))
        rgb = rgb * (1 - sleeve[..., None]) + rng.integers(0, 256, 3) * sleeve[..., None]
        a = np.maximum(a, sleeve)
    return rgb, a


class _Director:
    def __init__(
        self, deck: DeckProfile, style: str, rng: np.random.Generator, out_size: tuple[int, int]
    ) -> None:
        self.rng = rng
        self.deck = deck
        self.style = style
        self.out_size = out_size
        self.bg = table(H, W, rng)
        # one room light for the whole video: img * gain + glare, from Vision I's model
        seed = int(rng.integers(2**31))
        zero = _light(np.zeros((H, W, 3), np.float32), np.random.default_rng(seed))
        one = _light(np.full((H, W, 3), 100.0, np.float32), np.random.default_rng(seed))
        self.gain, self.glare = (one - zero) / 100.0, zero
        self.width = float(rng.uniform(70, 95))  # card width in pixels
        self.pile: list[tuple[Sprite, np.ndarray]] = []
        self.tokens: list[str] = []
        self._covered = False
        self._pending: str | None = None
        self.draw_pile: list[tuple[Sprite, np.ndarray]] = []
        self.frames: list[np.ndarray] = []
        self.truth = Truth()
        self.blur_px = float(rng.uniform(0, 0.8))
        self.hand_rgb, self.hand_a = _hand(rng, float(rng.uniform(80, 110)))
        self.identities = guide_order(deck)
        self.pile_idents: list[tuple] = []  # the face of each card on the pile, as ``tokens``
        self._base: np.ndarray | None = None
        self.offset = (0.0, 0.0)  # how far the camera has moved, pixels (the picture moves)

    def _pile_matrix(self) -> np.ndarray:
        x1, y1, x2, y2 = DISCARD
        cx = (x1 + x2) / 2 * W + self.rng.normal(0, 6)
        cy = (y1 + y2) / 2 * H + self.rng.normal(0, 6)
        return _affine(cx, cy, self.width, self.rng.normal(0, 20), CARD_W, CARD_H)

    def new_card(self, twin: bool = False) -> tuple[Sprite, str, tuple]:
        """A random card, or with ``twin`` the other copy of the pile's top card (TBL-6):
        its sprite, token and face."""
        from vision.table.labels import card_token

        if twin and self.pile_idents:
            ident = self.pile_idents[-1]
        else:
            ident = self.identities[int(self.rng.integers(len(self.identities)))]
        token = card_token(self.deck.name, *ident) or "?"
        return card(self.deck, ident, self.style, self.rng), token, ident

    def lay(self, sprite: Sprite, token: str, ident: tuple) -> None:
        """Put a card on the discard pile, a little off its middle and turned."""
        self.pile.append((sprite, self._pile_matrix()))
        self.tokens.append(token)
        self.pile_idents.append(ident)
        self._base = None

    def lift(self) -> None:
        """Take the pile's top card back."""
        self.pile.pop()
        self.tokens.pop()
        self.pile_idents.pop()
        self._base = None

    def base(self) -> np.ndarray:
        if self._base is None:
            canvas = Canvas(self.bg)
            for sp, m in self.draw_pile + self.pile:
                canvas.place(sp, m, self.rng)
            self._base = canvas.img
        return self._base

    def emit(self, img: np.ndarray, kind: str, shake: bool = False) -> None:
        out = img * self.gain + self.glare
        if self.offset != (0.0, 0.0):
            m = np.float32([[1, 0, self.offset[0]], [0, 1, self.offset[1]]])
            out = cv2.warpAffine(out, m, (W, H), borderMode=cv2.BORDER_REFLECT)
        if shake:  # the table was bumped: the whole frame smears
            k = 9
            ker = np.zeros((k, k), np.float32)
            ker[k // 2, :] = 1 / k
            out = cv2.filter2D(out, -1, ker)
        elif self.blur_px > 0.3:
            out = cv2.GaussianBlur(out, (0, 0), self.blur_px)
        out = out + self.rng.normal(0, 2.5, out.shape).astype(np.float32)
        out = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
        if self.out_size != (W, H):
            out = cv2.resize(out, self.out_size, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
        self.frames.append(cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out)
        self.truth.kinds.append(kind)
        self.truth.tops.append(self.tokens[-1] if self.tokens else "")
        if self.pile:
            m = self.pile[-1][1]
            c = m[:, :2] @ np.array([CARD_W / 2, CARD_H / 2]) + m[:, 2] + self.offset
            self.truth.centers.append((round(float(c[0]) / W, 4), round(float(c[1]) / H, 4)))
        else:
            self.truth.centers.append((0.0, 0.0))
        self.truth.covered.append(self._covered or shake)
        if self._pending is not None and not (self._covered or shake):
            # a play counts from the first frame its card lies on a clear pile
            self.truth.plays.append((len(self.frames) - 1, self._pending))
            self._pending = None
        self._covered = False

    def still(self, n: int) -> None:
        for _ in range(n):
            self.emit(self.base(), "still")

    def _with_hand(
        self,
        pos: tuple[float, float],
        prev: tuple[float, float],
        carried: Sprite | None,
        card_angle: float,
    ) -> np.ndarray:
        img = self.base().copy()
        canvas = Canvas(img)
        if carried is not None:  # the card is held under the fingertips
            m = _affine(pos[0], pos[1] - 10, self.width, card_angle, CARD_W, CARD_H)
            canvas.place(carried, m, self.rng, shadow=False)
        hh, hw = self.hand_a.shape
        dx, dy = pos[0] - prev[0], pos[1] - prev[1]
        a, rgb = self.hand_a, self.hand_rgb
        speed = float(np.hypot(dx, dy))
        if speed > 4:  # motion blur along the path
            k = min(31, int(speed) | 1)
            ker = np.zeros((k, k), np.float32)
            ker[k // 2, :] = 1 / k
            rot = cv2.getRotationMatrix2D(
                (k / 2 - 0.5, k / 2 - 0.5), -float(np.degrees(np.arctan2(dy, dx))), 1
            )
            ker = cv2.warpAffine(ker, rot, (k, k))
            ker /= max(ker.sum(), 1e-6)
            a = cv2.filter2D(a, -1, ker)
            rgb = cv2.filter2D(rgb, -1, ker)
        m = np.float32([[1, 0, pos[0] - hw / 2], [0, 1, pos[1] - hh * 0.12]])
        aw = cv2.warpAffine(a, m, (W, H))
        rw = cv2.warpAffine(rgb, m, (W, H))
        canvas.img = canvas.img * (1 - aw[..., None]) + rw * aw[..., None]
        x1, y1, x2, y2 = DISCARD
        zone = aw[int(y1 * H) : int(y2 * H), int(x1 * W) : int(x2 * W)]
        self._covered = bool((zone > 0.3).mean() > 0.01)
        return canvas.img

    def _path(self, n: int, start: tuple[float, float], end: tuple[float, float]):
        for i in range(1, n + 1):
            t = 0.5 - 0.5 * np.cos(np.pi * i / n)
            yield (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)

    def _target(self) -> tuple[float, float]:
        x1, y1, x2, y2 = DISCARD
        return (x1 + x2) / 2 * W, (y1 + y2) / 2 * H

    def _entry(self) -> tuple[float, float]:
        return float(self.rng.uniform(0.3, 0.8) * W), H + 40.0

    def play(self, kind: str = "play", keep_frames: int = 0, twin: bool = False) -> None:
        """A hand brings a card to the pile and leaves. ``take_back`` lifts it again after
        ``keep_frames`` clear frames; ``twin`` plays the other copy of the top card."""
        sprite, token, ident = self.new_card(twin)
        entry, target = self._entry(), self._target()
        angle = float(self.rng.normal(0, 20))
        prev = entry
        n_in = int(self.rng.integers(6, 12))
        for pos in self._path(n_in, entry, target):
            self.emit(self._with_hand(pos, prev, sprite, angle), "hand")
            prev = pos
        self.lay(sprite, token, ident)
        if kind == "take_back":
            # lift the hand just clear of the pile for a moment, then take the card back
            hh = self.hand_a.shape[0]
            near = (target[0], DISCARD[3] * H + 0.12 * hh + 25)
            for pos in self._path(2, target, near):
                self.emit(self._with_hand(pos, prev, None, angle), "hand")
                prev = pos
            for _ in range(keep_frames):
                self.emit(self._with_hand(near, near, None, angle), "hand")
            for pos in self._path(3, near, target):
                self.emit(self._with_hand(pos, prev, None, angle), "hand")
                prev = pos
            self.lift()
            for pos in self._path(8, target, self._entry()):
                self.emit(self._with_hand(pos, prev, sprite, angle), "hand")
                prev = pos
            return
        self._pending = token
        for pos in self._path(int(self.rng.integers(6, 12)), target, self._entry()):
            self.emit(self._with_hand(pos, prev, None, angle), "hand")
            prev = pos

    def pass_over(self) -> None:
        """A hand reaches across the table over the pile, without playing."""
        y = self._target()[1] + float(self.rng.normal(0, 30))
        start, end = (-60.0, y + 120), (W + 60.0, y - 60)
        prev = start
        for pos in self._path(int(self.rng.integers(10, 18)), start, end):
            self.emit(self._with_hand(pos, prev, None, 0.0), "hand")
            prev = pos

    def shake(self, n: int = 2) -> None:
        for _ in range(n):
            self.emit(self.base(), "shake", shake=True)

    def bump(self, dx: float, dy: float) -> None:
        """The camera is knocked: from the next frame on the whole picture lies ``dx``, ``dy``
        pixels further, without blur and without a hand (TBL-6: no card was played)."""
        self.offset = (self.offset[0] + dx, self.offset[1] + dy)
        self.truth.bumps.append((len(self.frames), dx / W, dy / H))


def render_video(
    deck: DeckProfile,
    seed: int,
    *,
    style: str = "paper",
    plays: int = 4,
    still: tuple[int, int] = (20, 40),
    size: tuple[int, int] = (W, H),
    twins: float = 0.0,
    bumps: bool = False,
) -> Video:
    """A table video: a starting card, then ``plays`` plays separated by still stretches,
    with hands passing, a card taken back and a bumped table mixed in. ``twins``: the share
    of plays that put the other copy of the top card on it (TBL-6; Deck Dash has two).
    ``bumps``: in the still stretch after each shake the camera also moves by 10–14 px
    across and 4–10 px down or up (the picture moves, nothing is blurred): the same game,
    frame for frame, as without (the bumps draw from their own random numbers)."""
    rng = np.random.default_rng(seed)
    bump_rng = np.random.default_rng([seed, 36])
    d = _Director(deck, style, rng, size)
    back = Sprite(
        np.full((CARD_H, CARD_W, 3), 60, np.float32), np.ones((CARD_H, CARD_W), np.float32), "back"
    )
    x1, y1, x2, y2 = DRAW
    for k in range(5):
        d.draw_pile.append(
            (
                back,
                _affine(
                    (x1 + x2) / 2 * W + k,
                    (y1 + y2) / 2 * H - k,
                    d.width,
                    float(rng.normal(0, 4)),
                    CARD_W,
                    CARD_H,
                ),
            )
        )
    first, token, ident = d.new_card()
    d.lay(first, token, ident)
    d.truth.plays.append((0, token))
    d.still(int(rng.integers(*still)))
    extras = ["pass", "take_back", "shake"]
    for i in range(plays):
        d.play(twin=bool(twins and rng.random() < twins))
        d.still(int(rng.integers(*still)))
        extra = extras[i % len(extras)]
        if extra == "pass":
            d.pass_over()
        elif extra == "take_back":
            d.play("take_back", keep_frames=1)
        else:
            d.shake()
        n = int(rng.integers(*still))
        if bumps and extra == "shake":
            k = int(bump_rng.integers(1, max(2, n)))
            d.still(k)
            sx, sy = bump_rng.choice([-1, 1], 2)
            d.bump(float(sx * bump_rng.uniform(10, 14)), float(sy * bump_rng.uniform(4, 10)))
            n -= k
        d.still(n)
    return Video(d.frames, d.truth, table_layout())


def nearer(video: Video, factor: float) -> Video:
    """The same game seen by a camera ``factor`` times nearer the table (VIS-11's low or
    high camera, end to end): above 1 every frame is cropped round the middle of the piles and
    enlarged back to its size; below 1 it is shrunk amid its mirror images (more table, as a
    camera farther away sees it). The zones and the top card's centres move with it."""
    h, w = video.frames[0].shape[:2]
    if factor >= 1:
        boxes = [video.layout.box(z.name) for z in video.layout.zones]
        cx = (min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2 * w
        cy = (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2 * h
        m = zoom_in_matrix(w, h, np.array([cx, cy]), factor)
        x0, y0 = -m[0, 2] / factor, -m[1, 2] / factor
        frames = [cv2.warpAffine(f, m, (w, h), flags=cv2.INTER_LINEAR) for f in video.frames]
    else:
        shrunk = [shrink_on_canvas(f, factor) for f in video.frames]
        frames = [canvas for canvas, _, _ in shrunk]
        left, top = shrunk[0][2]
        x0, y0 = -left / factor, -top / factor

    def to_view(x: float, y: float) -> tuple[float, float]:
        return ((x * w - x0) * factor / w, (y * h - y0) * factor / h)

    zones = []
    for z in video.layout.zones:
        x1, y1 = to_view(*video.layout.box(z.name)[:2])
        x2, y2 = to_view(*video.layout.box(z.name)[2:])
        box = (max(0.0, x1), max(0.0, y1), min(1.0, x2), min(1.0, y2))
        zones.append(rectangle(z.name, z.kind, box, z.seat, z.bar))
    truth = Truth(
        list(video.truth.plays),
        list(video.truth.kinds),
        list(video.truth.tops),
        list(video.truth.covered),
        [to_view(*c) if c != (0.0, 0.0) else c for c in video.truth.centers],
        [(first, dx * factor, dy * factor) for first, dx, dy in video.truth.bumps],
    )
    return Video(frames, truth, TableLayout(tuple(zones)), video.fps)
