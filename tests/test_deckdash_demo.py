"""``tabletop demo``: the bundled Deck Dash game is refereed and its scoreboard printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from tests.test_deckdash_replay import LOG, expected_table

DEMO = Path(__file__).parent.parent / "referee" / "deckdash" / "data" / "demo.jsonl"


def test_demo_log_is_the_counted_twelve_dash_game() -> None:
    assert DEMO.read_bytes() == LOG.read_bytes()


def test_tabletop_demo_prints_the_scoreboard(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    totals, won, winners = expected_table()
    assert "0 illegal" in out
    assert "Total " + " ".join(str(t).rjust(6) for t in totals) in out
    assert "Won   " + " ".join(str(w).rjust(6) for w in won) in out
    assert out.rstrip().endswith("Winner: " + ["Ana", "Bea", "Cy"][winners[0]])


def test_tabletop_demo_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["totals"] == expected_table()[0] and board["finished"]
