"""Edge timestamps: from a pin factory's ticks to monotonic nanoseconds.

Races are decided on the time an edge happened, not on when Python got round to the
callback. gpiozero hands every edge's ``ticks`` to ``Pin.when_changed``; what a tick means
depends on the pin factory. Every factory's ticks are mapped onto ``CLOCK_MONOTONIC`` in
nanoseconds — the clock of ``time.monotonic_ns()`` and of libcamera's ``SensorTimestamp`` —
so pad edges and camera frames share one time line (docs/HARDWARE.md, "Clocks").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_WRAP_32 = 1 << 32
_HALF_WRAP_32 = _WRAP_32 // 2


@dataclass
class EdgeClock:
    """How one pin factory's ticks become monotonic ns.

    ``at_source``: the tick is taken when the edge happened (kernel interrupt, pigpio's
    sampler, or the mock's drive call) rather than when the Python callback ran.
    ``resolution_ns``: the smallest difference this clock can honestly separate; races
    closer than this are ties (ruling HW-2).
    ``now_ns``: CLOCK_MONOTONIC, injectable so tests can cross hours of idle without sleeping.
    """

    name: str
    unit: str  # "s" (float seconds), "ns" (int), "us32" (pigpio's wrapping µs), "callback"
    at_source: bool
    resolution_ns: int
    note: str
    _ref_tick: int | None = None
    _ref_ns: int | None = None
    now_ns: Callable[[], int] = field(default=time.monotonic_ns, repr=False, compare=False)

    def to_ns(self, ticks: Any) -> int:
        if self.unit == "ns":
            return int(ticks)
        if self.unit == "s":
            return round(float(ticks) * 1e9)
        if self.unit == "us32":
            return self._pigpio_to_ns(int(ticks))
        return self.now_ns()

    def _pigpio_to_ns(self, tick: int) -> int:
        """pigpio ticks are µs since the daemon started, wrapping every 71.6 min.

        The tick alone cannot say how many wraps have passed since the reference: pads can
        sit idle for longer than half a wrap (35.8 min) or a whole one. The monotonic clock
        can: an edge is stamped moments after it happened, so ``now - reference`` is its
        distance from the reference to well within half a wrap. Take the tick distance
        modulo 2**32 and add the number of wraps that brings it closest to that estimate;
        an edge from just before the reference (callback latency) comes out negative. The
        reference stays the one from start-up: no edge's error can carry to the next.
        """
        now = self.now_ns()
        if self._ref_tick is None or self._ref_ns is None:
            self._ref_tick, self._ref_ns = tick, now
            return now
        est_us = (now - self._ref_ns) // 1000
        delta = (tick - self._ref_tick) % _WRAP_32
        wraps = (est_us - delta + _HALF_WRAP_32) // _WRAP_32  # nearest whole wrap count
        return self._ref_ns + (delta + wraps * _WRAP_32) * 1000

    def calibrate(self, factory: Any) -> None:
        """Pin the pigpio tick ↔ monotonic offset (read both clocks back to back)."""
        if self.unit == "us32":
            before = self.now_ns()
            tick = int(factory.ticks())
            after = self.now_ns()
            self._ref_tick, self._ref_ns = tick, (before + after) // 2

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "at_source": self.at_source,
            "resolution_ns": self.resolution_ns,
            "note": self.note,
        }


def edge_clock(factory: Any, now_ns: Callable[[], int] = time.monotonic_ns) -> EdgeClock:
    """The EdgeClock for a gpiozero pin factory instance (matched by class name, so that
    lgpio/pigpio need not be importable here); ``now_ns`` is CLOCK_MONOTONIC (tests inject)."""
    names = {cls.__name__ for cls in type(factory).__mro__}
    if "NsMockFactory" in names:
        return EdgeClock(
            "ns-mock", "ns", True, 1, "integer monotonic ns stamped when a mock pin is driven"
        )
    if "MockFactory" in names:
        return EdgeClock(
            "mock",
            "s",
            True,
            1_000,
            "time.monotonic() float seconds stamped when a mock pin is driven",
        )
    if "LGPIOFactory" in names:
        return EdgeClock(
            "lgpio",
            "s",
            True,
            1_000,
            "kernel GPIO v2 line-event timestamp (CLOCK_MONOTONIC ns, stamped in the "
            "interrupt handler), passed by gpiozero as ns / 1e9",
        )
    if "PiGPIOFactory" in names:
        clock = EdgeClock(
            "pigpio",
            "us32",
            True,
            5_000,
            "pigpiod samples GPIOs every 5 µs by default; µs ticks wrap every 71.6 min and "
            "are put onto CLOCK_MONOTONIC from a start-up reference, the wraps in between "
            "counted by the monotonic clock",
            now_ns=now_ns,
        )
        clock.calibrate(factory)
        return clock
    if "LocalPiFactory" in names:  # RPiGPIOFactory, NativeFactory
        return EdgeClock(
            "callback",
            "s",
            False,
            1_000_000,
            "time.monotonic() read in the Python callback: includes interrupt-to-callback "
            "latency (≈0.1–1 ms, worse under load)",
        )
    return EdgeClock(
        "unknown",
        "callback",
        False,
        1_000_000,
        "unknown pin factory: time.monotonic_ns() read when the callback ran",
        now_ns=now_ns,
    )
