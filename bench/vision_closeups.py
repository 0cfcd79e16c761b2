"""Close-up photos: one card far larger than the table camera sees it, read by `identify`
with 0, 1 and 2 zoomed-out passes (`--zoom-out`, `vision.runtime.zoom`).

Each photo (640×480) holds one Deck Dash card, 120–470 px tall, turned up to ±30°, in a
training style or the held-out `ticket`, on a random table top
(`vision.render.closeups`). A photo counts as read when the reader names exactly one card
and it is the right card on a box overlapping the card by IoU > 0.5. Table cards are
34–100 px wide (54–157 px tall) in the training tables.

    .venv/bin/python bench/vision_closeups.py [--models DIR] [--n 160] [--seed 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

HEIGHTS = ((120, 200), (200, 300), (300, 400), (400, 470))
PASSES = (0, 1, 2)


def main() -> None:
    import numpy as np

    from vision.decks import load_deck
    from vision.render.closeups import render_close_up
    from vision.render.faces import HELDOUT_STYLE, TRAIN_STYLES
    from vision.runtime.geometry import polygon_iou
    from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig
    from vision.runtime.rectify import box_corners

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=str(MODELS_DIR))
    ap.add_argument("--n", type=int, default=160, help="photos, spread over the height bands")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()

    cards = load_deck("deck-dash").identities()
    styles = (*TRAIN_STYLES, HELDOUT_STYLE)
    readers = {z: CardReader(args.models, config=ReaderConfig(zoom_out=z)) for z in PASSES}
    rng = np.random.default_rng(args.seed)
    read = {(z, band): 0 for z in PASSES for band in HEIGHTS}
    shown = dict.fromkeys(HEIGHTS, 0)
    for i in range(args.n):
        band = HEIGHTS[i % len(HEIGHTS)]
        color, value = cards[int(rng.integers(len(cards)))]
        style = str(rng.choice(styles))
        height, angle = float(rng.uniform(*band)), float(rng.uniform(-30, 30))
        image, quad = render_close_up(color, value, style, rng, height=height, angle=angle)
        shown[band] += 1
        for z, reader in readers.items():
            d = reader(image)
            right = [
                polygon_iou(box_corners(*map(float, o)), quad) > 0.5 and (c, v) == (color, value)
                for o, c, v in zip(d.obb, d.color, d.value, strict=True)
            ]
            read[(z, band)] += right == [True]
    head = "".join(f"{f'{lo}-{hi} px':>12}" for lo, hi in HEIGHTS)
    print(f"{'--zoom-out':<12}{head}{'all':>10}")
    for z in PASSES:
        cells = "".join(f"{f'{read[(z, b)]}/{shown[b]}':>12}" for b in HEIGHTS)
        total = sum(read[(z, b)] for b in HEIGHTS)
        print(f"{z:<12}{cells}{f'{total}/{args.n}':>10}")


if __name__ == "__main__":
    main()
