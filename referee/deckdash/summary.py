"""Deck Dash "On the table": the state in the words of the verdicts ("red 7", "a Wild",
"pair of 3s").

Pure and read-only: a few labelled lines for the referee console and the scoreboard, only
those that mean something now. Laid groups carry their table number because a handoff
event names the group by it.
"""

from __future__ import annotations

from referee.deckdash.common import the, words
from referee.deckdash.dashes import get_dash
from referee.deckdash.rounds import expected_dealer
from referee.deckdash.state import CLOCKWISE, DeckDashState, Phase, Round, RoundEnd
from referee.game import TableLine
from referee.summary import SEP, and_list, cards, per_player, winners_text


def table(state: DeckDashState) -> list[TableLine]:
    """The summary for the game's phase: over, between Dashes, or a Dash in play."""
    if state.finished:
        return _finished(state)
    if state.round is None:
        return _between(state)
    return _playing(state, state.round)


def _finished(state: DeckDashState) -> list[TableLine]:
    text = winners_text(state.players, state.winners)
    if state.stopped:
        done = len(state.counted)
        text += f" (stopped after {done} Dash{'es' if done != 1 else ''})"
    return [TableLine("Game over", text)]


def _between(state: DeckDashState) -> list[TableLine]:
    """Before a deal: which Dash comes next, and how the last one ended."""
    dealer = expected_dealer(state, state.tiebreak or tuple(range(state.n)))
    deals = f" ({state.name(dealer)} deals)" if dealer is not None else ""
    lines = [TableLine("Now", f"Waiting for the deal{deals}"), *_last_dash(state)]
    dashes = state.settings.dashes
    if state.tiebreak:
        who = and_list([state.players[s] for s in state.tiebreak])
        title = get_dash(state.settings.level, dashes[-1]).title
        lines.append(TableLine("Tie-break", f"{who} replay {title}"))
    elif state.next_dash_index < len(dashes):
        number = dashes[state.next_dash_index]
        lines.append(TableLine("Next Dash", get_dash(state.settings.level, number).title))
    return lines


def _last_dash(state: DeckDashState) -> list[TableLine]:
    if not state.results:
        return []
    last = state.results[-1]
    if last.how is RoundEnd.AGREED:
        text = f"Dash {last.dash} was ended by agreement, with no winner"
    elif last.winner is None:
        text = f"Dash {last.dash} ended with no winner"
    elif last.how is RoundEnd.FIRST_TO:
        text = f"{state.name(last.winner)} laid Dash {last.dash} first and won it"
    else:
        text = f"{state.name(last.winner)} finished and won Dash {last.dash}"
    return [TableLine("Last Dash", text)]


def _playing(state: DeckDashState, rnd: Round) -> list[TableLine]:
    title = get_dash(state.settings.level, rnd.dash).title
    way = "clockwise" if rnd.direction == CLOCKWISE else "counterclockwise"
    lines = [
        TableLine("Dash", title + (" (tie-break)" if rnd.tiebreak else "")),
        TableLine("Turn", f"{state.name(rnd.turn)} ({way})"),
        TableLine("Next", _next_step(state, rnd)),
        TableLine("Discard pile", _discard(rnd)),
        TableLine("Draw pile", _draw_pile(rnd)),
        TableLine("Hands", per_player(state.players, [len(h) for h in rnd.hands], rnd.active)),
    ]
    lines += _laid(state, rnd)
    lines += _held_up(state, rnd)
    if rnd.stuck:  # DD-24
        lines.append(
            TableLine("Stuck", "Nobody can finish this Dash: agree to end it (end_dash) or stop")
        )
    return lines


def _next_step(state: DeckDashState, rnd: Round) -> str:
    """The turn player's step, as ``common.phase_problem`` and the turn verdicts say it."""
    name = state.name(rnd.turn)
    action = words(rnd.action) if rnd.action else "the action card"
    if rnd.phase is Phase.DRAW:
        start = rnd.top if rnd.start_pickup else None
        extra = f" (or pick up {the(start)} to start)" if start is not None else ""
        return f"{name} draws a card{extra}"
    if rnd.phase is Phase.BLOCKED:
        return f"{name} is blocked: put the Block You card on the discard pile"
    if rnd.phase is Phase.ACTION_DRAW:
        return f"{name} draws {_more(rnd.owed)} for {action}"
    if rnd.phase is Phase.ACTION_DISCARD:
        return f"{name} discards {_more(rnd.owed)} for {action}"
    if rnd.turn in rnd.laid:
        return f"{name} hands off cards, plays an action card or discards"
    return f"{name} lays down the Dash, plays an action card or discards"


def _more(owed: int) -> str:
    """ "1 more card", "3 more cards"."""
    return f"{owed} more card{'' if owed == 1 else 's'}"


def _discard(rnd: Round) -> str:
    top = rnd.top
    if top is None:
        return "empty"
    return f"{words(top)} on top ({cards(len(rnd.discard))})"


def _draw_pile(rnd: Round) -> str:
    left = len(rnd.draw_pile)
    if left:
        return cards(left)
    if rnd.discard:
        return "empty — shuffle the discard pile to make a new draw pile"
    return "empty"


def _laid(state: DeckDashState, rnd: Round) -> list[TableLine]:
    """Each player's laid Dash, its groups numbered as a handoff names them."""
    if not rnd.table:
        return []
    owners = sorted({laid.owner for laid in rnd.table})
    parts = []
    for owner in owners:
        groups = [
            f"#{i} {laid.group.label}" for i, laid in enumerate(rnd.table) if laid.owner == owner
        ]
        parts.append(f"{state.name(owner)}: {', '.join(groups)}")
    return [TableLine("Laid", SEP.join(parts))]


def _held_up(state: DeckDashState, rnd: Round) -> list[TableLine]:
    """Block You cards in front of players, and turns players will lose (Skip cards)."""
    lines = []
    if rnd.blocks:
        who = and_list([state.name(s) for s in sorted(rnd.blocks)])
        lines.append(TableLine("Blocked", f"{who} (Block You card in front)"))
    skipping = [s for s in range(state.n) if rnd.skips and rnd.skips[s]]
    if skipping:
        lines.append(TableLine("Lose a turn", per_player(state.players, rnd.skips, skipping)))
    return lines
