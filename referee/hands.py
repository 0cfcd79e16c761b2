"""Hands and piles the referee can only partly see.

At a real table the camera sees what is played, not what is held. A ``Hidden``
collection therefore keeps the cards the referee knows plus a count of cards it
does not. A scripted game (tests, demos) names every card and the count stays 0;
a camera game deals counts and learns cards as they are played.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Hidden(Generic[T]):
    known: tuple[T, ...] = ()
    unknown: int = 0

    def __len__(self) -> int:
        return len(self.known) + self.unknown

    def add(self, cards: Iterable[T] = (), unknown: int = 0) -> Hidden[T]:
        return Hidden(self.known + tuple(cards), self.unknown + unknown)

    def can_remove(self, card: T) -> bool:
        return card in self.known or self.unknown > 0

    def remove(self, card: T) -> Hidden[T]:
        """Take ``card`` out: a known copy if there is one, else one of the unknown cards.

        Raises KeyError when the referee knows the card cannot be there.
        """
        if card in self.known:
            idx = self.known.index(card)
            return Hidden(self.known[:idx] + self.known[idx + 1 :], self.unknown)
        if self.unknown > 0:
            return Hidden(self.known, self.unknown - 1)
        raise KeyError(card)

    def remove_all(self, cards: Iterable[T]) -> Hidden[T]:
        hand = self
        for card in cards:
            hand = hand.remove(card)
        return hand

    def remove_unknown(self, count: int = 1) -> Hidden[T]:
        """Take cards the referee cannot name (e.g. a face-down discard it did not see)."""
        if count > len(self):
            raise KeyError(count)
        take_unknown = min(count, self.unknown)
        rest = count - take_unknown
        return Hidden(self.known[rest:], self.unknown - take_unknown)
