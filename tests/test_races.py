"""Race arbitration (referee.races): pure functions over timestamped presses."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.races import (
    EARLY,
    LOCKED_OUT,
    MISSED,
    PRESSED,
    Press,
    RaceRules,
    fake_outs,
    first_finisher,
    first_presses,
    in_window,
    last_slapper,
)

MS = 1_000_000
T0 = 5_000 * MS  # the trigger: a Hit the Deck With A Hand card seen at 5 s
RULES = RaceRules()


def test_last_slapper_picks_latest_and_shows_evidence():
    presses = [Press(0, T0 + 120 * MS), Press(1, T0 + 310 * MS), Press(2, T0 + 205 * MS)]
    d = last_slapper(T0, [0, 1, 2], presses, RULES)
    assert d.seats == (1,)
    assert not d.tie
    assert [e.relative_ns for e in d.evidence] == [120 * MS, 310 * MS, 205 * MS]
    assert all(e.status == PRESSED for e in d.evidence)
    assert "Seat 1 slapped last" in d.reason and "105 ms after seat 2" in d.reason
    out = d.to_dict()
    json.dumps(out)  # the dashboard gets plain JSON
    assert out["evidence"][1]["relative_ms"] == 310.0


def test_race_reasons_use_names_when_given_and_seats_otherwise() -> None:
    names = ["Ann", "bob", "Cy"]  # a name is written as given, never re-capitalised
    t0, rules = T0, RULES
    presses = [Press(0, t0 + 100 * MS), Press(1, t0 + 200 * MS)]
    d = last_slapper(t0, [0, 1, 2], presses, rules, names)
    assert d.reason == "Cy did not slap within 3.00 s. Cy counts as last."
    d = last_slapper(t0, [0, 1, 2], [presses[0]], rules, names)
    assert d.reason == (
        "bob did not slap within 3.00 s; Cy did not slap within 3.00 s. "
        "bob and Cy both count as last."
    )
    d = last_slapper(t0, [0, 1], presses, rules, names)
    assert d.reason == "bob slapped last, 200 ms after the card — 100 ms after Ann."
    d = first_finisher(t0, [0, 1], presses, rules, names)
    assert d.reason == "Ann was first, 100 ms after the start — 100 ms ahead of bob."
    d = last_slapper(t0, [0, 1], [Press(0, t0), Press(1, t0)], rules, names)
    assert d.reason.startswith("Ann and bob slapped 0 ns after the card, closer together")
    d = last_slapper(t0, [0, 1], presses, rules)  # the pad tools: hardware seat numbers
    assert d.reason == "Seat 1 slapped last, 200 ms after the card — 100 ms after seat 0."


def test_first_finisher_picks_earliest():
    presses = [Press(3, T0 + 9_000 * MS), Press(4, T0 + 8_500 * MS)]
    d = first_finisher(T0, [3, 4], presses, RaceRules(window_ns=60_000 * MS))
    assert d.seats == (4,) and not d.tie
    assert d.kind == "first_finisher"
    assert "500 ms ahead of seat 3" in d.reason


def test_ruling_hw1_seat_that_never_slaps_is_last():
    presses = [Press(0, T0 + 100 * MS), Press(1, T0 + 2_900 * MS)]
    d = last_slapper(T0, [0, 1, 2], presses, RULES)
    assert d.seats == (2,)
    assert d.timing(2).status == MISSED and d.timing(2).t_ns is None
    assert "did not slap" in d.reason


def test_ruling_hw1_several_non_slappers_are_all_last():
    d = last_slapper(T0, [0, 1, 2], [Press(0, T0 + 100 * MS)], RULES)
    assert d.seats == (1, 2) and d.tie
    assert "both count as last" in d.reason


def test_ruling_hw6_slap_after_window_counts_as_missed():
    late = Press(1, T0 + RULES.window_ns + 1)
    d = last_slapper(T0, [0, 1], [Press(0, T0 + MS), late], RULES)
    assert d.seats == (1,)
    assert d.timing(1).status == MISSED
    assert d.timing(1).ignored_ns == (RULES.window_ns + 1,)


def test_press_exactly_at_window_end_counts():
    d = last_slapper(T0, [0, 1], [Press(0, T0 + MS), Press(1, T0 + RULES.window_ns)], RULES)
    assert d.timing(1).status == PRESSED and d.seats == (1,)


def test_ruling_hw2_slaps_closer_than_resolution_tie():
    presses = [Press(0, T0 + 100 * MS), Press(1, T0 + 200 * MS), Press(2, T0 + 200 * MS + 999)]
    d = last_slapper(T0, [0, 1, 2], presses, RULES)
    assert d.tie and d.seats == (1, 2)
    assert "tie for last" in d.reason


def test_ruling_hw2_exactly_simultaneous_is_a_tie_even_with_zero_resolution():
    presses = [Press(0, T0 + 7 * MS), Press(1, T0 + 7 * MS)]
    d = first_finisher(T0, [0, 1], presses, RaceRules(tie_ns=0))
    assert d.tie and d.seats == (0, 1)


def test_ruling_hw2_resolution_plus_one_is_decided():
    presses = [Press(0, T0 + 7 * MS), Press(1, T0 + 7 * MS + RULES.tie_ns)]
    assert last_slapper(T0, [0, 1], presses, RULES).seats == (1,)
    assert first_finisher(T0, [0, 1], presses, RULES).seats == (0,)


def test_ruling_hw3_early_press_ignored_by_default():
    presses = [Press(0, T0 - 50 * MS), Press(0, T0 + 400 * MS), Press(1, T0 + 300 * MS)]
    d = last_slapper(T0, [0, 1], presses, RULES)
    assert d.seats == (0,)
    assert d.timing(0).ignored_ns == (-50 * MS,)


def test_ruling_hw3_only_early_press_counts_as_not_slapping():
    d = last_slapper(T0, [0, 1], [Press(0, T0 - 50 * MS), Press(1, T0 + 300 * MS)], RULES)
    assert d.seats == (0,)
    assert d.timing(0).status == EARLY and d.timing(0).relative_ns == -50 * MS
    assert "before the card" in d.reason


def test_ruling_hw3_lockout_makes_anticipating_seat_last():
    rules = RaceRules(early_lockout_ns=200 * MS)
    presses = [Press(0, T0 - 50 * MS), Press(0, T0 + 10 * MS), Press(1, T0 + 300 * MS)]
    d = last_slapper(T0, [0, 1], presses, rules)
    assert d.seats == (0,)
    assert d.timing(0).status == LOCKED_OUT
    assert "locked out" in d.reason


def test_ruling_hw3_lockout_span_is_bounded():
    rules = RaceRules(early_lockout_ns=200 * MS)
    presses = [Press(0, T0 - 900 * MS), Press(0, T0 + 10 * MS), Press(1, T0 + 300 * MS)]
    d = last_slapper(T0, [0, 1], presses, rules)
    assert d.timing(0).status == PRESSED and d.seats == (1,)


def test_ruling_hw3_locked_out_seat_cannot_win_a_finish():
    rules = RaceRules(window_ns=60_000 * MS, early_lockout_ns=1_000 * MS)
    presses = [Press(0, T0 - 10 * MS), Press(0, T0 + 5 * MS), Press(1, T0 + 8_000 * MS)]
    d = first_finisher(T0, [0, 1], presses, rules)
    assert d.seats == (1,)
    assert d.timing(0).status == LOCKED_OUT


def test_ruling_hw4_only_first_slap_counts():
    presses = [
        Press(0, T0 + 100 * MS),
        Press(0, T0 + 900 * MS),  # slaps again later: does not make seat 0 last
        Press(1, T0 + 300 * MS),
    ]
    d = last_slapper(T0, [0, 1], presses, RULES)
    assert d.seats == (1,)
    assert d.timing(0).ignored_ns == (900 * MS,)


def test_ruling_hw5_slap_with_no_trigger_is_a_fake_out():
    presses = [Press(0, T0 - 4_000 * MS), Press(1, T0 + 100 * MS), Press(2, T0 + 9_000 * MS)]
    assert fake_outs(presses, [T0], RULES) == (presses[0], presses[2])
    assert fake_outs(presses, [], RULES) == tuple(presses)


def test_ruling_hw5_lockout_span_is_not_a_fake_out():
    rules = RaceRules(early_lockout_ns=100 * MS)
    assert fake_outs([Press(0, T0 - 50 * MS)], [T0], rules) == ()
    assert fake_outs([Press(0, T0 - 50 * MS)], [T0], RULES) == (Press(0, T0 - 50 * MS),)


def test_ruling_hw8_nobody_finishing_has_no_winner():
    d = first_finisher(T0, [0, 1], [Press(0, T0 - MS)], RULES)
    assert d.seats == () and not d.tie
    assert "Nobody" in d.reason


def test_ruling_hw9_presses_from_seats_outside_the_race_are_ignored():
    presses = [Press(0, T0 + MS), Press(1, T0 + 2 * MS), Press(7, T0 + 9 * MS)]
    d = last_slapper(T0, [0, 1], presses, RULES)
    assert d.seats == (1,)
    assert [e.seat for e in d.evidence] == [0, 1]


def test_single_seat_race_and_in_window():
    d = last_slapper(T0, [4], [Press(4, T0 + 2 * MS)], RULES)
    assert d.seats == (4,) and "only seat" in d.reason
    assert in_window(T0, T0, RULES) and not in_window(T0 - 1, T0, RULES)
    assert not in_window(T0, None, RULES)


def test_bad_rules_and_seats_rejected():
    with pytest.raises(ValueError, match="window"):
        RaceRules(window_ns=0)
    with pytest.raises(ValueError, match="tie"):
        RaceRules(tie_ns=-1)
    with pytest.raises(ValueError, match="lockout"):
        RaceRules(early_lockout_ns=-5)
    with pytest.raises(ValueError, match="different"):
        last_slapper(T0, [0, 0], [], RULES)
    with pytest.raises(ValueError, match="at least one"):
        first_finisher(T0, [], [], RULES)


def test_first_presses_collapses_bursts_keeping_first_time():
    burst = [Press(0, T0), Press(0, T0 + MS), Press(0, T0 + 3 * MS), Press(1, T0 + MS)]
    assert first_presses(burst, 5 * MS) == (Press(0, T0), Press(1, T0 + MS))
    assert first_presses([Press(0, T0), Press(0, T0 + 6 * MS)], 5 * MS) == (
        Press(0, T0),
        Press(0, T0 + 6 * MS),
    )


@given(
    st.lists(st.integers(min_value=0, max_value=2_000 * MS), min_size=2, max_size=6, unique=True),
    st.randoms(use_true_random=False),
)
def test_order_of_presses_never_matters(times, rnd):
    seats = list(range(len(times)))
    presses = [Press(s, T0 + t) for s, t in zip(seats, times, strict=True)]
    shuffled = list(presses)
    rnd.shuffle(shuffled)
    rules = RaceRules(tie_ns=0)
    a, b = last_slapper(T0, seats, presses, rules), last_slapper(T0, seats, shuffled, rules)
    assert a == b
    assert a.seats == (max(seats, key=lambda s: times[s]),)
    assert first_finisher(T0, seats, shuffled, rules).seats == (min(seats, key=lambda s: times[s]),)
