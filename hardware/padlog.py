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

``active_at_start`` is each input's state when the recording began (a pad may be held down)
and ``last_edge_ns`` the time of each input's latest edge before it (a release still
bouncing): the replayer starts its pins and their debounce there, so the first recorded release
is a release again and a bounce that came within the debounce of the recording's start is
dropped as it was live (HW-7). Logs without them start every input released and quiet.
``check_replay`` says what a replay could compare with its recording (the accepted flag of
every edge; the decisions, matched by race and trigger, when the log has them) and what
differed.

A recording cut short (a full disk, a power cut) ends in a line without its newline: the
reader replays what came before and says so (``PadLog.warnings``); a malformed line anywhere
else is an error naming it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from hardware.config import INPUTS, HardwareConfig, PinMapError, parse_hardware
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
# Times are nanoseconds on a 64-bit clock (lgpio's, CLOCK_MONOTONIC): a t_ns past it is no time
# a table can stamp (1e20 and 401-digit stamps ended in OverflowError tracebacks)
MIN_NS, MAX_NS = -(2**63), 2**63 - 1
# A paced replay (``speed`` set) refuses to wait longer than this between two edges: a gap of
# years (a hand-edited stamp) would otherwise hang it; ``--fast`` replays any gap at once
MAX_PACED_WAIT_NS = 7 * 24 * 3600 * 10**9


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
    where: str = field(default="", compare=False, repr=False)  # "FILE:LINE" when read

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
    # each input's latest edge before the recording began (its debounce state, HW-7)
    last_edges: dict[tuple[int, str], int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # read, but worth saying (a cut line)

    @property
    def replay_order(self) -> list[Edge]:
        """The edges as the replayer drives them: by time, ties in file order."""
        return sorted(self.edges, key=lambda e: e.t_ns)

    @property
    def accepted(self) -> list[PadEvent]:
        return [PadEvent(e.seat, e.device, e.t_ns) for e in self.edges if e.accepted]


def decide(marks: Iterable[RaceMark], events: Iterable[PadEvent]) -> list[RaceDecision]:
    """Judge every race mark from the accepted presses. A race sees the presses of its
    device after the previous race of that device closed, up to its own close (``_closes_at``)."""
    events = sorted(events, key=lambda e: (e.t_ns, e.seat))
    ordered = sorted(marks, key=lambda m: m.t_ns)
    closed: dict[str, int] = {}
    out = []
    for i, mark in enumerate(ordered):
        since = closed.get(mark.device)
        presses = [
            e.to_press()
            for e in events
            if e.device == mark.device and (since is None or e.t_ns > since)
        ]
        end = _closes_at(mark, presses, _next_start(ordered[i + 1 :], mark.device))
        counted = [p for p in presses if p.t_ns <= end]
        out.append(RACES[mark.race](mark.t_ns, mark.seats, counted, mark.rules))
        closed[mark.device] = end
    return out


def _next_start(later: Iterable[RaceMark], device: str) -> int | None:
    """Where the next race on ``device`` begins to claim presses: its trigger, less its
    early-lockout span (a slap there is that race's, HTD-17); None when there is none."""
    for mark in later:
        if mark.device == device:
            return mark.t_ns - (mark.rules.early_lockout_ns or 0)
    return None


def _closes_at(mark: RaceMark, presses: Sequence[Press], next_start: int | None) -> int:
    """The last time a race takes a press: its window's end; for a last-slapper race
    sooner, as the Hit the Deck referee closes it (HTD-13): the press that gives every seat
    a slap in the window, or just before the next race on its device begins (the next Hand
    card's slaps are that card's, HTD-17). ``presses`` in time order."""
    end = mark.t_ns + mark.rules.window_ns
    if mark.race != "last_slapper":
        return end
    if next_start is not None and next_start > mark.t_ns:  # a mark at the same time: no cut
        end = min(end, next_start - 1)
    waiting = set(mark.seats)
    for press in presses:
        if press.t_ns > end:
            break
        if press.t_ns >= mark.t_ns:
            waiting.discard(press.seat)
            if not waiting:
                return press.t_ns
    return end


@dataclass(frozen=True)
class LateSlap:
    """A slap after the window of the last-slapper race begun at ``race_t_ns`` and outside
    every other: the Hit the Deck referee gives it to that judged race and ignores it, unless
    a turn action came between, and then it is a fake-out (HTD-17). A pad log holds no turn
    actions, so the replay cannot tell: it is neither charged nor dropped, but said."""

    press: PadEvent
    race_t_ns: int

    def to_dict(self) -> dict[str, Any]:
        return {**self.press.to_dict(), "race_t_ns": self.race_t_ns}


def _claims(marks: Iterable[RaceMark]) -> list[tuple[int, int, int]]:
    """(first, last, trigger) of each last-slapper race's claim on slaps: its early-lockout
    span (HW-3) and its window."""
    return [
        (m.t_ns - (m.rules.early_lockout_ns or 0), m.t_ns + m.rules.window_ns, m.t_ns)
        for m in marks
        if m.race == "last_slapper"
    ]


def _outside(
    marks: Iterable[RaceMark], events: Iterable[PadEvent]
) -> list[tuple[PadEvent, int | None]]:
    """Slaps outside every last-slapper race's claim, each with the trigger of the race whose
    window ended last before it (None: no race came before it)."""
    claims = _claims(marks)
    out = []
    for e in sorted(events, key=lambda e: (e.t_ns, e.seat)):
        if e.device != "pad" or any(a <= e.t_ns <= b for a, b, _ in claims):
            continue
        ended = [(b, trigger) for _, b, trigger in claims if b < e.t_ns]
        out.append((e, max(ended)[1] if ended else None))
    return out


def fake_outs(marks: Iterable[RaceMark], events: Iterable[PadEvent]) -> list[PadEvent]:
    """Slaps before every last-slapper race (and its lockout span): ruling HW-5. One after a
    race's window is a late slap (``late_slaps``), not a fake-out: the referee ignores it
    when no turn action came between (HTD-17), and a pad log cannot say whether one did."""
    return [e for e, race in _outside(marks, events) if race is None]


def late_slaps(marks: Iterable[RaceMark], events: Iterable[PadEvent]) -> list[LateSlap]:
    """Slaps after a last-slapper race's window and outside every race: HTD-17's late slaps."""
    return [LateSlap(e, race) for e, race in _outside(marks, events) if race is not None]


class PadRecorder:
    """Appends a table's edges, race marks and decisions to a JSON-lines file.

    A write that fails (a full disk, a file-size limit) stops the recording: ``error`` keeps
    the first failure, nothing more is written, a file the recorder opened is cut back to its
    last whole line, and ``failed`` is set so that whoever records can stop and say so. An
    edge's failed write raises nothing on the table's thread (before: one logged traceback per
    edge); ``mark`` and ``decision``, called by the program recording, raise it.
    """

    def __init__(self, table: Table, out: str | Path | IO[str]) -> None:
        self._raw: IO[bytes] | None = None  # a file opened here: unbuffered, whole lines
        self._fh: IO[str] | None = None  # a stream handed in (its owner closes it)
        if isinstance(out, str | Path):
            self._raw = Path(out).open("wb", buffering=0)  # noqa: SIM115 (kept open)
        else:
            self._fh = out
        self._lock = threading.Lock()
        self._closed = False
        self._whole = 0  # bytes of the whole lines written
        self.error: OSError | None = None
        self.failed = threading.Event()
        self.lines_written = 0
        self.edges_written = 0
        self._remove = table.add_edge_hook(
            self._on_edge, start=lambda levels: self._header(table, levels)
        )

    def _header(self, table: Table, levels: Levels) -> None:
        """The first line: the map, the clock, which inputs are held right now and when each
        input's latest edge came (a release may still be bouncing: HW-7)."""
        start: dict[str, dict[str, bool]] = {}
        last: dict[str, dict[str, int]] = {}
        for (seat, device), active in sorted(levels.items()):
            start.setdefault(str(seat), {})[device] = active
            t_ns = table.last_edge_ns(seat, device)
            if t_ns is not None:
                last.setdefault(str(seat), {})[device] = t_ns
        self._write(
            {
                "pad_log": LOG_VERSION,
                "hardware": table.config.to_dict(),
                "clock": table.clock.describe(),
                "active_at_start": start,
                "last_edge_ns": last,
            }
        )

    def _write(self, data: dict[str, Any], *, edge: bool = False) -> None:
        line = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
        with self._lock:
            if self._closed or self.error is not None:  # closed: an edge taken before close,
                return  # delivered after (Table: HW-7); failed: the recording has stopped
            try:
                if self._raw is not None:
                    self._write_whole(line.encode("ascii"))  # json.dumps escapes the rest
                else:
                    assert self._fh is not None
                    self._fh.write(line)
                    self._fh.flush()
            except OSError as exc:
                self._stop(exc)
                return
            self.lines_written += 1
            self.edges_written += edge

    def _write_whole(self, data: bytes) -> None:
        assert self._raw is not None
        view = memoryview(data)
        while view:
            n = self._raw.write(view)
            if n is None:  # a non-blocking file: not one a recording can be written to
                raise BlockingIOError(11, "the file would block")
            view = view[n:]
        self._whole += len(data)

    def _stop(self, exc: OSError) -> None:
        """The first failed write: keep it, and cut the file back to its last whole line (a
        shorter file needs no space), so that what was recorded reads as a whole log."""
        self.error = exc
        if self._raw is not None and not self._raw.closed:
            with contextlib.suppress(OSError):  # the reader replays up to a cut last line
                os.ftruncate(self._raw.fileno(), self._whole)
        self.failed.set()

    def _raise_if_stopped(self) -> None:
        err = self.error
        if err is not None:
            raise OSError(err.errno, f"the recording stopped: {err.strerror or err}")

    def _on_edge(self, seat: int, device: str, t_ns: int, active: bool, accepted: bool) -> None:
        self._write({"edge": Edge(t_ns, seat, device, active, accepted).to_dict()}, edge=True)

    def mark(self, mark: RaceMark) -> None:
        self._write({"mark": mark.to_dict()})
        self._raise_if_stopped()

    def decision(self, decision: RaceDecision) -> None:
        self._write({"decision": decision.to_dict()})
        self._raise_if_stopped()

    def close(self) -> None:
        self._remove()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._raw is not None:
                try:
                    self._raw.close()
                except OSError as exc:  # nothing is buffered: a network file system's close
                    if self.error is None:
                        self._stop(exc)

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


def _json_ns(entry: dict[str, Any], key: str, where: str) -> int:
    """A time or duration in ns: a JSON integer a 64-bit clock can hold."""
    value = _json_int(entry, key, where)
    if not MIN_NS <= value <= MAX_NS:
        raise PadLogError(
            f"{where}: bad entry: {key} must fit in 64 bits (at most {MAX_NS}), "
            f"got a number of {len(str(abs(value)))} digits"
        )
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
        _json_ns(e, "t_ns", where),
        seat,
        device,
        _json_bool(e["active"], "active", where),
        None if accepted is None else _json_bool(accepted, "accepted", where),
        where,
    )


RULE_KEYS = ("window_ns", "tie_ns", "early_lockout_ns")


def _read_rules(raw: Any, where: str, whose: str = "a mark's") -> RaceRules:
    """A mark's (or decision's) rules: JSON integers (``true`` is no 1 ns window),
    ``early_lockout_ns`` may be null; a rule left out keeps its default."""
    if raw is None:
        return RaceRules()
    if not isinstance(raw, dict):
        raise PadLogError(f"{where}: bad entry: {whose} rules must be a JSON object")
    unknown = [k for k in raw if k not in RULE_KEYS]
    if unknown:
        raise PadLogError(
            f"{where}: bad entry: unknown rule {unknown[0]!r}; rules are {', '.join(RULE_KEYS)}"
        )
    values = {
        k: None if k == "early_lockout_ns" and raw[k] is None else _json_ns(raw, k, where)
        for k in raw
    }
    return RaceRules(**values)


def _read_mark(m: Any, where: str) -> RaceMark:
    """A race mark, checked here so that the replay never meets a mark it cannot judge."""
    if not isinstance(m, dict):
        raise PadLogError(f"{where}: bad entry: a mark must be a JSON object")
    race = m["race"]
    if not isinstance(race, str) or race not in RACES:
        raise PadLogError(f"{where}: bad entry (unknown race {race!r}; known: {', '.join(RACES)})")
    seats = m.get("seats")
    if not isinstance(seats, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in seats
    ):
        raise PadLogError(f"{where}: bad entry: a mark's seats must be a list of seat numbers")
    if not seats:
        raise PadLogError(f"{where}: bad entry: a mark needs at least one seat")
    if len(set(seats)) != len(seats):
        raise PadLogError(f"{where}: bad entry: a mark names a seat twice: {seats}")
    device = m.get("device", "")
    if not isinstance(device, str) or (device and device not in INPUTS):
        raise PadLogError(
            f"{where}: bad entry: a mark's device must be one of {', '.join(INPUTS)}, "
            f"got {device!r}"
        )
    rules = _read_rules(m.get("rules"), where)
    return RaceMark(race, _json_ns(m, "t_ns", where), tuple(seats), rules, device)


# RaceDecision.to_dict()'s keys: a decision without them can never equal a replayed one
DECISION_KEYS = ("kind", "seats", "tie", "reason", "trigger_ns", "rules", "evidence")


def _read_decision(d: Any, where: str) -> dict[str, Any]:
    """A recorded decision, compared with the replay's of the same race and trigger
    (``check_replay``): one that is no object, lacks a key or names no race it could be
    matched with would only read as "DECISIONS DIFFER"; a value of the wrong shape (rules
    that are no object of integers) would end the comparison in a traceback."""
    if not isinstance(d, dict):
        raise PadLogError(f"{where}: bad entry: a decision must be a JSON object")
    missing = [k for k in DECISION_KEYS if k not in d]
    if missing:
        raise PadLogError(f"{where}: bad entry: a decision needs {', '.join(missing)}")
    if not isinstance(d["kind"], str) or d["kind"] not in RACES:
        kind = d["kind"]
        raise PadLogError(f"{where}: bad entry (unknown race {kind!r}; known: {', '.join(RACES)})")
    _json_ns(d, "trigger_ns", where)
    if d["rules"] is None:  # _read_rules takes null for "the defaults": a decision has its own
        raise PadLogError(f"{where}: bad entry: a decision's rules must be a JSON object")
    _read_rules(d["rules"], where, "a decision's")
    _check_decided(d, where)
    return d


def _check_decided(d: dict[str, Any], where: str) -> None:
    """What a decision decided has the shape ``RaceDecision.to_dict`` gives it."""
    seats = d["seats"]
    if not isinstance(seats, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in seats
    ):
        raise PadLogError(f"{where}: bad entry: a decision's seats must be a list of seat numbers")
    _json_bool(d["tie"], "tie", where)
    if not isinstance(d["reason"], str):
        raise PadLogError(f"{where}: bad entry: a decision's reason must be a string")
    evidence = d["evidence"]
    if not isinstance(evidence, list) or not all(isinstance(e, dict) for e in evidence):
        raise PadLogError(
            f"{where}: bad entry: a decision's evidence must be a list of JSON objects"
        )


def _seat_key(key: str, what: str, where: str) -> int:
    if not (key.isascii() and key.isdigit()):
        raise PadLogError(f"{where}: {what}: {key!r} is not a seat number")
    return int(key)


def _per_input(raw: Any, what: str, shape: str, where: str) -> list[tuple[int, str, Any]]:
    """A header map {"seat": {"device": value}}: (seat, device, value) per entry."""
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise PadLogError(f"{where}: {what} must map seats to {{device: {shape}}}")
    return [
        (_seat_key(key, what, where), device, value)
        for key, devices in raw.items()
        for device, value in devices.items()
    ]


def _read_start(raw: Any, config: HardwareConfig, where: str) -> Levels:
    """The header's ``active_at_start``: {"seat": {"device": true|false}}; absent in logs
    written before it existed, which then start every input released."""
    if raw is None:
        return {}
    levels: Levels = {}
    for seat, device, active in _per_input(raw, "active_at_start", "true|false", where):
        _check_wired(seat, device, config, f"{where}: active_at_start")
        levels[(seat, device)] = _json_bool(active, "active_at_start", where)
    return levels


def _read_last_edges(raw: Any, config: HardwareConfig, where: str) -> dict[tuple[int, str], int]:
    """The header's ``last_edge_ns``: {"seat": {"device": t_ns}}, each input's latest edge
    before the recording began; absent in older logs, whose inputs then start quiet."""
    if raw is None:
        return {}
    out: dict[tuple[int, str], int] = {}
    for seat, device, t_ns in _per_input(raw, "last_edge_ns", "t_ns", where):
        _check_wired(seat, device, config, f"{where}: last_edge_ns")
        out[(seat, device)] = _json_ns({"last_edge_ns": t_ns}, "last_edge_ns", where)
    return out


def _read_header(data: dict[str, Any], where: str) -> PadLog:
    version = data.get("pad_log")
    if not isinstance(version, int) or isinstance(version, bool):  # True == 1 in Python
        raise PadLogError(f"{where}: the first line must be a pad_log {LOG_VERSION} header")
    if version != LOG_VERSION:
        newer = " (written by a newer tabletop)" if version > LOG_VERSION else ""
        raise PadLogError(
            f"{where}: a pad log of version {version}{newer}: this tabletop reads version "
            f"{LOG_VERSION}"
        )
    try:
        config = parse_hardware(data["hardware"])
    except (KeyError, PinMapError) as exc:
        raise PadLogError(f"{where}: bad hardware header: {exc}") from None
    clock = data.get("clock", {})
    if not isinstance(clock, dict):
        raise PadLogError(f"{where}: bad header: clock must be a JSON object, got {clock!r}")
    start = _read_start(data.get("active_at_start"), config, where)
    last = _read_last_edges(data.get("last_edge_ns"), config, where)
    return PadLog(config, dict(clock), start=start, last_edges=last)


def _cut_last_line(path: Path) -> int | None:
    """The number of the file's last line when the file does not end with a newline: a
    recording that stopped mid-line (a full disk, a power cut) ends so; None otherwise."""
    if not path.is_file():  # a folder, a missing file: the reader says so
        return None
    with path.open("rb") as fh:
        if fh.seek(0, os.SEEK_END) == 0:
            return None
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return None
        fh.seek(0)
        return fh.read().count(b"\n") + 1


def read_pad_log(path: str | Path) -> PadLog:
    """Read and validate a pad log; PadLogError names the line of the first problem.

    A last line cut short (no newline at its end, and not JSON) is no error: what came
    before it is the recording, and ``PadLog.warnings`` says that the line was left out."""
    path = Path(path)
    log: PadLog | None = None
    cut = _cut_last_line(path)
    lines = json_lines(path, PadLogError)
    while True:
        try:
            where, data = next(lines)
        except StopIteration:
            break
        except PadLogError as exc:
            if cut is None or not str(exc).startswith(f"{path}:{cut}: not JSON"):
                raise
            if log is None:
                raise PadLogError(
                    f"{path}:{cut}: the header was cut short (no newline at its end): "
                    "the recording stopped before it began"
                ) from None
            log.warnings.append(
                f"{path}:{cut}: the last line was cut short (no newline at its end: the "
                "recording stopped mid-line); replaying what came before it"
            )
            break
        if not isinstance(data, dict) or len(data) == 0:
            raise PadLogError(f"{where}: each line must be a JSON object")
        try:
            if log is None:
                log = _read_header(data, where)
            elif "edge" in data:
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
    # slaps after a race's window: neither fake-outs nor counted (HTD-17, ``late_slaps``)
    late_slaps: list[LateSlap] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": [e.to_dict() for e in self.events],
            "decisions": [d.to_dict() for d in self.decisions],
            "fake_outs": [e.to_dict() for e in self.fake_outs],
            "late_slaps": [s.to_dict() for s in self.late_slaps],
        }


def _span(ns: int | Fraction) -> str:
    """A long wait for people: years, days, hours, minutes or seconds."""
    s = float(ns) / 1e9
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s / 60:.3g} minutes" if s >= 60 else f"{s:.3g} s"


def _pace(edges: Sequence[Edge], speed: float) -> Fraction:
    """``speed`` as an exact fraction, once every wait it makes is known to be bounded: a
    gap of years between two edges (a hand-edited stamp), paced, would hang the replay."""
    if not (isinstance(speed, int | float) and math.isfinite(speed) and speed > 0):
        raise ValueError(f"replay speed must be a positive number, got {speed!r}")
    pace = Fraction(speed)
    for before, edge in itertools.pairwise(edges):
        wait = (edge.t_ns - before.t_ns) / pace
        if wait > MAX_PACED_WAIT_NS:
            raise PadLogError(
                f"{edge.where or f'the edge at t={edge.t_ns}'}: comes "
                f"{_span(edge.t_ns - before.t_ns)} after the edge before it; paced at speed "
                f"{speed:g} that is a wait of {_span(wait)}, more than "
                f"{_span(MAX_PACED_WAIT_NS)}: replay it as fast as possible (--fast)"
            )
    return pace


def replay_pad_log(log: PadLog, speed: float | None = None) -> ReplayOutcome:
    """Drive mock pins with the log's edges and judge its races again.

    ``speed`` None: as fast as possible; otherwise real-time pacing divided by ``speed``
    (1.0 = as recorded), a gap between two edges that would wait more than a week refused
    before anything is driven. Either way each edge carries its recorded source time, and
    each input starts in its recorded state and debounce (``active_at_start``,
    ``last_edge_ns``).
    """
    from hardware.mockpins import NsMockFactory

    edges = log.replay_order
    pace = None if speed is None else _pace(edges, speed)
    events: list[PadEvent] = []
    seen: list[bool] = []  # the accepted flag of each edge the replayed table saw
    accepted: list[bool | None] = []
    with Table(log.config, NsMockFactory(), own_factory=True) as table:
        for (seat, device), active in log.start.items():
            table.set_state(seat, device, active)
        for (seat, device), t_ns in log.last_edges.items():
            table.set_last_edge(seat, device, t_ns)
        table.bus.subscribe(events.append)
        table.add_edge_hook(lambda _s, _d, _t, _a, ok: seen.append(ok))
        start_wall = time.monotonic_ns()
        first = edges[0].t_ns if edges else 0
        for edge in edges:
            if pace is not None:  # in integer ns: no float overflows, however long the log
                due = start_wall + int((edge.t_ns - first) / pace)
                delay = due - time.monotonic_ns()
                if delay > 0:
                    time.sleep(delay / 1e9)
            before = len(seen)
            table.drive(edge.seat, edge.device, edge.active, edge.t_ns)
            accepted.append(seen[-1] if len(seen) > before else None)
    events = [PadEvent(e.seat, e.device, e.t_ns) for e in events]
    return ReplayOutcome(
        events,
        decide(log.marks, events),
        fake_outs(log.marks, events),
        accepted,
        late_slaps(log.marks, events),
    )


def _flag(accepted: bool | None) -> str:
    return {True: "accepted", False: "dropped", None: "no change on the pin"}[accepted]


@dataclass(frozen=True)
class ReplayCheck:
    """What a replay compared with its recording and what differed.

    A recording made by ``tabletop hw record`` holds edges with their accepted flags and no
    race marks or decisions (only a program calling ``PadRecorder.mark``/``.decision``
    writes those), so the accepted presses are what most replays can check. ``identical``
    is None when the log holds nothing to compare: never a "same" for an empty comparison.

    A recorded decision is compared with the replay's decision of the same race (``kind``)
    and trigger, wherever each list has it (a program may write each decision when its race
    closes: a long race started first closes last), on what was decided: ``seats``,
    ``tie``, ``rules`` and ``evidence``; the ``reason`` is words made from those (with the
    players' names, when the game gave them), so it is not compared. A race the replay
    judged that the log holds no decision for (the recording stopped before it closed) is
    counted in ``decisions_not_recorded``, not as a difference.
    """

    edges_compared: int  # edges that carry a recorded accepted flag
    edge_differences: tuple[str, ...]  # one line per edge whose flag differs
    decisions_compared: int
    decisions_same: bool | None  # None: the log holds no decisions
    decision_differences: tuple[str, ...] = ()  # one line per recorded decision that differs
    decisions_not_recorded: int = 0  # replayed races with no recorded decision

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
            "decision_differences": list(self.decision_differences),
            "decisions_not_recorded": self.decisions_not_recorded,
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


DECIDED = ("seats", "tie", "rules", "evidence")  # what a decision decided (not its words)


def _js(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def _evidence_difference(recorded: Any, replayed: list[dict[str, Any]]) -> str:
    """The first seat whose evidence differs, field by field."""
    if not isinstance(recorded, list) or len(recorded) != len(replayed):
        return f"evidence recorded {_js(recorded)}, replayed {_js(replayed)}"
    for rec, rep in zip(recorded, replayed, strict=True):
        if rec != rep:
            if not isinstance(rec, dict):
                return f"evidence recorded {_js(rec)}, replayed {_js(rep)}"
            keys = [k for k in rep if rec.get(k) != rep[k]] + [k for k in rec if k not in rep]
            fields = "; ".join(
                f"{k} recorded {_js(rec.get(k))}, replayed {_js(rep.get(k))}" for k in keys
            )
            return f"evidence of seat {rep.get('seat')}: {fields}"
    return "evidence differs"


def _decision_difference(recorded: dict[str, Any], replayed: dict[str, Any]) -> str | None:
    parts = []
    for key in DECIDED:
        if recorded[key] == replayed[key]:
            continue
        if key == "evidence":
            parts.append(_evidence_difference(recorded[key], replayed[key]))
        else:
            parts.append(f"{key} recorded {_js(recorded[key])}, replayed {_js(replayed[key])}")
    return "; ".join(parts) or None


def _decision_differences(
    recorded: list[dict[str, Any]], replayed: list[RaceDecision]
) -> tuple[tuple[str, ...], int]:
    """Each recorded decision against the replay's of the same race and trigger (in file
    order among races of the same kind and trigger); and how many replayed races had none."""
    waiting: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for d in replayed:
        waiting.setdefault((d.kind, d.trigger_ns), []).append(d.to_dict())
    out = []
    for rec in recorded:
        kind, trigger = rec["kind"], rec["trigger_ns"]
        same_race = waiting.get((kind, trigger))
        if not same_race:
            out.append(f"{kind} at t={trigger}: recorded, but the replay judged no such race")
            continue
        why = _decision_difference(rec, same_race.pop(0))
        if why is not None:
            out.append(f"{kind} at t={trigger}: {why}")
    # a replayed race with no recorded decision is one the recording stopped before, unless a
    # race closing later had its decision recorded: then the live table never decided it
    last_close = max((_closes(rec) for rec in recorded), default=None)
    not_recorded = 0
    for (kind, trigger), left in waiting.items():
        for d in left:
            if last_close is not None and _closes(d) <= last_close:
                out.append(
                    f"{kind} at t={trigger}: decided in the replay, but the log holds no "
                    "decision for it (and holds those of races closing later)"
                )
            else:
                not_recorded += 1
    return tuple(out), not_recorded


def _closes(decision: Mapping[str, Any]) -> int:
    """When a decision's race closed at the latest: its trigger plus its window (the reader
    checked both: integers within 64 bits)."""
    window = decision["rules"].get("window_ns", RaceRules().window_ns)
    return int(decision["trigger_ns"]) + int(window)


def check_replay(log: PadLog, outcome: ReplayOutcome) -> ReplayCheck:
    """Compare a replay with its recording: every edge's accepted flag (where the log has
    it) and the decisions (where it has them), matched by race and trigger."""
    same = None
    differences: tuple[str, ...] = ()
    not_recorded = 0
    if log.decisions:
        differences, not_recorded = _decision_differences(log.decisions, outcome.decisions)
        same = not differences
    return ReplayCheck(
        edges_compared=sum(e.accepted is not None for e in log.edges),
        edge_differences=_accepted_differences(log, outcome),
        decisions_compared=len(log.decisions),
        decisions_same=same,
        decision_differences=differences,
        decisions_not_recorded=not_recorded,
    )
