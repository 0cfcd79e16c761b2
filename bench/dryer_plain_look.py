"""A plain look at a dryer (no empty-dryer picture yet), measured: how often the camera
referee may take it as the empty picture by itself, and how often a dryer with pieces on it
would pass for empty (TBL-5).

    python -m bench.dryer_plain_look --n 241 --seed 1000 [--json]

Each seed renders a dryer (``vision.dryer.render``) with pieces and its empty twin, on a
random table and on a plain cloth. Two tests of "looks empty" are compared: no *pinned*
piece (the rule before day 34) and no piece at all, pinned or not
(``vision.dryer.read.looks_empty``, the rule now). An empty dryer that does not look empty
waits for the family's "Dryers are empty now" (a tap); a dryer with pieces that looks empty
would become the empty picture and judge its claims wrongly (the defect).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from vision.dryer.read import DryerReader, DryerReading, looks_empty
from vision.dryer.render import render_dryer

CLOTH = (96, 120, 104)  # the tests' plain green-grey cloth
TABLES = {"random tables": None, "plain cloth": CLOTH}


def _no_pinned_piece(reading: DryerReading) -> bool:
    return not any(reading.dryer.bars)


RULES = {"no pinned piece (old)": _no_pinned_piece, "no piece at all (now)": looks_empty}


def run(n: int, seed: int) -> dict:
    """Per table kind and rule: empty dryers taken, dryers with pieces that look empty."""
    out: dict = {"n": n, "seed": seed, "tables": {}}
    for table, rgb in TABLES.items():
        taken = dict.fromkeys(RULES, 0)
        fooled = dict.fromkeys(RULES, 0)
        with_pieces = 0
        for i in range(n):
            sample = render_dryer(np.random.default_rng(seed + i), table_rgb=rgb)
            reader = DryerReader(sample.layout)
            empty, full = reader.read(sample.empty), reader.read(sample.image)
            with_pieces += any(sample.dryer.bars)
            for name, rule in RULES.items():
                taken[name] += rule(empty)
                fooled[name] += any(sample.dryer.bars) and rule(full)
        out["tables"][table] = {"with_pieces": with_pieces, "taken": taken, "fooled": fooled}
    return out


def table(result: dict) -> str:
    """One row per table kind and rule."""
    head = f"{'table':<15}{'looks empty when':<24}{'empty taken':>14}{'full looks empty':>18}"
    lines = [head, "-" * len(head)]
    for kind, got in result["tables"].items():
        for rule in RULES:
            taken = f"{got['taken'][rule]}/{result['n']}"
            fooled = f"{got['fooled'][rule]}/{got['with_pieces']}"
            lines.append(f"{kind:<15}{rule:<24}{taken:>14}{fooled:>18}")
    lines.append(f"({result['n']} dryers from seed {result['seed']})")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=241)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args()
    result = run(args.n, args.seed)
    print(table(result))
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
