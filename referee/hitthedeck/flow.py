"""Bookkeeping after every event: penalty draws, the reshuffle, the end of a round."""

from __future__ import annotations

from referee.frozen import evolve
from referee.hitthedeck.rules import hand_points
from referee.hitthedeck.slaps import resolve_held
from referee.hitthedeck.state import HtdState, Need, Phase, ShuffleWhy
from referee.verdicts import Outcome, Verdict, info, prompt
from referee.words import and_list
from referee.words import points as points_text

Result = tuple[HtdState, list[Verdict]]


def draw_top(state: HtdState, seat: int) -> HtdState:
    """Move the top card of the draw pile (seen or not) into a seat's hand."""
    card = state.draw[0]
    hand = state.hands[seat].add([card]) if card is not None else state.hands[seat].add(unknown=1)
    hands = state.hands[:seat] + (hand,) + state.hands[seat + 1 :]
    return evolve(state, hands=hands, draw=state.draw[1:])


def can_reshuffle(state: HtdState) -> bool:
    return len(state.discard) > 1


def settle(state: HtdState) -> Result:
    """Draw owed penalty cards, ask for a reshuffle when the pile runs out, end the round."""
    if state.phase is not Phase.PLAY:
        return state, []
    state, verdicts = _draw_owed(state)
    if state.race is None and not any(state.owed):
        out = [s for s, h in enumerate(state.hands) if not h.known and not h.unknown]
        if out and state.held:  # fake-outs are paid before the hands are scored (HTD-20)
            state, more = resolve_held(state)
            state, more2 = _draw_owed(state)
            verdicts += more + more2
            out = [s for s, h in enumerate(state.hands) if not h.known and not h.unknown]
        if out and not any(state.owed):
            state, more = end_round(state, out[0])
            return state, verdicts + more
    if state.need is None and not state.draw and can_reshuffle(state):
        state = evolve(state, need=Need.SHUFFLE, shuffle_why=ShuffleWhy.EMPTY)
        verdicts.append(
            prompt(
                "The draw pile has run out: keep the top card of the discard pile and shuffle "
                "the rest into a new draw pile.",
                None,
                need="shuffle",
            )
        )
    return state, verdicts


def _draw_owed(state: HtdState) -> Result:
    verdicts: list[Verdict] = []
    if state.need is None and any(state.owed):
        for seat in range(state.n):
            while state.owed[seat] and state.draw:
                state = draw_top(state, seat)
                owed = list(state.owed)
                owed[seat] -= 1
                state = evolve(state, owed=tuple(owed))
            if state.owed[seat] and not state.draw and not can_reshuffle(state):
                left = state.owed[seat]
                what = "penalty card is" if left == 1 else f"{left} penalty cards are"
                verdicts.append(
                    info(
                        f"The draw pile is empty and there is nothing to reshuffle: "
                        f"{state.players[seat]}'s last {what} let off (HTD-19).",
                        seat,
                    )
                )
                owed = list(state.owed)
                owed[seat] = 0
                state = evolve(state, owed=tuple(owed))
    return state, verdicts


def yell_still_open(state: HtdState, out: int) -> bool:
    """Whether ``out`` went out on a Hand card whose forgotten yell may still be reported.

    HTD-18 allows the report until the next turn action; HTD-20 says a player who forgot to
    yell draws and play goes on. The round therefore ends now (the scores show at once) but
    can be resumed by ``forgot_yell`` before the next action.
    """
    closed = state.closed_race
    return closed is not None and closed.by == out and not closed.yell_penalised


def end_round(state: HtdState, out: int) -> Result:
    """``out`` ran out of cards: score every hand the referee can see, ask for the rest."""
    reopen = state if yell_still_open(state, out) else None
    points: list[int | None] = []
    for seat, hand in enumerate(state.hands):
        if seat == out:
            points.append(0)
        elif hand.unknown == 0:
            points.append(hand_points(hand.known))
        else:
            points.append(None)
    state = evolve(
        state,
        phase=Phase.SCORING,
        out_seat=out,
        round_points=tuple(points),
        need=None,
        shuffle_why=None,
        forced=None,
        require=None,
        drawn=(),
        closed_race=None,
        reopen=reopen,
        ended=state,
    )
    verdicts = [info(f"{state.players[out]} has no cards left: the round is over.", out)]
    missing = [s for s, p in enumerate(points) if p is None]
    if not missing:
        state, more = finish_round(state)
        return state, verdicts + more
    for seat in missing:
        verdicts.append(
            prompt(
                f"Enter {state.players[seat]}'s cards (or their points) to score the round.",
                seat,
                need="hand",
                cards=len(state.hands[seat]),
            )
        )
    return state, verdicts


def finish_round(state: HtdState) -> Result:
    """Every hand is scored: add the round to the totals; maybe the game is over."""
    points = tuple(int(p or 0) for p in state.round_points)
    totals = tuple(t + p for t, p in zip(state.totals, points, strict=True))
    state = evolve(state, totals=totals, rounds=(*state.rounds, points), round_points=())
    table = ", ".join(f"{name} {p}" for name, p in zip(state.players, points, strict=True))
    verdicts = [
        Verdict(
            Outcome.ROUND_END,
            f"Round {state.round} scores: {table}.",
            state.out_seat,
            {"points": list(points), "totals": list(totals)},
        )
    ]
    target = state.option("target_score")
    if max(totals) >= target:
        best = min(totals)
        winners = tuple(s for s, t in enumerate(totals) if t == best)
        names = and_list([state.players[s] for s in winners])
        over = and_list([state.players[s] for s, t in enumerate(totals) if t >= target])
        state = evolve(state, phase=Phase.GAME_OVER, winners=winners)
        verdicts.append(
            Verdict(
                Outcome.GAME_END,
                f"{over} reached {target} points: {names} "
                f"{'wins' if len(winners) == 1 else 'share the win'} with {points_text(best)}.",
                winners[0] if len(winners) == 1 else None,
                {"winners": list(winners), "totals": list(totals)},
            )
        )
    else:
        state = evolve(state, phase=Phase.ROUND_OVER, dealer=(state.dealer + 1) % state.n)
        verdicts.append(info(f"Next round: {state.players[state.dealer]} deals.", state.dealer))
    return state, verdicts
