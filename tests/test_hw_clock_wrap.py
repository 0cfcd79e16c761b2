"""pigpio's 32-bit µs ticks across long idle spells (wrap every 2**32 µs ≈ 71.6 min).

The pads of a family table can sit untouched for longer than half a wrap (35.8 min): the
server starts before dinner, the first slap comes 40 minutes later. Every press must still
land on CLOCK_MONOTONIC, or it falls outside every race window. No sleeping: a fake
pigpiod and a fake monotonic clock share one injected time line.
"""

from __future__ import annotations

import pytest

from hardware.clock import EdgeClock, edge_clock

MIN_NS = 60 * 1_000_000_000
WRAP_US = 1 << 32


class FakeTime:
    """CLOCK_MONOTONIC, moved by hand."""

    def __init__(self, start_ns: int = 5_000 * MIN_NS) -> None:
        self.ns = start_ns

    def __call__(self) -> int:
        return self.ns


class PiGPIOFactory:
    """Only what edge_clock uses of gpiozero's pigpio factory: pigpiod's µs tick counter,
    on its own epoch, wrapping at 2**32 (matched by class name)."""

    def __init__(self, now: FakeTime, base_us: int) -> None:
        self.now, self.t0, self.base_us = now, now.ns, base_us

    def tick_at(self, mono_ns: int) -> int:
        return (self.base_us + (mono_ns - self.t0) // 1000) % WRAP_US

    def ticks(self) -> int:
        return self.tick_at(self.now.ns)


def _table(base_us: int = 123_456_789) -> tuple[FakeTime, PiGPIOFactory, EdgeClock]:
    now = FakeTime()
    factory = PiGPIOFactory(now, base_us)
    return now, factory, edge_clock(factory, now_ns=now)


def _press(
    now: FakeTime, factory: PiGPIOFactory, clock: EdgeClock, at_ns: int, latency_ns: int = 0
) -> int:
    """An edge at ``at_ns``, whose callback runs ``latency_ns`` later."""
    now.ns = at_ns + latency_ns
    return clock.to_ns(factory.tick_at(at_ns))


def test_first_press_after_forty_idle_minutes_is_on_the_monotonic_clock() -> None:
    """The reviewer's case: 1 min, then 40 idle minutes, then 5 s: all on time (before the
    fix the second and third were 71.6 min in the past)."""
    now, factory, clock = _table()
    start = now.ns
    for at in (start + MIN_NS, start + 41 * MIN_NS, start + 41 * MIN_NS + 5_000_000_000):
        assert _press(now, factory, clock, at, latency_ns=300_000) == at


def test_first_press_ever_after_forty_minutes() -> None:
    """No press at all since start-up: only the calibration reference to go by."""
    now, factory, clock = _table()
    at = now.ns + 40 * MIN_NS
    assert _press(now, factory, clock, at, latency_ns=1_000_000) == at


@pytest.mark.parametrize("idle_min", [35, 36, 50, 71, 72, 100, 143, 200, 24 * 60])
def test_any_idle_spell_then_normal_play(idle_min: int) -> None:
    """Idle spells around and beyond half a wrap, one wrap and several; the presses after
    keep to the monotonic clock too (no error carried forward)."""
    now, factory, clock = _table(base_us=WRAP_US - 7_000_000)  # wraps 7 s after start
    t = now.ns + 2_000_000_000
    assert _press(now, factory, clock, t, latency_ns=200_000) == t
    t += idle_min * MIN_NS
    for gap_ns in (0, 150_000_000, 3_000_000_000, 20 * MIN_NS):
        t += gap_ns
        assert _press(now, factory, clock, t, latency_ns=500_000) == t


def test_edge_stamped_just_before_the_reference() -> None:
    """Callback latency: an edge that happened a little before the reference was read (or
    before an earlier-delivered edge) is stamped before it, not a wrap later."""
    now, factory, clock = _table(base_us=5)  # tick 5 at the reference: just past a wrap
    ref = now.ns
    earlier = ref - 20_000  # tick 2**32 - 15
    assert _press(now, factory, clock, earlier, latency_ns=2_000_000) == earlier
    later = ref + 45 * MIN_NS
    assert _press(now, factory, clock, later) == later
    before_it = later - 3_000_000  # delivered after ``later``
    assert _press(now, factory, clock, before_it, latency_ns=3_500_000) == before_it
