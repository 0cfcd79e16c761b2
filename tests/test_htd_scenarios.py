"""Every Hit the Deck rule and ruling as a scenario file (tests/data/htd/*.jsonl).

Each test names the rule or the ruling id it proves (docs/rulings/hit-the-deck.md); the
files are ordinary ``tabletop replay`` logs whose ``#`` lines hold the expected verdicts
(format in tests/htd_scenarios.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.replay_cli import replay_file
from tests.htd_scenarios import DATA, run

ALL = sorted(p.name for p in DATA.glob("*.jsonl"))


@pytest.mark.parametrize("name", ALL)
def test_scenario_replays_with_tabletop_replay(name: str) -> None:
    out = replay_file(DATA / name)
    assert out["game"] == "hit-the-deck"
    assert out["verdicts"], name


@pytest.mark.parametrize("name", ALL)
def test_every_scenario_is_named_by_a_test(name: str) -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    assert f'run("{name}")' in source, f"{name} has no test of its own"


# -- rules ------------------------------------------------------------------------------------
def test_rule_match_colour_or_number() -> None:
    run("rule_match.jsonl")


def test_rule_draw_one_and_maybe_play_it_ruling_htd12() -> None:
    run("rule_draw_then_play.jsonl")


def test_rule_cut_the_deck() -> None:
    run("rule_cut.jsonl")


def test_rule_flip_the_deck_reverses_and_returns_ruling_htd5() -> None:
    run("rule_flip.jsonl")


def test_rule_flip_reveals_flip_is_reshuffled() -> None:
    run("rule_flip_reveals_flip.jsonl")


def test_rule_flip_reveals_hand_starts_a_race_ruling_htd19_penalty_reshuffle() -> None:
    run("rule_flip_reveals_hand.jsonl")


def test_rule_hit_the_deck_with_a_number_chain() -> None:
    run("rule_hit_number.jsonl")


def test_rule_hit_the_deck_with_a_color_chain_ruling_htd11() -> None:
    run("rule_hit_color.jsonl")


def test_rule_hand_race_last_slapper_draws_four() -> None:
    run("rule_hand_race.jsonl")


def test_rule_fake_out_draws_two() -> None:
    run("rule_fake_out.jsonl")


def test_rule_round_end_scoring_and_game_end_ruling_htd20_word_card_last() -> None:
    run("rule_round_end_and_game_end.jsonl")


# -- rulings ----------------------------------------------------------------------------------
def test_ruling_htd2_dealer_rotates_left() -> None:
    run("ruling_htd2_dealer_rotates.jsonl")


def test_ruling_htd3_start_flip_acts_as_dealers() -> None:
    run("ruling_htd3_start_word_card.jsonl")


def test_ruling_htd3_start_cut_and_hit_card() -> None:
    run("ruling_htd3_start_cut_and_hit.jsonl")


def test_ruling_htd4_start_hand_card_is_reshuffled() -> None:
    run("ruling_htd4_start_hand_card.jsonl")


def test_ruling_htd6_cut_reveals_special_cards() -> None:
    run("ruling_htd6_cut_reveals_special.jsonl")


def test_ruling_htd7_cut_position() -> None:
    run("ruling_htd7_cut_position.jsonl")


def test_ruling_htd8_hit_cards_are_wild_but_not_in_a_chain() -> None:
    run("ruling_htd8_hit_cards_are_wild.jsonl")


def test_ruling_htd9_after_a_hand_card() -> None:
    run("ruling_htd9_after_a_hand_card.jsonl")


def test_ruling_htd10_must_play_if_able_can_be_turned_off() -> None:
    run("ruling_htd10_drawing_instead_of_playing.jsonl")


def test_ruling_htd11_word_card_answers_a_colour() -> None:
    run("ruling_htd11_word_card_answers_colour.jsonl")


def test_ruling_htd13_race_close() -> None:
    run("ruling_htd13_race_close.jsonl")


def test_ruling_htd14_trigger_without_time() -> None:
    run("ruling_htd14_trigger_without_time.jsonl")


def test_ruling_htd15_camera_lag_and_early_slaps() -> None:
    run("ruling_htd15_camera_lag.jsonl")


def test_ruling_htd15_early_lockout() -> None:
    run("ruling_htd15_early_lockout.jsonl")


def test_ruling_htd16_tie_all_draw() -> None:
    run("ruling_htd16_tie_all_draw.jsonl")


def test_ruling_htd16_tie_none_draw() -> None:
    run("ruling_htd16_tie_none_draw.jsonl")


def test_ruling_htd17_slaps_after_the_race() -> None:
    run("ruling_htd17_slaps_after_the_race.jsonl")


def test_ruling_htd18_forgot_yell() -> None:
    run("ruling_htd18_forgot_yell.jsonl")


def test_ruling_htd20_going_out_with_a_hand_card() -> None:
    run("ruling_htd20_going_out_with_a_hand_card.jsonl")


def test_ruling_htd20_going_out_after_winning_the_race() -> None:
    run("ruling_htd20_going_out_after_winning_the_race.jsonl")


def test_ruling_htd21_target_score() -> None:
    run("ruling_htd21_target_and_shared_win.jsonl")


def test_ruling_htd21_shared_win() -> None:
    run("ruling_htd21_shared_win.jsonl")


def test_ruling_htd22_empty_draw_pile_ruling_htd19_let_off() -> None:
    run("ruling_htd22_empty_draw_pile.jsonl")


def test_ruling_htd23_word_cards_match_colour_only() -> None:
    run("ruling_htd23_word_cards_match_colour_only.jsonl")


def test_ruling_htd24_table_mode() -> None:
    run("ruling_htd24_table_mode.jsonl")


def test_ruling_htd24_table_mode_scoring() -> None:
    run("ruling_htd24_table_mode_scoring.jsonl")
