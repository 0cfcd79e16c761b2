"""Review r28: defects found in the day's changes (HW-10 clock, one server per database)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_log_clock import DAY_NS, _race_before_the_power_cut
from tests.test_web_routes import Tablet, make_app
from web.server_lock import ServerRunning, hold


def test_a_pad_press_is_shown_on_the_log_s_time_line_after_a_reboot(tmp_path: Path):
    """After a reboot (HW-10) the pads page got each press twice, first with the raw
    monotonic time (ten days before the game's events here), then with the log's: the same
    press showed two different times, and the first matched nothing in the log."""
    old = time.monotonic_ns() + 10 * DAY_NS
    _race_before_the_power_cut(tmp_path, slap_at=old)
    back = Tablet(make_app(tmp_path, boot_id="after-the-reboot", race_timer=False))
    back.login()
    heard = back.services.hub.subscribe("pads")
    try:
        assert back.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
        notes = [heard.get(timeout=1), heard.get(timeout=1)]
    finally:
        back.services.hub.unsubscribe(heard)
    logged = back.snapshot(1)["feed"][-1]["event"]
    assert logged["kind"] == "slap" and logged["t_ns"] > old
    assert [(topic, note["t_ns"]) for topic, note in notes] == [("pads", logged["t_ns"])] * 2


def test_a_database_named_through_a_link_is_held_by_the_first_server(tmp_path: Path):
    """``--db`` through a symbolic link (a home-folder link to the real file) is the same
    database: before, the lock file sat beside the link, and a second server started."""
    real = tmp_path / "var" / "tabletop.db"
    real.parent.mkdir()
    link = tmp_path / "tabletop.db"
    link.symlink_to(real)
    held = hold(real)
    assert held is not None
    try:
        with pytest.raises(ServerRunning, match="another `tabletop serve`"):
            hold(link)
    finally:
        held.close()


def test_a_question_accepted_as_its_game_ends_does_not_come_back(tmp_path: Path):
    """A tablet accepts a camera question while another ends the game: the event is refused
    (the game has ended) and, before, the question was put back on the board, where nothing
    could answer it or take it off until four newer games pushed it out."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game()
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    board = tablet.services.prompts
    question = {
        "prompt": "confirm_card",
        "message": "Did seat 0 discard R7?",
        "suggestion": {"kind": "discard", "seat": 0, "payload": {"card": "R7"}},
        "t_ns": 0,
    }
    item = board.add(game_id, question)  # asked just before the game ended
    r = tablet.post(f"/api/games/{game_id}/prompts/{item.id}/accept", {})
    assert r.status_code == 409 and "ended" in r.json["error"]
    assert board.count() == 0
