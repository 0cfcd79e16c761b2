"""Randomized conformance: ≥ 1,000 random Wash Dash games from setup to the end through
``apply``, checking invariants after every event. The random player below is seeded, so
every failure replays (``play_random_game(seed)``)."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

from referee.events import Event, Source
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.checker import example_dryer
from referee.washdash.dryer import Dryer, HungPiece
from referee.washdash.game import GAME
from referee.washdash.pieces import Piece, PinColor
from referee.washdash.state import (
    WashDashState,
    allocation,
    game_over,
    needs_task,
    round_over,
)

DECK = GAME.deck


@cache
def solved(card: str, events: frozenset) -> Dryer:
    """A dryer that completes ``card`` under ``events`` (cached: the deck is fixed)."""
    return example_dryer(DECK[card].task, events)


def random_dryer(rng: random.Random) -> Dryer:
    """Any physically possible dryer: each piece and pin at most once."""
    pins = list(PinColor)
    rng.shuffle(pins)
    bars: list[list[HungPiece]] = [[], [], []]
    for piece in Piece:
        if rng.random() < 0.3 or not pins:
            continue
        holders = tuple(pins.pop() for _ in range(min(len(pins), rng.choice((1, 1, 2)))))
        bars[rng.randrange(3)].append(HungPiece(piece, holders))
    return Dryer(tuple(tuple(b) for b in bars))


def check_invariants(state: WashDashState) -> None:
    """Every card in exactly one place; claims one per seat and per card."""
    places: list[str] = list(state.pile.known) + list(state.boxed.known) + list(state.discarded)
    for cards in state.won:
        places += cards
    if state.current is not None:
        places += state.current.revealed
    unknown = state.pile.unknown + state.boxed.unknown
    if state.full_info or not state.started:
        counts = Counter(places)
        assert all(v == 1 for v in counts.values()), counts.most_common(3)
        if state.started:
            assert set(counts) == set(DECK.order) and unknown == 0
    rnd = state.current
    if rnd is not None:
        seats = [c.seat for c in rnd.claims]
        cards = [c.card for c in rnd.claims]
        assert len(set(seats)) == len(seats), "two tasks for one seat in a round"
        assert len(set(cards)) == len(cards), "one task taken twice"
        assert set(cards) <= set(rnd.tasks)
        alloc = allocation(state, DECK)
        # the derived view also keeps every card in one place
        held = [c for s in range(state.n) for c in state.won[s] if c not in alloc.forfeited[s]]
        held += [c for g in alloc.gained for c in g]
        table = [c for c in rnd.revealed if c not in held and c not in alloc.discarded]
        derived = held + list(alloc.discarded) + table + list(state.discarded)
        derived += list(state.pile.known) + list(state.boxed.known)
        if state.full_info:
            assert sorted(derived) == sorted(DECK.order)


def play_random_game(seed: int, max_steps: int = 2000) -> tuple[WashDashState, list[Event], dict]:
    """Play one game from setup to the end; returns the final state, the events applied and
    counters of what happened (for the test to check that the randomness covers the rules)."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    players = [f"P{i}" for i in range(n)]
    options = {
        "wrong_done": rng.choice(("penalty", "retry")),
        "extra_items": rng.choice(("ignore", "forbid")),
        # WD-12's both readings (from the seed, so the random play stays as it was)
        "impossible_reading": ("ask", "judge")[seed % 2],
    }
    state = GAME.new_state(players, options)
    order = list(DECK.order)
    rng.shuffle(order)
    log: list[Event] = []
    seen: Counter[str] = Counter()
    t = 1_000_000_000

    def apply(event: Event) -> list:
        nonlocal state
        before = state
        state, verdicts = GAME.apply(state, event)
        log.append(event)
        for v in verdicts:
            seen[v.outcome.value] += 1
            if v.outcome is Outcome.ILLEGAL:
                assert state is before, "an illegal event changed the state"
        check_invariants(state)
        return verdicts

    apply(Event("setup", payload={"order": order, "first": rng.randrange(n)}, source=Source.SCRIPT))
    for _ in range(max_steps):
        rnd = state.current
        pending = [c for c in rnd.claims if c.status == "unchecked"] if rnd else []
        if game_over(state, DECK) and not allocation(state, DECK).owed and not pending:
            break
        t += rng.randrange(1, 10**9)
        if game_over(state, DECK) and pending:  # WD-12: the last round's dryers are read
            claim = rng.choice(pending)
            dryer = solved(claim.card, rnd.events) if rng.random() < 0.7 else random_dryer(rng)
            apply(Event("dryer", seat=claim.seat, payload={"dryer": dryer.to_dict()}))
            continue
        if rnd is None or round_over(state, DECK):
            owed = allocation(state, DECK).owed
            if owed:
                seen["forfeit"] += 1
                seat = owed[0]
                earlier = [c for c in state.won[seat] if DECK[c].is_task]
                apply(Event("forfeit", seat=seat, payload={"card": rng.choice(earlier)}))
                continue
            if rnd is not None and rnd.claims and rng.random() < 0.15:
                claim = rng.choice(rnd.claims)
                apply(Event("mistake", seat=claim.seat, payload={"reason": "two hands"}))
                continue
            payload = (
                {} if rng.random() < 0.5 else {"cards": list(state.pile.known[: _count(state)])}
            )
            apply(Event("reveal", t_ns=t, payload=payload))
            continue
        if needs_task(rnd):
            seen["draw_on"] += 1
            apply(Event("reveal", payload={"cards": [state.pile.known[0]]}))
            continue
        open_tasks = [c for c in rnd.tasks if rnd.claim_for(c) is None]
        free = [s for s in range(n) if rnd.claim_of(s) is None]
        pending = [c for c in rnd.claims if c.status == "unchecked"]
        if pending and rng.random() < 0.5:
            claim = rng.choice(pending)
            dryer = solved(claim.card, rnd.events)
            if rng.random() < 0.3:
                dryer = random_dryer(rng)
            apply(Event("dryer", seat=claim.seat, payload={"dryer": dryer.to_dict()}))
            continue
        if rng.random() < 0.05 and rnd.claims:
            # an illegal claim: a task already taken, or a second task for one seat
            claim = rng.choice(rnd.claims)
            seat = rng.choice(free or [claim.seat])
            vs = apply(Event("done", seat=seat, t_ns=t, payload={"card": claim.card}))
            assert vs[0].outcome is Outcome.ILLEGAL
            continue
        seat, card = rng.choice(free), rng.choice(open_tasks)
        roll = rng.random()
        payload: dict = {"card": card}
        if roll < 0.6:
            dryer = solved(card, rnd.events)
            payload["dryer"] = dryer.to_dict()
        elif roll < 0.8:
            payload["dryer"] = random_dryer(rng).to_dict()
        apply(Event("done", seat=seat, t_ns=t, payload=payload, source=Source.PAD))
    else:
        raise AssertionError(f"game {seed} did not end in {max_steps} steps")
    return state, log, dict(seen)


def _count(state: WashDashState) -> int:
    from referee.washdash.state import CARDS_PER_ROUND

    return min(CARDS_PER_ROUND[state.n], len(state.pile))


GAMES = 1000


def test_random_games_keep_invariants_and_always_end():
    seen: Counter[str] = Counter()
    sizes: Counter[int] = Counter()
    for seed in range(GAMES):
        state, _log, counts = play_random_game(seed)
        seen.update(counts)
        sizes[state.n] += 1
        board = GAME.scoreboard(state)
        assert board.finished, seed
        assert len(state.pile) == 0
        # scores equal the sum of the round scores
        sums = tuple(sum(r[s] for r in board.rounds) for s in range(state.n))
        assert sums == board.totals, seed
        assert board.totals == tuple(
            sum(DECK[c].points for c in cards) for cards in GAME.view(state)["cards"]
        )
        assert board.winners, seed
        best = max(board.totals)
        assert all(board.totals[w] == best for w in board.winners)
        assert allocation(state, DECK).owed == () and board.extra["owed_forfeit"] == []
    # the random play really exercised the rules
    assert set(sizes) == {2, 3, 4, 5, 6}
    for what in ("illegal", "score", "round_end", "game_end", "prompt", "forfeit", "draw_on"):
        assert seen[what] > 0, what
    assert seen["game_end"] >= GAMES


def test_a_random_game_replays_to_the_same_state():
    state, log, _ = play_random_game(12345)
    players = list(state.players)
    options = GAME.view(state)["options"]
    again = replay(GAME, players, options, log).state
    assert again == state
