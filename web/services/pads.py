"""Slap pads and call buttons as the dashboard sees them.

The hardware package owns the real devices; the dashboard only needs to list seats and
devices, press a virtual pad, and hear about every press. ``PadService`` is that small
surface; ``VirtualPads`` implements it for a machine with no GPIO, and ``HardwarePads``
adapts the hardware package's service when it is available.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from hardware.bus import EventBus

DEVICES = ("pad", "button")


@dataclass(frozen=True)
class PadPress:
    seat: int
    device: str  # "pad" (slap) or "button" (call / done)
    t_ns: int  # monotonic ns at the source, same clock as camera frames
    virtual: bool = True

    def kind(self, game: str | None = None) -> str | None:
        """The referee event kind this press means in ``game`` (as hardware.padevents)."""
        if self.device == "pad":
            return "slap"
        if self.device == "button":
            return {"dos": "call", "wash-dash": "done"}.get(game or "", "call")
        return None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[PadPress], None]


class PadService(Protocol):
    virtual: bool

    def seats(self) -> Sequence[int]: ...

    def devices(self) -> Sequence[str]: ...

    def wired(self) -> dict[int, list[str]]: ...

    def press(self, seat: int, device: str) -> PadPress:
        """Press a pad from the dashboard (virtual pads only)."""
        ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every press (from any thread); returns an unsubscribe."""
        ...

    def recent(self) -> list[PadPress]: ...


class VirtualPads:
    """Pads pressed by tapping the dashboard. Thread-safe; listeners run on the caller."""

    virtual = True

    def __init__(self, seats: int = 6, devices: Sequence[str] = DEVICES) -> None:
        self._seats = tuple(range(seats))
        self._devices = tuple(devices)
        self._lock = threading.Lock()  # guards the history; the bus guards its listeners
        self._presses: EventBus[PadPress] = EventBus()
        self._recent: deque[PadPress] = deque(maxlen=50)

    def seats(self) -> Sequence[int]:
        return self._seats

    def devices(self) -> Sequence[str]:
        return self._devices

    def wired(self) -> dict[int, list[str]]:
        """Every virtual seat has every device."""
        return {seat: list(self._devices) for seat in self._seats}

    def press(self, seat: int, device: str) -> PadPress:
        if seat not in self._seats:
            raise ValueError(f"there is no seat {seat} (seats 0–{len(self._seats) - 1})")
        if device not in self._devices:
            raise ValueError(f"unknown device {device!r}; known: {', '.join(self._devices)}")
        event = PadPress(seat, device, time.monotonic_ns(), True)
        self.emit(event)
        return event

    def emit(self, event: PadPress) -> None:
        with self._lock:
            self._recent.append(event)
        self._presses.publish(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._presses.subscribe(listener)

    def recent(self) -> list[PadPress]:
        with self._lock:
            return list(self._recent)
