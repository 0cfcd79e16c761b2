"""Reading a dryer: which piece hangs on which bar, held by which pins → ``Dryer``.

A classical colour-and-geometry reader, not a network (design in docs/VISION-TABLE.md): the
three piece colours and three pin colours are the same saturated red, yellow and blue, every
player owns one of each, and the dryer fixes the geometry. The calibration says where each
bar runs, so the question per bar is "which colours hang *below* this line (pieces) and
which narrow colours stick up *above* it (pins)?". It needs no training, runs in about ten
milliseconds, and every mistake can be explained.

1. Resample the calibrated dryer zone into a canonical ``GRID`` in which every bar is a
   straight row at a fixed height (a sloppy or tilted bar calibration is straightened).
2. With an empty-dryer reference (taken when the dryers are cleared), keep the pixels that
   changed since it: a colour that differs, or a brightness change no cast shadow makes (a
   piece's shadow darkens a yellow cloth but leaves it yellow); each gets the nearest of the
   three hues. Without a reference the table is in the picture too: after a white balance,
   only vivid pixels close to the printed inks count.
3. Per bar: a piece is a solid blob of one colour that hangs from the bar line and reaches
   the rows below it that no pin reaches; a pin is a narrow run of colour in the band just
   above the line (where only pins reach), or a narrow run of another colour on a piece's
   top edge (where a pin the colour of the cloth still shows). A pin holds every piece on
   its bar whose top edge it touches; two pieces on a bar share its pin (fig. 4c, TBL-7).
   A pin in the band that touches no piece holds nothing: the reading is a question (TBL-5),
   and the dryer is not empty (a picture of it taken as the empty dryer would hide that pin
   where it is clipped again, and read phantom pins where it was).
4. A piece with no pin seen is held by the pin of its own colour when that pin is not seen
   anywhere else and could hide there (TBL-7): only a pin on its own colour, against a cloth
   of that colour, vanishes, so the empty-dryer picture must show that colour above the
   piece's top edge. Otherwise the piece may simply hang unpinned: it is asked about.
5. What may hang unseen makes the reading a question (TBL-7): a piece seen nowhere whose
   colour shows in a solid patch among a bar's pieces (the back of three on one pin, T47),
   pieces that overlap on a bar without sharing one pin (no card hangs them so: the sliver of
   a piece behind reads as a pin), a piece on two pins whose own-colour pin could vanish on
   it (three pins on one piece, T45). A piece wholly behind two others leaves nothing to
   see: ``hidden_variants`` lists what no picture can rule out, and the dashboard's referee
   asks rather than judges where it matters (``web/services/referee_dryer.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from referee.washdash.dryer import Dryer, HungPiece
from referee.washdash.pieces import Piece, PinColor
from vision.dryer import profile as P
from vision.table.zones import TableLayout, Zone, ZoneError

GRID = (240, 180)  # canonical dryer image, width × height
# A dryer narrower than this in the frame (px) is read with confidence at most SMALL_CONFIDENCE
# (a question, TBL-9): pins are a few pixels wide there, and wrong readings came out sure.
# Measured with the reference, 60 rendered dryers a width (seed 5678): 200 px 60, 140 px 59,
# 130 px 58, 120 px 56, 110 px 55, 100 px 50, 80 px 36, 40 px 25 read right.
MIN_DRYER_PX = 120
SMALL_CONFIDENCE = 0.5
# A camera nudged after the empty-dryer reference was taken shifts the dryer against it, and
# every edge reads as "changed": a 2 px nudge misread 13 of 60 rendered dryers (seed 5678),
# 4 px 33, most of them "sure". The grid's shift against the reference (phase correlation)
# stays under 1.1 px for 119 of 120 aligned dryers with pieces hung (one 1.85: asked about)
# and is at least 1.54 px for a 2 px nudge (seeds 5678, 424242; runs/r27/dryer/): beyond
# MOVED_PX the reading is a question (SMALL_CONFIDENCE) until a new reference is taken.
MOVED_PX = 1.5
BAR_Y = tuple(round(r * GRID[1]) for r in P.BAR_ROWS)  # canonical row of each bar's line
_SPACING = BAR_Y[1] - BAR_Y[0]
# Rows relative to a bar's line, from the profile's proportions (grid px; see profile.py).
# A pin's top is always ≥ 10 px above the line and it never reaches more than 16 px below; a
# piece's top edge is ~2 px above the line and it always reaches ≥ 22 px below it.
PIN_BAND = (-14, -4)  # only pins (and the table) are here
TOP_EDGE = (-3, 6)  # a piece's top edge, where its pins clip
PIN_EDGE = (1, 6)  # inside a piece's top edge, below a shirt's neckline: a pin or the piece
PIECE_ONLY = 17  # rows at and below line+17 hold pieces, never pins
PIN_REACH = 16  # the lowest row a pin reaches (its solid part ends above line+16-SOLID//2)
PIECE_BOTTOM = 33
HANG = PIN_REACH  # a piece's top row is at most this far below its line (pins hide the rest)
ABOVE = 0.5  # most a piece's colour may cover above its bar (its own pin), no reference
SHADOW_TINT = 0.12  # log-ratio spread between channels above which a change is a colour
RECOLOURED = 0.12  # a colour change this clear counts even when the grey levels barely move
SHADOW_DARKEST = float(np.log(0.45))  # a cast shadow never darkens more than this
SOLID = 9  # px: the thinnest part of a piece that is not a sleeve or a waistband is wider
CLOTH_RING = 1.3  # without a reference: the table seen in this much of the zone's size
CLOTH_BINS = [30, 32]  # hue, saturation bins of the table's colours
CLOTH_SHARE = 0.03  # a colour is the table's when this share of the ring has it
FRINGE = 10  # px: the widest a pin's shadow or colour smear beside it gets
PIN_WIDTH = (6, 30)  # grid px: a pin is 10-17 px wide; blur narrows or widens its run
# Something over the dryer that is not a piece or a pin: a hand, a sleeve, a phone held over
# it. An arm always reaches in from outside the dryer, and nothing that hangs on the dryer
# crosses the zone's top, left or right edge (the posts and the top rail are there), so a
# changed blob that does is foreign. Pieces on bar 3 do reach the bottom edge: there a blob is
# foreign when it rises above bar 3's pins (no piece does) or is wider than any piece.
# Measured on 240 rendered dryers without a hand (seed 31337): a changed run along the top,
# left or right edge is at most 10 px; a hand, sleeve or phone over the dryer leaves one of
# 12-170 px. Along the bottom the bar-3 pieces' blobs start at row ≥ 124 (bar 3 at 144, a
# pin ≤ 20 px above it) and are ≤ 79 px wide.
ARM = 7  # grid px: a changed blob thinner than this is no arm (a renderer's finger: ≥ 13 px)
EDGE = 4  # grid px: the strip along the zone's edges where an arm crosses in
EDGE_RUN = 12  # px of an edge a changed blob covers: something reaches in over it
EDGE_AREA = 150  # px: smaller changed blobs at an edge are noise (a rail's glint: ≤ 45 px)
ABOVE_BAR3 = 24  # a blob at the bottom edge that rises this far above bar 3 is no piece
BOTTOM_WIDEST = 90  # px: … nor one that covers more of the bottom edge than this
# TBL-7: a piece's own-colour pin is assumed only where it could vanish: above the piece's top
# edge (PIN_BAND) the empty-dryer picture and this one both show the piece's colour in at
# least HIDE_SHARE of the rows, over at least HIDE_RUN columns (the narrowest pin). Measured on
# one piece per dryer rendered with its own pin and without it (seeds 9000-9039 per piece,
# other draws equal): pinless read as pinned and sure on a plain grey cloth 120 → 0 of 120,
# on random tables 117 → 22 of 120 (a table of the piece's colour behind its top edge: there
# the camera cannot tell); pinned read right and sure 120 → 120 and 117 → 116. Every pin that
# vanished on the 300 held-out dryers or on cloths of its colour had its colour behind it
# over 41 columns or more.
HIDE_SHARE = 0.5
HIDE_RUN = 10
# What the camera cannot see (TBL-7): a piece behind others, or a piece's own-colour pin. Three
# pieces on one pin (T47, T48) fan out from it, and the one at the back may hardly show: a
# piece seen nowhere whose colour shows in a solid patch (BEHIND_PX grid px, opened 5×5, the
# pins' own columns left out) among a bar's pieces may hang there. Measured on two pieces
# sharing a pin with the third piece off the dryer (seeds 20000-20299): the third colour's
# largest patch at most 92 px (its pin's colour fringing the pieces); on three pieces read as
# two (seeds 30000-30199) 52 of 123 at least 100 px, 38 with none at all (those the referee
# asks about when they are claimed, TBL-7).
BEHIND_PX = 100
LONE_NOTE = "a pin holding nothing"  # TBL-5's words, starting the reading's note
# Without a reference the table's own colours fill the pin band too (checks, stripes), so a
# lone pin must stand alone: its run fills LONE_FILL of the band, its colour covers at most
# LONE_SIDE of the FRINGE columns beside it, and at least LONE_BELOW of the rows just below
# the line (PIN_EDGE), where its jaws grip the bar. Measured on a plain look: empty dryers on
# random tables taken as empty 195 -> 193 of 241 (bench.dryer_plain_look, seed 1000; 241 of
# 241 on a plain cloth, as before); 40 of 40 dryers with their 3 pins left on the bars
# (review 37's scenes, seeds 3000-3039) not empty, with a reference or without.
LONE_FILL, LONE_SIDE, LONE_BELOW = 0.7, 0.1, 0.5
# The dryer emptied between rounds is its new empty picture only when nothing solid changed
# since the old one (``residue``: the largest blob of ``_changed`` after an ARM opening).
# Measured on the same 40 scenes: an empty dryer against its empty picture (new noise, light
# x0.93-1.07) leaves 0 px; a pin left on a bar at least 404 px.
RESIDUE_PX = 60


@dataclass(frozen=True)
class Blob:
    color: str
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 in the grid
    area: int


@dataclass(frozen=True)
class DryerReading:
    dryer: Dryer
    confidence: float
    pieces: tuple[Blob, ...] = ()
    pins: tuple[Blob, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # the picture's shift against the empty-dryer reference (grid px; 0 without one): more
    # than MOVED_PX and the camera moved since the reference was taken
    shift: float = 0.0
    # something that is not a piece or a pin covers the dryer (a hand, a sleeve, a phone):
    # nothing is read (``dryer`` is empty, confidence 0); a tracker treats it as motion
    occluded: bool = False
    # pins clipped to a bar touching no piece (TBL-5: "a pin holding nothing")
    lone_pins: tuple[Blob, ...] = ()
    # grid px of the largest solid change since the empty-dryer picture (0 without one): more
    # than RESIDUE_PX and something is on the dryer, named or not (``leftover``)
    residue: int = 0


def looks_empty(reading: DryerReading) -> bool:
    """Whether a reading shows nothing on the dryer: no piece at all, pinned or not, and no
    pin holding nothing. A piece whose pin is missed is still a piece (TBL-7), and a pin left
    on a bar is still a pin: taken for the empty dryer, a picture with either in it would
    judge every claim on it wrongly (TBL-5)."""
    return not any(reading.dryer.bars) and not reading.pieces and not reading.lone_pins


def hidden_variants(dryer: Dryer) -> list[Dryer]:
    """The dryers a reading of ``dryer`` cannot be told from (TBL-7): the player's piece seen
    nowhere hanging behind two pieces that share a pin (three pieces on one pin, T47 and T48:
    the one at the back may not show at all), or the player's pin seen nowhere on a piece
    held by two (three pins crowd one piece, T45 and T46: one may vanish). Each player owns
    one of each piece and pin (WD-1), so only those can hide."""
    hung = dryer.hung()
    unseen_pieces = [p for p in Piece if p not in {h.piece for _, h in hung}]
    unseen_pins = [c for c in PinColor if c not in {q for _, h in hung for q in h.pins}]
    out = []
    for b, bar in enumerate(dryer.bars):
        for pin in dict.fromkeys(q for h in bar for q in h.pins):
            if sum(pin in h.pins for h in bar) == 2:  # a third piece may hang behind them
                out += [_with(dryer, b, (*bar, HungPiece(p, (pin,)))) for p in unseen_pieces]
        for k, h in enumerate(bar):
            if len(h.pins) == 2:  # a third pin may crowd them
                for pin in unseen_pins:
                    more = HungPiece(h.piece, (*h.pins, pin))
                    out.append(_with(dryer, b, (*bar[:k], more, *bar[k + 1 :])))
    return out


def _with(dryer: Dryer, bar: int, pieces: tuple[HungPiece, ...]) -> Dryer:
    """``dryer`` with bar ``bar`` (0-based) holding ``pieces`` instead."""
    return Dryer(tuple(pieces if b == bar else held for b, held in enumerate(dryer.bars)))


def leftover(reading: DryerReading) -> str | None:
    """What is still on a dryer that shows no piece, said in a few words, or None when
    nothing is: a pin holding nothing, or a change since the empty-dryer picture the reader
    cannot name (more than RESIDUE_PX). A picture with either in it is no empty dryer."""
    if reading.occluded:
        return "something over the dryer"
    if reading.lone_pins:
        return next(n for n in reading.notes if n.startswith(LONE_NOTE))
    if reading.residue > RESIDUE_PX:
        return "a change since its empty picture the camera cannot name"
    return None


def _white_balance(img: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    grey = (hsv[..., 1] < 60) & (hsv[..., 2] > 60) & (hsv[..., 2] < 250)
    if grey.sum() < 0.05 * grey.size:
        return img
    mean = img[grey].reshape(-1, 3).astype(np.float32).mean(0)
    gain = mean.mean() / np.maximum(mean, 1)
    return np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def colour_masks(
    img: np.ndarray,
    min_saturation: int = P.MIN_SATURATION,
    hues: dict[str, tuple[tuple[int, int], ...]] = P.HUE,
) -> dict[str, np.ndarray]:
    """Per colour, the saturated pixels of its hue (uint8 0/255)."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    vivid = (s >= min_saturation) & (v >= P.MIN_VALUE)
    out = {}
    for color, windows in hues.items():
        m = np.zeros(h.shape, bool)
        for lo, hi in windows:
            m |= (h >= lo) & (h <= hi)
        out[color] = ((m & vivid) * 255).astype(np.uint8)
    return out


def _gain(a: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per channel, the median brightness ratio now / reference over well-exposed pixels."""
    gain = np.ones(3, np.float32)
    for c in range(3):
        r, x = ref[::2, ::2, c].ravel(), a[::2, ::2, c].ravel()  # a quarter is plenty
        ok = (r > 40) & (r < 245) & (x < 250)
        if ok.sum() > 0.05 * ok.size:
            gain[c] = float(np.median(x[ok] / r[ok]))
        else:  # a dark picture: the medians still compare like with like
            gain[c] = float(np.median(x)) / max(float(np.median(r)), 1.0)
    return gain


def _runs(on: np.ndarray) -> list[tuple[int, int]]:
    """[x1, x2) of the runs of True in a 1-D array."""
    d = np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))
    return list(zip(np.nonzero(d == 1)[0].tolist(), np.nonzero(d == -1)[0].tolist(), strict=True))


@dataclass
class _Piece:
    color: str
    bar: int
    box: tuple[int, int, int, int]
    area: int
    top: tuple[int, int]  # x extent of its top edge


@dataclass
class DryerReader:
    """Reads one seat's dryer from a frame, given the seat's calibrated zones."""

    layout: TableLayout
    seat: int = 0
    diff_threshold: int = 25  # grey levels: changed since the empty reference
    majority: int = 3  # majority-filter size for the colour masks (odd)

    def __post_init__(self) -> None:
        dryers = [z for z in self.layout.zones if z.kind.value == "dryer" and z.seat == self.seat]
        if not dryers:  # a ZoneError (a ValueError): the layout, not the picture, is at fault
            raise ZoneError(f"seat {self.seat} has no calibrated dryer zone")
        self._dryer = dryers[0]
        bars = self.layout.bars(self.seat)
        if len(bars) != 3:
            raise ZoneError(
                f"seat {self.seat}'s dryer needs three calibrated bars, has {len(bars)}"
            )
        self._bars = bars
        _check_bar_order(self.seat, self._dryer, bars)
        self._reference: np.ndarray | None = None
        self._reference_grey: np.ndarray | None = None  # the reference, for ``shift``
        self._reference_raw: dict[str, np.ndarray] = {}  # its colours, where pins can hide
        # phase correlation's Hanning window over the canonical grid (its size never changes)
        self._window = cv2.createHanningWindow(GRID, cv2.CV_32F)
        self._maps: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None
        self._core = cv2.getStructuringElement(cv2.MORPH_RECT, (SOLID, SOLID))
        self._solid = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        self._arm = cv2.getStructuringElement(cv2.MORPH_RECT, (ARM, ARM))
        self._join = cv2.getStructuringElement(cv2.MORPH_RECT, (PIN_WIDTH[1] // 2 * 2 + 1, 7))

    # --- geometry -----------------------------------------------------------------------------
    def _remap(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Frame coordinates of every canonical grid pixel (computed once per frame size).

        The dryer zone's corners give a homography onto the grid; each bar zone's left and
        right ends give that bar's line there. Per column, canonical rows are spread linearly
        between the lines (and the zone's top and bottom), so every bar lands on its BAR_Y."""
        if self._maps is not None and self._maps[0] == shape:
            return self._maps[1], self._maps[2]
        h, w = shape
        gw, gh = GRID
        hom = _homography(self._dryer, w, h)
        xs = np.arange(gw, dtype=np.float64) + 0.5
        knots_src = [np.zeros(gw), *_bar_lines(self._bars, hom, w, h), np.full(gw, float(gh))]
        knots_dst = [0.0, *(float(y) for y in BAR_Y), float(gh)]
        ys = np.arange(gh, dtype=np.float64) + 0.5
        src_y = np.empty((gh, gw))
        for k in range(len(knots_dst) - 1):
            y0, y1 = knots_dst[k], knots_dst[k + 1]
            sel = (ys >= y0) & (ys < y1) if k < len(knots_dst) - 2 else ys >= y0
            f = ((ys[sel] - y0) / (y1 - y0))[:, None]
            src_y[sel] = knots_src[k][None, :] * (1 - f) + knots_src[k + 1][None, :] * f
        grid_pts = np.stack([np.broadcast_to(xs, (gh, gw)), src_y], -1).reshape(1, -1, 2)
        frame_pts = cv2.perspectiveTransform(grid_pts, np.linalg.inv(hom)).reshape(gh, gw, 2)
        mx = (frame_pts[..., 0] - 0.5).astype(np.float32)
        my = (frame_pts[..., 1] - 0.5).astype(np.float32)
        self._maps = (shape, mx, my)
        return mx, my

    def canonical(self, image: np.ndarray) -> np.ndarray:
        """The dryer zone resampled so that bar b's line is row ``BAR_Y[b]``."""
        mx, my = self._remap(image.shape[:2])
        return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def set_reference(self, empty_image: np.ndarray | None) -> None:
        """The dryer with nothing on it (round start); None forgets it."""
        self._reference = None if empty_image is None else self.canonical(empty_image)
        self._reference_grey = None if self._reference is None else _grey(self._reference)
        self._reference_raw = {} if self._reference is None else self._raw(self._reference)

    # --- pixels -------------------------------------------------------------------------------
    def _changed(self, flat: np.ndarray) -> np.ndarray:
        """Pixels that changed since the empty reference (uint8 0/255)."""
        assert self._reference is not None
        # light drifts between the reference and now: match the reference's gain first
        # (most of the dryer is unchanged, so the median ratio per channel is the light's;
        # read on well-exposed pixels, where a ratio is not noise)
        a = cv2.GaussianBlur(flat, (5, 5), 0).astype(np.float32)
        ref = cv2.GaussianBlur(self._reference, (5, 5), 0).astype(np.float32)
        ref *= _gain(a, ref)
        # per channel planes: reductions over a last axis of 3 are slow in numpy
        an, rn = cv2.split(a), cv2.split(ref)
        diff = np.maximum.reduce([cv2.absdiff(x, r) for x, r in zip(an, rn, strict=True)])
        # A shadow (pieces and pins cast one on the table) darkens every channel alike; a
        # piece or pin changes the colour, or the brightness by more than a shadow can.
        ratio = [np.log((x + 8) / (r + 8)) for x, r in zip(an, rn, strict=True)]
        level = (ratio[0] + ratio[1] + ratio[2]) / 3
        tint = np.maximum.reduce([np.abs(r - level) for r in ratio])
        not_shadow = (tint > SHADOW_TINT) | (level > 0.1) | (level < SHADOW_DARKEST)
        # in a dim light a piece can differ from the table by few grey levels, but in colour
        # (a dark channel is noisy in a log ratio: ask more of it)
        dark = np.minimum.reduce([*an, *rn]) + 8
        recoloured = (tint > np.maximum(RECOLOURED, 6 / dark)) & (diff > 8)
        # not dilated: a dilated mask would let the table's colour fringe a piece
        changed = ((diff > self.diff_threshold) & not_shadow) | recoloured
        return changed.astype(np.uint8) * 255

    def _cloth(self, image: np.ndarray, flat: np.ndarray) -> np.ndarray | None:
        """Without a reference: the grid pixels whose colour is common on the table just
        around the dryer zone (a hue-saturation histogram of that ring, back-projected), so
        a yellow check on the cloth is not taken for a shirt. None if no ring is in view."""
        h, w = image.shape[:2]
        zone = _corners(self._dryer, w, h)
        centre = zone.mean(0)
        ring = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(ring, (centre + (zone - centre) * CLOTH_RING).astype(np.int32), 255)
        cv2.fillConvexPoly(ring, zone.astype(np.int32), 0)
        n = int(np.count_nonzero(ring))
        if n < 500:
            return None
        ranges = [0, 180, 0, 256]
        hist = cv2.calcHist(
            [cv2.cvtColor(image, cv2.COLOR_BGR2HSV)], [0, 1], ring, CLOTH_BINS, ranges
        )
        # a share of the ring's pixels, spread to neighbouring bins (light varies over a table)
        hist = cv2.GaussianBlur(hist / n, (3, 3), 0)
        common = ((hist > CLOTH_SHARE) * 255).astype(np.float32)
        seen = cv2.calcBackProject(
            [cv2.cvtColor(flat, cv2.COLOR_BGR2HSV)], [0, 1], common, ranges, 1
        )
        return seen

    def masks(
        self,
        flat: np.ndarray,
        cloth: np.ndarray | None = None,
        changed: np.ndarray | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Per colour: its pixels that are not the empty dryer or table (new), and all its
        pixels (raw; a pin on a piece is judged against the piece, not the empty dryer).
        ``cloth`` (no reference only): pixels of the table's own colours, left out.
        ``changed``: ``_changed(flat)`` when the caller has it already."""
        if self._reference is None:
            # the table's colours are everywhere: strict hue windows, after a white balance
            raw = colour_masks(_white_balance(flat), P.MIN_SATURATION_ALONE, P.HUE)
            new = raw if cloth is None else {c: m & ~cloth for c, m in raw.items()}
            new = {c: cv2.medianBlur(m, self.majority) for c, m in new.items()}
            raw = {c: cv2.medianBlur(m, self.majority) for c, m in raw.items()}
            return new, raw
        # What changed is a piece or a pin, so its colour needs no strict window: the
        # nearest of the three hues, and a paler colour (glare, a faded print) still counts.
        # No white balance: what looks grey here is often a pale tablecloth, not grey.
        changed = self._changed(flat) if changed is None else changed
        pale = colour_masks(flat, P.MIN_SATURATION_CHANGED, P.HUE_CHANGED)
        new = {c: cv2.medianBlur(m & changed, self.majority) for c, m in pale.items()}
        return new, self._raw(flat)

    def _raw(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Per colour, all its pixels of a canonical picture (with a reference: any table)."""
        raw = colour_masks(flat, P.MIN_SATURATION, P.HUE_CHANGED)
        return {c: cv2.medianBlur(m, self.majority) for c, m in raw.items()}

    # --- reading ------------------------------------------------------------------------------
    def read(self, image: np.ndarray) -> DryerReading:
        flat = self.canonical(image)
        cloth = self._cloth(image, flat) if self._reference is None else None
        changed = None if self._reference is None else self._changed(flat)
        shift = 0.0 if self._reference is None else self.shift(flat)
        # A moved camera changes every edge of the dryer: its reading is asked about below
        # (TBL-9), never taken for a hand. A hand over most of the dryer can shift the phase
        # correlation too (4 of 120 rendered hands, 1.5-2.8 px): asked about as well, so it
        # can never rule a claim either.
        if changed is not None and shift <= MOVED_PX:
            why = self.foreign(changed)
            if why is not None:
                return DryerReading(Dryer(), 0.0, notes=(why,), shift=shift, occluded=True)
        new, raw = self.masks(flat, cloth, changed)
        pieces = self._pieces(new)
        pins, lone = self._pins(new, raw, pieces)
        hideouts = self._hideouts(pieces, raw)
        reading = self._assemble(pieces, pins, hideouts, lone)
        for note in self._unseen(reading, new, hideouts):
            reading = _doubt(reading, note)
        if changed is not None:
            reading = replace(reading, shift=shift, residue=self.residue(changed))
            if shift > MOVED_PX:
                reading = _doubt(
                    reading,
                    f"the camera moved since the empty-dryer picture ({shift:.1f} px): take "
                    "it again — press 'Dryers are empty now' when the dryers are next emptied",
                )
        width = self.width_px(image.shape[:2])
        if width >= MIN_DRYER_PX:
            return reading
        return _doubt(
            reading,
            f"the dryer is only {width:.0f} px wide in the picture (sure from {MIN_DRYER_PX}"
            " px): move the camera nearer or give it more pixels",
        )

    def residue(self, changed: np.ndarray) -> int:
        """The largest solid blob of ``changed`` (grid px): what an ARM opening leaves of a
        change since the empty-dryer picture (a pin, a piece, a sock), not of sensor noise, a
        light drift or the thin edges of a camera moved a little."""
        solid = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._arm)
        n, _, stats, _ = cv2.connectedComponentsWithStats(solid)
        return int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0

    def foreign(self, changed: np.ndarray) -> str | None:
        """Why something that is not a piece or a pin lies over the dryer (a hand, a sleeve,
        a phone held over it), or None: a changed blob that reaches in over the zone's top,
        left or right edge, or over its bottom edge and then higher or wider than a bar-3
        piece (constants EDGE…ABOVE_BAR3). Read against ``changed`` (``_changed``), so a hand
        the colour of a piece is caught too: its arm still comes from outside."""
        gw, gh = GRID
        # opened: thin changes (a rail's glint, a piece's blurred rim, edges a camera moved
        # by under MOVED_PX shifts) are no arm; an arm or a finger is thicker
        solid = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._arm)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(solid)
        for i in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[i])
            if area < EDGE_AREA or (
                x >= EDGE and y >= EDGE and x + w <= gw - EDGE and y + h <= gh - EDGE
            ):
                continue
            blob = lab[y : y + h, x : x + w] == i
            for side, strip in _edges(blob, x, y, gw, gh):
                run = int(np.count_nonzero(strip))
                if run < EDGE_RUN:
                    continue
                if side != "bottom" or y < BAR_Y[2] - ABOVE_BAR3 or run > BOTTOM_WIDEST:
                    return f"something over the dryer reaches in over its {side} edge: a hand?"
        return None

    def shift(self, flat: np.ndarray) -> float:
        """How far (grid px) the canonical picture ``flat`` lies from the empty-dryer
        reference: the dryer's frame and the table around the pieces line up when the camera
        has not moved, whatever hangs on it."""
        assert self._reference_grey is not None
        (dx, dy), _ = cv2.phaseCorrelate(self._reference_grey, _grey(flat), self._window)
        return float(np.hypot(dx, dy))

    def width_px(self, shape: tuple[int, int]) -> float:
        """The dryer zone's width in a frame of ``shape`` (the mean of its top and bottom
        edges, in pixels)."""
        tl, tr, br, bl = _corners(self._dryer, shape[1], shape[0])
        return float(np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2

    def _pieces(self, masks: dict[str, np.ndarray]) -> list[_Piece]:
        """Per colour at most one piece: the largest blob that reaches below any pin."""
        gw, gh = GRID
        min_area = 0.22 * gw * 0.45 * _SPACING * 0.2  # a fifth of the smallest piece
        found: list[_Piece] = []
        for color, m in masks.items():
            best: _Piece | None = None
            for b, line in enumerate(BAR_Y):
                y0, y1 = line + TOP_EDGE[0], min(gh, line + PIECE_BOTTOM)
                # a piece is solid: an opening drops the thin fringes where a colour blends
                # into the table around another piece
                region = cv2.morphologyEx(m[y0:y1], cv2.MORPH_OPEN, self._solid)
                # a pin of another colour can cut a piece in two (a small pair of pants):
                # parts a pin's width apart are one piece
                grouped = cv2.dilate(region, self._join)
                n, lab = cv2.connectedComponents(grouped)
                for i in range(1, n):
                    part = (lab == i) & (region > 0)
                    area = int(part.sum())
                    ys, xs = np.nonzero(part)
                    if area < min_area or y0 + ys.max() < line + PIECE_ONLY:
                        continue
                    # every piece has a solid part (a leg, a body); a fringe of the cloth's
                    # colour around other pieces, however long, has none
                    # (below any pin: a pin's own solid part on a piece of the cloth's colour
                    # is not a piece)
                    core = np.nonzero(cv2.erode(part.astype(np.uint8), self._core).any(1))[0]
                    if not len(core) or y0 + core.max() < line + PIN_REACH - SOLID // 2:
                        continue
                    x, y = int(xs.min()), int(ys.min())
                    bw, bh = int(xs.max()) + 1 - x, int(ys.max()) + 1 - y
                    if bw > 0.45 * gw:  # wider than any piece: the table, not a piece
                        continue
                    if y0 + y > line + HANG:  # it does not hang from the bar: the cloth
                        continue
                    # without a reference the cloth is in the mask: a blob that runs on above
                    # the bar, where only pins reach, is the cloth
                    above = m[line + PIN_BAND[0] : line + PIN_BAND[1] + 1, x : x + bw] > 0
                    if self._reference is None and above.mean() > ABOVE:
                        continue
                    # the top edge's extent, read a little lower too: the pins clipped to
                    # it hide its top rows
                    top_rows = part[: TOP_EDGE[1] - TOP_EDGE[0] + 6]
                    cols = np.nonzero(top_rows.any(0))[0]
                    top = (int(cols.min()), int(cols.max()) + 1) if len(cols) else (x, x + bw)
                    cand = _Piece(color, b, (x, y0 + y, x + bw, y0 + y + bh), area, top)
                    if best is None or cand.area > best.area:
                        best = cand
            if best is not None:
                found.append(best)
        return found

    def _pins(
        self, new: dict[str, np.ndarray], raw: dict[str, np.ndarray], pieces: list[_Piece]
    ) -> tuple[list[tuple[Blob, int]], list[tuple[Blob, int]]]:
        """Pin candidates (blob, bar): narrow runs of new colour just above a bar line, or
        narrow runs of another colour on a piece's top edge; per colour the strongest. And
        the lone pins: runs above a bar line that touch no piece (every one, not a fringe)."""
        cands: dict[str, list[tuple[float, Blob, int]]] = {}
        loose: list[tuple[str, float, Blob, int]] = []

        def add(color: str, frac: np.ndarray, rows: tuple[int, int], b: int, on: list[_Piece]):
            for x1, x2 in _runs(frac >= 0.4):
                if not PIN_WIDTH[0] <= x2 - x1 <= PIN_WIDTH[1] or frac[x1:x2].mean() < 0.55:
                    continue
                area = float(frac[x1:x2].sum())
                blob = Blob(color, (x1, rows[0], x2, rows[1]), round(area * (rows[1] - rows[0])))
                if any(_touches((x1, x2), p.top) for p in on):
                    cands.setdefault(color, []).append((area, blob, b))
                else:
                    loose.append((color, area, blob, b))

        for b, line in enumerate(BAR_Y):
            on_bar = [p for p in pieces if p.bar == b]
            band = (line + PIN_BAND[0], line + PIN_BAND[1] + 1)
            if not on_bar:  # a pin clipped to an empty bar holds nothing
                for color in new:
                    add(color, (new[color][band[0] : band[1]] > 0).mean(0), band, b, on_bar)
                continue
            # just below the line, inside a piece's top edge, only the piece or a pin shows
            # (the empty dryer there is the table, which may be the pin's colour: raw masks)
            edge = (line + PIN_EDGE[0], line + PIN_EDGE[1])
            for color in new:
                add(color, (new[color][band[0] : band[1]] > 0).mean(0), band, b, on_bar)
                # on a piece of its own colour (or beside it) a pin shows only above the line
                if any(p.color == color for p in on_bar):
                    continue
                inside = np.zeros(GRID[0], bool)
                for p in on_bar:
                    inside[p.top[0] : p.top[1]] = True
                frac = (raw[color][edge[0] : edge[1]] > 0).mean(0) * inside
                add(color, frac, edge, b, on_bar)
        # A run narrower than a pin that touches a wider, stronger run of another colour is
        # that pin's fringe: its shadow on a cloth of the run's colour, or a JPEG colour
        # smear (a narrow gap between two pins is one too).
        every = [(c, s, blob, b) for c, items in cands.items() for s, blob, b in items]
        every += loose

        def fringe(c: str, strength: float, blob: Blob, b: int) -> bool:
            x1, x2 = blob.box[0], blob.box[2]
            for oc, os, o, ob in every:
                if ob != b or oc == c or o.box[1] != blob.box[1] or os <= strength:
                    continue
                if x2 - x1 > FRINGE or x2 - x1 >= 0.7 * (o.box[2] - o.box[0]):
                    continue
                if abs(o.box[2] - x1) <= 3 or abs(o.box[0] - x2) <= 3:
                    return True
            return False

        out = []
        for c, items in cands.items():
            kept = [t for t in items if not fringe(c, *t)]
            if kept:
                _, blob, b = max(kept, key=lambda t: t[0])
                out.append((blob, b))
        lone = [(blob, b) for c, s, blob, b in loose if not fringe(c, s, blob, b)]
        if self._reference is None:
            lone = [(blob, b) for blob, b in lone if _stands_alone(new[blob.color], blob, b)]
        return out, lone

    def _hideouts(self, pieces: list[_Piece], raw: dict[str, np.ndarray]) -> frozenset[str]:
        """Colours of the pieces whose own pin could vanish above their top edge (TBL-7): the
        empty-dryer picture shows the piece's colour there (a cloth of that colour) and so
        does this one (a pin would show it too), in HIDE_SHARE of the PIN_BAND rows over
        HIDE_RUN columns or more. Empty without a reference: no pin is assumed then."""
        if not self._reference_raw:
            return frozenset()
        out = set()
        for p in pieces:
            line = BAR_Y[p.bar]
            rows = slice(line + PIN_BAND[0], line + PIN_BAND[1] + 1)
            cols = slice(p.top[0], p.top[1])
            was = (self._reference_raw[p.color][rows, cols] > 0).mean(0) >= HIDE_SHARE
            now = (raw[p.color][rows, cols] > 0).mean(0) >= HIDE_SHARE
            if any(x2 - x1 >= HIDE_RUN for x1, x2 in _runs(was & now)):
                out.add(p.color)
        return frozenset(out)

    def _unseen(
        self, reading: DryerReading, new: dict[str, np.ndarray], hideouts: frozenset[str]
    ) -> list[str]:
        """Why a part may hang on the dryer unseen (TBL-7), each a doubt: a piece seen nowhere
        whose colour shows among a bar's pieces (``_behind``), pieces that overlap on a bar
        without sharing one pin (no task hangs them so: the part between them may be a
        hidden piece, not a pin), a piece on two pins whose own-colour pin is seen nowhere
        and could vanish on it (``_hideouts``: where three pins crowd one piece)."""
        blobs = {b.color: b for b in reading.pieces}
        seen_pins = {pin.color for pin in (*reading.pins, *reading.lone_pins)}
        notes = self._behind(reading, new)
        for b, bar in enumerate(reading.dryer.bars):
            if _overlap_unshared(bar, blobs):
                notes.append(
                    f"the pieces on bar {b + 1} overlap without sharing one pin: one may "
                    "hide another"
                )
            for h in bar:
                own = h.piece.color.value
                if len(h.pins) >= 2 and own not in seen_pins and own in hideouts:
                    notes.append(f"the {own} pin may hide on the {h.piece.label}")
        return notes

    def _behind(self, reading: DryerReading, new: dict[str, np.ndarray]) -> list[str]:
        """A piece seen nowhere whose colour shows in a solid patch of BEHIND_PX among the
        pieces of a bar (below the pins: their own columns are left out down to PIN_REACH):
        it may hang behind them (three pieces on one pin, T47)."""
        unseen = [c for c in P.COLORS if c not in {b.color for b in reading.pieces}]
        out = []
        for b, bar in enumerate(reading.dryer.bars):
            boxes = [p.box for p in reading.pieces if p.color in {h.piece.color.value for h in bar}]
            if not boxes or not unseen:
                continue
            line = BAR_Y[b]
            top = line + TOP_EDGE[0]
            x0 = max(0, min(x[0] for x in boxes) - FRINGE)
            x1 = max(x[2] for x in boxes) + FRINGE
            for color in unseen:
                patch = new[color][top : line + PIECE_BOTTOM].copy()
                for pin in (*reading.pins, *reading.lone_pins):
                    if line + PIN_BAND[0] <= pin.box[1] <= line + PIN_EDGE[0]:  # this bar's
                        patch[
                            : PIN_REACH - TOP_EDGE[0], max(0, pin.box[0] - 3) : pin.box[2] + 3
                        ] = 0
                solid = cv2.morphologyEx(patch[:, x0:x1], cv2.MORPH_OPEN, self._solid)
                n, _, stats, _ = cv2.connectedComponentsWithStats(solid)
                if n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) >= BEHIND_PX:
                    label = P.PIECE_OF_COLOR[color].label
                    out.append(f"the {label} may hang behind the pieces on bar {b + 1}")
        return out

    def _assemble(
        self,
        pieces: list[_Piece],
        pins: list[tuple[Blob, int]],
        hideouts: frozenset[str] = frozenset(),
        lone: Sequence[tuple[Blob, int]] = (),
    ) -> DryerReading:
        """The dryer from pieces and pins; ``hideouts``: the piece colours whose own pin may
        be assumed when none is seen on them (``_hideouts``, TBL-7); ``lone``: pins touching
        no piece, each a doubt (TBL-5), and seen: no piece's own pin hides on it (TBL-7)."""
        notes = [f"{LONE_NOTE}: the {pin.color} pin on bar {b + 1}" for pin, b in lone]
        held: dict[int, list[str]] = {id(p): [] for p in pieces}
        where: list[tuple[str, float, int]] = []  # every pin: colour, x centre, bar
        for pin, b in pins:
            where.append((pin.color, (pin.box[0] + pin.box[2]) / 2, b))
            for p in pieces:
                if p.bar == b and _touches((pin.box[0], pin.box[2]), p.top):
                    held[id(p)].append(pin.color)
        seen = {pin.color for pin, _ in (*pins, *lone)}
        inferred = False
        # left to right, so that of two pieces sharing a hidden pin the first infers it and
        # the second shares it
        for p in sorted(pieces, key=lambda p: (p.bar, p.box[0])):
            if held[id(p)]:
                continue
            # Two pieces on one bar share its pin (fig. 4c; one pin per bar, WD-2): the
            # piece in front can hide the other's top edge right up to the pin, so a piece
            # with no pin of its own that touches a held neighbour shares its nearest pin.
            mid = (p.box[0] + p.box[2]) / 2
            shared = [
                (abs(x - mid), c)
                for q in pieces
                if q is not p and q.bar == p.bar and held[id(q)]
                if _touches((p.box[0], p.box[2]), (q.box[0], q.box[2]), 4)
                for c, x, b in where
                if b == p.bar and c in held[id(q)]
            ]
            if shared:
                held[id(p)].append(min(shared)[1])
            elif p.color not in seen and p.color in hideouts:
                # TBL-7: only a pin on its own colour can hide, against a cloth of that
                # colour, and only where the empty dryer shows that colour behind it;
                # elsewhere (and without a reference) the piece may hang with no pin: ask
                held[id(p)].append(p.color)
                where.append((p.color, mid, p.bar))
                seen.add(p.color)
                inferred = True
                label = P.PIECE_OF_COLOR[p.color].label
                notes.append(f"no pin seen on the {label}: its own {p.color} pin assumed")
            else:
                notes.append(f"no pin seen on the {P.PIECE_OF_COLOR[p.color].label}")
        bars: list[list[tuple[int, HungPiece]]] = [[], [], []]
        for p in pieces:
            colors = held[id(p)]
            if not colors:
                continue
            ordered = [c for c in P.COLORS if c in colors]
            hung = HungPiece(P.PIECE_OF_COLOR[p.color], tuple(P.PIN_OF_COLOR[c] for c in ordered))
            bars[p.bar].append((p.box[0], hung))
        dryer = Dryer(tuple(tuple(h for _, h in sorted(bar, key=lambda t: t[0])) for bar in bars))
        bad = (
            dryer.problems()
            or lone
            or any(n.startswith("no pin") and "assumed" not in n for n in notes)
        )
        confidence = 0.5 if bad else 0.8 if inferred else 1.0
        blobs = tuple(Blob(p.color, p.box, p.area) for p in pieces)
        return DryerReading(
            dryer,
            confidence,
            blobs,
            tuple(pin for pin, _ in pins),
            tuple(notes),
            lone_pins=tuple(pin for pin, _ in lone),
        )


def _overlap_unshared(bar: Sequence[HungPiece], blobs: dict[str, Blob]) -> bool:
    """Whether two pieces read on one bar touch without one pin holding both and nothing
    else (fig. 4c): no task card hangs them so, and a sliver of a piece hidden behind them
    reads as a pin on their top edge."""
    for k, h in enumerate(bar):
        for g in bar[k + 1 :]:
            a, b = blobs[h.piece.color.value].box, blobs[g.piece.color.value].box
            shared = h.pins == g.pins and len(h.pins) == 1
            if not shared and _touches((a[0], a[2]), (b[0], b[2]), 4):
                return True
    return False


def _grey(image: np.ndarray) -> np.ndarray:
    """A canonical picture as phase correlation takes it (one float channel)."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _stands_alone(mask: np.ndarray, pin: Blob, bar: int) -> bool:
    """Whether a run in a bar's pin band (``pin``) looks like a pin clipped there alone, not
    a patch of the table's pattern (LONE_FILL, LONE_SIDE, LONE_BELOW)."""
    on = mask > 0
    x1, y1, x2, y2 = pin.box
    band = on[y1:y2]
    line = BAR_Y[bar]
    side = np.concatenate([band[:, max(0, x1 - FRINGE) : x1], band[:, x2 : x2 + FRINGE]], 1)
    below = on[line + PIN_EDGE[0] : line + PIN_EDGE[1] + 1, x1:x2]
    return (
        band[:, x1:x2].mean() >= LONE_FILL
        and (side.mean() if side.size else 0.0) <= LONE_SIDE
        and below.mean() >= LONE_BELOW
    )


def _doubt(reading: DryerReading, note: str) -> DryerReading:
    """``reading`` made a question (TBL-9): confidence at most SMALL_CONFIDENCE, and why."""
    return replace(
        reading,
        confidence=min(reading.confidence, SMALL_CONFIDENCE),
        notes=(*reading.notes, note),
    )


def _edges(blob: np.ndarray, x: int, y: int, gw: int, gh: int) -> Iterator[tuple[str, np.ndarray]]:
    """(side, covered) for each grid edge a blob's box at (x, y) lies within EDGE of:
    covered is, along that edge, whether the blob has a pixel in the EDGE strip."""
    h, w = blob.shape
    if y < EDGE:
        yield "top", blob[: EDGE - y].any(0)
    if y + h > gh - EDGE:
        yield "bottom", blob[gh - EDGE - y :].any(0)
    if x < EDGE:
        yield "left", blob[:, : EDGE - x].any(1)
    if x + w > gw - EDGE:
        yield "right", blob[:, gw - EDGE - x :].any(1)


def _homography(dryer: Zone, w: int, h: int) -> np.ndarray:
    """Frame pixels (a w×h frame) → the canonical grid, from the dryer zone's corners."""
    gw, gh = GRID
    dst = np.float32([[0, 0], [gw, 0], [gw, gh], [0, gh]])
    return cv2.getPerspectiveTransform(_corners(dryer, w, h), dst)


def _bar_lines(bars: list[Zone], hom: np.ndarray, w: int, h: int) -> list[np.ndarray]:
    """Per bar zone, the grid row its line runs through at each grid column (the line
    through the middles of its left and right ends, carried into the grid by ``hom``)."""
    xs = np.arange(GRID[0], dtype=np.float64) + 0.5
    lines = []
    for bar in bars:
        ends = cv2.perspectiveTransform(_corners(bar, w, h).reshape(1, -1, 2), hom)[0]
        left, right = (ends[0] + ends[3]) / 2, (ends[1] + ends[2]) / 2
        t = (xs - left[0]) / max(right[0] - left[0], 1e-6)
        lines.append(left[1] + t * (right[1] - left[1]))
    return lines


def _check_bar_order(seat: int, dryer: Zone, bars: list[Zone]) -> None:
    """ZoneError unless bar 1 runs above bar 2 above bar 3 across the whole dryer. The reader
    stretches the picture between the bars onto fixed rows, bar 1 on top (``BAR_Y``): bars
    drawn in another order fold it, and what it read then came out sure and wrong (bar 1 drawn
    lowest: 43 of 60 rendered dryers). Read in the dryer's own grid, so a tilted dryer is
    judged along its posts; a projective map, so the frame's size does not matter (1 × 1)."""
    for zone in (dryer, *bars):  # a flat one (a file saved before the page refused them)
        if zone.area < 1e-6:
            raise ZoneError(f"seat {seat}'s zone {zone.name} has no area: redraw it")
    lines = _bar_lines(bars, _homography(dryer, 1, 1), 1, 1)
    for k in range(len(bars) - 1):  # ``bars``: bar 1, 2, 3 in turn
        upper, lower = bars[k], bars[k + 1]
        if not np.all(lines[k] < lines[k + 1]):
            raise ZoneError(
                f"seat {seat}'s dryer bar {upper.bar} must run above bar {lower.bar} (bar 1 "
                "at the top, bar 3 at the bottom): redraw the bars on the Calibrate page"
            )


def _touches(a: tuple[int, int], b: tuple[int, int], tol: int = 2) -> bool:
    return a[0] < b[1] + tol and a[1] > b[0] - tol


def _corners(zone: Zone, w: int, h: int) -> np.ndarray:
    """The zone as four frame-pixel corners TL, TR, BR, BL (any polygon: its min-area box)."""
    pts = np.float32([[x * w, y * h] for x, y in zone.points])
    if len(pts) != 4:
        pts = cv2.boxPoints(cv2.minAreaRect(pts)).astype(np.float32)
    s, d = pts.sum(1), pts[:, 0] - pts[:, 1]
    return np.float32([pts[np.argmin(s)], pts[np.argmax(d)], pts[np.argmax(s)], pts[np.argmin(d)]])
