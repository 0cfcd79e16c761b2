"""Review of ``hw record`` / ``hw replay`` and pad logs: a full disk while recording, numbers
past any clock, a recording begun in a release's bounce, decisions written as races close,
hand-edited headers and marks, failed starts, and scripts that end before every input.

The reviewer's demonstrations: ``record_full.sh``, ``cli_numbers.sh``, ``bad_headers.sh``,
``bad_marks.sh``, ``recorder_midburst.py``, ``decision_order.py``, ``record_paths.sh`` and
``hwtest_scripts.sh``; each test below is one of them, made to hold.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hardware.config import parse_hardware
from hardware.mockpins import NsMockFactory
from hardware.padevents import PadEvent
from hardware.padlog import (
    PadLogError,
    PadRecorder,
    RaceMark,
    check_replay,
    decide,
    read_pad_log,
    replay_pad_log,
)
from hardware.table import Table
from referee.races import RaceRules
from tests.cli_run import run

ROOT = Path(__file__).resolve().parents[1]
MS = 1_000_000
T0 = 1_000 * MS
CONFIG = parse_hardware({"seats": {"0": {"pad": 4}, "1": {"pad": 22}}, "debounce_ms": 5})
CALLS = parse_hardware(
    {"seats": {"0": {"pad": 4, "call": 17}, "1": {"pad": 22, "call": 10}}, "debounce_ms": 5}
)


def _header(**extra: Any) -> dict[str, Any]:
    return {"pad_log": 1, "hardware": CONFIG.to_dict(), "clock": {}, **extra}


def _edge(t_ns: Any = 5 * MS, seat: int = 0, active: bool = True, **more: Any) -> dict[str, Any]:
    return {"edge": {"t_ns": t_ns, "seat": seat, "device": "pad", "active": active, **more}}


def _mark(**fields: Any) -> dict[str, Any]:
    return {"mark": {"race": "last_slapper", "t_ns": 1_000, "seats": [0, 1], **fields}}


def _write(path: Path, *lines: Any, end: str = "\n") -> Path:
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + end
    path.write_text(text, encoding="utf-8")
    return path


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


# A child ``tabletop`` whose files may not grow past LIMIT bytes (RLIMIT_FSIZE, set once Python
# runs: the kernel then fails a write as on a full disk; Python ignores SIGXFSZ).
LIMITED = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
from referee.cli import main
sys.exit(main(sys.argv[2:]))
"""


def limited_tabletop(limit: int, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", LIMITED, str(limit), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


# -- 1. a full disk while recording ----------------------------------------------------------
def test_ruling_log2_a_full_disk_stops_hw_record_with_one_line_and_keeps_whole_lines(tmp_path):
    """Before: one traceback per edge (57 for ``--script all --bounce 2`` in 2 KiB), the
    generic "[Errno 27] File too large", and a cut last line that made ``hw replay`` refuse
    the whole recording."""
    log = tmp_path / "full.jsonl"
    done = limited_tabletop(2048, "hw", "record", str(log), "--mock", "--script", "all")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    said = [x for x in done.stderr.splitlines() if not x.startswith("seat ")]
    edges = len(log.read_text().splitlines()) - 1
    assert said == [
        f"tabletop hw record: cannot write {log}: File too large "
        f"(recording stopped after {edges} edges, kept in the file)"
    ]
    assert edges > 0 and log.read_bytes().endswith(b"\n")  # cut back to its last whole line
    recorded = read_pad_log(log)
    assert not recorded.warnings and len(recorded.edges) == edges
    assert check_replay(recorded, replay_pad_log(recorded)).identical is True


def test_ruling_log2_a_recording_that_cannot_write_its_header_stops_at_once_and_leaves_nothing(
    tmp_path,
):
    """Nothing recorded: no file left to block the retry, and no waiting out ``--seconds``."""
    log = tmp_path / "none.jsonl"
    began = time.monotonic()
    done = limited_tabletop(200, "hw", "record", str(log), "--mock", "--seconds", "600")
    assert time.monotonic() - began < 60
    assert (done.returncode, one_line(done.stderr)) == (
        2,
        f"tabletop hw record: cannot write {log}: File too large (nothing was recorded)",
    )
    assert not log.exists()


def test_a_recorder_on_a_full_disk_keeps_its_first_error_and_the_pads_go_on(caplog):
    """/dev/full: every write fails with ENOSPC. The table's edge thread hears nothing of it
    (before: ``log.exception`` per edge, a traceback each on a terminal with no logging set
    up); the program recording finds it in ``error``, and ``mark`` raises it."""
    with Table(CONFIG, NsMockFactory()) as table, PadRecorder(table, "/dev/full") as rec:
        with caplog.at_level(logging.DEBUG):
            assert rec.failed.is_set() and rec.error is not None
            assert rec.error.errno == errno.ENOSPC
            first = rec.error
            assert table.press(0, "pad", at_ns=T0) is not None  # the pads go on
            assert table.press(1, "pad", at_ns=T0 + 20 * MS) is not None
        assert caplog.records == [] and rec.error is first
        assert (rec.lines_written, rec.edges_written) == (0, 0)
        with pytest.raises(OSError, match="the recording stopped: No space left on device"):
            rec.mark(RaceMark("last_slapper", T0, (0, 1)))


def test_ruling_log2_a_log_cut_mid_line_replays_what_came_before(tmp_path, capsys):
    """A power cut or a full disk leaves a last line without its newline: still evidence."""
    whole = [_header(), _edge(5 * MS, accepted=True), _edge(6 * MS, active=False, accepted=False)]
    cut = json.dumps(_edge(50 * MS, seat=1, accepted=True))[:-9]
    path = _write(tmp_path / "cut.jsonl", *whole, cut, end="")
    log = read_pad_log(path)
    assert len(log.edges) == 2
    assert log.warnings == [
        f"{path}:4: the last line was cut short (no newline at its end: the recording stopped "
        "mid-line); replaying what came before it"
    ]
    code, out, err = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 0 and "accepted presses identical to the recording (2 edges)" in out
    assert one_line(err) == f"tabletop hw replay: warning: {log.warnings[0]}"


@pytest.mark.parametrize(
    ("lines", "end", "message"),
    [
        # a malformed line in the middle stays an error, with or without a newline at the end
        ([_header(), '{"edge": {"t_ns": 5', _edge()], "", r":2: not JSON"),
        ([_header(), '{"edge": {"t_ns": 5', _edge()], "\n", r":2: not JSON"),
        # a whole file whose last line has its newline is not cut: a bad line is bad
        ([_header(), '{"edge": {"t_ns": 5'], "\n", r":2: not JSON"),
        # nothing before the cut: no recording at all
        (['{"pad_log": 1, "hardw'], "", r":1: the header was cut short"),
    ],
)
def test_ruling_log2_only_a_last_line_without_its_newline_may_be_cut(tmp_path, lines, end, message):
    with pytest.raises(PadLogError, match=message):
        read_pad_log(_write(tmp_path / "bad.jsonl", *lines, end=end))


def test_a_hand_written_log_without_a_final_newline_reads_whole(tmp_path):
    log = read_pad_log(_write(tmp_path / "ok.jsonl", _header(), _edge(), end=""))
    assert len(log.edges) == 1 and log.warnings == []


# -- 2. numbers past any clock -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hw", "replay", "{log}", "--speed", "1e-300"], "--speed: 1e-300 is too small: give at"),
        (["hw", "replay", "{log}", "--speed", "1001"], "--speed: 1001 is too large: give at most"),
        (["hw", "record", "{out}", "--mock", "--seconds", "1e20"], "--seconds: 1e20 is too large"),
        (["hw", "test", "--mock", "--timeout", "1e300"], "--timeout: 1e300 is too large"),
    ],
)
def test_a_pace_or_a_duration_past_any_game_is_refused_by_argparse(tmp_path, capsys, argv, message):
    """Before: ``--speed 1e-300`` and ``--seconds 1e20`` were OverflowError tracebacks
    (time.sleep), ``--timeout 1e300`` waited for ever."""
    log = ROOT / "tests" / "data" / "hw" / "session.jsonl"
    out = tmp_path / "out.jsonl"
    argv = [a.format(log=log, out=out) for a in argv]
    code, _, err = run(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (_edge(10**20), r":3: bad entry: t_ns must fit in 64 bits .*got a number of 21 digits"),
        (_edge(10**400), r":3: bad entry: t_ns must fit in 64 bits .*of 401 digits"),
        (_edge(-(2**63) - 1), r":3: bad entry: t_ns must fit in 64 bits"),
        (_mark(t_ns=2**63), r":3: bad entry: t_ns must fit in 64 bits"),
        (_mark(rules={"window_ns": 2**64}), r":3: bad entry: window_ns must fit in 64 bits"),
    ],
)
def test_a_time_past_64_bits_is_refused_naming_the_line(tmp_path, capsys, line, message):
    path = _write(tmp_path / "big.jsonl", _header(), _edge(0), line)
    with pytest.raises(PadLogError, match=message):
        read_pad_log(path)
    code, _, err = run(["hw", "replay", str(path)], capsys)
    assert code == 2 and one_line(err).startswith(f"tabletop hw replay: {path}:3: bad entry")


def test_a_paced_replay_refuses_a_gap_it_would_wait_years_for(tmp_path, capsys):
    """Before: ``--speed`` paced a gap of 2**62 ns (146 years) by sleeping it (or, past the
    platform's time_t, an OverflowError traceback). ``--fast`` replays it at once."""
    path = _write(tmp_path / "gap.jsonl", _header(), _edge(0), _edge(2**62, seat=1))
    with pytest.raises(PadLogError, match=r"gap\.jsonl:3: comes 146 years after the edge before"):
        replay_pad_log(read_pad_log(path), speed=1.0)
    code, _, err = run(["hw", "replay", str(path), "--speed", "1000"], capsys)
    assert code == 2
    assert one_line(err).endswith(
        "paced at speed 1000 that is a wait of 53.4 days, more than 7 days: replay it as fast "
        "as possible (--fast)"
    )
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 0 and "2 edges → 2 presses" in out
    with pytest.raises(ValueError, match="replay speed must be a positive number"):
        replay_pad_log(read_pad_log(path), speed=float("nan"))


def test_an_overflow_left_anywhere_is_one_line_not_a_traceback(tmp_path, capsys, monkeypatch):
    import hardware.padlog

    def overflow(*args: Any, **kwargs: Any) -> None:
        raise OverflowError("timestamp out of range for platform time_t")

    monkeypatch.setattr(hardware.padlog, "replay_pad_log", overflow)
    path = _write(tmp_path / "ok.jsonl", _header(), _edge())
    code, _, err = run(["hw", "replay", str(path)], capsys)
    assert (code, one_line(err)) == (
        2,
        "tabletop hw replay: timestamp out of range for platform time_t",
    )


# -- 3. a recording begun while a release still bounces ----------------------------------------
def _record_midburst(path: Path) -> list[PadEvent]:
    """Seat 0 slaps and lifts its hand; the recording starts 0.2 ms into the release, whose
    bounce (0.4 ms in) the live debounce drops; seat 1 slaps later."""
    live: list[PadEvent] = []
    with Table(CONFIG, NsMockFactory()) as table:
        table.bus.subscribe(live.append)
        table.drive(0, "pad", True, T0)
        table.drive(0, "pad", False, T0 + 80 * MS)
        with PadRecorder(table, path):
            table.drive(0, "pad", True, T0 + 80 * MS + 400_000)  # the release's bounce
            table.drive(0, "pad", False, T0 + 80 * MS + 900_000)
            table.drive(1, "pad", True, T0 + 500 * MS)
            table.drive(1, "pad", False, T0 + 580 * MS)
    return live


def test_ruling_hw7_a_recording_begun_in_a_release_bounce_replays_as_the_table_judged(tmp_path):
    """HW-7. Before: the header kept each input's level but not its debounce, so the replay
    took the bounce for a press (a fake-out the table never saw) and said the recording
    differed."""
    path = tmp_path / "midburst.jsonl"
    live = _record_midburst(path)
    assert [(e.seat, e.t_ns) for e in live] == [(0, T0), (1, T0 + 500 * MS)]
    header = json.loads(path.read_text().splitlines()[0])
    assert header["last_edge_ns"] == {"0": {"pad": T0 + 80 * MS}}
    log = read_pad_log(path)
    assert log.last_edges == {(0, "pad"): T0 + 80 * MS}
    outcome = replay_pad_log(log)
    assert [(e.seat, e.t_ns) for e in outcome.events] == [(1, T0 + 500 * MS)]
    assert check_replay(log, outcome).identical is True


def test_ruling_hw7_a_log_without_last_edges_replays_as_before(tmp_path):
    """Older logs have no ``last_edge_ns``: every input starts quiet, as they always did."""
    path = tmp_path / "midburst.jsonl"
    _record_midburst(path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    del lines[0]["last_edge_ns"]
    log = read_pad_log(_write(tmp_path / "old.jsonl", *lines))
    assert log.last_edges == {}
    events = replay_pad_log(log).events
    assert [(e.seat, e.t_ns) for e in events] == [(0, T0 + 80 * MS + 400_000), (1, T0 + 500 * MS)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"0": {"pad": True}}, r":1: bad entry: last_edge_ns must be a JSON integer"),
        ({"0": {"pad": 1.5}}, r":1: bad entry: last_edge_ns must be a JSON integer"),
        ({"0": {"pad": 10**20}}, r":1: bad entry: last_edge_ns must fit in 64 bits"),
        ({"3": {"pad": 5}}, r":1: last_edge_ns: seat 3 'pad' is not wired"),
        ({"x": {"pad": 5}}, r":1: last_edge_ns: 'x' is not a seat number"),
        ([5], r":1: last_edge_ns must map seats to \{device: t_ns\}"),
    ],
)
def test_bad_last_edge_times_name_the_header(tmp_path, value, message):
    with pytest.raises(PadLogError, match=message):
        read_pad_log(_write(tmp_path / "bad.jsonl", _header(last_edge_ns=value), _edge()))


# -- 4. decisions written as their races close -------------------------------------------------
def _record_two_races(path: Path) -> None:
    """A Wash Dash "go" (a minute's window) starts before a slap race (3 s): the program
    writes each decision as its race closes, so the slap race's comes first in the file."""
    events: list[PadEvent] = []
    with Table(CALLS, NsMockFactory()) as table, PadRecorder(table, path) as rec:
        table.bus.subscribe(events.append)
        go = RaceMark("first_finisher", 1_000 * MS, (0, 1), RaceRules(window_ns=60_000 * MS))
        hand = RaceMark("last_slapper", 2_000 * MS, (0, 1))
        rec.mark(go)
        rec.mark(hand)
        table.press(0, "pad", 2_100 * MS)
        table.press(1, "pad", 2_300 * MS)
        table.press(1, "call", 30_000 * MS)
        rec.decision(decide([hand], events)[0])
        rec.decision(decide([go], events)[0])


def test_ruling_hw7_decisions_are_matched_by_race_and_trigger_not_by_position(tmp_path, capsys):
    """Before: DECISIONS DIFFER, exit 1, for two identical decisions in another order."""
    path = tmp_path / "two.jsonl"
    _record_two_races(path)
    log = read_pad_log(path)
    assert [d["kind"] for d in log.decisions] == ["last_slapper", "first_finisher"]
    check = check_replay(log, replay_pad_log(log))
    assert check.decisions_same is True and check.identical is True
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 0 and "decisions identical to the recording (2 races)" in out


def test_ruling_hw7_a_race_the_live_table_never_decided_is_a_difference(tmp_path, capsys):
    """Two races; the log holds the later one's decision only. The recording did not stop
    before the first closed (a later race's decision is there), so the live table never
    decided it: a difference, not "not recorded" (which a recording cut short explains)."""
    marks = [RaceMark("last_slapper", t0 * MS, (0, 1)) for t0 in (1_000, 9_000)]
    edges = []
    for t0 in (1_000, 9_000):
        for seat, dt in ((0, 10), (1, 40)):
            edges += [((t0 + dt) * MS, seat, True), ((t0 + dt + 90) * MS, seat, False)]
    decisions = decide(marks, [PadEvent(s, "pad", t) for t, s, a in edges if a])
    path = _write(
        tmp_path / "one_missing.jsonl",
        _header(),
        *[_edge(t, s, a, accepted=a) for t, s, a in sorted(edges)],
        *[{"mark": m.to_dict()} for m in marks],
        {"decision": decisions[1].to_dict()},
    )
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 1 and "decided in the replay, but the log holds no decision for it" in out
    late = _write(  # the same log cut before the second race closed: nothing to blame
        tmp_path / "cut.jsonl",
        _header(),
        *[_edge(t, s, a, accepted=a) for t, s, a in sorted(edges)],
        *[{"mark": m.to_dict()} for m in marks],
        {"decision": decisions[0].to_dict()},
    )
    code, out, _ = run(["hw", "replay", str(late), "--fast"], capsys)
    assert code == 0 and "1 replayed race with no recorded decision" in out


def _retouch(path: Path, kind: str, change: Any) -> Path:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for line in lines:
        if line.get("decision", {}).get("kind") == kind:
            change(line["decision"])
    return _write(path, *lines)


def test_ruling_hw7_a_differing_decision_names_its_race_and_what_differs(tmp_path, capsys):
    path = tmp_path / "two.jsonl"
    _record_two_races(path)

    def other_loser(d: dict[str, Any]) -> None:
        d["seats"] = [0]
        d["evidence"][1]["relative_ns"] = 1

    _retouch(path, "last_slapper", other_loser)
    log = read_pad_log(path)
    check = check_replay(log, replay_pad_log(log))
    assert check.decision_differences == (
        f"last_slapper at t={2_000 * MS}: seats recorded [0], replayed [1]; evidence of seat 1:"
        f" relative_ns recorded 1, replayed {300 * MS}",
    )
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 1
    assert f"DECISIONS DIFFER on 1 of 2 races:\n  last_slapper at t={2_000 * MS}: seats" in out


def test_a_decision_s_reason_is_words_and_not_compared(tmp_path, capsys):
    """A game words its decisions with the players' names ("Bob slapped last"), the replay
    with seat numbers: the same decision all the same."""
    path = tmp_path / "two.jsonl"
    _record_two_races(path)
    _retouch(path, "last_slapper", lambda d: d.update(reason="Bob slapped last."))
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 0 and "decisions identical to the recording" in out


def test_a_race_with_no_recorded_decision_is_not_a_difference(tmp_path, capsys):
    """A recording that stopped before its last race closed: that race is not compared."""
    path = tmp_path / "two.jsonl"
    _record_two_races(path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    kept = [x for x in lines if x.get("decision", {}).get("kind") != "first_finisher"]
    log = read_pad_log(_write(path, *kept))
    assert [d["kind"] for d in log.decisions] == ["last_slapper"]
    check = check_replay(log, replay_pad_log(log))
    assert check.decisions_same is True and check.decisions_not_recorded == 1
    code, out, _ = run(["hw", "replay", str(path), "--fast"], capsys)
    assert code == 0 and "(1 replayed race with no recorded decision)" in out


def test_a_recorded_decision_the_replay_never_judged_is_a_difference(tmp_path):
    path = tmp_path / "two.jsonl"
    _record_two_races(path)
    _retouch(path, "first_finisher", lambda d: d.update(trigger_ns=7))
    log = read_pad_log(path)
    check = check_replay(log, replay_pad_log(log))
    assert check.decision_differences == (
        "first_finisher at t=7: recorded, but the replay judged no such race",
    )
    assert check.identical is False


# -- 5 and 6. hand-edited headers, marks and decisions -----------------------------------------
@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([_header(clock=5)], r":1: bad header: clock must be a JSON object, got 5"),
        ([_header(clock=None)], r":1: bad header: clock must be a JSON object, got None"),
        ([_header(clock="ab")], r":1: bad header: clock must be a JSON object, got 'ab'"),
        ([_header(clock=[["a", 1]])], r":1: bad header: clock must be a JSON object"),
        ([_header(pad_log=True), _edge()], r":1: the first line must be a pad_log 1 header"),
        ([_header(pad_log=2)], r":1: a pad log of version 2 \(written by a newer tabletop\)"),
        ([_header(pad_log=0)], r":1: a pad log of version 0: this tabletop reads version 1"),
        ([_header(), _mark(device=[1])], r":2: bad entry: a mark's device must be one of pad"),
        ([_header(), _mark(device={"x": 1})], r":2: bad entry: a mark's device must be one of"),
        ([_header(), _mark(device="led")], r":2: bad entry: a mark's device .*got 'led'"),
        ([_header(), _mark(race=["last_slapper"])], r":2: bad entry \(unknown race \["),
        ([_header(), _mark(t_ns=True)], r":2: bad entry: t_ns must be a JSON integer, got True"),
        ([_header(), _mark(t_ns=1.9)], r":2: bad entry: t_ns must be a JSON integer, got 1.9"),
        ([_header(), _mark(seats=[0, 0])], r":2: bad entry: a mark names a seat twice: \[0, 0\]"),
        ([_header(), _mark(seats=[])], r":2: bad entry: a mark needs at least one seat"),
        (
            [_header(), _mark(rules={"window_ns": True, "tie_ns": False})],
            r":2: bad entry: window_ns must be a JSON integer, got True",
        ),
        ([_header(), _mark(rules={"tie_ns": False})], r":2: bad entry: tie_ns must be a JSON"),
        ([_header(), _mark(rules={"window": 5})], r":2: bad entry: unknown rule 'window'"),
        ([_header(), _mark(rules=[1])], r":2: bad entry: a mark's rules must be a JSON object"),
        ([_header(), _mark(rules={"window_ns": 0})], r":2: bad entry \(race window must be"),
    ],
)
def test_hand_edited_headers_and_marks_are_one_line_naming_it(tmp_path, capsys, lines, message):
    """Before: tracebacks (a clock that is no object; a mark's device a list), an error
    without its line ("clock": "ab"; duplicate seats), or accepted as something else
    (``pad_log: true`` as version 1, a mark's ``t_ns: true`` as 1 ns and 1.9 as 1, rules of
    ``true``/``false`` as 1 ns / 0 ns)."""
    path = _write(tmp_path / "edited.jsonl", *lines)
    with pytest.raises(PadLogError, match=message):
        read_pad_log(path)
    code, _, err = run(["hw", "replay", "--fast", str(path)], capsys)
    assert code == 2 and one_line(err).startswith(f"tabletop hw replay: {path}:")


def test_a_mark_with_no_rules_or_lockout_reads_as_before(tmp_path):
    lines = [_header(), _mark(), _mark(t_ns=9 * 10**9, rules={"early_lockout_ns": None})]
    log = read_pad_log(_write(tmp_path / "ok.jsonl", *lines))
    assert [m.rules for m in log.marks] == [RaceRules(), RaceRules()]
    assert [m.device for m in log.marks] == ["pad", "pad"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": ["x"]}, r":3: bad entry \(unknown race \['x'\]"),
        ({"trigger_ns": "1"}, r":3: bad entry: trigger_ns must be a JSON integer"),
    ],
)
def test_a_decision_that_names_no_race_is_refused(tmp_path, change, message):
    decision = decide([RaceMark("last_slapper", 1_000, (0, 1))], [])[0].to_dict()
    lines = [_header(), _mark(), {"decision": {**decision, **change}}]
    with pytest.raises(PadLogError, match=message):
        read_pad_log(_write(tmp_path / "bad.jsonl", *lines))


# -- 7. a failed start, and a pipe ---------------------------------------------------------------
def test_ruling_cli1_a_failed_script_leaves_no_file_and_the_retry_records(tmp_path, capsys):
    """Before: the bad script failed after the header was written, and the retry under the
    same name was refused ("exists already")."""
    out = tmp_path / "take1.jsonl"
    code, _, err = run(["hw", "record", str(out), "--mock", "--script", "7:pad"], capsys)
    assert code == 2 and "script item '7:pad' is not a wired input" in one_line(err)
    assert not out.exists()
    code, _, _ = run(["hw", "record", str(out), "--mock", "--script", "0:pad"], capsys)
    assert code == 0 and len(read_pad_log(out).edges) == 2


def test_ruling_cli1_script_without_mock_on_real_pins_leaves_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(Table, "is_virtual", property(lambda self: False))  # GPIO pins
    out = tmp_path / "take1.jsonl"
    code, _, err = run(["hw", "record", str(out), "--script", "0:pad"], capsys)
    assert (code, one_line(err)) == (2, "tabletop hw record: --script needs --mock")
    assert not out.exists()


def test_ruling_cli1_hw_record_refuses_a_pipe_at_once(tmp_path):
    """Before: opening a FIFO nobody reads blocked ``hw record`` for ever."""
    fifo = tmp_path / "pads.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "hw", "record", str(fifo), "--mock"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert (done.returncode, one_line(done.stderr)) == (
        2,
        f"tabletop hw record: {fifo} is not a regular file (a pipe or a device): a pad log is "
        "written to a file",
    )


# -- lesser: a script that ends before every input ---------------------------------------------
@pytest.mark.parametrize("script", ["", "0:pad"])
def test_hw_test_ends_with_its_script_and_says_what_it_never_pressed(capsys, script):
    """Before: it waited the whole ``--timeout``, then advised "check wiring" for inputs the
    script never pressed on virtual pads."""
    began = time.monotonic()
    code, out, _ = run(["hw", "test", "--mock", "--script", script, "--timeout", "60"], capsys)
    assert time.monotonic() - began < 30
    assert code == 1 and "check wiring" not in out
    assert "5:call — the script never pressed them (--script all presses every input)" in out


@pytest.mark.parametrize("seat", ["０", "²", "٣"])
def test_a_script_seat_in_digits_int_reads_otherwise_is_not_a_wired_input(seat):
    """``str.isdigit`` takes "²" (then ``int`` raised its own message) and full-width "０"
    (read as seat 0): a script names seats in ASCII digits, as the pin map does."""
    from hardware.config import default_config
    from hardware.hwtest import parse_script
    from hardware.table import Table

    with (
        Table.open(default_config("virtual"), "virtual") as table,
        pytest.raises(ValueError, match="is not a wired input"),
    ):
        parse_script(f"{seat}:pad", table)
