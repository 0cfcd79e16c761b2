"""Stable observations: a zone's reading counts only once it has held still.

A hand passing over the pile, motion blur, or a card put down and taken back inside
the window produce nothing: the new reading must be seen unchanged for ``min_frames``
frames spanning at least ``min_ns`` before it becomes an observation, and a zone
that is occluded (a hand over it) resets its candidate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ZoneReading:
    """What one frame shows in one zone: card identities (sorted) and how sure we are."""

    cards: tuple[str, ...]
    confidence: float = 1.0
    occluded: bool = False


@dataclass(frozen=True)
class Observation:
    zone: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    t_ns: int  # when the new reading first appeared (not when it was confirmed)
    confirmed_ns: int
    confidence: float  # the lowest confidence seen while it was confirmed

    def to_dict(self) -> dict:
        return {
            "zone": self.zone,
            "before": list(self.before),
            "after": list(self.after),
            "t_ns": self.t_ns,
            "confirmed_ns": self.confirmed_ns,
            "confidence": round(self.confidence, 4),
        }


@dataclass
class _Candidate:
    cards: tuple[str, ...]
    first_ns: int
    frames: int
    confidence: float


@dataclass
class StabilityTracker:
    min_frames: int = 3
    min_ns: int = 80_000_000
    committed: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._candidates: dict[str, _Candidate] = {}

    def update(self, t_ns: int, readings: Mapping[str, ZoneReading]) -> list[Observation]:
        """Feed one frame's readings (every watched zone, empty ones included)."""
        out = []
        for zone, reading in readings.items():
            if reading.occluded:
                self._candidates.pop(zone, None)
                continue
            current = self.committed.get(zone, ())
            if reading.cards == current:
                self._candidates.pop(zone, None)
                continue
            cand = self._candidates.get(zone)
            if cand is None or cand.cards != reading.cards:
                cand = _Candidate(reading.cards, t_ns, 0, reading.confidence)
                self._candidates[zone] = cand
            cand.frames += 1
            cand.confidence = min(cand.confidence, reading.confidence)
            if cand.frames >= self.min_frames and t_ns - cand.first_ns >= self.min_ns:
                out.append(
                    Observation(zone, current, cand.cards, cand.first_ns, t_ns, cand.confidence)
                )
                self.committed[zone] = cand.cards
                del self._candidates[zone]
        return out

    def reset(self, zones: Iterable[str] | None = None) -> None:
        """Forget committed readings (e.g. a new round: the table was cleared)."""
        for zone in list(zones) if zones is not None else list(self.committed):
            self.committed.pop(zone, None)
            self._candidates.pop(zone, None)
