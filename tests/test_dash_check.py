"""Lay-down checks, table-driven per Dash, plus the edge cases and the DASH rulings."""

from collections import Counter

import pytest

from referee.cards import parse_cards
from referee.deckdash.check import GroupKind, check_dash, find_dash
from tests.dash_oracle import oracle_exact

V, X = True, False
# (level, dash, laid cards, valid) — every Dash has valid and invalid lay-downs.
TABLE = [
    # Easy 1: 3 pairs
    ("easy", 1, "R3 Y3 G7 B7 R12 Y12", V),
    ("easy", 1, "R3 W G7 B7 R12 W", V),
    ("easy", 1, "R3 Y3 G7 B7 R12 Y11", X),
    ("easy", 1, "R3 Y3 Y3 G7 B7 R12", X),
    # Easy 2: 2 sets of 4 same number
    ("easy", 2, "R3 Y3 G3 B3 R8 Y8 G8 W", V),
    ("easy", 2, "R3 Y3 G3 B3 R8 Y8 G8 B9", X),
    # Easy 3: 1 run of 7
    ("easy", 3, "R3 Y4 G5 B6 R7 Y8 G9", V),
    ("easy", 3, "W Y4 G5 B6 R7 Y8 G9", V),  # wild at the low end
    ("easy", 3, "R3 Y4 G5 B6 R7 Y8 W", V),  # wild at the high end
    ("easy", 3, "W R2 R3 R4 R5 R6 W", V),  # wilds at both ends: 1..7
    ("easy", 3, "R7 R8 R9 R10 R11 R12 W", V),  # the Wild cannot be 13: it is the 6
    ("easy", 3, "R10 R11 R12 R1 R2 R3 R4", X),  # runs do not wrap 12 -> 1
    ("easy", 3, "R3 Y4 G5 B6 R7 Y8 G10", X),
    # Easy 4: 7 cards of the same color
    ("easy", 4, "R1 R3 R5 R7 R9 R11 R12", V),
    ("easy", 4, "G1 G2 G3 G4 G5 G6 W", V),
    ("easy", 4, "R1 R3 R5 R7 R9 R11 B12", X),
    # Easy 5: 3 sets of 3 same number
    ("easy", 5, "R4 Y4 G4 R11 Y11 G11 R8 Y8 W", V),
    ("easy", 5, "R4 Y4 G4 R4 Y4 G4 R8 Y8 W", V),  # two sets of 4s
    ("easy", 5, "R4 Y4 G4 R11 Y11 G11 R8 Y8 R9", X),
    # Easy 6: 1 run of 3 + one set of 3
    ("easy", 6, "R4 G5 B6 R7 Y7 W", V),
    ("easy", 6, "R4 G5 B6 R7 Y7 G9", X),
    # Easy 7: 4 pairs
    ("easy", 7, "R1 Y1 R2 Y2 R3 Y3 R4 W", V),
    ("easy", 7, "R1 Y1 R2 Y2 R3 Y3 R4 Y5", X),
    # Easy 8: 1 run of 8
    ("easy", 8, "W Y2 G3 B4 R5 Y6 G7 B8", V),
    ("easy", 8, "Y2 G3 B4 R5 Y6 G7 B8 B10", X),
    # Easy 9: 1 set of 5 + 1 set of 3
    ("easy", 9, "R7 Y7 G7 B7 W R10 Y10 G10", V),
    ("easy", 9, "R7 Y7 G7 B7 W W W W", V),  # both sets of 7s, a 7 in each
    ("easy", 9, "R7 Y7 G7 B7 R10 Y10 G10 B10", X),
    # Easy 10: 8 cards of the same color
    ("easy", 10, "B1 B2 B3 B4 B5 B6 B7 B8", V),
    ("easy", 10, "B1 B2 B3 B4 B5 B6 B7 G8", X),
    # Easy 11: 1 run of 9
    ("easy", 11, "R4 R5 R6 R7 R8 R9 R10 R11 R12", V),
    ("easy", 11, "R5 R6 R7 R8 R9 R10 R11 R12 W", V),  # Wild as the 4
    ("easy", 11, "R5 R6 R7 R8 R9 R10 R11 R12 R12", X),
    # Easy 12: 4 sets of 3 same number
    ("easy", 12, "R1 Y1 W R2 G2 B2 R3 R3 W R4 R4 R4", V),
    ("easy", 12, "R1 Y1 W R2 G2 B2 R3 R3 W R4 R4 R5", X),
    # Advanced 1: 5 pairs
    ("advanced", 1, "R1 Y1 R2 Y2 R3 Y3 R4 Y4 R5 W", V),
    ("advanced", 1, "R1 Y1 R2 Y2 R3 Y3 R4 Y4 R5 Y6", X),
    # Advanced 2: Run of 5 same color
    ("advanced", 2, "B3 B4 B5 B6 B7", V),
    ("advanced", 2, "B3 W B5 B6 B7", V),  # a Wild has no colour of its own: it is blue 4
    ("advanced", 2, "B3 B4 R5 B6 B7", X),
    # Advanced 3: Run of 10
    ("advanced", 3, "R1 Y2 G3 B4 R5 Y6 G7 B8 R9 Y10", V),
    ("advanced", 3, "R1 Y2 G3 B4 R5 Y6 G7 B8 R9 Y11", X),
    # Advanced 4: 8 cards of the same color
    ("advanced", 4, "Y1 Y1 Y3 Y4 Y5 Y9 W W", V),
    ("advanced", 4, "Y1 Y1 Y3 Y4 Y5 Y9 W R2", X),
    # Advanced 5: Run of 6 same color
    ("advanced", 5, "W G8 G9 G10 G11 G12", V),
    ("advanced", 5, "G8 G9 G10 G11 G12 Y7", X),
    # Advanced 6: 2 runs of 5
    ("advanced", 6, "R1 R2 R3 R4 R5 Y1 Y2 Y3 Y4 Y5", V),
    ("advanced", 6, "R1 R2 R3 R4 R5 W W W W Y9", V),
    ("advanced", 6, "R3 R4 R5 R6 R7 W W W W W", V),  # one run lends a number to the other
    ("advanced", 6, "R1 R2 R3 R4 R5 Y1 Y2 Y3 Y4 Y6", X),
    # Advanced 7: First to 4 sets of 3 same color
    ("advanced", 7, "R1 R5 R9 Y2 Y3 Y12 G4 G4 W B7 B8 B1", V),
    ("advanced", 7, "R1 R5 R9 Y2 Y3 Y12 G4 G4 B5 B7 B8 B1", X),
    # Advanced 8: Run of 11
    ("advanced", 8, "R2 Y3 G4 B5 R6 Y7 G8 B9 R10 Y11 W", V),
    ("advanced", 8, "R2 Y3 G4 B5 R6 Y7 G8 B9 R10 Y11 Y11", X),
    # Advanced 9: 4 pairs of same color
    ("advanced", 9, "R5 R5 Y3 Y3 B2 W G12 W", V),
    ("advanced", 9, "R5 Y5 Y3 Y3 B2 B2 G12 G12", X),
    # Advanced 10: 1 run of 5 + 5 cards of the same color
    ("advanced", 10, "R1 R2 R3 R4 R5 Y1 Y2 Y3 Y4 Y5", V),
    ("advanced", 10, "B1 Y2 G3 R4 W R7 R9 R11 R12 R1", V),
    ("advanced", 10, "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10", V),
    ("advanced", 10, "R1 R2 R3 R4 R5 Y1 Y2 Y3 Y4 G9", X),
    # Advanced 11: 9 cards of the same color
    ("advanced", 11, "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 W", V),
    ("advanced", 11, "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 B1", X),
    # Advanced 12: First to 3 sets of 3 same number
    ("advanced", 12, "R4 Y4 G4 R11 Y11 G11 R8 Y8 B8", V),
    ("advanced", 12, "R4 Y4 G4 R11 Y11 G11 R8 Y8 B9", X),
]


@pytest.mark.parametrize(
    ("level", "number", "cards", "valid"),
    TABLE,
    ids=[f"{lv[0]}{n}-{'ok' if v else 'no'}-{c.replace(' ', '.')}" for lv, n, c, v in TABLE],
)
def test_table_per_dash(level, number, cards, valid):
    laid = parse_cards(cards)
    result = check_dash(level, number, laid)
    assert result.valid is valid, result.reason
    assert oracle_exact(level, number, laid) is valid  # the table itself is right
    if valid:
        grouped = [c for g in result.groups for c in g.cards]
        assert Counter(grouped) == Counter(laid)
        assert result.reason.startswith(f"{level.capitalize()} Dash {number} is complete")
    else:
        assert result.groups == ()
        assert result.reason.startswith(f"{level.capitalize()} Dash {number}")


def test_every_dash_has_valid_and_invalid_rows():
    seen = {(lv, n, v) for lv, n, _, v in TABLE}
    for level in ("easy", "advanced"):
        for n in range(1, 13):
            assert (level, n, V) in seen and (level, n, X) in seen


def _group(result, kind):
    return next(g for g in result.groups if g.kind is kind)


def test_wild_at_either_end_says_what_it_stands_for():
    low = check_dash("easy", 3, parse_cards("W R7 R8 R9 R10 R11 R12"))
    run = _group(low, GroupKind.RUN)
    assert (run.low, run.high) == (6, 12)
    assert str(run.stands_for[0]) == "6"
    high = check_dash("easy", 3, parse_cards("R1 R2 R3 R4 R5 R6 W"))
    run = _group(high, GroupKind.RUN)
    assert (run.low, run.high) == (1, 7)
    assert str(run.stands_for[-1]) == "7"


def test_ruling_dash10_wild_that_fits_either_end_counts_high():
    result = check_dash("easy", 3, parse_cards("W R6 R7 R8 R9 R10 R11"))
    run = _group(result, GroupKind.RUN)
    assert (run.low, run.high) == (6, 12)
    assert str(run.stands_for[-1]) == "12"


def test_reason_names_the_missing_card():
    result = check_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 G9"))
    assert "set of 7s" in result.reason
    assert "missing one more 7" in result.reason
    assert "green 9 does not fit" in result.reason


def test_reason_names_the_gap_in_a_run():
    result = check_dash("easy", 3, parse_cards("R3 Y4 G5 B6 R7 Y8 G10"))
    assert "missing a 9" in result.reason or "missing a 2" in result.reason


def test_reason_counts_cards_when_too_few():
    result = check_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7"))
    assert "(6 cards), and you laid 5" in result.reason
    assert "missing one more 7" in result.reason


def test_colour_pair_group_fields():
    result = check_dash("advanced", 9, parse_cards("R5 R5 Y3 Y3 B2 W G12 W"))
    twins = sorted((g.color.value, g.number) for g in result.groups)
    assert twins == [("B", 2), ("G", 12), ("R", 5), ("Y", 3)]
    blue = next(g for g in result.groups if g.number == 2)
    assert [str(f) for f in blue.stands_for] == ["B2", "B2"]


def test_to_dict_shape():
    data = check_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 W")).to_dict()
    assert set(data) == {"valid", "groups", "reason"}
    kinds = {g["kind"]: g for g in data["groups"]}
    assert kinds["set"]["cards"] == ["R7", "Y7", "W"]
    assert kinds["set"]["stands_for"] == ["R7", "Y7", "7"]
    assert kinds["run"]["low"] == 4 and kinds["run"]["high"] == 6


# -- rulings ----------------------------------------------------------------------------------


def test_ruling_dash1_exactly_the_dash_no_extra_cards():
    eight = parse_cards("R1 R2 R3 R4 R5 R6 R7 R9")
    result = check_dash("easy", 4, eight)
    assert not result.valid
    assert "Lay exactly 7 cards" in result.reason
    assert "hand off the rest" in result.reason and "does not fit" not in result.reason
    assert check_dash("easy", 4, eight[:7]).valid


def test_ruling_dash2_group_of_only_wilds_is_not_allowed():
    # three sets need three numbered cards: one set would be only Wilds
    result = check_dash("easy", 5, parse_cards("R4 Y4 W W W W W W W"))
    assert not result.valid
    assert "Wilds alone cannot make a set of 3" in result.reason
    assert not check_dash("easy", 1, parse_cards("R3 Y3 W W W W")).valid
    assert not check_dash("advanced", 2, parse_cards("W W W W W")).valid
    # ...but Wilds beside one numbered card are fine, and they may move between groups
    assert check_dash("easy", 5, parse_cards("R4 Y4 R8 W W W W W W")).valid
    assert check_dash("easy", 1, parse_cards("R3 Y3 G7 B7 W W")).valid


def test_ruling_dash3_sets_of_same_color_are_one_colour_any_numbers():
    assert check_dash("advanced", 7, parse_cards("R1 R5 R9 Y2 Y3 Y12 G4 G4 W B7 B8 B1")).valid
    # two groups may share a colour, as two sets may share a number
    both_red = check_dash("advanced", 7, parse_cards("R1 R2 R3 R4 R5 R6 Y1 Y2 Y3 Y4 Y5 Y6"))
    assert both_red.valid
    assert all(g.kind is GroupKind.SAME_COLOR and g.size == 3 for g in both_red.groups)


def test_ruling_dash4_pairs_of_same_color_are_twin_cards():
    assert check_dash("advanced", 9, parse_cards("R5 R5 Y3 Y3 B2 B2 G12 G12")).valid
    # a pair of 5s in two colours is not a pair of the same colour
    assert not check_dash("advanced", 9, parse_cards("R5 Y5 Y3 Y3 B2 B2 G12 G12")).valid
    # two red cards of different numbers are not a pair either
    assert not check_dash("advanced", 9, parse_cards("R5 R6 Y3 Y3 B2 B2 G12 G12")).valid


def test_ruling_dash5_sets_and_pairs_may_repeat_a_number():
    assert check_dash("easy", 2, parse_cards("R5 Y5 G5 B5 R5 Y5 W W")).valid
    assert check_dash("easy", 1, parse_cards("R7 Y7 G7 B7 R1 W")).valid
    assert check_dash("advanced", 12, parse_cards("R4 Y4 G4 R4 Y4 G4 R4 Y4 W")).valid


def test_ruling_dash6_runs_stay_inside_1_to_12():
    assert not check_dash("easy", 3, parse_cards("R10 R11 R12 R1 R2 R3 R4")).valid
    assert not check_dash("advanced", 8, parse_cards("R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R12")).valid
    # Wilds beyond 12 would be a 13: they count at the low end instead
    result = check_dash("easy", 8, parse_cards("R8 R9 R10 R11 R12 W W W"))
    run = _group(result, GroupKind.RUN)
    assert (run.low, run.high) == (5, 12)


def test_ruling_dash7_every_card_in_exactly_one_group():
    # the red 5 cannot be both the end of the run and a fifth red card
    result = check_dash("advanced", 10, parse_cards("Y1 Y2 Y3 Y4 R5 R6 R7 R8 R9"))
    assert not result.valid


def test_ruling_dash8_special_cards_never_count():
    for special in ("SKIP", "STEAL", "REV", "KEEP2", "D2D1", "D4D3", "BLOCK", "SKIP2"):
        result = check_dash("easy", 6, parse_cards(f"R4 G5 B6 R7 Y7 {special}"))
        assert not result.valid
        assert "special cards never count" in result.reason
    assert "Skip You" in check_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 SKIP")).reason
    # in a hand they are simply left out of the hint
    hint = find_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 W STEAL"))
    assert hint is not None
    assert all(not c.is_special for g in hint.groups for c in g.cards)


def test_ruling_dash11_colour_run_wild_takes_the_run_colour():
    result = check_dash("advanced", 2, parse_cards("B3 W B5 B6 B7"))
    (run,) = result.groups
    assert [str(f) for f in run.stands_for] == ["B3", "B4", "B5", "B6", "B7"]
    assert run.color is not None and run.color.value == "B"


def test_ruling_dash12_find_uses_the_fewest_wilds():
    hand = parse_cards("R4 G5 B6 R7 Y7 B7 W W G2 Y11")
    hint = find_dash("easy", 6, hand)
    assert hint is not None
    assert sum(g.wilds for g in hint.groups) == 0
    needs_one = find_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 W W G2"))
    assert needs_one is not None and sum(g.wilds for g in needs_one.groups) == 1
    assert find_dash("easy", 6, parse_cards("R4 G5 R7 Y11 W")) is None


def test_ruling_dash14_same_colour_groups_may_repeat_numbers():
    result = check_dash("advanced", 4, parse_cards("Y1 Y1 Y3 Y4 Y5 Y9 W W"))
    assert result.valid
    (group,) = result.groups
    assert group.color is not None and group.color.value == "Y"
    assert [str(f) for f in group.stands_for][-2:] == ["Y", "Y"]  # Wilds: yellow, any number
