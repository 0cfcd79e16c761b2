"""Record and replay pad logs (JSON lines): the GPIO half of hardware-in-the-loop tests.

A log is a header line, then one line per raw edge (with its source time and whether
debounce accepted it), race marks (a trigger the game saw: a Hit the Deck With A Hand
card, a Wash Dash "go") and the decisions the live table reached::

    {"pad_log": 1, "hardware": {...}, "clock": {...}}
    {"edge": {"t_ns": 1200, "seat": 0, "device": "pad", "active": true, "accepted": true}}
    {"mark": {"race": "last_slapper", "t_ns": 1000, "seats": [0, 1], "device": "pad", ...}}
    {"decision": {...RaceDecision.to_dict()...}}

The replayer drives ``NsMockFactory`` pins with the recorded edges — each stamped with its
recorded time, exactly as lgpio stamps an edge with the kernel's time — either as fast as
possible or paced at a speed factor, and recomputes the decisions from what the software
path delivers. Same log in, same decisions out.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hardware.config import HardwareConfig, PinMapError, parse_hardware
from hardware.padevents import PadEvent
from hardware.table import Table
from referee.jsonlines import json_lines
from referee.races import Press, RaceDecision, RaceRules, first_finisher, last_slapper

LOG_VERSION = 1
RACES: dict[str, Callable[[int, Sequence[int], Sequence[Press], RaceRules], RaceDecision]] = {
    "last_slapper": last_slapper,
    "first_finisher": first_finisher,
}
RACE_DEVICE = {"last_slapper": "pad", "first_finisher": "call"}


class PadLogError(ValueError):
    """A pad log line is malformed; the message names the line."""


@dataclass(frozen=True)
class Edge:
    t_ns: int
    seat: int
    device: str
    active: bool
    accepted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "t_ns": self.t_ns,
            "seat": self.seat,
            "device": self.device,
            "active": self.active,
            "accepted": self.accepted,
        }


@dataclass(frozen=True)
class RaceMark:
    """A race the game started at ``t_ns`` among ``seats``, judged on ``device`` presses."""

    race: str
    t_ns: int
    seats: tuple[int, ...]
    rules: RaceRules = field(default_factory=RaceRules)
    device: str = ""

    def __post_init__(self) -> None:
        if self.race not in RACES:
            raise ValueError(f"unknown race {self.race!r}; known: {', '.join(RACES)}")
        if not self.device:
            object.__setattr__(self, "device", RACE_DEVICE[self.race])

    def to_dict(self) -> dict[str, Any]:
        return {
            "race": self.race,
            "t_ns": self.t_ns,
            "seats": list(self.seats),
            "device": self.device,
            "rules": self.rules.to_dict(),
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> RaceMark:
        rules = RaceRules(**data.get("rules", {}))
        return RaceMark(
            data["race"], int(data["t_ns"]), tuple(data["seats"]), rules, data.get("device", "")
        )


@dataclass
class PadLog:
    config: HardwareConfig
    clock: dict[str, Any]
    edges: list[Edge] = field(default_factory=list)
    marks: list[RaceMark] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def accepted(self) -> list[PadEvent]:
        return [PadEvent(e.seat, e.device, e.t_ns) for e in self.edges if e.accepted]


def decide(marks: Iterable[RaceMark], events: Iterable[PadEvent]) -> list[RaceDecision]:
    """Judge every race mark from the accepted presses. A race sees the presses of its
    device after the previous race of that device closed, up to its own window's end."""
    events = sorted(events, key=lambda e: (e.t_ns, e.seat))
    closed: dict[str, int] = {}
    out = []
    for mark in sorted(marks, key=lambda m: m.t_ns):
        end = mark.t_ns + mark.rules.window_ns
        since = closed.get(mark.device)
        presses = [
            e.to_press()
            for e in events
            if e.device == mark.device and e.t_ns <= end and (since is None or e.t_ns > since)
        ]
        out.append(RACES[mark.race](mark.t_ns, mark.seats, presses, mark.rules))
        closed[mark.device] = end
    return out


def fake_outs(marks: Iterable[RaceMark], events: Iterable[PadEvent]) -> list[PadEvent]:
    """Slaps outside every last-slapper race (and its lockout span): ruling HW-5."""
    spans = [
        (m.t_ns - (m.rules.early_lockout_ns or 0), m.t_ns + m.rules.window_ns)
        for m in marks
        if m.race == "last_slapper"
    ]
    return [
        e
        for e in sorted(events, key=lambda e: (e.t_ns, e.seat))
        if e.device == "pad" and not any(a <= e.t_ns <= b for a, b in spans)
    ]


class PadRecorder:
    """Appends a table's edges, race marks and decisions to a JSON-lines file."""

    def __init__(self, table: Table, out: str | Path | IO[str]) -> None:
        self._own = isinstance(out, str | Path)
        if isinstance(out, str | Path):
            self._fh: IO[str] = Path(out).open("w", encoding="utf-8")  # noqa: SIM115 (kept open)
        else:
            self._fh = out
        self._lock = threading.Lock()
        self._write(
            {
                "pad_log": LOG_VERSION,
                "hardware": table.config.to_dict(),
                "clock": table.clock.describe(),
            }
        )
        self._remove = table.add_edge_hook(self._on_edge)

    def _write(self, data: dict[str, Any]) -> None:
        with self._lock:
            self._fh.write(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
            self._fh.flush()

    def _on_edge(self, seat: int, device: str, t_ns: int, active: bool, accepted: bool) -> None:
        self._write({"edge": Edge(t_ns, seat, device, active, accepted).to_dict()})

    def mark(self, mark: RaceMark) -> None:
        self._write({"mark": mark.to_dict()})

    def decision(self, decision: RaceDecision) -> None:
        self._write({"decision": decision.to_dict()})

    def close(self) -> None:
        self._remove()
        if self._own:
            self._fh.close()

    def __enter__(self) -> PadRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_pad_log(path: str | Path) -> PadLog:
    path = Path(path)
    log: PadLog | None = None
    for where, data in json_lines(path, PadLogError):
        if not isinstance(data, dict) or len(data) == 0:
            raise PadLogError(f"{where}: each line must be a JSON object")
        if log is None:
            if data.get("pad_log") != LOG_VERSION:
                raise PadLogError(f"{where}: the first line must be a pad_log {LOG_VERSION} header")
            try:
                config = parse_hardware(data["hardware"])
            except (KeyError, PinMapError) as exc:
                raise PadLogError(f"{where}: bad hardware header: {exc}") from None
            log = PadLog(config, dict(data.get("clock", {})))
            continue
        try:
            if "edge" in data:
                e = data["edge"]
                log.edges.append(
                    Edge(
                        int(e["t_ns"]),
                        int(e["seat"]),
                        str(e["device"]),
                        bool(e["active"]),
                        bool(e.get("accepted", False)),
                    )
                )
            elif "mark" in data:
                log.marks.append(RaceMark.from_dict(data["mark"]))
            elif "decision" in data:
                log.decisions.append(data["decision"])
            else:
                raise PadLogError(f"{where}: expected 'edge', 'mark' or 'decision'")
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, PadLogError):
                raise
            raise PadLogError(f"{where}: bad entry ({exc})") from None
    if log is None:
        raise PadLogError(f"{path}: empty pad log")
    return log


@dataclass
class ReplayOutcome:
    events: list[PadEvent]
    decisions: list[RaceDecision]
    fake_outs: list[PadEvent]

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": [e.to_dict() for e in self.events],
            "decisions": [d.to_dict() for d in self.decisions],
            "fake_outs": [e.to_dict() for e in self.fake_outs],
        }


def replay_pad_log(log: PadLog, speed: float | None = None) -> ReplayOutcome:
    """Drive mock pins with the log's edges and judge its races again.

    ``speed`` None: as fast as possible; otherwise real-time pacing divided by ``speed``
    (1.0 = as recorded). Either way each edge carries its recorded source time.
    """
    from hardware.mockpins import NsMockFactory

    events: list[PadEvent] = []
    with Table(log.config, NsMockFactory()) as table:
        table.bus.subscribe(events.append)
        start_wall = time.monotonic_ns()
        first = log.edges[0].t_ns if log.edges else 0
        for edge in sorted(log.edges, key=lambda e: e.t_ns):
            if speed is not None:
                due = start_wall + int((edge.t_ns - first) / speed)
                delay = due - time.monotonic_ns()
                if delay > 0:
                    time.sleep(delay / 1e9)
            table.drive(edge.seat, edge.device, edge.active, edge.t_ns)
    events = [PadEvent(e.seat, e.device, e.t_ns) for e in events]
    return ReplayOutcome(events, decide(log.marks, events), fake_outs(log.marks, events))
