"""Render switches: a context-local flag that widens what training faces may draw.

Each round that widens the training data (round 8's typefaces, round 9's printed frames)
must leave earlier chunks rendering byte for byte as before, so the widening is switched on
only inside a ``with`` block, per thread and per task (a ``ContextVar``), never globally.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_SWITCHES: list[Switch] = []


def active() -> tuple[str, ...]:
    """The names of the switches on here (a cached render records them in its recipe)."""
    return tuple(s.name for s in _SWITCHES if s.is_on())


class Switch:
    """A named on/off flag, off unless inside ``on()``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._flag: ContextVar[bool] = ContextVar(name, default=False)
        _SWITCHES.append(self)

    @contextmanager
    def on(self) -> Iterator[None]:
        token = self._flag.set(True)
        try:
            yield
        finally:
            self._flag.reset(token)

    def is_on(self) -> bool:
        return self._flag.get()
