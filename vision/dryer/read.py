"""Reading a dryer: which piece hangs on which bar, held by which pins → ``Dryer``.

A classical colour-and-shape reader, not a network (design in docs/VISION-TABLE.md): the
three piece colours and three pin colours are the same saturated red, yellow and blue, every
player owns one of each, and the geometry is fixed by the dryer, so after the calibrated
dryer zone is flattened to a canonical grid the question is "where is each colour, and is it
wide (a piece) or narrow and sticking up above a bar (a pin)?". It needs no training, runs
in a few milliseconds, and every mistake can be explained.

1. Flatten the dryer zone to a ``GRID`` image with the perspective the calibration implies;
   each bar's line is the middle of its calibrated bar zone.
2. White-balance on the unsaturated pixels (the dryer frame, the table) so a warm or cool
   light does not move yellow towards red.
3. Per colour, saturated pixels of that hue; with an empty-dryer reference (taken when the
   dryers are cleared), only pixels that changed since it (a red tablecloth is ignored).
4. A piece is what survives an opening wider than any pin; a pin is a narrow blob left over
   that sticks up above a bar line. Each pin holds the pieces on its bar whose width covers
   it (two pieces when they share it, fig. 4c).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from referee.washdash.dryer import Dryer, HungPiece
from vision.dryer import profile as P
from vision.table.zones import TableLayout, Zone

GRID = (240, 180)  # canonical dryer image, width × height


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


def _corners(zone: Zone, w: int, h: int) -> np.ndarray:
    """The zone as four frame-pixel corners TL, TR, BR, BL (any polygon: its min-area box)."""
    pts = np.float32([[x * w, y * h] for x, y in zone.points])
    if len(pts) != 4:
        pts = cv2.boxPoints(cv2.minAreaRect(pts)).astype(np.float32)
    s, d = pts.sum(1), pts[:, 0] - pts[:, 1]
    return np.float32([pts[np.argmin(s)], pts[np.argmax(d)], pts[np.argmax(s)], pts[np.argmin(d)]])


def _white_balance(img: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    grey = (hsv[..., 1] < 60) & (hsv[..., 2] > 60) & (hsv[..., 2] < 250)
    if grey.sum() < 0.05 * grey.size:
        return img
    mean = img[grey].reshape(-1, 3).astype(np.float32).mean(0)
    gain = mean.mean() / np.maximum(mean, 1)
    return np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def colour_masks(img: np.ndarray) -> dict[str, np.ndarray]:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    vivid = (s >= P.MIN_SATURATION) & (v >= P.MIN_VALUE)
    out = {}
    for color, windows in P.HUE.items():
        m = np.zeros(h.shape, bool)
        for lo, hi in windows:
            m |= (h >= lo) & (h <= hi)
        out[color] = ((m & vivid) * 255).astype(np.uint8)
    return out


@dataclass
class DryerReader:
    """Reads one seat's dryer from a frame, given the seat's calibrated zones."""

    layout: TableLayout
    seat: int = 0
    diff_threshold: int = 25  # grey levels: changed since the empty reference
    majority: int = 3  # majority-filter size for the colour masks (odd)

    def __post_init__(self) -> None:
        self._dryer = next(
            z for z in self.layout.zones if z.kind.value == "dryer" and z.seat == self.seat
        )
        bars = self.layout.bars(self.seat)
        if len(bars) != 3:
            raise ValueError(
                f"seat {self.seat}'s dryer needs three calibrated bars, has {len(bars)}"
            )
        self._bars = bars
        self._reference: np.ndarray | None = None

    def _flatten(self, image: np.ndarray) -> tuple[np.ndarray, list[float]]:
        h, w = image.shape[:2]
        gw, gh = GRID
        src = _corners(self._dryer, w, h)
        dst = np.float32([[0, 0], [gw, 0], [gw, gh], [0, gh]])
        hom = cv2.getPerspectiveTransform(src, dst)
        flat = cv2.warpPerspective(
            image, hom, GRID, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        lines = []
        for bar in self._bars:
            pts = np.float32([[x * w, y * h] for x, y in bar.points]).reshape(1, -1, 2)
            lines.append(float(cv2.perspectiveTransform(pts, hom)[0, :, 1].mean()))
        return flat, lines

    def set_reference(self, empty_image: np.ndarray | None) -> None:
        """The dryer with nothing on it (round start); None forgets it."""
        self._reference = None if empty_image is None else self._flatten(empty_image)[0]

    def read(self, image: np.ndarray) -> DryerReading:
        flat, lines = self._flatten(image)
        gw, gh = GRID
        masks = colour_masks(_white_balance(flat))
        if self._reference is not None:
            # light drifts between the reference and now: match the reference's gain first
            # (most of the dryer is unchanged, so the medians compare like with like)
            a = cv2.GaussianBlur(flat, (5, 5), 0).astype(np.float32)
            ref = cv2.GaussianBlur(self._reference, (5, 5), 0).astype(np.float32)
            gain = np.median(a.reshape(-1, 3), 0) / np.maximum(np.median(ref.reshape(-1, 3), 0), 1)
            diff = np.abs(a - ref * gain).max(2)
            # not dilated: a dilated mask would let the table's colour fringe a piece
            changed = (diff > self.diff_threshold).astype(np.uint8) * 255
            masks = {c: m & changed for c, m in masks.items()}
        spacing = abs(lines[1] - lines[0]) if len(lines) > 1 else gh / 3
        # wider than any pin but short, so a pair of pants keeps its waistband
        piece_k = cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, int(gw * 0.095)), 3))
        min_piece = gw * spacing * 0.012
        min_pin = max(8, int(gw * gh * 0.0007))
        pieces: list[Blob] = []
        tops: list[int] = []
        clean: dict[str, np.ndarray] = {}
        for color, m in masks.items():
            # majority filter: drops the 1-2 px fringes where two colours blend at an edge
            m = cv2.medianBlur(m, self.majority)
            clean[color] = m
            body = cv2.morphologyEx(m, cv2.MORPH_OPEN, piece_k)
            n, lab, stats, _ = cv2.connectedComponentsWithStats(body)
            big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= max(25, min_piece / 4)]
            if not big:
                continue
            # one piece per colour: the largest part, and parts right beside it (two legs,
            # a middle hidden behind another piece); stray blobs elsewhere are not it
            main = max(big, key=lambda i: stats[i, cv2.CC_STAT_AREA])
            mx, my, mw, mh = stats[main, :4]
            pad = gw * 0.06
            keep = [
                i
                for i in big
                if stats[i, 0] < mx + mw + pad
                and stats[i, 0] + stats[i, 2] > mx - pad
                and stats[i, 1] < my + mh + pad
                and stats[i, 1] + stats[i, 3] > my - pad
            ]
            body = np.isin(lab, keep)
            if not keep or int(np.count_nonzero(body)) < min_piece:
                continue
            # one piece per colour: its parts (two legs, a hidden middle) are one piece
            ys, xs = np.nonzero(body)
            pieces.append(
                Blob(
                    color,
                    (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1),
                    len(xs),
                )
            )
            # its top edge: the first row as wide as most of the piece's top. Pins are narrow,
            # so the rows they fill above the piece are far less covered (a notch from a pin's
            # spring makes the opened body start a little low, so the mask itself is read).
            x1, x2 = int(xs.min()), int(xs.max()) + 1
            y0 = max(0, int(ys.min()) - int(gh * 0.12))
            cover = (m[y0 : int(ys.min()) + 10, x1:x2] > 0).sum(1)
            wide = np.nonzero(cover >= 0.65 * cover.max())[0]
            tops.append(y0 + int(wide[0]) if len(wide) else int(ys.min()))
        # Pins: a pin clips a piece and sticks up above the piece's top edge, where no piece
        # reaches. A pin on a piece of its own colour shows only there.
        reach = int(gh * 0.12)
        best: dict[str, Blob] = {}
        for piece, top in zip(pieces, tops, strict=True):
            x1, _, x2, _ = piece.box
            rx1, rx2 = max(0, x1 - 3), min(gw, x2 + 3)
            for color, m in clean.items():
                bottom = top - 2 if color == piece.color else top + 4
                ry1, ry2 = max(0, top - reach), max(1, bottom)
                window = np.zeros_like(m)
                window[ry1:ry2, rx1:rx2] = m[ry1:ry2, rx1:rx2]
                n, lab, stats, _ = cv2.connectedComponentsWithStats(window)
                for i in range(1, n):
                    x, y, bw, bh, area = stats[i]
                    if (
                        area < min_pin
                        or not gw * 0.025 <= bw <= gw * 0.11
                        or y > top - 5
                        or y + bh < top - 3
                    ):
                        continue
                    blob = Blob(color, (int(x), int(y), int(x + bw), int(y + bh)), int(area))
                    if color not in best or blob.area > best[color].area:
                        best[color] = blob
        return self._assemble(pieces, tops, list(best.values()), lines, gh)

    def _assemble(
        self, pieces: list[Blob], tops: list[int], pins: list[Blob], lines: list[float], gh: int
    ) -> DryerReading:
        notes = []
        bars: list[list[tuple[int, HungPiece]]] = [[], [], []]
        for piece, top in zip(pieces, tops, strict=True):
            b = int(np.argmin([abs(top - line) for line in lines]))
            if abs(top - lines[b]) > gh * 0.12:
                notes.append(f"{piece.color} blob is not hanging from a bar")
                continue
            # a pin holds every piece on whose top edge it sits (two when they share it)
            x1, _, x2, _ = piece.box
            held = []
            for pin in pins:
                px = (pin.box[0] + pin.box[2]) / 2
                tol = pin.box[2] - pin.box[0]
                if x1 - tol <= px <= x2 + tol and pin.box[1] < top - 3 <= pin.box[3] + 8:
                    held.append(pin.color)
            if not held:
                notes.append(f"{piece.color} piece has no pin")
                continue
            colors = [c for c in P.COLORS if c in held]
            hung = HungPiece(
                P.PIECE_OF_COLOR[piece.color], tuple(P.PIN_OF_COLOR[c] for c in colors)
            )
            bars[b].append((x1, hung))
        dryer = Dryer(tuple(tuple(h for _, h in sorted(bar, key=lambda t: t[0])) for bar in bars))
        confidence = 1.0 if not notes and not dryer.problems() else 0.5
        return DryerReading(dryer, confidence, tuple(pieces), tuple(pins), tuple(notes))
