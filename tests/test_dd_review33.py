"""Review 33, Deck Dash: the default table tie-break deal, First-to lay-down advice, batch nulls."""

from __future__ import annotations

import io
import json

import pytest

from referee.cards import parse_cards
from referee.deckdash.check import check_dash
from referee.deckdash.cli import run_batch
from referee.verdicts import Outcome
from tests.test_deckdash_game import Table, of


def tied_table() -> Table:
    """Three players, one Dash, table mode: Bea and Cy tie on 12 points, Ana holds 14."""
    t = Table(3, dash_count=1)
    t.ok("deal", dealer=2, start="G5")  # table mode: every hand defaults to 12
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    t.ok("draw", 0)
    t.ok("draw", 0)
    t.ok("end_dash")
    assert t.state.tiebreak == (1, 2)
    return t


# -- 1. the default table deal of a tie-break (DD-12) -----------------------------------------
def test_ruling_dd12_a_table_tie_break_deal_defaults_to_12_for_the_tied_players_only() -> None:
    t = tied_table()
    verdicts = t.ok("deal", start="G6")  # no hands: the same deal as every other round
    assert "Bea dealt Dash 1 (tie-break); the discard pile starts with green 6." in of(
        verdicts, Outcome.LEGAL
    )
    assert [len(h) for h in t.rnd.hands] == [0, 12, 12]
    assert len(t.rnd.draw_pile) == 128 - 24 - 1


def test_ruling_dd12_a_table_tie_break_still_refuses_cards_for_a_player_not_in_it() -> None:
    t = tied_table()
    reason = t.bad("deal", start="G6", hands=[12, 12, 12])
    assert reason == "Ana is not in the tie-break and gets no cards."


def test_an_ordinary_table_deal_still_defaults_to_12_each() -> None:
    t = Table(3)
    t.ok("deal", dealer=2, start="G5")
    assert [len(h) for h in t.rnd.hands] == [12, 12, 12]
    assert len(t.rnd.draw_pile) == 128 - 36 - 1


# -- 2. an extra card on a First-to Dash (DD-11) ----------------------------------------------
FIRST_TO_END = (
    "Lay exactly 9 cards and keep the rest: laying a First-to Dash ends the round at once."
)


def test_ruling_dash1_an_extra_card_on_a_first_to_dash_is_kept_not_handed_off() -> None:
    reason = check_dash("advanced", 12, parse_cards("R1 Y1 G1 R2 Y2 G2 R3 Y3 G3 B3")).reason
    assert reason.endswith(f"the set of 3s is complete; blue 3 does not fit. {FIRST_TO_END}")
    assert "hand off" not in reason


def test_the_game_refuses_the_extra_card_with_the_first_to_advice() -> None:
    t = Table(2, level="advanced", dashes=[12])
    t.deal({0: "R1 Y1 G1 R2 Y2 G2 R3 Y3 G3 B3 R7 R8"}, dealer=1)
    t.ok("draw", 0)
    reason = t.bad("lay", 0, cards=["R1", "Y1", "G1", "R2", "Y2", "G2", "R3", "Y3", "G3", "B3"])
    assert reason.endswith(FIRST_TO_END)


def test_advanced_7_is_first_to_too_and_wilds_are_counted() -> None:
    laid = "R1 R2 R3 Y1 Y2 Y3 G1 G2 G3 B1 B2 B3 B4 W"
    reason = check_dash("advanced", 7, parse_cards(laid)).reason
    assert reason.endswith(
        "blue 4 and one Wild do not fit. "
        "Lay exactly 12 cards and keep the rest: laying a First-to Dash ends the round at once."
    )


def test_easy_5_is_not_first_to_so_the_extra_card_is_handed_off() -> None:
    reason = check_dash("easy", 5, parse_cards("R1 Y1 G1 R2 Y2 G2 R3 Y3 G3 B3")).reason
    assert reason.endswith(
        "the set of 3s is complete. Lay exactly 9 cards; hand off the rest once your Dash is down."
    )


def test_only_the_cards_kept_are_said_not_to_fit() -> None:
    reason = check_dash("easy", 1, parse_cards("R1 Y1 R2 Y2 R3 Y3 G3 W G9")).reason
    assert reason.endswith(
        "green 9 does not fit. Lay exactly 6 cards, then hand off green 3 and a Wild; "
        "green 9 does not go on this Dash, so keep it."
    )


# -- 3. a null field in a batch line ---------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            {"level": None, "dash": 1, "cards": []},
            'line 1: "level" must be "easy" or "advanced", not null',
        ),
        (
            {"level": "easy", "dash": None, "cards": []},
            'line 1: "dash" must be a whole number 1..12, not null',
        ),
    ],
)
def test_a_null_batch_field_is_named_not_the_command_line_flags(
    line: dict[str, object], error: str
) -> None:
    out = io.StringIO()
    assert run_batch(io.StringIO(json.dumps(line) + "\n"), out) == 2
    assert json.loads(out.getvalue()) == {"error": error}
