"""Calibrated table zones: polygons in normalised 0..1 image coordinates, saved as JSON.

File format (version 1), read by the vision pipeline::

    {"version": 1, "updated_at": 1764420000.0,
     "frame": {"width": 640, "height": 480},
     "zones": [{"name": "discard_1", "kind": "discard_pile", "seat": null, "index": 1,
                "bar": null, "points": [[0.41, 0.30], [0.55, 0.30], [0.55, 0.52]]}]}

Names: ``draw_pile``; ``discard_1``/``discard_2``; ``seat_S_area``; ``seat_S_dryer``;
``seat_S_dryer_bar_B`` (B = 1..3, top to bottom). Kind/seat/index/bar are derived from the
name so the two always agree. x grows to the right, y downwards, (0, 0) top-left.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

from web.errors import BadInput

MAX_ZONES = 64
MAX_POINTS = 64
MAX_SEATS = 8
# A zone whose polygon covers less of the picture than this has no area: its corners are on top
# of each other (or in one line), so it could never hold a card. 1e-6 of a 640 x 480 picture is
# a third of a pixel; the smallest triangle the Calibrate page's arrow keys make is 12 times that.
MIN_AREA = 1e-6

# [0-9], not \d: \d takes any script's digits, and "seat_\u0663_area" would be a second name
# for seat 3 beside "seat_3_area" (int() reads both as 3)
_NAMES = [
    (re.compile(r"draw_pile"), "draw_pile"),
    (re.compile(r"discard_(?P<index>[12])"), "discard_pile"),
    (re.compile(r"seat_(?P<seat>[0-9])_area"), "seat_area"),
    (re.compile(r"seat_(?P<seat>[0-9])_dryer"), "dryer"),
    (re.compile(r"seat_(?P<seat>[0-9])_dryer_bar_(?P<bar>[123])"), "dryer_bar"),
]


def zone_label(name: str) -> str:
    """What the calibration page calls a zone: words a family reads, not its stored name."""
    z = parse_name(name)
    seat = f"Seat {z['seat']} · "
    return {
        "draw_pile": "Draw pile",
        "discard_pile": "Discard pile (DOS: the left one)"
        if z["index"] == 1
        else "Second discard pile (DOS: the right one)",
        "seat_area": seat + "play area (Deck Dash)",
        "dryer": seat + "dryer (Wash Dash)",
        "dryer_bar": seat + f"dryer bar {z['bar']} (top to bottom)",
    }[z["kind"]]


def zone_names(seats: int) -> list[str]:
    """Every name the calibration page offers, for ``seats`` seats."""
    names = ["draw_pile", "discard_1", "discard_2"]
    for s in range(seats):
        names += [f"seat_{s}_area", f"seat_{s}_dryer"]
        names += [f"seat_{s}_dryer_bar_{b}" for b in (1, 2, 3)]
    return names


def parse_name(name: Any) -> dict[str, Any]:
    if not isinstance(name, str):
        raise BadInput("a zone name must be text")
    for pattern, kind in _NAMES:
        m = pattern.fullmatch(name)
        if m:
            groups = m.groupdict()
            seat = int(groups["seat"]) if groups.get("seat") else None
            if seat is not None and seat >= MAX_SEATS:
                break
            return {
                "name": name,
                "kind": kind,
                "seat": seat,
                "index": int(groups["index"]) if groups.get("index") else None,
                "bar": int(groups["bar"]) if groups.get("bar") else None,
            }
    raise BadInput(f"unknown zone name {name!r}; e.g. draw_pile, discard_1, seat_0_dryer_bar_2")


def _shown(value: Any) -> str:
    """``value`` for an error message, short: a 400-digit coordinate is not echoed whole."""
    try:
        return reprlib.repr(value)
    except ValueError:  # an integer too long for str() at all
        return "a number too long to show"


def _coordinate(v: Any) -> float | None:
    """``v`` as a coordinate in 0..1, else None. An integer is compared as one: float() of a
    huge one (10**400) raises OverflowError, which was a 500."""
    if not isinstance(v, int | float) or isinstance(v, bool):
        return None
    if isinstance(v, int) and not 0 <= v <= 1:
        return None
    f = float(v)
    return f if 0.0 <= f <= 1.0 else None  # NaN fails both


def _point(p: Any) -> list[float]:
    pair = isinstance(p, list | tuple) and len(p) == 2
    x, y = (_coordinate(p[0]), _coordinate(p[1])) if pair else (None, None)
    if x is None or y is None:
        raise BadInput(f"a zone point must be [x, y] with 0 ≤ x, y ≤ 1, got {_shown(p)}")
    return [round(x, 5), round(y, 5)]


def area(points: list[list[float]]) -> float:
    """The polygon's area, of the picture's (shoelace, as ``vision.table.zones.Zone.area``)."""
    n = len(points)
    twice = sum(
        points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
        for i in range(n)
    )
    return abs(twice) / 2


def _middle_y(points: list[list[float]]) -> float:
    """Halfway down a zone's bounding box (y grows downwards)."""
    ys = [p[1] for p in points]
    return (min(ys) + max(ys)) / 2


def check_bar_order(zones: list[dict[str, Any]]) -> None:
    """BadInput unless each seat's dryer bars run top to bottom in number order: the dryer
    reader maps bar 1 to its top row, and bars drawn in another order (bar 1 lowest) gave
    wrong readings it was sure of. Bars not drawn yet are skipped; the reader checks the
    finished dryer again along its own posts (``vision.dryer.read``: a ZoneError)."""
    bars: dict[int, list[tuple[int, float]]] = {}
    for z in zones:
        if z["kind"] == "dryer_bar":
            bars.setdefault(z["seat"], []).append((z["bar"], _middle_y(z["points"])))
    for seat, drawn in sorted(bars.items()):
        drawn.sort()
        for (upper, y_upper), (lower, y_lower) in pairwise(drawn):
            if y_upper >= y_lower:
                raise BadInput(
                    f"seat {seat}'s dryer bar {upper} is drawn at or below bar {lower}: bar 1 is "
                    "the top bar, bar 3 the bottom one; move the bars so they run top to bottom"
                )


def validate(data: Any, *, flat_ok: bool = False, unordered_ok: bool = False) -> dict[str, Any]:
    """A clean zones document from untrusted JSON, or BadInput naming the problem.

    A zone without area is refused unless ``flat_ok`` (reading a file saved before that check:
    its other zones still count, and the flat one just never holds a card), and dryer bars out
    of order unless ``unordered_ok`` (likewise: the reader refuses that dryer alone, and the
    dashboard lists it among its problems)."""
    if not isinstance(data, dict):
        raise BadInput("zones must be a JSON object with a 'zones' list")
    zones = data.get("zones")
    if not isinstance(zones, list) or len(zones) > MAX_ZONES:
        raise BadInput(f"'zones' must be a list of at most {MAX_ZONES} zones")
    frame = data.get("frame")
    frame = {} if frame is None else frame
    if not isinstance(frame, dict):
        raise BadInput("'frame' must be an object with width and height")
    width, height = frame.get("width"), frame.get("height")
    for v in (width, height):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 < v < 10000):
            raise BadInput("frame width and height must be whole pixels")
    out = []
    seen = set()
    for zone in zones:
        if not isinstance(zone, dict):
            raise BadInput("each zone must be an object with 'name' and 'points'")
        info = parse_name(zone.get("name"))
        if info["name"] in seen:
            raise BadInput(f"zone {info['name']!r} appears twice")
        seen.add(info["name"])
        points = zone.get("points")
        if not isinstance(points, list) or not 3 <= len(points) <= MAX_POINTS:
            raise BadInput(f"zone {info['name']!r} needs 3 to {MAX_POINTS} points")
        info["points"] = [_point(p) for p in points]
        if not flat_ok and area(info["points"]) < MIN_AREA:
            raise BadInput(
                f"zone {info['name']!r} has no area: its corners are on top of each other "
                "or in one line; move them apart"
            )
        out.append(info)
    if not unordered_ok:
        check_bar_order(out)
    return {
        "version": 1,
        "updated_at": time.time(),
        "frame": {"width": width, "height": height},
        "zones": out,
    }


class ZoneStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.version = 0  # bumps on every save, so cached overlays are redrawn

    def load(self) -> dict[str, Any]:
        try:
            with self.path.open(encoding="utf-8-sig") as fh:
                return validate(json.load(fh), flat_ok=True, unordered_ok=True)
        except FileNotFoundError:
            return {"version": 1, "updated_at": None, "frame": {}, "zones": []}
        except (OSError, ValueError, BadInput):
            return {"version": 1, "updated_at": None, "frame": {}, "zones": [], "error": True}

    def save(self, data: Any) -> dict[str, Any]:
        """Store the zones durably (written, synced, then swapped in, as the event log is
        committed before a tablet hears "saved"), or BadInput 503 when the card refuses:
        the zones saved before stay as they were."""
        from vision.files import written_whole

        doc = validate(data)
        with self._lock:
            try:
                with written_whole(self.path, sync=True) as part:
                    part.write_text(json.dumps(doc, indent=1), encoding="utf-8")
            except OSError as exc:
                why = exc.strerror or type(exc).__name__
                raise BadInput(
                    f"the zones could not be saved to {self.path} ({why}: a full or read-only "
                    "card?); the zones saved before are kept",
                    503,
                ) from None
            self.version += 1  # saved: the rename is done, whatever its folder's sync says
            _sync_folder(self.path.parent)
        return doc


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX: the directory entry is synced separately), as
    far as the file system can: the zones are saved once renamed, and are said to be."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a platform that cannot open folders: the file itself is synced
        return
    try:
        os.fsync(fd)
    except OSError:  # a file system that cannot sync a folder (some FUSE, network mounts)
        pass
    finally:
        os.close(fd)
