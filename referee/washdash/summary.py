"""Wash Dash "On the table": the round's task cards and who took them, in the card ids
the verdicts use ("T07").

Pure and read-only: a few labelled lines for the referee console and the scoreboard,
derived like everything else in Wash Dash from the round's record (``state.allocation``),
so a late dryer reading or a declared mistake shows at once.
"""

from __future__ import annotations

from referee.game import TableLine
from referee.summary import SEP, and_list, per_player, pile, winners_text
from referee.washdash.deck import Deck
from referee.washdash.state import (
    UNCHECKED,
    WRONG,
    Allocation,
    Round,
    WashDashState,
    allocation,
    earlier_tasks,
    game_over,
    holdings,
    needs_task,
    next_revealer,
    result_final,
    round_over,
    winners,
)

_STATUS = {UNCHECKED: "dryer not checked yet", WRONG: "mistake"}


def table(state: WashDashState, deck: Deck) -> list[TableLine]:
    """The summary for the game's phase: set-up, a round running or over, or the end."""
    if not state.started:
        return [TableLine("Now", "Waiting for the set-up: shuffle and deal the dryers")]
    alloc = allocation(state, deck)
    if game_over(state, deck):
        return _over(state, deck, alloc)
    rnd = state.current
    if rnd is None:
        who = state.players[next_revealer(state, deck)]
        return [
            TableLine("Now", f"Waiting for {who} to reveal round 1"),
            TableLine("Draw pile", pile(len(state.pile))),
        ]
    return [
        TableLine("Round", f"{rnd.number} (revealed by {state.players[rnd.active]})"),
        *_now(state, deck, rnd),
        *_tasks(state, rnd),
        *_events(rnd),
        *_waiting(state, deck, rnd),
        *_forfeits(state, deck, alloc),
        TableLine("Cards won", _cards_won(state, deck, alloc)),
        TableLine("Draw pile", pile(len(state.pile))),
    ]


def _over(state: WashDashState, deck: Deck, alloc: Allocation) -> list[TableLine]:
    """The end; while a mistake's forfeit is owed or a dryer is still to be seen the winner
    is not final (as the verdict says), and the table is told what it waits for."""
    best = winners(state, deck, alloc)
    if result_final(state, alloc):
        return [TableLine("Game over", winners_text(state.players, best))]
    leads = "leads" if len(best) == 1 else "lead"
    rnd = state.current
    assert rnd is not None  # the game ends with its last round
    return [
        TableLine("Game over", f"{and_list([state.players[s] for s in best])} {leads} for now"),
        *_waiting(state, deck, rnd),
        *_forfeits(state, deck, alloc),
        TableLine("Cards won", _cards_won(state, deck, alloc)),
    ]


def _now(state: WashDashState, deck: Deck, rnd: Round) -> list[TableLine]:
    """Between rounds, or still drawing because only event cards showed (rules, WD-13)."""
    if round_over(state, deck):
        nxt = state.players[next_revealer(state, deck)]
        return [
            TableLine(
                "Now",
                f"Round {rnd.number} is over: check each other's dryers; {nxt} reveals next",
            )
        ]
    if needs_task(rnd):
        who = state.players[rnd.active]
        return [TableLine("Now", f"Only event cards so far: {who} draws another card")]
    return []


def _tasks(state: WashDashState, rnd: Round) -> list[TableLine]:
    """Each revealed task card: open, or who took it and whether their dryer was checked."""
    if not rnd.tasks:
        return []
    parts = []
    for card in rnd.tasks:
        claim = rnd.claim_for(card)
        if claim is None:
            parts.append(f"{card} open")
            continue
        status = _STATUS.get(claim.status)
        note = f" ({status})" if status else ""
        parts.append(f"{card} taken by {state.players[claim.seat]}{note}")
    return [TableLine("Task cards", SEP.join(parts))]


def _events(rnd: Round) -> list[TableLine]:
    if not rnd.events:
        return []
    return [TableLine("Events", and_list(sorted(e.title for e in rnd.events)))]


def _waiting(state: WashDashState, deck: Deck, rnd: Round) -> list[TableLine]:
    """Claims the referee still waits on: a dryer to see, a "done" press without its card
    (only while the round runs: once the others took every task, a press has nothing left
    to name, so it goes with the round's last card, and its tablet question with it)."""
    lines = []
    unchecked = [c for c in rnd.claims if c.status == UNCHECKED]
    if unchecked:
        dryers = and_list([f"{state.players[c.seat]}'s dryer ({c.card})" for c in unchecked])
        lines.append(TableLine("Dryer check", f"waiting for {dryers}: camera or tablet"))
    if rnd.presses and not round_over(state, deck):
        who = and_list([state.players[seat] for seat, _ in rnd.presses])
        lines.append(TableLine("Done pressed", f"{who}: which task card? Tap it on the tablet"))
    return lines


def _forfeits(state: WashDashState, deck: Deck, alloc: Allocation) -> list[TableLine]:
    """Mistakes still to settle: an earlier task card to give up (WD-11)."""
    return [
        TableLine(
            "Forfeit",
            f"{state.players[s]} must give up one earlier task card "
            f"({', '.join(earlier_tasks(state, deck, s))})",
        )
        for s in alloc.owed
    ]


def _cards_won(state: WashDashState, deck: Deck, alloc: Allocation) -> str:
    held = holdings(state, deck, alloc)
    return per_player(state.players, [len(h) for h in held], range(state.n))
