"""Handoffs onto laid groups: runs at either end inside 1..12, sets, colours, Wilds."""

import pytest

from referee.cards import WILD, parse_card, parse_cards
from referee.deckdash.check import GroupKind, check_dash, hand_off


def _only(level, number, cards):
    result = check_dash(level, number, parse_cards(cards))
    assert result.valid, result.reason
    (group,) = result.groups
    return group


def _run(cards="R4 Y5 G6 B7 R8 Y9 G10"):
    return _only("easy", 3, cards)


@pytest.mark.parametrize(
    ("card", "low", "high"),
    [("B3", 3, 10), ("R11", 4, 11), ("G11", 4, 11)],
)
def test_run_grows_at_either_end(card, low, high):
    grown = hand_off(_run(), parse_card(card))
    assert grown is not None
    assert (grown.low, grown.high) == (low, high)
    assert grown.size == 8


@pytest.mark.parametrize("card", ["R5", "R12", "R2", "B1", "SKIP", "STEAL"])
def test_run_refuses_what_does_not_touch_an_end(card):
    assert hand_off(_run(), parse_card(card)) is None


def test_handoff_keeps_cards_in_run_order():
    grown = hand_off(_run(), parse_card("B3"))
    assert grown is not None
    assert [str(f) for f in grown.stands_for][:2] == ["B3", "R4"]


def test_ruling_dash10_wild_on_a_run_goes_high_unless_told_or_at_12():
    run = _run()
    high = hand_off(run, WILD)
    assert high is not None and (high.low, high.high) == (4, 11)
    assert str(high.stands_for[-1]) == "11"
    low = hand_off(run, WILD, end="low")
    assert low is not None and (low.low, low.high) == (3, 10)
    assert str(low.stands_for[0]) == "3"
    top = _run("R6 Y7 G8 B9 R10 Y11 G12")
    onto_top = hand_off(top, WILD)
    assert onto_top is not None and (onto_top.low, onto_top.high) == (5, 12)
    assert hand_off(top, WILD, end="high") is None  # there is no 13
    assert hand_off(top, parse_card("R1")) is None


def test_ruling_dash10_full_run_1_to_12_takes_nothing():
    run = _only("advanced", 8, "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11")
    full = hand_off(run, parse_card("B12"))
    assert full is not None and (full.low, full.high) == (1, 12)
    assert hand_off(full, WILD) is None
    assert hand_off(full, WILD, end="low") is None


def test_ruling_dash10_wilds_keep_what_they_were_laid_as():
    run = _only("easy", 3, "R4 Y5 G6 B7 R8 Y9 W")  # the Wild is the 10
    assert str(run.stands_for[-1]) == "10"
    assert hand_off(run, parse_card("R10")) is None
    assert hand_off(run, parse_card("R11")) is not None
    assert hand_off(run, parse_card("R3")) is not None


def test_end_must_be_low_or_high():
    with pytest.raises(ValueError, match="end must be"):
        hand_off(_run(), WILD, end="middle")  # type: ignore[arg-type]


def test_set_takes_its_number_in_any_colour_or_a_wild():
    result = check_dash("easy", 6, parse_cards("R4 G5 B6 R7 Y7 W"))
    sets = next(g for g in result.groups if g.kind is GroupKind.SET)
    assert hand_off(sets, parse_card("B7")) is not None
    wild = hand_off(sets, WILD)
    assert wild is not None and str(wild.stands_for[-1]) == "7"
    assert hand_off(sets, parse_card("B8")) is None


def test_ruling_dash9_pairs_grow_like_sets_colour_pairs_stay_twins():
    result = check_dash("easy", 1, parse_cards("R3 Y3 G7 B7 R12 Y12"))
    threes = next(g for g in result.groups if g.number == 3)
    grown = hand_off(threes, parse_card("B3"))
    assert grown is not None and grown.kind is GroupKind.PAIR and grown.size == 3
    assert (threes.label, grown.label) == ("pair of 3s", "set of 3s")  # the label follows
    assert hand_off(threes, parse_card("B4")) is None
    twins = check_dash("advanced", 9, parse_cards("R5 R5 Y3 Y3 B2 W G12 W"))
    red5 = next(g for g in twins.groups if g.number == 5)
    assert hand_off(red5, parse_card("Y5")) is None  # same number, other colour
    assert hand_off(red5, parse_card("R6")) is None
    assert hand_off(red5, parse_card("R5")) is not None
    wild = hand_off(red5, WILD)
    assert wild is not None and str(wild.stands_for[-1]) == "R5"
    assert (red5.label, wild.label) == ("pair of red 5s", "set of red 5s")


def test_same_colour_group_takes_that_colour_or_a_wild():
    reds = _only("easy", 4, "R1 R3 R5 R7 R9 R11 R12")
    assert hand_off(reds, parse_card("R2")) is not None
    assert hand_off(reds, parse_card("R12")) is not None  # numbers do not matter
    assert hand_off(reds, parse_card("B2")) is None
    wild = hand_off(reds, WILD)
    assert wild is not None and str(wild.stands_for[-1]) == "R"


def test_colour_run_keeps_its_colour():
    run = _only("advanced", 2, "B3 B4 B5 B6 B7")
    assert hand_off(run, parse_card("B8")) is not None
    assert hand_off(run, parse_card("B2")) is not None
    assert hand_off(run, parse_card("R8")) is None
    wild = hand_off(run, WILD)
    assert wild is not None and str(wild.stands_for[-1]) == "B8"


def test_specials_never_hand_off():
    reds = _only("easy", 4, "R1 R3 R5 R7 R9 R11 R12")
    for token in ("REV", "STEAL", "KEEP2", "D2D1", "D4D3", "BLOCK", "SKIP", "SKIP2"):
        assert hand_off(reds, parse_card(token)) is None
