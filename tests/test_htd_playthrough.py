"""Whole Hit the Deck games, deal to game over, played by a seeded random family.

Unlike ``test_htd_conformance.py`` (the referee's own view, every move legal) and
``test_htd_table_mode.py`` (two referees side by side), the family here holds the *true*
cards: a shuffled box, hands, draw pile and discard pile that the referee sees only as the
mode allows. In scripted mode every card is named; at a real table (``table``) hands and the
draw pile are counts, shuffles name no order, and drawn cards are named only now and then
(turned-up, cut-to and flipped-to cards are named when the referee cannot know them);
``mixed`` names the hands but not the draw pile. With ``strict_deck`` off the box may miss
cards or hold odd ones. 2 to 6 players, every option of the game.

The family makes plausible moves — legal plays from the true hand, draws when it cannot play
(or when it may), plays or keeps the drawn card, cuts (with and without ``at``), flips,
turn-ups, shuffles when asked, Hand cards with and without the yell, slap races (pads
reporting before the camera, bounces, early, late and missed slaps, near ties), races
closed by the last slap, by the pads' ``race_close``, by the table's ``race_close last=[…]``
or by the next event timed after the window, fake-out slaps, forgotten yells reported late
(also after the player went out on the Hand card), and the hands the referee asks for —
and now and then a move a child would make: out of turn, a card that does not match, a card
it does not hold, a play while forced to cut or flip or while a race is open, drawing twice
or while able to play, passing without drawing, a misread card (not in the deck, one copy
too many, not the known top), a wrong shuffle or deal, a hand with a card missing or
impossible points, and malformed events.

The family also keeps its own book of the race rules (HTD-13 … HTD-20) — who slapped last
(ties, misses, early slaps, the lockout), fake-outs once per seat and batch, the yell — and
of the penalty cards they move. After every event:

* the event is judged as expected: the legal move accepted, the child's move refused with
  one ``illegal`` verdict and the very same state; only ``EventError`` is ever raised, and
  only for malformed events;
* the true cards are conserved and the referee agrees with them: the same pile and hand
  sizes, every card it names really there (at that place in a pile), all of them in scripted
  mode; it never places more copies of a card than the deck has (``strict_deck``);
* the penalty prompts are the family's (last slap, forgotten yell, fake-outs, in order), the
  cards owed, the race, the held slaps and the chore asked for agree with its book;
* the turn: a play, pass or cut passes it on in the direction of play, a flip reverses it
  and hands it back to whoever played (or revealed) the Flip (HTD-5), a drawn card the
  referee knows cannot be played ends the turn, Cut, Flip and Hit the Deck cards force the
  next player or open a chain that passes on until answered;
* a round ends exactly when a hand is empty and its Hand card's race is over, scoring the
  true hands (the one who went out 0); totals are never negative, the game ends once a total
  reaches the target, and the lowest total wins; view (as JSON), table and scoreboard render.

After every game: the log (through JSON) replays to an equal state with the same verdicts;
an ``undo`` of an event gives back the state before it exactly, undoing that undo the state
after, and an ``overrule`` the state the other event gives there; an undo of a random
earlier event re-judges the rest without a crash and still keeps every card in one place.

Found so far (each with its test below): a malformed turn event during a slap race (and a
malformed shuffle or turn-up when none was due) was stored as a refusal, so an undo made the
log unreplayable; a shuffle given as a count of unseen cards (or with ``"?"``) was refused;
a player whose own fake-out was pending did not go out on a last Cut, Flip or Hit card, but
its action was voided all the same (HTD-20); slaps for a Hand card that the pads reported
before the camera, right after another race was judged, were dropped (HTD-15, HTD-17). The
book also keeps the fake-outs paid since the last timed turn action (HTD-15, see
tests/test_htd_review.py): a slap timed before that action is judged with them, so it no
longer joins an untimed Hand card's race played after it. The camera's echo of a slap the
pads reported before an untimed Hand card, reported after the card, is of that slap's cluster
(HTD-14): a lone early slap's echo no longer stood in for the card.

Ad hoc: ``.venv/bin/python -m tests.test_htd_playthrough 2000 [first]`` plays 2 000 more
games (in chunks of 50 seeded ``200000 + first``, ``+ 1``, ...) and prints the tallies.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.events import Event, EventError, Source
from referee.hitthedeck.cards import HtdCard, Type, format_card, parse_card
from referee.hitthedeck.deck import composition
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState, Need, Phase, Requirement
from referee.verdicts import Outcome, Verdict
from tests.playthrough import LoggedGame, first_move, judge, play_games
from tests.playthrough import main as playthrough_main

MS = 1_000_000
DECK: Counter[HtdCard] = Counter(composition())
TURN_KINDS = frozenset({"deal", "turn_up", "shuffle", "play", "draw", "pass", "cut", "flip"})
NEXT_ACTIONS = TURN_KINDS | {"hand"}
MAX_EVENTS = 6000
GAMES_PER_TEST = 24
SEEDS = range(4)
CHILD = 0.07  # per step: a move a child would make
FAKE_SLAP = 0.015  # per step: somebody slaps at nothing
ODD_CARDS = ("HAND", "R1", "BFLIP", "HIT3", "R7", "G9", "YCUT", "HITG")


def tok(card: HtdCard) -> str:
    return format_card(card)


def toks(cards: list[HtdCard]) -> list[str]:
    return [format_card(c) for c in cards]


def fits(card: HtdCard, top: HtdCard | None, require: Any) -> bool:
    """May ``card`` go on ``top`` — the family's own reading of the rules (HTD-8, 9, 11, 23)."""
    hit = card.type in (Type.HIT_NUMBER, Type.HIT_COLOR, Type.HAND)
    if require is not None:
        if hit:
            return False
        if require.number is not None:
            return card.type is Type.NUMBER and card.number == require.number
        return card.color is require.color
    if top is None or hit:
        return True
    if card.type in (Type.CUT, Type.FLIP):
        return top.color is not None and top.color is card.color
    if top.type is Type.HAND:
        return True
    return top.color is card.color or (top.number is not None and top.number == card.number)


def points(cards: list[HtdCard]) -> int:
    return sum(c.number or 0 if c.type is Type.NUMBER else 10 for c in cards)


@dataclass
class Config:
    players: list[str]
    options: dict[str, Any]
    mode: str  # "scripted" | "table" | "mixed"
    box: Counter[HtdCard]

    def __str__(self) -> str:
        odd = "" if self.box == DECK else f", box of {sum(self.box.values())}"
        return f"{len(self.players)} players, {self.mode}, {self.options}{odd}"


def random_config(rng: random.Random) -> Config:
    n = rng.choice([2, 2, 3, 3, 4, 4, 5, 6])
    strict = rng.random() < 0.75
    box = Counter(DECK)
    if not strict and rng.random() < 0.7:  # an odd box: cards lost, cards from another box
        cards = list(box.elements())
        rng.shuffle(cards)
        box = Counter(cards[rng.randrange(0, 40) :])
        for _ in range(rng.randrange(0, 4)):
            box[parse_card(rng.choice(ODD_CARDS))] += 1
    cap = (sum(box.values()) - 2) // n
    options: dict[str, Any] = {
        "target_score": rng.choice([10, 20, 40, 100]),
        "hand_size": min(cap, rng.choice([1, 2, 3, 5, 7, 7, 7, 10, 18])),
        "race_window_ms": rng.choice([300, 1000, 3000]),
        "race_tie_ns": rng.choice([0, 1000, 20 * MS]),
        "race_tie": rng.choice(["all", "none"]),
        "early_lockout_ms": rng.choice([0, 0, 50, 300]),
        "must_play_if_able": rng.random() < 0.8,
        "strict_deck": strict,
    }
    for name in list(options):
        if name not in ("hand_size", "target_score") and rng.random() < 0.15:
            del options[name]  # the default
    if options.get("strict_deck", True) and box != DECK:
        options["strict_deck"] = False
    mode = rng.choice(["scripted", "scripted", "table", "mixed"])
    return Config([f"P{i}" for i in range(n)], options, mode, box)


@dataclass
class Truth:
    """The true cards on the table (piles top first)."""

    hands: list[list[HtdCard]]
    draw: list[HtdCard]
    discard: list[HtdCard]
    box: Counter[HtdCard]

    def everything(self) -> Counter[HtdCard]:
        out: Counter[HtdCard] = Counter(self.draw)
        out.update(self.discard)
        for hand in self.hands:
            out.update(hand)
        return out


@dataclass
class MRace:
    by: int
    trigger: int | None
    timed: bool
    presses: list[tuple[int, int]]
    faked: set[int]
    yell: bool = False  # already penalised for the forgotten yell
    seen: set[tuple[int, int]] = field(default_factory=set)  # seen before an untimed card
    # of those, the ones reported after the race judged before it (HTD-14, HTD-17)
    claimed: set[tuple[int, int]] = field(default_factory=set)


@dataclass
class MClosed:
    by: int
    trigger: int
    timed: bool
    faked: set[int]
    yell: bool
    until: int | None = None  # the time of the turn action that ended its claim (HTD-17)


@dataclass
class World:
    """The true cards and the family's own book of the rules: races, penalties, the round."""

    n: int
    opts: dict[str, Any]
    truth: Truth | None = None
    phase: str = "deal"
    need: str | None = None
    race: MRace | None = None
    closed: MClosed | None = None
    judged: MClosed | None = None  # the race judged before the last timed turn action
    held: list[tuple[int, int]] = field(default_factory=list)
    after: list[tuple[int, int]] = field(default_factory=list)  # slaps after a judged race
    action: int | None = None  # the time of the last timed turn action (HTD-15)
    paid: list[tuple[int, int]] = field(default_factory=list)  # slaps paid as fake-outs
    owed: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    rounds: list[tuple[int, ...]] = field(default_factory=list)
    round_points: list[int] | None = None
    pending: set[int] = field(default_factory=set)  # seats whose hands must be entered
    reopen: World | None = None
    winners: tuple[int, ...] = ()
    flip_by: int | None = None  # whose play the Flip in force counts as (HTD-5)
    last_drawn: HtdCard | None = None
    order: list[HtdCard] | None = None  # the true order of the shuffle being sent
    penalties: list[tuple[int, str, int]] = field(default_factory=list)  # this event's
    stats: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.owed = [0] * self.n
        self.totals = [0] * self.n
        self.window = self.opts["race_window_ms"] * MS
        lock = self.opts["early_lockout_ms"] * MS
        self.lock = lock  # 0 when off

    # -- penalties -----------------------------------------------------------------
    def owe(self, seat: int, cards: int, why: str) -> None:
        self.owed[seat] += cards
        self.penalties.append((seat, why, cards))
        self.stats[f"penalty {why}"] += 1

    def fake_outs(self, presses: list[tuple[int, int]], already: set[int] | None = None) -> None:
        """Once per seat for a batch of slaps; ``already`` paid for this batch before."""
        due = [p for p in presses if p[0] not in (already or set())]
        self.paid += due
        for seat in sorted({s for s, _ in due}):
            self.owe(seat, 2, "fake_out")

    def paid_seats(self, lo: int | None, hi: int | None) -> set[int]:
        """Seats that paid for a slap timed in [lo, hi) (None: no bound)."""
        return {s for s, t in self.paid if (lo is None or t >= lo) and (hi is None or t < hi)}

    def resolve_held(self, before: int | None = None) -> None:
        """Held slaps timed before the action at ``before`` (all: None) are fake-outs, once
        per seat for the slaps since the last timed turn action (HTD-15)."""
        due = [p for p in self.held if before is None or p[1] < before]
        self.held = [p for p in self.held if p not in due]
        self.fake_outs(due, self.paid_seats(self.action, before))

    def at_action(self, t_ns: int | None) -> None:
        """After a turn action: its batch is paid; a timed one starts the next batch, and
        only the batch it closed is remembered."""
        self.resolve_held(t_ns)
        if t_ns is None:
            self.paid = [p for p in self.paid if self.action is not None and p[1] < self.action]
            return
        self.paid = [p for p in self.paid if self.action is None or p[1] >= self.action]
        self.action = t_ns

    def late_slap(self, seat: int, t: int) -> None:
        """A slap with no race timed before the last timed turn action, reported after it."""
        assert self.action is not None
        if seat not in self.paid_seats(None, self.action):
            self.fake_outs([(seat, t)])

    def owes_fake_out(self, seat: int, t_ns: int | None) -> bool:
        """HTD-20: whether ``seat`` pays a fake-out at the play at ``t_ns`` or before the
        hands are scored, for a slap held or reported after a judged race and timed after
        the play (so a last card does not empty the hand)."""
        pending = [p for p in self.held if p[0] == seat]
        pending += [p for p in self.after if p[0] == seat and t_ns is not None and p[1] >= t_ns]
        for _, t in pending:
            if t_ns is None:
                lo, hi = self.action, None
            elif t < t_ns:
                lo, hi = self.action, t_ns
            else:
                lo, hi = t_ns, None
            if seat not in self.paid_seats(lo, hi):
                return True
        return False

    def draw_owed(self) -> None:
        t = self.truth
        assert t is not None
        if self.need is not None or not any(self.owed):
            return
        for seat in range(self.n):
            while self.owed[seat] and t.draw:
                t.hands[seat].append(t.draw.pop(0))
                self.owed[seat] -= 1
            if self.owed[seat] and not t.draw and len(t.discard) <= 1:
                self.owed[seat] = 0  # HTD-19: nothing to reshuffle, let off
                self.stats["penalty let off"] += 1

    # -- the race ------------------------------------------------------------------
    def deadline(self, race: MRace) -> int | None:
        return None if race.trigger is None else race.trigger + self.window

    def slapped(self, race: MRace) -> set[int]:
        if race.trigger is None:
            return {s for s, _ in race.presses}
        end = race.trigger + self.window
        return {s for s, t in race.presses if race.trigger <= t <= end}

    def open_race(self, by: int, t_ns: int | None, yelled: bool) -> None:
        judged = self.judged
        claimed: list[tuple[int, int]] = []
        if t_ns is None and judged is not None and judged.until is None:
            # HTD-14: slaps since the judged race, after its window, were at this card
            claimed = [p for p in self.after if p[1] > judged.trigger + self.window]
            self.held += claimed
            self.stats["slaps after a race claimed by an untimed Hand card"] += len(claimed)
        trigger = t_ns
        seen = set(self.held) if t_ns is None else set()
        if trigger is None and self.held:
            # HTD-14: the first slap by time that is not a lone one long before the others
            alone = self.isolated(self.held, seen)
            trigger = min(t for p in self.held if p not in alone for t in [p[1]])
            # a lone one reported after the judged race was a late slap there (HTD-17)
            ignored = [p for p in alone if p in claimed]
            self.held = [p for p in self.held if p not in ignored]
            self.stats["late slaps at a judged card set aside at an untimed one"] += len(ignored)
        joined = list(self.held)
        faked: set[int] = set()
        late: list[tuple[int, int]] = []
        if trigger is not None:
            # after the window: late slaps at this card (HTD-17), and the race is over
            late = [p for p in self.held if p[1] > trigger + self.window]
            early = [p for p in self.held if p[1] < trigger - self.lock]
            joined = [p for p in self.held if p not in early and p not in late]
            already = self.paid_seats(self.action, trigger - self.lock)
            faked = {s for s, _ in early} | already
            self.fake_outs(early, already)
        if t_ns is not None:  # slaps after the last race, timed at this card (HTD-15, 17)
            claimed = [p for p in self.after if t_ns - self.lock <= p[1] <= t_ns + self.window]
            joined += claimed
            self.stats["slaps after a race claimed by the next Hand card"] += len(claimed)
            late += [p for p in self.after if p[1] > t_ns + self.window]  # late at this card
        self.after = late
        self.race = MRace(by, trigger, t_ns is not None, joined, faked, seen=seen)
        self.race.claimed = set(claimed) if t_ns is None else set()
        self.held = []
        self.closed = None
        self.stats["races"] += 1
        if not yelled:
            self.forgot_yell(by)
        self.close_if_all()
        if self.race is not None and late:
            self.stats["race closed by a late slap seen before its card"] += 1
            self.judge(None)

    def isolated(
        self, presses: list[tuple[int, int]], seen: set[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """HTD-14: slaps seen before an untimed Hand card with no other seat's slap within the
        window after them, and a slap after that window: before the card."""
        ordered = sorted(presses, key=lambda p: (p[1], p[0]))
        out = []
        for i, (seat, t) in enumerate(ordered):
            rest, end = ordered[i + 1 :], t + self.window
            if (
                (seat, t) not in seen
                or any(s != seat and u <= end for s, u in rest)
                or all(u <= end for _, u in rest)
            ):
                break
            out.append((seat, t))
        return out

    def reanchor(self, race: MRace, seat: int, t: int) -> bool:
        """HTD-14 for a slap joining an untimed race; True if it was a lone one before the
        race's start (a fake-out, or locked out inside the early-lockout span)."""
        if (
            race.trigger is not None
            and t < race.trigger
            and (seat, t) in self.isolated([*race.presses, (seat, t)], race.seen | {(seat, t)})
        ):
            if t < race.trigger - self.lock:
                self.early(seat)
            else:
                race.presses.append((seat, t))
            self.stats["a lone slap before an untimed race's start"] += 1
            return True
        for p in race.presses:  # an echo of a slap seen before the card: one cluster
            if p in race.seen and p[0] == seat and abs(p[1] - t) <= self.window:
                race.seen.add((seat, t))
                if p in race.claimed:
                    race.claimed.add((seat, t))
                break
        end = self.deadline(race)
        if end is None or t <= end:
            return False
        every = [*race.presses, (seat, t)]
        alone = self.isolated(every, race.seen)
        if alone:
            start = min(u for p in every if p not in alone for u in [p[1]])
            ignored = [p for p in alone if p in race.claimed]  # late at the judged card
            early = [p for p in alone if p not in ignored and not start - self.lock <= p[1]]
            before = set(race.faked)
            race.presses = [p for p in race.presses if p not in early and p not in ignored]
            race.trigger = start
            race.faked = before | {s for s, _ in early}
            self.fake_outs(early, before)
        return False

    def close_if_all(self) -> None:
        if self.race is not None and len(self.slapped(self.race)) == self.n:
            self.judge(None)

    def losers(self, race: MRace, trigger: int) -> list[int]:
        """Who slapped last (HTD-13, HTD-15, HTD-16; HW-1 … HW-4), from the times alone."""
        end = trigger + self.window
        pressed: dict[int, int] = {}
        absent = []
        for seat in range(self.n):
            times = sorted(t for s, t in race.presses if s == seat)
            locked = [t for t in times if t < trigger and self.lock and trigger - t <= self.lock]
            inside = [t for t in times if trigger <= t <= end]
            if locked or not inside:
                absent.append(seat)
            else:
                pressed[seat] = inside[0]
        if absent:
            self.stats["race: somebody missed"] += 1
            return absent
        latest = max(pressed.values())
        tie = self.opts["race_tie_ns"]
        tied = sorted(s for s, t in pressed.items() if latest - t < tie or t == latest)
        if len(tied) > 1:
            self.stats["race: a tie"] += 1
            if self.opts["race_tie"] == "none":
                return []
        return tied

    def judge(self, last: list[int] | None) -> None:
        race = self.race
        assert race is not None
        trigger = race.trigger if race.trigger is not None else 0
        losers = sorted(set(last)) if last is not None else self.losers(race, trigger)
        for seat in losers:
            self.owe(seat, 4, "last_slap")
        self.closed = MClosed(race.by, trigger, race.timed, set(race.faked), race.yell)
        self.race = None
        self.stats["races judged"] += 1

    def early(self, seat: int, race: MRace | MClosed | None = None) -> None:
        race = race or (self.race if self.race is not None else self.closed)
        assert race is not None
        if seat not in race.faked:
            race.faked.add(seat)
            self.owe(seat, 2, "fake_out")

    def earlier(self, t: int) -> bool:
        """Slapped before the turn action that ended the judged race's claim (HTD-17)."""
        judged = self.judged
        return judged is not None and judged.until is not None and t < judged.until

    def judged_slap(self, seat: int, t: int) -> None:
        judged = self.judged
        assert judged is not None
        if self.came_before(judged, t):
            self.early(seat, judged)

    def came_before(self, race: MClosed, t: int) -> bool:
        """Timed before the judged race's card: an untimed one's start is its first slap."""
        if race.timed:
            return t < race.trigger - self.lock
        return t < race.trigger - self.window - self.lock

    def slap(self, seat: int, t: int) -> None:
        if self.phase != "play":
            return
        race = self.race
        if (
            race is not None
            and not race.timed
            and not self.earlier(t)
            and not (self.action is not None and t < self.action)
            and self.reanchor(race, seat, t)
        ):
            return
        if race is not None:
            end = self.deadline(race)
            if end is not None and t > end:
                self.judge(None)
            elif race.timed and race.trigger is not None and t < race.trigger - self.lock:
                if self.earlier(t):
                    self.judged_slap(seat, t)
                else:
                    self.early(seat)
                return
            elif not race.timed and self.earlier(t):
                self.judged_slap(seat, t)
                return
            elif not race.timed and self.action is not None and t < self.action:
                self.late_slap(seat, t)  # before the last timed action: not at this card
                return
            else:
                race.presses.append((seat, t))
                if race.trigger is None:
                    race.trigger = t
                elif not race.timed:
                    race.trigger = min(race.trigger, t)
                self.close_if_all()
                return
        closed = self.closed
        if closed is not None and self.came_before(closed, t):
            if self.earlier(t):
                self.judged_slap(seat, t)
            else:
                self.early(seat)
        elif closed is None and self.earlier(t):
            self.judged_slap(seat, t)
        elif (closed is None or not closed.timed) and self.action is not None and t < self.action:
            self.late_slap(seat, t)  # HTD-15: judged with the slaps paid at that action
        elif closed is not None:
            self.after.append((seat, t))
        else:
            self.held.append((seat, t))

    def forgot_yell(self, by: int) -> None:
        race = self.race if self.race is not None else self.closed
        assert race is not None and race.by == by and not race.yell
        race.yell = True
        self.owe(by, 4, "no_yell")

    # -- the round -----------------------------------------------------------------
    def settle(self, hands_seen: tuple[Any, ...] | None = None) -> None:
        t = self.truth
        if self.phase != "play" or t is None:
            return
        self.draw_owed()
        if self.race is None and not any(self.owed):
            out = [s for s in range(self.n) if not t.hands[s]]
            if out and self.held:
                self.resolve_held()
                self.draw_owed()
                out = [s for s in range(self.n) if not t.hands[s]]
            if out and not any(self.owed):
                self.end_round(out[0], hands_seen)
                return
        if self.need is None and not t.draw and len(t.discard) > 1:
            self.need = "shuffle:empty"

    def end_round(self, out: int, hands_seen: tuple[Any, ...] | None) -> None:
        assert self.truth is not None
        closed = self.closed
        self.reopen = None
        if closed is not None and closed.by == out and not closed.yell:
            self.reopen = copy.deepcopy(self)  # HTD-18/20: a late yell report resumes
            self.reopen.penalties = []
        self.round_points = [0 if s == out else points(self.truth.hands[s]) for s in range(self.n)]
        self.phase, self.need, self.closed = "scoring", None, None
        self.pending = {
            s
            for s in range(self.n)
            if s != out and hands_seen is not None and hands_seen[s].unknown
        }
        self.stats["rounds"] += 1
        if not self.pending:
            self.finish_round()

    def finish_round(self) -> None:
        assert self.round_points is not None
        self.totals = [a + b for a, b in zip(self.totals, self.round_points, strict=True)]
        self.rounds.append(tuple(self.round_points))
        self.round_points = None
        if max(self.totals) >= self.opts["target_score"]:
            low = min(self.totals)
            self.phase = "game_over"
            self.winners = tuple(s for s, x in enumerate(self.totals) if x == low)
        else:
            self.phase = "round_over"

    def resume(self, by: int) -> None:
        snap = self.reopen
        assert snap is not None
        penalties, stats = self.penalties, self.stats
        self.__dict__.update(copy.deepcopy(snap).__dict__)
        self.penalties, self.stats, self.reopen = penalties, stats, None
        self.stats["round resumed"] += 1
        self.forgot_yell(by)

    # -- one accepted event --------------------------------------------------------
    def close_late(self, t_ns: int | None) -> bool:
        """An event timed after the race's window judges the race first (HTD-13)."""
        race = self.race
        if race is None or t_ns is None:
            return False
        end = self.deadline(race)
        if end is None or t_ns <= end:
            return False
        self.judge(None)
        self.settle()
        self.stats["race closed by a later event"] += 1
        return True

    def late_refusal(self, t_ns: int | None) -> bool:
        """Whether a turn event at ``t_ns`` is refused because judging the race ends the round
        or empties the draw pile (HTD-13); the book is not changed."""
        other = copy.deepcopy(self)
        need, phase = other.need, other.phase
        if not other.close_late(t_ns):
            return False
        return other.phase != phase or (other.need is not None and need is None)

    def apply(self, event: Event, before: HtdState, after: HtdState, verdicts: list[Verdict]):
        self.penalties = []
        kind = event.kind
        if kind not in ("slap", "race_close"):
            self.close_late(event.t_ns)
        if kind in TURN_KINDS:
            assert self.race is None, "a turn event was taken while the race was open"
            if self.closed is not None:  # untimed: no end (an untimed Hand card's HTD-14)
                self.judged = copy.deepcopy(self.closed)
                self.judged.until = event.t_ns
            self.closed = None
        if kind in NEXT_ACTIONS:
            self.reopen = None
        getattr(self, "on_" + kind)(event, before, verdicts)
        opened = self.race is not None or self.closed is not None  # by this Hand card
        if kind in TURN_KINDS and not opened:  # after the action: held (HTD-15); else ignored
            t_ns = event.t_ns
            self.held += [p for p in self.after if t_ns is not None and p[1] >= t_ns]
            self.after = []
        if kind in TURN_KINDS:
            self.at_action(event.t_ns)
        self.settle(after.hands)

    def effect(self, card: HtdCard, by: int, t_ns: int | None, yelled: bool = True) -> None:
        if card.type is Type.HAND:
            self.open_race(by, t_ns, yelled)
        elif card.type is Type.FLIP:
            self.flip_by = by

    def on_deal(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        raise AssertionError("the family deals through Family.deal")

    def deal(self, truth: Truth) -> None:
        self.truth = truth
        self.phase, self.need = "play", "turn_up"
        self.race, self.closed, self.held, self.after = None, None, [], []
        self.judged = None
        self.action, self.paid = None, []
        self.owed = [0] * self.n
        self.reopen, self.flip_by = None, None

    def on_turn_up(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None
        card = t.draw.pop(0)
        t.discard.insert(0, card)
        self.need = None
        by = before.reveal_by if before.reveal_by is not None else before.dealer
        if before.reveal_ctx == "start" and card.type is Type.HAND:
            t.draw.insert(0, t.discard.pop(0))
            self.need = "shuffle:start_hand"
            self.stats["start Hand card"] += 1
        elif before.reveal_ctx == "flip" and card.type is Type.FLIP:
            self.flip_on_flip(before.draw[1:])
        else:
            self.effect(card, by, event.t_ns)

    def flip_on_flip(self, engine_draw: tuple[HtdCard | None, ...]) -> None:
        t = self.truth
        assert t is not None
        if all(c is not None and c.type is Type.FLIP for c in engine_draw):
            self.stats["flip stays (HTD-6)"] += 1
            return
        t.draw.insert(0, t.discard.pop(0))
        self.need = "shuffle:flip_flip"
        self.stats["flip on flip"] += 1

    def on_shuffle(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None and self.order is not None
        if self.need == "shuffle:empty":
            assert Counter(self.order) == Counter(t.discard[1:])
            t.draw, t.discard = list(self.order), t.discard[:1]
            self.need = None
        else:
            assert Counter(self.order) == Counter(t.draw)
            t.draw = list(self.order)
            self.need = "turn_up"
        self.order = None

    def on_play(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None and event.seat is not None
        card = parse_card(event.payload["card"])
        t.hands[event.seat].remove(card)
        t.discard.insert(0, card)
        faked_out = self.owes_fake_out(event.seat, event.t_ns)  # pays 2: not out (HTD-20)
        if t.hands[event.seat] or card.type is Type.HAND or faked_out:
            self.effect(card, event.seat, event.t_ns, event.payload.get("yelled", True))

    def on_draw(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None and event.seat is not None
        self.last_drawn = None
        if t.draw:
            self.last_drawn = t.draw.pop(0)
            t.hands[event.seat].append(self.last_drawn)

    def on_pass(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        pass

    def on_cut(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None and event.seat is not None
        if not t.draw:
            return
        said = next(v for v in verdicts if v.outcome is Outcome.LEGAL and "at" in v.data)
        card = t.draw.pop(said.data["at"])
        assert tok(card) == said.data["card"], (card, said)
        t.discard.insert(0, card)
        self.stats["cut at given" if "at" in event.payload else "cut at the middle"] += 1
        self.effect(card, event.seat, event.t_ns)

    def on_flip(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        t = self.truth
        assert t is not None and event.seat is not None
        if not t.draw:
            return
        new_discard, t.draw = t.draw[::-1], t.discard[::-1]
        t.discard = new_discard
        card = t.discard[0]
        if card.type is Type.FLIP:
            self.flip_on_flip(tuple(reversed(before.discard)))
        else:
            self.effect(card, event.seat, event.t_ns)

    def on_slap(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        assert event.seat is not None and event.t_ns is not None
        self.slap(event.seat, event.t_ns)

    def on_race_close(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        if self.race is not None:
            self.judge(event.payload.get("last"))
        elif self.held:
            self.resolve_held()

    def on_forgot_yell(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        if self.race is None and self.closed is None:
            assert self.reopen is not None
            assert self.reopen.closed is not None
            self.resume(self.reopen.closed.by)
            return
        race = self.race if self.race is not None else self.closed
        assert race is not None
        self.forgot_yell(race.by)

    def on_hand(self, event: Event, before: HtdState, verdicts: list[Verdict]) -> None:
        assert event.seat in self.pending
        self.pending.discard(event.seat)
        if not self.pending:
            self.finish_round()


def engine_need(s: HtdState) -> str | None:
    """The referee's chore in the family's words: None, "turn_up" or "shuffle:<why>"."""
    if s.need is Need.SHUFFLE:
        assert s.shuffle_why is not None
        return f"shuffle:{s.shuffle_why.value}"
    return None if s.need is None else s.need.value


class Family:
    """Plays one game at a table with true cards and checks the referee after every event."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        self.rng = rng
        self.cfg = config
        self.state: HtdState = GAME.new_state(config.players, config.options)
        self.opts = dict(self.state.options)
        self.n = len(config.players)
        self.strict = self.opts["strict_deck"]
        self.world = World(self.n, self.opts)
        self.next_truth: Truth | None = None
        self.clock = rng.randrange(10**9, 10**12)
        self.all_named = False  # the referee can see every card (scripted, no blind shuffle)
        self.plan: list[tuple[int, int]] | None = None  # slaps still to come in the race
        self.leftover: list[tuple[int, int]] = []  # slaps of a judged race still to arrive
        self.log: list[Event] = []
        self.verdicts: list[list[Verdict]] = []
        self.states: list[HtdState] = []  # the state after each logged event
        self.stats: Counter[str] = self.world.stats

    # -- sending events ----------------------------------------------------------------
    def tick(self) -> int:
        self.clock += self.rng.randint(200, 2500) * MS
        return self.clock

    def stamp(self, p: float = 0.7) -> int | None:
        """A turn event's time: the camera's (now), or none from the tablet."""
        return self.tick() if self.rng.random() < p else None

    def send(self, event: Event, expect: str) -> list[Verdict] | None:
        """Apply ``event``; ``expect`` is "legal", "illegal" or "error" (malformed)."""
        before = self.state
        where = f"[{self.cfg}] event {len(self.log) + 1} {event.to_dict()}"
        judged = judge(GAME, before, event, expect, where, before.n, self.stats)
        if judged is None:
            return None
        after, verdicts = judged
        self.log.append(event)
        self.verdicts.append(verdicts)
        self.states.append(after)
        self.state = after
        if expect == "legal":
            self.follow(before, event, verdicts, where)
        self.check(before, event, verdicts, where)
        return verdicts

    def follow(self, before: HtdState, event: Event, verdicts: list[Verdict], where: str) -> None:
        """Move the true cards and the family's book as the event says; check the penalties."""
        w = self.world
        if event.kind == "deal":
            assert self.next_truth is not None
            w.deal(self.next_truth)
            self.next_truth, self.plan, self.leftover = None, None, []
            w.penalties = []
        else:
            w.apply(event, before, self.state, verdicts)
        said = [
            (v.seat, v.data["penalty"], v.data["draw"]) for v in verdicts if "penalty" in v.data
        ]
        assert said == w.penalties, f"{where}: penalties {said}, the rules give {w.penalties}"
        s = self.state
        if event.kind in TURN_KINDS:
            self.leftover = []
        if s.race is not None and self.plan is None:
            self.plan = self.make_plan(s.race.trigger_ns)
        if s.race is None and self.plan is not None:
            self.leftover, self.plan = self.plan, None

    # -- the checks --------------------------------------------------------------------
    def check(self, before: HtdState, event: Event, verdicts: list[Verdict], where: str) -> None:
        s, w = self.state, self.world
        json.dumps(GAME.view(s))
        GAME.table(s)
        board = GAME.scoreboard(s).to_dict()
        assert all(total >= 0 for total in board["totals"]), where
        check_engine_cards(s, self.cfg)
        assert list(s.totals) == w.totals, f"{where}: totals {s.totals}, book {w.totals}"
        assert s.phase.value == w.phase, f"{where}: phase {s.phase}, book {w.phase}"
        t = w.truth
        if t is None:
            assert s.phase is Phase.DEAL
            return
        assert t.everything() == t.box, f"{where}: a true card was lost or doubled"
        assert len(s.discard) == len(t.discard), where
        assert all(c is None or c is t.discard[i] for i, c in enumerate(s.discard)), where
        assert len(s.draw) == len(t.draw), f"{where}: draw pile {len(s.draw)} != {len(t.draw)}"
        assert all(c is None or c is t.draw[i] for i, c in enumerate(s.draw)), where
        assert [len(h) for h in s.hands] == [len(h) for h in t.hands], where
        for seat, hand in enumerate(s.hands):
            assert not Counter(hand.known) - Counter(t.hands[seat]), (where, seat, hand)
            if self.all_named:
                assert hand.unknown == 0, (where, seat)
        assert list(s.owed) == w.owed, f"{where}: owed {s.owed}, book {w.owed}"
        assert engine_need(s) == w.need, f"{where}: need {s.need}, book {w.need}"
        assert (s.race is None) == (w.race is None), f"{where}: race {s.race} / {w.race}"
        if s.race is not None and w.race is not None:
            assert s.race.by == w.race.by and s.race.trigger_ns == w.race.trigger, where
            assert sorted((p.seat, p.t_ns) for p in s.race.presses) == sorted(w.race.presses)
        assert sorted((p.seat, p.t_ns) for p in s.held) == sorted(w.held), where
        assert sorted((p.seat, p.t_ns) for p in s.after_race) == sorted(w.after), where
        assert sorted((p.seat, p.t_ns) for p in s.paid) == sorted(w.paid), where
        assert s.action_ns == w.action, where
        assert (s.closed_race is None) == (w.closed is None), where
        assert (s.reopen is None) == (w.reopen is None), where
        ended = [v for v in verdicts if v.outcome is Outcome.ROUND_END]
        if s.phase is Phase.PLAY:
            for seat, hand in enumerate(t.hands):
                if not hand:  # only a Hand card's race or its penalty keeps the round going
                    assert (s.race is not None and s.race.by == seat) or any(s.owed), where
            if all(v.outcome is not Outcome.ILLEGAL for v in verdicts):
                self.check_turn(before, event, where)
        if ended:
            assert len(ended) == 1 and w.rounds, where
            assert ended[0].data["points"] == list(w.rounds[-1]), (where, w.rounds)
            assert ended[0].data["totals"] == w.totals, where
            out = ended[0].seat
            assert out is not None and w.rounds[-1][out] == 0, where
            self.stats["ended rounds"] += 1
        if s.phase is Phase.GAME_OVER:
            assert max(s.totals) >= self.opts["target_score"], where
            assert s.winners == w.winners, where
            if before.phase is not Phase.GAME_OVER:
                assert [v.outcome for v in verdicts].count(Outcome.GAME_END) == 1, where
        elif s.rounds:
            assert max(s.totals) < self.opts["target_score"], where

    def check_turn(self, before: HtdState, event: Event, where: str) -> None:
        """Whose turn, the direction and what the next player must do (HTD-3 … HTD-12)."""
        s = self.state
        kind = event.kind
        if kind not in ("play", "draw", "pass", "cut", "flip", "turn_up"):
            return
        if before.phase is not Phase.PLAY or s.round != before.round:
            return
        if kind == "turn_up":
            assert s.turn == before.turn and s.direction == before.direction, where
            top = s.top
            stays = before.reveal_ctx == "flip" and top is not None and top.type is Type.FLIP
            if s.need is None and top is not None and not stays:
                self.check_forced(top, where)
            return
        seat = event.seat
        assert seat is not None
        d = before.direction
        if kind == "flip":
            assert s.direction == -d, f"{where}: the flip did not reverse play"
            assert s.turn == self.world.flip_by, f"{where}: HTD-5, turn {s.turn}"
            self.stats["flips checked (HTD-5)"] += 1
            return
        assert s.direction == d, where
        nxt = (seat + d) % s.n
        if kind == "draw" and s.turn == seat:
            assert s.drawn and s.forced is None, where
            card = s.drawn[0]
            assert card is None or fits(card, s.top, s.require), f"{where}: unplayable kept"
            return
        assert s.turn == nxt, f"{where}: turn {s.turn}, expected {nxt}"
        assert not s.drawn, where
        if kind == "draw":
            card = self.world.last_drawn
            assert card is None or not fits(card, before.top, before.require), where
            assert s.require == before.require, f"{where}: the chain must pass on (HTD-11)"
        elif kind == "pass":
            assert s.require == before.require, f"{where}: the chain must pass on (HTD-11)"
        elif kind == "play" and not self._truth().hands[seat] and s.top.type is not Type.HAND:
            # went out: the round ends once the owed cards are drawn; the action is void
            assert s.forced is None and s.require is None and any(s.owed), where
        elif s.top is not None and (kind == "play" or len(s.discard) > len(before.discard)):
            self.check_forced(s.top, where)

    def check_forced(self, top: HtdCard, where: str) -> None:
        s = self.state
        want_forced = {Type.CUT: "cut", Type.FLIP: "flip"}.get(top.type)
        assert s.forced == want_forced, f"{where}: forced {s.forced} after {top}"
        if top.type is Type.HIT_NUMBER:
            assert s.require is not None and s.require.number == top.number, where
        elif top.type is Type.HIT_COLOR:
            assert s.require is not None and s.require.color is top.color, where
        else:
            assert s.require is None, f"{where}: a chain after {top}"

    # -- the family's moves ------------------------------------------------------------
    def play_game(self) -> None:
        while self.state.phase is not Phase.GAME_OVER or self.maybe_resume():
            if len(self.log) >= MAX_EVENTS:
                self.stats["stalled"] += 1
                return
            self.step()
        self.stats["games over"] += 1
        self.send(Event("deal", None, {"hands": [1] * self.n}), "illegal")  # game over
        self.send(Event("play", 0, {"card": "R1"}), "illegal")
        self.send(Event("slap", 1, t_ns=self.tick()), "legal")  # ignored
        if self.state.reopen is None:
            self.send(Event("forgot_yell"), "illegal")

    def maybe_resume(self) -> bool:
        """At game over, a forgotten yell may still be reported (HTD-18, HTD-20, HTD-21)."""
        if self.state.reopen is not None and self.rng.random() < 0.3:
            self.send(Event("forgot_yell", None), "legal")
            self.stats["game resumed"] += 1
            return self.state.phase is not Phase.GAME_OVER
        return False

    def step(self) -> None:
        s, rng = self.state, self.rng
        if s.phase in (Phase.DEAL, Phase.ROUND_OVER):
            closed = s.reopen.closed_race if s.reopen is not None else None
            if closed is not None and rng.random() < 0.2:  # HTD-18: the yell reported late
                self.send(Event("forgot_yell", rng.choice([None, closed.by])), "legal")
                return
            if rng.random() < 0.08:
                self.bad_deal()
            if rng.random() < 0.04:  # a card played before the deal is entered
                self.send(Event("play", 0, {"card": "R1"}), "illegal")
            if rng.random() < 0.04:
                self.send(Event("slap", rng.randrange(self.n), t_ns=self.tick()), "legal")
            self.deal()
            return
        if s.phase is Phase.SCORING:
            if s.reopen is not None and rng.random() < 0.2:
                self.send(Event("forgot_yell", None), "legal")
                return
            self.score_hands()
            return
        if rng.random() < (CHILD if s.race is None else 3 * CHILD) and self.child():
            return
        if s.race is not None:
            self.race_move()
            return
        if s.closed_race is not None and self.after_race():
            return
        if rng.random() < FAKE_SLAP or (s.need is Need.SHUFFLE and rng.random() < 0.05):
            self.send(
                Event("slap", rng.randrange(self.n), t_ns=self.tick(), source=Source.PAD), "legal"
            )
            return
        if s.need is Need.TURN_UP:
            self.turn_up()
        elif s.need is Need.SHUFFLE:
            self.shuffle()
        else:
            self.turn_move(self.stamp())

    def deal(self) -> None:
        rng, n, size = self.rng, self.n, self.opts["hand_size"]
        cards = list(self.cfg.box.elements())
        rng.shuffle(cards)
        hands = [cards[i * size : (i + 1) * size] for i in range(n)]
        draw = cards[n * size :]
        self.next_truth = Truth(hands, draw, [], self.cfg.box)
        mode = self.cfg.mode
        payload: dict[str, Any] = {"hands": [toks(h) if mode != "table" else len(h) for h in hands]}
        if mode == "scripted":
            payload["draw"] = toks(draw)
        elif self.cfg.box != DECK or rng.random() < 0.5:
            payload["draw"] = len(draw)
        seat = None
        if rng.random() < 0.3:
            payload["dealer"] = rng.randrange(n)
        elif rng.random() < 0.2:
            seat = rng.randrange(n)  # entered from somebody's pad
        dealer = payload.get("dealer", self.state.dealer)
        self.send(Event("deal", seat, payload), "legal")
        self.all_named = mode == "scripted"
        assert self.state.dealer == dealer and self.state.turn == (dealer + 1) % n
        assert self.state.direction == 1

    def bad_deal(self) -> None:
        rng, n, size = self.rng, self.n, self.opts["hand_size"]
        cards = list(self.cfg.box.elements())
        rng.shuffle(cards)
        hands = [toks(cards[i * size : (i + 1) * size]) for i in range(n)]
        draw = toks(cards[n * size :])
        r = rng.random()
        if r < 0.4:
            hands[rng.randrange(n)].append(draw.pop())  # one card too many
        elif r < 0.7 and self.strict:
            hands[0][0] = "HAND" if hands[0][0] != "HAND" else "R1"  # a copy too many
        elif self.strict:
            draw.pop()  # a card short of the deck
        else:
            hands[-1] = hands[-1][:-1]
        self.send(Event("deal", None, {"hands": hands, "draw": draw}), "illegal")

    def turn_up(self) -> None:
        s, t = self.state, self.world.truth
        assert t is not None
        payload: dict[str, Any] = {}
        if s.draw[0] is None or self.rng.random() < 0.4:
            payload["card"] = tok(t.draw[0])
        self.send(Event("turn_up", None, payload, self.stamp(), Source.CAMERA), "legal")

    def shuffle(self, t_ns: int | None = None) -> None:
        s, w, rng = self.state, self.world, self.rng
        assert w.truth is not None
        pool = w.truth.discard[1:] if w.need == "shuffle:empty" else w.truth.draw
        order = list(pool)
        rng.shuffle(order)
        w.order = order
        payload: dict[str, Any] = {}
        mode = self.cfg.mode
        if (mode == "scripted" and rng.random() < 0.9) or (mode == "mixed" and rng.random() < 0.3):
            payload["draw"] = toks(order)
        elif rng.random() < 0.3:
            payload["draw"] = len(order)
        if not isinstance(payload.get("draw"), list):
            self.all_named = False
        self.send(Event("shuffle", None, payload, t_ns), "legal")
        assert s.need is not None

    def score_hands(self) -> None:
        s, w, rng = self.state, self.world, self.rng
        assert w.truth is not None
        seat = rng.choice([i for i, p in enumerate(s.round_points) if p is None])
        cards = list(w.truth.hands[seat])
        hand = s.hands[seat]
        if rng.random() < 0.1:  # a card left out
            self.send(Event("hand", seat, {"cards": toks(cards[1:])}), "illegal")
        if rng.random() < 0.1:  # points the known cards already exceed
            low = sum(c.points for c in hand.known) + hand.unknown - 1
            if low >= 0:
                self.send(Event("hand", seat, {"points": low}), "illegal")
        if rng.random() < 0.05:
            done = [i for i, p in enumerate(s.round_points) if p is not None]
            self.send(Event("hand", rng.choice(done), {"points": 0}), "illegal")
        if rng.random() < 0.6:
            rng.shuffle(cards)
            self.send(Event("hand", seat, {"cards": toks(cards)}), "legal")
        else:
            self.send(Event("hand", seat, {"points": points(cards)}), "legal")

    # -- turns -------------------------------------------------------------------------
    def turn_move(self, t_ns: int | None, world: World | None = None) -> None:
        """The turn player's move, judged against ``world`` (a race judged first, HTD-13)."""
        s, rng = self.state, self.rng
        w = world or self.world
        t = w.truth
        assert t is not None
        seat = s.turn
        seen = s.draw[len(s.draw) - len(t.draw) :]  # after penalty cards a late event judged
        if s.forced == "cut":
            payload: dict[str, Any] = {}
            if t.draw:
                at = rng.randrange(len(t.draw)) if rng.random() < 0.5 else None
                spot = len(t.draw) // 2 if at is None else at
                if at is not None:
                    payload["at"] = at
                if seen[spot] is None or rng.random() < 0.3:
                    payload["card"] = tok(t.draw[spot])
            self.send(Event("cut", seat, payload, t_ns, Source.CAMERA), "legal")
            return
        if s.forced == "flip":
            payload = {}
            if t.draw and (seen[-1] is None or rng.random() < 0.3):
                payload["card"] = tok(t.draw[-1])
            self.send(Event("flip", seat, payload, t_ns, Source.CAMERA), "legal")
            return
        if s.drawn:
            card = w.last_drawn
            assert card is not None
            if fits(card, s.top, s.require) and (s.require is not None or rng.random() < 0.8):
                self.play(seat, card, t_ns)
            else:
                self.send(Event("pass", seat, {}, t_ns), "legal")
            return
        hand = t.hands[seat]
        plays = [c for c in dict.fromkeys(hand) if fits(c, s.top, s.require)]
        keep = [c for c in plays if c.type is not Type.HAND]
        hands_ = [c for c in plays if c.type is Type.HAND]
        if hands_ and s.closed_race is not None and rng.random() < 0.5:
            plays = hands_  # a Hand card right after a race (HTD-15, HTD-17)
        elif keep and len(hand) <= 3 and rng.random() < 0.7:
            plays = keep  # a Hand card kept to go out on (HTD-20)
        may_draw = not plays or not self.opts["must_play_if_able"]
        if plays and (rng.random() < 0.93 or not may_draw):
            self.play(seat, rng.choice(plays), t_ns)
            return
        payload = {}
        if t.draw and (rng.random() < 0.4 or (self.cfg.mode == "scripted" and rng.random() < 0.5)):
            payload["card"] = tok(t.draw[0])
        self.send(Event("draw", seat, payload, t_ns), "legal")

    def play(self, seat: int, card: HtdCard, t_ns: int | None) -> None:
        payload: dict[str, Any] = {"card": tok(card)}
        rng = self.rng
        if card.type is not Type.HAND:
            self.send(Event("play", seat, payload, t_ns, Source.CAMERA), "legal")
            return
        if rng.random() < 0.1:
            payload["yelled"] = False
        if t_ns is None and rng.random() < 0.5:
            t_ns = self.tick()
        card_time = t_ns if t_ns is not None else self.tick()
        self.plan = self.make_plan(card_time)
        first = 0.5 if self.state.closed_race is not None else 0.2
        if t_ns is None and self.plan and rng.random() < 0.15:
            # the tablet's entry comes after the whole race (late slaps too, HTD-14, HTD-17)
            self.stats["plan: an untimed Hand card entered after every slap"] += 1
            while self.plan:
                seat_, t = self.plan.pop(0)
                self.send(Event("slap", seat_, t_ns=t, source=Source.PAD), "legal")
        elif rng.random() < first:  # the pads report before the camera sees the card
            for _ in range(rng.randint(1, 2)):
                if self.plan:
                    seat_, t = self.plan.pop(0)
                    self.send(Event("slap", seat_, t_ns=t, source=Source.PAD), "legal")
        held = [(p.seat, p.t_ns) for p in self.state.held]
        self.send(Event("play", seat, payload, t_ns, Source.CAMERA), "legal")
        if self.state.race is None:  # judged at once (everyone slapped already)
            self.leftover, self.plan = self.plan or [], None
        elif t_ns is None and held and self.plan is not None and rng.random() < 0.3:
            seat_, t = rng.choice(held)  # the camera repeats a slap the pads reported first
            self.plan.insert(0, (seat_, t + rng.randint(-50, 80) * MS))
            self.stats["plan: an echo of a slap seen before an untimed card"] += 1

    def make_plan(self, trigger: int | None) -> list[tuple[int, int]]:
        """When each seat slaps for a Hand card that hit the pile at ``trigger``."""
        rng, w = self.rng, self.world
        if trigger is None:
            trigger = self.clock
        window = w.window
        slaps: list[tuple[int, int]] = []
        inside: list[int] = []
        for seat in range(self.n):
            r = rng.random()
            if r < 0.05:
                self.stats["plan: forgets to slap"] += 1
                continue
            if r < 0.08:
                slaps.append((seat, trigger + window + rng.randint(1, 400) * MS))
                self.stats["plan: too late"] += 1
                continue
            if r < 0.13:
                slaps.append((seat, trigger - rng.randint(1, 400) * MS))
                self.stats["plan: too early"] += 1
                if rng.random() < 0.5:
                    continue
            slaps.append(
                (seat, trigger + rng.randint(1, window // MS - 1) * MS + rng.randrange(MS))
            )
            inside.append(len(slaps) - 1)
            if rng.random() < 0.05:
                slaps.append((seat, slaps[-1][1] + rng.randint(1, 5) * MS))  # a bounce
        if len(inside) >= 2 and rng.random() < 0.2:  # two slaps at nearly the same moment
            a, b = rng.sample(inside, 2)
            slaps[b] = (slaps[b][0], slaps[a][1] + rng.choice([0, 500, 1500, 10 * MS]))
            self.stats["plan: near tie"] += 1
        slaps.sort(key=lambda p: p[1])
        if rng.random() < 0.2:
            rng.shuffle(slaps)  # pads, camera and tablet deliver in their own order
        self.clock = max(self.clock, trigger + window + MS)
        return slaps

    def race_move(self) -> None:
        s, w, rng = self.state, self.world, self.rng
        race = s.race
        assert race is not None
        if not race.yell_penalised and rng.random() < 0.04:
            self.send(Event("forgot_yell", rng.choice([None, race.by])), "legal")
            return
        if self.plan:
            seat, t = self.plan.pop(0)
            self.send(Event("slap", seat, t_ns=t, source=Source.PAD), "legal")
            return
        end = None if race.trigger_ns is None else race.trigger_ns + w.window
        r = rng.random()
        if r < 0.15 or end is None:
            last = sorted(rng.sample(range(self.n), rng.choice([0, 1, 1, 1, 2])))
            payload: dict[str, Any] = {"last": last} if r < 0.1 or end is None else {}
            self.send(Event("race_close", None, payload, self.tick(), Source.MANUAL), "legal")
            return
        late = end + rng.randint(1, 500) * MS
        self.clock = max(self.clock, late)
        if r < 0.55:
            self.send(Event("race_close", None, {}, late, Source.PAD), "legal")
            return
        # The next player's move, timed after the window, judges the race first (HTD-13).
        if w.late_refusal(late):
            self.send(Event("draw", s.turn, {}, late), "illegal")
            self.stats["late event refused (HTD-13)"] += 1
            return
        if s.need is Need.SHUFFLE:
            self.shuffle(late)
            return
        assert s.need is None
        judged = copy.deepcopy(w)
        judged.close_late(late)
        self.turn_move(late, judged)

    def after_race(self) -> bool:
        """Slaps and yell reports after the race was judged, before the next turn action."""
        s, rng, w = self.state, self.rng, self.world
        closed = s.closed_race
        assert closed is not None
        if self.leftover and rng.random() < 0.6:
            seat, t = self.leftover.pop(0)
            self.send(Event("slap", seat, t_ns=t, source=Source.PAD), "legal")
            self.stats["slap after the race (HTD-17)"] += 1
            return True
        if not closed.yell_penalised and rng.random() < 0.05:
            self.send(Event("forgot_yell", rng.choice([None, closed.by])), "legal")
            self.stats["yell reported after the race"] += 1
            return True
        if closed.timed and rng.random() < 0.03:  # a pad slap from before the card, late
            t = closed.trigger_ns - w.lock - rng.randint(1, 300) * MS
            self.send(Event("slap", rng.randrange(self.n), t_ns=t, source=Source.PAD), "legal")
            return True
        return False

    # -- a child's moves ---------------------------------------------------------------
    def child(self) -> bool:
        """One move the referee must refuse (or, malformed, not read); False if none fits."""
        moves = [
            self.out_of_turn,
            self.wrong_card,
            self.not_in_hand,
            self.play_while_forced,
            self.draw_when_able,
            self.draw_twice,
            self.pass_without_draw,
            self.pass_must_play,
            self.other_than_drawn,
            self.unforced_cut,
            self.cut_too_far,
            self.unneeded_chore,
            self.wrong_shuffle,
            self.not_in_deck,
            self.copy_too_many,
            self.misread_draw,
            self.misread_reveal,
            self.deal_again,
            self.wait_for_race,
            self.false_yell,
            self.close_nothing,
            self.hand_in_play,
            self.malformed,
        ]
        return first_move(
            self.rng,
            moves,
            5,
            self.stats,
            lambda move, event: self.send(event, "error" if move == self.malformed else "illegal"),
        )

    def _t(self) -> int | None:
        """A child's event time: none, or now."""
        if self.state.race is not None:  # a late time would judge it first: another move
            return None
        return self.clock if self.rng.random() < 0.3 else None

    def _truth(self) -> Truth:
        assert self.world.truth is not None
        return self.world.truth

    def out_of_turn(self) -> Event | None:
        s = self.state
        seat = self.rng.choice([i for i in range(s.n) if i != s.turn])
        hand = self._truth().hands[seat]
        if not hand:
            return None
        return Event("play", seat, {"card": tok(self.rng.choice(hand))}, self._t())

    def wrong_card(self) -> Event | None:
        s = self.state
        wrong = [c for c in self._truth().hands[s.turn] if not fits(c, s.top, s.require)]
        if not wrong or (s.drawn and s.drawn[0] in wrong):
            return None
        return Event("play", s.turn, {"card": tok(self.rng.choice(wrong))}, self._t())

    def not_in_hand(self) -> Event | None:
        s = self.state
        if s.hands[s.turn].unknown:
            return None
        hand = self._truth().hands[s.turn]
        absent = [c for c in DECK if c not in hand and fits(c, s.top, s.require)]
        return Event("play", s.turn, {"card": tok(self.rng.choice(absent))}) if absent else None

    def play_while_forced(self) -> Event | None:
        s = self.state
        hand = self._truth().hands[s.turn]
        if s.forced is None or not hand:
            return None
        return Event("play", s.turn, {"card": tok(self.rng.choice(hand))}, self._t())

    def draw_when_able(self) -> Event | None:
        s = self.state
        hand = self._truth().hands[s.turn]
        if not self.opts["must_play_if_able"] or s.hands[s.turn].unknown or s.drawn:
            return None
        if not any(fits(c, s.top, s.require) for c in hand):
            return None
        return Event("draw", s.turn, {}, self._t())

    def draw_twice(self) -> Event | None:
        s = self.state
        return Event("draw", s.turn) if s.drawn else None

    def pass_without_draw(self) -> Event | None:
        s = self.state
        return None if s.drawn else Event("pass", s.turn, {}, self._t())

    def pass_must_play(self) -> Event | None:
        s = self.state
        card = s.drawn[0] if s.drawn else None
        if card is None or s.require is None or not fits(card, s.top, s.require):
            return None
        return Event("pass", s.turn)

    def other_than_drawn(self) -> Event | None:
        s = self.state
        card = s.drawn[0] if s.drawn else None
        others = [c for c in self._truth().hands[s.turn] if c is not card]
        if card is None or not others:
            return None
        return Event("play", s.turn, {"card": tok(self.rng.choice(others))})

    def unforced_cut(self) -> Event | None:
        s = self.state
        if s.forced == "cut":
            return Event("flip", s.turn)
        if s.forced == "flip":
            return Event("cut", s.turn)
        return Event(self.rng.choice(["cut", "flip"]), self.rng.randrange(s.n), {}, self._t())

    def cut_too_far(self) -> Event | None:
        s = self.state
        if s.forced != "cut" or not s.draw:
            return None
        return Event("cut", s.turn, {"at": len(s.draw) + self.rng.randrange(3)})

    def unneeded_chore(self) -> Event | None:
        s = self.state
        if s.need is not Need.TURN_UP:
            return Event("turn_up", None, {}, self._t())
        return Event("shuffle")

    def wrong_shuffle(self) -> Event | None:
        s = self.state
        if s.need is not Need.SHUFFLE:
            return None
        pool = s.discard[1:] if self.world.need == "shuffle:empty" else s.draw
        if any(c is None for c in pool) or not pool:
            return None
        order = [tok(c) for c in pool if c is not None]
        if self.rng.random() < 0.5:
            order.pop()
        else:
            order[0] = "HAND" if order[0] != "HAND" else "R1"
        return Event("shuffle", None, {"draw": order})

    def not_in_deck(self) -> Event | None:
        if not self.strict:
            return None
        s, rng = self.state, self.rng
        token = rng.choice(["R7", "G9", "HIT8", "B6"])
        if s.need is Need.TURN_UP:
            return Event("turn_up", None, {"card": token})
        return Event(rng.choice(["play", "draw"]), s.turn, {"card": token})

    def _full(self) -> list[HtdCard]:
        """Cards whose every copy the referee already places somewhere (HTD-1)."""
        s = self.state
        placed: Counter[HtdCard] = Counter(c for c in (*s.draw, *s.discard) if c is not None)
        for hand in s.hands:
            placed.update(hand.known)
        return [c for c, k in placed.items() if k >= DECK[c]]

    def copy_too_many(self) -> Event | None:
        s = self.state
        if not self.strict or not s.hands[s.turn].unknown:
            return None
        full = [c for c in self._full() if c not in s.hands[s.turn].known]
        return Event("play", s.turn, {"card": tok(self.rng.choice(full))}) if full else None

    def misread_draw(self) -> Event | None:
        s = self.state
        if not s.draw or s.drawn:
            return None
        if s.draw[0] is not None:
            others = [c for c in DECK if c is not s.draw[0]]
            return Event("draw", s.turn, {"card": tok(self.rng.choice(others))})
        full = self._full() if self.strict else []
        return Event("draw", s.turn, {"card": tok(self.rng.choice(full))}) if full else None

    def misread_reveal(self) -> Event | None:
        s = self.state
        if s.need is Need.TURN_UP:
            kind, spot, seat = "turn_up", 0, None
        elif s.forced == "flip" and s.draw:
            kind, spot, seat = "flip", -1, s.turn
        elif s.forced == "cut" and s.draw:
            kind, spot, seat = "cut", len(s.draw) // 2, s.turn
        else:
            return None
        known = s.draw[spot]
        if known is not None:
            others = [c for c in DECK if c is not known]
            payload: dict[str, Any] = {"card": tok(self.rng.choice(others))}
        else:
            full = self._full() if self.strict else []
            if not full:
                return None
            payload = {"card": tok(self.rng.choice(full))}
        if kind == "cut":
            payload["at"] = spot
        return Event(kind, seat, payload)

    def deal_again(self) -> Event | None:
        size = self.opts["hand_size"]
        return Event("deal", None, {"hands": [size] * self.n, "draw": 1})

    def wait_for_race(self) -> Event | None:
        s = self.state
        race = s.race
        hand = self._truth().hands[s.turn]
        if race is None or not hand:
            return None
        t = None
        if race.trigger_ns is not None and self.rng.random() < 0.5:
            t = race.trigger_ns + self.world.window  # not after the window: still open
        return Event("play", s.turn, {"card": tok(self.rng.choice(hand))}, t)

    def false_yell(self) -> Event | None:
        s = self.state
        race = s.race or s.closed_race
        if race is None:
            if s.reopen is not None:
                return None
            return Event("forgot_yell", self.rng.choice([None, s.turn]))
        if race.yell_penalised:
            return Event("forgot_yell", None)
        others = [i for i in range(s.n) if i != race.by]
        return Event("forgot_yell", self.rng.choice(others))

    def close_nothing(self) -> Event | None:
        s = self.state
        if s.race or s.held or s.closed_race or s.reopen:
            return None
        return Event("race_close", None, {}, self._t())

    def hand_in_play(self) -> Event | None:
        return Event("hand", self.state.turn, {"points": 5})

    def malformed(self) -> Event | None:
        s = self.state
        return self.rng.choice(
            [
                Event("play", s.turn, {"card": "R0"}),
                Event("play", s.turn, {"card": "X3"}),
                Event("play", s.turn, {}),
                Event("play", s.turn, {"card": "R1", "yelled": "no"}),
                Event("draw", s.n + 1),
                Event("draw", s.turn, {"card": 5}),
                Event("slap", s.turn),
                Event("smack", s.turn),
                Event("race_close", None, {"last": [s.n]}),
                Event("hand", s.turn, {}),
                Event("cut", s.turn, {"at": -1}),
                Event("deal", None, {"hands": [7] * (s.n + 1)}),
                Event("shuffle", None, {"draw": "R1"}),
                Event("turn_up", None, {"card": "X1"}),
                Event("pass", -1 + s.n * 2),
            ]
        )

    # -- after the game ----------------------------------------------------------------
    def check_replays(self) -> None:
        """The log replays to the same state and verdicts; undo gives back a state exactly."""
        logged = LoggedGame.of(GAME, self)
        n, k = len(logged.numbered), self.rng.randrange(1, len(self.log) + 1)
        logged.check_undo_twice(k)
        logged.check_overrule(k, self.rng.choice(self.log))
        got = logged.rejudged(Event("undo", None, {"target": self.rng.randrange(1, n + 1)}))
        if got is None:
            self.stats["undo: input error"] += 1
        else:
            check_engine_cards(got, self.cfg, rejudged=True)
            self.stats["undo: replayed"] += 1


def check_engine_cards(s: HtdState, cfg: Config, rejudged: bool = False) -> None:
    """What the referee alone must keep: every card in one place, no copy too many.
    ``rejudged``: after an undo, where another deal may have been taken (only a strict deck
    must then still be the whole deck)."""
    if not s.hands:
        return
    total = len(s.draw) + len(s.discard) + sum(len(h) for h in s.hands)
    if not rejudged or s.option("strict_deck"):
        box = sum((DECK if rejudged else cfg.box).values())
        assert total == box, f"{cfg}: {total} cards on the table"
    if s.option("strict_deck"):
        placed: Counter[HtdCard] = Counter(c for c in (*s.draw, *s.discard) if c is not None)
        for hand in s.hands:
            placed.update(hand.known)
        over = {tok(c): k for c, k in placed.items() if k > DECK[c]}
        assert not over, f"{cfg}: the referee places too many copies: {over}"
    assert all(k >= 0 for k in s.owed)


def play(seed: int, games: int) -> Counter[str]:
    return play_games(seed, games, random_config, Family, Family.check_replays)


# -- what the playthrough found -----------------------------------------------------------
def _ok(state: HtdState, event: Event) -> HtdState:
    new, verdicts = GAME.apply(state, event)
    bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
    assert not bad, f"{event.to_dict()} refused: {bad}"
    return new


def test_a_malformed_event_is_an_input_error_even_while_a_race_is_open() -> None:
    """A turn event during a slap race was refused ("Wait: the slap race is still open",
    HTD-13) before its payload was read, and so were a shuffle nothing needed and a card
    turned up too soon: a draw for seat 7 of 2 was stored as a refusal. An undo of the Hand
    card then re-judged it as the input error it is, and the log no longer replayed (the
    dashboard refuses such an undo). Found by the playthrough (a malformed event)."""
    players, options = ["Ann", "Bob"], {"strict_deck": False, "hand_size": 2}
    hands = [["HAND", "R1"], ["R2", "R3"]]
    deal = Event("deal", None, {"hands": hands, "draw": ["G1", "G2", "G3"], "dealer": 1})
    state = _ok(_ok(GAME.new_state(players, options), deal), Event("turn_up"))
    too_soon = [Event("turn_up", None, {"card": "X1"}), Event("shuffle", None, {"draw": "R1"})]
    for event in too_soon:
        with pytest.raises(EventError):
            GAME.apply(state, event)
    racing = _ok(state, Event("play", 0, {"card": "HAND"}, 10**9))
    assert racing.race is not None
    for event in [
        *too_soon,
        Event("draw", 7),
        Event("pass", 5),
        Event("play", 1, {"card": "R2", "yelled": "no"}),
        Event("cut", 1, {"at": -1}),
        Event("flip", 1, {"card": 5}),
        Event("deal", None, {"hands": [2, 2, 2]}),
    ]:
        with pytest.raises(EventError):
            GAME.apply(racing, event)
    # well-formed, the same events are still refused while the race is open
    new, verdicts = GAME.apply(racing, Event("draw", 1))
    assert new is racing and verdicts[0].reason.startswith("Wait: the slap race is still open")


def test_a_shuffle_nobody_watched_may_be_given_as_a_count_or_with_unseen_cards() -> None:
    """EVENTS.md: a pile is card tokens, ``"?"`` for a card nobody saw, or a count of unseen
    cards; ``shuffle`` takes the new order "(optional)". A count, or an order with ``"?"``,
    was refused whenever the referee knew a card of the pile ("The shuffled pile is missing
    Hit the Deck with a Hand, green 1, green 2."), though leaving the order out was fine.
    Found by the playthrough (a tablet giving the reshuffled pile as a count)."""
    options = {"strict_deck": False, "hand_size": 1}
    state = GAME.new_state(["Ann", "Bob"], options)
    deal = {"hands": [["R1"], ["R2"]], "draw": ["HAND", "G1", "G2"], "dealer": 0}
    state = _ok(_ok(state, Event("deal", None, deal)), Event("turn_up"))
    assert state.need is Need.SHUFFLE and state.draw == tuple(map(parse_card, deal["draw"]))
    assert _ok(state, Event("shuffle", None, {"draw": 3})).draw == (None, None, None)
    seen = _ok(state, Event("shuffle", None, {"draw": ["?", "G1", "?"]}))
    assert seen.draw == (None, parse_card("G1"), None)
    for wrong in (["G1", "G1", "?"], ["G1", "G2", "R5"], 2):
        new, verdicts = GAME.apply(state, Event("shuffle", None, {"draw": wrong}))
        assert new is state and [v.outcome for v in verdicts] == [Outcome.ILLEGAL], wrong


@pytest.mark.parametrize(
    ("last", "forced", "require"),
    [("HIT4", None, Requirement(number=4)), ("GCUT", "cut", None), ("GFLIP", "flip", None)],
)
def test_ruling_htd20_a_player_who_owes_a_fake_out_does_not_go_out_on_a_word_or_hit_card(
    last: str, forced: str | None, require: Requirement | None
) -> None:
    """HTD-20: "A last Cut, Flip or Hit the Deck With A Number/Color ends the round at once
    (its action on the next player is void)". Ann slapped at nothing (held, HTD-15), then
    played her last card: the fake-out made her draw 2 and the round went on, but her card's
    action had already been voided, so Bob was neither made to cut or flip nor held to the
    chain. Ann did not run out of cards: her card acts as any other. Found by the playthrough
    (a fake-out slap before a player's last card)."""
    state = GAME.new_state(["Ann", "Bob"], {"strict_deck": False, "hand_size": 1})
    deal = {"hands": [[last], ["R1"]], "draw": ["G3", "B2", "Y5", "R4", "G4"], "dealer": 1}
    state = _ok(_ok(state, Event("deal", None, deal)), Event("turn_up"))
    state = _ok(state, Event("slap", 0, t_ns=5 * 10**9))
    state, verdicts = GAME.apply(state, Event("play", 0, {"card": last}, 6 * 10**9))
    assert [v.data.get("penalty") for v in verdicts if v.data.get("penalty")] == ["fake_out"]
    assert state.phase is Phase.PLAY and [len(h) for h in state.hands] == [2, 1]
    assert (state.turn, state.forced, state.require) == (1, forced, require)
    # Without the slap she goes out on it, and its action is void.
    state = GAME.new_state(["Ann", "Bob"], {"strict_deck": False, "hand_size": 1})
    state = _ok(_ok(state, Event("deal", None, deal)), Event("turn_up"))
    state = _ok(state, Event("play", 0, {"card": last}, 6 * 10**9))
    assert state.phase is Phase.ROUND_OVER and state.rounds == ((0, 1),)


def test_ruling_htd17_slaps_for_a_hand_card_seen_before_it_after_a_judged_race_join_its_race() -> (
    None
):
    """HTD-15: "pads report slaps faster than the camera reports the card … held slaps timed
    after the card join its race … the times decide, not the arrival order"; HTD-17: "until
    the next turn action, further slaps … belong to the judged race and are ignored". Bob
    plays a Hand card right after Ann's race was judged; Cat's and Ann's pads report their
    slaps before the camera reports Bob's card. They were taken as Ann's race's and dropped:
    both drew 4 for "not slapping within 3.00 s" and Bob, last by the times, drew nothing.
    Found by the playthrough (pads first, two Hand cards in a row)."""
    s, ms = 10**9, 10**6
    state = GAME.new_state(["Ann", "Bob", "Cat"], {"strict_deck": False, "hand_size": 2})
    hands = [["HAND", "R1"], ["HAND", "R2"], ["R3", "R4"]]
    draw = ["G1", "G2", "G3", "G4", "G5", "B1", "B2", "B3", "B4", "B5", "Y1", "Y2", "Y3"]
    state = _ok(state, Event("deal", None, {"hands": hands, "draw": draw, "dealer": 2}))
    state = _ok(state, Event("turn_up"))
    state = _ok(state, Event("play", 0, {"card": "HAND"}, 10 * s))
    for seat, ms_after in ((1, 200), (2, 300), (0, 400)):  # Ann slaps last and draws 4
        state = _ok(state, Event("slap", seat, t_ns=10 * s + ms_after * ms))
    assert state.race is None and state.closed_race is not None
    # Bob's Hand card at 20 s: the pads are quicker than the camera; Bob also bounces late
    for seat, t in ((2, 20 * s + 150 * ms), (0, 20 * s + 250 * ms), (1, 10 * s + 900 * ms)):
        state = _ok(state, Event("slap", seat, t_ns=t))
    state = _ok(state, Event("play", 1, {"card": "HAND"}, 20 * s))
    assert state.race is not None
    assert [(p.seat, p.t_ns) for p in state.race.presses] == [
        (2, 20 * s + 150 * ms),
        (0, 20 * s + 250 * ms),
    ]  # Bob's bounce at 10.9 s was Ann's race's: still ignored
    state, verdicts = GAME.apply(state, Event("slap", 1, t_ns=20 * s + 350 * ms))
    losers = [v.seat for v in verdicts if v.data.get("penalty") == "last_slap"]
    assert losers == [1] and [len(h) for h in state.hands] == [5, 5, 2]
    # A turn action that is not a Hand card lets them go, as before: no fake-out either.
    state = _ok(state, Event("slap", 0, t_ns=30 * s))
    assert [(p.seat, p.t_ns) for p in state.after_race] == [(0, 30 * s)]
    state, verdicts = GAME.apply(state, Event("play", 2, {"card": "R3"}))
    assert state.after_race == () and state.held == () and not any(state.owed)
    assert not [v for v in verdicts if v.data.get("penalty")]


@pytest.mark.parametrize("seed", SEEDS)
def test_whole_games_keep_the_rules_invariants(seed: int) -> None:
    stats = play(9100 + seed, GAMES_PER_TEST)
    assert stats["games"] == stats["games over"] == GAMES_PER_TEST, stats
    assert stats["ended rounds"] >= GAMES_PER_TEST and stats["events"] > 100 * GAMES_PER_TEST
    # every kind of event was sent and taken, every penalty given, and children refused
    for kind in (*TURN_KINDS, "slap", "race_close", "forgot_yell", "hand"):
        assert stats[kind] > 0, (kind, stats)
    for why in ("last_slap", "no_yell", "fake_out"):
        assert stats[f"penalty {why}"] > 0, (why, stats)
    assert stats["races judged"] > GAMES_PER_TEST and stats["race closed by a later event"]
    assert stats["refused"] > 5 * GAMES_PER_TEST and stats["input errors"] > 0, stats


if __name__ == "__main__":
    playthrough_main(play, 200_000)
