"""Record / replay: a pad log replays through mock pins to identical decisions."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hardware.config import parse_hardware
from hardware.mockpins import NsMockFactory
from hardware.padevents import PadEvent
from hardware.padlog import (
    PadLogError,
    PadRecorder,
    RaceMark,
    decide,
    read_pad_log,
    replay_pad_log,
)
from hardware.table import Table
from referee.races import RaceRules

SESSION = Path(__file__).parent / "data" / "hw" / "session.jsonl"
MS = 1_000_000


def test_recorded_session_replays_to_identical_decisions():
    log = read_pad_log(SESSION)
    assert len(log.edges) > 90 and len(log.marks) == 4 and len(log.decisions) == 4
    outcome = replay_pad_log(log)  # as fast as possible
    assert [d.to_dict() for d in outcome.decisions] == log.decisions

    # the software path accepted exactly the edges the live table accepted
    def order(events):
        return sorted(events, key=lambda e: (e.t_ns, e.seat))

    assert order(outcome.events) == order(log.accepted)
    assert [d.seats for d in outcome.decisions] == [(1,), (1,), (0, 1), (1,)]
    # seat 2 slaps before the first card (a fake-out) and after the first race's window (late:
    # the referee ignores it unless a turn action came between, which a pad log cannot show)
    assert [(e.seat, e.t_ns) for e in outcome.fake_outs] == [(2, 1_000_200 * MS)]
    late = [(s.press.seat, s.press.t_ns, s.race_t_ns) for s in outcome.late_slaps]
    assert late == [(2, 1_006_000 * MS, 1_001_000 * MS)]


def test_scaled_replay_reaches_the_same_decisions():
    log = read_pad_log(SESSION)
    log.edges = [e for e in log.edges if e.t_ns < log.marks[1].t_ns]  # the first race only
    outcome = replay_pad_log(log, speed=20.0)  # ~0.1 s of pacing
    assert outcome.decisions[0].to_dict() == log.decisions[0]


def test_record_then_replay_round_trip(tmp_path):
    config = parse_hardware({"seats": {"0": {"pad": 4}, "1": {"pad": 22}}, "debounce_ms": 2})
    path = tmp_path / "game.jsonl"
    live: list[PadEvent] = []
    t = 5_000 * MS
    mark = RaceMark("last_slapper", t, (0, 1), RaceRules(early_lockout_ns=50 * MS))
    with Table(config, NsMockFactory()) as table, PadRecorder(table, path) as rec:
        table.bus.subscribe(live.append)
        table.drive(1, "pad", True, t - 10 * MS)  # anticipates the card: locked out
        table.drive(1, "pad", False, t - 10 * MS + 100_000)
        table.drive(1, "pad", True, t - 10 * MS + 300_000)  # bounce
        table.drive(1, "pad", False, t + 40 * MS)
        table.press(1, "pad", at_ns=t + 90 * MS)
        table.press(0, "pad", at_ns=t + 200 * MS)
        rec.mark(mark)
        (live_decision,) = decide([mark], live)
        rec.decision(live_decision)
    assert live_decision.seats == (1,) and "locked out" in live_decision.reason
    log = read_pad_log(path)
    assert len(log.edges) == 8
    outcome = replay_pad_log(log)
    assert [d.to_dict() for d in outcome.decisions] == log.decisions
    assert [e.t_ns for e in outcome.events] == [e.t_ns for e in live]


def test_recorder_writes_to_an_open_stream():
    config = parse_hardware({"seats": {"0": {"pad": 4}}})
    buf = io.StringIO()
    with Table(config, NsMockFactory()) as table, PadRecorder(table, buf):
        table.press(0, "pad", at_ns=1_000)
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert lines[0]["pad_log"] == 1 and lines[0]["clock"]["name"] == "ns-mock"
    assert lines[1] == {"edge": {"t_ns": 1_000, "seat": 0, "device": "pad", "active": True,
                                 "accepted": True}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty pad log"),
        ('{"edge": {}}\n', r":1: the first line must be a pad_log 1 header"),
        ('{"pad_log": 1}\n', r":1: bad hardware header"),
        ('{"pad_log": 1, "hardware": {"seats": {"0": {"pad": 0}}}}\n', "BCM 0 is reserved"),
        ("nope\n", r":1: not JSON"),
        ('{"pad_log": 1, "hardware": {"seats": {"0": {"pad": 4}}}}\n{"edge": {"seat": 0}}\n',
         r":2: bad entry"),
        ('{"pad_log": 1, "hardware": {"seats": {"0": {"pad": 4}}}}\n{"beep": 1}\n',
         r":2: expected 'edge', 'mark' or 'decision'"),
        ('{"pad_log": 1, "hardware": {"seats": {"0": {"pad": 4}}}}\n'
         '{"mark": {"race": "fastest", "t_ns": 1, "seats": [0]}}\n',
         r":2: bad entry .*unknown race"),
    ],
)  # fmt: skip
def test_bad_pad_logs_name_the_line(tmp_path, text, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PadLogError, match=message):
        read_pad_log(path)
