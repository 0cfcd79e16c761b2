"""Hit the Deck: what the referee can prove although it cannot see every card.

Face-up cards against the deck (HTD-1), early slaps whatever order their events arrive in
(HTD-14, HTD-15), the forgotten yell of a player who went out (HTD-18, HTD-20), a hand's
points against its known cards and the hand size against the deck (HTD-24), and race
verdicts that name the players (HTD-13).
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.events import Event
from referee.game import GameError
from referee.hitthedeck.cards import parse_card
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState, Phase
from referee.verdicts import Outcome, Verdict

S = 1_000_000_000
MS = 1_000_000


class Table:
    """A game driven event by event; ``last`` holds the verdicts of the latest event."""

    def __init__(self, players: list[str], **options: Any) -> None:
        self.state: HtdState = GAME.new_state(players, options)
        self.last: list[Verdict] = []

    def __call__(
        self, kind: str, seat: int | None = None, t_ns: int | None = None, **payload: Any
    ) -> list[Verdict]:
        self.state, self.last = GAME.apply(self.state, Event(kind, seat, payload, t_ns))
        return self.last

    def ok(
        self, kind: str, seat: int | None = None, t_ns: int | None = None, **payload: Any
    ) -> list[Verdict]:
        verdicts = self(kind, seat, t_ns, **payload)
        assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), verdicts
        return verdicts

    def refused(
        self, kind: str, seat: int | None = None, t_ns: int | None = None, **payload: Any
    ) -> str:
        """The event is illegal and changes nothing; returns its reason."""
        before = self.state
        verdicts = self(kind, seat, t_ns, **payload)
        assert [v.outcome for v in verdicts] == [Outcome.ILLEGAL], verdicts
        assert self.state is before
        return verdicts[0].reason

    def sizes(self) -> list[int]:
        return [len(h) for h in self.state.hands]


def _table_mode(players: list[str], **options: Any) -> Table:
    """A real table: the deal gives counts, the draw pile is unseen, red 1 is turned up."""
    t = Table(players, **options)
    t.ok("deal", hands=[t.state.option("hand_size")] * len(players))
    t.ok("turn_up", card="R1")
    return t


# -- HTD-1: face-up cards must be in the deck -----------------------------------------------
def test_ruling_htd1_table_mode_refuses_a_card_not_in_the_deck() -> None:
    t = _table_mode(["Ann", "Bob", "Cy"])
    assert t.refused("play", 1, card="R7") == (
        "There is no red 7 in this deck (numbers 1–5; deck.json, HTD-1)."
    )
    assert t.refused("play", 1, card="HIT9") == (
        "There is no Hit the Deck with a 9 in this deck (numbers 1–5; deck.json, HTD-1)."
    )
    assert "There is no red 6" in t.refused("draw", 1, card="R6")
    t.ok("play", 1, card="R2")
    fresh = Table(["Ann", "Bob"])
    fresh.ok("deal", hands=[7, 7])
    assert "There is no yellow 9" in fresh.refused("turn_up", card="Y9")


def test_ruling_htd1_table_mode_refuses_a_copy_too_many() -> None:
    t = _table_mode(["Ann", "Bob", "Cat"])  # red 1 turned up: the first of the deck's four
    for seat in (1, 2, 0):
        t.ok("play", seat, card="R1")
    reason = t.refused("play", 1, card="R1")
    assert reason.startswith("The deck has only 4 red 1 cards (deck.json, HTD-1), but this makes 5")
    assert sum(str(c) == "R1" for c in t.state.discard) == 4


def test_ruling_htd1_known_copies_follow_flips_and_reshuffles() -> None:
    """A flip keeps the seen cards seen (now in the draw pile); a reshuffle that names no
    order makes them unseen again, so a card that went round the pile is not refused."""
    t = _table_mode(["Ann", "Bob"])  # Bob plays first
    t.ok("play", 1, card="RFLIP")
    t.ok("flip", 0, card="R2")  # the new draw pile is the old discard: R1, RFLIP
    for seat in (1, 0, 1):
        t.ok("play", seat, card="R1")
    assert "only 4 red 1 cards" in t.refused("play", 0, card="R1")  # 4th: in the draw pile
    t.ok("draw", 0)  # the referee knows it is that red 1
    t.ok("play", 0, card="R1")
    t.ok("draw", 1)  # red Flip the Deck: the draw pile has run out
    t.ok("shuffle")  # no order named: the three red 1s under the top are unseen again
    t.ok("pass", 1)
    t.ok("play", 0, card="R1")


def test_ruling_htd1_a_hand_shown_at_the_end_is_checked_against_the_deck() -> None:
    t = _table_mode(["Ann", "Bob"], hand_size=2)
    for seat in (1, 0, 1):
        t.ok("play", seat, card="R1")  # all four red 1s are on the pile; Bob is out
    assert t.state.phase is Phase.SCORING
    assert "There is no red 7" in t.refused("hand", 0, cards=["R7"])
    assert "only 4 red 1 cards" in t.refused("hand", 0, cards=["R1"])
    t.ok("hand", 0, cards=["HAND"])
    assert t.state.rounds == ((10, 0),)


def test_ruling_htd1_strict_deck_off_skips_the_deck_checks() -> None:
    t = _table_mode(["Ann", "Bob", "Cat"], strict_deck=False)
    for seat in (1, 2, 0, 1):
        t.ok("play", seat, card="R1")  # a fifth red 1: an odd box may have it
    t.ok("play", 2, card="R7")


# -- HTD-15 / HTD-14: slaps are judged by their times, not by their arrival ------------------
def _hand_card_race(early_first: bool, lockout_ms: int = 0) -> Table:
    """Ann plays a Hand card at 10 s; Cat slapped at 9.9 s (too early)."""
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=3, early_lockout_ms=lockout_ms)
    draw = ["R2", "R1", "R3", "R4", "B5", "G5", "G1", "G2", "Y5", "B3"]
    hands = [["HAND", "Y2", "Y3"], ["B1", "B2", "R5"], ["G3", "G4", "Y4"]]
    t.ok("deal", hands=hands, draw=draw, dealer=2)
    t.ok("turn_up")
    if early_first:
        t.ok("slap", 2, t_ns=99 * S // 10)
    t.ok("play", 0, t_ns=10 * S, card="HAND")
    if not early_first:
        t.ok("slap", 2, t_ns=99 * S // 10)  # the camera saw it late
    return t


@pytest.mark.parametrize("early_first", [True, False])
def test_ruling_htd15_an_early_slap_is_a_fake_out_whenever_it_arrives(early_first: bool) -> None:
    t = _hand_card_race(early_first)
    assert t.state.owed == (0, 0, 0) and t.sizes() == [2, 3, 5]  # Cat drew 2 for the fake-out
    t.ok("slap", 0, t_ns=10 * S + 100 * MS)
    t.ok("slap", 1, t_ns=10 * S + 200 * MS)
    t.ok("slap", 2, t_ns=10 * S + 300 * MS)
    assert t.sizes() == [2, 3, 9]  # and 4 for slapping last: 2 + 4, in either order


@pytest.mark.parametrize("early_first", [True, False])
def test_ruling_htd15_an_early_slap_does_not_count_in_the_race(early_first: bool) -> None:
    t = _hand_card_race(early_first)
    t.ok("slap", 0, t_ns=10 * S + 100 * MS)
    t.ok("slap", 1, t_ns=10 * S + 200 * MS)
    t.ok("race_close")
    race = next(v for v in t.last if "race" in v.data)
    assert race.data["race"]["evidence"][2]["status"] == "missed"
    assert t.sizes() == [2, 3, 9]


def test_ruling_htd15_one_fake_out_per_seat_for_the_slaps_before_a_card() -> None:
    """A pad's early slap seen before the card and the camera's echo seen after it (or a
    second early slap) cost 2 cards once; the echo may even come after the race."""
    t = _hand_card_race(early_first=True)
    t.ok("slap", 2, t_ns=99 * S // 10)  # the camera's echo of the same early slap
    assert "already counted as a fake-out" in t.last[0].reason
    for seat, ms in ((0, 100), (1, 200), (2, 300)):
        t.ok("slap", seat, t_ns=10 * S + ms * MS)
    t.ok("slap", 2, t_ns=99 * S // 10 + 1)  # after the race was judged
    assert t.sizes() == [2, 3, 9]
    t.ok("slap", 1, t_ns=99 * S // 10)  # Bob's early slap, seen only now: his first
    assert t.last[0].data["penalty"] == "fake_out" and t.sizes() == [2, 5, 9]


def test_ruling_htd15_early_lockout_whenever_the_slap_arrives() -> None:
    """With the lockout on, the early slap locks Cat out (counts as last), no fake-out."""
    for early_first in (True, False):
        t = _hand_card_race(early_first, lockout_ms=500)
        t.ok("slap", 0, t_ns=10 * S + 100 * MS)
        t.ok("slap", 1, t_ns=10 * S + 200 * MS)
        t.ok("slap", 2, t_ns=10 * S + 300 * MS)
        assert t.sizes() == [2, 3, 7], early_first


def test_ruling_htd14_the_earliest_slap_stands_in_for_an_untimed_card() -> None:
    """A Hand card with no time: the first slap *by time* stands in for it, whichever
    event arrives first; no early slap and no fake-out can be proved."""
    for order in ((1, 0, 2), (0, 1, 2)):
        t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=3)
        hands = [["HAND", "Y2", "Y3"], ["B1", "B2", "R5"], ["G3", "G4", "Y4"]]
        t.ok("deal", hands=hands, draw=["R2", "R1", "R3", "R4", "B5", "G5"], dealer=2)
        t.ok("turn_up")
        t.ok("play", 0, card="HAND")
        times = {0: 5 * S, 1: 5 * S + 100 * MS, 2: 5 * S + 400 * MS}
        for seat in order:
            t.ok("slap", seat, t_ns=times[seat])
        race = next(v for v in t.last if "race" in v.data).data["race"]
        assert race["trigger_ns"] == 5 * S and race["seats"] == [2], order
        assert t.sizes() == [2, 3, 7]


# -- HTD-18 / HTD-20: a forgotten yell reported after its player went out ---------------------
def _goes_out_on_a_hand_card(target_score: int = 100, **deal: Any) -> Table:
    """Bob's last card is a Hand card; he wins the race and the round ends."""
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=1, target_score=target_score)
    t.ok("deal", hands=[["B4"], ["HAND"], ["G3"]], dealer=0, **deal)
    t.ok("turn_up")
    t.ok("play", 1, t_ns=10 * S, card="HAND")
    for seat, ms in ((1, 100), (0, 200), (2, 300)):
        t.ok("slap", seat, t_ns=10 * S + ms * MS)
    return t


DRAW = ["R2", "R1", "R3", "R4", "B5", "G5", "G1", "G2", "Y5", "B3", "Y1"]


def test_ruling_htd18_ruling_htd20_forgot_yell_after_going_out_resumes_the_round() -> None:
    t = _goes_out_on_a_hand_card(draw=DRAW)
    assert t.state.phase is Phase.ROUND_OVER and t.state.rounds == ((4, 0, 16),)
    t.ok("forgot_yell")
    assert t.last[0].data == {"penalty": "no_yell", "draw": 4} and t.last[0].seat == 1
    assert "the round is not over after all" in t.last[1].reason
    assert t.state.phase is Phase.PLAY and t.state.rounds == () and t.state.totals == (0, 0, 0)
    assert t.sizes() == [1, 4, 5] and t.state.turn == 2  # Bob drew 4; Cat plays on
    t.ok("play", 2, card="G3")
    assert "No Hit the Deck with a Hand card" in t.refused("forgot_yell")


def test_ruling_htd18_forgot_yell_after_going_out_is_too_late_after_the_next_action() -> None:
    t = _goes_out_on_a_hand_card(draw=DRAW)
    t.ok("deal", hands=[["B4"], ["HAND"], ["G3"]], draw=DRAW)
    assert "No Hit the Deck with a Hand card" in t.refused("forgot_yell")
    assert "only they had to yell" in _goes_out_on_a_hand_card(draw=DRAW).refused("forgot_yell", 0)


def test_ruling_htd18_ruling_htd21_a_game_ended_by_going_out_resumes_too() -> None:
    """The game is not over when the round that ended it turns out not to have ended."""
    t = _goes_out_on_a_hand_card(target_score=10, draw=DRAW)
    assert t.state.phase is Phase.GAME_OVER
    t.ok("forgot_yell", 1)
    assert "the game is not over after all" in t.last[1].reason
    assert t.state.phase is Phase.PLAY and t.state.winners == ()


def test_ruling_htd18_table_mode_a_hand_entered_ends_the_report_window() -> None:
    t = Table(["Ann", "Bob", "Cat"], hand_size=1)
    t.ok("deal", hands=[1, 1, 1])
    t.ok("turn_up", card="R2")
    t.ok("play", 1, t_ns=10 * S, card="HAND")
    for seat, ms in ((1, 100), (0, 200), (2, 300)):
        t.ok("slap", seat, t_ns=10 * S + ms * MS)
    assert t.state.phase is Phase.SCORING
    t.ok("race_close")  # the pads' window timer, late: harmless
    assert t.last[0].reason == "The slap race was already judged."
    t.ok("hand", 0, points=4)
    assert "No Hit the Deck with a Hand card" in t.refused("forgot_yell")


# -- HTD-24: a hand given by its points ---------------------------------------------------
def _bob_holds_a_hand_card_and_one_unseen(**options: Any) -> Table:
    t = _table_mode(["Ann", "Bob"], hand_size=1, **options)
    t.ok("draw", 1, card="HAND")  # the tablet names Bob's draw
    t.ok("pass", 1)
    t.ok("play", 0, card="R3")  # Ann is out
    assert t.state.phase is Phase.SCORING
    return t


def test_ruling_htd24_hand_points_below_the_known_cards_are_refused() -> None:
    t = _bob_holds_a_hand_card_and_one_unseen()
    reason = t.refused("hand", 1, points=0)
    assert reason == (
        "Bob can't have 0 points: Bob holds Hit the Deck with a Hand (10) and 1 card the "
        "referee has not seen, so the hand is worth 11–15 or 20 (HTD-24)."
    )
    assert "11–15 or 20" in t.refused("hand", 1, points=17)  # no 6–9 in this deck
    assert "11–15 or 20" in t.refused("hand", 1, points=21)
    t.ok("hand", 1, points=20)
    assert t.state.rounds == ((0, 20),)


def test_ruling_htd24_hand_points_with_any_cards_when_the_deck_is_not_strict() -> None:
    t = _bob_holds_a_hand_card_and_one_unseen(strict_deck=False)
    assert "worth 11–20" in t.refused("hand", 1, points=0)
    t.ok("hand", 1, points=17)


def test_ruling_htd24_possible_totals_follow_the_cards_left() -> None:
    from referee.hitthedeck.known import possible_totals  # the module the fix added

    assert possible_totals(0, None) == {0}
    assert possible_totals(2, None) == set(range(2, 21))
    pool = {parse_card("R1"): 1, parse_card("HAND"): 1}
    assert possible_totals(1, pool) == {1, 10}
    assert possible_totals(2, pool) == {11}
    assert possible_totals(3, pool) == set()


def test_ruling_htd24_hand_size_must_fit_the_deck() -> None:
    with pytest.raises(GameError, match="3 hands of 60 and a card to turn up do not fit"):
        GAME.new_state(["A", "B", "C"], {"hand_size": 60})
    with pytest.raises(GameError, match="at most 36 cards each"):
        GAME.new_state(["A", "B", "C"], {"hand_size": 37})
    t = Table(["A", "B", "C"], hand_size=36)
    t.ok("deal", hands=[36, 36, 36])
    t.ok("turn_up", card="G4")
    GAME.new_state(["A", "B", "C"], {"hand_size": 60, "strict_deck": False})  # an odd box


# -- HTD-13: the race verdict names the players --------------------------------------------
def test_ruling_htd13_race_verdicts_name_the_players() -> None:
    t = _hand_card_race(early_first=True)
    t.ok("slap", 1, t_ns=10 * S + 100 * MS)
    t.ok("slap", 0, t_ns=10 * S + 200 * MS)
    t.ok("slap", 2, t_ns=10 * S + 300 * MS)
    reasons = [v.reason for v in t.last]
    assert "Cat slapped last, 300 ms after the card — 100 ms after Ann." in reasons
    assert not any("seat" in r.lower() for r in reasons)
