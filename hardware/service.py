"""The table as the dashboard sees it (the ``web.services.pads.PadService`` surface).

The web layer needs only: is it virtual, which seats and devices exist, press a virtual
pad, hear about every accepted press, and the recent presses. ``PadsService`` adapts a
``Table`` to exactly that, without importing anything from ``web`` (the dependency points
from web to hardware). The dashboard calls the call button "button"; names are data.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from hardware.bus import EventBus
from hardware.config import (
    DEVICES,
    FIXED_PULL_UP,
    GPIO_PINS,
    MAX_SEATS,
    HardwareConfig,
    SeatPins,
)
from hardware.padevents import PadEvent, event_kind
from hardware.table import Table

DASHBOARD_NAMES: Mapping[str, str] = {"pad": "pad", "call": "button"}


@dataclass(frozen=True)
class PadPress:
    """One accepted press, shaped like the dashboard's PadPress."""

    seat: int
    device: str  # the dashboard's name: "pad" or "button"
    t_ns: int  # source time, monotonic ns (the camera's clock)
    virtual: bool
    input: str = "pad"  # the hardware name: "pad" or "call"

    def kind(self, game: str | None = None) -> str:
        """The referee event kind for this press in ``game`` (slap / call / done)."""
        return event_kind(self.input, game)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[PadPress], None]


class PadsService:
    """A Table behind the dashboard's pad surface. Thread-safe."""

    def __init__(
        self, table: Table, names: Mapping[str, str] = DASHBOARD_NAMES, keep: int = 50
    ) -> None:
        self.table = table
        self._names = dict(names)
        self._inputs = {v: k for k, v in self._names.items()}
        self._lock = threading.Lock()  # guards the history; the bus guards its listeners
        self._recent: deque[PadPress] = deque(maxlen=keep)
        self._presses: EventBus[PadPress] = EventBus()
        self._unsubscribe = table.bus.subscribe(self._on_event)

    @property
    def virtual(self) -> bool:
        return self.table.is_virtual

    def seats(self) -> Sequence[int]:
        return self.table.config.seat_numbers

    def devices(self) -> Sequence[str]:
        wired = {device for _seat, device in self.table.inputs}
        return tuple(self._names[d] for d in ("pad", "call") if d in wired)

    def wired(self) -> dict[int, list[str]]:
        """Per seat, the devices wired there (a seat may have a pad and no call button)."""
        out: dict[int, list[str]] = {}
        for seat, device in sorted(self.table.inputs):
            out.setdefault(seat, []).append(self._names.get(device, device))
        return out

    def _convert(self, event: PadEvent) -> PadPress:
        name = self._names.get(event.device, event.device)
        return PadPress(event.seat, name, event.t_ns, self.virtual, event.device)

    def _on_event(self, event: PadEvent) -> None:
        press = self._convert(event)
        with self._lock:
            self._recent.append(press)
        self._presses.publish(press)

    def press(self, seat: int, device: str = "pad") -> PadPress:
        """Press a virtual input; ValueError names what is wrong (unknown seat or device,
        real pads, or a second press inside the debounce time)."""
        if not self.virtual:
            raise ValueError("these are real pads: press them at the table")
        source = self._inputs.get(device, device)
        if (seat, source) not in self.table.inputs:
            raise ValueError(
                f"seat {seat} has no {device!r}; seats {list(self.seats())}, "
                f"devices {list(self.devices())}"
            )
        event = self.table.press(seat, source)
        if event is None:
            raise ValueError(f"seat {seat} {device} pressed again too quickly (debounce)")
        return self._convert(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._presses.subscribe(listener)

    def recent(self) -> list[PadPress]:
        with self._lock:
            return list(self._recent)

    def grow(self, seats: int) -> None:
        """Virtual pads only: add every seat below ``seats`` the pin map lacks (a game may
        seat 8 players, the default map wires 6), so each player taps their own pad on the
        dashboard. Real pads stay the seats that are wired. Call it before the first press:
        the table is reopened with the seats added (the old one is kept if that fails)."""
        grown = with_virtual_seats(self.table.config, seats)
        if not self.virtual or grown is self.table.config:
            return
        table = Table.open(grown, "virtual")  # its own mock pins: none is the old table's
        self._unsubscribe()
        self.table.close()
        self.table = table
        self._unsubscribe = table.bus.subscribe(self._on_event)

    def close(self) -> None:
        self._unsubscribe()
        self.table.close()


def with_virtual_seats(config: HardwareConfig, seats: int) -> HardwareConfig:
    """``config`` with a pad and a call button for each seat below ``seats`` (at most
    ``MAX_SEATS``) it lacks, on pins it leaves free (mock pins: no wire is meant); the same
    object when none is missing. Seats the free pins cannot cover are left out."""
    have = set(config.seat_numbers)
    missing = [seat for seat in range(min(seats, MAX_SEATS)) if seat not in have]
    if not missing:
        return config
    used = {pin for s in config.seats for d in DEVICES if (pin := s.pin(d)) is not None}
    taken = used | {config.buzzer} | (set() if config.pull_up else set(FIXED_PULL_UP))
    free = [pin for pin in GPIO_PINS if pin not in taken]
    added = [
        SeatPins(seat, pad=free[2 * i], call=free[2 * i + 1])
        for i, seat in enumerate(missing[: len(free) // 2])
    ]
    every = sorted((*config.seats, *added), key=lambda s: s.seat)
    return dataclasses.replace(config, seats=tuple(every))
