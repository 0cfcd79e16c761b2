"""The dryer state: what hangs on one seat's dryer. The contract between the camera
(vision, issue 6), the tablet (typed by hand) and the task checker.

A dryer has three bars (``bars[0]`` … ``bars[2]``, numbered 1–3 for people; the order is
the calibrated zone order and does not matter to the rules). Each bar holds hung pieces;
each hung piece names the pins that hold it. A pin that holds two pieces (fig. 4c) is
listed under both pieces on that bar. JSON::

    {"bars": [[{"piece": "dress", "pins": ["yellow", "blue"]}],
              [{"piece": "pants", "pins": ["red"]}],
              []]}

Pieces: ``pants`` (blue), ``dress`` (red), ``shirt`` (yellow). Pins: ``red``, ``yellow``,
``blue``. Compact text form (tablet, tests): bars separated by ``/``, ``-`` for an empty
bar: ``"dress:yellow+blue / pants:red / -"``.

The dataclass only checks that the data is well formed (known names, three bars). A
physically impossible reading — the same piece twice, one pin on two bars — is reported
by ``problems()``: a camera can misread, and a tablet can be mistyped, so the referee
judges no claim on it but asks for the dryer again, saying why (WD-12), never an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.washdash.pieces import BARS, PartError, Piece, PinColor, parse_piece, parse_pin


class DryerError(ValueError):
    """A dryer state that is not well formed; the message says which part."""


@dataclass(frozen=True)
class HungPiece:
    piece: Piece
    pins: tuple[PinColor, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"piece": self.piece.value, "pins": [p.value for p in self.pins]}

    def to_text(self) -> str:
        return f"{self.piece.value}:{'+'.join(p.value for p in self.pins)}"

    @staticmethod
    def from_dict(data: Any) -> HungPiece:
        if not isinstance(data, Mapping) or "piece" not in data:
            raise DryerError('each hung piece needs "piece" (and "pins")')
        pins = data.get("pins", [])
        if isinstance(pins, str) or not isinstance(pins, Sequence):
            raise DryerError('"pins" must be a list of pin colours')
        try:
            return HungPiece(parse_piece(data["piece"]), tuple(parse_pin(p) for p in pins))
        except PartError as exc:
            raise DryerError(str(exc)) from None


@dataclass(frozen=True)
class Dryer:
    """One seat's dryer: three bars, each a tuple of hung pieces."""

    bars: tuple[tuple[HungPiece, ...], ...] = ((), (), ())

    def __post_init__(self) -> None:
        if len(self.bars) != BARS:
            raise DryerError(f"a dryer has {BARS} bars, got {len(self.bars)}")

    @staticmethod
    def empty() -> Dryer:
        return Dryer()

    # --- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"bars": [[h.to_dict() for h in bar] for bar in self.bars]}

    @staticmethod
    def from_dict(data: Any) -> Dryer:
        """The JSON object above; a compact string is accepted too (tablet entry)."""
        if isinstance(data, str):
            return Dryer.parse(data)
        if not isinstance(data, Mapping) or "bars" not in data:
            raise DryerError('a dryer state is an object with "bars": [[…], […], […]]')
        bars = data["bars"]
        if isinstance(bars, str) or not isinstance(bars, Sequence):
            raise DryerError('"bars" must be a list of three lists')
        if len(bars) != BARS:
            raise DryerError(f"a dryer has {BARS} bars, got {len(bars)}")
        out = []
        for bar in bars:
            if isinstance(bar, str) or not isinstance(bar, Sequence):
                raise DryerError("each bar must be a list of hung pieces")
            out.append(tuple(HungPiece.from_dict(h) for h in bar))
        return Dryer(tuple(out))

    # --- compact text ------------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Dryer:
        bars_text = str(text).split("/")
        if len(bars_text) != BARS:
            raise DryerError(
                f"write {BARS} bars separated by '/', e.g. 'dress:yellow+blue / pants:red / -'"
            )
        bars = []
        for chunk in bars_text:
            hung = []
            for part in re.split(r"[;,\s]+", chunk.strip()):
                if not part or part == "-":
                    continue
                piece, _, pins = part.partition(":")
                tokens = [t for t in pins.split("+") if t]
                hung.append(HungPiece.from_dict({"piece": piece, "pins": tokens}))
            bars.append(tuple(hung))
        return Dryer(tuple(bars))

    def to_text(self) -> str:
        return " / ".join("; ".join(h.to_text() for h in bar) or "-" for bar in self.bars)

    def __str__(self) -> str:
        return self.to_text()

    # --- reading it --------------------------------------------------------------
    def hung(self) -> list[tuple[int, HungPiece]]:
        """(bar index, hung piece) for every piece, bar by bar."""
        return [(b, h) for b, bar in enumerate(self.bars) for h in bar]

    def pin_bars(self) -> dict[PinColor, set[int]]:
        out: dict[PinColor, set[int]] = {}
        for b, h in self.hung():
            for pin in h.pins:
                out.setdefault(pin, set()).add(b)
        return out

    def problems(self) -> list[str]:
        """Readings that cannot be real: each player owns one of each piece and pin."""
        out = []
        seen: dict[Piece, int] = {}
        for b, h in self.hung():
            if h.piece in seen:
                out.append(
                    f"the {h.piece.label} is seen twice (bar {seen[h.piece] + 1} "
                    f"and bar {b + 1}), but each player has only one"
                )
            seen.setdefault(h.piece, b)
            if len(set(h.pins)) != len(h.pins):
                out.append(f"the {h.piece.label} lists the same pin twice")
        for pin, bars in self.pin_bars().items():
            if len(bars) > 1:
                where = " and ".join(f"bar {b + 1}" for b in sorted(bars))
                out.append(f"the {pin.label} is seen on {where} at once")
        return out

    def canonical(self) -> Dryer:
        """The same dryer with pieces and pins listed in a fixed order (pants, dress, shirt;
        red, yellow, blue), bar by bar: two readings of one dryer compare equal after this
        (e.g. for the vision accuracy check). Which bar is which is kept."""
        pieces = list(Piece)
        pins = list(PinColor)
        return Dryer(
            tuple(
                tuple(
                    HungPiece(h.piece, tuple(sorted(h.pins, key=pins.index)))
                    for h in sorted(bar, key=lambda h: pieces.index(h.piece))
                )
                for bar in self.bars
            )
        )
