"""Race arbitration: who slapped last, who finished first — from timestamps only.

Pure functions over presses that already carry their source time (``t_ns``, monotonic
nanoseconds stamped at the pad, see docs/HARDWARE.md). No clock, no threads, no I/O:
the same presses always give the same decision, so a recorded game replays exactly.

Every decision carries its evidence — each seat's time relative to the trigger — so the
dashboard can show *why* a seat lost, and a ``reason`` sentence a family can read.

Rulings (docs/RULINGS.md):
* HW-1 a seat that never presses inside the window counts as last (all such seats are last).
* HW-2 presses closer than the clock's resolution (``tie_ns``) are a tie, never guessed.
* HW-3 early presses are ignored unless the early-press lockout is on; then a press inside
  the lockout span before the trigger locks the seat out of that race.
* HW-4 only a seat's first press counts (a bounce or a second slap cannot change the order).
* HW-5 a press outside every race window is a fake-out.
* HW-6 a press after the window is a miss; HW-8 nobody finishing means no winner;
  HW-9 presses from seats outside the race are not evidence.

A game that knows its players passes their ``names`` so the reason reads "Cy slapped last …
100 ms after Bob" like its other verdicts; the pad tools, which know only the hardware
config's seat numbers, get "Seat 2 slapped last … after seat 1".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.words import and_list

PRESSED = "pressed"
MISSED = "missed"
EARLY = "early"
LOCKED_OUT = "locked_out"
STATUSES = (PRESSED, MISSED, EARLY, LOCKED_OUT)


@dataclass(frozen=True, order=True)
class Press:
    """One pad or button press: which seat, and when it happened at the source."""

    seat: int
    t_ns: int

    def to_dict(self) -> dict[str, int]:
        return {"seat": self.seat, "t_ns": self.t_ns}


@dataclass(frozen=True)
class RaceRules:
    """How a race is judged.

    ``window_ns``: how long after the trigger a press still counts.
    ``tie_ns``: presses closer than this are indistinguishable (the clock's resolution).
    ``early_lockout_ns``: when set, a press this long (or less) before the trigger locks the
    seat out of the race; ``None`` (default) ignores early presses.
    """

    window_ns: int = 3_000_000_000
    tie_ns: int = 1_000
    early_lockout_ns: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.window_ns, int) or self.window_ns <= 0:
            raise ValueError(f"race window must be a positive number of ns, got {self.window_ns!r}")
        if not isinstance(self.tie_ns, int) or self.tie_ns < 0:
            raise ValueError(f"tie resolution must be ≥ 0 ns, got {self.tie_ns!r}")
        lock = self.early_lockout_ns
        if lock is not None and (not isinstance(lock, int) or lock < 0):
            raise ValueError(f"early lockout must be ≥ 0 ns or None, got {lock!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "window_ns": self.window_ns,
            "tie_ns": self.tie_ns,
            "early_lockout_ns": self.early_lockout_ns,
        }


@dataclass(frozen=True)
class SeatTiming:
    """One seat's evidence. ``t_ns``/``relative_ns`` are the press that decided its status
    (``None`` when the seat never pressed); ``ignored_ns`` lists other presses, relative
    to the trigger, that did not count (bounces, second slaps, late or early presses)."""

    seat: int
    t_ns: int | None
    relative_ns: int | None
    status: str  # "pressed" | "missed" | "early" | "locked_out"
    ignored_ns: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "t_ns": self.t_ns,
            "relative_ns": self.relative_ns,
            "relative_ms": None if self.relative_ns is None else self.relative_ns / 1e6,
            "status": self.status,
            "ignored_ns": list(self.ignored_ns),
        }


@dataclass(frozen=True)
class RaceDecision:
    """The outcome: ``seats`` are the losers (last slapper) or winners (first finisher);
    several seats with ``tie`` set when the clock cannot separate them (HW-2), or when
    several seats never pressed (HW-1, last slapper)."""

    seats: tuple[int, ...]
    tie: bool
    evidence: tuple[SeatTiming, ...]
    reason: str
    kind: str = "last_slapper"
    trigger_ns: int = 0
    rules: RaceRules = field(default_factory=RaceRules)

    def timing(self, seat: int) -> SeatTiming:
        for item in self.evidence:
            if item.seat == seat:
                return item
        raise KeyError(seat)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "seats": list(self.seats),
            "tie": self.tie,
            "reason": self.reason,
            "trigger_ns": self.trigger_ns,
            "rules": self.rules.to_dict(),
            "evidence": [e.to_dict() for e in self.evidence],
        }


def _ms(ns: int) -> str:
    """A duration for people, in a unit that shows the difference."""
    if abs(ns) >= 1_000_000_000:
        return f"{ns / 1e9:.2f} s"
    if abs(ns) >= 100_000_000:
        return f"{ns / 1e6:.0f} ms"
    if abs(ns) >= 1_000_000:
        return f"{ns / 1e6:.1f} ms"
    if abs(ns) >= 1_000:
        return f"{ns / 1e3:.0f} µs"
    return f"{ns} ns"


Names = Sequence[str] | None


def _who(seat: int, names: Names) -> str:
    """How a sentence calls a seat: the player's name when the caller knows it.

    A game's verdicts name players ("It is Bob's turn"); internal seats count from 0, and a
    bare "seat 2" on a tablet reads like the second player. Without names (the pad tools,
    whose seats are the hardware config's numbers) it stays "seat N".
    """
    return names[seat] if names is not None else f"seat {seat}"


def _cap(text: str, names: Names) -> str:
    """A sentence that starts with a seat: "seat 1 …" → "Seat 1 …". A player's name stays as
    the family typed it, as in the games' other verdicts ("It is bob's turn")."""
    return text if names is not None else text[:1].upper() + text[1:]


def _seat_list(seats: Sequence[int], names: Names = None) -> str:
    return and_list([_who(s, names) for s in seats])


def _check_seats(seats: Sequence[int]) -> tuple[int, ...]:
    out = tuple(seats)
    if not out:
        raise ValueError("a race needs at least one seat")
    if len(set(out)) != len(out):
        raise ValueError(f"seats must be different, got {list(out)}")
    return out


def _timings(
    trigger_ns: int, seats: Sequence[int], presses: Iterable[Press], rules: RaceRules
) -> tuple[SeatTiming, ...]:
    """Each seat's status: its first in-window press decides (HW-4); HW-3 for early ones."""
    by_seat: dict[int, list[int]] = {s: [] for s in seats}
    for press in presses:
        if press.seat in by_seat:
            by_seat[press.seat].append(press.t_ns)
    end = trigger_ns + rules.window_ns
    out = []
    for seat in seats:
        times = sorted(by_seat[seat])
        early = [t for t in times if t < trigger_ns]
        inside = [t for t in times if trigger_ns <= t <= end]
        late = [t for t in times if t > end]
        lock = rules.early_lockout_ns
        locking = [t for t in early if lock is not None and trigger_ns - t <= lock]
        if locking:
            first = locking[0]
            others = list(times)
            others.remove(first)
            ignored = tuple(t - trigger_ns for t in others)
            out.append(SeatTiming(seat, first, first - trigger_ns, LOCKED_OUT, ignored))
        elif inside:
            first = inside[0]
            ignored = tuple(t - trigger_ns for t in early + inside[1:] + late)
            out.append(SeatTiming(seat, first, first - trigger_ns, PRESSED, ignored))
        elif early:
            last_early = early[-1]
            ignored = tuple(t - trigger_ns for t in early[:-1] + late)
            out.append(SeatTiming(seat, last_early, last_early - trigger_ns, EARLY, ignored))
        else:
            out.append(SeatTiming(seat, None, None, MISSED, tuple(t - trigger_ns for t in late)))
    return tuple(out)


def _pressed_times(evidence: Sequence[SeatTiming]) -> dict[int, int]:
    """Seat → time of its counting press, for the seats that pressed inside the window."""
    return {e.seat: e.t_ns for e in evidence if e.status == PRESSED and e.t_ns is not None}


def _absent_reason(e: SeatTiming, window: str, names: Names, start: str) -> str:
    before = _ms(-(e.relative_ns or 0))
    who = _who(e.seat, names)
    if e.status == EARLY:
        return f"{who} only slapped before {start} ({before} early)"
    if e.status == LOCKED_OUT:
        return f"{who} slapped {before} before {start} and is locked out"
    return f"{who} did not slap within {window}"


def last_slapper(
    trigger_ns: int,
    seats: Sequence[int],
    presses: Sequence[Press],
    rules: RaceRules,
    names: Names = None,
    *,
    timed: bool = True,
) -> RaceDecision:
    """Who slapped last after ``trigger_ns`` (Hit the Deck With A Hand).

    Seats that did not slap inside the window — missed, only early, or locked out — are
    all last (HW-1). Otherwise the latest slap loses, together with every slap closer to
    it than ``rules.tie_ns`` (HW-2). ``names`` (indexed by seat) words the reason with the
    players' names instead of seat numbers. ``timed`` false: ``trigger_ns`` is not the
    card's time but the first slap's, standing in for it (HTD-14), and the reason says so.
    """
    start = "the card" if timed else "the first slap"
    seats = _check_seats(seats)
    evidence = _timings(trigger_ns, seats, presses, rules)
    times = _pressed_times(evidence)
    absent = [e for e in evidence if e.seat not in times]
    if absent:
        losers = tuple(e.seat for e in absent)
        window = _ms(rules.window_ns)
        reason = _cap(
            "; ".join(_absent_reason(e, window, names, start) for e in absent) + ".", names
        )
        if len(losers) > 1:
            both = "both" if len(losers) == 2 else "all"
            reason += f" {_cap(_seat_list(losers, names), names)} {both} count as last."
        else:
            reason += f" {_cap(_who(losers[0], names), names)} counts as last."
        tie = len(losers) > 1
        return RaceDecision(losers, tie, evidence, reason, "last_slapper", trigger_ns, rules)
    latest = max(times.values())
    tied = tuple(s for s, t in times.items() if latest - t < rules.tie_ns or t == latest)
    after = _ms(latest - trigger_ns)
    if len(tied) > 1:
        who = _cap(_seat_list(tied, names), names)
        reason = (
            f"{who} slapped {after} after {start}, closer together "
            f"than the clock can tell ({_ms(rules.tie_ns)}): a tie for last."
        )
        return RaceDecision(tied, True, evidence, reason, "last_slapper", trigger_ns, rules)
    loser = tied[0]
    others = sorted((t, s) for s, t in times.items() if s != loser)
    if others:
        t_prev, s_prev = others[-1]
        reason = (
            f"{_cap(_who(loser, names), names)} slapped last, {after} after {start} — "
            f"{_ms(latest - t_prev)} after {_who(s_prev, names)}."
        )
    else:
        reason = f"{_cap(_who(loser, names), names)} slapped {after} after {start} (the only seat)."
    return RaceDecision((loser,), False, evidence, reason, "last_slapper", trigger_ns, rules)


def first_finisher(
    start_ns: int,
    seats: Sequence[int],
    presses: Sequence[Press],
    rules: RaceRules,
    names: Names = None,
) -> RaceDecision:
    """Who pressed first after ``start_ns`` (Wash Dash "done", first bonus).

    Early and locked-out seats cannot win; presses closer to the first than ``rules.tie_ns``
    share the win (HW-2). Nobody inside the window → no winner (``seats`` empty).
    ``names`` as for ``last_slapper``.
    """
    seats = _check_seats(seats)
    evidence = _timings(start_ns, seats, presses, rules)
    times = _pressed_times(evidence)
    if not times:
        reason = f"Nobody pressed within {_ms(rules.window_ns)} of the start."
        return RaceDecision((), False, evidence, reason, "first_finisher", start_ns, rules)
    first = min(times.values())
    tied = tuple(s for s, t in times.items() if t - first < rules.tie_ns or t == first)
    after = _ms(first - start_ns)
    if len(tied) > 1:
        who = _cap(_seat_list(tied, names), names)
        reason = (
            f"{who} pressed {after} after the start, closer together "
            f"than the clock can tell ({_ms(rules.tie_ns)}): a tie for first."
        )
        return RaceDecision(tied, True, evidence, reason, "first_finisher", start_ns, rules)
    winner = tied[0]
    others = sorted((t, s) for s, t in times.items() if s != winner)
    if others:
        t_next, s_next = others[0]
        reason = (
            f"{_cap(_who(winner, names), names)} was first, {after} after the start — "
            f"{_ms(t_next - first)} ahead of {_who(s_next, names)}."
        )
    else:
        reason = f"{_cap(_who(winner, names), names)} was first, {after} after the start."
    return RaceDecision((winner,), False, evidence, reason, "first_finisher", start_ns, rules)


def in_window(t_ns: int, trigger_ns: int | None, rules: RaceRules) -> bool:
    """Whether a press at ``t_ns`` belongs to the race started at ``trigger_ns``."""
    return trigger_ns is not None and trigger_ns <= t_ns <= trigger_ns + rules.window_ns


def fake_outs(
    presses: Sequence[Press], triggers: Sequence[int], rules: RaceRules
) -> tuple[Press, ...]:
    """Presses that belong to no race: a slap with no trigger (HW-5, Hit the Deck's
    "faked out"). A press inside an early-lockout span is the race's business, not a
    fake-out, when the lockout is on."""
    lock = rules.early_lockout_ns or 0
    out = []
    for press in presses:
        covered = any(trig - lock <= press.t_ns <= trig + rules.window_ns for trig in triggers)
        if not covered:
            out.append(press)
    return tuple(sorted(out, key=lambda p: (p.t_ns, p.seat)))


def first_presses(presses: Iterable[Press], debounce_ns: int) -> tuple[Press, ...]:
    """Collapse each seat's bursts: a press within ``debounce_ns`` of that seat's previous
    press is a bounce and is dropped, so the FIRST edge of a burst keeps its time."""
    last: dict[int, int] = {}
    out = []
    for press in sorted(presses, key=lambda p: (p.t_ns, p.seat)):
        prev = last.get(press.seat)
        last[press.seat] = press.t_ns
        if prev is not None and press.t_ns - prev < debounce_ns:
            continue
        out.append(press)
    return tuple(out)
