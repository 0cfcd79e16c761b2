"""The bench scripts say what they measured: a goal is failed by any error on the way, a cached
video is the one asked for, a play seen as a question counts as seen, and bad arguments end in
one line. Behaviour only: no timing here is asserted."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import threading
import time
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

from bench import web_streams
from vision.table.sequences import Truth, Video, table_layout

REPO = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


# -- web_streams.py ----------------------------------------------------------------------


def _streams_run(**changes) -> web_streams.Run:
    """A run of 2 streams that met every part of the goal, but for ``changes``."""
    ok = {"open": 2, "refused": 0, "ended_early": 0, "bytes": 9, "messages": 6, "pushed": 2}
    fields = {
        "times": {"/scoreboard": [0.01, 0.02]},
        "errors": [],
        "sse": ok,
        "mjpeg": dict(ok),
        "events": 12,
        "open_sse": 2,
        "open_mjpeg": 2,
        "ended": 0,
    }
    return web_streams.Run(**{**fields, **changes})


def test_web_streams_a_referee_failure_of_any_kind_is_an_error_of_the_run(monkeypatch):
    def refused(port, stop, counts):
        raise AssertionError("game not created: 400")

    monkeypatch.setattr(web_streams, "_referee", refused)
    monkeypatch.setattr(web_streams, "ERRORS", [])
    web_streams.referee_loop(1, threading.Event(), {"events": 0})
    assert web_streams.ERRORS == ["referee: AssertionError('game not created: 400')"]


def test_web_streams_fails_its_goal_on_an_error_no_events_or_an_sse_stream_never_pushed(
    monkeypatch, capsys
):
    assert all(web_streams.goal_checks(_streams_run(), 2).values())
    failing = {
        "no errors": {"errors": ["referee: ConnectionResetError()"]},
        "the referee appended events": {"events": 0},
        "every SSE stream was pushed": {"sse": {**_streams_run().sse, "pushed": 1}},
    }
    for part, change in failing.items():
        checks = web_streams.goal_checks(_streams_run(**change), 2)
        assert [name for name, met in checks.items() if not met] == [part]
    # the referee's error reaches the verdict; with no page loaded the table still prints
    broken = _streams_run(times={}, errors=["referee: ConnectionResetError()"])
    monkeypatch.setattr(web_streams, "measure", lambda args, tmp: broken)
    assert web_streams.main(["--streams", "2", "--json"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "(no page request completed)" in "\n".join(out)
    assert out[-2].endswith("-> FAIL")
    assert json.loads(out[-1])["p50_ms"] is None and json.loads(out[-1])["errors"] == 1


def test_web_streams_counts_a_message_whose_mark_is_split_across_two_reads():
    mark = web_streams.MARKS["/api/stream"]
    n1, tail = web_streams.count_marks(b"", b"data: {}\n\nevent: st", mark)
    n2, _ = web_streams.count_marks(tail, b"ate\ndata: {}\n\nevent: state\n", mark)
    assert (n1, n2) == (0, 2)


def test_web_streams_removes_its_temp_folder_when_the_run_fails(monkeypatch, tmp_path):
    def no_frames(folder, n=12):
        raise RuntimeError("no camera frames")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(web_streams, "make_frames", no_frames)
    monkeypatch.setattr(sys, "argv", ["web_streams.py", "--seconds", "1"])
    with pytest.raises(RuntimeError):
        web_streams.main()
    assert list(tmp_path.glob("web-bench-*")) == []


# -- table.py ----------------------------------------------------------------------------


def test_a_cached_speed_video_is_rendered_again_for_other_render_arguments(tmp_path):
    from bench.table import _cached_video

    made: list[int] = []

    def make() -> Video:
        made.append(1)
        frames = [np.full((4, 6, 3), 10 * len(made) + i, np.uint8) for i in range(2)]
        return Video(frames, Truth(plays=[(0, f"R{len(made)}")]), table_layout())

    args = Namespace(cache=str(tmp_path / "v.pkl"), seed=7, plays=2, still=30)
    first = _cached_video(args, make)
    again = _cached_video(args, make)
    assert len(made) == 1 and again.truth.plays == [(0, "R1")]
    assert all(np.array_equal(a, b) for a, b in zip(first.frames, again.frames, strict=True))
    for change in ({"seed": 8}, {"plays": 5}, {"still": 20}):
        video = _cached_video(Namespace(**{**vars(args), **change}), make)
        assert video.truth.plays == [(0, f"R{len(made)}")]  # just rendered, not the cache's
    assert len(made) == 4


class VirtualClock:
    """The speed bench's clock, passing only when it sleeps: every frame is taken, at once."""

    process_time = staticmethod(time.process_time)

    def __init__(self) -> None:
        self.ns = 0

    def monotonic_ns(self) -> int:
        return self.ns

    def sleep(self, seconds: float) -> None:
        self.ns += max(1, math.ceil(seconds * 1e9))


def test_speed_counts_a_deck_steal_asked_about_as_a_play_seen_and_prints_its_goals(
    monkeypatch, capsys, tmp_path
):
    """Seed 29's one play is a Deck Steal on the pile, asked about (TBL-17): the videos'
    bench counts the family's answer, and so does the speed bench, saying so."""
    import bench.table as table

    monkeypatch.setattr(table, "time", VirtualClock())
    argv = ["speed", "--detector", "oracle", "--seed", "29", "--plays", "1", "--still", "20"]
    argv += ["--cache", str(tmp_path / "v.pkl")]
    assert table.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = dict(line.split(None, 1) for line in lines if not line.startswith("goal: "))
    assert rows["plays"] == rows["plays_confirmed"] == rows["plays_confirmed_as_questions"] == "1"
    goal_lines = [line for line in lines if line.startswith("goal: ")]
    assert goal_lines[0].startswith("goal: ≤ 1 core on average: ") and len(goal_lines) == 2
    assert table.main([*argv, "--json"]) == 0  # the cached video, as JSON
    result = json.loads(capsys.readouterr().out)
    assert result["plays_confirmed_as_questions"] == 1 and len(result["latency_ms"]) == 1
    assert len(result["goals"]) == 2 and "≤ 1 core on average" in result["goals"]


def test_the_table_bench_judges_only_the_goals_the_docs_state():
    from bench.table import goals, report

    model = {"detector": "model", "spurious": 1, "missed": 0}
    assert goals("videos", model) == {}
    assert report("videos", model)[-1] == "goal: none stated for this run (docs/VISION-TABLE.md)"
    assert goals("videos", {**model, "detector": "oracle"}) == {
        "0 spurious, 0 missed (watcher logic)": False
    }
    assert list(goals("dryers", {"exact_with_reference": 0.979}).values()) == [False]
    speed = {"cpu_cores_avg": 0.05, "plays": 8, "plays_confirmed": 8, "latency_ms_p95": 134.0}
    assert all(goals("speed", speed).values())
    # a missed play is never seen: the p95 of the others does not meet the goal for it
    assert list(goals("speed", {**speed, "plays_confirmed": 7}).values()) == [True, False]


# -- race.py, vision.py, feed_push.py, log_append.py -------------------------------------------


def test_race_prints_a_table_and_whether_its_goal_is_met(capsys):
    from bench.race import main

    code = main(["--edges", "20", "--races", "10"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["measure", "value", "goal"]
    assert any(line.startswith("(b) races misordered") for line in lines)
    assert lines[-1] == f"goal: p99 ≤ 1 ms and 0 misordered: {'met' if code == 0 else 'NOT met'}"


def test_the_vision_bench_says_whether_its_ratios_meet_the_goals():
    from bench.vision import goal_lines

    met = goal_lines({"throughput_ratio": 2.43, "memory_ratio": 0.215, "rounds": 15})
    missed = goal_lines({"throughput_ratio": 1.9, "memory_ratio": 0.4, "rounds": 1})
    assert [line.rsplit(": ", 1)[1] for line in met] == ["met", "met"]
    assert [line.rsplit(": ", 1)[1] for line in missed] == ["NOT met", "NOT met"]


def test_the_feed_bench_checks_the_claim_that_a_push_sends_only_the_new_entries():
    from bench.feed_push import goal_line

    assert goal_line([{"full_bytes": 6003, "delta_bytes": 1737}]).endswith(": met")
    assert goal_line([{"full_bytes": 900, "delta_bytes": 900}]).endswith(": NOT met")


def test_the_log_bench_names_the_filesystem_it_measured_and_warns_on_a_ram_disk(
    monkeypatch, capsys, tmp_path
):
    import bench.log_append as log_append

    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/vda / ext4 rw 0 0\ntmpfs /tmp tmpfs rw 0 0\ntmpfs /tmp/x\\040y tmpfs rw 0 0\n"
    )
    assert log_append.filesystem(Path("/tmp/bench/a"), mounts) == "tmpfs"
    assert log_append.filesystem(Path("/tmpfoo"), mounts) == "ext4"
    assert log_append.filesystem(Path("/tmp/x y/z"), mounts) == "tmpfs"
    assert log_append.filesystem(Path("/"), tmp_path / "none") == "unknown"

    monkeypatch.setattr(log_append, "filesystem", lambda folder: "tmpfs")
    log_append.main(["--events", "3", "--dir", str(tmp_path), "--json"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"measured in {tmp_path} (filesystem: tmpfs)"
    assert out[1].startswith("warning: tmpfs is in memory")
    assert out[-2].startswith("FULL / NORMAL: p50 ")
    assert json.loads(out[-1])["filesystem"] == "tmpfs"


# -- bad arguments -------------------------------------------------------------------------


def test_cards_eval_md_answers_a_missing_argument_or_help_without_a_traceback(tmp_path):
    bare = _run("cards_eval_md.py")
    assert bare.returncode == 2 and "Traceback" not in bare.stderr
    assert "required: prefix" in bare.stderr
    assert _run("cards_eval_md.py", "--help").returncode == 0
    missing = _run("cards_eval_md.py", str(tmp_path / "r4"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert f"no report {tmp_path / 'r4'}-scenes.json" in missing.stderr


def test_dash_check_refuses_zero_oracle_hands_in_one_line():
    done = _run("dash_check.py", "--hands", "1", "--oracle-hands", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--oracle-hands: 0 is too small: give at least 1" in done.stderr
