"""Every Hit the Deck rule and ruling as a scenario file (tests/data/htd/*.jsonl).

Each test names the rule or the ruling id it proves (docs/rulings/hit-the-deck.md); the
files are ordinary ``tabletop replay`` logs whose ``#`` lines hold the expected verdicts.
"""

from __future__ import annotations

import pytest

from referee.replay_cli import replay_file
from tests.htd_scenarios import DATA, run

ALL = sorted(p.name for p in DATA.glob("*.jsonl"))


@pytest.mark.parametrize("name", ALL)
def test_scenario_replays_with_tabletop_replay(name: str) -> None:
    out = replay_file(DATA / name)
    assert out["game"] == "hit-the-deck"
    assert out["verdicts"], name


def test_rule_match_colour_or_number() -> None:
    assert run("rule_match.jsonl") >= 10


def test_rule_draw_one_and_maybe_play_it_ruling_htd12() -> None:
    assert run("rule_draw_then_play.jsonl") >= 10
