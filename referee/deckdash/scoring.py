"""Round scoring, the game's end, its winner and the tie-break round.

Points: 1 per card left in hand, the finisher 0 (DD-2 covers "First to …" Dashes).
Without points (variation 2) a round scores 1 for the Dash winner, so the totals count
Dashes won. The winner: most Dashes won, then fewest points (DD-1); players still tied
replay the last Dash among themselves (DD-12).
"""

from __future__ import annotations

from referee.deckdash.options import FirstToScoring, WinnerRule
from referee.deckdash.state import DeckDashState, Round, RoundEnd, RoundResult
from referee.frozen import evolve
from referee.verdicts import Outcome, Verdict, score
from referee.words import and_list

FIRST_TO_WINNER_POINTS = 3
FIRST_TO_OTHERS_POINTS = 12


def round_scores(
    state: DeckDashState, rnd: Round, winner: int | None, how: RoundEnd, counts: tuple[int, ...]
) -> tuple[int, ...]:
    s = state.settings
    if not s.points:
        return tuple(1 if seat == winner else 0 for seat in range(state.n))
    if how is RoundEnd.FIRST_TO and s.first_to_scoring is FirstToScoring.FIXED:
        return tuple(
            (FIRST_TO_WINNER_POINTS if seat == winner else FIRST_TO_OTHERS_POINTS)
            if seat in rnd.active
            else 0
            for seat in range(state.n)
        )
    return tuple(
        0 if seat == winner and how is RoundEnd.FINISHED else counts[seat]
        for seat in range(state.n)
    )


def end_round(
    state: DeckDashState, rnd: Round, winner: int | None, how: RoundEnd
) -> tuple[DeckDashState, list[Verdict]]:
    counts = tuple(len(h) for h in rnd.hands)
    scores = round_scores(state, rnd, winner, how, counts)
    result = RoundResult(
        rnd.dash, winner, how, counts, scores, tiebreak=rnd.tiebreak, scripted=rnd.scripted
    )
    state = evolve(state, round=None, results=(*state.results, result))
    why = {
        RoundEnd.FINISHED: f"{state.name(winner)} finished and wins Dash {rnd.dash}.",
        RoundEnd.FIRST_TO: f"{state.name(winner)} laid Dash {rnd.dash} first and wins it.",
        RoundEnd.DRAW_PILE_EMPTY: f"The draw pile ran out: Dash {rnd.dash} ends with no winner.",
        RoundEnd.NOTHING_TO_DRAW: (
            f"Nothing is left to draw: Dash {rnd.dash} ends with no winner."
        ),
        RoundEnd.AGREED: agreed_text(state, rnd),
    }[how]
    verdicts = [Verdict(Outcome.ROUND_END, why, winner, result.to_dict())]
    if not rnd.tiebreak:
        one, many = ("point", "points") if state.settings.points else ("Dash", "Dashes")
        for seat in rnd.active:
            pts = scores[seat]
            verdicts.append(
                score(
                    f"{state.name(seat)} scores {pts} {one if pts == 1 else many}"
                    f" ({counts[seat]} card{'' if counts[seat] == 1 else 's'} in hand).",
                    seat,
                    points=pts,
                    total=state.totals[seat],
                )
            )
    state, more = decide(state)
    return state, verdicts + more


def agreed_text(state: DeckDashState, rnd: Round) -> str:
    """The round-end sentence for a Dash the players end by agreement (DD-24)."""
    if rnd.tiebreak:  # DD-12: nobody finished it, so the fewest cards in hand decide
        return (
            f"The players end the tie-break of Dash {rnd.dash} by agreement: nobody finished "
            "it, so the fewest cards in hand decide."
        )
    said = f"The players end Dash {rnd.dash} by agreement: nobody wins it"
    if state.settings.points:
        return said + "; everyone scores 1 point per card in hand."
    return said + "."


def leaders(state: DeckDashState, seats: tuple[int, ...]) -> tuple[int, ...]:
    """The seats still level after the game's winner rule (DD-1, DD-14)."""
    s = state.settings
    totals, won = state.totals, state.dashes_won
    if not s.points:
        best = max(won[x] for x in seats)
        return tuple(x for x in seats if won[x] == best)
    if s.winner is WinnerRule.DASHES:
        best = max(won[x] for x in seats)
        seats = tuple(x for x in seats if won[x] == best)
    low = min(totals[x] for x in seats)
    return tuple(x for x in seats if totals[x] == low)


def standing(state: DeckDashState) -> tuple[int, ...]:
    """Who leads now: the winners once decided, else DD-1 (or DD-14) over the counted Dashes.

    During a tie-break only the tied players are in it. This is what ``stop`` makes the
    winners, so the scoreboard's leaders (WEB-1: the winners of a game ended early) agree.
    """
    if state.finished:
        return state.winners
    seats = state.tiebreak or tuple(range(state.n))
    return leaders(state, seats) if state.counted else seats


def decide(state: DeckDashState) -> tuple[DeckDashState, list[Verdict]]:
    """After a round: is the game over, who won, or must the tied players replay?"""
    last = state.results[-1]
    if last.tiebreak:
        if last.winner is not None:
            return finish(state, (last.winner,))
        # Nobody finished the tie-break (DD-12): fewest cards in hand wins, else replay.
        fewest = min(last.hand_counts[x] for x in state.tiebreak)
        tied = tuple(x for x in state.tiebreak if last.hand_counts[x] == fewest)
    else:
        if state.next_dash_index < len(state.settings.dashes):
            nxt = state.settings.dashes[state.next_dash_index]
            return state, [Verdict(Outcome.INFO, f"Next: Dash {nxt}. Deal 12 cards each.")]
        tied = leaders(state, tuple(range(state.n)))
    if len(tied) == 1:
        return finish(state, tied)
    names = and_list([state.name(x) for x in tied])
    return evolve(state, tiebreak=tied), [
        Verdict(
            Outcome.PROMPT,
            f"{names} are tied: they replay Dash {state.results[-1].dash}; "
            "the first to finish wins the game.",
            data={"tiebreak": list(tied)},
        )
    ]


def finish(state: DeckDashState, winners: tuple[int, ...]) -> tuple[DeckDashState, list[Verdict]]:
    state = evolve(state, finished=True, winners=winners, round=None)
    names = and_list([state.name(x) for x in winners])
    # "Ana wins the game." / "Ana and Bea share the win." (not "share the win the game")
    said = f"{names} wins the game." if len(winners) == 1 else f"{names} share the win."
    return state, [
        Verdict(
            Outcome.GAME_END,
            said,
            data={
                "winners": list(winners),
                "totals": list(state.totals),
                "dashes_won": list(state.dashes_won),
            },
        )
    ]
