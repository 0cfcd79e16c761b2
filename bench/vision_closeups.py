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


def _read_right(d, truth: list) -> int:
    """Labelled cards (quad, colour, value) that a detection names right on its box (IoU >
    0.5), each detection used once."""
    from vision.runtime.geometry import polygon_iou
    from vision.runtime.rectify import box_corners

    boxes = [box_corners(*map(float, o)) for o in d.obb]
    used: set[int] = set()
    for quad, color, value in truth:
        for k, (box, c, v) in enumerate(zip(boxes, d.color, d.value, strict=True)):
            if k not in used and (c, v) == (color, value) and polygon_iou(box, quad) > 0.5:
                used.add(k)
                break
    return len(used)


def groups(readers: dict, n: int, seed: int, enlarge: list[float]) -> None:
    import cv2
    import numpy as np

    from vision.decks import all_decks
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scenes import FRAME_H, FRAME_W, MIN_VISIBLE, render_scene

    print(
        f"{'enlarged':<10}{'faces':>7}"
        + "".join(f"{f'zoom {z}: read / extra':>24}" for z in PASSES)
    )
    for factor in enlarge:
        rng = np.random.default_rng(seed)
        faces, read, extra = 0, dict.fromkeys(PASSES, 0), dict.fromkeys(PASSES, 0)
        for _ in range(n):
            scene = render_scene(all_decks(), rng, TRAIN_STYLES)
            cards = [
                o for o in scene.objects if o.kind in ("card", "back") and o.visible >= MIN_VISIBLE
            ]
            if not cards:
                continue
            centre = cards[int(rng.integers(len(cards)))].quad.mean(0)
            w, h = FRAME_W / factor, FRAME_H / factor
            x0 = float(np.clip(centre[0] - w / 2, 0, FRAME_W - w))
            y0 = float(np.clip(centre[1] - h / 2, 0, FRAME_H - h))
            m = np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]])
            bgr = np.ascontiguousarray(scene.image[..., ::-1])
            photo = cv2.warpAffine(bgr, m, (FRAME_W, FRAME_H), flags=cv2.INTER_CUBIC)
            truth = []
            for o in cards:  # cards whose centre is in the photo
                quad = o.quad @ m[:, :2].T + m[:, 2]
                cx, cy = quad.mean(0)
                if 0 <= cx < FRAME_W and 0 <= cy < FRAME_H:
                    truth.append((quad, o.meta.get("color"), o.meta.get("value", "back")))
            faces += len(truth)
            for z, reader in readers.items():
                d = reader(photo)
                right = _read_right(d, truth)
                read[z] += right
                extra[z] += len(d) - right
        cells = "".join(f"{f'{read[z]} / {extra[z]}':>24}" for z in PASSES)
        print(f"{f'x{factor:g}':<10}{faces:>7}{cells}")


def main() -> None:
    import numpy as np

    from vision.decks import load_deck
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
            read[(z, band)] += len(d) == 1 and _read_right(d, [(quad, color, value)]) == 1
    head = "".join(f"{f'{lo}-{hi} px':>12}" for lo, hi in HEIGHTS)
    print(f"{'--zoom-out':<12}{head}{'all':>10}")
    for z in PASSES:
        cells = "".join(f"{f'{read[(z, b)]}/{shown[b]}':>12}" for b in HEIGHTS)
        total = sum(read[(z, b)] for b in HEIGHTS)
        print(f"{z:<12}{cells}{f'{total}/{args.n}':>10}")


if __name__ == "__main__":
    main()
