"""Read single clean cards, layout by layout: does the symbol model read the digit, or the
shapes around it?

Each card is one face (blue, one of a few digits that look alike) alone on a grey table,
scaled as a card at the table's middle distance, cut from its true box: no occlusion, no
detector. A layout that reads much worse than the others with the same fonts has taught the
model a shape, not a digit (round 13 found 10 read as a draw 4 in `badge`'s six-sided
badge). Rows: each style × font group (the held-out fonts, the first twelve training fonts).

    .venv/bin/python bench/vision_layouts.py [--models DIR] [--n 6] [--styles badge,oval]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DIGITS = ("1", "7", "10", "11", "12", "2", "5")
SCALE = 0.45  # card ≈ 50 × 79 px: the middle of the rendered tables' range
STYLES = ("badge", "ticket", "emblem", "oval", "paper", "frame")


def read_cards(reader, style: str, fonts, n: int, seed: int = 0) -> tuple[float, Counter]:
    """Share of single cards read right, and the commonest (font, digit, reading) mistakes."""
    import cv2
    import numpy as np

    from vision.render import faces

    rng = np.random.default_rng(seed)
    right = total = 0
    mistakes: Counter = Counter()
    pick = faces._font
    try:
        for font in fonts:
            faces._font = lambda _rng, _heldout, font=font: font  # one font at a time
            for digit in DIGITS:
                for _ in range(n):
                    face = faces.render_face("blue", digit, style, rng)
                    h, w = face.shape[:2]
                    frame = np.full((480, 640, 3), 90, np.uint8)
                    rgb = face.clip(0, 255).astype(np.uint8)
                    frame[240 - h // 2 : 240 - h // 2 + h, 320 - w // 2 : 320 - w // 2 + w] = (
                        cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
                    )
                    small = cv2.resize(
                        frame, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA
                    )
                    box = np.array([[320 * SCALE, 240 * SCALE, w * SCALE, h * SCALE, 0.0]])
                    probs = reader.symbol_probabilities(small, box.astype(np.float32))[0]
                    got = reader.symbol_names[int(probs.argmax())]
                    right += got == digit
                    total += 1
                    if got != digit:
                        mistakes[(font.name, digit, got)] += 1
    finally:
        faces._font = pick
    return right / total, mistakes


def main() -> None:
    from vision.render.fonts import HELDOUT_FONTS, TRAIN_FONTS
    from vision.runtime.reader import MODELS_DIR, CardReader

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=MODELS_DIR)
    ap.add_argument("--n", type=int, default=6, help="cards per font and digit")
    ap.add_argument("--styles", default=",".join(STYLES))
    args = ap.parse_args()
    reader = CardReader(args.models)
    print(f"{'style':<8} {'fonts':<8} {'read':>6}  commonest mistakes (font, digit, reading)")
    for style in args.styles.split(","):
        for group, fonts in (("held-out", HELDOUT_FONTS), ("training", TRAIN_FONTS[:12])):
            share, mistakes = read_cards(reader, style, fonts, args.n)
            worst = ", ".join(f"{f} {d}→{g} ×{k}" for (f, d, g), k in mistakes.most_common(3))
            print(f"{style:<8} {group:<8} {share:>6.3f}  {worst}")


if __name__ == "__main__":
    main()
