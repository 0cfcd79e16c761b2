"""Which camera fault costs the reader its cards: the same validation tables, rendered again
with one fault left out.

Each table is rendered from the same seed as ``tabletop vision render`` would (and saved as
JPEG 92 as the sets are), then again with ``render_scene(skip_faults=...)``: every random
number is drawn as before, so the cards, their places and the other faults are the same,
and only the named fault is missing. A face counts as read when some reported card (shipped
reader defaults, confidence floor included) overlaps it by IoU ≥ 0.5 with colour and value
right. ``gained / lost`` compares face by face with the faulted tables; ``jpeg`` also skips
the saved file's compression.

    .venv/bin/python bench/vision_faults.py [--seed 7101] [--n 150] [--style STYLE]
        [--models models] [--skip blur --skip light,glare,blur,noise,jpeg ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def faces_read(reader, seed: int, n: int, styles: tuple[str, ...], skip: frozenset[str]):
    """(face key, read right) for every card face of ``n`` tables from ``seed``."""
    import cv2

    from vision.decks import load_deck
    from vision.evaluate import identity_of
    from vision.render.dataset import identity_name
    from vision.render.scenes import render_scene
    from vision.runtime.geometry import polygon_iou
    from vision.runtime.rectify import box_corners

    decks = [load_deck(d) for d in ("deck-dash", "dos", "hit-the-deck")]
    rng = np.random.default_rng(seed)
    out: list[tuple[tuple[int, int], bool]] = []
    for frame in range(n):
        # drawn as write_scenes draws it (empty_fraction 0), so the tables are the render's
        empty = rng.random() < 0.0
        scene = render_scene(decks, rng, styles, empty=empty, skip_faults=skip)
        bgr = cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR)
        if "jpeg" not in skip:  # as the validation and evaluation sets are saved
            _ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
            bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        got = reader(bgr)
        boxes = [box_corners(*b) for b in got.obb]
        names = [identity_of(c, v) for c, v in zip(got.color, got.value, strict=True)]
        for k, obj in enumerate(scene.objects):
            truth = identity_name(obj.kind, obj.meta)
            if obj.kind != "card" or truth == "back":
                continue
            hit = any(
                name == truth and polygon_iou(box, obj.quad) >= 0.5
                for box, name in zip(boxes, names, strict=True)
            )
            out.append(((frame, k), hit))
    return out


def main(argv: list[str] | None = None) -> int:
    from vision.render.faces import HELDOUT_STYLE, TRAIN_STYLES
    from vision.render.scenes import FAULTS
    from vision.runtime.reader import MODELS_DIR, CardReader

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7101)
    ap.add_argument("--n", type=int, default=150)
    ap.add_argument("--style", help=f"one art style (default: training styles; {HELDOUT_STYLE})")
    ap.add_argument("--models", type=Path, default=MODELS_DIR)
    ap.add_argument(
        "--skip",
        action="append",
        help=f"faults left out together, comma-separated (repeatable; default: each of "
        f"{', '.join(FAULTS)} alone, then all)",
    )
    args = ap.parse_args(argv)
    runs = args.skip or [*FAULTS, ",".join(FAULTS)]
    skips = [frozenset(filter(None, r.split(","))) for r in runs]
    unknown = set().union(*skips) - set(FAULTS)
    if unknown:
        ap.error(f"unknown fault(s) {sorted(unknown)}; known: {', '.join(FAULTS)}")
    styles = (args.style,) if args.style else TRAIN_STYLES
    reader = CardReader(args.models)
    base = dict(faces_read(reader, args.seed, args.n, styles, frozenset()))
    print(f"seed {args.seed}, {args.n} tables, {len(base)} faces, styles {', '.join(styles)}")
    print(f"{'left out':<28}  {'faces read':>10}  {'gained / lost':>13}")
    print(f"{'(nothing)':<28}  {sum(base.values()):>10}")
    for skip in skips:
        mine = dict(faces_read(reader, args.seed, args.n, styles, skip))
        if mine.keys() != base.keys():
            raise RuntimeError("leaving a fault out changed the tables' cards")
        gained = sum(mine[k] and not base[k] for k in base)
        lost = sum(base[k] and not mine[k] for k in base)
        print(
            f"{','.join(sorted(skip)):<28}  {sum(mine.values()):>10}  {f'+{gained} / -{lost}':>13}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
