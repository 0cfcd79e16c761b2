"""Benchmark the Deck Dash checker: p50/p99 per check, and speed-up over the oracle.

Random hands of 7-14 cards with 0-4 Wilds (numbered cards dealt from a real deck) over
all 24 Dashes. Three timings per Dash:

* ``check``  ``check_dash`` on the whole hand as if laid (mostly invalid: the reason
             path, which searches for the closest arrangement);
* ``find``   ``find_dash`` on the hand (the tablet's hint button);
* ``valid``  ``check_dash`` on exactly the cards ``find_dash`` chose (the valid path).

The speed-up compares ``find_dash`` with ``tests/dash_oracle.oracle_min_wilds`` on the
same hands, and ``check_dash`` with ``oracle_exact`` on exact-size lay-downs (the found
ones and each with one card swapped, mostly invalid); oracle caches cleared each call. Each of our
timings is the fastest of 3 runs (see ``timed``); the oracle runs once, cold.

    .venv/bin/python bench/dash_check.py [--hands 300] [--oracle-hands 15] [--seed 7]
                                         [--clock cpu|wall]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.cards import WILD, Card, full_deck
from referee.cli_args import ranged
from referee.deckdash.check import check_dash, find_dash
from referee.deckdash.dashes import all_dashes
from tests import dash_oracle

NUMBERED = [c for c in full_deck() if c.is_number]


def random_hand(rng: random.Random) -> list[Card]:
    size = rng.randint(7, 14)
    wilds = rng.randint(0, 4)
    return rng.sample(NUMBERED, size - wilds) + [WILD] * wilds


CLOCKS = {"cpu": time.thread_time_ns, "wall": time.perf_counter_ns}
clock = CLOCKS["cpu"]


def near_miss(rng: random.Random, laid: list[Card]) -> list[Card]:
    """The same lay-down with one card swapped for a random numbered card."""
    out = list(laid)
    out[rng.randrange(len(out))] = rng.choice(NUMBERED)
    return out


def timed(fn: Callable[..., object], *args: object, repeats: int = 3) -> tuple[float, object]:
    """Fastest of ``repeats`` runs in microseconds: the other processes on this shared
    machine pre-empt us now and then, and one pre-emption would masquerade as a p99.
    The default clock is this thread's CPU time, which pre-emption does not advance."""
    best = float("inf")
    out: object = None
    for _ in range(repeats):
        start = clock()
        out = fn(*args)
        best = min(best, (clock() - start) / 1000.0)
    return best, out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def fmt(us: float) -> str:
    if us != us:  # NaN
        return "-"
    return f"{us:7.0f}µs" if us < 1000 else f"{us / 1000:6.2f}ms"


def oracle_time(fn: Callable[..., object], *args: object) -> float:
    """One cold run of the oracle (its caches cleared first; it is far too slow to repeat)."""
    dash_oracle.group_ok.cache_clear()
    dash_oracle._exact.cache_clear()
    return timed(fn, *args, repeats=1)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # at least one of each: a median of nothing has no speed-up to print
    parser.add_argument("--hands", type=ranged(int, 1), default=300, help="random hands per Dash")
    parser.add_argument(
        "--oracle-hands", type=ranged(int, 1), default=15, help="of those, timed on oracle"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="thread CPU time or wall time"
    )
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    rng = random.Random(args.seed)

    head = (
        f"{'Dash':<20}{'check p50':>11}{'p99':>10}{'find p50':>11}{'p99':>10}"
        f"{'valid p50':>11}{'p99':>10}{'found':>7}{'find x':>9}{'check x':>9}"
    )
    print(head)
    print("-" * len(head))
    every: dict[str, list[float]] = {"check": [], "find": [], "valid": []}
    ratios: dict[str, list[float]] = {"find": [], "check": []}
    for dash in all_dashes():
        lv, n = dash.level.value, dash.number
        t: dict[str, list[float]] = {"check": [], "find": [], "valid": []}
        found_laid: list[list[Card]] = []
        hands = [random_hand(rng) for _ in range(args.hands)]
        for hand in hands:
            us, _ = timed(check_dash, lv, n, hand)
            t["check"].append(us)
            us, found = timed(find_dash, lv, n, hand)
            t["find"].append(us)
            if found is not None:
                laid = [c for g in found.groups for c in g.cards]  # type: ignore[attr-defined]
                found_laid.append(laid)
                us, res = timed(check_dash, lv, n, laid)
                assert res.valid  # type: ignore[attr-defined]
                t["valid"].append(us)
        # speed-up over the brute-force oracle on the same inputs
        f_ours, f_oracle, c_ours, c_oracle = [], [], [], []
        for hand in hands[: args.oracle_hands]:
            f_ours.append(timed(find_dash, lv, n, hand)[0])
            f_oracle.append(oracle_time(dash_oracle.oracle_min_wilds, lv, n, hand))
        exact = found_laid[: args.oracle_hands]
        exact += [near_miss(rng, laid) for laid in exact]  # same size, mostly invalid
        for laid in exact:
            c_ours.append(timed(check_dash, lv, n, laid)[0])
            c_oracle.append(oracle_time(dash_oracle.oracle_exact, lv, n, laid))
        fx = statistics.median(f_oracle) / statistics.median(f_ours)
        cx = statistics.median(c_oracle) / statistics.median(c_ours) if c_ours else float("nan")
        ratios["find"].append(fx)
        if c_ours:
            ratios["check"].append(cx)
        for k in every:
            every[k] += t[k]
        print(
            f"{dash.short:<20}{fmt(pct(t['check'], 0.5)):>11}{fmt(pct(t['check'], 0.99)):>10}"
            f"{fmt(pct(t['find'], 0.5)):>11}{fmt(pct(t['find'], 0.99)):>10}"
            f"{fmt(pct(t['valid'], 0.5)):>11}{fmt(pct(t['valid'], 0.99)):>10}"
            f"{len(found_laid):>7}{fx:>8.0f}x{cx:>8.0f}x"
        )
    print("-" * len(head))
    print(
        f"{'all 24 Dashes':<20}{fmt(pct(every['check'], 0.5)):>11}"
        f"{fmt(pct(every['check'], 0.99)):>10}{fmt(pct(every['find'], 0.5)):>11}"
        f"{fmt(pct(every['find'], 0.99)):>10}{fmt(pct(every['valid'], 0.5)):>11}"
        f"{fmt(pct(every['valid'], 0.99)):>10}{'':>7}"
        f"{statistics.median(ratios['find']):>8.0f}x"
        f"{statistics.median(ratios['check']) if ratios['check'] else float('nan'):>8.0f}x"
    )
    print(
        f"\n{args.hands} random hands per Dash (7-14 cards, 0-4 Wilds), seed {args.seed}, "
        f"{args.clock} clock, fastest of 3 runs per input; "
        f"speed-up = oracle median / ours median on {args.oracle_hands} inputs per Dash "
        "(median over Dashes in the last row). Goal: p99 <= 1 ms."
    )
    worst = max(pct(every[k], 0.99) for k in every)
    print(f"worst p99 over all checks: {fmt(worst).strip()}  goal met: {worst <= 1000}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
