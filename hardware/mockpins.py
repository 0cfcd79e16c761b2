"""MockFactory pins whose edge ticks are exact integer nanoseconds.

gpiozero's ``MockFactory`` is its supported test path; its pins stamp edges with
``time.monotonic()`` when driven. ``NsMockFactory`` is the same factory (``pin_class``
is MockFactory's documented customisation point) with ticks in integer monotonic ns, and
pins that can be driven *at* a given time — so a recorded pad log or a benchmark can
replay edges with their original stamps, as fast as the CPU allows, and reach exactly the
same decisions. Virtual pads (no GPIO) run on it too.
"""

from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory, MockPin, PinState


class NsMockPin(MockPin):
    """A MockPin stamping edges with int ns; ``drive(level, at_ns)`` injects the stamp."""

    _stamp: int | None = None

    def _change_state(self, value: bool) -> bool:
        if self._state != value:
            t = self._stamp if self._stamp is not None else time.monotonic_ns()
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False

    def clear_states(self) -> None:
        self._last_change = time.monotonic_ns()
        self.states = [PinState(0, self._state)]

    def drive(self, level: bool, at_ns: int | None = None) -> None:
        """Drive the input high (True) or low (False), the edge stamped ``at_ns`` (or now)."""
        self._stamp = at_ns
        try:
            if level:
                self.drive_high()
            else:
                self.drive_low()
        finally:
            self._stamp = None


class NsMockFactory(MockFactory):
    """MockFactory with integer-nanosecond ticks (``time.monotonic_ns``)."""

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(revision=revision, pin_class=NsMockPin)

    @staticmethod
    def ticks() -> int:  # type: ignore[override]
        return time.monotonic_ns()

    @staticmethod
    def ticks_diff(later: int, earlier: int) -> float:  # type: ignore[override]
        return (later - earlier) / 1e9
