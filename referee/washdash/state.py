"""Wash Dash state, and what follows from it (who gets which card this round).

The round in play is kept as a record — revealed cards, claims, forfeits — and its
outcome (``allocation``) is *derived* from that record, never stored. So a mistake
declared at the end of the round, or a late dryer reading, simply changes the record and
every consequence (First bonus, scores, round end) follows. The round is committed
into ``won``/``discarded``/``rounds`` when the next round is revealed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.frozen import evolve
from referee.hands import Hidden
from referee.washdash.deck import Deck
from referee.washdash.dryer import Dryer
from referee.washdash.pieces import EventCard

# Claim status
OK = "ok"  # the dryer was checked and completes the task
WRONG = "wrong"  # a mistake: wrong dryer, or declared by the table
# no dryer reading (that can be right) yet: stands unless someone objects, but keeps the
# last round's result from being final (WD-12)
UNCHECKED = "unchecked"

# Cards revealed per round, by number of players (rules' table).
CARDS_PER_ROUND = {2: 2, 3: 2, 4: 3, 5: 4, 6: 5}
BOXED_FOR = {2: 20, 3: 20, 4: 20, 5: 0, 6: 0}  # cards put back in the box at setup


@dataclass(frozen=True)
class Claim:
    """A seat took a task card ("done")."""

    seat: int
    card: str
    # 0, 1, … in the order the referee received the claims (``held_press_order: pressed``:
    # a held press's claim has the number the press took when it was received, WD-8)
    arrival: int
    t_ns: int | None
    status: str
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "card": self.card,
            "t_ns": self.t_ns,
            "status": self.status,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Round:
    number: int  # 1, 2, …
    active: int
    revealed: tuple[str, ...]
    start_ns: int | None = None
    claims: tuple[Claim, ...] = ()
    forfeits: tuple[tuple[int, str], ...] = ()  # (seat, earlier card given up)
    # claims (and numbered presses) ever received; a withdrawn one keeps its number
    arrivals: int = 0
    tasks: tuple[str, ...] = ()  # the revealed task cards (kept with ``revealed``)
    events: frozenset[EventCard] = frozenset()  # the revealed events, in force this round
    presses: tuple[tuple[int, int | None], ...] = ()  # (seat, t_ns) "done" presses awaiting a card
    # (seat, reading) for a held press whose card-less "done" carried a dryer: it judges
    # the card named later unless that "done" carries its own (WD-12, WD-17)
    press_dryers: tuple[tuple[int, Dryer], ...] = ()
    # (seat, arrival) for a held press numbered when it was received (``held_press_order:
    # pressed``, WD-8): the claim made when its card is named takes that place
    press_arrivals: tuple[tuple[int, int], ...] = ()

    def with_revealed(self, deck: Deck, cards: tuple[str, ...]) -> Round:
        """This round with more cards revealed (tasks and events kept in step)."""
        revealed = self.revealed + cards
        return evolve(
            self,
            revealed=revealed,
            tasks=tuple(c for c in revealed if deck[c].is_task),
            events=frozenset(deck[c].event for c in revealed if deck[c].event is not None),  # type: ignore[misc]
        )

    def claim_of(self, seat: int) -> Claim | None:
        return next((c for c in self.claims if c.seat == seat), None)

    def claim_for(self, card: str) -> Claim | None:
        return next((c for c in self.claims if c.card == card), None)

    def press_of(self, seat: int) -> tuple[int, int | None] | None:
        return next((p for p in self.presses if p[0] == seat), None)

    def press_dryer(self, seat: int) -> Dryer | None:
        return next((d for s, d in self.press_dryers if s == seat), None)

    def press_arrival(self, seat: int) -> int | None:
        return next((a for s, a in self.press_arrivals if s == seat), None)

    def with_press(
        self, seat: int, t_ns: int | None, dryer: Dryer | None, numbered: bool = False
    ) -> Round:
        """This round with the seat's card-less "done" held (WD-17), and its reading kept.
        ``numbered``: the press takes the next arrival number now, as a claim would (WD-8);
        like a withdrawn claim's, the number stays used if the press goes unnamed."""
        kept = self.press_dryers if dryer is None else (*self.press_dryers, (seat, dryer))
        held = evolve(self, presses=(*self.presses, (seat, t_ns)), press_dryers=kept)
        if not numbered:
            return held
        return evolve(
            held,
            press_arrivals=(*self.press_arrivals, (seat, self.arrivals)),
            arrivals=self.arrivals + 1,
        )

    def without_press(self, seat: int) -> Round:
        """This round without the seat's held press (named, or forgotten, WD-19)."""
        return evolve(
            self,
            presses=tuple(p for p in self.presses if p[0] != seat),
            press_dryers=tuple(p for p in self.press_dryers if p[0] != seat),
            press_arrivals=tuple(p for p in self.press_arrivals if p[0] != seat),
        )

    def without_presses(self) -> Round:
        """This round with no press held (the round is over: none can name a card)."""
        return evolve(self, presses=(), press_dryers=(), press_arrivals=())

    def open_tasks(self) -> tuple[str, ...]:
        taken = {c.card for c in self.claims}
        return tuple(c for c in self.tasks if c not in taken)


@dataclass(frozen=True)
class Allocation:
    """Where the round's cards go, and what each seat scores for it."""

    gained: tuple[tuple[str, ...], ...]  # cards each seat receives this round
    discarded: tuple[str, ...]  # events, mistaken tasks, leftovers, forfeits
    forfeited: tuple[tuple[str, ...], ...]  # earlier cards each seat gives up
    owed: tuple[int, ...]  # seats that still must choose an earlier card to give up
    scores: tuple[int, ...]
    first_bonus_to: int | None  # who takes this round's First bonus card(s); None: none revealed


@dataclass(frozen=True)
class WashDashState:
    players: tuple[str, ...]
    wrong_done: str
    extra_items: str
    started: bool = False
    full_info: bool = False
    first: int = 0  # the oldest player: first active player
    pile: Hidden[str] = field(default_factory=Hidden)  # face down, top first when known
    boxed: Hidden[str] = field(default_factory=Hidden)  # put back in the box at setup
    won: tuple[tuple[str, ...], ...] = ()  # committed cards per seat
    discarded: tuple[str, ...] = ()
    rounds: tuple[tuple[int, ...], ...] = ()  # committed round scores
    current: Round | None = None
    dryers: tuple[Dryer | None, ...] = ()  # latest reading per seat, this round
    # WD-12: a dryer reading that cannot be real is asked for again ("ask", games set up
    # from day 34) or judges its claim ("judge": a stored game set up before keeps it)
    impossible_reading: str = "judge"
    # WD-8: a held press takes its place in the arrival order when it is received
    # ("pressed", games set up from day 36) or when its card is named ("named": a stored
    # game set up before keeps it)
    held_press_order: str = "named"
    # The deck the game is played with, recorded when it was set up (an edit of the deck file
    # reaches the games set up after it); None: the rules' own (a state made without
    # ``new_state``). Never changed, so left out of the hash (its cards are a dict) and repr.
    deck: Deck | None = field(default=None, hash=False, repr=False)

    @property
    def n(self) -> int:
        return len(self.players)


def needs_task(rnd: Round) -> bool:
    """All revealed cards are events: the active player draws on (rules)."""
    return not rnd.tasks


def round_over(state: WashDashState, deck: Deck) -> bool:
    rnd = state.current
    if rnd is None:
        return False
    if needs_task(rnd):
        return len(state.pile) == 0  # WD-9: nothing left to draw
    if state.n == 2:
        return bool(rnd.claims)  # only the first completion scores
    return len(rnd.claims) == len(rnd.tasks)  # claims are for distinct revealed tasks


def pressed_first(state: WashDashState, seat: int | None = None) -> int | None:
    """WD-18: in a 2-player game the round ends at the first completion, and a pad press
    still waiting for its card (WD-17) *is* that completion, received first: the seat
    (other than ``seat``) whose press holds the round for it, or None."""
    rnd = state.current
    if state.n != 2 or rnd is None or rnd.claims:
        return None
    return next((s for s, _ in rnd.presses if s != seat), None)


def next_revealer(state: WashDashState, deck: Deck) -> int:
    """The seat whose move the table waits for: the active player while a round runs (or
    draws on), the player to their left once it is over (WD-13), the oldest before any."""
    rnd = state.current
    if rnd is None:
        return state.first
    return (rnd.active + 1) % state.n if round_over(state, deck) else rnd.active


def game_over(state: WashDashState, deck: Deck) -> bool:
    return round_over(state, deck) and len(state.pile) == 0


def unchecked(state: WashDashState) -> tuple[Claim, ...]:
    """This round's claims still waiting for a dryer reading that can be right (WD-12)."""
    rnd = state.current
    return () if rnd is None else tuple(c for c in rnd.claims if c.status == UNCHECKED)


def result_final(state: WashDashState, alloc: Allocation) -> bool:
    """Whether the last round's result can no longer change: no mistake's earlier card is
    owed (WD-11) and no claim waits for its dryer reading, which may make it a mistake or,
    with ``retry``, put the card back on the table (WD-12)."""
    return not alloc.owed and not unchecked(state)


def completion_order(rnd: Round) -> list[Claim]:
    """Fastest first (WD-8): by ``t_ns`` when every claim has one, else as received."""
    claims = list(rnd.claims)
    if claims and all(c.t_ns is not None for c in claims):
        return sorted(claims, key=lambda c: (c.t_ns, c.arrival))
    return sorted(claims, key=lambda c: c.arrival)


def earlier_tasks(state: WashDashState, deck: Deck, seat: int) -> tuple[str, ...]:
    """Task cards the seat completed in earlier rounds (may be given up, WD-11)."""
    return tuple(c for c in state.won[seat] if deck[c].is_task)


def allocation(state: WashDashState, deck: Deck) -> Allocation:
    """The round's outcome, computed afresh from the record (a handful of claims and at
    most six revealed cards, so it is cheap). Callers that need it several times compute
    it once and pass it on (``holdings``, ``totals``, ``winners`` take ``alloc``)."""
    n = state.n
    rnd = state.current
    over = rnd is not None and round_over(state, deck)
    if rnd is None or not (over or rnd.claims or rnd.forfeits):
        empty = ((),) * n  # nothing claimed yet: nothing moves
        return Allocation(empty, (), empty, (), (0,) * n, None)
    gained: list[list[str]] = [[] for _ in range(n)]
    forfeited: list[list[str]] = [[] for _ in range(n)]
    discarded: list[str] = []
    owed: list[int] = []
    for claim in sorted(rnd.claims, key=lambda c: c.arrival):
        if claim.status == WRONG:
            discarded.append(claim.card)
        else:
            gained[claim.seat].append(claim.card)
    for seat, card in rnd.forfeits:
        forfeited[seat].append(card)
        discarded.append(card)
    for claim in rnd.claims:
        seat = claim.seat
        if claim.status == WRONG and not forfeited[seat] and earlier_tasks(state, deck, seat):
            owed.append(seat)
    bonus_to = None
    if over:
        if any(deck[c].event is EventCard.FIRST_BONUS for c in rnd.revealed):
            # WD-8: only a revealed First bonus card goes to the fastest correct finisher
            correct = [c for c in completion_order(rnd) if c.status != WRONG]
            bonus_to = correct[0].seat if correct else None
        for card in rnd.revealed:
            info = deck[card]
            if info.event is EventCard.FIRST_BONUS and bonus_to is not None:
                gained[bonus_to].append(card)
            elif not info.is_task or rnd.claim_for(card) is None:
                discarded.append(card)  # events, and tasks nobody took (WD-10)
    cards = deck.cards
    scores = tuple(
        sum(cards[c].points for c in gained[s]) - sum(cards[c].points for c in forfeited[s])
        if gained[s] or forfeited[s]
        else 0
        for s in range(n)
    )
    return Allocation(
        tuple(tuple(g) for g in gained),
        tuple(discarded),
        tuple(tuple(f) for f in forfeited),
        tuple(sorted(owed)),
        scores,
        bonus_to,
    )


def holdings(
    state: WashDashState, deck: Deck, alloc: Allocation | None = None
) -> tuple[tuple[str, ...], ...]:
    """Each seat's cards now: committed cards, less forfeits, plus this round's."""
    alloc = alloc or allocation(state, deck)
    return tuple(
        tuple(c for c in state.won[s] if c not in alloc.forfeited[s]) + alloc.gained[s]
        for s in range(state.n)
    )


def totals(state: WashDashState, deck: Deck, alloc: Allocation | None = None) -> tuple[int, ...]:
    return tuple(sum(deck[c].points for c in cards) for cards in holdings(state, deck, alloc))


def winners(state: WashDashState, deck: Deck, alloc: Allocation | None = None) -> tuple[int, ...]:
    """Most points; then fewest cards (WD-14: every card held counts); then shared."""
    alloc = alloc or allocation(state, deck)
    held = holdings(state, deck, alloc)
    pts = totals(state, deck, alloc)
    best = max(pts)
    tied = [s for s in range(state.n) if pts[s] == best]
    fewest = min(len(held[s]) for s in tied)
    return tuple(s for s in tied if len(held[s]) == fewest)


def commit(state: WashDashState, deck: Deck) -> WashDashState:
    """Close the round in play: its cards go where the allocation says."""
    if state.current is None:
        return state
    alloc = allocation(state, deck)
    won = tuple(
        tuple(c for c in state.won[s] if c not in alloc.forfeited[s]) + alloc.gained[s]
        for s in range(state.n)
    )
    return WashDashState(
        players=state.players,
        wrong_done=state.wrong_done,
        extra_items=state.extra_items,
        started=state.started,
        full_info=state.full_info,
        first=state.first,
        pile=state.pile,
        boxed=state.boxed,
        won=won,
        discarded=state.discarded + alloc.discarded,
        rounds=(*state.rounds, alloc.scores),
        current=None,
        dryers=(None,) * state.n,
        impossible_reading=state.impossible_reading,
        held_press_order=state.held_press_order,
        deck=state.deck,
    )
