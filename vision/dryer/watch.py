"""Dryer readings over time → ``dryer`` events (or prompts), only once a reading holds still.

A dryer is read like a pile: the same ``StabilityTracker`` keeps a hand hanging a shirt from
producing a half-hung reading; only a reading seen unchanged for a few frames is proposed.
The empty dryer seen at a round's start becomes the reference the reader compares with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.events import Event, Source
from referee.washdash.dryer import Dryer
from vision.dryer.read import DryerReader, DryerReading
from vision.table.stability import StabilityTracker, ZoneReading
from vision.table.to_events import DEFAULT_THRESHOLD, Prompt
from vision.table.zones import TableLayout


def dryer_proposal(
    seat: int,
    reading: DryerReading | Dryer,
    confidence: float,
    t_ns: int,
    zone: str,
    threshold: float = DEFAULT_THRESHOLD,
) -> Event | Prompt:
    """The ``dryer`` event for a settled reading, or a prompt when it is doubtful."""
    dryer = reading.dryer if isinstance(reading, DryerReading) else reading
    event = Event("dryer", seat, {"dryer": dryer.to_dict()}, t_ns, Source.CAMERA)
    problems = dryer.problems()
    if confidence < threshold or problems:
        why = "; ".join(problems) if problems else "the camera is not sure"
        return Prompt(
            "confirm_dryer",
            f"Seat {seat}'s dryer reads {dryer.to_text()} ({why}): is that right?",
            zone,
            t_ns,
            confidence,
            event,
        )
    return event


@dataclass
class DryerWatcher:
    """Every seat's dryer, read each frame it is worth reading, proposed once settled."""

    layout: TableLayout
    seats: tuple[int, ...]
    tracker: StabilityTracker = field(default_factory=StabilityTracker)

    def __post_init__(self) -> None:
        self.readers = {s: DryerReader(self.layout, s) for s in self.seats}
        self._dryers: dict[str, Dryer] = {}
        self._conf: dict[str, float] = {}

    def set_reference(self, empty_frame: np.ndarray) -> None:
        """The dryers are empty now (a round starts): compare with this picture from now on."""
        for reader in self.readers.values():
            reader.set_reference(empty_frame)
        self.tracker.reset([f"seat_{s}_dryer" for s in self.seats])

    def process(self, image: np.ndarray, t_ns: int) -> list[Event | Prompt]:
        readings = {}
        for seat, reader in self.readers.items():
            got = reader.read(image)
            zone = f"seat_{seat}_dryer"
            self._dryers[zone] = got.dryer
            text = () if not any(got.dryer.bars) else (got.dryer.to_text(),)
            readings[zone] = ZoneReading(text, got.confidence)
        out: list[Event | Prompt] = []
        for obs in self.tracker.update(t_ns, readings):
            seat = int(obs.zone.split("_")[1])
            dryer = Dryer.parse(obs.after[0]) if obs.after else Dryer()
            out.append(dryer_proposal(seat, dryer, obs.confidence, obs.t_ns, obs.zone))
        return out
