"""Search for a Dash inside a multiset of cards.

The pool is 48 counters, one per numbered card face (colour x number). Parts are tried
one after another; each part lists its possible groups ("options") from what is left.
These facts keep the search small without losing answers:

* colour-keyed parts go first; after them only numbers matter, so number-keyed parts
  (sets, pairs, runs) take any colour of a number (the first colour left);
* a group takes every natural card it can, except that it may leave one natural per later
  group to a Wild: if a later group uses a natural this group could have used, swapping
  it for this group's Wild keeps both groups valid, unless it was that group's only
  numbered card (DASH-2);
* identical parts are tried in non-decreasing order (a set of 4s then a set of 9s, never
  both orders);
* ``_bound`` caps the naturals the remaining parts can still take, so a hopeless branch
  stops early.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from referee.deckdash.dashes import GroupKind, Part

NUMBERS = range(1, 13)
# A slot: (cell consumed or None for a Wild, colour index or None, number or None).
Slot = tuple[int | None, int | None, int | None]
Option = tuple[tuple[int, ...], list[Slot], int, int]  # key, slots, naturals, wilds
Solution = list[tuple[int, list[Slot]]]  # (index of the part in the Dash, slots)

_EMPTY_KEY = (99,)


def _order(parts: Sequence[Part]) -> list[int]:
    """Colour-keyed parts first, then sets and pairs, then runs (stable)."""

    def rank(i: int) -> int:
        kind = parts[i].kind
        if kind.keys_on_color:
            return 0
        return 2 if kind is GroupKind.RUN else 1

    return sorted(range(len(parts)), key=rank)


@dataclass(frozen=True)
class _Plan:
    """What the search needs to know about a Dash's parts, worked out once per Dash."""

    order: tuple[int, ...]  # parts in search order
    suffix: tuple[int, ...]  # cards still needed from position i on
    later_numbers: tuple[bool, ...]  # does a part after position i care about numbers?
    twin: tuple[bool, ...]  # is the part at i identical to the one before it?
    blocks: tuple[tuple[tuple[GroupKind, int, int], ...], ...]  # order[i:] as (kind, size, n)


_PLANS: dict[int, tuple[tuple[Part, ...], _Plan]] = {}


def _plan_for(parts: tuple[Part, ...]) -> _Plan:
    """``_plan`` cached by identity: the Dashes' part tuples are long-lived constants, and
    hashing parts (dataclasses of enums) on every call costs more than the search."""
    hit = _PLANS.get(id(parts))
    if hit is not None and hit[0] is parts:
        return hit[1]
    plan = _plan(parts)
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[id(parts)] = (parts, plan)
    return plan


def _plan(parts: tuple[Part, ...]) -> _Plan:
    order = tuple(_order(parts))
    n = len(order)
    blocks = []
    for i in range(n + 1):
        block: list[tuple[GroupKind, int, int]] = []
        for j in order[i:]:
            part = parts[j]
            if block and block[-1][:2] == (part.kind, part.size):
                block[-1] = (part.kind, part.size, block[-1][2] + 1)
            else:
                block.append((part.kind, part.size, 1))
        blocks.append(tuple(block))
    return _Plan(
        order=order,
        suffix=tuple(sum(parts[j].size for j in order[i:]) for i in range(n + 1)),
        later_numbers=tuple(
            any(parts[j].kind.keys_on_number for j in order[i + 1 :]) for i in range(n)
        ),
        twin=tuple(i > 0 and parts[order[i - 1]] == parts[order[i]] for i in range(n)),
        blocks=tuple(blocks),
    )


class _Search:
    def __init__(
        self, parts: Sequence[Part], pool: list[int], *, exact: bool, allow_empty: bool
    ) -> None:
        self.parts = parts if isinstance(parts, tuple) else tuple(parts)
        self.pool = pool
        self.exact = exact
        self.allow_empty = allow_empty
        plan = _plan_for(self.parts)
        self.order = plan.order
        self.suffix = plan.suffix
        self.later_numbers = plan.later_numbers
        self.twin = plan.twin
        self.blocks = plan.blocks
        self.chosen: Solution = []

    # -- an upper bound on the naturals the remaining parts can use ---------------------
    def _bound(self, i: int) -> int:
        """At most this many natural cards fit into the parts order[i:] (never too low).

        Each block of identical parts is bounded on its own, ignoring what the other blocks
        take, so the sum can only be too high: sets, pairs and colour groups by
        ``_greedy_fill`` (exact for a block), one run by its best window, two runs by their
        best pair of windows.
        """
        pool = self.pool
        total = 0
        for kind, size, count in self.blocks[i]:
            if kind in (GroupKind.SET, GroupKind.PAIR):
                counts = [pool[v] + pool[12 + v] + pool[24 + v] + pool[36 + v] for v in range(12)]
                total += _greedy_fill(counts, size, count)
            elif kind is GroupKind.SAME_COLOR:
                counts = [sum(pool[c * 12 : c * 12 + 12]) for c in range(4)]
                total += _greedy_fill(counts, size, count)
            elif kind is GroupKind.COLOR_PAIR:
                total += _greedy_fill(pool, size, count)
            elif kind is GroupKind.RUN:
                counts = [pool[v] + pool[12 + v] + pool[24 + v] + pool[36 + v] for v in range(12)]
                if count == 2:  # two runs (Advanced 6): try every pair of windows
                    total += _best_two_windows(counts, size)
                else:
                    total += count * _best_window([1 if c else 0 for c in counts], size)
            else:  # COLOR_RUN
                best = max(
                    _best_window([1 if pool[c * 12 + v] else 0 for v in range(12)], size)
                    for c in range(4)
                )
                total += count * best
        return total

    # -- options per kind -------------------------------------------------------------
    def _sets(self, size: int, budget: int, spare: int) -> Iterator[Option]:
        pool = self.pool
        # the pool is the same at every resume of this generator: count once
        counts = [pool[i] + pool[12 + i] + pool[24 + i] + pool[36 + i] for i in range(12)]
        low = max(1, size - budget)
        for v in NUMBERS:
            avail = counts[v - 1]
            if avail < low:
                continue
            kmax = min(size, avail)
            for k in range(kmax, max(low, kmax - spare) - 1, -1):
                slots: list[Slot] = []
                for c in range(4):
                    take = min(pool[c * 12 + v - 1], k - len(slots))
                    slots += [(c * 12 + v - 1, c, v)] * take
                slots += [(None, None, v)] * (size - k)
                yield (v, -k), slots, k, size - k

    def _runs(self, size: int, budget: int, spare: int, colored: bool) -> Iterator[Option]:
        pool = self.pool
        for c in range(4) if colored else (None,):
            # colour of a natural to take for each number, -1 when none is left; the pool is
            # the same at every resume of this generator, so one look suffices
            if c is None:
                have = [-1] * 13
                for v in NUMBERS:
                    for cc in range(4):
                        if pool[cc * 12 + v - 1]:
                            have[v] = cc
                            break
            else:
                have = [-1] + [c if pool[c * 12 + v - 1] else -1 for v in NUMBERS]
            for a in range(13 - size, 0, -1):  # high runs first: DASH-10
                span = range(a, a + size)
                nat = [v for v in span if have[v] >= 0]
                need = size - len(nat)
                if not nat or need > budget:
                    continue
                key = (a,) if c is None else (c, a)
                for r in range(min(spare, budget - need, len(nat) - 1) + 1):
                    for skip in combinations(nat, r):
                        slots: list[Slot] = [
                            (have[v] * 12 + v - 1, have[v], v)
                            if have[v] >= 0 and v not in skip
                            else (None, c, v)
                            for v in span
                        ]
                        yield key, slots, len(nat) - r, need + r

    def _color_pairs(self, size: int, budget: int, spare: int) -> Iterator[Option]:
        pool = self.pool
        for idx in range(48):
            avail = pool[idx]
            if avail == 0:
                continue
            c, v = divmod(idx, 12)
            kmax = min(size, avail)
            for k in range(kmax, max(1, size - budget, kmax - spare) - 1, -1):
                slots = [(idx, c, v + 1)] * k + [(None, c, v + 1)] * (size - k)
                yield (idx, -k), slots, k, size - k

    def _same_color(self, size: int, budget: int, spare: int, numbers: bool) -> Iterator[Option]:
        pool = self.pool
        for c in range(4):
            row = pool[c * 12 : c * 12 + 12]
            avail = sum(row)
            if avail == 0:
                continue
            kmax = min(size, avail)
            for k in range(kmax, max(1, size - budget, kmax - spare) - 1, -1):
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
        # How many naturals this group may leave to a Wild: only to give each later group
        # its one numbered card (DASH-2); otherwise a Wild in place of a natural never helps
        # (swap them). Groups of only Wilds are allowed when explaining, so then none.
        spare = 0 if self.allow_empty else len(self.order) - 1 - i
        kind, size = part.kind, part.size
        if kind in (GroupKind.SET, GroupKind.PAIR):
            yield from self._sets(size, budget, spare)
        elif kind is GroupKind.RUN:
            yield from self._runs(size, budget, spare, False)
        elif kind is GroupKind.COLOR_RUN:
            yield from self._runs(size, budget, spare, True)
        elif kind is GroupKind.COLOR_PAIR:
            yield from self._color_pairs(size, budget, spare)
        else:
            yield from self._same_color(size, budget, spare, self.later_numbers[i])
        if self.allow_empty and size <= budget:
            yield _EMPTY_KEY, [(None, None, None)] * size, 0, size

    # -- the search ---------------------------------------------------------------------
    def run(self, i: int, budget: int, prev_key: tuple[int, ...], naturals: int) -> bool:
        if i == len(self.order):
            return naturals == 0 or not self.exact
        if naturals + budget < self.suffix[i]:
            return False
        usable = self._bound(i)
        if usable + budget < self.suffix[i] or (self.exact and usable < naturals):
            return False
        twin = self.twin[i]
        pool = self.pool
        # Lazily: each option is read from the pool only after the last one was undone.
        for key, slots, nat, wild in self._options(i, budget):
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


def _greedy_fill(counts: Sequence[int], size: int, groups: int) -> int:
    """Most naturals ``groups`` groups of ``size`` can take when each group draws from one
    key and key k has ``counts[k]`` naturals (a key may hold several groups).

    Key k offers c // size full chunks of ``size`` and one chunk of c % size; filling the
    groups with the biggest chunks is optimal because the gains only shrink.
    """
    full = 0
    rests: list[int] = []
    for c in counts:
        if c:
            q, r = divmod(c, size)
            full += q
            if r:
                rests.append(r)
    if full >= groups:
        return groups * size
    rests.sort(reverse=True)
    return full * size + sum(rests[: groups - full])


def _best_window(have: Sequence[int], size: int) -> int:
    """Most 1s in any ``size`` consecutive entries of ``have`` (numbers 1..12)."""
    best = cur = sum(have[:size])
    for a in range(size, 12):
        cur += have[a] - have[a - size]
        best = max(best, cur)
    return best


def _best_two_windows(counts: Sequence[int], size: int) -> int:
    """Most naturals two runs of ``size`` can take; number v has ``counts[v - 1]``.

    A number inside both runs can give two naturals, inside one run one: prefix sums of
    min(count, 1) and min(count, 2) price every pair of windows in constant time.
    """
    one, two = [0], [0]
    for c in counts:
        one.append(one[-1] + min(c, 1))
        two.append(two[-1] + min(c, 2))
    best = 0
    last = 12 - size  # windows start at index 0..last (number 1..13-size)
    for a in range(last + 1):
        for b in range(a, last + 1):
            if b >= a + size:
                took = one[a + size] - one[a] + one[b + size] - one[b]
            else:
                took = one[b] - one[a] + two[a + size] - two[b] + one[b + size] - one[a + size]
            best = max(best, took)
    return best


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
    lowest = max(0, search.suffix[0] - naturals, search.suffix[0] - search._bound(0))
    for budget in range(lowest, wilds + 1):
        search.chosen = []
        if search.run(0, budget, (), naturals):
            return search.chosen
    return None
