"""Search for a Dash inside a multiset of cards.

The pool is 48 counters, one per numbered card face (colour x number). Parts are tried
one after another; each part lists its possible groups ("options") from what is left.
Three facts keep the search small without losing answers:

* colour-keyed parts go first; after them only numbers matter, so number-keyed parts
  (sets, pairs, runs) take any colour of a number (the first colour left);
* the last part takes every natural card it can (a Wild instead would only waste it);
* identical parts are tried in non-decreasing order (a set of 4s then a set of 9s, never
  both orders).

Earlier parts do try leaving a natural card to a Wild, because with the "each group needs
a numbered card" rule (DASH-2) a later group may need that card.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from referee.deckdash.dashes import GroupKind, Part

NUMBERS = range(1, 13)
# A slot: (cell consumed or None for a Wild, colour index or None, number or None).
Slot = tuple[int | None, int | None, int | None]
Option = tuple[tuple[int, ...], list[Slot], int, int]  # key, slots, naturals, wilds
Solution = list[tuple[int, list[Slot]]]  # (index of the part in the Dash, slots)

_EMPTY_KEY = (99,)


def cell(color: int, number: int) -> int:
    return color * 12 + number - 1


def _order(parts: Sequence[Part]) -> list[int]:
    """Colour-keyed parts first, then sets and pairs, then runs (stable)."""

    def rank(i: int) -> int:
        kind = parts[i].kind
        if kind.keys_on_color:
            return 0
        return 2 if kind is GroupKind.RUN else 1

    return sorted(range(len(parts)), key=rank)


class _Search:
    def __init__(
        self, parts: Sequence[Part], pool: list[int], *, exact: bool, allow_empty: bool
    ) -> None:
        self.parts = parts
        self.pool = pool
        self.exact = exact
        self.allow_empty = allow_empty
        self.order = _order(parts)
        n = len(self.order)
        self.suffix = [sum(parts[j].size for j in self.order[i:]) for i in range(n + 1)]
        self.later_numbers = [
            any(parts[j].kind.keys_on_number for j in self.order[i + 1 :]) for i in range(n)
        ]
        self.chosen: Solution = []

    # -- options per kind -------------------------------------------------------------
    def _take_number(self, number: int) -> Slot:
        pool = self.pool
        for c in range(4):
            if pool[c * 12 + number - 1] > 0:
                return (c * 12 + number - 1, c, number)
        raise AssertionError("no natural left")  # pragma: no cover - guarded by callers

    def _num_avail(self, number: int) -> int:
        p, i = self.pool, number - 1
        return p[i] + p[12 + i] + p[24 + i] + p[36 + i]

    def _sets(self, size: int, budget: int, last: bool) -> Iterator[Option]:
        pool = self.pool
        for v in NUMBERS:
            avail = self._num_avail(v)
            if avail == 0:
                continue
            kmax, kmin = min(size, avail), max(1, size - budget)
            for k in (kmax,) if last else range(kmax, kmin - 1, -1):
                if k < kmin:
                    break
                slots: list[Slot] = []
                for c in range(4):
                    take = min(pool[c * 12 + v - 1], k - len(slots))
                    slots += [(c * 12 + v - 1, c, v)] * take
                slots += [(None, None, v)] * (size - k)
                yield (v, -k), slots, k, size - k

    def _runs(self, size: int, budget: int, last: bool, colored: bool) -> Iterator[Option]:
        pool = self.pool
        for c in range(4) if colored else (None,):
            for a in range(1, 14 - size):
                span = range(a, a + size)
                if c is None:
                    nat = [v for v in span if self._num_avail(v) > 0]
                else:
                    nat = [v for v in span if pool[c * 12 + v - 1] > 0]
                need = size - len(nat)
                if not nat or need > budget:
                    continue
                spare = 0 if last else min(budget - need, len(nat) - 1)
                for r in range(spare + 1):
                    for skip in combinations(nat, r):
                        slots: list[Slot] = []
                        for v in span:
                            if v in nat and v not in skip:
                                slots.append(
                                    self._take_number(v) if c is None else (c * 12 + v - 1, c, v)
                                )
                            else:
                                slots.append((None, c, v))
                        key = (a,) if c is None else (c, a)
                        yield key, slots, len(nat) - r, need + r

    def _color_pairs(self, size: int, budget: int, last: bool) -> Iterator[Option]:
        pool = self.pool
        for idx in range(48):
            avail = pool[idx]
            if avail == 0:
                continue
            c, v = divmod(idx, 12)
            kmax, kmin = min(size, avail), max(1, size - budget)
            for k in (kmax,) if last else range(kmax, kmin - 1, -1):
                if k < kmin:
                    break
                slots = [(idx, c, v + 1)] * k + [(None, c, v + 1)] * (size - k)
                yield (idx, -k), slots, k, size - k

    def _same_color(self, size: int, budget: int, last: bool, numbers: bool) -> Iterator[Option]:
        pool = self.pool
        for c in range(4):
            row = pool[c * 12 : c * 12 + 12]
            avail = sum(row)
            if avail == 0:
                continue
            kmax, kmin = min(size, avail), max(1, size - budget)
            for k in (kmax,) if last else range(kmax, kmin - 1, -1):
                if k < kmin:
                    break
                wild = [(None, c, None)] * (size - k)
                if numbers:  # a later part cares which numbers stay: try every choice
                    for picked in _sub_multisets(row, k):
                        slots = [(c * 12 + v - 1, c, v) for v in picked]
                        yield (c, -k), slots + wild, k, size - k
                else:  # numbers matter to nobody: take the lowest ones
                    slots = []
                    for v in NUMBERS:
                        take = min(row[v - 1], k - len(slots))
                        slots += [(c * 12 + v - 1, c, v)] * take
                    yield (c, -k), slots + wild, k, size - k

    def _options(self, i: int, budget: int) -> Iterator[Option]:
        part = self.parts[self.order[i]]
        last = i == len(self.order) - 1
        kind, size = part.kind, part.size
        if kind in (GroupKind.SET, GroupKind.PAIR):
            yield from self._sets(size, budget, last)
        elif kind is GroupKind.RUN:
            yield from self._runs(size, budget, last, False)
        elif kind is GroupKind.COLOR_RUN:
            yield from self._runs(size, budget, last, True)
        elif kind is GroupKind.COLOR_PAIR:
            yield from self._color_pairs(size, budget, last)
        else:
            yield from self._same_color(size, budget, last, self.later_numbers[i])
        if self.allow_empty and size <= budget:
            yield _EMPTY_KEY, [(None, None, None)] * size, 0, size

    # -- the search ---------------------------------------------------------------------
    def run(self, i: int, budget: int, prev_key: tuple[int, ...], naturals: int) -> bool:
        if i == len(self.order):
            return naturals == 0 or not self.exact
        if naturals + budget < self.suffix[i]:
            return False
        part = self.parts[self.order[i]]
        twin = i > 0 and self.parts[self.order[i - 1]] == part
        pool = self.pool
        for key, slots, nat, wild in list(self._options(i, budget)):
            if twin and key < prev_key:
                continue
            for s in slots:
                if s[0] is not None:
                    pool[s[0]] -= 1
            self.chosen.append((self.order[i], slots))
            if self.run(i + 1, budget - wild, key, naturals - nat):
                return True
            self.chosen.pop()
            for s in slots:
                if s[0] is not None:
                    pool[s[0]] += 1
        return False


def _sub_multisets(row: Sequence[int], k: int, start: int = 0) -> Iterator[list[int]]:
    """Every way to pick ``k`` numbers from counts ``row`` (index 0 = number 1)."""
    if k == 0:
        yield []
        return
    for i in range(start, 12):
        if row[i] == 0:
            continue
        rest = list(row)
        rest[i] -= 1
        for tail in _sub_multisets(rest, k - 1, i):
            yield [i + 1, *tail]


def solve_exact(parts: Sequence[Part], pool: list[int], wilds: int) -> Solution | None:
    """Use every natural in ``pool`` and all ``wilds``; each group needs a natural."""
    search = _Search(parts, list(pool), exact=True, allow_empty=False)
    if sum(pool) + wilds != search.suffix[0]:
        return None
    return search.chosen if search.run(0, wilds, (), sum(pool)) else None


def solve_fewest_wilds(
    parts: Sequence[Part], pool: list[int], wilds: int, *, allow_empty: bool = False
) -> Solution | None:
    """The Dash with the fewest Wilds that ``pool`` + ``wilds`` can make, or None."""
    search = _Search(parts, list(pool), exact=False, allow_empty=allow_empty)
    naturals = sum(pool)
    if naturals + wilds < search.suffix[0]:
        return None
    for budget in range(max(0, search.suffix[0] - naturals), wilds + 1):
        search.chosen = []
        if search.run(0, budget, (), naturals):
            return search.chosen
    return None
