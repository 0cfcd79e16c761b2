"""Scenario files for Hit the Deck: an event log with the verdicts it must produce.

A scenario is a ``tabletop replay`` log (header line, then one event per line) whose
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

from referee.events import Event
from referee.hitthedeck.game import GAME
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
        return isinstance(actual, list) and all(
            any(subset(e, a) for a in actual) for e in expected
        )
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


def show(name: str) -> None:
    """Print each event's verdicts (for writing a scenario's expectations)."""
    header, steps = load(DATA / name)
    state = GAME.new_state(header["players"], header.get("options", {}))
    for step in steps:
        state, verdicts = GAME.apply(state, step.event)
        print(f"L{step.line} {step.event.kind} {step.event.seat} {dict(step.event.payload)}")
        for v in verdicts:
            print("   ", v.outcome.value, v.seat, v.reason)
    print(json.dumps(GAME.view(state)))


if __name__ == "__main__":
    import sys

    show(sys.argv[1])
