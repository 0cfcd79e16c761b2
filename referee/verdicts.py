"""Verdicts: what the referee says about an event."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Outcome(enum.Enum):
    LEGAL = "legal"  # the event was accepted and changed the state
    ILLEGAL = "illegal"  # rejected: the state is unchanged; ``reason`` says why
    SCORE = "score"  # a score changed (penalty, round score, bonus)
    PROMPT = "prompt"  # a person must confirm or supply something
    INFO = "info"  # reminders and announcements (whose turn, round over)
    ROUND_END = "round_end"
    GAME_END = "game_end"


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome.value, "reason": self.reason}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.data:
            out["data"] = dict(self.data)
        return out


def legal(reason: str, seat: int | None = None, **data: Any) -> Verdict:
    return Verdict(Outcome.LEGAL, reason, seat, data)


def illegal(reason: str, seat: int | None = None, **data: Any) -> Verdict:
    return Verdict(Outcome.ILLEGAL, reason, seat, data)


def score(reason: str, seat: int | None = None, **data: Any) -> Verdict:
    return Verdict(Outcome.SCORE, reason, seat, data)


def prompt(reason: str, seat: int | None = None, **data: Any) -> Verdict:
    return Verdict(Outcome.PROMPT, reason, seat, data)


def info(reason: str, seat: int | None = None, **data: Any) -> Verdict:
    return Verdict(Outcome.INFO, reason, seat, data)
