"""Deck Dash rulings DD-1 … DD-20 (docs/RULINGS.md), one test (or more) each."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.deckdash.game import GAME
from referee.deckdash.scoring import decide
from referee.deckdash.state import DeckDashState, Phase, RoundEnd, RoundResult
from referee.game import GameError
from referee.hands import Hidden
from referee.verdicts import Outcome
from tests.test_deckdash_game import (
    WIN_HAND,
    Table,
    deal_payload,
    of,
    quick_round,
    table_mode_dash_won,
)


def decided(players: int, results: list[tuple[int | None, tuple[int, ...]]], **options: object):
    """The game state after ``results`` (winner, scores) and the end-of-game decision."""
    state: DeckDashState = GAME.new_state(
        ["Ana", "Bea", "Cy", "Dov"][:players], {"dash_count": len(results), **options}
    )
    rows = tuple(RoundResult(1, w, RoundEnd.FINISHED, scores, scores) for w, scores in results)
    state, verdicts = decide(replace(state, results=rows))
    return state, verdicts


def piles_run_down(t: Table, left: int) -> None:
    """A table round fast-forwarded to ``left`` unseen cards in the draw pile.

    A table deal's draw pile is what the deck leaves (DD-16), so a test that needs a nearly
    empty pile at the first turn sets it here instead of playing a hundred turns.
    """
    t.state = replace(t.state, round=replace(t.rnd, draw_pile=Hidden((), left)))


def test_ruling_dd1_most_dashes_wins_then_fewest_points() -> None:
    results = [(0, (0, 5, 9)), (0, (0, 7, 9)), (1, (20, 0, 9)), (2, (10, 8, 0))]
    state, _ = decided(3, results)
    assert state.dashes_won == (2, 1, 1) and state.totals == (30, 20, 27)
    assert state.finished and state.winners == (0,)  # most Dashes, despite most points
    state, _ = decided(3, results, winner="points")
    assert state.winners == (1,)  # the configurable reading: fewest points
    state, _ = decided(2, [(0, (0, 5)), (1, (3, 0))])  # one Dash each: 3 points beat 5
    assert state.winners == (0,)


def test_ruling_dd2_first_to_dash_scores_3_and_12_or_cards_in_hand() -> None:
    for scoring, expected in (("fixed", (3, 12, 12)), ("hand", (4, 12, 12))):
        t = Table(3, level="advanced", dashes=[12], dash_count=1, first_to_scoring=scoring)
        t.deal({0: "R4 Y4 G4 R11 Y11 G11 R8 Y8 G8"}, dealer=2)
        t.ok("draw", 0)
        t.ok("lay", 0, cards=["R4", "Y4", "G4", "R11", "Y11", "G11", "R8", "Y8", "G8"])
        assert t.state.results[0].scores == expected
        assert t.state.winners == (0,)


def test_ruling_dd3_a_discarded_wild_stays_on_the_discard_pile() -> None:
    t = Table(2)
    t.deal({0: "W"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="W")
    assert t.bad("draw", 1, **{"from": "discard"}) == (
        "A discarded Wild cannot be picked up from the discard pile. Draw from the draw pile."
    )
    t = Table(2, wild_from_discard=True)
    t.deal({0: "W"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="W")
    t.ok("draw", 1, **{"from": "discard", "card": "W"})


def test_ruling_dd4_skip_you_hits_the_next_player_or_a_chosen_one() -> None:
    t = Table(4)
    t.deal({0: "SKIP", 1: "SKIP"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="SKIP", target=2)
    assert t.rnd.turn == 1 and t.rnd.skips == (0, 0, 1, 0)
    t.ok("draw", 1)
    assert t.bad("discard", 1, card="SKIP", target=1) == (
        "You cannot skip yourself: choose another player."
    )
    t.ok("discard", 1, card="SKIP")  # the default: the next player (Cy, again)
    assert t.rnd.turn == 3 and t.rnd.skips == (0, 0, 1, 0)  # lost turns add up


def test_ruling_dd5_skip_two_with_two_players_and_past_a_blocked_player() -> None:
    t = Table(2)
    t.deal({0: "SKIP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="SKIP2")
    assert t.rnd.turn == 0 and t.rnd.skips == (0, 1)  # Bea lost one turn, one to go
    t.pass_turn(0)
    assert t.rnd.turn == 0 and t.rnd.skips == (0, 0)
    t.pass_turn(0)
    assert t.rnd.turn == 1
    t = Table(4)
    t.deal({0: "BLOCK", 1: "SKIP2"}, dealer=3)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    t.ok("draw", 1)
    t.ok("discard", 1, card="SKIP2")
    assert t.rnd.skips == (0, 0, 0, 1)  # Cy's lost turn is the blocked one; Dov loses one
    assert t.rnd.turn == 2 and t.rnd.phase is Phase.BLOCKED
    t.ok("return_block", 2)
    assert t.rnd.turn == 0


def test_ruling_dd6_reverse_with_two_players_only_changes_direction() -> None:
    t = Table(2)
    t.deal({0: "REV"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="REV")
    assert t.rnd.turn == 1 and t.rnd.direction == -1


def test_ruling_dd7_nothing_left_to_draw_ends_the_round() -> None:
    t = Table(2)
    t.ok("deal", dealer=1, hands=[12, 12], start="G5")
    piles_run_down(t, 0)  # as after many Keep Twos: every other card is held
    t.ok("draw", 0, **{"from": "discard", "card": "G5"})
    verdicts = t.ok("play", 0, card="D4D3")
    assert "Nothing is left to draw: Dash 1 ends with no winner." in of(verdicts, Outcome.ROUND_END)
    result = t.state.results[0]
    assert result.how is RoundEnd.NOTHING_TO_DRAW and result.scores == (12, 12)


def test_ruling_dd8_deck_steal_does_not_replace_the_draw() -> None:
    t = Table(2)
    t.deal({0: "STEAL"}, start="G9", dealer=1)
    t.ok("steal", 0)
    assert t.rnd.phase is Phase.DRAW
    assert t.bad("discard", 0, card="G9") == "Draw a card first (step 1 of your turn)."


def test_ruling_dd9_extra_discards_of_draw_cards_have_no_effect() -> None:
    t = Table(3)
    t.deal({0: "D2D1 REV"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="D2D1")  # discarding a draw card plays it
    assert t.rnd.phase is Phase.ACTION_DRAW
    t.ok("draw", 0)
    t.ok("draw", 0)
    t.ok("discard", 0, card="REV")  # the extra discard: no reverse
    assert t.rnd.direction == 1 and t.rnd.turn == 0 and t.rnd.phase is Phase.PLAY
    assert t.bad("play", 0, card="REV").startswith("Only Keep Two, Draw 2 Discard 1")


def test_ruling_dd10_block_targets_and_a_skip_with_nobody_to_skip() -> None:
    t = Table(3)
    t.deal({0: "BLOCK", 1: "BLOCK"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=2)
    t.ok("draw", 1)
    assert t.bad("discard", 1, card="BLOCK", target=2) == (
        "Cy already has a Block You card in front of them."
    )
    assert t.bad("discard", 1, card="BLOCK", target=1) == (
        "You cannot block yourself: choose another player."
    )
    t = Table(2)
    t.deal({0: "SKIP2 BLOCK SKIP"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="SKIP2")  # Bea loses two turns
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK")  # …and is blocked after that
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP")
    assert "Ana discarded Skip You; everyone else is already blocked, so it has no effect." in of(
        verdicts, Outcome.LEGAL
    )
    assert t.rnd.turn == 1 and t.rnd.phase is Phase.BLOCKED  # both lost turns are used up


def test_ruling_dd11_only_first_to_dashes_end_the_round_when_laid() -> None:
    t = Table(2, dashes=[5], dash_count=1)
    t.deal({0: "R4 Y4 G4 R11 Y11 G11 R8 Y8 G8"}, dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R4", "Y4", "G4", "R11", "Y11", "G11", "R8", "Y8", "G8"])
    assert t.state.round is not None and t.rnd.turn == 0  # Easy 5 is an ordinary Dash
    t = Table(2, level="advanced", dashes=[7], dash_count=1)
    t.deal({0: "R1 R5 R9 Y2 Y6 Y10 G3 G7 G11 B4 B8 B12"}, dealer=1)
    t.ok("draw", 0)
    cards = ["R1", "R5", "R9", "Y2", "Y6", "Y10", "G3", "G7", "G11", "B4", "B8", "B12"]
    t.ok("lay", 0, cards=cards)
    assert t.state.results[0].how is RoundEnd.FIRST_TO and t.state.finished


def test_ruling_dd12_tie_break_among_the_tied_players_only() -> None:
    t = Table(3, dashes=[1, 1], dash_count=2)
    quick_round(t, 0, dealer=2)
    verdicts = quick_round(t, 2)
    assert "Ana and Cy are tied: they replay Dash 1; the first to finish wins the game." in of(
        verdicts, Outcome.PROMPT
    )
    payload = deal_payload(3, {2: WIN_HAND}, "R12", "", active=(0, 2))
    assert t.bad("deal", dealer=1, **payload) == (
        "It's Cy's turn to deal (the player to the left of the last dealer)."
    )
    t.ok("deal", **payload)
    assert t.rnd.tiebreak and t.rnd.active == (0, 2) and t.rnd.turn == 0
    assert len(t.rnd.hands[1]) == 0
    assert t.bad("steal", 1) == "Bea is not playing this tie-break round."
    t.pass_turn(0)
    assert t.rnd.turn == 2  # Bea is passed over
    t.win_now(2)
    assert t.state.finished and t.state.winners == (2,)
    assert GAME.scoreboard(t.state).totals == (12, 24, 12)  # tie-break points do not count
    # A tie-break nobody finishes: the fewest cards in hand wins.
    state, _ = decided(2, [(0, (0, 5)), (1, (5, 0))])
    assert state.tiebreak == (0, 1)
    nobody = RoundResult(1, None, RoundEnd.DRAW_PILE_EMPTY, (9, 7), (9, 7), tiebreak=True)
    state, _ = decide(replace(state, results=(*state.results, nobody)))
    assert state.finished and state.winners == (1,)


def test_ruling_dd13_stopping_early_scores_finished_dashes_only() -> None:
    t = Table(3, dash_count=3)
    quick_round(t, 1, dealer=0)
    t.deal()
    verdicts = t.ok("stop")
    assert "The players stopped after 1 Dash; Dash 2 in progress is not scored." in of(
        verdicts, Outcome.INFO
    )
    assert t.state.finished and t.state.winners == (1,) and len(t.state.results) == 1
    t = Table(2)
    t.ok("stop")
    assert t.state.winners == (0, 1)  # nothing played: a shared result, no replay


def test_ruling_dd14_without_points_tied_dash_counts_replay() -> None:
    t = Table(2, points=False, dashes=[1, 1], dash_count=2)
    quick_round(t, 0, dealer=1)
    quick_round(t, 1)
    assert t.state.tiebreak == (0, 1) and GAME.scoreboard(t.state).totals == (1, 1)


def test_ruling_dd15_variation_4_ends_the_round_at_the_last_draw() -> None:
    t = Table(2, end_on_empty_draw=True)
    t.ok("deal", dealer=1, hands=[12, 12], start="G5")
    piles_run_down(t, 1)
    t.ok("draw", 0)
    assert t.state.round is None
    assert t.state.results[0].how is RoundEnd.DRAW_PILE_EMPTY
    assert t.state.results[0].scores == (13, 12)


def test_ruling_dd16_two_to_eight_players_and_the_whole_deck() -> None:
    with pytest.raises(GameError, match="2–8 players"):
        GAME.new_state(["Ana"], {})
    with pytest.raises(GameError, match="2–8 players"):
        GAME.new_state([f"P{i}" for i in range(9)], {})
    t = Table(2)
    payload = deal_payload(2, {}, "R12", "")
    payload["draw_pile"][-1] = "R1"
    reason = t.bad("deal", **payload)
    assert reason.startswith("The deal does not add up to the 128-card deck: too many R1×1")


def test_ruling_dd17_special_cards_are_never_handed_off() -> None:
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3 REV"}, dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    assert t.bad("handoff", 0, card="REV", group=0) == (
        "A Reverse card can never be handed off onto a Dash."
    )


def test_ruling_dd18_a_special_start_card_only_by_the_first_draw() -> None:
    t = Table(3)
    t.deal({1: "STEAL"}, start="W", dealer=2)
    assert t.bad("steal", 1) == "Deck Steal cannot take a discarded Wild from the discard pile."
    t.ok("draw", 0)  # Ana chose the draw pile: the chance is gone
    assert not t.rnd.start_pickup


def test_ruling_dd19_a_draw_card_as_the_last_card_does_not_finish() -> None:
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3 G1 G2 G3 B1 B2 KEEP2"}, top="G12 B9 R1", dealer=1)
    t.ok("draw", 0)
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    for card in ["G1", "G2", "G3", "B1", "B2"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    t.ok("discard", 0, card="G12")
    t.pass_turn(1)
    t.ok("draw", 0, card="R1")
    t.ok("handoff", 0, card="R1", group=t.group(1))
    t.ok("play", 0, card="KEEP2")
    assert len(t.rnd.hands[0]) == 0 and t.state.round is not None
    t.ok("draw", 0)
    t.ok("draw", 0)
    assert t.rnd.turn == 1 and len(t.rnd.hands[0]) == 2


def test_ruling_dd20_table_mode_tally_corrects_the_hand_counts() -> None:
    t = table_mode_dash_won()
    assert t.state.results[0].scores == (0, 12)
    assert t.bad("tally", hands=[1, 10]) == "Ana won the Dash; their hand cannot change now."
    t.ok("tally", hands=[0, ["R5", "G6", "B7"]])
    assert t.state.results[0].scores == (0, 3) and GAME.scoreboard(t.state).totals == (0, 3)
