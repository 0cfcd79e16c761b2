"""Sweep the card reader's two thresholds on held-out sets without re-running the networks.

Each frame is read once at a low detector threshold; every (detector threshold, reading
confidence) pair is then scored from the cached detections, so the table shows what each
setting costs in card identity and buys in false cards on empty tables.

    .venv/bin/python bench/vision_thresholds.py runs/eval/scenes runs/eval/empty \
        [--models models] [--det 0.25,0.3,0.4,0.5] [--card 0,0.2,0.3,0.4,0.5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def cached_predictions(reader, root: Path) -> list:
    import cv2

    from vision.evaluate import dataset_images

    out = []
    for path in dataset_images(root):
        img = cv2.imread(str(path))
        if img is not None:
            out.append(reader(img))
    return out


def score(root: Path, cached: list, det: float, card: float):
    from vision.evaluate import evaluate

    frames = iter(cached)

    def predict(_img):
        d = next(frames)
        if len(d) == 0:
            return d
        keep = (d.data["detector_confidence"] >= det) & (d.confidence >= card)
        return d[np.flatnonzero(keep)]

    return evaluate(root, predict)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--models", default=str(REPO / "models"))
    ap.add_argument("--det", default="0.25,0.3,0.35,0.4,0.5")
    ap.add_argument("--card", default="0,0.2,0.3,0.4,0.5")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from vision.runtime.reader import CardReader, ReaderConfig

    dets = [float(x) for x in args.det.split(",")]
    cards = [float(x) for x in args.card.split(",")]
    reader = CardReader(
        args.models, config=ReaderConfig(conf=min(dets), threads=args.threads, min_confidence=0.0)
    )
    print("| set | det ≥ | card ≥ | identity | face recall | frames with a false card |")
    print("|---|---:|---:|---:|---:|---:|")
    for root in args.datasets:
        cached = cached_predictions(reader, root)
        for d in dets:
            for c in cards:
                rep = score(root, cached, d, c)
                ident = "" if rep.faces == 0 else f"{rep.identity_accuracy:.3f}"
                recall = "" if rep.faces == 0 else f"{rep.detected_faces / rep.faces:.3f}"
                print(
                    f"| {root.name} | {d:.2f} | {c:.2f} | {ident} | {recall} "
                    f"| {rep.frames_with_false_card}/{rep.images} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
