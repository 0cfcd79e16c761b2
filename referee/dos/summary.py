"""DOS "On the table": the state in the words of the verdicts ("red 9", "left pile").

Pure and read-only: a few labelled lines for the referee console and the scoreboard. Only
what matters in the current phase is shown: nothing about piles before the deal, no turn
once the game is over.
"""

from __future__ import annotations

from referee.dos.state import PILE_NAMES, DosState, Phase, PileTurn
from referee.game import TableLine
from referee.summary import SEP, and_list, cards, per_player, winners_text

RESHUFFLE = "shuffle the discard piles (keep both top cards) and enter the reshuffle"


def table(state: DosState) -> list[TableLine]:
    """The summary for ``state``'s phase."""
    if state.phase is Phase.FINISHED:
        return _finished(state)
    lines = _round(state)
    if state.phase is Phase.DEAL:
        return [*lines, TableLine("Now", "Waiting for the deal"), *_last_round(state)]
    return lines + _play(state)


def _round(state: DosState) -> list[TableLine]:
    """ "Round 2 of 3", only in a match of several deals (DOS-15)."""
    rounds = state.options["rounds"]
    return [TableLine("Round", f"{state.round} of {rounds}")] if rounds > 1 else []


def _last_round(state: DosState) -> list[TableLine]:
    """Between deals: who won the deal just played."""
    if not state.round_winners:
        return []
    won = winners_text(state.players, state.round_winners[-1])
    return [TableLine(f"Round {state.round - 1}", f"{won} ({state.end_reason})")]


def _finished(state: DosState) -> list[TableLine]:
    why = f" ({state.end_reason})" if state.end_reason and state.options["rounds"] == 1 else ""
    return [TableLine("Game over", winners_text(state.players, state.winners) + why)]


def _play(state: DosState) -> list[TableLine]:
    way = "clockwise" if state.direction == 1 else "counter-clockwise"
    lines = [TableLine("Turn", f"{state.name(state.turn)} ({way})")]
    lines += _draw_fours(state)
    lines += _owed(state)
    lines.append(TableLine("Piles", SEP.join(_pile(state, p) for p in (0, 1))))
    lines += _this_turn(state)
    lines += _last_card(state)
    lines.append(TableLine("Draw pile", _draw_pile(state)))
    sizes = [len(h) for h in state.hands]
    lines.append(TableLine("Hands", per_player(state.players, sizes, range(state.n))))
    lines += _dos_calls(state)
    return lines


def _pile(state: DosState, pile: int) -> str:
    """ "left red 9 (4 cards)", with "closed by a Skip" while a Skip closes it (DOS-7)."""
    notes = [cards(len(state.piles[pile]))]
    if pile in state.blocked:
        notes.append("closed by a Skip")
    return f"{PILE_NAMES[pile]} {state.top(pile).words} ({', '.join(notes)})"


def _draw_fours(state: DosState) -> list[TableLine]:
    """Each Draw Four still waiting for its victim (DOS-10), worded as the verdict's prompt."""
    return [
        TableLine(
            "Draw Four",
            f"{state.name(f.victim)} must draw 4 for the {f.card.words}, or counter it with "
            f"a {f.card.color.word} Skip on the {PILE_NAMES[f.pile]} pile",
        )
        for f in state.pending
    ]


def _owed(state: DosState) -> list[TableLine]:
    """Cards still owed after the draw pile ran out: the table waits for a reshuffle (DOS-16)."""
    owing = [s for s in range(state.n) if state.owed and state.owed[s]]
    if not owing:
        return []
    who = per_player(state.players, state.owed, owing)
    return [TableLine("Owed", f"{who} — waiting for the reshuffle")]


def _this_turn(state: DosState) -> list[TableLine]:
    """What the turn player has done about each pile so far; nothing before they act."""
    cur = state.current
    if all(p is PileTurn.OPEN for p in cur.piles):
        return []
    done = [_pile_turn(state, p) for p in (0, 1)]
    return [TableLine("This turn", SEP.join(done))]


def _pile_turn(state: DosState, pile: int) -> str:
    cur = state.current
    where = PILE_NAMES[pile]
    status = cur.piles[pile]
    played, drawn = cur.played[pile], cur.drawn[pile]
    if status is PileTurn.PLAYED and played is not None:
        return f"{where}: played a {played.words}"
    if status is PileTurn.DRAWN_PLAYED and played is not None:
        return f"{where}: drew and played a {played.words}"
    if status is PileTurn.DRAWN:
        if cur.drew_nothing[pile]:
            return f"{where}: nothing to draw"
        return f"{where}: drew {drawn.words if drawn is not None else 'a card'}"
    return f"{where}: still to play or draw"


def _last_card(state: DosState) -> list[TableLine]:
    """A play that emptied the hand but may be of the card drawn for its pile: the round's
    end waits for the next entry (DOS-25), said as the verdict's prompt says it."""
    pile = state.current.last_card_waits
    card = state.current.played[pile] if pile is not None else None
    if pile is None or card is None:
        return []
    name = state.name(state.turn)
    return [
        TableLine(
            "Last card",
            f"{name} has no cards left by the count — enter {name}'s draw for the "
            f"{PILE_NAMES[pile]} pile if the {card.words} was the card drawn, or end {name}'s "
            "turn to end the round",
        )
    ]


def _draw_pile(state: DosState) -> str:
    """The count; when empty, what happens next (DOS-16, or the game ends under DOS-17)."""
    left = len(state.stock)
    if left:
        return cards(left)
    if state.options["draw_pile_out_ends_game"]:
        return "empty — the game ends after this turn"
    if any(len(p) > 1 for p in state.piles):
        return f"empty — {RESHUFFLE}"
    return "empty — nothing left to reshuffle"


def _dos_calls(state: DosState) -> list[TableLine]:
    """Who said DOS, and who is on two cards without saying it and can be caught (DOS-12)."""
    parts = []
    if state.called:
        parts.append(f"{and_list([state.name(s) for s in sorted(state.called)])} called DOS")
    if state.exposed:
        who = and_list([state.name(s) for s in sorted(state.exposed)])
        parts.append(f"{who} can be called out")
    return [TableLine("DOS", SEP.join(parts))] if parts else []
