"""Where card identity is lost: by how much of each card is visible, and by box source.

Renders held-out tables in-process (same generator and seed as ``tabletop vision render``,
so the frames equal the eval set's) to know each card's visible fraction, which the YOLO
labels do not carry. For every card face it reports whether the detector found it (IoU ≥
0.5) and whether the reader names it right from the detected box and from the true box
(the true box isolates the classifiers from the detector's errors). No confidence floor.
A second table gives each lost face one cause, so a round knows which stage to work on: no
proposal at all, a proposal only below the detector's threshold, a proposal that rotated
NMS dropped, or a box read wrong (also from the true box, or only from the detected one).

    .venv/bin/python bench/vision_visibility.py [--seed 7001] [--n 200] [--heldout]
        [--style NAME] [--models models]
"""

from __future__ import annotations

import argparse
import sys
from enum import IntEnum
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BANDS = ((0.4, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01))
WEAK = 0.1  # a proposal at least this confident counts as "seen, below the threshold"


class Cause(IntEnum):
    """Why a face was lost, in the order the reader's stages would lose it."""

    READ_RIGHT = 0
    NEVER_PROPOSED = 1
    BELOW_THRESHOLD = 2
    DROPPED_BY_NMS = 3
    MISREAD_ALSO_FROM_TRUE_BOX = 4
    MISREAD_ONLY_FROM_DETECTED_BOX = 5

    @property
    def label(self) -> str:
        return CAUSE_LABELS[self]


CAUSE_LABELS = {
    Cause.READ_RIGHT: "read right",
    Cause.NEVER_PROPOSED: "never proposed",
    Cause.BELOW_THRESHOLD: "below the threshold",
    Cause.DROPPED_BY_NMS: "dropped by NMS",
    Cause.MISREAD_ALSO_FROM_TRUE_BOX: "misread, also from the true box",
    Cause.MISREAD_ONLY_FROM_DETECTED_BOX: "misread, only from the detected box",
}
COLUMNS = ("visible", "iou", "read (det box)", "read (true box)", "cause")


def proposals(reader, bgr: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray]:
    """Every oriented box the detector proposes above ``conf`` before NMS, in frame pixels,
    and its score (one detector pass serves every threshold above ``conf``)."""
    from vision.runtime.geometry import decode_obb, unletterbox_obb

    tensor, r, pad = reader.detector_input(bgr)
    obb, scores, _ = decode_obb(reader.detector(tensor), conf, iou=1.01, max_det=1_000_000)
    return unletterbox_obb(obb, r, pad), scores


def best_iou(obbs: np.ndarray, quad: np.ndarray) -> float:
    """The best polygon IoU of any oriented box with a true card's quad (0 with no boxes)."""
    from vision.runtime.geometry import polygon_iou
    from vision.runtime.rectify import box_corners

    return max((polygon_iou(box_corners(*b), quad) for b in obbs), default=0.0)


def cause_of(iou: float, det_ok: bool, true_ok: bool, proposed: float, weak: float) -> Cause:
    """The first stage that lost a face: ``proposed`` / ``weak`` are the best IoU of any
    proposal above the detector's threshold / above ``WEAK``, before NMS."""
    if iou >= 0.5:
        if det_ok:
            return Cause.READ_RIGHT
        if true_ok:
            return Cause.MISREAD_ONLY_FROM_DETECTED_BOX
        return Cause.MISREAD_ALSO_FROM_TRUE_BOX
    if proposed >= 0.5:
        return Cause.DROPPED_BY_NMS
    return Cause.BELOW_THRESHOLD if weak >= 0.5 else Cause.NEVER_PROPOSED


def face_rows(reader, seed: int, n: int, styles: tuple[str, ...]) -> np.ndarray:
    """One row per card face (``COLUMNS``): visible fraction, best detected IoU, read right
    from the detected box, read right from the true box, and its ``Cause``."""
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
        weak, scores = proposals(reader, bgr, WEAK)
        above = weak[scores > reader.config.conf]  # as decode_obb keeps them
        for obj in scene.objects:
            if obj.kind != "card":
                continue
            truth = identity_name(obj.kind, obj.meta)
            ious = [polygon_iou(box_corners(*b), obj.quad) for b in found.obb]
            k = int(np.argmax(ious)) if ious else -1
            iou = ious[k] if k >= 0 else 0.0
            det_ok = iou >= 0.5 and name_at(bgr, found.obb[k]) == truth
            true_ok = name_at(bgr, quad_to_obb(obj.quad)) == truth
            lost = iou < 0.5
            cause = cause_of(
                iou,
                det_ok,
                true_ok,
                best_iou(above, obj.quad) if lost else 0.0,
                best_iou(weak, obj.quad) if lost else 0.0,
            )
            rows.append((obj.visible, iou, det_ok, true_ok, cause))
    return np.array(rows, float).reshape(-1, len(COLUMNS))


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


def causes_table(rows: np.ndarray) -> str:
    """Faces per cause, in all and among the 40–60 % visible ones."""
    half = (rows[:, 0] >= BANDS[0][0]) & (rows[:, 0] < BANDS[0][1])
    lines = [f"{'cause':<38}{'faces':>6}{'40-60 % visible':>17}"]
    for cause in Cause:
        m = rows[:, 4] == cause
        lines.append(f"{cause.label:<38}{int(m.sum()):>6}{int((m & half).sum()):>17}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7001)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--heldout", action="store_true", help="the held-out art style only")
    ap.add_argument("--style", help="this one art style only (e.g. badge)")
    ap.add_argument("--models", default=str(REPO / "models"))
    args = ap.parse_args()
    from vision.render.faces import ALL_STYLES, HELDOUT_STYLE, TRAIN_STYLES
    from vision.runtime.reader import CardReader, ReaderConfig

    if args.style is not None and args.style not in ALL_STYLES:
        ap.error(f"unknown style {args.style!r} (one of {', '.join(ALL_STYLES)})")

    reader = CardReader(args.models, config=ReaderConfig(min_confidence=0.0))
    styles = (args.style,) if args.style else (HELDOUT_STYLE,) if args.heldout else TRAIN_STYLES
    rows = face_rows(reader, args.seed, args.n, styles)
    print(table(rows))
    print()
    print(causes_table(rows))


if __name__ == "__main__":
    main()
