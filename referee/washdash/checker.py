"""The pure task check: does this dryer state complete this task under these events?

``satisfies(task, dryer, events_in_force)`` never raises on a strange dryer; it answers
``Check(ok, reason)`` with a sentence a family understands. Rulings:

* WD-2 the bar rule: two pins on one bar must hold a common piece (a piece held by two
  pins has both on its bar; otherwise each pin is on a bar of its own).
* WD-4 pieces and pins that hang apart from the task (not touching its pieces or pins)
  are ignored by default; option ``extra_items="forbid"`` makes them fail the task.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from referee.washdash.dryer import Dryer, HungPiece
from referee.washdash.pieces import ANY, BARS, EventCard, Piece, PinColor, parse_event_card
from referee.washdash.tasks import (
    Task,
    TaskError,
    TaskGraph,
    describe_hangings,
    graph_matches,
    opposite,
)
from referee.words import and_list

EXTRA_IGNORE = "ignore"
EXTRA_FORBID = "forbid"


@dataclass(frozen=True)
class Check:
    ok: bool
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "reason": self.reason}


def in_force(events: Iterable[EventCard | str]) -> frozenset[EventCard]:
    return frozenset(e if isinstance(e, EventCard) else parse_event_card(e) for e in events)


def effective_task(task: Task, events: Iterable[EventCard | str] = ()) -> Task:
    """The task as it must be hung this round (Opposite swaps clothes and pins)."""
    return opposite(task) if EventCard.OPPOSITE in in_force(events) else task


def dryer_graph(dryer: Dryer) -> tuple[TaskGraph, tuple[int, ...], tuple[int, ...]]:
    """The dryer as a graph, with the bar of each piece node and of each pin node."""
    hung = dryer.hung()
    pins: list[str] = []
    pin_bar: list[int] = []
    edges = set()
    for p, (bar, h) in enumerate(hung):
        for pin in h.pins:
            if pin.value not in pins:
                pins.append(pin.value)
                pin_bar.append(bar)
            edges.add((p, pins.index(pin.value)))
    graph = TaskGraph(tuple(h.piece.value for _, h in hung), tuple(pins), frozenset(edges))
    return graph, tuple(b for b, _ in hung), tuple(pin_bar)


def _fits(want: str, have: str) -> bool:
    return want in (ANY, have)


def _bar_clash(graph: TaskGraph, pin_bar: tuple[int, ...], pins: Iterable[int]) -> str | None:
    """WD-2: the first pair of pins sharing a bar without holding a common piece."""
    used = sorted(pins)
    for i, a in enumerate(used):
        for b in used[i + 1 :]:
            if pin_bar[a] == pin_bar[b] and not set(graph.pieces_of(a)) & set(graph.pieces_of(b)):
                return (
                    f"the {graph.pins[a]} and {graph.pins[b]} pins are both on bar "
                    f"{pin_bar[a] + 1} without holding the same piece: each pin must be on "
                    "a bar of its own"
                )
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _explain(want: TaskGraph, have: TaskGraph, dryer: Dryer, exact: bool) -> str:
    """Why no placement works: the most specific thing a family can fix."""
    for spec in want.pieces:
        if spec != ANY and spec not in have.pieces:
            return f"the card needs the {Piece(spec).label}, but it is not on the dryer"
    for spec in want.pins:
        if spec != ANY and spec not in have.pins:
            return f"the card needs the {PinColor(spec).label}, but it is not on the dryer"
    if exact and len(have.pieces) != len(want.pieces):
        return (
            f"the card shows {_plural(len(want.pieces), 'piece')} but the dryer holds "
            f"{len(have.pieces)}: nothing else may hang on it"
        )
    if exact and len(have.pins) != len(want.pins):
        return (
            f"the card shows {_plural(len(want.pins), 'pin')} but the dryer uses "
            f"{len(have.pins)}: nothing else may hang on it"
        )
    for p, spec in enumerate(want.pieces):
        if spec == ANY:
            continue
        need = sorted(want.pins[q] for q in want.pins_of(p))
        j = have.pieces.index(spec)
        got = sorted(have.pins[q] for q in have.pins_of(j))
        label = Piece(spec).label
        if len(need) != len(got):
            return (
                f"the {label} must be held by {_plural(len(need), 'pin')}, "
                f"but it is held by {len(got)}"
            )
        if ANY not in need and need != got:
            return (
                f"the {label} must be held by the {' and '.join(need)} "
                f"{'pins' if len(need) > 1 else 'pin'}, but it is held by the "
                f"{' and '.join(got) or 'no'} {'pins' if len(got) > 1 else 'pin'}"
            )
    return _pin_sharing(want, have) or (
        f"the pieces and pins are not hung as the card shows; the dryer has {dryer.to_text()}"
    )


def _pin_sharing(want: TaskGraph, have: TaskGraph) -> str | None:
    """Which pieces share a pin, for cards whose colours and counts are right on the dryer:
    what a transparent pin leaves to the family (WD-3: one pin holding two pieces, or each
    piece on a pin of its own)."""
    for q in range(len(want.pins)):
        named = [want.pieces[p] for p in want.pieces_of(q) if want.pieces[p] != ANY]
        if len(named) > 1 and not set.intersection(*(_pins_on(have, n) for n in named)):
            return (
                f"{_pieces(named)} must {'both' if len(named) == 2 else 'all'} hang on the same pin"
            )
    for p, spec in enumerate(want.pieces):
        partners = {want.pieces[o] for q in want.pins_of(p) for o in want.pieces_of(q)} - {spec}
        if spec == ANY or ANY in partners:  # a transparent partner may be any piece
            continue
        shared = _pins_on(have, spec)
        extra = sorted(
            {have.pieces[o] for q in shared for o in have.pieces_of(q)} - partners - {spec}
        )
        if extra and not partners:
            own = "pins of its own" if len(want.pins_of(p)) > 1 else "a pin of its own"
            return f"the {Piece(spec).label} must hang on {own}, not with {_pieces(extra)}"
        if extra:
            return f"the {Piece(spec).label} must not share a pin with {_pieces(extra)}"
    return None


def _pins_on(graph: TaskGraph, spec: str) -> set[int]:
    return set(graph.pins_of(graph.pieces.index(spec)))


def _pieces(specs: list[str]) -> str:
    return and_list([f"the {Piece(s).label}" for s in specs])


def satisfies(
    task: Task,
    dryer: Dryer,
    events_in_force: Iterable[EventCard | str] = (),
    *,
    extra_items: str = EXTRA_IGNORE,
) -> Check:
    """Whether ``dryer`` completes ``task`` this round (ruling WD-2, WD-4; Opposite)."""
    if extra_items not in (EXTRA_IGNORE, EXTRA_FORBID):
        raise ValueError(f"extra_items must be {EXTRA_IGNORE!r} or {EXTRA_FORBID!r}")
    return _satisfies(task, dryer, in_force(events_in_force), extra_items)


@lru_cache(maxsize=4096)
def _satisfies(task: Task, dryer: Dryer, events: frozenset[EventCard], extra_items: str) -> Check:
    """Cached: a pure function of hashable values (a still camera repeats its readings)."""
    target = effective_task(task, events)
    prefix = ""
    if EventCard.OPPOSITE in events:
        prefix = f"With Opposite the card means {target.describe()}. "
    problems = dryer.problems()
    if problems:
        return Check(
            False, prefix + "The dryer reading cannot be right: " + "; ".join(problems) + "."
        )
    want = target.graph()
    have, _, pin_bar = dryer_graph(dryer)
    exact = extra_items == EXTRA_FORBID
    clash = None
    for _pmap, qmap in graph_matches(want, have, _fits, _fits, exact=exact):
        clash = _bar_clash(have, pin_bar, qmap)
        if clash is None:
            done = "Done." if prefix else f"Done: {describe_hangings(target.hangings)}."
            return Check(True, prefix + done)
    why = clash or _explain(want, have, dryer, exact)
    return Check(False, prefix + "Not done: " + why + ".")


def example_dryer(task: Task, events_in_force: Iterable[EventCard | str] = ()) -> Dryer:
    """A dryer that completes ``task`` (wildcards filled with unused parts, each connected
    group of pieces and pins on a bar of its own). Used to validate the deck and to play
    random games; raises TaskError when the task cannot be hung on one dryer."""
    target = effective_task(task, events_in_force)
    g = target.graph()
    free_pieces = [p for p in Piece if p.value not in g.pieces]
    free_pins = [c for c in PinColor if c.value not in g.pins]
    pieces = [Piece(s) if s != ANY else free_pieces.pop(0) for s in g.pieces]
    pins = [PinColor(s) if s != ANY else free_pins.pop(0) for s in g.pins]
    # connected components, in piece order
    comp: dict[int, int] = {}
    for start in range(len(pieces)):
        if start in comp:
            continue
        label = len(set(comp.values()))
        stack = [start]
        while stack:
            p = stack.pop()
            if p in comp:
                continue
            comp[p] = label
            for q in g.pins_of(p):
                stack.extend(g.pieces_of(q))
    groups = sorted(set(comp.values()))
    if len(groups) > BARS:
        raise TaskError(f"the task needs {len(groups)} bars; a dryer has {BARS}")
    bars: list[list[HungPiece]] = [[] for _ in range(BARS)]
    for p, piece in enumerate(pieces):
        bars[comp[p]].append(HungPiece(piece, tuple(pins[q] for q in g.pins_of(p))))
    dryer = Dryer(tuple(tuple(b) for b in bars))
    check = satisfies(target, dryer)
    if not check.ok:
        raise TaskError(f"the task {task} cannot be hung on one dryer: {check.reason}")
    return dryer


__all__ = [
    "EXTRA_FORBID",
    "EXTRA_IGNORE",
    "Check",
    "dryer_graph",
    "effective_task",
    "example_dryer",
    "in_force",
    "satisfies",
]
