"""Hit the Deck, a Hand card typed on the tablet (no time): does who pays depend on the
order the reports reach the referee (HTD-14, HTD-15, HTD-17)?

    python -m bench.htd_report_order --n 400 --seeds 1 2 3 [--json]

Each random table has three players slapping at a card that hit the pile at 300 s (one slap
each within 2.5 s) and now and then a slap up to 8 s before (a fake-out), one after the
3 s window, or a camera's echo of one. Reports arrive by their lags: a pad at once or the
camera up to 0.4 s late; the tablet's entry of the card 0.3 to 8 s after it. Six such orders
per table are played to the end of the race; a table is *order-dependent* when they do not
all give the same hands. The baseline is the same table with the card stamped with its time
and reported by the camera within 0.3 s: a table *differs* when an untimed order gives other
hands (partly the limits HTD-14 states: the data cannot tell a fake-out close to the race).
"""

from __future__ import annotations

import argparse
import json
import random

from referee.events import Event
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState

S = 1_000_000_000
MS = 1_000_000
CARD_NS = 300 * S
FILL = ["G3", "G4", "G5", "Y3", "Y4", "Y5", "B3", "B4", "B5"] * 3

Slap = tuple[int, int]


def _ann_to_play_a_hand_card() -> HtdState:
    state = GAME.new_state(["Ann", "Bob", "Cat"], {"strict_deck": False, "hand_size": 3})
    hands = [["HAND", "R1", "Y1"], ["R3", "R2", "G1"], ["R4", "G2", "B1"]]
    events = [Event("deal", None, {"hands": hands, "draw": ["R5", *FILL], "dealer": 2})]
    events += [Event("turn_up")]
    events += [Event("play", seat, {"card": c}) for seat, c in ((0, "R1"), (1, "R3"), (2, "R4"))]
    for event in events:
        state, _ = GAME.apply(state, event)
    return state


def _table(rng: random.Random) -> list[Slap]:
    slaps = [(seat, CARD_NS + rng.randint(50, 2500) * MS) for seat in range(3)]
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        seat, kind = rng.randrange(3), rng.choice(["early", "late", "echo"])
        if kind == "early":
            slaps.append((seat, CARD_NS - rng.randint(100, 8000) * MS))
        elif kind == "late":
            slaps.append((seat, CARD_NS + rng.randint(2600, 9000) * MS))
        else:
            slaps.append((seat, slaps[seat][1] + rng.randint(5, 200) * MS))
    return slaps


def _order(rng: random.Random, slaps: list[Slap], card_lag_ms: tuple[int, int]) -> list:
    reports = [
        (t + rng.choice([0, rng.randint(0, 400)]) * MS, slap) for slap in slaps for t in [slap[1]]
    ]
    reports.append((CARD_NS + rng.randint(*card_lag_ms) * MS, None))
    return [what for _, what in sorted(reports, key=lambda r: r[0])]


def _hands(order: list, timed: bool) -> tuple[int, ...]:
    state = _ann_to_play_a_hand_card()
    for what in order:
        if what is None:
            event = Event("play", 0, {"card": "HAND"}, CARD_NS if timed else None)
        else:
            event = Event("slap", what[0], {}, what[1])
        state, _ = GAME.apply(state, event)
    if state.race is not None:
        state, _ = GAME.apply(state, Event("race_close"))
    return tuple(len(hand) for hand in state.hands)


def run(n: int, seed: int) -> dict:
    rng = random.Random(seed)
    dependent = differ = 0
    for _ in range(n):
        slaps = _table(rng)
        stamped = _hands(_order(rng, slaps, (0, 300)), timed=True)
        outcomes = {_hands(_order(rng, slaps, (300, 8000)), timed=False) for _ in range(6)}
        dependent += len(outcomes) > 1
        differ += any(o != stamped for o in outcomes)
    return {"seed": seed, "tables": n, "order_dependent": dependent, "differ_from_stamped": differ}


def table(rows: list[dict]) -> str:
    lines = ["seed  tables  order-dependent  differ from the stamped card"]
    for r in rows:
        lines.append(
            f"{r['seed']:>4}  {r['tables']:>6}  {r['order_dependent']:>15}  "
            f"{r['differ_from_stamped']:>10} ({r['differ_from_stamped'] / r['tables']:.1%})"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args()
    rows = [run(args.n, seed) for seed in args.seeds]
    print(table(rows))
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
