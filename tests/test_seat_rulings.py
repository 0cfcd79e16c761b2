"""Seats and targets that an event carries but the rules did not use, or that are past the table.

A re-read of who deals (Deck Dash, Hit the Deck), who sets up (Wash Dash) and whom a Skip
You or a Block You hits when the event names nobody (a camera-only table names nobody).
"""

from __future__ import annotations

import pytest

from referee.deckdash.game import GAME as DECK_DASH
from referee.deckdash.state import Phase
from referee.dos.game import GAME as DOS
from referee.events import Event, EventError
from referee.frozen import evolve
from referee.hitthedeck.game import GAME as HIT_THE_DECK
from referee.hitthedeck.state import Phase as HtdPhase
from referee.verdicts import Outcome
from referee.washdash.game import GAME as WASH_DASH
from tests.test_deckdash_game import Table, deal_payload, of, quick_round
from tests.test_htd_game import _scripted_deal


# -- Deck Dash: Skip You and Block You with no target (DD-4, DD-10) ----------------------------
def test_ruling_dd4_skip_you_without_a_target_skips_the_next_player_who_is_not_blocked() -> None:
    """ "A Skip You card may not be played against a player with a Block You card in front of
    them." With no target (the camera cannot see whom) the Skip You goes to the next player
    who can be skipped, not to a blocked one (which the rules forbid)."""
    t = Table(4)
    t.deal({0: "BLOCK", 1: "SKIP"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)  # Cy has a Block You in front of them
    t.ok("draw", 1)
    verdicts = t.ok("discard", 1, card="SKIP")  # Bea's next player is Cy: blocked
    assert "Bea played Skip You: Dov loses a turn (Cy has a Block You in front of them)." in of(
        verdicts, Outcome.LEGAL
    )
    assert t.rnd.skips == (0, 0, 0, 1) and t.rnd.blocks == {2}
    assert t.rnd.turn == 2 and t.rnd.phase is Phase.BLOCKED
    t.ok("return_block", 2)
    assert t.rnd.turn == 0  # Dov's turn was the one lost


def test_ruling_dd4_a_named_blocked_target_is_still_refused() -> None:
    """A Skip You named at a blocked player is still refused: the player chose one."""
    t = Table(4)
    t.deal({0: "BLOCK", 1: "SKIP"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    t.ok("draw", 1)
    assert t.bad("discard", 1, card="SKIP", target=2) == (
        "Cy has a Block You card in front of them: a Skip You cannot be played against them."
    )


def test_ruling_dd4_skip_you_without_a_target_follows_the_direction_of_play() -> None:
    """Counterclockwise, the next player who is not blocked is looked for to the right."""
    t = Table(4)
    t.deal({0: "BLOCK SKIP", 1: "REV"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=3)  # Dov, to Ana's right, is blocked
    t.ok("draw", 1)
    t.ok("discard", 1, card="REV")  # counterclockwise: Ana is next
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP")  # to Ana's right: Dov (blocked), then Cy
    assert "Ana played Skip You: Cy loses a turn (Dov has a Block You in front of them)." in of(
        verdicts, Outcome.LEGAL
    )
    assert t.rnd.skips == (0, 0, 1, 0) and t.rnd.turn == 3 and t.rnd.phase is Phase.BLOCKED
    t.ok("return_block", 3)
    assert t.rnd.turn == 1  # Cy's turn was the one lost


def test_ruling_dd10_block_you_without_a_target_goes_to_the_next_player_not_blocked() -> None:
    """ "place it in front of the player you've chosen to block": DD-10 says another player
    without a Block You already in front of them. With no target the card goes in front of
    the next such player, instead of being refused at an already blocked one."""
    t = Table(4)
    t.deal({0: "BLOCK", 1: "BLOCK"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    t.ok("draw", 1)
    verdicts = t.ok("discard", 1, card="BLOCK")  # the next player, Cy, is blocked
    assert (
        "Bea put Block You in front of Dov: Dov's next turn is only to return it "
        "(Cy has a Block You in front of them)." in of(verdicts, Outcome.LEGAL)
    )
    assert t.rnd.blocks == {2, 3} and t.rnd.turn == 2 and t.rnd.phase is Phase.BLOCKED


def test_ruling_dd4_every_blocked_player_in_the_way_is_passed_over_and_named() -> None:
    t = Table(5)
    t.deal({4: "BLOCK", 0: "BLOCK", 1: "SKIP"}, dealer=4)
    for seat in (0, 1, 2, 3):
        t.pass_turn(seat)
    t.ok("draw", 4)
    t.ok("discard", 4, card="BLOCK", target=3)  # Eli blocks Dov
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)  # Ana blocks Cy
    t.ok("draw", 1)
    verdicts = t.ok("discard", 1, card="SKIP")  # Bea's next two players are blocked
    assert (
        "Bea played Skip You: Eli loses a turn (Cy and Dov have a Block You in front of them)."
        in of(verdicts, Outcome.LEGAL)
    )
    assert t.rnd.skips == (0, 0, 0, 0, 1)


# -- Deck Dash: the deal's seat is its dealer (DD-23) ------------------------------------------
def _deal_event(n: int, seat: int | None, **extra: object) -> Event:
    return Event("deal", seat, {**deal_payload(n, {}, "R12", ""), **extra})


@pytest.mark.parametrize("extra", [{}, {"dealer": 1}])
def test_ruling_dd23_a_deal_for_a_seat_past_the_table_is_malformed_at_any_moment(
    extra: dict[str, int],
) -> None:
    """A seat past the table is malformed input (nothing stored), as for every other seat:
    also while a Dash is being played, after the game, or when the deal names its dealer."""
    t = Table(3)
    with pytest.raises(EventError, match=r"seat 7 does not exist: seats are 0\.\.2"):
        DECK_DASH.apply(t.state, _deal_event(3, 7, **extra))
    t.deal(dealer=2)  # a Dash is being played
    with pytest.raises(EventError, match=r"seat 7 does not exist: seats are 0\.\.2"):
        DECK_DASH.apply(t.state, _deal_event(3, 7, **extra))
    t = Table(2, dash_count=1)
    quick_round(t, 0, dealer=1)
    assert t.state.finished
    with pytest.raises(EventError, match=r"seat 7 does not exist: seats are 0\.\.1"):
        DECK_DASH.apply(t.state, _deal_event(2, 7, **extra))


def test_ruling_dd23_a_dealer_past_the_table_is_malformed_at_any_moment() -> None:
    t = Table(3)
    t.deal(dealer=2)
    with pytest.raises(EventError, match=r"deal.dealer must be a seat 0\.\.2"):
        DECK_DASH.apply(t.state, _deal_event(3, None, dealer=5))


def test_ruling_dd23_a_deal_entered_for_another_seat_than_its_dealer_says_who_deals() -> None:
    """The deal's seat is its dealer; when it also names a `dealer`, that one deals (as stored
    games were judged) and the referee says so instead of dropping the seat silently."""
    t = Table(3)
    verdicts = t.ok("deal", 2, dealer=1, **deal_payload(3, {}, "R12", ""))
    assert t.rnd.dealer == 1 and t.rnd.turn == 2
    assert (
        "Bea deals, not Cy whose seat the deal was entered for: the deal names Bea as its "
        "dealer." in of(verdicts, Outcome.INFO)
    )
    t = Table(3)
    verdicts = t.ok("deal", 1, dealer=1, **deal_payload(3, {}, "R12", ""))
    assert t.rnd.dealer == 1 and not [r for r in of(verdicts, Outcome.INFO) if "seat" in r]
    t = Table(3)
    t.ok("deal", 2, **deal_payload(3, {}, "R12", ""))
    assert t.rnd.dealer == 2  # no `dealer`: the seat deals


# -- Hit the Deck: the deal's seat (HTD-27) -----------------------------------------------------
def _htd_deal(seat: int | None, **extra: object) -> Event:
    hands, draw = _scripted_deal(1)
    return Event("deal", seat, {"hands": hands, "draw": draw, **extra})


def test_ruling_htd27_a_deal_for_a_seat_past_the_table_is_malformed() -> None:
    """Every other Hit the Deck event refuses a seat past the table as malformed; so does
    the deal (before, its seat was dropped)."""
    state = HIT_THE_DECK.new_state(["A", "B", "C"], {})
    with pytest.raises(EventError, match=r"seat 5 is not at this table \(3 players\)"):
        HIT_THE_DECK.apply(state, _htd_deal(5))
    state, _ = HIT_THE_DECK.apply(state, _htd_deal(None))  # a round is being played
    with pytest.raises(EventError, match=r"seat 5 is not at this table \(3 players\)"):
        HIT_THE_DECK.apply(state, _htd_deal(5))


def test_ruling_htd27_a_deal_entered_for_another_seat_than_the_dealer_says_who_deals() -> None:
    """ "Choose a dealer." HTD-2: the deal names its dealer in `dealer` (else seat 0 deals the
    first round and the deal passes left). The seat it was entered for does not change the
    dealer, so stored games keep theirs, but a seat that is not the dealer is said."""
    state = HIT_THE_DECK.new_state(["A", "B", "C"], {})
    after, verdicts = HIT_THE_DECK.apply(state, _htd_deal(2))
    assert after.dealer == 0 and after.turn == 1
    assert (
        "A deals, not C whose seat the deal was entered for: the first-named player deals the "
        "first round unless the deal names its dealer (HTD-2)." in of(verdicts, Outcome.INFO)
    )
    after, verdicts = HIT_THE_DECK.apply(state, _htd_deal(2, dealer=1))
    assert after.dealer == 1 and after.turn == 2
    assert (
        "B deals, not C whose seat the deal was entered for: the deal names B as its dealer."
        in of(verdicts, Outcome.INFO)
    )
    for seat, extra in ((0, {}), (1, {"dealer": 1}), (None, {})):
        _, verdicts = HIT_THE_DECK.apply(state, _htd_deal(seat, **extra))
        assert of(verdicts, Outcome.INFO) == [], verdicts


def test_ruling_htd27_a_later_deal_entered_for_another_seat_keeps_the_rotation() -> None:
    state = HIT_THE_DECK.new_state(["A", "B"], {"strict_deck": False, "target_score": 500})
    state, _ = HIT_THE_DECK.apply(
        state, Event("deal", None, {"hands": [["R1"] * 7, ["R2"] * 7], "draw": ["R3"] * 20})
    )
    state = evolve(state, phase=HtdPhase.ROUND_OVER, dealer=1)  # round 1 is over: B deals
    after, verdicts = HIT_THE_DECK.apply(
        state, Event("deal", 0, {"hands": [["R1"] * 7, ["R2"] * 7], "draw": ["R3"] * 20})
    )
    assert after.dealer == 1
    assert (
        "B deals, not A whose seat the deal was entered for: the deal passes to the left "
        "each round unless it names its dealer (HTD-2)." in of(verdicts, Outcome.INFO)
    )


# -- Wash Dash: the setup's seat (WD-23) --------------------------------------------------------
def test_ruling_wd23_a_setup_for_a_seat_past_the_table_is_malformed() -> None:
    state = WASH_DASH.new_state(["P0", "P1", "P2"], {})
    with pytest.raises(EventError, match="seat 9 is not at this table"):
        WASH_DASH.apply(state, Event("setup", 9))
    state, _ = WASH_DASH.apply(state, Event("setup"))
    with pytest.raises(EventError, match="seat 9 is not at this table"):
        WASH_DASH.apply(state, Event("setup", 9))  # even once the game is set up


def test_ruling_wd23_a_setup_entered_for_another_seat_than_first_says_who_reveals() -> None:
    """ "The oldest player becomes the first active player." WD-13: the setup's `first`
    names them (seat 0 when left out). The seat the setup was entered for does not change
    that, so stored games keep their first player, but a seat that is not `first` is said."""
    state = WASH_DASH.new_state(["P0", "P1", "P2"], {})
    after, verdicts = WASH_DASH.apply(state, Event("setup", 2, {"first": 1}))
    assert after.first == 1
    assert (
        "P1 reveals first, not P2 whose seat the setup was entered for: the setup's 'first' "
        "names the oldest player (the first-named player when it is left out, WD-13)."
        in of(verdicts, Outcome.INFO)
    )
    after, verdicts = WASH_DASH.apply(state, Event("setup", 2))
    assert after.first == 0
    assert any("P0 reveals first, not P2" in r for r in of(verdicts, Outcome.INFO))
    for seat, payload in ((1, {"first": 1}), (0, {}), (None, {"first": 2})):
        _, verdicts = WASH_DASH.apply(state, Event("setup", seat, payload))
        assert of(verdicts, Outcome.INFO) == [], verdicts


# -- DOS: the deal's seat (DOS-24) ----------------------------------------------------------------
def _dos_deal(seat: int | None, **extra: object) -> Event:
    return Event("deal", seat, {"hands": [7, 7, 7], "piles": ["R7", "G2"], **extra})


@pytest.mark.parametrize("extra", [{}, {"dealer": 1}])
def test_ruling_dos24_a_deal_for_a_seat_past_the_table_is_malformed_at_any_moment(
    extra: dict[str, int],
) -> None:
    """Before: while the cards were dealt the deal was stored as an illegal play ("The cards
    are already dealt."), and with a `dealer` the seat was dropped."""
    state = DOS.new_state(["Ann", "Bea", "Cal"], {"hand_size": 7})
    with pytest.raises(EventError, match=r"seat 5 does not exist: seats are 0\.\.2"):
        DOS.apply(state, _dos_deal(5, **extra))
    state, verdicts = DOS.apply(state, _dos_deal(0))
    assert verdicts[0].outcome is Outcome.LEGAL
    with pytest.raises(EventError, match=r"seat 5 does not exist: seats are 0\.\.2"):
        DOS.apply(state, _dos_deal(5, **extra))
    with pytest.raises(EventError, match=r"'dealer' must be a seat 0\.\.2, got 9"):
        DOS.apply(state, _dos_deal(None, dealer=9))


def test_ruling_dos24_a_deal_entered_for_another_seat_than_its_dealer_says_who_deals() -> None:
    state = DOS.new_state(["Ann", "Bea", "Cal"], {"hand_size": 7})
    new, verdicts = DOS.apply(state, _dos_deal(2, dealer=1))
    assert new.dealer == 1 and new.turn == 2
    assert [v.outcome for v in verdicts][:2] == [Outcome.LEGAL, Outcome.INFO]
    assert verdicts[1].reason == (
        "Bea deals, not Cal whose seat the deal was entered for: the deal names Bea as its dealer."
    )
    new, verdicts = DOS.apply(state, _dos_deal(1, dealer=1))
    assert new.dealer == 1 and [v.outcome for v in verdicts] == [Outcome.LEGAL]
    new, _ = DOS.apply(state, _dos_deal(2))
    assert new.dealer == 2  # no `dealer`: the seat deals
