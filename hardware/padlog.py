"""Record and replay pad logs (JSON lines): the GPIO half of hardware-in-the-loop tests.

A log is a header line, then one line per raw edge (with its source time and whether
debounce accepted it), race marks (a trigger the game saw: a Hit the Deck With A Hand
card, a Wash Dash "go") and the decisions the live table reached::

    {"pad_log": 1, "hardware": {...}, "clock": {...}, "active_at_start": {"0": {"pad": false}}}
    {"edge": {"t_ns": 1200, "seat": 0, "device": "pad", "active": true, "accepted": true}}
    {"mark": {"race": "last_slapper", "t_ns": 1000, "seats": [0, 1], "device": "pad", ...}}
    {"decision": {...RaceDecision.to_dict()...}}

The replayer drives ``NsMockFactory`` pins with the recorded edges — each stamped with its
recorded time, exactly as lgpio stamps an edge with the kernel's time — either as fast as
possible or paced at a speed factor, and recomputes the decisions from what the software
path delivers. Same log in, same decisions out.

``active_at_start`` is each input's state when the recording began (a pad may be held down):
the replayer starts its pins there, so the first recorded release is a release again and its
bounce is dropped as it was live. Logs without it start every input released.
``check_replay`` says what a replay could compare with its recording (the accepted flag of
every edge; the decisions, when the log has them) and what differed.
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
from hardware.table import Levels, Table
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
    """One raw edge; ``accepted`` None: the log did not say (a hand-written log)."""

    t_ns: int
    seat: int
    device: str
    active: bool
    accepted: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "t_ns": self.t_ns,
            "seat": self.seat,
            "device": self.device,
            "active": self.active,
        }
        if self.accepted is not None:
            out["accepted"] = self.accepted
        return out


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
    start: Levels = field(default_factory=dict)  # inputs pressed when recording began

    @property
    def replay_order(self) -> list[Edge]:
        """The edges as the replayer drives them: by time, ties in file order."""
        return sorted(self.edges, key=lambda e: e.t_ns)

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
        self._closed = False
        self._remove = table.add_edge_hook(
            self._on_edge, start=lambda levels: self._header(table, levels)
        )

    def _header(self, table: Table, levels: Levels) -> None:
        """The first line: the map, the clock and which inputs are held right now."""
        start: dict[str, dict[str, bool]] = {}
        for (seat, device), active in sorted(levels.items()):
            start.setdefault(str(seat), {})[device] = active
        self._write(
            {
                "pad_log": LOG_VERSION,
                "hardware": table.config.to_dict(),
                "clock": table.clock.describe(),
                "active_at_start": start,
            }
        )

    def _write(self, data: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:  # an edge taken before close, delivered after (Table: HW-7)
                return
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
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._own:
                self._fh.close()

    def __enter__(self) -> PadRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _wired(config: HardwareConfig) -> set[tuple[int, str]]:
    return {(seat, device) for seat, device, _pin in config.inputs()}


def _check_wired(seat: int, device: str, config: HardwareConfig, where: str) -> None:
    """An edge (or start state) of an input the header's map does not wire cannot be
    replayed: say so naming the line, rather than failing deep inside the replay."""
    if (seat, device) not in _wired(config):
        wired = ", ".join(f"{s}:{d}" for s, d, _pin in config.inputs())
        raise PadLogError(
            f"{where}: seat {seat} {device!r} is not wired in the header's map (wired: {wired})"
        )


def _json_int(entry: dict[str, Any], key: str, where: str) -> int:
    value = entry[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise PadLogError(f"{where}: bad entry: {key} must be a JSON integer, got {value!r}")
    return value


def _json_bool(value: Any, key: str, where: str) -> bool:
    """Only JSON true/false: ``bool("false")`` is True, which would turn a release into a
    press."""
    if not isinstance(value, bool):
        raise PadLogError(f"{where}: bad entry: {key} must be true or false, got {value!r}")
    return value


def _read_edge(e: Any, config: HardwareConfig, where: str) -> Edge:
    if not isinstance(e, dict):
        raise PadLogError(f"{where}: bad entry: an edge must be a JSON object")
    seat, device = _json_int(e, "seat", where), e["device"]
    if not isinstance(device, str):
        raise PadLogError(f"{where}: bad entry: device must be a string, got {device!r}")
    _check_wired(seat, device, config, where)
    accepted = e.get("accepted")
    return Edge(
        _json_int(e, "t_ns", where),
        seat,
        device,
        _json_bool(e["active"], "active", where),
        None if accepted is None else _json_bool(accepted, "accepted", where),
    )


def _read_mark(m: Any, where: str) -> RaceMark:
    if not isinstance(m, dict):
        raise PadLogError(f"{where}: bad entry: a mark must be a JSON object")
    seats = m.get("seats")
    if not isinstance(seats, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in seats
    ):
        raise PadLogError(f"{where}: bad entry: a mark's seats must be a list of seat numbers")
    return RaceMark.from_dict(m)


# RaceDecision.to_dict()'s keys: a decision without them can never equal a replayed one
DECISION_KEYS = ("kind", "seats", "tie", "reason", "trigger_ns", "rules", "evidence")


def _read_decision(d: Any, where: str) -> dict[str, Any]:
    """A recorded decision, compared as written with the replay's (``check_replay``): one
    that is no object, or lacks a key, would only read as "DECISIONS DIFFER"."""
    if not isinstance(d, dict):
        raise PadLogError(f"{where}: bad entry: a decision must be a JSON object")
    missing = [k for k in DECISION_KEYS if k not in d]
    if missing:
        raise PadLogError(f"{where}: bad entry: a decision needs {', '.join(missing)}")
    return d


def _read_start(raw: Any, config: HardwareConfig, where: str) -> Levels:
    """The header's ``active_at_start``: {"seat": {"device": true|false}}; absent in logs
    written before it existed, which then start every input released."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise PadLogError(f"{where}: active_at_start must map seats to {{device: true|false}}")
    levels: Levels = {}
    for key, devices in raw.items():
        if not (key.isascii() and key.isdigit()):
            raise PadLogError(f"{where}: active_at_start: {key!r} is not a seat number")
        for device, active in devices.items():
            _check_wired(int(key), device, config, f"{where}: active_at_start")
            levels[(int(key), device)] = _json_bool(active, "active_at_start", where)
    return levels


def _read_header(data: dict[str, Any], where: str) -> PadLog:
    if data.get("pad_log") != LOG_VERSION:
        raise PadLogError(f"{where}: the first line must be a pad_log {LOG_VERSION} header")
    try:
        config = parse_hardware(data["hardware"])
    except (KeyError, PinMapError) as exc:
        raise PadLogError(f"{where}: bad hardware header: {exc}") from None
    start = _read_start(data.get("active_at_start"), config, where)
    return PadLog(config, dict(data.get("clock", {})), start=start)


def read_pad_log(path: str | Path) -> PadLog:
    """Read and validate a pad log; PadLogError names the line of the first problem."""
    path = Path(path)
    log: PadLog | None = None
    for where, data in json_lines(path, PadLogError):
        if not isinstance(data, dict) or len(data) == 0:
            raise PadLogError(f"{where}: each line must be a JSON object")
        if log is None:
            log = _read_header(data, where)
            continue
        try:
            if "edge" in data:
                log.edges.append(_read_edge(data["edge"], log.config, where))
            elif "mark" in data:
                log.marks.append(_read_mark(data["mark"], where))
            elif "decision" in data:
                log.decisions.append(_read_decision(data["decision"], where))
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
    # per edge of ``PadLog.replay_order``: accepted (True), dropped (False), or None when
    # driving it changed nothing (the pin was already there: the replay has diverged)
    accepted: list[bool | None] = field(default_factory=list)

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
    seen: list[bool] = []  # the accepted flag of each edge the replayed table saw
    accepted: list[bool | None] = []
    with Table(log.config, NsMockFactory(), own_factory=True) as table:
        for (seat, device), active in log.start.items():
            table.set_state(seat, device, active)
        table.bus.subscribe(events.append)
        table.add_edge_hook(lambda _s, _d, _t, _a, ok: seen.append(ok))
        start_wall = time.monotonic_ns()
        edges = log.replay_order
        first = edges[0].t_ns if edges else 0
        for edge in edges:
            if speed is not None:
                due = start_wall + int((edge.t_ns - first) / speed)
                delay = due - time.monotonic_ns()
                if delay > 0:
                    time.sleep(delay / 1e9)
            before = len(seen)
            table.drive(edge.seat, edge.device, edge.active, edge.t_ns)
            accepted.append(seen[-1] if len(seen) > before else None)
    events = [PadEvent(e.seat, e.device, e.t_ns) for e in events]
    return ReplayOutcome(events, decide(log.marks, events), fake_outs(log.marks, events), accepted)


def _flag(accepted: bool | None) -> str:
    return {True: "accepted", False: "dropped", None: "no change on the pin"}[accepted]


@dataclass(frozen=True)
class ReplayCheck:
    """What a replay compared with its recording and what differed.

    A recording made by ``tabletop hw record`` holds edges with their accepted flags and no
    race marks or decisions (only a program calling ``PadRecorder.mark``/``.decision``
    writes those), so the accepted presses are what most replays can check. ``identical``
    is None when the log holds nothing to compare: never a "same" for an empty comparison.
    """

    edges_compared: int  # edges that carry a recorded accepted flag
    edge_differences: tuple[str, ...]  # one line per edge whose flag differs
    decisions_compared: int
    decisions_same: bool | None  # None: the log holds no decisions

    @property
    def identical(self) -> bool | None:
        if not self.edges_compared and self.decisions_same is None:
            return None
        return not self.edge_differences and self.decisions_same is not False

    def to_dict(self) -> dict[str, Any]:
        return {
            "identical": self.identical,
            "edges_compared": self.edges_compared,
            "edge_differences": list(self.edge_differences),
            "decisions_compared": self.decisions_compared,
            "decisions_same": self.decisions_same,
        }


def _accepted_differences(log: PadLog, outcome: ReplayOutcome) -> tuple[str, ...]:
    out = []
    for edge, replayed in zip(log.replay_order, outcome.accepted, strict=True):
        if edge.accepted is not None and replayed is not edge.accepted:
            what = "press" if edge.active else "release"
            out.append(
                f"seat {edge.seat} {edge.device} {what} at t={edge.t_ns}: recorded "
                f"{_flag(edge.accepted)}, replayed {_flag(replayed)}"
            )
    return tuple(out)


def check_replay(log: PadLog, outcome: ReplayOutcome) -> ReplayCheck:
    """Compare a replay with its recording: every edge's accepted flag (where the log has
    it) and the decisions (where it has them)."""
    same = None
    if log.decisions:
        same = [d.to_dict() for d in outcome.decisions] == log.decisions
    return ReplayCheck(
        edges_compared=sum(e.accepted is not None for e in log.edges),
        edge_differences=_accepted_differences(log, outcome),
        decisions_compared=len(log.decisions),
        decisions_same=same,
    )
