"""Every Hit the Deck rule and ruling as a scenario file (tests/data/htd/*.jsonl).

Each test names the rule or the ruling id it proves (docs/RULINGS.md); the
files are ordinary ``tabletop replay`` logs whose ``#`` lines hold the expected verdicts.

Format: a scenario is a ``tabletop replay`` log (header line, then one event per line) whose
``#`` comment lines, ignored by replay, carry the expectations for the event above them:

    # expect {"outcome": "illegal", "seat": 1, "reason": "matches neither", "data": {...}}
    # absent {"outcome": "illegal"}          no verdict of the event matches this
    # state  {"turn": 2, "top": "R3"}         a subset of GAME.view(state) after the event
    # score  {"totals": [0, 12, 7]}           a subset of the scoreboard after the event

``reason`` matches as a substring; ``data`` as a recursive subset (see ``subset``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event
from referee.hitthedeck.game import GAME
from referee.replay_cli import replay_file
from referee.verdicts import Verdict

DATA = Path(__file__).parent / "data" / "htd"
MARKS = ("expect", "absent", "state", "score")


@dataclass
class Step:
    line: int
    event: Event
    checks: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)


def load(path: Path) -> tuple[dict[str, Any], list[Step]]:
    header: dict[str, Any] | None = None
    steps: list[Step] = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.strip()
        if not text:
            continue
        if text.startswith("#"):
            words = text[1:].strip().split(None, 1)
            if words and words[0] in MARKS:
                assert steps, f"{path.name}:{lineno}: a check needs an event above it"
                steps[-1].checks.append((words[0], json.loads(words[1]), lineno))
            continue
        data = json.loads(text)
        if header is None:
            header = data
            continue
        steps.append(Step(lineno, Event.from_dict(data)))
    assert header is not None, f"{path.name}: no header"
    return header, steps


def subset(expected: Any, actual: Any) -> bool:
    """Dicts match on the keys given; a list of dicts matches when each expected item
    matches some actual item; anything else must be equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and subset(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list) and expected and all(isinstance(e, dict) for e in expected):
        return isinstance(actual, list) and all(any(subset(e, a) for a in actual) for e in expected)
    return expected == actual


def matches(check: dict[str, Any], verdict: Verdict) -> bool:
    got = verdict.to_dict()
    for key, want in check.items():
        if key == "reason":
            if want not in verdict.reason:
                return False
        elif key == "data":
            if not subset(want, got.get("data", {})):
                return False
        elif got.get(key) != want:
            return False
    return True


def run(name: str) -> int:
    """Play a scenario file and assert its expectations; returns how many were checked."""
    path = DATA / name
    header, steps = load(path)
    assert header["game"] == GAME.name
    state = GAME.new_state(header["players"], header.get("options", {}))
    checked = 0
    for step in steps:
        state, verdicts = GAME.apply(state, step.event)
        said = "\n  ".join(json.dumps(v.to_dict()) for v in verdicts)
        for mark, check, lineno in step.checks:
            where = f"{name}:{lineno} after line {step.line} ({step.event.kind})"
            if mark == "expect":
                assert any(matches(check, v) for v in verdicts), f"{where}: {check}\n  {said}"
            elif mark == "absent":
                assert not any(matches(check, v) for v in verdicts), f"{where}: {check}\n  {said}"
            elif mark == "state":
                view = GAME.view(state)
                assert subset(check, view), f"{where}: {check}\n  view: {view}"
            else:
                board = GAME.scoreboard(state).to_dict()
                assert subset(check, board), f"{where}: {check}\n  board: {board}"
            checked += 1
    assert checked, f"{name}: a scenario must check something"
    return checked


def show(name: str) -> None:  # python -c "from tests.test_htd_scenarios import show; show(..)"
    """Print each event's verdicts (for writing a scenario's expectations)."""
    header, steps = load(DATA / name)
    state = GAME.new_state(header["players"], header.get("options", {}))
    for step in steps:
        state, verdicts = GAME.apply(state, step.event)
        print(f"L{step.line} {step.event.kind} {step.event.seat} {dict(step.event.payload)}")
        for v in verdicts:
            print("   ", v.outcome.value, v.seat, v.reason)
    print(json.dumps(GAME.view(state)))


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


def test_ruling_htd6_only_flips_left() -> None:
    run("ruling_htd6_only_flips_left.jsonl")


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
