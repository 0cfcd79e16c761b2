"""Dryer readings over time → ``dryer`` events (or prompts), only once a reading holds still.

A dryer is read like a pile: the same ``StabilityTracker`` keeps a hand hanging a shirt from
producing a half-hung reading; only a reading seen unchanged for a few frames is proposed.
The empty dryer seen at a round's start becomes the reference the reader compares with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.events import Event, Source
from referee.washdash.dryer import Dryer
from vision.dryer.read import DryerReader, DryerReading, looks_empty
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
    *,
    timed: bool = True,
    notes: Sequence[str] = (),
) -> Event | Prompt:
    """The ``dryer`` event for a settled reading, or a prompt when it is doubtful.

    ``t_ns`` is when the reading was first seen (the prompt shows it); the event carries it
    only when ``timed`` — a reading first seen after a gap in the frames has no time (TBL-10).
    ``notes``: why the reader doubts it (a dryer too small in the picture, a camera that
    moved, a pin not seen), said in the question; a ``DryerReading``'s own notes by default.
    """
    dryer = reading.dryer if isinstance(reading, DryerReading) else reading
    if isinstance(reading, DryerReading) and not notes:
        notes = reading.notes
    event = Event("dryer", seat, {"dryer": dryer.to_dict()}, t_ns if timed else None, Source.CAMERA)
    problems = dryer.problems()
    if confidence < threshold or problems:
        why = "; ".join(problems or notes or ["the camera is not sure"])
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
        self._notes: dict[str, tuple[str, ...]] = {}  # why the reader doubts a zone's reading

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
            self._notes[zone] = got.notes
            # a piece seen with no pin is a reading of its own, asked about (TBL-7)
            text = () if looks_empty(got) else (got.dryer.to_text(),)
            # a hand held still over the dryer is read as nothing, like one moving (TBL-1)
            readings[zone] = ZoneReading(text, got.confidence, occluded=got.occluded)
        out: list[Event | Prompt] = []
        for obs in self.tracker.update(t_ns, readings):
            seat = int(obs.zone.split("_")[1])
            dryer = Dryer.parse(obs.after[0]) if obs.after else Dryer()
            out.append(
                dryer_proposal(
                    seat,
                    dryer,
                    obs.confidence,
                    obs.t_ns,
                    obs.zone,
                    timed=not obs.after_gap,
                    notes=self._notes.get(obs.zone, ()),
                )
            )
        return out
