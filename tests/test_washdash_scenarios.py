"""Wash Dash scenarios: each file in tests/data/washdash/ is a replayable event log whose
header also says what the referee must answer (``expect``):

* ``illegal``: exactly the event numbers (1 = first event line) that must be refused;
* ``verdicts``: ``[seq, outcome, text]`` — some verdict of that event has that outcome and
  its reason contains the text;
* ``state`` / ``scoreboard``: keys that must equal the final ``view`` / scoreboard.

The ruling tests below name the scenario that shows each ruling (docs/RULINGS.md).
"""

import json
from pathlib import Path

import pytest

from referee.replay import replay
from referee.replay_cli import read_jsonl
from referee.washdash.game import GAME

DATA = Path(__file__).parent / "data" / "washdash"
SCENARIOS = sorted(DATA.glob("*.jsonl"))


def _header(path: Path) -> dict:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            return json.loads(line)
    raise AssertionError(f"{path} is empty")


def run_scenario(name: str):
    path = DATA / name
    game, players, options, events = read_jsonl(path, None)
    assert game == "wash-dash"
    expect = _header(path)["expect"]
    result = replay(GAME, players, options, events)
    by_seq = {step.seq: step.verdicts for step in result.steps}
    refused = sorted(
        seq for seq, vs in by_seq.items() if any(v.outcome.value == "illegal" for v in vs)
    )
    assert refused == expect.get("illegal", []), [
        (s, [v.reason for v in by_seq[s]]) for s in refused
    ]
    for seq, outcome, text in expect.get("verdicts", []):
        found = [v for v in by_seq[seq] if v.outcome.value == outcome]
        assert any(text.lower() in v.reason.lower() for v in found), (
            seq,
            outcome,
            text,
            [(v.outcome.value, v.reason) for v in by_seq[seq]],
        )
    view = GAME.view(result.state)
    for key, want in expect.get("state", {}).items():
        assert view[key] == want, (key, view[key])
    board = GAME.scoreboard(result.state).to_dict()
    for key, want in expect.get("scoreboard", {}).items():
        got = board[key]
        assert got == want, (key, got)
    return result


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path):
    run_scenario(path.name)


def test_every_scenario_has_expectations():
    assert len(SCENARIOS) >= 15
    for path in SCENARIOS:
        expect = _header(path).get("expect", {})
        assert expect.get("verdicts"), path.name


# --- one test per ruling (docs/RULINGS.md) ------------------------------------


def test_ruling_wd2_bar_rule():
    run_scenario("bar-rule.jsonl")


def test_ruling_wd4_extra_items_ignored_by_default():
    run_scenario("extra-items-ignored.jsonl")


def test_ruling_wd4_extra_items_forbidden_by_option():
    run_scenario("extra-items-forbidden.jsonl")


def test_ruling_wd6_first_done_received_takes_the_card():
    run_scenario("first-done-received-takes-the-card.jsonl")


def test_ruling_wd7_wrong_done_is_a_mistake_by_default():
    run_scenario("mistake-costs-an-earlier-card.jsonl")
    run_scenario("two-players-wrong-first-claim.jsonl")


def test_ruling_wd7_retry_option_refuses_a_wrong_done():
    run_scenario("retry-option.jsonl")
    run_scenario("retry-reading-reopens-round.jsonl")


def test_ruling_wd8_first_bonus_fastest_by_timestamp():
    run_scenario("first-bonus-both-to-fastest.jsonl")


def test_ruling_wd8_first_bonus_skips_a_mistake():
    run_scenario("first-bonus-skips-a-mistake.jsonl")


def test_ruling_wd9_draw_on_one_card_at_a_time():
    run_scenario("draw-on-when-only-events.jsonl")


def test_ruling_wd10_untaken_tasks_leave_the_game():
    run_scenario("two-players-first-completion-only.jsonl")


def test_ruling_wd11_forfeit_an_earlier_task_card():
    run_scenario("mistake-costs-an-earlier-card.jsonl")


def test_ruling_wd12_done_judged_by_next_dryer_reading():
    run_scenario("done-then-dryer-reading.jsonl")


def test_ruling_wd13_oldest_player_reveals_first_then_next_seat():
    run_scenario("setup-five-players-oldest-first.jsonl")
    run_scenario("one-task-per-player-and-round-end.jsonl")


def test_ruling_wd15_table_declares_event_mistakes():
    run_scenario("one-handed-declared-mistake.jsonl")
