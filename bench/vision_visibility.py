"""Where card identity is lost: by how much of each card is visible, and by box source.

Renders held-out tables in-process (same generator and seed as ``tabletop vision render``,
so the frames equal the eval set's) to know each card's visible fraction, which the YOLO
labels do not carry. For every card face it reports whether the detector found it (IoU ≥
0.5) and whether the reader names it right from the detected box and from the true box
(the true box isolates the classifiers from the detector's errors). No confidence floor.

    .venv/bin/python bench/vision_visibility.py [--seed 7001] [--n 200] [--heldout]
        [--models models]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BANDS = ((0.4, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01))


def face_rows(reader, seed: int, n: int, styles: tuple[str, ...]) -> np.ndarray:
    """One row per card face: visible fraction, best detected IoU, read right from the
    detected box, read right from the true box."""
    import cv2

    from vision.decks import load_deck
    from vision.evaluate import identity_of
    from vision.render.dataset import identity_name
    from vision.render.scenes import render_scene
    from vision.runtime.detections import Detections
    from vision.runtime.geometry import polygon_iou
    from vision.runtime.rectify import box_corners, quad_to_obb

    decks = [load_deck(d) for d in ("deck-dash", "dos", "hit-the-deck")]
    rng = np.random.default_rng(seed)

    def name_at(bgr, obb) -> str:
        one = Detections(np.array([obb], np.float32), np.ones(1, np.float32), np.zeros(1))
        got = reader.read(bgr, one)
        return identity_of(got.color[0], got.value[0]) if len(got) else "?"

    rows = []
    for _ in range(n):
        scene = render_scene(decks, rng, styles, empty=rng.random() < 0.0)  # as write_scenes
        bgr = cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR)
        _ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])  # as saved
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        found = reader.detect(bgr)
        for obj in scene.objects:
            if obj.kind != "card":
                continue
            truth = identity_name(obj.kind, obj.meta)
            ious = [polygon_iou(box_corners(*b), obj.quad) for b in found.obb]
            k = int(np.argmax(ious)) if ious else -1
            iou = ious[k] if k >= 0 else 0.0
            det_ok = iou >= 0.5 and name_at(bgr, found.obb[k]) == truth
            true_ok = name_at(bgr, quad_to_obb(obj.quad)) == truth
            rows.append((obj.visible, iou, det_ok, true_ok))
    return np.array(rows, float).reshape(-1, 4)


def table(rows: np.ndarray) -> str:
    lines = [
        f"{'visible':<12}{'faces':>6}{'found':>8}{'read (det box)':>16}{'read (true box)':>17}"
    ]
    for lo, hi in (*BANDS, (0.0, 1.01)):
        m = (rows[:, 0] >= lo) & (rows[:, 0] < hi)
        label = "all" if lo == 0.0 else f"{lo:.2f}-{min(hi, 1):.2f}"
        if m.any():
            r = rows[m]
            lines.append(
                f"{label:<12}{int(m.sum()):>6}{np.mean(r[:, 1] >= 0.5):>8.3f}"
                f"{r[:, 2].mean():>16.3f}{r[:, 3].mean():>17.3f}"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7001)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--heldout", action="store_true", help="the held-out art style only")
    ap.add_argument("--models", default=str(REPO / "models"))
    args = ap.parse_args()
    from vision.render.faces import HELDOUT_STYLE, TRAIN_STYLES
    from vision.runtime.reader import CardReader, ReaderConfig

    reader = CardReader(args.models, config=ReaderConfig(min_confidence=0.0))
    styles = (HELDOUT_STYLE,) if args.heldout else TRAIN_STYLES
    print(table(face_rows(reader, args.seed, args.n, styles)))


if __name__ == "__main__":
    main()
