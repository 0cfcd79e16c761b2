"""What a pad or button press becomes: a PadEvent, a referee Event, a race Press.

The device → event kind mapping is data (``EVENT_KINDS``) so that a new game only adds
a row: a slap pad is always ``slap``; the call button is DOS's ``call``, Wash Dash's
``done`` and ``call`` elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.events import Event, Source
from referee.races import Press

DEFAULT = "*"
EVENT_KINDS: dict[str, dict[str, str]] = {
    "pad": {DEFAULT: "slap"},
    "call": {"dos": "call", "wash-dash": "done", DEFAULT: "call"},
}


def event_kind(device: str, game: str | None = None) -> str:
    """The referee event kind a press of ``device`` means in ``game``."""
    try:
        table = EVENT_KINDS[device]
    except KeyError:
        raise ValueError(f"unknown input device {device!r}; known: {sorted(EVENT_KINDS)}") from None
    return table.get(game or DEFAULT, table[DEFAULT])


@dataclass(frozen=True)
class PadEvent:
    """An accepted press: ``t_ns`` is the edge's source time (monotonic ns);
    ``received_ns`` when the software path delivered it (for latency figures only)."""

    seat: int
    device: str
    t_ns: int
    received_ns: int | None = None

    @property
    def latency_ns(self) -> int | None:
        return None if self.received_ns is None else self.received_ns - self.t_ns

    def to_event(self, game: str | None = None) -> Event:
        return Event(
            kind=event_kind(self.device, game),
            seat=self.seat,
            payload={"device": self.device},
            t_ns=self.t_ns,
            source=Source.PAD,
        )

    def to_press(self) -> Press:
        return Press(self.seat, self.t_ns)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "device": self.device, "t_ns": self.t_ns}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> PadEvent:
        return PadEvent(int(data["seat"]), str(data["device"]), int(data["t_ns"]))
