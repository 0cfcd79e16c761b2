"""Calibrated table zones: named polygons in normalised image coordinates (0..1).

Normalised coordinates survive a change of camera resolution, not of the picture's shape (the
dashboard says when the camera's differs from the one its zones were drawn on). The layout is
saved as JSON (the dashboard's calibration page writes it; see ``TableLayout.to_dict``):

    {"zones": [{"name": "discard", "kind": "discard", "seat": null,
                "points": [[0.40, 0.35], [0.60, 0.35], [0.60, 0.65], [0.40, 0.65]]}, ...]}
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ZoneError(ValueError):
    """A zone layout is malformed; the message names the zone."""


class ZoneKind(enum.Enum):
    DRAW_PILE = "draw_pile"
    DISCARD = "discard"  # one, or two for DOS ("discard-left", "discard-right")
    SEAT = "seat"  # a player's area: laid Dashes and handed-off cards
    DRYER = "dryer"  # a player's Wash Dash dryer
    BAR = "bar"  # one of a dryer's three bars (``bar`` field 1..3)


# The dashboard's calibration page (web/services/zones.py) saves its own kind names; both
# vocabularies load, so a calibration made on the tablet feeds the watcher unchanged.
WEB_KINDS = {
    "draw_pile": ZoneKind.DRAW_PILE,
    "discard_pile": ZoneKind.DISCARD,
    "seat_area": ZoneKind.SEAT,
    "dryer": ZoneKind.DRYER,
    "dryer_bar": ZoneKind.BAR,
}

# The names the dashboard gives each of its kinds (web/services/zones.py reads by these too, so
# a file the Calibrate page leaves an entry of out is not read otherwise here). [0-9], not \d:
# \d takes any script's digits, and "seat_\u0663_area" would be a second name for seat 3.
WEB_NAMES = [
    (re.compile(r"draw_pile"), "draw_pile"),
    (re.compile(r"discard_(?P<index>[12])"), "discard_pile"),
    (re.compile(r"seat_(?P<seat>[0-9])_area"), "seat_area"),
    (re.compile(r"seat_(?P<seat>[0-9])_dryer"), "dryer"),
    (re.compile(r"seat_(?P<seat>[0-9])_dryer_bar_(?P<bar>[123])"), "dryer_bar"),
]
_WEB_EXAMPLES = {
    "draw_pile": "draw_pile",
    "discard_pile": "discard_1 or discard_2",
    "seat_area": "seat_0_area",
    "dryer": "seat_0_dryer",
    "dryer_bar": "seat_0_dryer_bar_1",
}


def _check_web_name(name: str, kind: str) -> None:
    """ZoneError unless ``name`` is one the dashboard gives a zone of its ``kind``: a hand
    edit's slip ("seat_1_aera") is named here as the dashboard names it, not read as a zone
    there is none of on the Calibrate page."""
    if not any(p.fullmatch(name) for p, k in WEB_NAMES if k == kind):
        raise ZoneError(
            f"zone {name!r}: a {kind} zone of the dashboard is named like {_WEB_EXAMPLES[kind]}"
        )


@dataclass(frozen=True)
class Zone:
    name: str
    kind: ZoneKind
    points: tuple[tuple[float, float], ...]
    seat: int | None = None
    bar: int | None = None

    def contains(self, x: float, y: float) -> bool:
        """Ray casting; points on an edge count as inside."""
        inside = False
        pts = self.points
        for i in range(len(pts)):
            (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % len(pts)]
            if (y1 > y) != (y2 > y):
                cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                if x == cross:
                    return True
                if x < cross:
                    inside = not inside
            elif y1 == y2 == y and min(x1, x2) <= x <= max(x1, x2):
                return True
        return inside

    @property
    def area(self) -> float:
        pts = self.points
        return (
            abs(
                sum(
                    pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1]
                    for i in range(len(pts))
                )
            )
            / 2
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind.value,
            "seat": self.seat,
            "points": [list(p) for p in self.points],
        }
        if self.bar is not None:
            out["bar"] = self.bar
        return out

    @staticmethod
    def from_dict(data: Any, dashboard: bool = False) -> Zone:
        """One zone; ``dashboard``: from the Calibrate page's document (it has a
        ``version``), whose names are checked as that page gives them (our own layout JSON
        names its zones freely, "dryer" and "bar1" included)."""
        if not isinstance(data, Mapping):
            raise ZoneError("each zone must be an object")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ZoneError("each zone needs a name")
        try:
            raw_kind = data.get("kind")
            kind = WEB_KINDS.get(raw_kind) or ZoneKind(raw_kind)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            choices = ", ".join(k.value for k in ZoneKind)
            raise ZoneError(f"zone {name!r}: kind must be one of {choices}") from None
        if dashboard and raw_kind in WEB_KINDS:
            _check_web_name(name, raw_kind)
        raw = data.get("points")
        if not isinstance(raw, list) or len(raw) < 3:
            raise ZoneError(f"zone {name!r}: needs at least 3 points")
        points = []
        for p in raw:
            if (
                not isinstance(p, list | tuple)
                or len(p) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
                or not all(0.0 <= v <= 1.0 for v in p)
            ):
                raise ZoneError(f"zone {name!r}: points are [x, y] pairs between 0 and 1")
            points.append((float(p[0]), float(p[1])))
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
            raise ZoneError(f"zone {name!r}: seat must be a non-negative integer")
        if kind in (ZoneKind.SEAT, ZoneKind.DRYER, ZoneKind.BAR) and seat is None:
            raise ZoneError(f"zone {name!r}: a {kind.value} zone belongs to a seat")
        bar = data.get("bar")
        if kind is ZoneKind.BAR and bar not in (1, 2, 3):
            raise ZoneError(f"zone {name!r}: a bar zone needs bar 1, 2 or 3")
        return Zone(name, kind, tuple(points), seat, bar if kind is ZoneKind.BAR else None)


@dataclass(frozen=True)
class TableLayout:
    zones: tuple[Zone, ...] = ()

    def __post_init__(self) -> None:
        names = [z.name for z in self.zones]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ZoneError(f"zone names must be unique: {', '.join(dupes)}")

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    def of_kind(self, kind: ZoneKind) -> list[Zone]:
        return [z for z in self.zones if z.kind is kind]

    def zone_at(self, x: float, y: float, kinds: Iterable[ZoneKind] | None = None) -> Zone | None:
        """The smallest zone containing the point (a bar inside a dryer wins over the dryer)."""
        wanted = set(kinds) if kinds is not None else None
        hits = [z for z in self.zones if (wanted is None or z.kind in wanted) and z.contains(x, y)]
        return min(hits, key=lambda z: z.area) if hits else None

    def to_dict(self) -> dict[str, Any]:
        return {"zones": [z.to_dict() for z in self.zones]}

    @staticmethod
    def from_dict(data: Any) -> TableLayout:
        """Our own layout JSON, or the dashboard's saved calibration document (version 1:
        ``{"version": 1, "frame": {...}, "zones": [{"name": "discard_1", "kind":
        "discard_pile", "seat": null, "index": 1, "bar": null, "points": [...]}]}``)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("zones"), list):
            raise ZoneError("a table layout is an object with a 'zones' list")
        zones, bad = [], []
        for z in data["zones"]:  # every bad entry is named, not only the first
            try:
                zones.append(Zone.from_dict(z, dashboard="version" in data))
            except ZoneError as exc:
                bad.append(str(exc))
        if bad:
            raise ZoneError("; ".join(bad))
        return TableLayout(tuple(zones))

    def discard_piles(self) -> list[Zone]:
        """Discard piles in table order: ``discard_1`` (DOS's left pile) before ``discard_2``."""
        return sorted(self.of_kind(ZoneKind.DISCARD), key=lambda z: z.name)

    def bars(self, seat: int) -> list[Zone]:
        """A seat's three bar zones, bar 1 first (missing bars are simply absent)."""
        return sorted(
            (z for z in self.of_kind(ZoneKind.BAR) if z.seat == seat), key=lambda z: z.bar or 0
        )

    def box(self, name: str) -> tuple[float, float, float, float]:
        """A zone's bounding box (x1, y1, x2, y2), normalised."""
        z = self.zone(name)
        xs, ys = [p[0] for p in z.points], [p[1] for p in z.points]
        return min(xs), min(ys), max(xs), max(ys)

    def save(self, path: str | Path) -> None:
        from vision.files import written_whole

        with written_whole(Path(path)) as part:  # a crash never leaves half a calibration
            part.write_text(json.dumps(self.to_dict(), indent=2))

    @staticmethod
    def load(path: str | Path) -> TableLayout:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")  # with or without a BOM
        except OSError as exc:
            raise ZoneError(f"{path}: cannot read ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            raise ZoneError(f"{path}: not a text file") from None
        try:
            return TableLayout.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise ZoneError(f"{path}: not JSON ({exc.msg})") from None
        except RecursionError:  # valid JSON nested thousands deep: no zones file
            raise ZoneError(f"{path}: nested too deeply to be a zones file") from None
        except ZoneError as exc:
            raise ZoneError(f"{path}: {exc}") from None
        except ValueError:  # valid JSON Python refuses: an integer of thousands of digits
            raise ZoneError(f"{path}: a number thousands of digits long: no zones file") from None


def rectangle(
    name: str, kind: ZoneKind, box: Sequence[float], seat: int | None = None, bar: int | None = None
) -> Zone:
    """A rectangular zone from ``(x1, y1, x2, y2)`` — handy for defaults and tests."""
    x1, y1, x2, y2 = box
    return Zone(name, kind, ((x1, y1), (x2, y1), (x2, y2), (x1, y2)), seat, bar)
