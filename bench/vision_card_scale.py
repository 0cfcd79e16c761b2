"""A table camera mounted low or high: every card larger or smaller than the detector
learnt. Reads tables scaled by each factor as they are, with the camera's measured card scale
(VIS-11, ``vision.runtime.card_scale.ScaledReader``) and with ``identify``'s two zoomed-out
passes.

Each factor's photos are split among ``--cameras`` cameras, each with its own card size (spread
evenly over the learnt 34–100 px, before the factor); each camera measures its scale on
its first photos showing cards (read meanwhile with the extra passes, as the product does),
then detects on every photo at that scale. Photos: rendered tables (training styles, fans,
piles, clutter); a factor above 1 crops one round a card and enlarges it (``bench/
vision_closeups.py --groups``'s), below 1 shrinks it amid its mirror images. A face counts
when the right card is named on a box overlapping it by IoU > 0.5; "extra" are the boxes
left over (not counted below 1: the mirror images hold cards too); ms is the reader's wall
time per photo on this machine. "while measuring" splits the card-scale column: faces read
right on the photos read while the scale was being measured, of the faces they showed (day
25 found a high camera losing most of its faces there).

``--capture N``: the camera takes N times the pixels a side (the same view; factors up to 1/N).
``--moved``: each camera first measures its scale at the learnt height (×1 photos, not
counted), then is moved by the factor: the card scale column then shows the drift check
(``DRIFT``) measuring again; "scales measured" ends with each camera's re-measurings.

    .venv/bin/python bench/vision_card_scale.py [--n 80] [--cameras 8] [--scales 0.5,0.65,1,2,2.5,3]
    .venv/bin/python bench/vision_card_scale.py --moved --scales 0.5,2.5
    .venv/bin/python bench/vision_card_scale.py --capture 2 --scales 0.35,0.5
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

WAYS = ("as is", "card scale", "zoom 2")
LEARNT_PX = (34, 100)  # card widths of the training tables (vision.render.scenes)


def main() -> None:
    import numpy as np

    from vision.evaluate import cards_read_right
    from vision.render.closeups import render_far_table, render_near_table
    from vision.runtime.card_scale import ScaledReader
    from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=str(MODELS_DIR))
    ap.add_argument("--n", type=int, default=80, help="photos per factor")
    ap.add_argument("--cameras", type=int, default=8, help="cameras per factor (own scale)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--scales", default="0.5,0.65,1,2,2.5,3", help="how much nearer the camera")
    ap.add_argument("--moved", action="store_true", help="measure at x1 first, then move")
    ap.add_argument("--capture", type=int, default=1, help="the camera's pixels a side, ×640×480")
    args = ap.parse_args()
    factors = [float(f) for f in args.scales.split(",")]
    if args.capture > 1 and max(factors) * args.capture > 1:
        ap.error("--capture N takes factors up to 1/N (a rendered table is never enlarged)")
    if args.capture > 1 and args.moved:
        ap.error("--moved measures on 640×480 tables first: not with --capture")

    plain = CardReader(args.models)
    zoomed = CardReader(args.models, config=ReaderConfig(zoom_out=2))
    head = "".join(f"{f'{w}: read / extra, ms':>30}" for w in WAYS)
    print(f"{'cards':<10}{'faces':>7}{head}{'while measuring':>18}   scales measured")
    for factor in factors:
        render = (
            render_near_table if factor >= 1 else partial(render_far_table, capture=args.capture)
        )
        rng = np.random.default_rng(args.seed)
        faces = 0
        read, extra, ms = (dict.fromkeys(WAYS, 0.0) for _ in range(3))
        probing = [0, 0]  # card-scale faces read right, and shown, while measuring
        scales = []
        per_camera = max(1, args.n // args.cameras)
        for cam in range(args.cameras):
            width = LEARNT_PX[0] + (LEARNT_PX[1] - LEARNT_PX[0]) * (cam + 0.5) / args.cameras
            scaled = ScaledReader(plain)
            while args.moved and scaled.measuring:  # measured where the camera stood first
                first = render_near_table(rng, 1.0, width)
                if first is not None:
                    scaled(first[0])
            readers = {"as is": plain, "card scale": scaled, "zoom 2": zoomed}
            for _ in range(per_camera):
                table = render(rng, factor, width)
                if table is None:
                    continue
                photo, truth = table
                faces += len(truth)
                measuring = scaled.measuring
                for way, reader in readers.items():
                    t = time.perf_counter()
                    d = reader(photo)
                    ms[way] += (time.perf_counter() - t) * 1000
                    right = cards_read_right(d, truth)
                    read[way] += right
                    extra[way] += len(d) - right
                    if way == "card scale" and measuring:
                        probing[0] += right
                        probing[1] += len(truth)
            measured = scaled.card_scale
            scales.append("-" if measured is None else f"{measured.scale:g}")
            if args.moved:
                scales[-1] += f"/{scaled.drifts}"
        photos = per_camera * args.cameras
        left = {w: f"{extra[w]:.0f}" if factor >= 1 else "-" for w in WAYS}
        cells = "".join(f"{f'{read[w]:.0f} / {left[w]}, {ms[w] / photos:.0f}':>30}" for w in WAYS)
        while_measuring = f"{probing[0]} / {probing[1]}"
        print(f"{f'x{factor:g}':<10}{faces:>7}{cells}{while_measuring:>18}   {' '.join(scales)}")


if __name__ == "__main__":
    main()
