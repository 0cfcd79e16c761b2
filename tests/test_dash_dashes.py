"""The 24 Dashes as data: texts, parts, sizes, ``get_dash`` errors."""

import pytest

from referee.deckdash.dashes import ADVANCED, EASY, GroupKind, Level, all_dashes, get_dash
from tests.dash_oracle import parts_of

_ORACLE_KIND = {
    GroupKind.PAIR: "set",
    GroupKind.SET: "set",
    GroupKind.RUN: "run",
    GroupKind.SAME_COLOR: "color",
    GroupKind.COLOR_RUN: "crun",
    GroupKind.COLOR_PAIR: "twin",
}


def test_twelve_dashes_per_level_in_rule_book_order():
    assert [d.number for d in EASY] == list(range(1, 13))
    assert [d.number for d in ADVANCED] == list(range(1, 13))
    assert EASY[5].text == "1 run of 3 + one set of 3"
    assert ADVANCED[6].text == "First to 4 sets of 3 same color"
    assert len(all_dashes()) == 24


@pytest.mark.parametrize("dash", all_dashes(), ids=lambda d: d.short)
def test_parts_agree_with_independent_oracle_table(dash):
    ours = sorted((_ORACLE_KIND[p.kind], p.size) for p in dash.parts)
    assert ours == sorted(parts_of(dash.level.value, dash.number))


def test_sizes_of_some_dashes():
    assert get_dash("easy", 6).size == 6
    assert get_dash("easy", 12).size == 12
    assert get_dash("advanced", 10).size == 10
    assert get_dash(Level.ADVANCED, 7).size == 12


def test_ruling_dash13_only_the_first_to_dashes_are_marked():
    marked = [d.short for d in all_dashes() if d.first_to]
    assert marked == ["Advanced Dash 7", "Advanced Dash 12"]


def test_needs_wording_for_families():
    assert get_dash("easy", 6).needs() == "a run of 3 and a set of 3"
    assert get_dash("easy", 1).needs() == "3 pairs"
    assert get_dash("advanced", 9).needs() == "4 pairs of the same color"


@pytest.mark.parametrize(
    ("level", "number", "message"),
    [
        ("easy", 0, "no Dash 0"),
        ("easy", 13, "no Dash 13"),
        ("hard", 1, "unknown Dash level 'hard'"),
        ("easy", True, "whole number"),
        ("easy", "6", "whole number"),
    ],
)
def test_get_dash_rejects_bad_requests_clearly(level, number, message):
    with pytest.raises(ValueError, match=message):
        get_dash(level, number)


def test_level_names_are_case_insensitive():
    assert get_dash("Advanced", 2) is ADVANCED[1]
    assert get_dash(" EASY ", 3) is EASY[2]
