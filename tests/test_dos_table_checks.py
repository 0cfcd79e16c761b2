"""DOS checks a review found missing: a Draw Four that empties the draw pile, cards the deck
cannot hold, and the DOS reminder after a counter.

Each test plays events through ``GAME.apply`` and follows only what the referee's own
messages ask for, as a family at the table would.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.dos.cards import parse_card
from referee.dos.game import GAME
from referee.dos.state import DosState
from referee.events import Event
from referee.verdicts import Outcome, Verdict


def _ok(state: DosState, kind: str, seat: int | None = None, **payload: Any) -> DosState:
    """Apply an event that must be accepted; return the new state."""
    new, verdicts = GAME.apply(state, Event(kind, seat, payload))
    bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
    assert not bad, f"{kind} {payload} refused: {bad}"
    return new


def _apply(
    state: DosState, kind: str, seat: int | None = None, **payload: Any
) -> tuple[DosState, list[Verdict]]:
    return GAME.apply(state, Event(kind, seat, payload))


def _refused(state: DosState, kind: str, seat: int | None = None, **payload: Any) -> str:
    """Apply an event that must be refused without changing anything; return the reason."""
    new, verdicts = _apply(state, kind, seat, **payload)
    assert new is state and [v.outcome for v in verdicts] == [Outcome.ILLEGAL], verdicts
    return verdicts[0].reason


def _said(verdicts: list[Verdict], outcome: Outcome, words: str) -> bool:
    return any(v.outcome is outcome and words in v.reason for v in verdicts)


# -- DOS-10 / DOS-16: the Draw Four's cards empty the draw pile --------------------------
def _draw_four_waiting(stock: int | list[str]) -> DosState:
    """Ann's Draw Four waits for Bea; the draw pile holds ``stock``; 8 cards lie under the tops."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 7})
    state = _ok(state, "deal", hands=[7, 7, 7], piles=["R7", "G2"], stock=stock)
    for seat, (left, right) in enumerate([("R1", "G3"), ("R4", "G6"), ("R5", "G8")]):
        state = _ok(state, "play", seat, card=left, pile="left")
        state = _ok(state, "play", seat, card=right, pile="right")
    state = _ok(state, "play", 0, card="RD4", pile="left")
    state = _ok(state, "play", 0, card="G5", pile="right")
    assert (
        state.turn == 1
        and state.pending
        and len(state.stock) == (stock if isinstance(stock, int) else len(stock))
    )
    return state


@pytest.mark.parametrize("left", [1, 2, 3, 4])
def test_ruling_dos16_draw_four_emptying_the_draw_pile_waits_for_the_reshuffle(left: int) -> None:
    """Bea's first action is a draw; the Draw Four takes the last cards. The referee must not
    refuse the draw (that undid the Draw Four, so the reshuffle it asked for was refused too):
    Bea takes what is there, owes the rest, and draws for her pile after the reshuffle."""
    state = _draw_four_waiting(left)
    state, verdicts = _apply(state, "draw", 1, pile="left")
    assert not _said(verdicts, Outcome.ILLEGAL, ""), verdicts
    assert _said(verdicts, Outcome.PROMPT, "enter the reshuffle, then the draw again")
    assert len(state.hands[1]) == 5 + left and len(state.stock) == 0
    assert state.owed[1] == 4 - left and not state.pending
    state, verdicts = _apply(state, "reshuffle")
    assert verdicts[0].outcome is Outcome.LEGAL, verdicts
    assert len(state.hands[1]) == 5 + 4 and len(state.stock) == 8 - (4 - left)
    state, verdicts = _apply(state, "draw", 1, pile="left")
    assert verdicts[0].reason == "Bea draws a card for the left pile."
    assert len(state.hands[1]) == 5 + 4 + 1


def test_ruling_dos16_draw_four_emptying_a_named_draw_pile() -> None:
    """The same with the draw pile's cards known: the right cards reach Bea, in order."""
    state = _draw_four_waiting(["B1", "B2", "B3"])
    state = _ok(state, "draw", 1, pile="left")  # Bea takes the three, owes one
    assert state.hands[1].known == tuple(parse_card(t) for t in ["B1", "B2", "B3"])
    under = ["R7", "R1", "R4", "R5", "G2", "G3", "G6", "G8"]
    state = _ok(state, "reshuffle", stock=under)
    assert state.hands[1].known[-1] is parse_card("R7")
    reason = _refused(state, "draw", 1, pile="left", card="B9")
    assert "top card of the draw pile is red 1" in reason
    state = _ok(state, "draw", 1, pile="left", card="R1")
    state = _ok(state, "play", 1, card="R1", pile="left")
    assert state.top(0) is parse_card("R1")


def test_ruling_dos16_a_plain_draw_from_the_empty_pile_still_waits() -> None:
    """Without a Draw Four settled by it, a draw from the empty pile is refused as before
    (nothing changes, so the reshuffle it asks for is accepted)."""
    state = _draw_four_waiting(4)
    state = _ok(state, "take_four", 1)
    reason = _refused(state, "draw", 1, pile="left")
    assert "enter the reshuffle" in reason
    state = _ok(state, "reshuffle")
    state = _ok(state, "draw", 1, pile="left")


# -- DOS-2 / DOS-20: cards the deck cannot hold ------------------------------------------
def _table(players: int = 2, size: int = 7, **options: Any) -> DosState:
    names = ["Ann", "Bea", "Cal", "Dan"][:players]
    return GAME.new_state(names, {"hand_size": size, **options})


def _six_red_sevens(stock: int = 0) -> DosState:
    """Table mode, two players: six red 7s face up (two turned up, four played)."""
    state = _ok(_table(), "deal", hands=[7, 7], piles=["R7", "R7"], stock=stock)
    for seat, right in [(0, "R1"), (1, "R2"), (0, "R3"), (1, "R4")]:
        state = _ok(state, "play", seat, card="R7", pile="left")
        state = _ok(state, "play", seat, card=right, pile="right")
    assert sum(p.count(parse_card("R7")) for p in state.piles) == 6
    return state


def test_ruling_dos20_a_seventh_red_seven_is_ruled_out() -> None:
    """DOS-2 gives 6 of each number per colour: a 7th red 7 seen is a misread, not trusted."""
    state = _six_red_sevens(stock=5)
    reason = _refused(state, "play", 0, card="R7", pile="left")
    assert reason == (
        "The deck has only 6 red 7 cards, but this makes 7 that the referee knows of "
        "(6 on the discard piles, 1 named now): check the card."
    )
    assert "this makes 7" in _refused(state, "draw", 0, pile="left", card="R7")
    state = _ok(state, "draw", 0, pile="left", card="R8")  # another card is trusted
    state = _ok(state, "play", 0, card="R8", pile="left")


def test_ruling_dos20_a_countering_skip_counts_too() -> None:
    """A Skip played as a Draw Four counter is a card seen like any other play."""
    state = _ok(_table(), "deal", hands=[7, 7], piles=["BSKIP", "BSKIP"], stock=20)
    state = _ok(state, "play", 0, card="BSKIP", pile="left")
    state = _ok(state, "draw", 0, pile="right")
    state = _ok(state, "end_turn", 0)  # the left pile is closed for Bea: she draws for it
    state = _ok(state, "draw", 1, pile="left")
    state = _ok(state, "play", 1, card="BD4", pile="right")  # 3 blue Skips seen, 1 left
    state = _ok(state, "play", 0, card="BSKIP", pile="right")  # Ann counters: all 4 seen
    state = _ok(state, "draw", 0, pile="left")
    state = _ok(state, "draw", 0, pile="right")
    state = _ok(state, "end_turn", 0)
    state = _ok(state, "play", 1, card="BD4", pile="right")
    state = _ok(state, "draw", 1, pile="left")
    state = _ok(state, "end_turn", 1)
    reason = _refused(state, "counter", 0, card="BSKIP")
    assert "only 4 blue Skip cards, but this makes 5" in reason


def test_ruling_dos20_copies_shuffled_back_count_until_drawn() -> None:
    """Across a reshuffle: the red 7s shuffled back are in the draw pile, so a 7th is still
    ruled out; once a card nobody saw has been drawn it may be a red 7, and it is trusted."""
    state = _six_red_sevens()
    state = _ok(state, "reshuffle")  # 4 red 7s under the left top, 1 under the right top
    reason = _refused(state, "play", 0, card="R7", pile="left")
    assert "(1 on the discard piles, 5 in the draw pile, 1 named now)" in reason
    assert "held no blue 9" in _refused(state, "draw", 0, pile="left", card="B9")
    state = _ok(state, "draw", 0, pile="left")  # unseen: perhaps a red 7
    state = _ok(state, "play", 0, card="R7", pile="left")


def test_ruling_dos20_a_named_reshuffle_keeps_the_copies_known() -> None:
    state = _six_red_sevens()
    under = ["R7", "R7", "R7", "R7", "R7", "R1", "R2", "R3"]
    state = _ok(state, "reshuffle", stock=under)
    assert "(1 on the discard piles, 5 in the draw pile, 1 named now)" in _refused(
        state, "play", 0, card="R7", pile="left"
    )
    state = _ok(state, "draw", 0, pile="left", card="R7")
    state = _ok(state, "play", 0, card="R7", pile="left")


def test_ruling_dos2_a_card_outside_the_numbers_is_refused() -> None:
    """The notation reads 0-10; the ``numbers`` option says which numbers the deck has."""
    state = _ok(_table(), "deal", hands=[7, 7], piles=["B7", "G2"])
    words = "There is no blue 0 in this deck: its numbers are 1-10 (option 'numbers')."
    assert _refused(state, "play", 0, card="B0", pile="left") == words
    assert _refused(state, "draw", 0, pile="left", card="B0") == words
    state = _ok(state, "play", 0, card="B10", pile="left")
    zero = _ok(_table(numbers="0-9"), "deal", hands=[7, 7], piles=["B7", "G2"])
    assert "no blue 10 in this deck: its numbers are 0-9" in _refused(
        zero, "play", 0, card="B10", pile="left"
    )
    _ok(zero, "play", 0, card="B0", pile="left")


# -- DOS-12: the reminder after a counter ------------------------------------------------
@pytest.mark.parametrize("kind", ["counter", "play"])
def test_ruling_dos12_a_counter_down_to_two_says_dos(kind: str) -> None:
    """A counter Skip is a card played: left on two cards, the victim can be caught, and the
    referee says so as it does after any other play."""
    state = _ok(
        _table(size=3),
        "deal",
        hands=[["RD4", "G9", "Y1"], ["RSKIP", "B1", "B2"]],
        piles=["R7", "G2"],
    )
    state = _ok(state, "play", 0, card="RD4", pile="left")
    state = _ok(state, "play", 0, card="G9", pile="right")
    state, verdicts = _apply(state, kind, 1, card="RSKIP", pile="left")
    assert verdicts[0].outcome is Outcome.LEGAL and "counters" in verdicts[0].reason
    assert _said(verdicts, Outcome.INFO, "Bea is down to two cards: say DOS!")
    assert 1 in state.exposed
    state = _ok(state, "callout", 0, target=1)
    assert len(state.hands[1]) == 4
