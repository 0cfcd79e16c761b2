"""Close-up photos: cards far larger than the table camera sees them, read by `identify`
with 0, 1 and 2 zoomed-out passes (`--zoom-out`, `vision.runtime.zoom`).

Single cards: each photo (640×480) holds one Deck Dash card, 120–470 px tall, turned up to
±30°, in a training style or the held-out `ticket`, on a random table top
(`vision.render.closeups`). A photo counts as read when the reader names exactly one card
and it is the right card on a box overlapping the card by IoU > 0.5. Table cards are
34–100 px wide (54–157 px tall) in the training tables.

Groups (``--groups``): rendered tables (training styles, fans, piles, clutter) cropped round
one card and enlarged by each ``--enlarge`` factor (1 = the table as the camera sees it).
Faces read right (right card, IoU > 0.5, each box used once) and the boxes left over.

    .venv/bin/python bench/vision_closeups.py [--models DIR] [--n 160] [--seed 5]
    .venv/bin/python bench/vision_closeups.py --groups [--n 80] [--enlarge 1,2.5,4]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

HEIGHTS = ((120, 200), (200, 300), (300, 400), (400, 470))
PASSES = (0, 1, 2)


def groups(readers: dict, n: int, seed: int, enlarge: list[float]) -> None:
    import numpy as np

    from vision.evaluate import cards_read_right
    from vision.render.closeups import render_near_table

    print(
        f"{'enlarged':<10}{'faces':>7}"
        + "".join(f"{f'zoom {z}: read / extra':>24}" for z in PASSES)
    )
    for factor in enlarge:
        rng = np.random.default_rng(seed)
        faces, read, extra = 0, dict.fromkeys(PASSES, 0), dict.fromkeys(PASSES, 0)
        for _ in range(n):
            table = render_near_table(rng, factor)
            if table is None:
                continue
            photo, truth = table
            faces += len(truth)
            for z, reader in readers.items():
                d = reader(photo)
                right = cards_read_right(d, truth)
                read[z] += right
                extra[z] += len(d) - right
        cells = "".join(f"{f'{read[z]} / {extra[z]}':>24}" for z in PASSES)
        print(f"{f'x{factor:g}':<10}{faces:>7}{cells}")


def main() -> None:
    import numpy as np

    from vision.decks import load_deck
    from vision.evaluate import cards_read_right
    from vision.render.closeups import render_close_up
    from vision.render.faces import HELDOUT_STYLE, TRAIN_STYLES
    from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=str(MODELS_DIR))
    ap.add_argument("--n", type=int, default=160, help="photos (single cards: over the bands)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--groups", action="store_true", help="enlarged tables, not single cards")
    ap.add_argument("--enlarge", default="1,2.5,4", help="--groups: enlargement factors")
    args = ap.parse_args()

    readers = {z: CardReader(args.models, config=ReaderConfig(zoom_out=z)) for z in PASSES}
    if args.groups:
        groups(readers, args.n, args.seed, [float(f) for f in args.enlarge.split(",")])
        return
    cards = load_deck("deck-dash").identities()
    styles = (*TRAIN_STYLES, HELDOUT_STYLE)
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
            read[(z, band)] += len(d) == 1 and cards_read_right(d, [(quad, color, value)]) == 1
    head = "".join(f"{f'{lo}-{hi} px':>12}" for lo, hi in HEIGHTS)
    print(f"{'--zoom-out':<12}{head}{'all':>10}")
    for z in PASSES:
        cells = "".join(f"{f'{read[(z, b)]}/{shown[b]}':>12}" for b in HEIGHTS)
        total = sum(read[(z, b)] for b in HEIGHTS)
        print(f"{z:<12}{cells}{f'{total}/{args.n}':>10}")


if __name__ == "__main__":
    main()
