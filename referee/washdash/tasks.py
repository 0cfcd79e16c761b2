"""Task cards as data, and the Opposite event as a transform on them.

A task is a list of *hangings*; each hanging is one piece of clothing (a specific piece
or ``any``) and the pins that hold it (specific colours or ``any``). Written compactly:

    "pants:red; dress:yellow; shirt:blue"      fig. 4a
    "any:blue+yellow"                          fig. 4b
    "pants:red; shirt:red"                     fig. 4c (one red pin holds both)

A colour names one physical pin (a player owns one of each), so the same colour in two
hangings is the same pin. Each ``any`` pin is a different pin; a wildcard pin that holds
two pieces is written with a name, ``any1`` … ``any9`` (same name = same pin) — Opposite
needs that (ruling WD-3).

Internally a task is a bipartite graph (``TaskGraph``): piece nodes, pin nodes, and an
edge for "this pin holds this piece". Opposite (fig. 5c) swaps the two sides, turning a
pin into the piece of its colour and a piece into the pin of its colour, so applying it
twice gives the same task back.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee.jsonlines import shown
from referee.washdash.pieces import (
    ANY,
    COLOR_PIECE,
    PIECE_COLOR,
    PIECE_NAMES,
    PIN_NAMES,
    PartError,
    Piece,
    PinColor,
)
from referee.words import and_list

_NAMED_ANY = re.compile(r"^any[1-9]$")


class TaskError(ValueError):
    """A task that cannot be read or cannot be done; the message says why."""


def _piece_token(token: Any) -> str:
    text = str(token).strip().lower()
    if text == ANY or text in PIECE_NAMES:
        return text
    raise TaskError(f"unknown piece {shown(token)}; use {', '.join(PIECE_NAMES)} or any")


def _pin_token(token: Any) -> str:
    text = str(token).strip().lower()
    if text == ANY or text in PIN_NAMES or _NAMED_ANY.match(text):
        return text
    raise TaskError(f"unknown pin {shown(token)}; use {', '.join(PIN_NAMES)}, any or any1…any9")


def is_wild(token: str) -> bool:
    return token == ANY or bool(_NAMED_ANY.match(token))


@dataclass(frozen=True)
class Hanging:
    """One piece (``pants``/``dress``/``shirt``/``any``) and the pins that hold it."""

    piece: str
    pins: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "piece", _piece_token(self.piece))
        object.__setattr__(self, "pins", tuple(_pin_token(p) for p in self.pins))
        if not self.pins:
            raise TaskError(f"the {self.piece} on a task card needs at least one pin")
        named = [p for p in self.pins if p != ANY]
        if len(set(named)) != len(named):
            raise TaskError(f"the {self.piece} lists the same pin twice")

    def to_text(self) -> str:
        return f"{self.piece}:{'+'.join(self.pins)}"

    def to_dict(self) -> dict[str, Any]:
        return {"piece": self.piece, "pins": list(self.pins)}


@dataclass(frozen=True)
class TaskGraph:
    """Pieces and pins as nodes (their specs: a name or ``any``), edges = pin holds piece."""

    pieces: tuple[str, ...]
    pins: tuple[str, ...]
    edges: frozenset[tuple[int, int]]  # (piece index, pin index)

    def pins_of(self, piece: int) -> tuple[int, ...]:
        return tuple(sorted(q for p, q in self.edges if p == piece))

    def pieces_of(self, pin: int) -> tuple[int, ...]:
        return tuple(sorted(p for p, q in self.edges if q == pin))


@dataclass(frozen=True)
class Task:
    hangings: tuple[Hanging, ...]

    def __post_init__(self) -> None:
        if not self.hangings:
            raise TaskError("a task needs at least one piece to hang")
        named = [h.piece for h in self.hangings if h.piece != ANY]
        if len(set(named)) != len(named):
            raise TaskError("a task cannot ask for the same piece twice (each player has one)")
        graph = self.graph()
        if len(graph.pieces) > len(PIECE_NAMES):
            raise TaskError(f"a task can use at most {len(PIECE_NAMES)} pieces")
        if len(graph.pins) > len(PIN_NAMES):
            raise TaskError(f"a task can use at most {len(PIN_NAMES)} pins")

    # --- reading and writing -------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Task:
        """Compact form: hangings separated by ``;`` (or spaces), ``piece:pin+pin``."""
        parts = [p for p in re.split(r"[;,\s]+", str(text).strip()) if p]
        hangings = []
        for part in parts:
            piece, sep, pins = part.partition(":")
            if not sep or not pins:
                raise TaskError(f"{shown(part)} should look like piece:pin or piece:pin+pin")
            hangings.append(Hanging(piece, tuple(pins.split("+"))))
        return Task(tuple(hangings))

    @staticmethod
    def from_data(data: Any) -> Task:
        """A compact string, or a list of ``{"piece": …, "pins": […]}`` objects."""
        if isinstance(data, str):
            return Task.parse(data)
        if isinstance(data, Sequence):
            hangings = []
            for item in data:
                if not isinstance(item, Mapping) or "piece" not in item or "pins" not in item:
                    raise TaskError('each hanging needs "piece" and "pins"')
                pins = item["pins"]
                if isinstance(pins, str) or not isinstance(pins, Sequence):
                    raise TaskError('"pins" must be a list of pin colours')
                hangings.append(Hanging(item["piece"], tuple(pins)))
            return Task(tuple(hangings))
        raise TaskError("a task is a string like 'pants:red' or a list of hangings")

    def to_text(self) -> str:
        return "; ".join(h.to_text() for h in self.hangings)

    def to_dict(self) -> list[dict[str, Any]]:
        return [h.to_dict() for h in self.hangings]

    def __str__(self) -> str:
        return self.to_text()

    # --- structure -----------------------------------------------------------------
    def graph(self) -> TaskGraph:
        pins: list[str] = []
        index: dict[str, int] = {}
        edges = set()
        for p, hanging in enumerate(self.hangings):
            for token in hanging.pins:
                if token == ANY:
                    pins.append(ANY)
                    q = len(pins) - 1
                else:
                    if token not in index:
                        pins.append(ANY if is_wild(token) else token)
                        index[token] = len(pins) - 1
                    q = index[token]
                edges.add((p, q))
        return TaskGraph(tuple(h.piece for h in self.hangings), tuple(pins), frozenset(edges))

    @staticmethod
    def from_graph(graph: TaskGraph) -> Task:
        """Hangings in piece order; a wildcard pin holding several pieces gets a name."""
        names: dict[int, str] = {}
        for q, spec in enumerate(graph.pins):
            if spec == ANY and len(graph.pieces_of(q)) > 1:
                names[q] = f"any{len(names) + 1}"
        hangings = []
        for p, spec in enumerate(graph.pieces):
            tokens = tuple(names.get(q, graph.pins[q]) for q in graph.pins_of(p))
            hangings.append(Hanging(spec, tokens))
        return Task(tuple(hangings))

    def describe(self) -> str:
        """For a family: "the blue pants with the red pin and the red dress with …"."""
        return describe_hangings(self.hangings)


class _Words:
    """A task's parts in words, said in card order. WD-3: each transparent part is a
    different part, so one said after a part of its kind is "other" ("any other pin")."""

    def __init__(self, hangings: tuple[Hanging, ...]) -> None:
        self.wild_pieces = sum(h.piece == ANY for h in hangings)
        self.piece_said: dict[int, str] = {}  # hanging index -> its words, once said
        self.pin_said = False

    def piece(self, index: int, token: str) -> str:
        if index in self.piece_said:  # a piece on two shared pins: said again
            return self._again(index, token)
        if token != ANY:
            words = f"the {Piece(token).label}"
        else:
            words = "any other piece" if self.piece_said else "any piece"
        self.piece_said[index] = words
        return words

    def _again(self, index: int, token: str) -> str:
        if token != ANY:
            return f"the {Piece(token).label}"
        if self.wild_pieces == 1:
            return "that same piece"
        wild = [i for i in sorted(self.piece_said) if self.piece_said[i].startswith("any")]
        return f"the {('first', 'second', 'third')[wild.index(index)]} piece of any kind"

    def pins(self, tokens: Sequence[str]) -> str:
        """Colours first: "the red and the yellow pins", "the red pin and any other pin"."""
        named = [f"the {t}" for t in tokens if not is_wild(t)]
        wild = []
        for _ in range(len(tokens) - len(named)):
            wild.append("any other pin" if self.pin_said or named or wild else "any pin")
        self.pin_said = True
        if not wild:
            return and_list(named) + (" pins" if len(named) > 1 else " pin")
        return and_list([f"{n} pin" for n in named] + wild)

    def shared_pin(self) -> str:
        words = "one other pin of any colour" if self.pin_said else "one pin of any colour"
        self.pin_said = True
        return words


def _shared_pins(hangings: tuple[Hanging, ...]) -> dict[str, list[int]]:
    """Named wildcard pins holding two or more pieces -> those hangings, in card order."""
    holders: dict[str, list[int]] = {}
    for i, h in enumerate(hangings):
        for token in h.pins:
            if token != ANY and is_wild(token):
                holders.setdefault(token, []).append(i)
    return {t: held for t, held in holders.items() if len(held) > 1}


def describe_hangings(hangings: Iterable[Hanging]) -> str:
    return _describe(tuple(hangings))


@cache
def _describe(hangings: tuple[Hanging, ...]) -> str:
    """One clause a hanging; the pieces one transparent pin holds (WD-3) are one clause,
    "the red dress and the yellow shirt both held by one pin of any colour", said where the
    first of them is on the card: said apart they read as pins of their own."""
    shared = _shared_pins(hangings)
    words = _Words(hangings)
    clauses = []
    for i, h in enumerate(hangings):
        for held in (held for held in shared.values() if held[0] == i):
            clauses.append(_group_clause(hangings, held, shared, words))
        if not any(t in shared for t in h.pins):
            clauses.append(f"{words.piece(i, h.piece)} held by {words.pins(h.pins)}")
    return "; ".join(clauses)


def _group_clause(
    hangings: tuple[Hanging, ...], held: list[int], shared: Mapping[str, list[int]], words: _Words
) -> str:
    """The pieces on one shared pin; a piece's other pins said with it the first time."""
    members = []
    for i in held:
        first = i not in words.piece_said
        member = words.piece(i, hangings[i].piece)
        rest = [t for t in hangings[i].pins if t not in shared]
        if first and rest:
            member += f" (also held by {words.pins(rest)})"
        members.append(member)
    together = "both" if len(members) == 2 else "all"
    return f"{and_list(members)} {together} held by {words.shared_pin()}"


def opposite(task: Task) -> Task:
    """Fig. 5c: clothes mean pins and pins mean clothes (colour for colour)."""
    g = task.graph()
    pieces = tuple(ANY if s == ANY else COLOR_PIECE[PinColor(s)].value for s in g.pins)
    pins = tuple(ANY if s == ANY else PIECE_COLOR[Piece(s)].value for s in g.pieces)
    edges = frozenset((q, p) for p, q in g.edges)
    return Task.from_graph(TaskGraph(pieces, pins, edges))


def graph_matches(
    a: TaskGraph,
    b: TaskGraph,
    piece_ok: Callable[[str, str], bool],
    pin_ok: Callable[[str, str], bool],
    exact: bool = True,
) -> Iterable[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every way to place ``a`` inside ``b``: injective maps of pieces and pins such that
    the specs agree, an edge of ``a`` is an edge of ``b``, and the mapped nodes of ``b`` have
    no other edges (a whole part of ``b``, nothing half-used). ``exact`` also asks that
    every node of ``b`` is used. At most 3 pieces and 3 pins, so brute force is cheap."""
    if exact and (len(a.pieces) != len(b.pieces) or len(a.pins) != len(b.pins)):
        return
    for pmap in itertools.permutations(range(len(b.pieces)), len(a.pieces)):
        if not all(piece_ok(a.pieces[i], b.pieces[j]) for i, j in enumerate(pmap)):
            continue
        for qmap in itertools.permutations(range(len(b.pins)), len(a.pins)):
            if not all(pin_ok(a.pins[i], b.pins[j]) for i, j in enumerate(qmap)):
                continue
            mapped = {(pmap[p], qmap[q]) for p, q in a.edges}
            used_p, used_q = set(pmap), set(qmap)
            touching = {(p, q) for p, q in b.edges if p in used_p or q in used_q}
            if mapped == touching:
                yield pmap, qmap


def same_task(a: Task, b: Task) -> bool:
    """Whether two tasks ask for the same thing (up to order and wildcard names)."""
    ga, gb = a.graph(), b.graph()
    strict = lambda x, y: x == y  # noqa: E731 - wildcards must correspond to wildcards
    return any(True for _ in graph_matches(ga, gb, strict, strict, exact=True))


__all__ = [
    "Hanging",
    "PartError",
    "Task",
    "TaskError",
    "TaskGraph",
    "describe_hangings",
    "graph_matches",
    "is_wild",
    "opposite",
    "same_task",
]
