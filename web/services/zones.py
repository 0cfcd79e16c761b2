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

import errno
import json
import math
import os
import reprlib
import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

from vision.table.zones import WEB_NAMES
from web.errors import BadInput

MAX_ZONES = 64
MAX_POINTS = 64
MAX_SEATS = 8
# A zone whose polygon covers less of the picture than this has no area: its corners are on top
# of each other (or in one line), so it could never hold a card. 1e-6 of a 640 x 480 picture is
# a third of a pixel; the smallest triangle the Calibrate page's arrow keys make is 12 times that.
MIN_AREA = 1e-6
# Card zones (piles, seat areas) may touch, but a card where two overlap is read in both: one R7
# on discard_1, discard_2 and seat_0_area settled as three observations. A sloppy shared edge
# overlaps by a few percent; a share of the smaller zone above this is two zones on one place.
MAX_OVERLAP = 0.2
CARD_KINDS = ("draw_pile", "discard_pile", "seat_area")
# Normalised corners follow the picture's size, not its shape: zones drawn on a 4:3 picture lie
# elsewhere on a 16:9 one. Aspects this close are one shape (sensor modes such as 1640 x 1232).
ASPECT_SLACK = 0.02


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
    for pattern, kind in WEB_NAMES:  # vision's own: `vision watch` reads names as this does
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


def bar_order_problems(zones: list[dict[str, Any]]) -> list[str]:
    """One line per seat whose dryer bars do not run top to bottom in number order: the dryer
    reader maps bar 1 to its top row, and bars drawn in another order (bar 1 lowest) gave
    wrong readings it was sure of. Bars not drawn yet are skipped; the reader checks the
    finished dryer again along its own posts (``vision.dryer.read``: a ZoneError)."""
    bars: dict[int, list[tuple[int, float]]] = {}
    for z in zones:
        if z["kind"] == "dryer_bar":
            bars.setdefault(z["seat"], []).append((z["bar"], _middle_y(z["points"])))
    problems = []
    for seat, drawn in sorted(bars.items()):
        drawn.sort()
        for (upper, y_upper), (lower, y_lower) in pairwise(drawn):
            if y_upper >= y_lower:
                problems.append(
                    f"seat {seat}'s dryer bar {upper} is drawn at or below bar {lower}: bar 1 is "
                    "the top bar, bar 3 the bottom one; move the bars so they run top to bottom"
                )
                break
    return problems


# -- the shape of a zone, and of two together -----------------------------------------------
Point = tuple[float, float] | list[float]


def _turn(a: Point, b: Point, p: Point) -> float:
    """Twice the signed area of (a, b, p): > 0 when p lies left of a→b (y down: clockwise)."""
    return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])


def _cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Segments a-b and c-d cross each other at one point inside both. Touching does not
    count: a corner tapped twice on one spot leaves edges that meet without crossing."""
    t1, t2 = _turn(a, b, c), _turn(a, b, d)
    t3, t4 = _turn(c, d, a), _turn(c, d, b)
    return t1 * t2 < 0 and t3 * t4 < 0


def crosses_itself(points: list[list[float]]) -> bool:
    """Two of the polygon's sides cross: its corners were tapped across it (TL, TR, BL, BR
    makes an hourglass that holds only a strip of the pile). Sides that share a corner meet
    there and are not compared."""
    n = len(points)
    sides = [(points[i], points[(i + 1) % n]) for i in range(n)]
    return any(
        _cross(*sides[i], *sides[j])
        for i in range(n)
        for j in range(i + 2, n)
        if not (i == 0 and j == n - 1)
    )


def _clip(subject: list[Point], clip: list[Point]) -> list[Point]:
    """``subject`` cut to the convex, anticlockwise-turning (``_turn`` > 0) polygon ``clip``
    (Sutherland-Hodgman)."""
    out = list(subject)
    for i in range(len(clip)):
        a, b = clip[i], clip[(i + 1) % len(clip)]
        given, out = out, []
        for j in range(len(given)):
            p, q = given[j - 1], given[j]
            tp, tq = _turn(a, b, p), _turn(a, b, q)
            if (tp >= 0) != (tq >= 0):
                t = tp / (tp - tq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
            if tq >= 0:
                out.append(q)
        if not out:
            break
    return out


def _fan(points: list[list[float]]) -> list[tuple[float, list[Point]]]:
    """The polygon as signed triangles from its first corner, each turned anticlockwise: their
    signed sum is the polygon (any simple one, concave too)."""
    first = points[0]
    fan = []
    for b, c in pairwise(points[1:]):
        t = _turn(first, b, c)
        if t:
            fan.append((1.0, [first, b, c]) if t > 0 else (-1.0, [first, c, b]))
    return fan


def overlap(a: list[list[float]], b: list[list[float]]) -> float:
    """The area two simple polygons share, of the picture's: their fans' triangles cut pairwise,
    signed (exact, no raster)."""
    total = sum(
        sa * sb * area(cut) if len(cut := _clip(ta, tb)) >= 3 else 0.0
        for sa, ta in _fan(a)
        for sb, tb in _fan(b)
    )
    return abs(total)


def _box(points: list[list[float]]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _apart(a: list[list[float]], b: list[list[float]]) -> bool:
    """Bounding boxes that do not meet: no overlap, without cutting triangles."""
    ax1, ay1, ax2, ay2 = _box(a)
    bx1, by1, bx2, by2 = _box(b)
    return ax2 <= bx1 or bx2 <= ax1 or ay2 <= by1 or by2 <= ay1


def overlap_problems(zones: list[dict[str, Any]]) -> list[str]:
    """One line per two card zones that share more than ``MAX_OVERLAP`` of the smaller one:
    a card there would be read in both. Zones that cross themselves are left to that
    problem (their area is not a region)."""
    cards = [z for z in zones if z["kind"] in CARD_KINDS and not crosses_itself(z["points"])]
    problems = []
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            if _apart(a["points"], b["points"]):
                continue
            smaller = min(area(a["points"]), area(b["points"]))
            shared = overlap(a["points"], b["points"])
            if smaller >= MIN_AREA and shared > MAX_OVERLAP * smaller:
                problems.append(
                    f"zones {a['name']!r} and {b['name']!r} overlap ({shared / smaller:.0%} of "
                    "the smaller one): a card there would count in both; move them apart"
                )
    return problems


def shape_problem(zone: dict[str, Any], *, flat_ok: bool = False) -> str | None:
    """Why a zone's corners make no zone a card can lie in, or None."""
    name, points = zone["name"], zone["points"]
    # a bar is read as the line between its ends, and a thin one tapped a little off crosses
    # itself easily; every other zone holds what lies inside it (before the area: an exact Z's
    # two halves cancel to none)
    if zone["kind"] != "dryer_bar" and crosses_itself(points):
        return f"zone {name!r} crosses itself: tap the corners going round the zone, not across it"
    if not flat_ok and area(points) < MIN_AREA:
        return (
            f"zone {name!r} has no area: its corners are on top of each other "
            "or in one line; move them apart"
        )
    return None


def drawing_problems(
    zones: list[dict[str, Any]], *, flat_ok: bool = False, unordered_ok: bool = False
) -> list[str]:
    """Everything saving refuses in zones that each read well on their own, one line each:
    a zone that crosses itself or has no area, card zones over each other, dryer bars out
    of order."""
    problems = [p for z in zones if (p := shape_problem(z, flat_ok=flat_ok))]
    if not unordered_ok:
        problems += bar_order_problems(zones)
    return problems + overlap_problems(zones)


def _frame(frame: Any) -> dict[str, Any]:
    """The picture size the zones were drawn on ({} or None parts when not said)."""
    frame = {} if frame is None else frame
    if not isinstance(frame, dict):
        raise BadInput("'frame' must be an object with width and height")
    width, height = frame.get("width"), frame.get("height")
    for v in (width, height):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 < v < 10000):
            raise BadInput("frame width and height must be whole pixels")
    return {"width": width, "height": height}


def _zone(zone: Any) -> dict[str, Any]:
    """One zone entry read on its own (its name and corners), or BadInput naming it."""
    if not isinstance(zone, dict):
        raise BadInput("each zone must be an object with 'name' and 'points'")
    info = parse_name(zone.get("name"))
    points = zone.get("points")
    if not isinstance(points, list) or not 3 <= len(points) <= MAX_POINTS:
        raise BadInput(f"zone {info['name']!r} needs 3 to {MAX_POINTS} points")
    info["points"] = [_point(p) for p in points]
    return info


def validate(data: Any, *, flat_ok: bool = False, unordered_ok: bool = False) -> dict[str, Any]:
    """A clean zones document from untrusted JSON, or BadInput naming the problem.

    A zone without area is refused unless ``flat_ok``, and dryer bars out of order unless
    ``unordered_ok`` (a test's file "saved before that check"); a zone that crosses itself
    and card zones over each other always are. ``ZoneStore.load`` reads a saved file more
    kindly: each entry on its own."""
    if not isinstance(data, dict):
        raise BadInput("zones must be a JSON object with a 'zones' list")
    zones = data.get("zones")
    if not isinstance(zones, list) or len(zones) > MAX_ZONES:
        raise BadInput(f"'zones' must be a list of at most {MAX_ZONES} zones")
    frame = _frame(data.get("frame"))
    out = []
    seen = set()
    for zone in zones:
        info = _zone(zone)
        if info["name"] in seen:
            raise BadInput(f"zone {info['name']!r} appears twice")
        seen.add(info["name"])
        out.append(info)
    for problem in drawing_problems(out, flat_ok=flat_ok, unordered_ok=unordered_ok):
        raise BadInput(problem)
    return {"version": 1, "updated_at": time.time(), "frame": frame, "zones": out}


def frame_change(frame: Any, width: int | None, height: int | None) -> str | None:
    """One line when the camera's picture (``width`` x ``height``) is another shape than the
    one the zones were drawn on (``frame``, as saved), else None: the corners are kept as
    shares of the picture, which moves them on a picture cropped or stretched otherwise."""
    frame = frame if isinstance(frame, dict) else {}
    w, h = frame.get("width"), frame.get("height")
    if not (w and h and width and height):  # not saved (a script), or no picture yet
        return None
    if abs((width / height) / (w / h) - 1) <= ASPECT_SLACK:
        return None
    return (
        f"The zones were drawn on a {w}×{h} picture; the camera now sends {width}×{height}, "
        "another shape, so they no longer lie where they were drawn: calibrate again"
    )


def _read_json(raw: bytes) -> Any:
    """The file's JSON, or BadInput saying in one line why it has none."""
    try:
        return json.loads(raw.decode("utf-8-sig"))  # with or without a BOM
    except UnicodeDecodeError:
        raise BadInput("it is not a text file") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"it is not JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise BadInput("it is nested too deeply to be a zones file") from None
    except ValueError:  # valid JSON Python refuses: an integer of thousands of digits
        raise BadInput("it holds a number thousands of digits long") from None


def _entries(data: Any, path: Path) -> tuple[dict[str, Any], list[str], bool]:
    """(the document, its problems, read whole) from a zones file's JSON: each entry that
    does not read is left out and named, so one slip costs one zone, not the calibration."""
    if not isinstance(data, dict) or not isinstance(data.get("zones"), list):
        return _empty(), [f"{path.name} holds no 'zones' list: no zone could be read"], False
    problems = []
    try:
        frame = _frame(data.get("frame"))
    except BadInput as exc:
        frame = {}
        problems.append(f"{path.name}: the picture size is left out: {exc.message}")
    entries = data["zones"]
    if len(entries) > MAX_ZONES:
        problems.append(f"{path.name}: the zones after the {MAX_ZONES}th are left out")
    zones, seen = [], set()
    for i, entry in enumerate(entries[:MAX_ZONES], 1):
        try:
            info = _zone(entry)
            if info["name"] in seen:
                raise BadInput(f"zone {info['name']!r} appears twice")
        except BadInput as exc:
            problems.append(f"{path.name}: entry {i} of {len(entries)} is left out: {exc.message}")
            continue
        seen.add(info["name"])
        zones.append(info)
    whole = not problems
    problems += drawing_problems(zones)  # kept as saved; Save asks for them redrawn
    updated = data.get("updated_at")
    seconds = isinstance(updated, int | float) and not isinstance(updated, bool)
    doc = {
        "version": 1,
        "updated_at": updated if seconds and math.isfinite(updated) else None,  # no NaN out
        "frame": frame,
        "zones": zones,
    }
    return doc, problems, whole


def _empty() -> dict[str, Any]:
    return {"version": 1, "updated_at": None, "frame": {}, "zones": []}


def read_zones(path: Path) -> tuple[dict[str, Any], list[str], bool]:
    """(zones document, problems, read whole) of the zones file at ``path``: no file is no
    zones; an entry that does not read is left out and named in ``problems`` (one line each),
    which also names what saving would refuse in the zones kept (they are kept as saved)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _empty(), [], True
    except OSError as exc:
        return _empty(), [f"{path.name} cannot be read ({exc.strerror or exc})"], False
    try:
        data = _read_json(raw)
    except BadInput as exc:
        return _empty(), [f"{path.name} cannot be read: {exc.message}"], False
    return _entries(data, path)


class ZoneStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.version = 0  # bumps on every save, so cached overlays are redrawn

    def load(self) -> dict[str, Any]:
        """The saved zones; ``problems`` names, one line each, the entries left out (a hand
        edit's slip costs that zone, never the rest) and what a save would refuse;
        ``read_whole`` is false when something was left out (saving then keeps a copy)."""
        doc, problems, whole = read_zones(self.path)
        return {**doc, "problems": problems, "read_whole": whole}

    def save(self, data: Any) -> dict[str, Any]:
        """Store the zones durably (written, synced, then swapped in, as the event log is
        committed before a tablet hears "saved"), or BadInput 503 when the card refuses:
        the zones saved before stay as they were. A file that did not read whole is copied
        beside it first (``kept_as``): the entries the page could not show are not lost."""
        from vision.files import written_whole

        doc = validate(data)
        with self._lock:
            kept = self._keep_unread()
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
        return {**doc, "kept_as": str(kept)} if kept else doc

    def _keep_unread(self) -> Path | None:
        """Copy the zones file to a free ``NAME.bad`` (``.bad.2``, …) when it did not read
        whole; None when it did. BadInput 503 when it cannot be copied: it is not replaced."""
        *_, whole = read_zones(self.path)
        if whole:
            return None
        try:
            raw = self.path.read_bytes()
            for n in range(1, 1000):
                copy = self.path.with_name(self.path.name + (".bad" if n == 1 else f".bad.{n}"))
                try:
                    with copy.open("xb") as fh:  # never over an earlier copy
                        fh.write(raw)
                    return copy
                except FileExistsError:
                    continue
            raise FileExistsError(errno.EEXIST, "a thousand copies are there already")
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise BadInput(
                f"{self.path} did not read whole and could not be copied aside ({why}), so it "
                "is not replaced: nothing was saved",
                503,
            ) from None


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
