"""Every recorded log, mutated: a log with a wrong type, a missing or huge field, a dropped,
repeated or swapped line replays or is refused with the referee's own input errors, never any
other exception. The dashboard stores events through the same rules, so a crash here would be a
500 there.

Seeded, so every run mutates the same way; 3 000 logs take a few seconds. Longer runs of the
same mutations found piles counted as 2**70 cards in Hit the Deck and DOS (OverflowError; 10**9
cards would have filled the memory); their tests are in ``test_htd_game.py`` and
``test_dos_game.py``. After those fixes, 350 000 more mutated logs found nothing.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from referee.game import GameError
from referee.registry import UnknownGameError
from referee.replay import ReplayError
from referee.replay_cli import LogFileError, replay_file

DATA = Path(__file__).resolve().parent / "data"
LOGS = sorted(p for p in DATA.rglob("*.jsonl") if "hw" not in p.relative_to(DATA).parts)
INPUT_ERRORS = (LogFileError, ReplayError, GameError, UnknownGameError)
ODD_VALUES: list[Any] = [
    *(None, -1, 0, 1, 99, 10**9, 2**70, 1.5, float("inf"), True),
    *("", "x", "R7", "W", "SKIP", "HAND"),
    *([], [1], ["R1", "R1"], {}, {"a": 1}),
]


def mutate(value: Any, rng: random.Random) -> Any:
    """``value`` with one thing changed somewhere inside it."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key, out = rng.choice(list(value)), dict(value)
        if rng.random() < 0.2:
            del out[key]
        else:
            out[key] = mutate(out[key], rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.6:
        out, i = list(value), rng.randrange(len(value))
        r = rng.random()
        if r < 0.3:
            del out[i]
        elif r < 0.5:
            out.insert(i, rng.choice(value))
        else:
            out[i] = mutate(out[i], rng)
        return out
    return rng.choice(ODD_VALUES)


def mutated_log(rng: random.Random) -> list[Any]:
    lines = [
        json.loads(line)
        for line in rng.choice(LOGS).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for _ in range(rng.randint(1, 3)):
        r, n = rng.random(), len(lines)
        if r < 0.15 and n > 2:
            del lines[rng.randrange(1, n)]
        elif r < 0.3 and n > 2:
            i, j = rng.randrange(1, n), rng.randrange(1, n)
            lines[i], lines[j] = lines[j], lines[i]
        elif r < 0.4:
            lines.insert(rng.randrange(1, n + 1), rng.choice(lines[1:] or lines))
        else:
            i = rng.randrange(n)
            lines[i] = mutate(lines[i], rng)
    return lines


def test_the_recorded_logs_are_there() -> None:
    headers = [next(x for x in p.read_text().splitlines() if x.startswith("{")) for p in LOGS]
    games = {json.loads(h).get("game") for h in headers}
    assert len(LOGS) > 20 and {"deck-dash", "dos", "hit-the-deck", "wash-dash"} <= games


@pytest.mark.parametrize("seed", range(6))
def test_a_mutated_log_replays_or_is_refused_with_an_input_error(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    path = tmp_path / "mutated.jsonl"
    outcomes = {"replayed": 0, "refused": 0}
    for _ in range(500):
        log = mutated_log(rng)
        path.write_text("\n".join(json.dumps(line) for line in log) + "\n")
        try:
            replay_file(path)
        except INPUT_ERRORS:
            outcomes["refused"] += 1
        else:
            outcomes["replayed"] += 1
    assert outcomes["replayed"] > 50 and outcomes["refused"] > 50, outcomes  # both paths ran
