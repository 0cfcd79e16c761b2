"""The table as the dashboard sees it (the ``web.services.pads.PadService`` surface).

The web layer needs only: is it virtual, which seats and devices exist, press a virtual
pad, hear about every accepted press, and the recent presses. ``PadsService`` adapts a
``Table`` to exactly that, without importing anything from ``web`` (the dependency points
from web to hardware). The dashboard calls the call button "button"; names are data.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from hardware.bus import EventBus
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

    def close(self) -> None:
        self._unsubscribe()
        self.table.close()
