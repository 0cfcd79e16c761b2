"""Software debounce that keeps the FIRST edge's time.

A slap pad or arcade button bounces for a few milliseconds. Hardware/kernel debounce
(lgpio's ``gpio_set_debounce_micros``) reports the edge only once the line has been
stable, so its timestamp is shifted by the debounce period — unfair in a race decided by
a few ms. Here every raw edge is kept with its source time and a press is accepted only
when the line was quiet for ``debounce_ns`` before it: the first edge of a burst wins and
keeps its own time; the bounces after it (and the bounces of the release) are dropped.
"""

from __future__ import annotations


class Debouncer:
    """One input's debounce state. Not thread-safe by itself: the Table serialises edges."""

    def __init__(self, debounce_ns: int) -> None:
        if debounce_ns < 0:
            raise ValueError("debounce must be ≥ 0 ns")
        self.debounce_ns = debounce_ns
        self._last_edge: int | None = None
        self.accepted = 0
        self.dropped = 0

    def edge(self, t_ns: int, active: bool) -> bool:
        """Feed one raw edge; True when it is an accepted press (the start of a press)."""
        last = self._last_edge
        quiet = last is None or t_ns - last >= self.debounce_ns
        if last is None or t_ns > last:
            self._last_edge = t_ns
        if not active:
            return False
        if quiet:
            self.accepted += 1
            return True
        self.dropped += 1
        return False
