"""``tabletop hw …`` run non-interactively on virtual (mock) pads."""

from __future__ import annotations

import io
import json
import threading
import time
from functools import partial

from hardware.config import parse_hardware
from hardware.hwtest import press_from_lines, run_hw_test
from hardware.mockpins import NsMockFactory
from hardware.table import Table
from referee.cli import main


def test_hw_test_scripted_sees_every_input(capsys):
    rc = main(["hw", "test", "--mock", "--script", "all", "--bounce", "3", "--timeout", "20"])
    out = capsys.readouterr().out
    assert rc == 0, out
    for seat in range(6):
        assert f"seat {seat} slap pad: edge → event" in out
        assert f"seat {seat} call button: edge → event" in out
    assert "36 bounce edges dropped" in out and "All inputs OK." in out


def test_hw_test_reports_inputs_never_pressed(capsys):
    rc = main(["hw", "test", "--mock", "--script", "0:pad,1:call", "--timeout", "1"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "seat 0 slap pad" in out and "NOT SEEN: 0:call, 1:pad" in out


def test_hw_test_rejects_unknown_script_input(capsys):
    assert main(["hw", "test", "--mock", "--script", "9:pad"]) == 2
    assert "not a wired input" in capsys.readouterr().err


def test_hw_pins_reports_bad_map(tmp_path, capsys):
    bad = tmp_path / "tabletop.toml"
    bad.write_text("[hardware.seats]\n0 = { pad = 4 }\n1 = { pad = 4 }\n", encoding="utf-8")
    assert main(["hw", "pins", "--config", str(bad)]) == 2
    assert "hardware.seats.1.pad: BCM 4 is already used by hardware.seats.0.pad" in (
        capsys.readouterr().err
    )
    good = tmp_path / "good.toml"
    good.write_text("[hardware]\nbuzzer = 12\n[hardware.seats]\n0 = { pad = 4 }\n")
    assert main(["hw", "pins", "--config", str(good)]) == 0
    assert "seat 0: pad BCM4" in capsys.readouterr().out


def test_hw_record_then_replay(tmp_path, capsys):
    log = tmp_path / "pads.jsonl"
    assert main(["hw", "record", str(log), "--mock", "--script", "0:pad,1:call,2:pad"]) == 0
    capsys.readouterr()
    assert main(["hw", "replay", str(log), "--fast", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [(e["seat"], e["device"]) for e in out["events"]] == [
        (0, "pad"),
        (1, "call"),
        (2, "pad"),
    ]
    assert out["identical"] is True


def test_hw_replay_of_the_recorded_session(capsys):
    assert main(["hw", "replay", "tests/data/hw/session.jsonl", "--fast"]) == 0
    out = capsys.readouterr().out
    assert "decisions identical to the recording" in out
    assert "fake-out: seat 2" in out


def test_typed_presses_are_named_and_light_the_seats_led():
    config = parse_hardware(
        {"buzzer": 12, "seats": {"0": {"pad": 4, "led": 27}, "1": {"call": 10, "led": 9}}}
    )
    with Table(config, NsMockFactory()) as table:
        out = io.StringIO()
        typed = io.StringIO("0 pad\nseven\n1 call\n")
        feeder = partial(press_from_lines, table, typed, out)
        rc = run_hw_test(table, out, timeout_s=10, feeder=feeder)
        assert rc == 0, out.getvalue()
        assert "seat 0 slap pad" in out.getvalue() and "seat 1 call button" in out.getvalue()
        assert "'seven'" in out.getvalue()  # a typo is reported in the test's report, not fatal
        deadline = time.monotonic() + 2
        pins = [table.leds[0].pin, table.leds[1].pin]
        while time.monotonic() < deadline and not all(
            any(s.state for s in pin.states) for pin in pins
        ):
            time.sleep(0.01)
        assert all(any(s.state for s in pin.states) for pin in pins)  # each LED lit


def test_a_typo_into_a_closed_output_ends_typing_without_a_thread_traceback():
    """CLI-3: the feeder's thread answers a typo on the test's output; when that output is
    closed (a pipe the reader left) it stops typing quietly instead of dying with a thread
    traceback on standard error."""
    config = parse_hardware({"seats": {"0": {"pad": 4}}})
    with Table(config, NsMockFactory()) as table:
        closed = io.StringIO()
        closed.close()
        failures: list[threading.ExceptHookArgs] = []
        old_hook = threading.excepthook
        threading.excepthook = failures.append
        try:
            thread = threading.Thread(
                target=press_from_lines, args=(table, io.StringIO("seven\n0 pad\n"), closed)
            )
            thread.start()
            thread.join(5)
        finally:
            threading.excepthook = old_hook
        assert not thread.is_alive()
        assert [f.exc_type for f in failures] == []
