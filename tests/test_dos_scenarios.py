"""DOS scenarios: event logs with the verdicts the referee must give (tests/data/dos/).

A scenario is a ``tabletop replay`` log (header line, then one event per line) with
expectations in comment lines after an event:

* ``#! OUTCOME text`` — one of the event's verdicts has that outcome and its reason
  contains ``text`` (case-insensitive); ``#! error text`` — the event is malformed.
* ``#= path value`` — after the event, ``path`` (dots, into the view; ``board.`` for the
  scoreboard) equals the JSON ``value``.

Any event without an ``illegal``/``error`` expectation must be accepted. Scenarios without
malformed events are also replayed through ``tabletop replay``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.dos.game import GAME
from referee.events import Event, EventError
from referee.replay_cli import replay_file
from referee.verdicts import Outcome

DATA = Path(__file__).parent / "data" / "dos"


def _lookup(root: dict[str, Any], path: str) -> Any:
    node: Any = root
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def run_scenario(name: str) -> Any:
    """Play ``tests/data/dos/NAME.jsonl`` and check every expectation; return the state."""
    path = DATA / f"{name}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    state = GAME.new_state(header["players"], header.get("options", {}))
    checked = 0
    malformed = False
    steps: list[tuple[int, Event, list[str], list[tuple[str, str]]]] = []
    for lineno, line in enumerate(lines[1:], start=2):
        text = line.strip()
        if text.startswith("#!"):
            outcome, _, words = text[2:].strip().partition(" ")
            steps[-1][2].append(f"{outcome} {words}")
        elif text.startswith("#="):
            where, _, value = text[2:].strip().partition(" ")
            steps[-1][3].append((where, value))
        elif text and not text.startswith("#"):
            steps.append((lineno, Event.from_dict(json.loads(text)), [], []))
    for lineno, event, verdict_checks, view_checks in steps:
        where = f"{path.name}:{lineno}"
        errors = [c for c in verdict_checks if c.startswith("error ")]
        if errors:
            malformed = True
            with pytest.raises(EventError) as caught:
                GAME.apply(state, event)
            for check in errors:
                assert check[6:].lower() in str(caught.value).lower(), where
            checked += 1
            continue
        new, verdicts = GAME.apply(state, event)
        got = [(v.outcome.value, v.reason) for v in verdicts]
        rejected = any(v.outcome is Outcome.ILLEGAL for v in verdicts)
        expects_illegal = any(c.startswith("illegal ") for c in verdict_checks)
        assert rejected == expects_illegal, f"{where}: {got}"
        if rejected:
            assert new is state, f"{where}: an illegal event changed the state"
        for check in verdict_checks:
            outcome, _, words = check.partition(" ")
            assert any(o == outcome and words.lower() in r.lower() for o, r in got), (
                f"{where}: expected {outcome} '{words}', got {got}"
            )
            checked += 1
        state = new
        roots = {"view": GAME.view(state), "board": GAME.scoreboard(state).to_dict()}
        for dotted, value in view_checks:
            root = "board" if dotted.startswith("board.") else "view"
            dotted = dotted.removeprefix("board.")
            assert _lookup(roots[root], dotted) == json.loads(value), f"{where}: {dotted}"
            checked += 1
    assert checked, f"{path.name} checks nothing"
    if not malformed:  # a log never holds malformed events: the web layer refuses them
        replay_file(path)  # so the scenario is also a valid `tabletop replay` log
    return state


# -- the rules -------------------------------------------------------------------------
def test_rule_match_colour_or_number_one_card_per_pile() -> None:
    run_scenario("rule_matching")


def test_rule_draw_one_card_per_pile_not_played() -> None:
    run_scenario("rule_drawing")


def test_rule_skip_closes_its_pile_for_the_next_turn() -> None:
    run_scenario("rule_skip")


def test_rule_actions_run_left_pile_then_right_pile() -> None:
    run_scenario("rule_action_order")


def test_rule_draw_four_goes_on_anything_and_next_player_draws_four() -> None:
    run_scenario("rule_draw_four")


def test_rule_draw_four_counter_with_same_colour_skip() -> None:
    run_scenario("rule_draw_four_counter")


def test_rule_combo_two_identical_numbers() -> None:
    run_scenario("rule_combo")


def test_rule_dos_call_and_callout_penalty() -> None:
    run_scenario("rule_dos_call")


def test_rule_one_card_at_end_of_turn_draws_three() -> None:
    run_scenario("rule_last_card")


def test_rule_empty_hand_ends_the_game() -> None:
    run_scenario("rule_game_end")


def test_rule_optional_draw_pile_out_ending() -> None:
    run_scenario("rule_draw_pile_out")


# -- the rulings -----------------------------------------------------------------------
def test_ruling_dos1_deal_fourteen_each() -> None:
    run_scenario("dos1_deal")


def test_ruling_dos3_first_player_left_of_dealer() -> None:
    run_scenario("dos3_seats")


def test_ruling_dos4_start_cards_have_no_effect() -> None:
    run_scenario("dos4_start_cards")


def test_ruling_dos5_playing_is_optional() -> None:
    run_scenario("dos5_optional_play")


def test_ruling_dos6_drawn_card_only_on_its_pile() -> None:
    run_scenario("dos6_drawn_card")


def test_ruling_dos7_draw_for_a_closed_pile() -> None:
    run_scenario("dos7_closed_pile_draw")


def test_ruling_dos7_no_draw_for_a_closed_pile_option() -> None:
    run_scenario("dos7_closed_pile_no_draw")


def test_ruling_dos8_draw_four_any_time_but_not_on_closed_pile() -> None:
    run_scenario("dos8_draw_four")


def test_ruling_dos9_victims_keep_their_turn() -> None:
    run_scenario("dos9_victim_turn")


def test_ruling_dos10_counter_out_of_turn_and_take_four() -> None:
    run_scenario("dos10_counter")


def test_ruling_dos11_combo_with_drawn_card_and_not_actions() -> None:
    run_scenario("dos11_combo")


def test_ruling_dos12_call_window() -> None:
    run_scenario("dos12_call_window")


def test_ruling_dos13_last_card_draw_before_actions() -> None:
    run_scenario("dos13_last_card_order")


def test_ruling_dos14_going_out_skips_actions() -> None:
    run_scenario("dos14_going_out")


def test_ruling_dos15_rounds_add_cards_left() -> None:
    run_scenario("dos15_rounds")


def test_ruling_dos16_reshuffle_when_draw_pile_empty() -> None:
    run_scenario("dos16_reshuffle")


def test_ruling_dos17_draw_pile_out_ends_after_the_turn() -> None:
    run_scenario("dos17_draw_pile_out")


def test_ruling_dos19_reverse_with_two_players() -> None:
    run_scenario("dos19_two_players")


def test_ruling_dos20_table_mode_counts() -> None:
    run_scenario("dos20_table_mode")


def test_every_scenario_file_is_used() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    unused = [p.stem for p in DATA.glob("*.jsonl") if f'"{p.stem}"' not in source]
    assert not unused


def _verdict_data(name: str) -> list[dict[str, Any]]:
    """Every verdict's data when the scenario's events are played (malformed ones skipped)."""
    lines = (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    state = GAME.new_state(header["players"], header.get("options", {}))
    data: list[dict[str, Any]] = []
    for line in lines[1:]:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            state, verdicts = GAME.apply(state, Event.from_dict(json.loads(text)))
        except EventError:
            continue
        data += [dict(v.data) for v in verdicts]
    return data


SCENARIOS = ("rule_dos_call", "rule_last_card", "rule_combo")


def test_penalty_draws_say_so_in_their_data() -> None:
    """A missed DOS call and a turn ended on one card are penalties (a rule broken), marked
    in the verdict's data as Hit the Deck marks its own, so the tablet shows them as such;
    a card's effect (a combo, Draw Two) is not. Before, no DOS draw said which it was."""
    drawn = {name: [d for d in _verdict_data(name) if "draws" in d] for name in SCENARIOS}
    assert "no_dos_call" in [d.get("penalty") for d in drawn["rule_dos_call"]]
    assert "one_card_left" in [d.get("penalty") for d in drawn["rule_last_card"]]
    assert drawn["rule_combo"] and all("penalty" not in d for d in drawn["rule_combo"])
