"""Deck Dash rules, one scenario per rule (rulings are in test_deckdash_rulings.py).

Scenarios are scripted: the deal names every card (``deal_payload`` pads hands and the
draw pile from the rest of the 128-card deck in a fixed, arbitrary order), and every
event goes through ``GAME.apply`` exactly as a camera or tablet event would.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from referee.cards import format_cards, full_deck, parse_cards
from referee.deckdash.check import check_dash
from referee.deckdash.game import EVENT_KINDS, GAME, HANDLERS
from referee.deckdash.state import COUNTERCLOCKWISE, DeckDashState, Phase, Round, RoundEnd
from referee.events import Event, EventError
from referee.verdicts import Outcome, Verdict

NAMES = ["Ana", "Bea", "Cy", "Dov", "Eli"]
FILLER_ORDER = [f"{c}{n}" for n in (1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12) for c in "RYGB"]
# Three pairs (Easy Dash 1) plus six cards that hand off onto them: a one-turn finish.
WIN_HAND = "R1 Y1 R2 Y2 R3 Y3 G1 G2 G3 B1 B2 B3"


class Table:
    """A scripted game: send events, read verdicts, check the state."""

    def __init__(self, players: int = 3, **options: Any) -> None:
        self.state: DeckDashState = GAME.new_state(NAMES[:players], options)
        self.n = players

    def send(self, kind: str, seat: int | None = None, **payload: Any) -> list[Verdict]:
        self.state, verdicts = GAME.apply(self.state, Event(kind, seat, payload))
        return verdicts

    def ok(self, kind: str, seat: int | None = None, **payload: Any) -> list[Verdict]:
        verdicts = self.send(kind, seat, **payload)
        bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
        assert not bad, bad
        return verdicts

    def bad(self, kind: str, seat: int | None = None, **payload: Any) -> str:
        """Send an event that must be refused: one illegal verdict, state unchanged."""
        before = self.state
        verdicts = self.send(kind, seat, **payload)
        assert [v.outcome for v in verdicts] == [Outcome.ILLEGAL], verdicts
        assert self.state == before
        return verdicts[0].reason

    @property
    def rnd(self) -> Round:
        assert self.state.round is not None
        return self.state.round

    def hand(self, seat: int) -> list[str]:
        return format_cards(self.rnd.hands[seat].known)

    def group(self, number: int) -> int:
        """Index of the laid group of ``number``s."""
        return next(i for i, g in enumerate(self.rnd.table) if g.group.number == number)

    def deal(
        self,
        hands: dict[int, str] | None = None,
        start: str = "R12",
        top: str = "",
        dealer: int | None = None,
        active: tuple[int, ...] | None = None,
    ) -> list[Verdict]:
        payload = deal_payload(self.n, hands or {}, start, top, active)
        if dealer is not None:
            payload["dealer"] = dealer
        return self.ok("deal", **payload)

    def pass_turn(self, seat: int) -> None:
        """Draw from the draw pile and discard the card drawn."""
        self.ok("draw", seat)
        self.ok("discard", seat, card=self.hand(seat)[-1])

    def win_now(self, seat: int) -> list[Verdict]:
        """``seat`` holds WIN_HAND: draw, lay three pairs, hand off six, discard the draw."""
        self.ok("draw", seat)
        drawn = self.hand(seat)[-1]
        self.ok("lay", seat, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
        for card in ["G1", "G2", "G3", "B1", "B2", "B3"]:
            self.ok("handoff", seat, card=card, group=self.group(int(card[1:])))
        return self.ok("discard", seat, card=drawn)


def deal_payload(
    n: int, hands: dict[int, str], start: str, top: str, active: tuple[int, ...] | None = None
) -> dict[str, Any]:
    rest = Counter(format_cards(full_deck()))
    for tok in [t for h in hands.values() for t in h.split()] + [start, *top.split()]:
        assert rest[tok] > 0, f"no more {tok} in the deck"
        rest[tok] -= 1
    filler = [t for t in FILLER_ORDER for _ in range(rest[t])]
    filler += sorted(t for t in rest.elements() if t not in FILLER_ORDER)
    out: list[list[str]] = []
    for seat in range(n):
        playing = active is None or seat in active
        hand = hands.get(seat, "").split() if playing else []
        while playing and len(hand) < 12:
            hand.append(filler.pop(0))
        out.append(hand)
    return {"hands": out, "start": start, "draw_pile": top.split() + filler}


def quick_round(t: Table, winner: int, dealer: int | None = None) -> list[Verdict]:
    """A round of Easy Dash 1 that ``winner`` finishes on their first turn."""
    t.deal({winner: WIN_HAND}, dealer=dealer)
    while t.rnd.turn != winner:
        t.pass_turn(t.rnd.turn)
    return t.win_now(winner)


def table_mode_dash_won() -> Table:
    """Table mode, two players: Ana lays Dash 1 and goes out on her first turn (hands given
    as counts), so the Dash is over and ``tally`` is due."""
    t = Table(2, dash_count=2)
    t.ok("deal", dealer=1, hands=[12, 12], start="G5")
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    for card in ["G1", "G2", "G3", "B1", "B2", "B3"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    t.ok("discard", 0, card="G7")
    return t


def of(verdicts: list[Verdict], outcome: Outcome) -> list[str]:
    return [v.reason for v in verdicts if v.outcome is outcome]


# -- setup and the deal ----------------------------------------------------------------------
def test_deal_gives_twelve_each_and_the_left_of_the_dealer_starts() -> None:
    t = Table(3)
    verdicts = t.deal(dealer=1)
    assert [len(h) for h in t.rnd.hands] == [12, 12, 12]
    assert len(t.rnd.draw_pile) == 128 - 36 - 1
    assert format_cards(t.rnd.discard) == ["R12"]
    assert t.rnd.turn == 2 and t.rnd.phase is Phase.DRAW and t.rnd.dash == 1
    assert "Cy's turn: draw a card." in of(verdicts, Outcome.INFO)


def test_deal_must_give_twelve_cards_to_everyone() -> None:
    t = Table(2)
    payload = deal_payload(2, {}, "R12", "")
    payload["draw_pile"].append(payload["hands"][0].pop())
    assert t.bad("deal", **payload) == "Ana must be dealt 12 cards, not 11."


def test_next_deal_is_by_the_player_left_of_the_dealer() -> None:
    t = Table(2, dash_count=2)
    quick_round(t, 0, dealer=1)
    assert t.state.round is None and t.state.last_dealer == 1
    payload = deal_payload(2, {}, "R12", "")
    assert t.bad("deal", dealer=1, **payload) == (
        "It's Ana's turn to deal (the player to the left of the last dealer)."
    )
    t.ok("deal", dealer=0, **payload)
    assert t.rnd.dash == 2 and t.rnd.turn == 1


def test_table_mode_deal_gives_counts_and_plays_name_cards() -> None:
    t = Table(2)
    t.ok("deal", dealer=0, hands=[12, 12], start="B5")
    assert not t.rnd.scripted and len(t.rnd.draw_pile) == 128 - 24 - 1
    t.ok("draw", 1)  # the camera did not see which card
    assert len(t.rnd.hands[1]) == 13 and t.rnd.hands[1].unknown == 13
    t.ok("discard", 1, card="G3")
    assert format_cards(t.rnd.discard) == ["B5", "G3"] and len(t.rnd.hands[1]) == 12


@pytest.mark.parametrize("count", [129, 10**9, 2**70])
def test_table_mode_counts_beyond_the_deck_are_malformed(count: int) -> None:
    """Hand, draw-pile and tally counts stay within the 128-card deck: a 2**70-card hidden
    pile would raise OverflowError when counted, and a score of 10**9 is a typo."""
    fresh = Table(2, dash_count=2)
    for payload in ({"hands": [12, count]}, {"hands": [12, 12], "draw_pile": count}):
        with pytest.raises(EventError, match="a count of 0 to 128 cards"):
            GAME.apply(fresh.state, Event("deal", None, {"dealer": 0, "start": "B5", **payload}))
    t = table_mode_dash_won()
    with pytest.raises(EventError, match=r"tally.hands\[1\]: a count of 0 to 128 cards"):
        GAME.apply(t.state, Event("tally", None, {"hands": [0, count]}))


# -- step 1: draw -------------------------------------------------------------------------
def test_draw_comes_first_and_only_once() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, dealer=1)
    assert t.bad("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"]) == (
        "Draw a card first (step 1 of your turn)."
    )
    assert t.bad("discard", 0, card="G1") == "Draw a card first (step 1 of your turn)."
    t.ok("draw", 0)
    assert t.bad("draw", 0) == "You have already drawn this turn."


def test_only_the_player_whose_turn_it_is_may_play() -> None:
    t = Table(2)
    t.deal(dealer=1)
    assert t.bad("draw", 1) == "It's Ana's turn, not Bea's."


def test_draw_from_the_discard_pile_takes_its_top_card() -> None:
    t = Table(2)
    t.deal(start="G9", dealer=1)
    t.ok("draw", 0, **{"from": "discard", "card": "G9"})
    assert t.hand(0)[-1] == "G9" and t.rnd.discard == ()


def test_draw_names_the_top_card_in_scripted_games() -> None:
    t = Table(2)
    t.deal(top="B7", dealer=1)
    assert t.bad("draw", 0, card="B8") == "The top card of the draw pile is blue 7, not blue 8."
    t.ok("draw", 0, card="B7")


@pytest.mark.parametrize(
    ("card", "name"),
    [
        ("REV", "Reverse"),
        ("STEAL", "Deck Steal"),
        ("SKIP", "Skip You"),
        ("SKIP2", "Skip 2 Players"),
    ],
)
def test_discarded_special_cards_cannot_be_drawn(card: str, name: str) -> None:
    t = Table(3)
    t.deal({0: card}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card=card)
    seat = t.rnd.turn
    assert t.bad("draw", seat, **{"from": "discard"}) == (
        f"A {name} card can never be picked up from the discard pile. Draw from the draw pile."
    )


# -- step 2: lay down a Dash ----------------------------------------------------------------
def test_lay_down_a_valid_dash() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, dealer=1)
    t.ok("draw", 0)
    verdicts = t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    assert of(verdicts, Outcome.LEGAL)[0].startswith("Ana laid Dash 1: pair of 1s")
    assert len(t.rnd.table) == 3 and t.rnd.laid == {0}
    assert len(t.rnd.hands[0]) == 13 - 6


def test_lay_down_must_be_exactly_the_dash() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, dealer=1)
    t.ok("draw", 0)
    cards = ["R1", "Y1", "R2", "Y2", "R3", "G1"]
    expected = check_dash("easy", 1, parse_cards(cards))
    assert not expected.valid
    assert t.bad("lay", 0, cards=cards) == expected.reason


def test_only_one_dash_per_round() -> None:
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3 G4 B4 G5 B5 G6 B6"}, dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    assert t.bad("lay", 0, cards=["G4", "B4", "G5", "B5", "G6", "B6"]) == (
        "You have already laid your Dash this round: one Dash per round."
    )


def test_the_whole_dash_must_come_from_the_hand() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, dealer=1)
    t.ok("draw", 0)
    assert t.bad("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "R3"]) == (
        "You don't have red 3 in your hand."
    )


def test_special_cards_never_count_in_a_dash() -> None:
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 REV"}, dealer=1)
    t.ok("draw", 0)
    assert t.bad("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "REV"]) == (
        "A Reverse card can never be used in a Dash."
    )


# -- step 3: hand off -----------------------------------------------------------------------
def laid_table() -> Table:
    """Ana laid pairs of 1, 2, 3 and discarded; it is Bea's turn, Bea holds 4-5-6 pairs."""
    t = Table(2)
    t.deal({0: WIN_HAND, 1: "R4 Y4 R5 Y5 R6 Y6 R1 G9 W"}, top="G7 B7", dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    t.ok("discard", 0, card="G7")
    return t


def test_handoff_needs_your_own_dash_down_first() -> None:
    t = laid_table()
    t.ok("draw", 1)
    assert t.bad("handoff", 1, card="R1", group=t.group(1)) == (
        "Lay down your own Dash before handing off cards."
    )


def test_handoff_onto_another_players_dash() -> None:
    t = laid_table()
    t.ok("draw", 1)
    t.ok("lay", 1, cards=["R4", "Y4", "R5", "Y5", "R6", "Y6"])
    verdicts = t.ok("handoff", 1, card="R1", group=t.group(1))
    assert of(verdicts, Outcome.LEGAL) == ["Bea handed off red 1 onto Ana's set of 1s."]
    assert format_cards(t.rnd.table[t.group(1)].group.cards) == ["R1", "Y1", "R1"]


def test_handoff_must_fit_the_group() -> None:
    t = laid_table()
    t.ok("draw", 1)
    t.ok("lay", 1, cards=["R4", "Y4", "R5", "Y5", "R6", "Y6"])
    assert t.bad("handoff", 1, card="G9", group=t.group(2)) == (
        "Green 9 does not fit on Ana's pair of 2s."
    )


def test_handoff_only_during_your_own_turn() -> None:
    t = laid_table()
    assert t.bad("handoff", 0, card="G1", group=t.group(1)) == "It's Bea's turn, not Ana's."


def test_a_wild_handed_off_stays_in_the_dash() -> None:
    t = laid_table()
    t.ok("draw", 1)
    t.ok("lay", 1, cards=["R4", "Y4", "R5", "Y5", "R6", "Y6"])
    t.ok("handoff", 1, card="W", group=t.group(3))
    assert "W" in format_cards(t.rnd.table[t.group(3)].group.cards)
    assert t.bad("handoff", 1, card="W", group=t.group(4)) == "You don't have a Wild in your hand."


# -- step 4: discard ------------------------------------------------------------------------
def test_discard_ends_the_turn_and_play_goes_clockwise() -> None:
    t = Table(3)
    t.deal(dealer=0)
    assert t.rnd.turn == 1
    t.pass_turn(1)
    assert t.rnd.turn == 2 and t.rnd.phase is Phase.DRAW
    t.pass_turn(2)
    assert t.rnd.turn == 0


# -- special cards ----------------------------------------------------------------------------
def test_reverse_changes_direction_and_counts_as_the_discard() -> None:
    t = Table(3)
    t.deal({0: "REV"}, dealer=2)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="REV")
    assert "Ana played Reverse: play now goes counterclockwise." in of(verdicts, Outcome.LEGAL)
    assert t.rnd.direction == COUNTERCLOCKWISE and t.rnd.turn == 2
    t.pass_turn(2)
    assert t.rnd.turn == 1


def test_reverse_only_on_your_turn() -> None:
    t = Table(3)
    t.deal({1: "REV"}, dealer=2)
    assert t.bad("discard", 1, card="REV") == "It's Ana's turn, not Bea's."


def test_a_used_keep_two_cannot_be_picked_up() -> None:
    t = Table(2)
    t.deal({0: "KEEP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    t.ok("draw", 0)
    t.ok("draw", 0)
    assert t.rnd.turn == 1 and format_cards(t.rnd.discard)[-1] == "KEEP2"
    assert t.bad("draw", 1, **{"from": "discard"}) == (
        "A Keep Two card can never be picked up from the discard pile. Draw from the draw pile."
    )


def test_a_used_draw_two_cannot_be_stolen() -> None:
    t = Table(2)
    t.deal({0: "D2D1", 1: "STEAL"}, dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="D2D1")
    t.ok("draw", 0)
    t.ok("draw", 0)
    assert format_cards(t.rnd.discard)[-1] == "D2D1"
    assert t.bad("steal", 1) == (
        "Deck Steal cannot take a Draw 2 Discard 1 card from the discard pile."
    )


def test_deck_steal_any_time_even_out_of_turn_without_a_discard() -> None:
    t = Table(3)
    t.deal({2: "STEAL"}, start="G9", dealer=2)
    assert t.rnd.turn == 0
    t.ok("steal", 2, card="G9")
    assert "G9" in t.hand(2) and "STEAL" not in t.hand(2) and len(t.rnd.hands[2]) == 12
    assert format_cards(t.rnd.discard) == ["STEAL"]
    assert t.rnd.turn == 0 and t.rnd.phase is Phase.DRAW


def test_deck_steal_cannot_take_a_special_card() -> None:
    t = Table(3)
    t.deal({0: "REV", 1: "STEAL"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="REV")
    assert t.bad("steal", 1) == "Deck Steal cannot take a Reverse card from the discard pile."


def test_keep_two_draws_two_counts_as_the_discard_and_ends_the_turn() -> None:
    t = Table(2)
    t.deal({0: "KEEP2"}, start="G9", dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    assert t.rnd.phase is Phase.ACTION_DRAW and t.rnd.owed == 2
    t.ok("draw", 0, **{"from": "discard", "card": "G9"})
    t.ok("draw", 0)
    assert len(t.rnd.hands[0]) == 14  # two extra cards, as the rules' example says
    assert format_cards(t.rnd.discard) == ["KEEP2"] and t.rnd.turn == 1


def test_draw_two_discard_one_still_needs_the_turns_discard() -> None:
    t = Table(2)
    t.deal({0: "D2D1 G5"}, dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="D2D1")
    t.ok("draw", 0)
    t.ok("draw", 0)
    assert t.rnd.phase is Phase.ACTION_DISCARD and format_cards(t.rnd.discard)[-1] == "D2D1"
    assert t.bad("lay", 0, cards=["G5"]) == "Discard 1 more card for Draw 2 Discard 1 first."
    t.ok("discard", 0, card="G5")
    assert t.rnd.turn == 0 and t.rnd.phase is Phase.PLAY
    t.ok("discard", 0, card=t.hand(0)[-1])
    assert t.rnd.turn == 1 and len(t.rnd.hands[0]) == 12


def test_draw_four_discard_three() -> None:
    t = Table(2)
    t.deal({0: "D4D3 G5 G6 G7"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="D4D3")  # discarding it plays it
    for _ in range(4):
        t.ok("draw", 0)
    for card in ("G5", "G6", "G7"):
        assert t.rnd.turn == 0
        t.ok("discard", 0, card=card)
    assert t.rnd.phase is Phase.PLAY and t.rnd.turn == 0
    t.ok("discard", 0, card=t.hand(0)[-1])
    assert t.rnd.turn == 1 and len(t.rnd.hands[0]) == 12


def test_block_you_costs_the_chosen_player_a_turn_spent_returning_it() -> None:
    t = Table(3)
    t.deal({0: "BLOCK"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    assert t.rnd.blocks == {2} and "BLOCK" not in format_cards(t.rnd.discard)
    t.pass_turn(1)
    assert t.rnd.turn == 2 and t.rnd.phase is Phase.BLOCKED
    assert t.bad("draw", 2) == (
        "You are blocked: your only move is to put the Block You card on the discard pile."
    )
    t.ok("return_block", 2)
    assert format_cards(t.rnd.discard)[-1] == "BLOCK" and t.rnd.turn == 0
    assert len(t.rnd.hands[2]) == 12


def test_skip_you_skips_the_next_player() -> None:
    t = Table(3)
    t.deal({0: "SKIP"}, dealer=2)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP")
    assert "Bea loses this turn." in of(verdicts, Outcome.INFO)
    assert t.rnd.turn == 2


def test_skip_you_cannot_be_played_against_a_blocked_player() -> None:
    t = Table(3)
    t.deal({0: "BLOCK", 1: "SKIP"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    t.ok("draw", 1)
    assert t.bad("discard", 1, card="SKIP", target=2) == (
        "Cy has a Block You card in front of them: a Skip You cannot be played against them."
    )


def test_skip_two_players_skips_the_next_two() -> None:
    t = Table(4)
    t.deal({0: "SKIP2"}, dealer=3)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP2")
    lost = [r for r in of(verdicts, Outcome.INFO) if r.endswith("loses this turn.")]
    assert lost == ["Bea loses this turn.", "Cy loses this turn."]
    assert t.rnd.turn == 3


# -- the start card -------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["W", "STEAL", "KEEP2", "D2D1", "D4D3"])
def test_these_start_cards_may_be_picked_up_by_the_first_player(start: str) -> None:
    t = Table(3)
    t.deal(start=start, dealer=2)
    t.ok("draw", 0, **{"from": "discard", "card": start})
    assert t.hand(0)[-1] == start


def test_reverse_start_card_dealer_goes_first_then_the_right() -> None:
    t = Table(3)
    t.deal(start="REV", dealer=1)
    assert t.rnd.turn == 1 and t.rnd.direction == COUNTERCLOCKWISE
    assert t.bad("draw", 1, **{"from": "discard"}).startswith("A Reverse card can never")
    t.pass_turn(1)
    assert t.rnd.turn == 0


@pytest.mark.parametrize("start", ["BLOCK", "SKIP"])
def test_block_or_skip_start_card_skips_the_first_players_first_turn(start: str) -> None:
    t = Table(3)
    verdicts = t.deal(start=start, dealer=2)
    assert "Ana loses this turn." in of(verdicts, Outcome.INFO)
    assert t.rnd.turn == 1


def test_skip_two_start_card_the_third_player_starts() -> None:
    t = Table(4)
    t.deal(start="SKIP2", dealer=3)
    assert t.rnd.turn == 2


# -- first-to Dashes, finishing, scoring ----------------------------------------------------
def test_first_to_dash_ends_the_round_when_laid() -> None:
    t = Table(3, level="advanced", dashes=[12], dash_count=1)
    t.deal({0: "R4 Y4 G4 R11 Y11 G11 R8 Y8 G8"}, dealer=2)
    t.ok("draw", 0)
    verdicts = t.ok("lay", 0, cards=["R4", "Y4", "G4", "R11", "Y11", "G11", "R8", "Y8", "G8"])
    assert "Ana laid Dash 12 first and wins it." in of(verdicts, Outcome.ROUND_END)
    result = t.state.results[0]
    assert result.how is RoundEnd.FIRST_TO and result.winner == 0
    assert result.scores == (3, 12, 12)


def test_finishing_by_handoffs_and_a_last_discard_ends_the_round() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, dealer=1)
    verdicts = t.win_now(0)
    assert "Ana finished and wins Dash 1." in of(verdicts, Outcome.ROUND_END)
    assert t.state.round is None and t.state.results[0].scores == (0, 12)
    assert "Next: Dash 2. Deal 12 cards each." in of(verdicts, Outcome.INFO)


def test_finishing_by_handing_off_the_last_card() -> None:
    t = Table(2)
    t.deal({0: WIN_HAND}, top="G12 B9 R1", dealer=1)
    t.ok("draw", 0, card="G12")
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    for card in ["G1", "G2", "G3", "B1", "B2"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    t.ok("discard", 0, card="G12")
    t.pass_turn(1)
    t.ok("draw", 0, card="R1")
    t.ok("handoff", 0, card="B3", group=t.group(3))
    verdicts = t.ok("handoff", 0, card="R1", group=t.group(1))
    assert "Ana finished and wins Dash 1." in of(verdicts, Outcome.ROUND_END)
    assert t.state.results[0].scores == (0, 12)


def test_round_scores_one_point_per_card_in_hand() -> None:
    t = Table(3)
    t.deal({0: WIN_HAND, 1: "KEEP2"}, top="G7", dealer=2)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    for card in ["G1", "G2", "G3"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    t.ok("discard", 0, card="G7")
    t.ok("draw", 1)
    t.ok("play", 1, card="KEEP2")
    t.ok("draw", 1)
    t.ok("draw", 1)
    t.pass_turn(2)
    t.ok("draw", 0)
    for card in ["B1", "B2", "B3"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    verdicts = t.ok("discard", 0, card=t.hand(0)[-1])
    assert t.state.results[0].scores == (0, 14, 12)
    assert of(verdicts, Outcome.SCORE) == [
        "Ana scores 0 points (0 cards in hand).",
        "Bea scores 14 points (14 cards in hand).",
        "Cy scores 12 points (12 cards in hand).",
    ]
    assert GAME.scoreboard(t.state).totals == (0, 14, 12)


# -- the game -----------------------------------------------------------------------------
def test_everyone_moves_on_to_the_next_dash() -> None:
    t = Table(2, dashes=[1, 1], dash_count=2)
    quick_round(t, 0, dealer=1)
    t.deal({1: WIN_HAND})
    assert t.rnd.dash == 1 and t.state.next_dash_index == 1
    assert t.rnd.laid == frozenset()


def test_twelve_dash_game_ends_after_the_last_dash() -> None:
    t = Table(2, dashes=[1] * 12)
    for r in range(12):
        quick_round(t, 0, dealer=1 if r == 0 else None)
    assert t.state.finished and t.state.winners == (0,)
    board = GAME.scoreboard(t.state)
    assert board.totals == (0, 144) and board.extra["dashes_won"] == [12, 0]
    assert t.bad("deal", **deal_payload(2, {}, "R12", "")) == "The game is over."


def test_tied_players_replay_the_last_dash() -> None:
    t = Table(2, dashes=[1, 1], dash_count=2)
    quick_round(t, 0, dealer=1)
    verdicts = quick_round(t, 1)
    assert "Ana and Bea are tied: they replay Dash 1; the first to finish wins the game." in of(
        verdicts, Outcome.PROMPT
    )
    assert t.state.tiebreak == (0, 1) and not t.state.finished
    verdicts = quick_round(t, 0)
    assert t.state.finished and t.state.winners == (0,)
    assert "Ana wins the game." in of(verdicts, Outcome.GAME_END)
    assert GAME.scoreboard(t.state).totals == (12, 12)  # the tie-break scores nothing


# -- the draw pile -------------------------------------------------------------------------
def run_down_draw_pile(t: Table) -> None:
    while t.state.round is not None and len(t.rnd.draw_pile) > 0:
        run_down_step(t)


def run_down_step(t: Table) -> None:
    """Whoever is on turn draws, or discards the card just drawn, or returns a Block."""
    seat = t.rnd.turn
    if t.rnd.phase is Phase.BLOCKED:
        t.ok("return_block", seat)
    elif t.rnd.phase in (Phase.DRAW, Phase.ACTION_DRAW):
        t.ok("draw", seat)
    else:
        t.ok("discard", seat, card=t.hand(seat)[-1])


def test_an_empty_draw_pile_is_replaced_by_the_shuffled_discard_pile() -> None:
    t = Table(2)
    t.deal(dealer=1)
    run_down_draw_pile(t)
    seat = t.rnd.turn
    assert t.rnd.phase is Phase.PLAY
    verdicts = t.ok("discard", seat, card=t.hand(seat)[-1])
    assert "The draw pile is empty: shuffle the discard pile to make a new draw pile." in of(
        verdicts, Outcome.PROMPT
    )
    nxt = t.rnd.turn
    assert t.bad("draw", nxt).startswith("The draw pile is empty")
    pile = format_cards(t.rnd.discard)
    assert t.bad("reshuffle", order=pile[1:]) == (
        "The new draw pile must be exactly the cards of the discard pile."
    )
    t.ok("reshuffle", order=list(reversed(pile)))
    assert len(t.rnd.draw_pile) == len(pile) and t.rnd.discard == ()
    t.ok("draw", nxt, card=pile[-1])
    assert t.bad("reshuffle", order=[]).startswith("The draw pile still has")


# -- variations ---------------------------------------------------------------------------
def test_variation_1_play_fewer_dashes() -> None:
    t = Table(2, dash_count=1)
    verdicts = quick_round(t, 1, dealer=0)
    assert t.state.finished and t.state.winners == (1,)
    assert "Bea wins the game." in of(verdicts, Outcome.GAME_END)


def test_variation_2_without_points_the_most_dashes_wins() -> None:
    t = Table(3, points=False, dashes=[1, 1, 1], dash_count=3)
    quick_round(t, 1, dealer=0)
    quick_round(t, 2)
    quick_round(t, 1)
    board = GAME.scoreboard(t.state)
    assert board.totals == (0, 2, 1) and not board.lower_is_better
    assert t.state.finished and t.state.winners == (1,)


def test_variation_3_chosen_dashes_in_chosen_order() -> None:
    t = Table(2, dashes=[6, 2], dash_count=2)
    t.deal({0: "R4 G5 B6 Y9 G9 B9"}, dealer=1)
    assert t.rnd.dash == 6
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R4", "G5", "B6", "Y9", "G9", "B9"])


def test_variation_4_the_round_ends_when_the_draw_pile_runs_out() -> None:
    t = Table(2, end_on_empty_draw=True)
    t.deal(dealer=1)
    while not (len(t.rnd.draw_pile) == 1 and t.rnd.phase in (Phase.DRAW, Phase.ACTION_DRAW)):
        run_down_step(t)
    counts = [len(h) for h in t.rnd.hands]
    counts[t.rnd.turn] += 1  # the last card of the draw pile
    t.ok("draw", t.rnd.turn)
    assert t.state.round is None
    result = t.state.results[0]
    assert result.how is RoundEnd.DRAW_PILE_EMPTY and result.winner is None
    assert list(result.scores) == counts  # 1 point per card; nobody won the Dash


# -- events -------------------------------------------------------------------------------
def test_malformed_events_raise_event_errors() -> None:
    t = Table(2)
    t.deal(dealer=1)
    with pytest.raises(EventError, match="no event 'fly'"):
        GAME.apply(t.state, Event("fly", 0))
    with pytest.raises(EventError, match="bad card 'R13'"):
        GAME.apply(t.state, Event("discard", 0, {"card": "R13"}))
    with pytest.raises(EventError, match="needs the seat"):
        GAME.apply(t.state, Event("draw", None))
    with pytest.raises(EventError, match="needs field 'cards'"):
        GAME.apply(t.state, Event("lay", 0))


def test_every_event_kind_has_a_manual_form() -> None:
    assert set(GAME.event_kinds()) == set(HANDLERS) == set(EVENT_KINDS)
    assert all(GAME.event_kinds().values())


def test_view_and_scoreboard_are_plain_json_mid_round() -> None:
    t = laid_table()
    t.ok("draw", 1)
    view = json.loads(json.dumps(GAME.view(t.state)))
    rnd = view["round"]
    assert rnd["turn"] == 1 and rnd["phase"] == "play" and rnd["dash_text"] == "3 pairs"
    assert rnd["hands"][0]["count"] == 6 and rnd["draw_pile"]["count"] == 128 - 24 - 1 - 2
    assert [g["label"] for g in rnd["table"]] == ["pair of 1s", "pair of 2s", "pair of 3s"]
    assert {g["owner"] for g in rnd["table"]} == {0}
    board = json.loads(json.dumps(GAME.scoreboard(t.state).to_dict()))
    assert board["turn"] == 1 and board["extra"]["dash"] == 1 and board["round"] == 1
