"""Hardware in the loop: real gpiozero devices on MockFactory pins drive the referee.

The camera's half (a Hand card seen on the pile) comes from the scripted log; the pads'
half comes from bouncing edges on mock pins, through the debouncer and the event bus, into
the SQLite event log. A recording of those pads replays to the same verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

from hardware.config import parse_hardware
from hardware.mockpins import NsMockFactory
from hardware.padevents import PadEvent
from hardware.padlog import PadRecorder, read_pad_log, replay_pad_log
from hardware.table import Table
from referee.eventlog import EventLog
from referee.events import Event
from referee.replay_cli import read_jsonl

SCENARIO = Path(__file__).parent / "data" / "htd" / "rule_hand_race.jsonl"
MS = 1_000_000
CARD_NS = 10_000 * MS  # when the camera saw Bob's Hand card (from the scenario)
PINS = {"0": {"pad": 4, "call": 17}, "1": {"pad": 22, "call": 10}, "2": {"pad": 11, "call": 5}}


def opening_events() -> tuple[list[str], dict, list[Event]]:
    """The scenario up to and including the Hand card (slaps come from the pads instead)."""
    _, players, options, events = read_jsonl(SCENARIO, None)
    upto = next(i for i, e in enumerate(events) if e.kind == "play" and e.t_ns == CARD_NS)
    return players, options, events[: upto + 1]


def slap_with_bounce(table: Table, seat: int, at_ns: int) -> None:
    """A real pad chatters: three quick edges before it settles."""
    for k in range(3):
        table.drive(seat, "pad", True, at_ns + k * 300_000)
        table.drive(seat, "pad", False, at_ns + k * 300_000 + 150_000)


def referee_with_pads(tmp_path: Path, pad_events: list[PadEvent]) -> list[dict]:
    players, options, opening = opening_events()
    log = EventLog(tmp_path / "hil.db")
    game_id = log.create_game("hit-the-deck", players, options)
    for event in opening:
        log.append(game_id, event)
    for pad in sorted(pad_events, key=lambda p: p.t_ns):
        log.append(game_id, pad.to_event("hit-the-deck"))
    result = log.rebuild(game_id)
    log.close()
    return [v.to_dict() for _, v in result.verdicts if v.data.get("penalty")]


def test_pads_on_mock_pins_decide_the_last_slapper_and_replay_identically(tmp_path):
    config = parse_hardware({"seats": PINS, "debounce_ms": 5})
    recording = tmp_path / "pads.jsonl"
    live: list[PadEvent] = []
    with Table(config, NsMockFactory()) as table, PadRecorder(table, recording):
        table.bus.subscribe(live.append)
        slap_with_bounce(table, 2, CARD_NS + 150 * MS)
        slap_with_bounce(table, 0, CARD_NS + 200 * MS)
        slap_with_bounce(table, 1, CARD_NS + 400 * MS)

    # Bounce is filtered at the source and each press keeps its first edge's time.
    assert [(p.seat, p.t_ns - CARD_NS) for p in live] == [
        (2, 150 * MS),
        (0, 200 * MS),
        (1, 400 * MS),
    ]
    assert all(p.to_event("hit-the-deck").kind == "slap" for p in live)

    penalties = referee_with_pads(tmp_path, live)
    assert len(penalties) == 1
    (verdict,) = penalties
    assert verdict["seat"] == 1 and verdict["data"]["penalty"] == "last_slap"
    assert verdict["data"]["draw"] == 4
    relative = {e["seat"]: e["relative_ns"] for e in verdict["data"]["race"]["evidence"]}
    assert relative == {0: 200 * MS, 1: 400 * MS, 2: 150 * MS}

    # The recording holds every edge, bounces included, and replays to the same verdict.
    edges = [json.loads(line) for line in recording.read_text().splitlines()[1:]]
    assert sum("edge" in e for e in edges) == 18
    replayed = replay_pad_log(read_pad_log(recording)).events
    assert [(p.seat, p.t_ns) for p in replayed] == [(p.seat, p.t_ns) for p in live]
    assert referee_with_pads(tmp_path / "again", replayed) == penalties
