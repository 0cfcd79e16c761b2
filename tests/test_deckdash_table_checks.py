"""Deck Dash checks for what the referee cannot see, and the fixes of audit r27.

Table mode: the deck's composition (DD-16) rules out a card whose copies are all where the
referee knows them, and a deal whose draw pile the deck cannot leave. Also: the tally is
for table mode (DD-20), the scoreboard's leaders follow DD-1, ``dashes`` alone plays every
Dash listed (DD-13), nobody Deck-Steals a Wild start card (DD-18), the note for a Dash not
laid, and message wording (DASH-1).
"""

from __future__ import annotations

from dataclasses import replace

from referee.cards import parse_cards
from referee.deckdash.check import check_dash
from referee.deckdash.game import GAME
from referee.deckdash.state import DeckDashState, RoundEnd, RoundResult
from referee.events import Event
from referee.hands import Hidden
from referee.verdicts import Outcome
from tests.test_deckdash_game import Table, of, quick_round


def table_deal(players: int = 2, start: str = "G5", **options: object) -> Table:
    """A table-mode round: hands and draw pile are counts, Ana (seat 0) plays first."""
    t = Table(players, **options)
    t.ok("deal", dealer=players - 1, hands=[12] * players, start=start)
    return t


def empty_draw_pile(t: Table) -> None:
    """Fast-forward: the draw pile has run out (a hundred turns later)."""
    t.state = replace(t.state, round=replace(t.rnd, draw_pile=Hidden((), 0)))


# -- 1. a copy beyond the deck (DD-16) --------------------------------------------------------
def test_ruling_dd16_a_lay_down_beyond_the_deck_is_refused() -> None:
    t = table_deal()
    t.ok("draw", 0)
    assert t.bad("lay", 0, cards=["R1"] * 6) == (
        "The deck has only 2 red 1 cards, but this makes 6 that the referee knows of "
        "(6 on the table): check the card."
    )
    assert t.bad("lay", 0, cards=["G5", "G5", "R1", "R1", "Y2", "Y2"]) == (
        "The deck has only 2 green 5 cards, but this makes 3 that the referee knows of "
        "(1 on the discard pile, 2 on the table): check the card."
    )
    t.ok("lay", 0, cards=["R1", "R1", "Y2", "Y2", "G3", "G3"])
    assert t.bad("handoff", 0, card="R1", group=0).startswith(
        "The deck has only 2 red 1 cards, but this makes 3"
    )


def test_ruling_dd16_a_ninth_wild_is_refused() -> None:
    t = table_deal()
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "W", "R2", "W", "R3", "W"])
    for i in range(5):
        t.ok("handoff", 0, card="W", group=i % 3)
    assert t.bad("handoff", 0, card="W", group=0) == (
        "The deck has only 8 Wilds, but this makes 9 that the referee knows of "
        "(9 on the table): check the card."
    )


def test_ruling_dd16_a_seventh_reverse_and_a_named_draw_are_refused() -> None:
    t = table_deal(start="REV")  # the dealer (Bea) goes first
    for _ in range(5):
        seat = t.rnd.turn
        t.ok("draw", seat)
        t.ok("discard", seat, card="REV")
    seat = t.rnd.turn
    t.ok("draw", seat)
    assert t.bad("discard", seat, card="REV") == (
        "The deck has only 6 Reverse cards, but this makes 7 that the referee knows of "
        "(7 on the discard pile): check the card."
    )
    t.ok("discard", seat, card="R1")
    seat = t.rnd.turn
    t.ok("draw", seat, card="R1")  # the second red 1, named as it comes off the draw pile
    t.ok("discard", seat, card="Y4")
    assert t.bad("draw", t.rnd.turn, card="R1").startswith(
        "The deck has only 2 red 1 cards, but this makes 3 that the referee knows of "
        "(1 on the discard pile, 2 known in hands)"
    )


def test_ruling_dd16_block_you_cards_in_front_of_players_count() -> None:
    t = table_deal(players=4)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=3)
    t.ok("draw", 1)
    t.ok("discard", 1, card="BLOCK", target=0)
    t.ok("draw", 2)
    assert t.bad("discard", 2, card="BLOCK", target=1) == (
        "The deck has only 2 Block You cards, but this makes 3 that the referee knows of "
        "(3 in front of players): check the card."
    )


def test_ruling_dd16_cards_shuffled_back_unseen_are_unseen_again() -> None:
    for order, refused in ((None, False), (["R1", "G5", "R1"], True)):
        t = table_deal()
        for seat in (0, 1):
            t.ok("draw", seat)
            t.ok("discard", seat, card="R1")
        empty_draw_pile(t)
        t.ok("reshuffle", **({} if order is None else {"order": order}))
        t.ok("draw", 0, **({} if order is None else {"card": "R1"}))
        pairs = ["R1", "R1", "Y2", "Y2", "G3", "G3"]
        if refused:  # the named order keeps the other red 1 known in the draw pile
            assert t.bad("lay", 0, cards=pairs).startswith(
                "The deck has only 2 red 1 cards, but this makes 3"
            )
        else:
            t.ok("lay", 0, cards=pairs)


# -- 2. a table deal's draw pile (DD-16) ------------------------------------------------------
def test_ruling_dd16_a_table_deal_draw_pile_is_what_the_deck_leaves() -> None:
    t = Table(2)
    for count in (128, 0, 102):
        assert t.bad("deal", dealer=1, hands=[12, 12], start="G5", draw_pile=count) == (
            f"The draw pile must hold 103 cards, not {count}: the 128-card deck less 24 dealt "
            "and the start card."
        )
    t.ok("deal", dealer=1, hands=[12, 12], start="G5", draw_pile=103)
    assert len(t.rnd.draw_pile) == 103
    t = Table(3)
    t.state = replace(t.state, tiebreak=(0, 2))  # only the tied players are dealt in (DD-12)
    assert t.bad("deal", hands=[12, 0, 12], start="G5", draw_pile=91).startswith(
        "The draw pile must hold 103 cards, not 91"
    )
    t.ok("deal", hands=[12, 0, 12], start="G5", draw_pile=103)


# -- 3. the tally is for table mode (DD-20) ---------------------------------------------------
def test_ruling_dd20_a_scripted_round_cannot_be_tallied() -> None:
    for dash_count in (1, 2):  # the game over, or the next Dash due
        t = Table(2, dash_count=dash_count)
        quick_round(t, 0, dealer=1)
        before = t.state.results
        assert t.bad("tally", hands=[0, 0]) == (
            "Dash 1 was dealt card by card, so the referee knows every hand "
            "(Ana 0, Bea 12 cards): a tally is only for table mode."
        )
        assert t.state.results == before and t.state.finished is (dash_count == 1)


# -- 4. the scoreboard's leaders (DD-1, DD-14) ------------------------------------------------
def after(results: list[tuple[int | None, tuple[int, ...]]], **options: object) -> DeckDashState:
    """A three-Dash game for Ana and Bea after ``results`` (winner, scores)."""
    state: DeckDashState = GAME.new_state(["Ana", "Bea"], {"dash_count": 3, **options})
    rows = tuple(RoundResult(1, w, RoundEnd.FINISHED, s, s) for w, s in results)
    return replace(state, results=rows)


def test_ruling_dd1_scoreboard_leaders_are_most_dashes_then_fewest_points() -> None:
    state = after([(0, (0, 12)), (None, (20, 3))])  # totals 20 v 15, Dashes 1 v 0
    board = GAME.scoreboard(state)
    assert board.totals == (20, 15) and board.leaders == (0,)
    assert board.to_dict()["leaders"] == [0]
    stopped, _ = GAME.apply(state, Event("stop", None, {}))
    assert stopped.winners == board.leaders  # WEB-1's early end agrees with DD-13's stop
    assert GAME.scoreboard(after([(0, (0, 12)), (None, (20, 3))], winner="points")).leaders == (1,)
    assert GAME.scoreboard(after([(0, (0, 9)), (1, (5, 0))])).leaders == (0,)  # 1 each: 5 < 9
    assert GAME.scoreboard(after([])).leaders == (0, 1)


def test_ruling_dd14_scoreboard_leaders_without_points_count_dashes() -> None:
    state = after([(0, (1, 0)), (0, (1, 0)), (1, (0, 1))], points=False)
    assert GAME.scoreboard(state).leaders == (0,)
    t = Table(2, dashes=[1], dash_count=1, points=False)
    quick_round(t, 1, dealer=0)
    assert t.state.finished and GAME.scoreboard(t.state).leaders == t.state.winners == (1,)


# -- 5. variation 3 alone (DD-13) -------------------------------------------------------------
def test_ruling_dd13_listing_dashes_alone_plays_every_dash_listed() -> None:
    assert GAME.new_state(["Ana", "Bea"], {"dashes": [3, 7]}).settings.dashes == (3, 7)
    assert GAME.new_state(["Ana", "Bea"], {"dashes": [3, 7], "dash_count": 1}).settings.dashes == (
        3,
    )
    assert len(GAME.new_state(["Ana", "Bea"], {}).settings.dashes) == 12


# -- 6. a Wild start card (DD-18) -------------------------------------------------------------
def test_ruling_dd18_nobody_deck_steals_a_wild_start_card_even_with_wild_from_discard() -> None:
    t = Table(3, wild_from_discard=True)
    t.deal({0: "STEAL", 1: "STEAL"}, start="W", dealer=2)
    reason = "The Wild starting the discard pile is only for Ana's first draw: nobody can "
    assert t.bad("steal", 1) == reason + "Deck-Steal it."
    assert t.bad("steal", 0) == reason + "Deck-Steal it."
    t.ok("draw", 0, **{"from": "discard", "card": "W"})


# -- 7. a Dash that could have been laid ------------------------------------------------------
def test_ruling_dd21_a_scripted_player_who_could_lay_their_dash_is_told_so() -> None:
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3"}, dealer=1)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="R1")  # not refused: a real table cannot force it
    note = (
        "Ana could have laid Dash 1 (3 pairs) this turn: the rules say to lay a Dash down "
        "when you can."
    )
    assert note in of(verdicts, Outcome.INFO)
    assert t.rnd.turn == 1
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3"}, dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    assert not [r for r in of(t.ok("discard", 0, card="G1"), Outcome.INFO) if "could" in r]
    t = table_deal()  # table mode: the referee does not know the hand
    t.ok("draw", 0)
    assert not [r for r in of(t.ok("discard", 0, card="R1"), Outcome.INFO) if "could" in r]


# -- 8. wording -------------------------------------------------------------------------------
def test_ruling_dd18_the_wild_start_card_is_named_the_wild() -> None:
    t = Table(2)
    verdicts = t.deal({}, start="W", dealer=1)
    assert "Ana may pick up the Wild to start." in of(verdicts, Outcome.INFO)


def test_ruling_dash1_an_extra_card_that_fits_nowhere_is_kept() -> None:
    def reason(cards: str, number: int = 1) -> str:
        return check_dash("easy", number, parse_cards(cards)).reason

    assert reason("R1 Y1 R2 Y2 R3 Y3 G9").endswith(
        "green 9 does not fit. Lay exactly 6 cards: green 9 does not go on this Dash, so keep it."
    )
    assert reason("R1 Y1 R2 Y2 R3 Y3 G3 G9").endswith(
        "Lay exactly 6 cards, then hand off green 3; green 9 does not go on this Dash, so keep it."
    )
    assert reason("R1 Y1 R2 Y2 R3 Y3 G3").endswith(
        "Lay exactly 6 cards; hand off the rest once your Dash is down."
    )
    # a card the advice hands off onto this Dash is not also said to "not fit"
    assert reason("R1 R2 R3 R4 R5 R6 R7 R8", 4).endswith(
        "the group of 7 red cards is complete. "
        "Lay exactly 7 cards; hand off the rest once your Dash is down."
    )
    assert "not fit" not in reason("R1 Y1 R2 Y2 R3 Y3 W")
