"""Devices on gpiozero MockFactory pins: stamps, debounce, event mapping, LEDs, buzzer."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.bus import EventBus
from hardware.clock import edge_clock
from hardware.config import parse_hardware
from hardware.debounce import Debouncer
from hardware.feedback import Feedback, FeedbackTiming, penalised_seat
from hardware.mockpins import NsMockFactory
from hardware.padevents import EVENT_KINDS, PadEvent, event_kind
from hardware.padlog import RaceMark, decide
from hardware.table import HardwareError, Table, make_factory
from referee.events import Event, Source
from referee.races import MISSED, RaceRules, last_slapper
from referee.verdicts import illegal, info, legal, score

MS = 1_000_000
CONFIG = parse_hardware(
    {
        "buzzer": 12,
        "debounce_ms": 5,
        "seats": {
            "0": {"pad": 4, "call": 17, "led": 27},
            "1": {"pad": 22, "call": 10, "led": 9},
            "2": {"pad": 11, "call": 5, "led": 6},
        },
    }
)


@pytest.fixture
def table():
    with Table(CONFIG, NsMockFactory()) as t:
        yield t


def collect(table: Table) -> list[PadEvent]:
    events: list[PadEvent] = []
    table.bus.subscribe(events.append)
    return events


def test_stock_mockfactory_edge_time_is_the_pins_stamp():
    """gpiozero's own MockFactory: the event carries the drive time, not the callback's."""
    factory = MockFactory()
    with Table(CONFIG, factory) as table:
        events = collect(table)
        assert table.clock.name == "mock" and table.clock.at_source
        pin = factory.pin(4)  # seat 0's pad, pulled up: pressing pulls it low
        before = time.monotonic_ns()
        pin.drive_low()
        after = time.monotonic_ns()
        pin.drive_high()
        assert len(events) == 1
        event = events[0]
        assert (event.seat, event.device) == (0, "pad")
        assert before - 1_000 <= event.t_ns <= after + 1_000
        assert event.received_ns is not None and event.received_ns >= event.t_ns


def test_every_input_maps_to_its_seat_and_device(table):
    events = collect(table)
    for seat, device, _pin in CONFIG.inputs():
        table.press(seat, device)
    assert [(e.seat, e.device) for e in events] == [(s, d) for s, d, _ in CONFIG.inputs()]


def test_bounce_burst_gives_one_press_stamped_at_the_first_edge(table):
    events = collect(table)
    t = 10_000 * MS
    table.drive(0, "pad", True, t)
    for k in range(6):  # contact bounce: 6 more make/break pairs within 2.4 ms
        table.drive(0, "pad", False, t + 200_000 + 400_000 * k)
        table.drive(0, "pad", True, t + 400_000 + 400_000 * k)
    table.drive(0, "pad", False, t + 60 * MS)  # release …
    table.drive(0, "pad", True, t + 60 * MS + 300_000)  # … with a bounce
    table.drive(0, "pad", False, t + 60 * MS + 700_000)
    assert [e.t_ns for e in events] == [t]
    assert table.debouncers[(0, "pad")].dropped == 7
    table.press(0, "pad", at_ns=t + 200 * MS)  # a real second slap later is accepted
    assert [e.t_ns for e in events] == [t, t + 200 * MS]


def test_ruling_hw7_debounce_keeps_first_edge_time():
    d = Debouncer(5 * MS)
    assert d.edge(100 * MS, True)
    assert not d.edge(101 * MS, False) and not d.edge(102 * MS, True)
    assert not d.edge(150 * MS, False)  # release
    assert not d.edge(152 * MS, True)  # release bounce: not a press
    assert d.edge(160 * MS, True)  # quiet for 8 ms: a new press, stamped at its first edge
    assert (d.accepted, d.dropped) == (2, 2)
    with pytest.raises(ValueError):
        Debouncer(-1)


def test_simultaneous_edges_on_two_pads_are_both_kept_and_tie(table):
    events = collect(table)
    t = 20_000 * MS
    table.press(0, "pad", at_ns=t + 300 * MS)
    table.press(1, "pad", at_ns=t + 300 * MS)
    table.press(2, "pad", at_ns=t + 100 * MS)
    assert sorted(e.seat for e in events) == [0, 1, 2]
    d = last_slapper(t, [0, 1, 2], [e.to_press() for e in events], RaceRules())
    assert d.tie and d.seats == (0, 1)


def test_a_pad_that_never_fires_counts_as_last(table):
    events = collect(table)
    t = 30_000 * MS
    table.press(0, "pad", at_ns=t + 120 * MS)
    table.press(2, "pad", at_ns=t + 240 * MS)
    (d,) = decide([RaceMark("last_slapper", t, (0, 1, 2))], events)
    assert d.seats == (1,) and d.timing(1).status == MISSED


def test_pad_and_call_become_referee_events_per_game():
    slap = PadEvent(2, "pad", 123_456).to_event("hit-the-deck")
    assert slap == Event("slap", 2, {"device": "pad"}, 123_456, Source.PAD)
    assert PadEvent(1, "call", 9).to_event("dos").kind == "call"
    assert PadEvent(1, "call", 9).to_event("wash-dash").kind == "done"
    assert PadEvent(1, "call", 9).to_event("hit-the-deck").kind == "call"
    assert PadEvent(1, "call", 9).to_event(None).kind == "call"
    assert event_kind("pad", "wash-dash") == "slap"
    assert Event.from_json(slap.to_json()) == slap  # loggable as-is
    assert set(EVENT_KINDS) == {"pad", "call"}
    with pytest.raises(ValueError, match="unknown input device"):
        event_kind("pedal")


def test_virtual_pads_are_thread_safe(table):
    events = collect(table)
    q = table.bus.queue()

    def hammer(seat: int) -> None:
        for k in range(40):  # 10 ms apart on the source clock: every one is a new press
            table.press(seat, "pad", at_ns=(seat + 1) * 10**12 + k * 10 * MS)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in (0, 1, 2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(events) == 120 and q.qsize() == 120
    for seat in (0, 1, 2):
        times = [e.t_ns for e in events if e.seat == seat]
        assert times == sorted(times) and len(times) == 40
    table.bus.unsubscribe_queue(q)
    table.press(0, "pad", at_ns=9 * 10**12)
    assert q.qsize() == 120


def test_press_returns_event_or_none_when_debounced(table):
    first = table.press(1, "call", at_ns=50_000 * MS)
    assert first is not None and first.t_ns == 50_000 * MS
    assert table.press(1, "call", at_ns=50_000 * MS + MS) is None  # inside the debounce
    calls_only = parse_hardware({"seats": {"0": {"call": 5}}})
    with Table(calls_only, NsMockFactory()) as other, pytest.raises(KeyError, match="no 'pad'"):
        other.press(0, "pad")
    with pytest.raises(ValueError, match="unknown input"):
        table.press(0, "led")


def test_bus_subscribe_and_unsubscribe():
    bus: EventBus[int] = EventBus()
    got: list[int] = []
    stop = bus.subscribe(got.append)
    bus.publish(1)
    stop()
    stop()  # twice is harmless
    bus.publish(2)
    assert got == [1]


def test_feedback_lights_turn_flashes_penalty_and_buzzes(table):
    fb = Feedback(table, FeedbackTiming(0.001, 0.001, 2, 0.001), background=False)
    led_pins = {s: led.pin for s, led in table.leds.items()}
    buzzer_pin = table.buzzer.pin
    assert fb.show([legal("ok", 0)], turn=1) == []
    assert [led_pins[s].state for s in (0, 1, 2)] == [0, 1, 0]
    for pin in [*led_pins.values(), buzzer_pin]:
        pin.clear_states()
    penalised = fb.show([illegal("not your turn", 2), info("seat 1 to play")], turn=1)
    assert penalised == [2]
    assert [s.state for s in led_pins[2].states] == [0, 1, 0, 1, 0]  # flashed twice
    assert [s.state for s in buzzer_pin.states] == [0, 1, 0]  # one beep
    assert led_pins[1].state == 1 and len(led_pins[0].states) == 1
    fb.off()
    assert all(pin.state == 0 for pin in led_pins.values())


def test_penalty_verdicts_are_recognised():
    assert penalised_seat(illegal("no", 3)) == 3
    assert penalised_seat(score("faked out: draw two", 1, penalty=2)) == 1
    assert penalised_seat(score("round score", 1)) is None
    assert penalised_seat(illegal("no seat")) is None
    assert penalised_seat(info("hello", 0)) is None


def test_clocks_per_factory():
    assert edge_clock(NsMockFactory()).to_ns(123) == 123
    mock = edge_clock(MockFactory())
    assert mock.to_ns(12.5) == 12_500_000_000 and mock.resolution_ns == 1_000

    class PiGPIOFactory:  # stands in for gpiozero's pigpio factory: µs ticks, 32-bit
        def ticks(self) -> int:
            return 2**32 - 10

    clock = edge_clock(PiGPIOFactory())
    assert clock.unit == "us32" and clock._ref_ns is not None
    ref = clock._ref_ns
    assert clock.to_ns(2**32 - 10 + 5) == ref + 5_000
    assert clock.to_ns(20) == ref + 30_000  # wrapped: 25 µs after the previous edge
    assert clock.to_ns(15) == ref + 25_000  # an edge reported out of order

    class LGPIOFactory:
        pass

    assert edge_clock(LGPIOFactory()).to_ns(1.000_000_5) == 1_000_000_500
    assert not edge_clock(object()).at_source


def test_make_factory_modes():
    factory, mode = make_factory(CONFIG, "virtual")
    assert isinstance(factory, NsMockFactory) and mode == "virtual"
    named = parse_hardware({**CONFIG.to_dict(), "mode": "gpio", "pin_factory": "mock"})
    factory, mode = make_factory(named)
    assert isinstance(factory, MockFactory) and mode == "gpio"
    with Table(named, factory, mode=mode) as table:
        assert table.clock.name == "mock"
    bad = parse_hardware({**CONFIG.to_dict(), "mode": "gpio", "pin_factory": "nosuch"})
    with pytest.raises(HardwareError, match="no factory 'nosuch'"):
        Table.open(bad)
    with pytest.raises(ValueError, match="unknown hardware mode"):
        make_factory(CONFIG, "laser")


def test_lgpio_is_imported_from_a_private_dir_and_cwd_restored(tmp_path, monkeypatch):
    """lgpio creates its .lgd-nfy FIFO in the working directory at import time."""
    from hardware import lgpio_workdir

    fake = tmp_path / "site"
    fake.mkdir()
    (fake / "lgpio.py").write_text(
        "import os\nopen('.lgd-nfy0', 'w').close()\nWHERE = os.getcwd()\n", encoding="utf-8"
    )
    home, run = tmp_path / "checkout", tmp_path / "run"
    home.mkdir()
    monkeypatch.syspath_prepend(str(fake))
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)
    monkeypatch.setenv("LG_WD", str(run))
    monkeypatch.chdir(home)
    assert lgpio_workdir.import_lgpio()
    assert (run / ".lgd-nfy0").exists() and not (home / ".lgd-nfy0").exists()
    assert os.getcwd() == str(home)
    monkeypatch.delitem(sys.modules, "lgpio")
    monkeypatch.setenv("LG_WD", "")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert lgpio_workdir.runtime_dir() == tmp_path / "tabletop"


def test_pads_service_for_the_dashboard(table):
    from hardware.service import PadsService

    service = PadsService(table)
    heard = []
    stop = service.subscribe(heard.append)
    assert service.virtual and service.seats() == (0, 1, 2)
    assert service.devices() == ("pad", "button")
    press = service.press(1, "button")
    assert (press.seat, press.device, press.input, press.virtual) == (1, "button", "call", True)
    assert press.kind("wash-dash") == "done" and press.kind("dos") == "call"
    assert service.press(0).kind() == "slap"
    assert heard == service.recent() and len(heard) == 2
    assert press.to_dict()["t_ns"] == press.t_ns
    table.press(0, "pad", at_ns=time.monotonic_ns() + 10**12)  # a stamp far ahead …
    with pytest.raises(ValueError, match="too quickly"):
        service.press(0, "pad")  # … so a press now is inside its debounce: refused
    with pytest.raises(ValueError, match="seat 7 has no 'pad'"):
        service.press(7, "pad")
    stop()
    table.press(2, "pad")
    assert len(heard) == 3 and len(service.recent()) == 4
