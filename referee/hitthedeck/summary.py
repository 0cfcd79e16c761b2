"""Hit the Deck "On the table": the state in the words of the verdicts ("green 5",
"Hit the Deck with a Hand").

Pure and read-only: a few labelled lines for the referee console and the scoreboard, only
those that mean something in the current phase. What the next player must do comes
first, since that is what a referee is asked about mid-game.
"""

from __future__ import annotations

from referee.game import TableLine
from referee.hitthedeck import slaps
from referee.hitthedeck.state import HtdState, Need, Phase, Race, ShuffleWhy
from referee.summary import SEP, and_list, cards, per_player, pile, winners_text

_SHUFFLE = {
    ShuffleWhy.START_HAND: "shuffle the Hand card back into the draw pile, then turn up a new card",
    ShuffleWhy.FLIP_FLIP: "shuffle the Flip back into the draw pile, then turn up a new card",
    ShuffleWhy.EMPTY: "keep the top card of the discard pile and shuffle the rest into a new "
    "draw pile",
}


def table(state: HtdState) -> list[TableLine]:
    """The summary for ``state``'s phase."""
    if state.phase is Phase.DEAL:
        return [TableLine("Now", "Waiting for the deal")]
    if state.phase is Phase.ROUND_OVER:
        dealer = state.players[state.dealer]
        return [
            TableLine("Now", f"Waiting for the deal of round {state.round + 1} ({dealer} deals)")
        ]
    if state.phase is Phase.GAME_OVER:
        return [TableLine("Game over", winners_text(state.players, state.winners))]
    if state.phase is Phase.SCORING:
        return _scoring(state)
    return _play(state)


def _scoring(state: HtdState) -> list[TableLine]:
    """The round is over but some hands are still to be entered to score it."""
    out = state.players[state.out_seat] if state.out_seat is not None else "Someone"
    missing = [state.players[s] for s, p in enumerate(state.round_points) if p is None]
    return [
        TableLine(
            f"Round {state.round} over",
            f"{out} went out — enter the cards (or points) of {and_list(missing)}",
        )
    ]


def _play(state: HtdState) -> list[TableLine]:
    way = "to the left" if state.direction == 1 else "to the right"
    lines = [*_chore(state), TableLine("Turn", f"{state.players[state.turn]} ({way})")]
    lines += _must(state)
    lines += _race(state)
    lines += _held(state)
    lines += _owed(state)
    lines.append(TableLine("Discard pile", _discard(state)))
    lines.append(TableLine("Draw pile", pile(len(state.draw))))
    sizes = [len(h) for h in state.hands]
    lines.append(TableLine("Hands", per_player(state.players, sizes, range(state.n))))
    return lines


def _chore(state: HtdState) -> list[TableLine]:
    """A turn-up or a shuffle the table must do before anyone plays."""
    if state.need is Need.TURN_UP:
        return [TableLine("Table", "turn up the top card of the draw pile")]
    if state.need is Need.SHUFFLE and state.shuffle_why is not None:
        return [TableLine("Table", _SHUFFLE[state.shuffle_why])]
    return []


def _must(state: HtdState) -> list[TableLine]:
    """What the turn player must do: a forced cut or flip, a Hit the Deck to answer, or the
    card just drawn to play or keep (the verdicts' prompts, HTD-3, HTD-6, HTD-11)."""
    name = state.players[state.turn]
    if state.forced is not None:
        return [TableLine("Next", f"{name} must {state.forced} the deck and may not play a card")]
    if state.drawn:
        card = state.drawn[0]
        if card is None:
            return [TableLine("Next", f"{name} drew a card: play it if it matches, or pass")]
        if state.require is not None:
            return [TableLine("Next", f"{name} must play the {card.name} just drawn")]
        return [TableLine("Next", f"{name} drew {card.name}: play it, or pass")]
    if state.require is not None:
        return [TableLine("Next", f"{name} must play {state.require.describe()}, or draw a card")]
    return []


def _race(state: HtdState) -> list[TableLine]:
    """An open Hit the Deck with a Hand race: who has slapped, who has not yet (HTD-13)."""
    race = state.race
    if race is None:
        return []
    slapped = _slap_order(state, race)
    waiting = [s for s in range(state.n) if s not in slapped]
    parts = [f"Hit the Deck with a Hand from {state.players[race.by]}"]
    parts.append("slapped: " + (and_list([state.players[s] for s in slapped]) or "nobody yet"))
    if waiting:
        parts.append("still to slap: " + and_list([state.players[s] for s in waiting]))
    return [TableLine("Slap race", SEP.join(parts))]


def _slap_order(state: HtdState, race: Race) -> list[int]:
    """The seats whose slap counts, fastest first (only a seat's first slap counts, HW-4)."""
    counted = slaps.slapped_seats(state, race)
    order: list[int] = []
    for press in sorted(race.presses, key=lambda p: p.t_ns):
        if press.seat in counted and press.seat not in order:
            order.append(press.seat)
    return order


def _held(state: HtdState) -> list[TableLine]:
    """Slaps seen with no Hand card: fake-outs unless a Hand card was just played (HTD-15)."""
    if not state.held:
        return []
    who = and_list([state.players[s] for s in sorted({p.seat for p in state.held})])
    return [
        TableLine(
            "Slaps", f"{who} slapped with no Hand card seen: a fake-out unless one was just played"
        )
    ]


def _owed(state: HtdState) -> list[TableLine]:
    """Penalty cards still to draw (they wait when the draw pile is empty, HTD-19)."""
    owing = [s for s in range(state.n) if state.owed and state.owed[s]]
    if not owing:
        return []
    when = "waiting for the reshuffle" if state.need is Need.SHUFFLE else "still to draw"
    return [TableLine("Owed", f"{per_player(state.players, state.owed, owing)} — {when}")]


def _discard(state: HtdState) -> str:
    if not state.discard:
        return "empty"
    top = state.top.name if state.top is not None else "a card the referee has not seen"
    return f"{top} on top ({cards(len(state.discard))})"
