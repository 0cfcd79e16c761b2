"""HW-10: a Pi rebooted mid-game keeps the log's time line going forward.

CLOCK_MONOTONIC starts again at a reboot. A previous boot that ran for days is played here
by times logged far ahead of this machine's clock; the server then starts as a new boot.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from referee import eventlog as eventlog_module
from referee.eventlog import MIN_REBOOT_GAP_NS, EventLog
from referee.events import Event
from tests.test_web_race_timer import _wait_for_no_race
from tests.test_web_routes import Tablet, make_app
from web.services.log_clock import LogClock, read_boot_id

DAY_NS = 24 * 3600 * 1_000_000_000
SECOND_NS = 1_000_000_000


def _log_with_times(tmp_path: Path, *times: int) -> tuple[EventLog, int]:
    log = EventLog(tmp_path / "t.db")
    game_id = log.create_game("hit-the-deck", ["Ann", "Bob"])
    for t_ns in times:
        log.append(game_id, Event("slap", seat=0, t_ns=t_ns))
    return log, game_id


def test_ruling_hw10_an_empty_log_leaves_the_clock_as_it_is(tmp_path: Path):
    log = EventLog(tmp_path / "t.db")
    assert log.boot_offset("boot-a", now_ns=5 * SECOND_NS) == 0


def test_ruling_hw10_a_new_boot_stamps_after_everything_logged(tmp_path: Path):
    old = 10 * DAY_NS
    log, _ = _log_with_times(tmp_path, old - SECOND_NS, old)
    now = 30 * SECOND_NS  # 30 s after the reboot
    offset = log.boot_offset("boot-b", now_ns=now)
    assert now + offset >= old + MIN_REBOOT_GAP_NS
    # the same boot keeps its offset (a server restarted within it), whatever is logged since
    log.append(1, Event("slap", seat=1, t_ns=now + offset + 5 * SECOND_NS))
    assert log.boot_offset("boot-b", now_ns=now + 60 * SECOND_NS) == offset


def test_ruling_hw10_the_wall_clock_measures_the_downtime_when_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Stored two minutes ago by the wall clock: the new boot's now is two minutes on."""
    old = 10 * DAY_NS
    log, _ = _log_with_times(tmp_path, old)
    wall = time.time()
    monkeypatch.setattr(eventlog_module.time, "time", lambda: wall + 120)
    offset = log.boot_offset("boot-b", now_ns=30 * SECOND_NS)
    assert abs(30 * SECOND_NS + offset - (old + 120 * SECOND_NS)) < SECOND_NS


def test_ruling_hw10_a_clock_already_past_the_log_is_left_alone(tmp_path: Path):
    log, _ = _log_with_times(tmp_path, 50 * SECOND_NS)
    assert log.boot_offset("boot-b", now_ns=600 * SECOND_NS) == 0


def test_ruling_hw10_only_running_games_and_plausible_times_count(tmp_path: Path):
    log, game_id = _log_with_times(tmp_path, 10 * DAY_NS)
    log.end_game(game_id, {"winner": "Ann"})
    other = log.create_game("hit-the-deck", ["Ann", "Bob"])
    log.append(other, Event("slap", seat=0, t_ns=(1 << 62) + 1))  # typed, no machine's clock
    assert log.boot_offset("boot-b", now_ns=30 * SECOND_NS) == 0


def test_ruling_hw10_without_a_boot_id_the_offset_is_worked_out_at_each_start(tmp_path: Path):
    old = 10 * DAY_NS
    log, _ = _log_with_times(tmp_path, old)
    first = log.boot_offset(None, now_ns=30 * SECOND_NS)
    assert 30 * SECOND_NS + first >= old + MIN_REBOOT_GAP_NS
    assert log.boot_offset(None, now_ns=30 * SECOND_NS + first) == 0  # now past the log


def test_the_kernel_boot_id_is_read_or_none(tmp_path: Path):
    missing = tmp_path / "no-such-file"
    assert read_boot_id(missing) is None
    (tmp_path / "boot_id").write_text("9331c1c8-4daf\n")
    assert read_boot_id(tmp_path / "boot_id") == "9331c1c8-4daf"
    clock = LogClock(offset_ns=7, monotonic_ns=lambda: 100)
    assert (clock.now_ns(), clock.from_monotonic(5)) == (107, 12)


def _race_before_the_power_cut(tmp_path: Path, slap_at: int) -> tuple[Tablet, int]:
    """A Hand card (300 ms window) and Ann's slap, stamped on the previous boot's clock."""
    tablet = Tablet(make_app(tmp_path, race_timer=False))
    tablet.set_pin()
    body = {
        "game": "hit-the-deck",
        "players": ["Ann", "Bob", "Cy"],
        "options": {"race_window_ms": 300},
    }
    game_id = int(tablet.post("/api/games", body).json["id"])
    for event in (
        {"kind": "deal", "payload": {"hands": [7, 7, 7]}},
        {"kind": "turn_up", "payload": {"card": "R3"}},
        {"kind": "play", "seat": 1, "payload": {"card": "R4"}},
        {"kind": "play", "seat": 2, "payload": {"card": "HAND"}, "t_ns": slap_at - 50_000_000},
        {"kind": "slap", "seat": 0, "t_ns": slap_at, "source": "pad"},
    ):
        assert tablet.send(game_id, event).status_code == 201, event
    assert tablet.snapshot(game_id)["view"]["race"] is not None
    return tablet, game_id


def test_ruling_hw10_a_race_open_at_a_reboot_is_judged_when_the_table_is_back(tmp_path: Path):
    """The power went mid-race after 10 days of uptime. Before, the restarted server's clock
    was 10 days behind the race: its timer took the race for another clock's and left it open
    (turns refused until someone closed it by hand), and a slap on a pad was stamped 10 days
    before the card it answered. Now the race's window has passed on the log's time line:
    the timer judges it at start, and what the pads stamp comes after it."""
    old = time.monotonic_ns() + 10 * DAY_NS
    _race_before_the_power_cut(tmp_path, slap_at=old)
    back = Tablet(make_app(tmp_path, boot_id="after-the-reboot"))
    back.login()
    snap = _wait_for_no_race(back, 1, seconds=10)
    last = snap["feed"][-1]
    assert (last["event"]["kind"], last["event"]["source"]) == ("race_close", "pad")
    assert "Bob and Cy both count as last" in " ".join(v["reason"] for v in last["verdicts"])
    assert back.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
    slap = back.snapshot(1)["feed"][-1]["event"]
    assert slap["kind"] == "slap" and slap["t_ns"] > old + MIN_REBOOT_GAP_NS


def test_ruling_hw10_a_race_open_across_a_long_outage_is_judged_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The Pi stayed off for ten minutes (the wall clock says so): the race's deadline is ten
    minutes before the new boot's now, far enough for the live timer to take it for another
    clock's, but a race left open at start is judged all the same."""
    old = time.monotonic_ns() + 10 * DAY_NS
    _race_before_the_power_cut(tmp_path, slap_at=old)
    wall = time.time()
    monkeypatch.setattr(eventlog_module.time, "time", lambda: wall + 600)
    back = Tablet(make_app(tmp_path, boot_id="after-the-reboot"))
    back.login()
    snap = _wait_for_no_race(back, 1, seconds=10)
    assert snap["feed"][-1]["event"]["kind"] == "race_close"


def test_ruling_hw10_a_tap_stamped_now_after_a_reboot_follows_the_log(tmp_path: Path):
    old = time.monotonic_ns() + 10 * DAY_NS
    _race_before_the_power_cut(tmp_path, slap_at=old)
    back = Tablet(make_app(tmp_path, boot_id="after-the-reboot", race_timer=False))
    back.login()
    assert back.send(1, {"kind": "slap", "seat": 1, "t_ns": "now"}).status_code == 201
    assert back.snapshot(1)["feed"][-1]["event"]["t_ns"] > old


def test_ruling_hw10_camera_frames_are_stamped_on_the_log_s_time_line(tmp_path: Path):
    old = time.monotonic_ns() + 10 * DAY_NS
    _race_before_the_power_cut(tmp_path, slap_at=old)
    frames = tmp_path / "frames"
    frames.mkdir()
    import cv2
    import numpy as np

    cv2.imwrite(str(frames / "a.png"), np.zeros((48, 64, 3), np.uint8))
    app = make_app(tmp_path, boot_id="after-the-reboot", camera=str(frames), race_timer=False)
    feed = app.extensions["tabletop"].camera
    seen: list[int] = []
    unsubscribe = feed.subscribe(lambda image, t_ns: seen.append(t_ns))
    try:
        until = time.monotonic() + 10
        while not seen and time.monotonic() < until:
            time.sleep(0.02)
    finally:
        unsubscribe()
        feed.close()
    assert seen and seen[0] > old
