"""Review r27 of the hardware layer: held pads in recordings, failing subscribers, honest
replay verdicts, validated pad logs and pin maps, and closing what the table opened."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hardware.config import PinMapError, default_config, parse_hardware
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
from hardware.service import PadsService
from hardware.table import StampedButton, Table
from referee.cli import main
from referee.races import RaceRules

MS = 1_000_000
T0 = 10_000 * MS
CONFIG = parse_hardware({"seats": {"0": {"pad": 4}, "1": {"pad": 22}}, "debounce_ms": 5})


def _header(**extra: Any) -> str:
    return json.dumps({"pad_log": 1, "hardware": CONFIG.to_dict(), "clock": {}, **extra})


def _write(path: Path, *lines: Any) -> Path:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- 1. a recording that starts while a pad is held ---------------------------------------
def _record_with_a_held_pad(path: Path) -> list[PadEvent]:
    """Seat 0 rests a hand on its pad before recording starts, lifts it (the release
    bounces 0.5 ms later) and never slaps; seat 1 slaps after the card."""
    live: list[PadEvent] = []
    with Table(CONFIG, NsMockFactory()) as table:
        table.bus.subscribe(live.append)
        table.drive(0, "pad", True, T0)
        with PadRecorder(table, path) as rec:
            table.drive(0, "pad", False, T0 + 100 * MS)
            table.drive(0, "pad", True, T0 + 100 * MS + 500_000)  # release bounce
            table.drive(0, "pad", False, T0 + 101 * MS)
            table.press(1, "pad", T0 + 400 * MS)
            mark = RaceMark("last_slapper", T0 + 50 * MS, (0, 1), RaceRules())
            rec.mark(mark)
            rec.decision(decide([mark], [e for e in live if e.t_ns > T0])[0])
    return [e for e in live if e.t_ns > T0]


def test_a_recording_started_with_a_pad_held_replays_exactly(tmp_path, capsys):
    path = tmp_path / "held.jsonl"
    live = _record_with_a_held_pad(path)
    assert [(e.seat, e.t_ns - T0) for e in live] == [(1, 400 * MS)]  # the bounce was dropped
    log = read_pad_log(path)
    outcome = replay_pad_log(log)
    assert [(e.seat, e.t_ns) for e in outcome.events] == [(e.seat, e.t_ns) for e in live]
    assert [d.to_dict() for d in outcome.decisions] == log.decisions
    assert log.start == {(0, "pad"): True, (1, "pad"): False}
    assert _lines(path)[0]["active_at_start"] == {"0": {"pad": True}, "1": {"pad": False}}
    assert main(["hw", "replay", str(path), "--fast"]) == 0
    out = capsys.readouterr().out
    assert "decisions identical to the recording" in out and "DIFFER" not in out


def test_a_log_without_start_states_starts_every_input_released(tmp_path):
    edge = {"t_ns": 5 * MS, "seat": 0, "device": "pad", "active": True, "accepted": True}
    log = read_pad_log(_write(tmp_path / "old.jsonl", _header(), {"edge": edge}))
    assert log.start == {}
    assert [(e.seat, e.t_ns) for e in replay_pad_log(log).events] == [(0, 5 * MS)]


# -- 2. a subscriber that raises ------------------------------------------------------------
def test_a_raising_subscriber_neither_sticks_the_pad_nor_stops_the_others(caplog):
    heard: list[PadEvent] = []

    def locked(event: PadEvent) -> None:
        raise sqlite3.OperationalError("database is locked")

    with Table(CONFIG, NsMockFactory()) as table:
        table.bus.subscribe(locked)
        table.bus.subscribe(heard.append)
        with caplog.at_level(logging.ERROR):
            first = table.press(0, "pad", at_ns=T0)
        assert first is not None and heard == [first]
        assert not table.inputs[(0, "pad")].is_active  # released, not stuck pressed
        assert "database is locked" in caplog.text
        second = table.press(0, "pad", at_ns=T0 + 20 * MS)  # later presses still count
        assert second is not None and heard == [first, second]


def test_a_raising_dashboard_listener_does_not_fail_the_virtual_press(caplog):
    with Table(CONFIG, NsMockFactory()) as table:
        pads = PadsService(table)

        def bridge(press: Any) -> None:
            raise sqlite3.OperationalError("database is locked")

        pads.subscribe(bridge)
        with caplog.at_level(logging.ERROR):
            press = pads.press(1, "pad")
        assert press.seat == 1 and not table.inputs[(1, "pad")].is_active
        assert pads.recent() == [press]


def test_a_raising_edge_hook_is_logged_and_the_press_still_counts(caplog):
    def full_disk(*edge: Any) -> None:
        raise OSError(28, "No space left on device")

    with Table(CONFIG, NsMockFactory()) as table:
        table.add_edge_hook(full_disk)
        with caplog.at_level(logging.ERROR):
            assert table.press(0, "pad", at_ns=T0) is not None
        assert "No space left" in caplog.text


def test_the_buttons_state_follows_the_line_even_when_its_handler_raises():
    factory = NsMockFactory()
    button = StampedButton(4, pull_up=True, bounce_time=None, pin_factory=factory)
    seen: list[bool] = []

    def handler(ticks: Any, active: bool) -> None:
        seen.append(active)
        raise RuntimeError("subscriber bug")

    button.on_edge = handler
    try:
        with pytest.raises(RuntimeError):
            factory.pin(4).drive(False, T0)  # pressed
        assert button.is_active and button._last_active is True
        with pytest.raises(RuntimeError):
            factory.pin(4).drive(True, T0 + 10 * MS)  # released: still reported
        assert seen == [True, False]
    finally:
        button.close()


def test_the_dashboard_logs_a_press_it_could_not_record(tmp_path, caplog):
    from tests.test_web_routes import Tablet, make_app

    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    tablet.new_game("hit-the-deck", ("Ann", "Bob"))

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    tablet.services.games.append = locked
    with caplog.at_level(logging.ERROR, logger="web.app"):
        r = tablet.post("/api/pads/press", {"seat": 1, "device": "pad"})
    assert r.status_code == 200
    note = tablet.client.get("/api/pads").json["log"][-1]
    assert note["seat"] == 1 and note["accepted"] is False and "not recorded" in note["message"]
    assert "database is locked" in caplog.text


# -- 3. an honest replay verdict -------------------------------------------------------------
def test_hw_record_writes_edges_only_and_replay_checks_the_accepted_presses(tmp_path, capsys):
    path = tmp_path / "rec.jsonl"
    assert main(["hw", "record", str(path), "--mock", "--script", "0:pad", "--bounce", "2"]) == 0
    log = read_pad_log(path)
    assert log.marks == [] and log.decisions == [] and len(log.edges) == 6
    capsys.readouterr()
    assert main(["hw", "replay", str(path), "--fast", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["identical"] is True and out["edges_compared"] == 6
    assert out["decisions_same"] is None


def test_replay_compares_the_accepted_flags_edge_by_edge(tmp_path, capsys):
    path = tmp_path / "rec.jsonl"
    with Table(CONFIG, NsMockFactory()) as table, PadRecorder(table, path):
        table.drive(0, "pad", True, T0)
        table.drive(0, "pad", False, T0 + 1 * MS)
        table.drive(0, "pad", True, T0 + 2 * MS)  # bounce: dropped live
    lines = _lines(path)
    assert [x["edge"]["accepted"] for x in lines[1:]] == [True, False, False]
    lines[3]["edge"]["accepted"] = True  # the log claims the bounce was a press
    _write(path, *lines)
    from hardware.padlog import check_replay

    check = check_replay(log := read_pad_log(path), replay_pad_log(log))
    assert check.identical is False
    assert check.edge_differences == (
        f"seat 0 pad press at t={T0 + 2 * MS}: recorded accepted, replayed dropped",
    )
    assert main(["hw", "replay", str(path), "--fast"]) == 1
    out = capsys.readouterr().out
    assert "ACCEPTED PRESSES DIFFER on 1 of 3 edges" in out and "identical" not in out


def test_replay_with_nothing_to_compare_says_so(tmp_path, capsys):
    edge = {"t_ns": 5 * MS, "seat": 0, "device": "pad", "active": True}  # no accepted flag
    path = _write(tmp_path / "bare.jsonl", _header(), {"edge": edge})
    assert main(["hw", "replay", str(path), "--fast"]) == 0
    out = capsys.readouterr().out
    assert "nothing to compare" in out and "identical" not in out
    assert main(["hw", "replay", str(path), "--fast", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is None


# -- 4. pad logs validated against their own header ------------------------------------------
def _edge(**fields: Any) -> dict[str, Any]:
    return {"edge": {"t_ns": 5, "seat": 0, "device": "pad", "active": True, **fields}}


@pytest.mark.parametrize(
    ("header", "line", "message"),
    [
        (_header(), _edge(seat=7), r":2: seat 7 'pad' is not wired in the header's map"),
        (_header(), _edge(device="led"), r":2: seat 0 'led' is not wired .*wired: 0:pad, 1:pad"),
        (_header(), _edge(active="false"), r":2: bad entry: active must be true or false"),
        (_header(), _edge(active=0), r":2: bad entry: active must be true or false"),
        (_header(), _edge(accepted="yes"), r":2: bad entry: accepted must be true or false"),
        (_header(), _edge(t_ns="5"), r":2: bad entry: t_ns must be a JSON integer"),
        (_header(), _edge(seat=True), r":2: bad entry: seat must be a JSON integer"),
        (_header(active_at_start={"0": {"pad": "yes"}}), _edge(), r":1: bad entry: active_at"),
        (_header(active_at_start={"3": {"pad": True}}), _edge(), r":1: active_at_start: seat 3"),
        (_header(active_at_start={"²": {"pad": True}}), _edge(), r":1: .*'²' is not a seat"),
        (_header(active_at_start=[0]), _edge(), r":1: active_at_start must map seats"),
    ],
)
def test_bad_edges_are_one_clear_line_and_exit_2(tmp_path, capsys, header, line, message):
    path = _write(tmp_path / "bad.jsonl", header, line)
    with pytest.raises(PadLogError, match=message):
        read_pad_log(path)
    assert main(["hw", "replay", str(path), "--fast"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tabletop hw replay: ") and err.count("\n") == 1


# -- 5. pin maps: ASCII digits only ----------------------------------------------------------
@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"seats": {"²": {"pad": 4}}}, r"hardware\.seats\.²: unknown seat '²'"),
        ({"seats": {"0": {"pad": "GPIO²"}}}, r"seats\.0\.pad: 'GPIO²' is not a pin"),
        ({"seats": {"0": {"pad": "BCM١٧"}}}, r"seats\.0\.pad: 'BCM١٧' is not a pin"),
        ({"seats": {"0": {"pad": 4}}, "free_pins": ["GPIO¹⁴"]}, r"free_pins: 'GPIO¹⁴'"),
    ],
)
def test_unicode_digits_in_the_pin_map_are_a_pin_map_error(section, message):
    with pytest.raises(PinMapError, match=message):
        parse_hardware(section)


def test_hw_pins_with_unicode_digits_is_one_line_and_exit_2(tmp_path, capsys):
    toml = tmp_path / "tabletop.toml"
    toml.write_text('[hardware.seats]\n"²" = { pad = 4 }\n', encoding="utf-8")
    assert main(["hw", "pins", "--config", str(toml)]) == 2
    err = capsys.readouterr().err
    assert err == "tabletop hw pins: hardware.seats.²: unknown seat '²'; seats are numbered 0–9\n"


# -- 6. closing what was opened --------------------------------------------------------------
@pytest.fixture
def factory_closes(monkeypatch) -> list[NsMockFactory]:
    closed: list[NsMockFactory] = []
    original = NsMockFactory.close

    def spy(self: NsMockFactory) -> None:
        closed.append(self)
        original(self)

    monkeypatch.setattr(NsMockFactory, "close", spy)
    return closed


def test_a_table_closes_the_factory_it_opened_once(factory_closes):
    table = Table.open(default_config("virtual"))
    table.close()
    table.close()  # idempotent
    assert factory_closes == [table.factory]
    given = NsMockFactory()
    with Table(CONFIG, given):
        pass
    assert factory_closes == [table.factory]  # a factory handed in is the caller's


def test_a_replay_closes_its_factory(factory_closes, tmp_path):
    log = read_pad_log(_write(tmp_path / "log.jsonl", _header(), _edge()))
    replay_pad_log(log)
    assert len(factory_closes) == 1


def test_serve_closes_the_pads_on_the_way_out(factory_closes):
    from web.commands import _close
    from web.services.pads import VirtualPads

    def services(pads: Any) -> SimpleNamespace:
        return SimpleNamespace(
            end_streams=lambda timeout: None, referee=None, camera=None, pads=pads
        )

    pads = PadsService(Table.open(default_config("virtual")))
    _close(services(pads))
    _close(services(pads))  # twice: still fine
    assert pads.table.inputs == {} and factory_closes == [pads.table.factory]
    _close(services(VirtualPads(2)))  # the dashboard's own pads have nothing to close
