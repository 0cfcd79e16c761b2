"""Whole Wash Dash games, setup to game over, played by a seeded random family at a real table.

Unlike ``test_washdash_conformance.py`` (the referee's own state drives the play), the family
here holds the *true* cards and dryers: a shuffled box, the cards put back in it, the draw
pile, the cards on the table and each player's pile of won cards, and what really hangs on
each dryer. The referee sees them as the mode allows: ``scripted`` gives it the deck order
(reveals name their cards or not), at a ``table`` it only counts the pile and learns each card
as it is revealed. 2 to 6 players, every option (``wrong_done``, ``extra_items``,
``impossible_reading``) or its default.

The family plays plausibly: the active player reveals (one card more while only events show,
WD-9; what is left in the last round, WD-16); players build a task card on their dryer
(wildcards filled at random, each group of pieces on a bar of its own, spare parts hung apart
or draped), now and then wrongly (a pin left off, another colour, a piece moved or missing), and
finish with a ``done`` that carries the dryer, a ``done`` checked by the next reading
(WD-12), or a pad press that names no card (WD-17, WD-18) named later on the tablet; a camera
misreads now and then (a piece twice, one pin on two bars). At the end of a round the table
checks: late readings, mistakes it catches or declares (One handed, WD-15), forfeits (WD-11).
And a child's moves: a second task, a card already taken, an event card, a card not on the
table, a second press, a press or ``done`` out of the round or after the other player's press
(2 players), a reveal out of turn, of the wrong number, of cards not on top or already out, or
before a forfeit, a forfeit or a mistake that is not owed, a second setup, and malformed events.

The family keeps its own model of the rules (this file, not ``referee/washdash``): which
move is legal, who holds which card, the round and game results, the First bonus, the owed
forfeits. A small task checker of its own (``completes``: shapes, Opposite, the bar rule WD-2,
extra items WD-4, impossible readings) is the oracle for every dryer. After every event:

* the event is judged as expected: a legal move accepted, a child's move refused with one
  ``illegal`` verdict and the very same state (a second press: one ``info`` and the same
  state, WD-17); only ``EventError`` is raised, and only for malformed events;
* cards are conserved: 54 cards, the box holding 20 for 2–4 players; the referee's draw pile,
  box, table, won cards and discards agree with the true ones (names where it knows them);
* every claim is what the oracle says of the dryer reading that judged it: a card scored with
  a checked dryer is really completed by that reading, a wrong one is a mistake (or, with
  ``retry``, refused); claims, presses, readings shown, owed forfeits and the First bonus
  equal the model's;
* scores: totals are the points of the cards held, never negative, the rounds add up to them;
  a round's result is announced exactly when the round ends (or is corrected), with the
  model's scores; the game ends exactly at the end of a round on an empty draw pile, with
  the model's winners (most points, then fewest cards, WD-14).

After every game: the log (through JSON) replays to an equal state with the same verdicts; an
``undo`` of an event gives back the state before it exactly, undoing that undo the state
after, and an ``overrule`` the state the other event gives there; an undo of a random earlier
event re-judges the rest without a crash and still keeps the 54 cards.

Found so far: a ``done`` naming a card the deck lacks was an input error only while a round
ran, and was judged ("The round is over.") in every other phase
(``test_a_done_naming_a_card_the_deck_lacks_is_malformed_in_every_phase``). The oracle's
reading of a spare pin beside the task's pins is pinned by
``test_reread_wd24_a_spare_pin_on_the_task_s_bar_is_apart_from_the_task``. A review (day 32,
``tests/test_washdash_review.py``) found what the model then followed: the game is not
finished while the last round's forfeit is owed (WD-11), the leaders rank as the winners
(WD-14), ``retry`` refuses a card-less ``done`` whose reading completes no open card (WD-19),
and ``first_bonus_to`` is None without a First bonus card (WD-8).

Ad hoc: ``.venv/bin/python -m tests.test_washdash_playthrough 2000 [first]`` plays 2 000 more
games (in chunks of 50 seeded ``200000 + first``, ``+ 1``, ...) and prints the tallies.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event, EventError, Source
from referee.verdicts import Outcome, Verdict
from referee.washdash.dryer import Dryer
from referee.washdash.game import GAME
from tests.playthrough import LoggedGame, first_move, judge, play_games
from tests.playthrough import main as playthrough_main

GAMES_PER_TEST = 10
SEEDS = range(4)
CHILD = 0.08  # per step: a move a child would make
WRONG_BUILD = 0.2  # a finished dryer that does not really complete the card
MISREAD = 0.04  # a camera reading that cannot be real
MAX_EVENTS = 3000

# --- the box, read from the deck file itself ----------------------------------------------
_DECK_FILE = Path(__file__).resolve().parents[1] / "referee" / "washdash" / "deck.json"
_DATA = json.loads(_DECK_FILE.read_text(encoding="utf-8"))
TASK_TEXT: dict[str, str] = {t["id"]: t["task"] for t in _DATA["tasks"]}
EVENT_OF: dict[str, str] = {e["id"]: e["event"] for e in _DATA["events"]}
POINTS: dict[str, int] = {c["id"]: c["points"] for c in (*_DATA["tasks"], *_DATA["events"])}
ALL_CARDS: list[str] = [*TASK_TEXT, *EVENT_OF]
PER_ROUND = {2: 2, 3: 2, 4: 3, 5: 4, 6: 5}  # the rules' table
BOXED = {2: 20, 3: 20, 4: 20, 5: 0, 6: 0}  # "If 2, 3, or 4 players … put them back in the box"
PIECES = ("pants", "dress", "shirt")
PINS = ("red", "yellow", "blue")
COLOUR = {"pants": "blue", "dress": "red", "shirt": "yellow"}  # WD-1
PIECE_OF = {c: p for p, c in COLOUR.items()}
ANY = "any"

Bars = tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]  # 3 bars of (piece, pins)


# --- tasks, Opposite and the checker: the family's own ------------------------------------
@dataclass(frozen=True)
class Shape:
    """A task card as nodes and edges: each pin holds the pieces it is joined to."""

    pieces: tuple[str, ...]  # "pants" … or "any"
    pins: tuple[str, ...]  # "red" … or "any" (a named wildcard is one pin)
    edges: frozenset[tuple[int, int]]  # (piece, pin)


def shape_of(text: str) -> Shape:
    pieces: list[str] = []
    pins: list[str] = []
    names: dict[str, int] = {}
    edges = set()
    for part in text.split(";"):
        piece, _, held = part.strip().partition(":")
        pieces.append(piece)
        for token in held.split("+"):
            if token == ANY or token not in names:
                pins.append(ANY if token.startswith(ANY) else token)
                if token != ANY:
                    names[token] = len(pins) - 1
                q = len(pins) - 1
            else:
                q = names[token]
            edges.add((len(pieces) - 1, q))
    return Shape(tuple(pieces), tuple(pins), frozenset(edges))


def flipped(shape: Shape) -> Shape:
    """Opposite: a pin is the piece of its colour, a piece the pin of its colour."""
    return Shape(
        tuple(ANY if c == ANY else PIECE_OF[c] for c in shape.pins),
        tuple(ANY if p == ANY else COLOUR[p] for p in shape.pieces),
        frozenset((q, p) for p, q in shape.edges),
    )


SHAPES = {card: shape_of(text) for card, text in TASK_TEXT.items()}


def target(card: str, events: frozenset[str]) -> Shape:
    return flipped(SHAPES[card]) if "opposite" in events else SHAPES[card]


_memo: dict[tuple[Shape, Bars, bool], bool] = {}


def completes(shape: Shape, bars: Bars, forbid: bool) -> bool:
    """Does this dryer reading show the task? Every hung piece of the task held by exactly its
    pins and every pin holding exactly its pieces; pins on one bar hold a common piece (WD-2);
    anything else apart from the task is ignored unless ``forbid`` (WD-4); a reading with a
    piece twice or a pin on two bars cannot be right."""
    key = (shape, bars, forbid)
    if key not in _memo:
        _memo[key] = _completes(shape, bars, forbid)
    return _memo[key]


def impossible(bars: Bars) -> bool:
    """A reading that cannot be real: a piece twice, a pin twice on a piece, a pin on two
    bars. With ``impossible_reading: ask`` it judges no claim and names no card (WD-12): the
    dryer is asked for again; with ``judge`` it completes no card, as before day 34."""
    hung = [(b, piece, pins) for b, bar in enumerate(bars) for piece, pins in bar]
    pieces = [piece for _, piece, _ in hung]
    if len(set(pieces)) != len(pieces) or any(len(set(p)) != len(p) for *_, p in hung):
        return True
    pin_bar: dict[str, int] = {}
    return any(pin_bar.setdefault(pin, b) != b for b, _, pins in hung for pin in pins)


def _completes(shape: Shape, bars: Bars, forbid: bool) -> bool:
    if impossible(bars):
        return False
    hung = [(b, piece, pins) for b, bar in enumerate(bars) for piece, pins in bar]
    pieces = [piece for _, piece, _ in hung]
    pin_bar: dict[str, int] = {}
    holds: dict[str, set[str]] = {}
    for b, piece, pins in hung:
        for pin in pins:
            if pin_bar.setdefault(pin, b) != b:
                return False  # one pin on two bars
            holds.setdefault(pin, set()).add(piece)
    held_by = {piece: set(pins) for _, piece, pins in hung}
    pins_of = [{q for p2, q in shape.edges if p2 == p} for p in range(len(shape.pieces))]
    pieces_of = [{p for p, q2 in shape.edges if q2 == q} for q in range(len(shape.pins))]
    for pmap in itertools.permutations(pieces, len(shape.pieces)):
        if any(s not in (ANY, d) for s, d in zip(shape.pieces, pmap, strict=True)):
            continue
        for qmap in itertools.permutations(list(holds), len(shape.pins)):
            if any(s not in (ANY, d) for s, d in zip(shape.pins, qmap, strict=True)):
                continue
            if any(held_by[pmap[p]] != {qmap[q] for q in pins_of[p]} for p in range(len(pmap))):
                continue
            if any(holds[qmap[q]] != {pmap[p] for p in pieces_of[q]} for q in range(len(qmap))):
                continue
            if any(
                pin_bar[a] == pin_bar[b] and not holds[a] & holds[b]
                for a, b in itertools.combinations(qmap, 2)
            ):
                continue
            if forbid and (len(pmap) != len(pieces) or len(qmap) != len(holds)):
                continue
            return True
    return False


def build(shape: Shape, rng: random.Random, spare: bool) -> Bars:
    """The family hangs the task: wildcards filled with free parts, each group of pieces on a
    bar of its own; with ``spare`` the unused parts hang apart or draped."""
    free_pieces = [p for p in PIECES if p not in shape.pieces]
    free_pins = [c for c in PINS if c not in shape.pins]
    rng.shuffle(free_pieces)
    rng.shuffle(free_pins)
    pieces = [p if p != ANY else free_pieces.pop() for p in shape.pieces]
    pins = [c if c != ANY else free_pins.pop() for c in shape.pins]
    group = list(range(len(pieces)))  # union-find by shared pins

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for q in range(len(pins)):
        held = sorted(p for p, q2 in shape.edges if q2 == q)
        for p in held[1:]:
            group[root(p)] = root(held[0])
    roots = sorted({root(p) for p in range(len(pieces))})
    bar_of = dict(zip(roots, rng.sample(range(3), len(roots)), strict=True))
    bars: list[list[tuple[str, tuple[str, ...]]]] = [[], [], []]
    for p, piece in enumerate(pieces):
        held = [pins[q] for p2, q in shape.edges if p2 == p]
        rng.shuffle(held)
        bars[bar_of[root(p)]].append((piece, tuple(held)))
    if spare:
        empty = [b for b in range(3) if not bars[b]]
        for piece in free_pieces:
            if empty and rng.random() < 0.6:
                take = rng.randrange(len(free_pins) + 1)
                bars[rng.choice(empty)].append((piece, tuple(free_pins[:take])))
                del free_pins[:take]
            elif rng.random() < 0.4:
                bars[rng.randrange(3)].append((piece, ()))  # draped, no pin
    for bar in bars:
        rng.shuffle(bar)
    return tuple(tuple(bar) for bar in bars)


def spoil(bars: Bars, rng: random.Random) -> Bars:
    """A child's slip: one thing hung differently (the oracle says whether it still counts)."""
    items = [(b, i) for b, bar in enumerate(bars) for i in range(len(bar))]
    out = [list(bar) for bar in bars]
    if not items:
        return bars
    b, i = rng.choice(items)
    piece, pins = out[b][i]
    used = {c for bar in bars for _, ps in bar for c in ps}
    unused = [c for c in PINS if c not in used]
    roll = rng.randrange(6)
    if roll == 0 and pins:
        out[b][i] = (piece, tuple(c for c in pins if c != rng.choice(pins)))  # a pin left off
    elif roll == 1 and unused:
        out[b][i] = (piece, (*pins, rng.choice(unused)))  # one pin too many
    elif roll == 2 and pins and unused:
        old, new = rng.choice(pins), rng.choice(unused)
        out = [[(p, tuple(new if c == old else c for c in ps)) for p, ps in bar] for bar in out]
    elif roll == 3:
        del out[b][i]
        out[rng.choice([x for x in range(3) if x != b])].append((piece, pins))  # other bar
    elif roll == 4:
        del out[b][i]  # a piece left off
    else:
        others = [(b2, i2) for b2, i2 in items if (b2, i2) != (b, i)]
        if not others:
            return ((), (), ())
        b2, i2 = rng.choice(others)
        other, other_pins = out[b2][i2]
        out[b][i], out[b2][i2] = (piece, other_pins), (other, pins)  # pins swapped
    return tuple(tuple(bar) for bar in out)


def misread(bars: Bars, rng: random.Random) -> Bars:
    """What a camera might answer that cannot be real: a piece twice, a pin on two bars."""
    items = [(b, h) for b, bar in enumerate(bars) for h in bar]
    out = [list(bar) for bar in bars]
    roll = rng.random()
    if items and roll < 0.4:
        b, h = rng.choice(items)
        out[(b + 1) % 3].append((h[0], ()))
    elif items and roll < 0.6:
        b, h = rng.choice(items)
        pin = rng.choice(h[1] or PINS)
        out[b] = [(p, (*ps, pin, pin)) if (p, ps) == h else (p, ps) for p, ps in out[b]]
    else:
        b = rng.randrange(3)
        out[b].append((rng.choice(PIECES), (PINS[0],)))
        out[(b + 1) % 3].append((rng.choice(PIECES), (PINS[0],)))
    return tuple(tuple(bar) for bar in out)


def scramble(rng: random.Random) -> Bars:
    """A child hanging anything anywhere: readings the checker must judge without a card."""
    bars: list[list[tuple[str, tuple[str, ...]]]] = [[], [], []]
    for piece in rng.sample(PIECES, rng.randrange(4)):
        pins = tuple(rng.sample(PINS, rng.choice([0, 1, 1, 2, 3])))
        bars[rng.randrange(3)].append((piece, pins))
    return tuple(tuple(bar) for bar in bars)


def dryer_dict(bars: Bars) -> dict[str, Any]:
    return {"bars": [[{"piece": p, "pins": list(ps)} for p, ps in bar] for bar in bars]}


def dryer_text(bars: Bars) -> str:
    return " / ".join("; ".join(f"{p}:{'+'.join(ps)}" for p, ps in bar) or "-" for bar in bars)


# --- the family's model of a round ---------------------------------------------------------
@dataclass
class Claim:
    seat: int
    card: str
    t_ns: int | None
    arrival: int
    status: str  # "ok" | "wrong" | "unchecked"
    reading: Bars | None  # the reading that judged it
    really: bool  # the true dryer completes the card
    declared: bool = False  # the table declared the mistake (WD-15)


@dataclass
class Round:
    number: int
    active: int
    revealed: list[str]
    claims: list[Claim] = field(default_factory=list)
    presses: dict[int, int | None] = field(default_factory=dict)
    press_readings: dict[int, Bars] = field(default_factory=dict)  # what a held press carried
    forfeits: dict[int, str] = field(default_factory=dict)
    arrivals: int = 0
    checked: bool = False  # the family has looked at each other's dryers

    @property
    def tasks(self) -> list[str]:
        return [c for c in self.revealed if c in TASK_TEXT]

    @property
    def events(self) -> frozenset[str]:
        return frozenset(EVENT_OF[c] for c in self.revealed if c in EVENT_OF)

    def claim_of(self, seat: int) -> Claim | None:
        return next((c for c in self.claims if c.seat == seat), None)

    def claim_for(self, card: str) -> Claim | None:
        return next((c for c in self.claims if c.card == card), None)

    def open(self) -> list[str]:
        return [c for c in self.tasks if self.claim_for(c) is None]


@dataclass
class Config:
    players: list[str]
    options: dict[str, Any]
    mode: str  # "scripted" | "table"
    first: int

    @property
    def retry(self) -> bool:
        return self.options.get("wrong_done") == "retry"

    @property
    def forbid(self) -> bool:
        return self.options.get("extra_items") == "forbid"

    @property
    def ask(self) -> bool:
        """WD-12 ``impossible_reading: ask``: a reading that cannot be real judges nothing.
        Without the key (a game stored before day 34) such a reading is judged, and fails."""
        return self.options.get("impossible_reading") == "ask"

    def set_aside(self, reading: Bars | None) -> bool:
        """Whether this reading judges and names nothing (WD-12, ``ask`` only)."""
        return self.ask and reading is not None and impossible(reading)


def random_config(rng: random.Random) -> Config:
    n = rng.choice([2, 2, 3, 3, 4, 4, 5, 6])
    options: dict[str, Any] = {
        "wrong_done": rng.choice(["penalty", "retry"]),
        "extra_items": rng.choice(["ignore", "forbid"]),
        "impossible_reading": rng.choice(["ask", "judge"]),
    }
    for name in list(options):
        if rng.random() < 0.25:
            del options[name]  # the default
    mode = rng.choice(["scripted", "table"])
    return Config([f"P{i}" for i in range(n)], options, mode, rng.randrange(n))


class Family:
    """Plays one game with true cards and dryers and checks the referee after every event."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        self.rng = rng
        self.cfg = config
        self.n = len(config.players)
        self.state: Any = GAME.new_state(config.players, config.options)
        self.started = False
        self.boxed: list[str] = []
        self.pile: list[str] = []  # top first
        self.won: list[list[str]] = [[] for _ in range(self.n)]
        self.discarded: list[str] = []
        self.rnd: Round | None = None
        self.round_scores: list[tuple[int, ...]] = []
        self.rounds_started = 0
        self.shown: list[Bars | None] = [None] * self.n  # readings the referee shows
        self.true: list[Bars | None] = [None] * self.n  # what really hangs on each dryer
        self.working: dict[int, str] = {}  # seat: the card its dryer is built for
        self.clock = 1_000_000_000
        self.log: list[Event] = []
        self.verdicts: list[list[Verdict]] = []
        self.states: list[Any] = []
        self.stats: Counter[str] = Counter()
        self.announce: str | None = None  # "round": a corrected result; "game": a forfeit
        self.new_round = False
        self.expect_mistake = False
        self.press_again: Bars | None = None  # the reading a child's second press carries

    # -- the model's rules ---------------------------------------------------------------
    def over(self) -> bool:
        r = self.rnd
        if r is None:
            return False
        if not r.tasks:
            return not self.pile  # WD-9
        if self.n == 2:
            return bool(r.claims)
        return len(r.claims) == len(r.tasks)

    def game_over(self) -> bool:
        return self.over() and not self.pile

    def next_revealer(self) -> int:
        r = self.rnd
        if r is None:
            return self.cfg.first
        return (r.active + 1) % self.n if self.over() else r.active

    def earlier(self, seat: int) -> list[str]:
        return [c for c in self.won[seat] if c in TASK_TEXT]

    def owed(self) -> list[int]:
        r = self.rnd
        if r is None:
            return []
        return sorted(
            c.seat
            for c in r.claims
            if c.status == "wrong" and c.seat not in r.forfeits and self.earlier(c.seat)
        )

    def final(self) -> bool:
        """The last round's result can no longer change: no forfeit owed, no dryer unseen."""
        r = self.rnd
        return not self.owed() and not (r and any(c.status == "unchecked" for c in r.claims))

    def bonus_to(self) -> int | None:
        """Who takes the round's First bonus card(s) (WD-8); None when none was revealed."""
        r = self.rnd
        if r is None or not self.over():
            return None
        if not any(EVENT_OF.get(c) == "first-bonus" for c in r.revealed):
            return None
        claims = list(r.claims)
        if all(c.t_ns is not None for c in claims):
            claims.sort(key=lambda c: (c.t_ns, c.arrival))
        else:
            claims.sort(key=lambda c: c.arrival)
        right = [c for c in claims if c.status != "wrong"]
        return right[0].seat if right else None

    def gained(self) -> tuple[list[list[str]], list[str]]:
        """This round's cards per seat, and the cards it discards."""
        r = self.rnd
        gain: list[list[str]] = [[] for _ in range(self.n)]
        gone: list[str] = []
        if r is None:
            return gain, gone
        for c in sorted(r.claims, key=lambda c: c.arrival):
            (gone if c.status == "wrong" else gain[c.seat]).append(c.card)
        gone += r.forfeits.values()
        if self.over():
            first = self.bonus_to()
            for card in r.revealed:
                if EVENT_OF.get(card) == "first-bonus" and first is not None:
                    gain[first].append(card)
                elif card in EVENT_OF or r.claim_for(card) is None:
                    gone.append(card)
        return gain, gone

    def holdings(self) -> list[list[str]]:
        gain, _ = self.gained()
        r = self.rnd
        lost = r.forfeits if r is not None else {}
        return [[c for c in self.won[s] if c != lost.get(s)] + gain[s] for s in range(self.n)]

    def scores(self) -> tuple[int, ...]:
        gain, _ = self.gained()
        lost = self.rnd.forfeits if self.rnd is not None else {}
        return tuple(
            sum(POINTS[c] for c in gain[s]) - (POINTS[lost[s]] if s in lost else 0)
            for s in range(self.n)
        )

    def totals(self) -> tuple[int, ...]:
        return tuple(sum(POINTS[c] for c in cards) for cards in self.holdings())

    def winners(self) -> list[int]:
        pts, held = self.totals(), self.holdings()
        tied = [s for s in range(self.n) if pts[s] == max(pts)]
        fewest = min(len(held[s]) for s in tied)
        return [s for s in tied if len(held[s]) == fewest]

    def seen(self) -> set[str]:
        """Cards the referee has seen leave the draw pile (table mode)."""
        out = set(self.discarded)
        for cards in self.won:
            out.update(cards)
        if self.rnd is not None:
            out.update(self.rnd.revealed)
        return out

    def commit(self) -> None:
        if self.rnd is None:
            return
        gain, gone = self.gained()
        lost = self.rnd.forfeits
        self.round_scores.append(self.scores())
        self.won = [[c for c in self.won[s] if c != lost.get(s)] + gain[s] for s in range(self.n)]
        self.discarded += gone
        self.rnd = None
        self.shown = [None] * self.n
        self.true = [None] * self.n  # everybody empties their dryer
        self.working = {}

    # -- sending events ------------------------------------------------------------------
    def send(
        self, event: Event, expect: str, effect: Any = None, *, announce: str | None = None
    ) -> list[Verdict] | None:
        """Apply ``event``: ``expect`` is "legal", "illegal", "noop" (accepted, nothing
        changes: a second press) or "error" (malformed). ``effect`` moves the model."""
        if self.rng.random() < 0.5:
            event = Event.from_json(event.to_json())  # as the log stores it
        before = self.state
        where = f"{self.cfg} event {len(self.log) + 1} {event.to_dict()}"
        judged = judge(GAME, before, event, expect, where, self.n, self.stats)
        if judged is None:
            return None
        after, verdicts = judged
        if expect == "noop":
            self.stats["second presses"] += 1
        self.log.append(event)
        self.verdicts.append(verdicts)
        self.states.append(after)
        self.state = after
        was_over = self.over()
        self.announce, self.new_round, self.expect_mistake = announce, False, False
        self.dropped: list[int] = []
        if expect == "legal" and effect is not None:
            effect()
        was_over = was_over and not self.new_round
        self.check(verdicts, where, was_over, expect == "legal")
        return verdicts

    # -- the checks ----------------------------------------------------------------------
    def check(self, verdicts: list[Verdict], where: str, was_over: bool, legal: bool) -> None:
        s = self.state
        view = GAME.view(s)
        json.dumps(view)
        GAME.table(s)
        board = GAME.scoreboard(s).to_dict()
        r = self.rnd
        over, game_over = self.over(), self.game_over()
        # the phase, the round and whose move it is
        phase = (
            "setup"
            if not self.started
            else "over"
            if game_over
            else "between_rounds"
            if r is None or over
            else "draw_on"
            if not r.tasks
            else "racing"
        )
        assert view["phase"] == phase, (where, view["phase"], phase)
        assert board["round"] == self.rounds_started, where
        # WD-11, WD-12: the result is final once the last round's forfeits are given up and
        # its dryers seen
        assert board["finished"] == (game_over and self.final()), where
        assert board["winners"] == (self.winners() if board["finished"] else []), where
        assert board["leaders"] == self.winners(), where  # WD-14's standing, for WEB-1
        want_turn = self.next_revealer() if self.started and not game_over else None
        assert board["turn"] == want_turn, (where, board["turn"], want_turn)
        # the cards: where the model (the true table) has them
        assert view["draw_pile"] == len(self.pile) and view["boxed"] == len(self.boxed), where
        if self.cfg.mode == "scripted" and self.started:
            assert list(s.pile.known) == self.pile and s.pile.unknown == 0, where
            assert list(s.boxed.known) == self.boxed, where
        held = self.holdings()
        assert [sorted(h) for h in view["cards"]] == [sorted(h) for h in held], (where, held)
        _, gone = self.gained()
        assert sorted(view["discarded"]) == sorted(self.discarded + gone), where
        table = [c["id"] for c in view["table"]]
        assert table == (r.revealed if r is not None else []), where
        if r is not None:
            taken = {c.card: c.seat for c in r.claims}
            assert [c["taken_by"] for c in view["table"]] == [taken.get(c) for c in table]
        check_engine_cards(s, view, self.cfg)
        # the claims, presses and readings
        claims = [(c.seat, c.card, c.t_ns, c.status) for c in r.claims] if r else []
        got = [(c["seat"], c["card"], c["t_ns"], c["status"]) for c in view["claims"]]
        assert got == claims, (where, got, claims)
        presses = [
            {"seat": k, "t_ns": t}
            | ({"dryer": dryer_dict(r.press_readings[k])} if k in r.press_readings else {})
            for k, t in (r.presses.items() if r else ())
        ]
        assert view["presses"] == presses, (where, view["presses"], presses)
        shown = [None if b is None else dryer_dict(b) for b in self.shown]
        assert view["dryers"] == shown, (where, view["dryers"], shown)
        assert view["owed_forfeit"] == self.owed() == board["extra"]["owed_forfeit"], where
        assert view["first_bonus_to"] == self.bonus_to(), where
        events = r.events if r is not None else frozenset()
        for c in r.claims if r is not None else []:
            if c.status == "ok":  # every card scored on a reading is completed by it
                assert c.reading is not None, where
                assert completes(target(c.card, events), c.reading, self.cfg.forbid), where
            elif c.status == "wrong" and not c.declared:
                assert c.reading is not None, where
                assert not completes(target(c.card, events), c.reading, self.cfg.forbid)
        # the scores
        totals = self.totals()
        assert tuple(board["totals"]) == totals and min(totals) >= 0, (where, board, totals)
        rounds = [*self.round_scores, *([self.scores()] if over else [])]
        assert [tuple(x) for x in board["rounds"]] == rounds, (where, board["rounds"], rounds)
        so_far = [*rounds, *([] if over else [self.scores()])]  # a round in play counts too
        assert all(sum(x[s] for x in so_far) == totals[s] for s in range(self.n)), where
        assert board["extra"]["cards"] == [len(h) for h in held], where
        labels = [line.label for line in GAME.table(s)]
        assert ("Done pressed" in labels) == bool(r and r.presses and not over), (where, labels)
        assert labels.count("Forfeit") == len(self.owed()), (where, labels)
        # what the referee announced
        if not legal:
            return
        ends = [v for v in verdicts if v.outcome is Outcome.ROUND_END]
        if over and (not was_over or self.announce == "round"):
            assert len(ends) == 1, f"{where}: the round ended unannounced {verdicts}"
            assert ends[0].data["scores"] == list(self.scores()), (where, ends[0], rounds)
            assert ends[0].data["round"] == r.number  # type: ignore[union-attr]
            self.stats["round ends"] += 1
            self.check_round_end(verdicts, where, game_over, first=not was_over)
        else:
            assert not ends, f"{where}: a round end announced: {verdicts}"
        finals = [v for v in verdicts if v.outcome is Outcome.GAME_END]
        if game_over and (ends or self.announce == "game"):
            assert len(finals) == 1 and verdicts[-1] is finals[0], f"{where}: {verdicts}"
            assert finals[0].data["totals"] == list(totals), where
            assert finals[0].data["final"] == self.final(), where
            if self.final():
                assert finals[0].data["winners"] == self.winners(), where
                assert board["winners"] == self.winners(), where
        else:
            assert not finals, f"{where}: game end announced: {verdicts}"
        gone = [v.seat for v in verdicts if "press names no card" in v.reason]
        assert gone == self.dropped, (where, verdicts)
        mistakes = [v for v in verdicts if v.data.get("mistake")]
        assert len(mistakes) == (1 if self.expect_mistake else 0), (where, verdicts)

    def check_round_end(
        self, verdicts: list[Verdict], where: str, game_over: bool, first: bool
    ) -> None:
        """With a round's result: who reveals next, the First bonus, the forfeits asked for."""
        r = self.rnd
        assert r is not None
        nxt = [v.seat for v in verdicts if v.reason.endswith("reveals the next round.")]
        assert nxt == ([] if game_over else [self.next_revealer()]), (where, verdicts)
        bonus = [v.seat for v in verdicts if v.reason.startswith("First bonus goes to")]
        at_stake = any(EVENT_OF.get(c) == "first-bonus" for c in r.revealed)
        fastest = self.bonus_to()
        assert bonus == ([fastest] if at_stake and fastest is not None else []), where
        asked = [v.seat for v in verdicts if "made a mistake: choose" in v.reason]
        assert asked == self.owed(), (where, verdicts)
        if first:
            if at_stake:
                self.stats["first bonus won" if fastest is not None else "first bonus lost"] += 1
            if not r.tasks:
                self.stats["pile out while drawing on"] += 1
            if self.n == 2 and r.claims and r.claims[0].status == "wrong":
                self.stats["2 players: a wrong first done"] += 1

    # -- the game ------------------------------------------------------------------------
    def play_game(self) -> None:
        while not (self.started and self.game_over() and self.rnd.checked and self.final()):  # type: ignore[union-attr]
            if len(self.log) >= MAX_EVENTS:
                raise AssertionError(f"{self.cfg}: no end after {MAX_EVENTS} events")
            self.step()
        # after the end: nothing more is played
        self.send(Event("reveal", self.next_revealer(), {"cards": []}), "illegal")
        seat = self.rng.randrange(self.n)
        self.send(Event("done", seat, {"card": self.rng.choice(list(TASK_TEXT))}), "illegal")
        self.stats["games over"] += 1

    def step(self) -> None:
        rng = self.rng
        if not self.started:
            self.setup()
            return
        r = self.rnd
        if rng.random() < CHILD and self.child():
            return
        if r is None or self.over():
            self.between_rounds()
        elif not r.tasks:
            self.reveal()
        else:
            self.race()

    def setup(self) -> None:
        rng, n = self.rng, self.n
        if rng.random() < 0.1:
            self.send(Event("reveal", None, {"cards": ALL_CARDS[:2]}), "illegal")
        if rng.random() < 0.1:
            self.send(Event("done", 0, {"card": "T01"}), "illegal")
        order = list(ALL_CARDS)
        rng.shuffle(order)
        payload: dict[str, Any] = {}
        if self.cfg.first or rng.random() < 0.5:
            payload["first"] = self.cfg.first
        if self.cfg.mode == "scripted":
            payload["order"] = order
        seat = rng.randrange(n) if rng.random() < 0.3 else None

        def effect() -> None:
            self.started = True
            self.boxed, self.pile = order[: BOXED[n]], order[BOXED[n] :]

        self.send(Event("setup", seat, payload, source=Source.SCRIPT), "legal", effect)

    # -- revealing -----------------------------------------------------------------------
    def reveal(self) -> None:
        """The active player turns over the round's cards (or one more, WD-9)."""
        r, rng = self.rnd, self.rng
        draw_on = r is not None and not self.over() and not r.tasks
        count = 1 if draw_on else min(PER_ROUND[self.n], len(self.pile))
        cards = self.pile[:count]
        payload: dict[str, Any] = {"cards": cards}
        if self.cfg.mode == "scripted" and rng.random() < 0.5:
            payload = {}
        seat = self.next_revealer() if rng.random() < 0.7 else None
        self.clock += rng.randrange(10**9, 5 * 10**9)
        t = self.clock if rng.random() < 0.8 else None

        def effect() -> None:
            del self.pile[:count]
            if draw_on:
                assert self.rnd is not None
                self.rnd.revealed += cards
                self.stats["drawn on"] += 1
            else:
                active = self.next_revealer()
                self.commit()
                self.rounds_started += 1
                self.rnd = Round(self.rounds_started, active, list(cards))
                self.new_round = True
            if not self.rnd.tasks:  # type: ignore[union-attr]
                self.stats["only events"] += 1
            if count < PER_ROUND[self.n] and not draw_on:
                self.stats["short last round"] += 1

        self.send(Event("reveal", seat, payload, t_ns=t), "legal", effect)

    def between_rounds(self) -> None:
        """The end-of-round check (late readings, mistakes, forfeits), then the next reveal."""
        r, rng = self.rnd, self.rng
        if r is not None and not r.checked:
            unchecked = [c for c in r.claims if c.status == "unchecked"]
            if unchecked and (self.game_over() or rng.random() < 0.6):
                claim = rng.choice(unchecked)
                if self.game_over() and self.cfg.set_aside(self.true[claim.seat] or ()):
                    self.mistake(claim.seat)  # a child's mess no reading judges: declared
                    return
                self.reading(claim.seat, late=True)
                return
            caught = [c for c in r.claims if c.status != "wrong" and not c.really]
            if caught and rng.random() < 0.7:
                self.mistake(rng.choice(caught).seat)
                return
            hands = [c for c in r.claims if c.status != "wrong"]
            if hands and "one-handed" in r.events and rng.random() < 0.15:
                self.mistake(rng.choice(hands).seat)  # two hands under One handed (WD-15)
                return
            if hands and rng.random() < 0.02:
                self.mistake(rng.choice(hands).seat)  # the table says so: it counts
                return
            r.checked = True
            return
        owed = self.owed()
        if owed:
            seat = rng.choice(owed)
            card = rng.choice(self.earlier(seat))

            def effect() -> None:
                assert self.rnd is not None
                self.rnd.forfeits[seat] = card
                self.stats["forfeits"] += 1

            self.send(Event("forfeit", seat, {"card": card}), "legal", effect, announce="game")
            return
        if not self.game_over():
            self.reveal()

    # -- racing ----------------------------------------------------------------------------
    def race(self) -> None:
        r, rng = self.rnd, self.rng
        assert r is not None
        unchecked = [c for c in r.claims if c.status == "unchecked"]
        if r.presses and rng.random() < 0.5:
            self.name_pressed(rng.choice(list(r.presses)))
            return
        if unchecked and rng.random() < 0.3:
            self.reading(rng.choice(unchecked).seat, late=False)
            return
        spotted = [c for c in r.claims if c.status != "wrong" and not c.really]
        if spotted and rng.random() < 0.05:
            self.mistake(rng.choice(spotted).seat)  # a neighbour notices before the end
            self.stats["mistakes mid-round"] += 1
            return
        free = [s for s in range(self.n) if r.claim_of(s) is None and s not in r.presses]
        if self.n == 2 and r.presses:
            free = []  # WD-18: the round waits for the press's card
        if not free:
            if r.presses:
                self.name_pressed(rng.choice(list(r.presses)))
            elif unchecked:
                self.reading(rng.choice(unchecked).seat, late=False)
            return
        seat = rng.choice(free)
        if rng.random() < 0.06:
            self.progress(seat)
            return
        card = rng.choice(r.open())
        self.hang(seat, card)
        self.finish(seat, card)

    def hang(self, seat: int, card: str) -> None:
        r = self.rnd
        assert r is not None
        shape = target(card, r.events)
        bars = build(shape, self.rng, spare=not self.cfg.forbid or self.rng.random() < 0.1)
        roll = self.rng.random()
        if roll < 0.03:
            bars = scramble(self.rng)
        elif roll < WRONG_BUILD:
            bars = spoil(bars, self.rng)
        self.true[seat] = bars
        self.working[seat] = card

    def progress(self, seat: int) -> None:
        """The camera sees a half-hung dryer: shown, judges nothing."""
        r = self.rnd
        assert r is not None
        bars = build(target(self.rng.choice(r.tasks), r.events), self.rng, spare=False)
        bars = tuple(bar[: self.rng.randrange(len(bar) + 1)] for bar in bars)
        self.true[seat] = bars

        def effect() -> None:
            self.shown[seat] = bars

        self.send(Event("dryer", seat, {"dryer": self.encode(bars)}), "legal", effect)

    def encode(self, bars: Bars) -> Any:
        return dryer_text(bars) if self.rng.random() < 0.3 else dryer_dict(bars)

    def seen_dryer(self, seat: int) -> Bars:
        bars = self.true[seat]
        assert bars is not None
        return misread(bars, self.rng) if self.rng.random() < MISREAD else bars

    def stamp(self) -> int | None:
        """A pad's or camera's time: mostly later than the last; sometimes a late-arriving
        earlier one; sometimes none."""
        rng = self.rng
        self.clock += rng.randrange(10**8, 3 * 10**9)
        roll = rng.random()
        if roll < 0.08:
            return None
        if roll < 0.2:
            return max(0, self.clock - rng.randrange(1, 4 * 10**9))
        if roll < 0.25:
            self.clock -= rng.randrange(10**8, 3 * 10**9)
            return self.clock  # the same time as the last press
        return self.clock

    def finish(self, seat: int, card: str) -> None:
        """The player says done: with the dryer, without it, or on the pad (no card)."""
        rng = self.rng
        r = self.rnd
        assert r is not None
        if rng.random() < 0.04 and len(r.open()) > 1:
            card = rng.choice([c for c in r.open() if c != card])  # grabs the wrong card
            self.stats["wrong card grabbed"] += 1
        roll = rng.random()
        t = self.stamp()
        if roll < 0.45:
            reading = self.seen_dryer(seat)
            payload = {"card": card, "dryer": self.encode(reading)}
            self.done(Event("done", seat, payload, t_ns=t, source=Source.CAMERA), card, reading)
        elif roll < 0.65:
            self.done(Event("done", seat, {"card": card}, t_ns=t), card, None)
        else:
            reading = self.seen_dryer(seat) if rng.random() < 0.4 else None
            payload = {} if reading is None else {"dryer": self.encode(reading)}
            self.done(Event("done", seat, payload, t_ns=t, source=Source.PAD), None, reading)

    def name_pressed(self, seat: int) -> None:
        """The tablet names the card of a held press (WD-17): the one the dryer was built
        for, or, taken meanwhile, the player turns to another card."""
        r, rng = self.rnd, self.rng
        assert r is not None
        card = self.working.get(seat)
        if card is None or (r.claim_for(card) is not None and rng.random() < 0.7):
            open_ = r.open()
            if not open_:
                return
            card = rng.choice(open_)
            self.hang(seat, card)
        reading = self.seen_dryer(seat) if rng.random() < 0.6 else None
        payload: dict[str, Any] = {"card": card}
        if reading is not None:
            payload["dryer"] = self.encode(reading)
        t = self.stamp() if rng.random() < 0.5 else None
        self.done(Event("done", seat, payload, t_ns=t), card, reading)

    def done(self, event: Event, card: str | None, reading: Bars | None) -> None:
        """Judge a ``done`` by the family's model, then send it."""
        r = self.rnd
        assert event.seat is not None
        seat, t = event.seat, event.t_ns
        if r is None or self.over() or not r.tasks:
            self.send(event, "illegal")
            return
        if self.n == 2 and not r.claims and any(k != seat for k in r.presses):
            self.send(event, "illegal")  # WD-18
            return
        forbid, events = self.cfg.forbid, r.events
        if reading is not None:  # WD-21: what the camera may name for this reading
            want = [c for c in r.open() if completes(target(c, events), reading, forbid)]
            dryer = Dryer.from_dict(dryer_dict(reading))
            assert list(GAME.open_tasks_done_by(self.state, dryer)) == want, (reading, want)
        carried = reading  # shown; with ``ask`` an impossible one names and judges nothing
        if self.cfg.set_aside(reading):
            reading = None
            self.stats["impossible readings set aside"] += 1
        if card is None:
            cands = r.open()
            if reading is not None and len(cands) > 1:
                cands = [c for c in cands if completes(target(c, events), reading, forbid)]
            if len(cands) != 1:
                if r.claim_of(seat) is not None:
                    self.send(event, "illegal")
                elif reading is not None and not cands and self.cfg.retry:
                    # WD-19: its own reading completes no open card, so any card named
                    # would be refused: not held (it would win a 2-player race, WD-18); a
                    # press the seat has held is forgotten
                    if seat not in r.presses:
                        self.send(event, "illegal")
                        self.stats["retry: a press completing nothing refused"] += 1
                        return

                    def forget_press() -> None:
                        assert self.rnd is not None
                        del self.rnd.presses[seat]
                        self.rnd.press_readings.pop(seat, None)
                        self.stats["retry: press forgotten"] += 1

                    self.send(event, "legal", forget_press)
                elif seat in r.presses:
                    self.send(event, "noop")
                else:

                    def hold() -> None:
                        assert self.rnd is not None
                        self.rnd.presses[seat] = t
                        if reading is not None:  # it judges the card named later
                            self.rnd.press_readings[seat] = reading
                        if carried is not None:
                            self.shown[seat] = carried
                        self.stats["presses held"] += 1

                    self.send(event, "legal", hold)
                return
            card = cands[0]
            self.stats["presses resolved"] += 1
        if card not in r.revealed or card not in TASK_TEXT:
            self.send(event, "illegal")
            return
        if r.claim_of(seat) is not None or r.claim_for(card) is not None:
            self.send(event, "illegal")
            return
        pressed = seat in r.presses
        when = r.presses[seat] if pressed and r.presses[seat] is not None else t
        # without a reading, the held press's reading judges (WD-12)
        if reading is None and seat in r.press_readings:
            reading = r.press_readings[seat]
            self.stats["judged by the press's reading"] += 1
        true = self.true[seat]
        really = true is not None and completes(target(card, events), true, forbid)
        ok = reading is not None and completes(target(card, events), reading, forbid)
        if reading is not None and not ok and self.cfg.retry:
            if not pressed:
                self.send(event, "illegal")
                self.stats["retry: refused"] += 1
                return

            def forget() -> None:  # WD-19
                assert self.rnd is not None
                del self.rnd.presses[seat]
                self.rnd.press_readings.pop(seat, None)
                self.stats["retry: press forgotten"] += 1

            self.send(event, "legal", forget)
            return
        status = "unchecked" if reading is None else "ok" if ok else "wrong"

        def claim() -> None:
            assert self.rnd is not None
            rnd = self.rnd
            rnd.presses.pop(seat, None)
            rnd.press_readings.pop(seat, None)
            rnd.claims.append(Claim(seat, card, when, rnd.arrivals, status, reading, really))
            rnd.arrivals += 1
            if carried is not None:
                self.shown[seat] = carried
            if self.over() and rnd.presses:  # the others took every card: the presses go
                self.stats["presses gone at the round end"] += len(rnd.presses)
                self.dropped = list(rnd.presses)  # in the order pressed
                rnd.presses.clear()
                rnd.press_readings.clear()
            self.expect_mistake = status == "wrong"
            self.stats[f"claims {status}"] += 1

        self.send(event, "legal", claim)

    def reading(self, seat: int, late: bool) -> None:
        """A dryer reading: judges the seat's unchecked claim (WD-12)."""
        bars = self.seen_dryer(seat)
        r = self.rnd
        assert r is not None
        claim = r.claim_of(seat)
        assert claim is not None and claim.status == "unchecked"
        if self.cfg.set_aside(bars):  # WD-12: judges nothing; the dryer is asked for again

            def aside() -> None:
                self.shown[seat] = bars
                self.stats["impossible readings set aside"] += 1

            dryer = {"dryer": self.encode(bars)}
            self.send(Event("dryer", seat, dryer, source=Source.CAMERA), "legal", aside)
            return
        ok = completes(target(claim.card, r.events), bars, self.cfg.forbid)

        def effect() -> None:
            assert self.rnd is not None
            rnd = self.rnd
            self.shown[seat] = bars
            claim.reading = bars
            if ok:
                claim.status = "ok"
            elif self.cfg.retry:
                rnd.claims.remove(claim)  # the card goes back on the table
                rnd.checked = False
                self.stats["retry: card back"] += 1
            else:
                claim.status = "wrong"
                self.expect_mistake = True
            self.stats["late readings" if late else "readings"] += 1

        # a finished round's result is corrected (and announced again) if it stays over
        was_over = self.over()
        self.send(
            Event("dryer", seat, {"dryer": self.encode(bars)}, source=Source.CAMERA),
            "legal",
            effect,
            announce="round" if was_over and (ok or not self.cfg.retry) else None,
        )

    def mistake(self, seat: int) -> None:
        r = self.rnd
        assert r is not None
        claim = r.claim_of(seat)
        assert claim is not None and claim.status != "wrong"

        def effect() -> None:
            claim.status = "wrong"
            claim.declared = True
            self.expect_mistake = True
            self.stats["mistakes declared"] += 1

        payload = {"reason": "two hands"} if self.rng.random() < 0.5 else {}
        announce = "round" if self.over() else None
        self.send(Event("mistake", seat, payload), "legal", effect, announce=announce)

    # -- a child's moves -------------------------------------------------------------------
    def child(self) -> bool:
        moves = [
            self.second_task,
            self.taken_card,
            self.not_a_task,
            self.second_press,
            self.press_after_claim,
            self.blocked_by_press,
            self.done_between_rounds,
            self.reveal_out_of_turn,
            self.reveal_wrong_count,
            self.reveal_wrong_cards,
            self.reveal_unnamed,
            self.reveal_twice_named,
            self.reveal_too_soon,
            self.forfeit_not_owed,
            self.forfeit_wrong_card,
            self.mistake_without_claim,
            self.mistake_twice,
            self.setup_again,
            self.malformed,
        ]

        def send(move: Any, event: Event) -> None:
            if move == self.second_press:  # nothing, or the card its reading names (WD-17)
                self.done(event, None, self.press_again)
            else:
                self.send(event, "error" if move == self.malformed else "illegal")

        return first_move(self.rng, moves, 4, self.stats, send)

    def racing(self) -> Round | None:
        r = self.rnd
        return r if r is not None and r.tasks and not self.over() else None

    def second_task(self) -> Event | None:
        r = self.racing()
        if r is None or not r.claims or not r.open() or (self.n == 2 and r.presses):
            return None
        seat = self.rng.choice(r.claims).seat
        return Event("done", seat, {"card": self.rng.choice(r.open())}, t_ns=self.stamp())

    def taken_card(self) -> Event | None:
        r = self.racing()
        if r is None or not r.claims:
            return None
        free = [s for s in range(self.n) if r.claim_of(s) is None]
        if not free:
            return None
        card = self.rng.choice(r.claims).card
        payload: dict[str, Any] = {"card": card}
        if self.rng.random() < 0.5:
            payload["dryer"] = dryer_dict(build(target(card, r.events), self.rng, False))
        return Event("done", self.rng.choice(free), payload, t_ns=self.stamp())

    def not_a_task(self) -> Event | None:
        r = self.racing()
        if r is None:
            return None
        events = [c for c in r.revealed if c in EVENT_OF]
        elsewhere = [c for c in ALL_CARDS if c not in r.revealed]
        card = self.rng.choice(events or elsewhere)
        return Event("done", self.rng.randrange(self.n), {"card": card}, t_ns=self.stamp())

    def second_press(self) -> Event | None:
        """The button again; half the time with the dryer the camera reads now, which may
        name the card (exactly one open card) or, with ``retry``, none (WD-19)."""
        r = self.racing()
        if r is None or not r.presses:
            return None
        seat = self.rng.choice(list(r.presses))
        self.press_again = None
        if self.true[seat] is not None and self.rng.random() < 0.5:
            self.press_again = self.seen_dryer(seat)
            payload = {"dryer": self.encode(self.press_again)}
            return Event("done", seat, payload, t_ns=self.stamp(), source=Source.PAD)
        return Event("done", seat, t_ns=self.stamp(), source=Source.PAD)

    def press_after_claim(self) -> Event | None:
        r = self.racing()
        if r is None or not r.claims or len(r.open()) < 2 or (self.n == 2 and r.presses):
            return None
        return Event("done", self.rng.choice(r.claims).seat, source=Source.PAD)

    def blocked_by_press(self) -> Event | None:
        r = self.racing()
        if r is None or self.n != 2 or not r.presses:
            return None
        (seat,) = r.presses
        payload = {"card": self.rng.choice(r.open())} if self.rng.random() < 0.5 else {}
        return Event("done", 1 - seat, payload, t_ns=self.stamp(), source=Source.PAD)

    def done_between_rounds(self) -> Event | None:
        r = self.rnd
        if r is not None and not self.over() and r.tasks:
            return None
        card = self.rng.choice(r.tasks if r is not None and r.tasks else list(TASK_TEXT))
        payload = {"card": card} if self.rng.random() < 0.6 else {}  # or the pad's button
        return Event("done", self.rng.randrange(self.n), payload, t_ns=self.stamp())

    def _reveal_ready(self) -> bool:
        """A reveal would be legal now (so its mistakes are the only reason to refuse)."""
        r = self.rnd
        if self.game_over() or (r is not None and r.tasks and not self.over()):
            return False
        return not (self.over() and self.owed())

    def _reveal_count(self) -> int:
        r = self.rnd
        if r is not None and not self.over() and not r.tasks:
            return 1
        return min(PER_ROUND[self.n], len(self.pile))

    def reveal_out_of_turn(self) -> Event | None:
        if not self._reveal_ready():
            return None
        seat = self.rng.choice([s for s in range(self.n) if s != self.next_revealer()])
        return Event("reveal", seat, {"cards": self.pile[: self._reveal_count()]})

    def reveal_wrong_count(self) -> Event | None:
        if not self._reveal_ready():
            return None
        count = self._reveal_count()
        wrong = self.rng.choice([k for k in range(0, count + 2) if k != count])
        cards = self.pile[:wrong]
        if len(cards) == count:
            return None
        return Event("reveal", self.next_revealer(), {"cards": cards})

    def reveal_wrong_cards(self) -> Event | None:
        """Scripted: cards that are not the top of the pile; table: a card already out."""
        if not self._reveal_ready():
            return None
        count = self._reveal_count()
        if self.cfg.mode == "scripted":
            if len(self.pile) <= count:
                cards = [*self.pile[: count - 1], self.rng.choice(ALL_CARDS)]
                if cards == self.pile[:count] or len(set(cards)) < len(cards):
                    return None
            else:
                cards = self.pile[1 : count + 1]
        else:
            out = sorted(self.seen())
            if not out:
                return None
            cards = [*self.pile[: count - 1], self.rng.choice(out)]
        return Event("reveal", self.next_revealer(), {"cards": cards})

    def reveal_unnamed(self) -> Event | None:
        """At a real table the referee cannot see the pile: the cards must be named."""
        if not self._reveal_ready() or self.cfg.mode != "table":
            return None
        return Event("reveal", self.next_revealer(), {})

    def reveal_twice_named(self) -> Event | None:
        count = self._reveal_count()
        if not self._reveal_ready() or count < 2:
            return None
        return Event("reveal", self.next_revealer(), {"cards": [self.pile[0]] * count})

    def reveal_too_soon(self) -> Event | None:
        """Before the round is over, or before a mistake's forfeit (WD-11)."""
        r = self.rnd
        if self.game_over():
            return None
        if r is not None and r.tasks and not self.over():
            return Event("reveal", r.active, {"cards": self.pile[:1]})
        if self.over() and self.owed():
            return Event("reveal", self.next_revealer(), {"cards": self.pile[:1]})
        return None

    def forfeit_not_owed(self) -> Event | None:
        owed = self.owed() if self.over() else []
        seats = [s for s in range(self.n) if s not in owed and self.earlier(s)]
        if not seats:
            return None
        seat = self.rng.choice(seats)
        return Event("forfeit", seat, {"card": self.rng.choice(self.earlier(seat))})

    def forfeit_wrong_card(self) -> Event | None:
        if not self.over() or not self.owed():
            return None
        seat = self.rng.choice(self.owed())
        mine = self.earlier(seat)
        wrong = [c for c in ALL_CARDS if c not in mine]
        return Event("forfeit", seat, {"card": self.rng.choice(wrong)})

    def mistake_without_claim(self) -> Event | None:
        r = self.rnd
        free = [s for s in range(self.n) if r is None or r.claim_of(s) is None]
        return Event("mistake", self.rng.choice(free), {}) if free else None

    def mistake_twice(self) -> Event | None:
        r = self.rnd
        wrong = [c.seat for c in r.claims if c.status == "wrong"] if r is not None else []
        return Event("mistake", self.rng.choice(wrong), {}) if wrong else None

    def setup_again(self) -> Event | None:
        order = list(ALL_CARDS)
        self.rng.shuffle(order)
        payload = {"order": order} if self.rng.random() < 0.5 else {}
        return Event("setup", None, payload)

    def malformed(self) -> Event | None:
        n, rng = self.n, self.rng
        card = rng.choice(list(TASK_TEXT))
        return rng.choice(
            [
                Event("hang", 0, {"card": card}),
                Event("done", n, {"card": card}),
                Event("done", None, {"card": card}),
                Event("done", 0, {"card": "T99"}),
                Event("done", 0, {"card": card, "dryer": "pants:red / -"}),
                Event("done", 0, {"card": card, "dryer": {"bars": [[{"piece": "sock"}], [], []]}}),
                Event("dryer", 0, {}),
                Event("dryer", 0, {"dryer": {"bars": [[{"piece": "pants", "pins": "red"}]]}}),
                Event("reveal", None, {"cards": card}),
                Event("reveal", n + 2, {}),
                Event("reveal", None, {"cards": ["X1"]}),
                Event("forfeit", 0, {}),
                Event("forfeit", 0, {"card": 7}),
                Event("mistake", 0, {"reason": 7}),
                Event("mistake", None, {}),
                Event("setup", None, {"first": n}),
                Event("setup", n, {}),  # WD-23
                Event("setup", None, {"order": ALL_CARDS[:-1]}),
            ]
        )

    # -- after the game ------------------------------------------------------------------
    def check_replays(self) -> None:
        """The log replays to the same state and verdicts; undo gives back a state exactly."""
        logged = LoggedGame.of(GAME, self)
        for _ in range(3):
            self.check_undo(logged, self.rng.randrange(1, len(self.log) + 1))

    def check_undo(self, logged: LoggedGame, k: int) -> None:
        """Undo event ``k``, undo that undo, overrule it; undo another and replay the rest."""
        lines = [e for _, e in logged.numbered]
        n = len(lines)
        logged.check_undo_twice(k)
        other = self.rng.choice(lines)
        target_event = lines[k - 1]
        if (
            target_event.kind == "done"
            and "card" in target_event.payload
            and self.rng.random() < 0.5
        ):
            # a person corrects the reading: the card hung as it should be
            card = target_event.payload["card"]
            fix = build(SHAPES[card], self.rng, False) if card in SHAPES else ((), (), ())
            payload = {**target_event.payload, "dryer": dryer_dict(fix)}
            other = Event("done", target_event.seat, payload, t_ns=target_event.t_ns)
            self.stats["overrule: a corrected done"] += 1
        overrule = logged.check_overrule(k, other)
        # at the end of the game the rest is judged again: no crash, the cards are kept
        undo = Event("undo", None, {"target": self.rng.randrange(1, n + 1)})
        for late in (undo, overrule):
            got = logged.rejudged(late)
            if got is None:
                self.stats[f"{late.kind}: input error"] += 1
            else:
                check_engine_cards(got, GAME.view(got), self.cfg)
                self.stats[f"{late.kind}: replayed"] += 1


def check_engine_cards(s: Any, view: dict[str, Any], cfg: Config) -> None:
    """What the referee alone must keep: 54 cards, each in one place, the box as the rules say."""
    if not s.started:
        return
    held = [c for cards in view["cards"] for c in cards]
    gone = list(view["discarded"])
    table = [c["id"] for c in view["table"] if c["id"] not in held and c["id"] not in gone]
    named = [*s.pile.known, *s.boxed.known, *held, *gone, *table]
    assert len(named) == len(set(named)), f"{cfg}: a card in two places: {Counter(named)}"
    assert len(named) + s.pile.unknown + s.boxed.unknown == len(ALL_CARDS), cfg
    assert view["boxed"] == BOXED[len(cfg.players)], cfg
    if s.full_info:  # the order was given (an undo may leave a table-mode setup in force)
        assert sorted(named) == sorted(ALL_CARDS), cfg


def play(seed: int, games: int) -> Counter[str]:
    return play_games(seed, games, random_config, Family, Family.check_replays)


# -- what the playthrough found -----------------------------------------------------------
def _ok(state: Any, kind: str, seat: int | None = None, **payload: Any) -> Any:
    new, verdicts = GAME.apply(state, Event(kind, seat, payload))
    bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
    assert not bad, f"{kind} {payload} refused: {bad}"
    return new


def test_a_done_naming_a_card_the_deck_lacks_is_malformed_in_every_phase() -> None:
    """A ``done`` whose card is no Wash Dash card is malformed input (an ``EventError``, as
    for ``reveal`` and ``forfeit``) whatever the phase. It was an input error only while a
    round ran: before the first reveal, while only events showed, between rounds and after
    the game it was judged instead ("illegal: The round is over.") and so went into the log
    as a refused move. Found by the playthrough (a malformed ``done`` between rounds)."""
    bad = Event("done", 0, {"card": "T99"})
    state = _ok(GAME.new_state(["Ann", "Bob", "Cy"], {}), "setup")
    phases = [state]  # before the first reveal
    state = _ok(state, "reveal", 0, cards=["one-handed-1", "opposite-1"])
    phases.append(state)  # only events: drawing on
    state = _ok(state, "reveal", 0, cards=["T01"])
    phases.append(_ok(state, "done", 1, card="T01"))  # the round is over
    for state in phases:
        with pytest.raises(EventError, match="unknown Wash Dash card 'T99'"):
            GAME.apply(state, bad)
        with pytest.raises(EventError, match="unknown Wash Dash card 7"):
            GAME.apply(state, Event("done", 0, {"card": 7}))


def test_ruling_wd24_a_spare_pin_on_the_task_s_bar_is_apart_from_the_task() -> None:
    """WD-2: "Each clothespin must be attached to a different bar, except for the tasks when
    one piece of clothing is hung up by using two clothespins." and WD-4: pieces and pins
    "touching none of its pieces or pins" are ignored by default. The bar rule is about the
    task's pins: a spare shirt on its own yellow pin beside the task's red pin on bar 1 is
    apart from the task (done by default, not with ``extra_items = forbid``); a spare pin
    on a task piece is part of the task and spoils it. (The playthrough's oracle reads the
    rules the same way; this pins the reading.)"""
    beside = "pants:red; shirt:yellow / - / -"
    for options, ok in (({}, True), ({"extra_items": "forbid"}, False)):
        state = _ok(GAME.new_state(["Ann", "Bob", "Cy"], options), "setup")
        state = _ok(state, "reveal", 0, cards=["T01", "T02"])
        state, verdicts = GAME.apply(state, Event("done", 1, {"card": "T01", "dryer": beside}))
        assert GAME.view(state)["claims"][0]["status"] == ("ok" if ok else "wrong"), verdicts
        bars: Bars = ((("pants", ("red",)), ("shirt", ("yellow",))), (), ())
        assert dryer_text(bars) == beside and completes(SHAPES["T01"], bars, not ok) is ok
    state = _ok(GAME.new_state(["Ann", "Bob", "Cy"], {}), "setup")
    state = _ok(state, "reveal", 0, cards=["T01", "T02"])
    state = _ok(state, "done", 1, card="T01", dryer="pants:red+yellow / - / -")
    assert GAME.view(state)["claims"][0]["status"] == "wrong"


@pytest.mark.parametrize("seed", SEEDS)
def test_whole_games_keep_the_rules_invariants(seed: int) -> None:
    stats = play(9100 + seed, GAMES_PER_TEST)
    assert stats["games"] == stats["games over"] == GAMES_PER_TEST, stats
    for kind in ("setup", "reveal", "done", "dryer", "mistake", "forfeit"):
        assert stats[kind] > 0, (kind, stats)
    for what in ("claims ok", "claims wrong", "claims unchecked", "presses held", "round ends"):
        assert stats[what] > 0, (what, stats)
    assert stats["refused"] > 2 * GAMES_PER_TEST and stats["input errors"] > 0, stats


if __name__ == "__main__":
    playthrough_main(play, 200_000)
