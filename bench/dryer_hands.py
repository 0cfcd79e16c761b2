"""A hand held still over a dryer, measured: how many rendered hand-over-dryer frames the
reader misreads, and whether the same dryers without the hand still read right.

    python -m bench.dryer_hands --n 60 --seed 31337 [--json]

Each seed renders a dryer twice: with a hand over it (``render.HANDS`` in turn: a bare arm,
a sleeved one, a phone held; the six ``SKIN`` tones in turn) and without; the two share the
dryer, the table, the light and the empty-dryer reference. A hand frame is *occluded* (the
reader says so: no reading, the tracker waits), *right* (a reading equal to the truth: the
hand covered nothing that matters) or *misread* (a wrong reading a tracker could settle on
and a ``done`` be judged by: the defect). A plain frame read as occluded is a dryer the
camera would never read; so is a camera bumped 4 px (it should be asked about, TBL-9).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from vision.dryer.read import DryerReader
from vision.dryer.render import HANDS, render_dryer
from vision.render.tables import SKIN


def _canon(d) -> list:
    return [sorted((h.piece.value, sorted(p.value for p in h.pins)) for h in bar) for bar in d.bars]


def _verdict(reading, truth) -> str:
    """occluded, right, or misread: "sure" (an event: it can rule a claim) or "asked"."""
    if getattr(reading, "occluded", False):
        return "occluded"
    if _canon(reading.dryer) == _canon(truth):
        return "right"
    return "misread (asked)" if reading.confidence <= 0.5 else "misread (sure)"


def run(n: int, seed: int) -> dict:
    """``n`` dryers from ``seed``, each with and without a hand (kind and tone in turn)."""
    hands: dict[str, Counter] = {k: Counter() for k in HANDS}
    plain: Counter = Counter()
    nudged: Counter = Counter()  # the camera bumped 4 px: asked about (TBL-9), not a hand
    ms: list[float] = []
    for i in range(n):
        kind, tone = HANDS[i % len(HANDS)], i // len(HANDS) % len(SKIN)
        s = render_dryer(np.random.default_rng(seed + i), hand=kind, tone=tone)
        bare = render_dryer(np.random.default_rng(seed + i))
        reader = DryerReader(s.layout)
        reader.set_reference(s.empty)
        reader.read(bare.image)  # the resampling maps are made once per calibration
        t = time.perf_counter()
        plain[_verdict(reader.read(bare.image), bare.dryer)] += 1
        ms.append((time.perf_counter() - t) * 1000)
        hands[kind][_verdict(reader.read(s.image), s.dryer)] += 1
        bumped = reader.read(np.roll(bare.image, (4, 4), axis=(0, 1)))
        nudged[
            "occluded" if bumped.occluded else "asked" if bumped.confidence <= 0.5 else "sure"
        ] += 1
    return {
        "n": n,
        "seed": seed,
        "hand": {k: dict(c) for k, c in hands.items()},
        "plain": dict(plain),
        "nudged_4px": dict(nudged),
        "read_ms_p50": round(float(np.median(ms)), 2),
    }


VERDICTS = ("occluded", "right", "misread (asked)", "misread (sure)", "asked", "sure")


def table(result: dict) -> str:
    """One row per kind of frame, one column per verdict: what a family would see."""
    rows = {
        **{f"hand: {kind}": counts for kind, counts in result["hand"].items()},
        "no hand": result["plain"],
        "camera bumped 4 px": result["nudged_4px"],
    }
    cols = [v for v in VERDICTS if any(v in counts for counts in rows.values())]
    head = f"{'frames':<20}" + "".join(f"{c:>17}" for c in cols)
    lines = [head, "-" * len(head)]
    for name, counts in rows.items():
        lines.append(f"{name:<20}" + "".join(f"{counts.get(c, 0):>17}" for c in cols))
    lines.append(
        f"read time p50: {result['read_ms_p50']} ms ({result['n']} dryers, seed {result['seed']})"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=31337)
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args()
    result = run(args.n, args.seed)
    print(table(result))
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
