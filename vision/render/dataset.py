"""Write rendered data to disk: an OBB detector dataset, classifier crops, evaluation sets.

Labels are YOLO format. Detector and evaluation labels are oriented polygons
``cls x1 y1 x2 y2 x3 y3 x4 y4`` (normalised), the format Ultralytics' OBB task reads; an
axis-aligned box is derived from them where needed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.decks import COLOR_CLASSES, COLORS, SYMBOL_CLASSES, SYMBOLS, DeckProfile
from vision.files import written_whole
from vision.render.scenes import (
    FRAME_H,
    FRAME_W,
    MIN_VISIBLE,
    render_card_patch,
    render_other_patch,
    render_scene,
)
from vision.runtime.rectify import MIN_CROP, quad_to_obb, rectify

DETECTOR_CLASSES: tuple[str, ...] = ("card",)  # faces and backs: the classifier tells them apart
CROP_SIZE = MIN_CROP  # default training crop side (rectify.crop_side)


def identity_names() -> list[str]:
    """Evaluation class names: every colour × symbol, every colourless symbol, and 'back'."""
    names = [f"{c} {s}" for c in COLORS for s in SYMBOLS]
    names += list(SYMBOLS)
    names.append("back")
    return names


def identity_name(kind: str, meta: dict) -> str:
    if kind == "back":
        return "back"
    return f"{meta['color']} {meta['value']}" if meta.get("color") else str(meta["value"])


def _poly_line(cls: int, quad: np.ndarray, w: int, h: int) -> str:
    q = quad.copy()
    q[:, 0] = np.clip(q[:, 0] / w, 0, 1)
    q[:, 1] = np.clip(q[:, 1] / h, 0, 1)
    return f"{cls} " + " ".join(f"{v:.5f}" for v in q.ravel())


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` at ``path``, whole or not at all; an OSError names ``path`` (not the
    temporary file beside it), so that "cannot write …" says which file."""
    try:
        with written_whole(path) as part:
            part.write_bytes(data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def write_image(path: Path, rgb: np.ndarray, params: Sequence[int] = ()) -> None:
    """``rgb`` saved at ``path`` in the format its suffix names. Raises OSError when it cannot
    be: ``cv2.imwrite`` only returns False, and a full disk silently lost scenes that
    ``vision eval`` then did not score."""
    bgr = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)
    ok, data = cv2.imencode(path.suffix, bgr, list(params))
    if not ok:
        raise OSError(None, "OpenCV could not encode the image", str(path))
    _write_whole(path, data.tobytes())


def _yaml(path: Path, root: Path, names: list[str] | tuple[str, ...], splits: dict) -> None:
    lines = [f"path: {root.resolve()}"]
    lines += [f"{k}: {v}" for k, v in splits.items()]
    lines.append("names:")
    lines += [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    path.write_text("\n".join(lines) + "\n")


def write_scenes(
    out: Path,
    n: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    *,
    split: str = "",
    empty_fraction: float = 0.0,
    identity_labels: bool = False,
) -> Path:
    """Render ``n`` scenes into ``out/images[/split]`` and ``out/labels[/split]``.

    ``identity_labels`` labels each card by colour and value (for ``vision eval``); otherwise
    by detector class (card face / card back).
    """
    rng = np.random.default_rng(seed)
    img_dir = out / "images" / split if split else out / "images"
    lab_dir = out / "labels" / split if split else out / "labels"
    img_dir.mkdir(parents=True, exist_ok=True)
    lab_dir.mkdir(parents=True, exist_ok=True)
    names = identity_names() if identity_labels else list(DETECTOR_CLASSES)
    index = {nm: i for i, nm in enumerate(names)}
    for i in range(n):
        scene = render_scene(decks, rng, styles, empty=rng.random() < empty_fraction)
        stem = f"{seed}_{i:05d}"
        # the image first, so that no label is left without its image
        write_image(img_dir / f"{stem}.jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        lines = []
        for o in scene.objects:
            nm = identity_name(o.kind, o.meta) if identity_labels else "card"
            lines.append(_poly_line(index[nm], o.quad, FRAME_W, FRAME_H))
        text = "\n".join(lines) + ("\n" if lines else "")
        _write_whole(lab_dir / f"{stem}.txt", text.encode())
    return out


def write_detector_dataset(
    out: Path,
    n_train: int,
    n_val: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
) -> Path:
    write_scenes(out, n_train, seed, decks, styles, split="train", empty_fraction=0.08)
    write_scenes(out, n_val, seed + 1, decks, styles, split="val", empty_fraction=0.08)
    _yaml(out / "data.yaml", out, DETECTOR_CLASSES, {"train": "images/train", "val": "images/val"})
    return out / "data.yaml"


def write_eval_dataset(
    out: Path,
    n: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    empty: bool = False,
) -> Path:
    write_scenes(
        out, n, seed, decks, styles, empty_fraction=1.0 if empty else 0.0, identity_labels=True
    )
    _yaml(out / "data.yaml", out, identity_names(), {"val": "images"})
    return out / "data.yaml"


def jittered_obb(
    quad: np.ndarray, rng: np.random.Generator, spread: float = 1.0
) -> tuple[float, ...]:
    """The card's rotated box, disturbed like a detector's box would be (``spread`` scales
    the disturbance: 1 is a good detector, 2 the tiny one's boxes on fans and piles)."""
    cx, cy, w, h, th = quad_to_obb(quad)
    s = max(w, h)
    return (
        cx + rng.normal(0, 0.03 * spread) * s,
        cy + rng.normal(0, 0.03 * spread) * s,
        w * rng.uniform(1 - 0.07 * spread, 1 + 0.08 * spread),
        h * rng.uniform(1 - 0.07 * spread, 1 + 0.08 * spread),
        th + np.radians(rng.normal(0, 3 * spread)),
    )


def make_class_folders(out: Path, split: str) -> None:
    """``symbol/<split>/<class>`` and ``color/<split>/<class>`` for every class, so a class
    with no crop yet still has its folder."""
    for name in SYMBOL_CLASSES:
        (out / "symbol" / split / name).mkdir(parents=True, exist_ok=True)
    for name in COLOR_CLASSES:
        (out / "color" / split / name).mkdir(parents=True, exist_ok=True)


def write_crops(
    out: Path,
    n: int,
    seed: int,
    decks: list[DeckProfile],
    styles: tuple[str, ...],
    split: str,
    back_p: float = 0.05,
    other_p: float = 0.06,
    wide_jitter_p: float = 0.0,
    crop_size: int = CROP_SIZE,
) -> None:
    """Rectified card crops in two folder trees: ``symbol/<split>/<value>`` and
    ``color/<split>/<colour>`` (hard links, the same pixels). ``wide_jitter_p`` of the crops
    are cut with twice the usual box error."""
    rng = np.random.default_rng(seed)
    make_class_folders(out, split)
    done = 0
    while done < n:
        r = rng.random()
        if r < other_p:
            img, target = render_other_patch(decks, rng, styles)
        else:
            img, target = render_card_patch(decks, rng, styles, back_p=back_p / (1 - other_p))
            if target.visible < MIN_VISIBLE + 0.05:
                continue
        # (no draw when off: the first round's crops stay the same for the same seed)
        spread = 2.0 if wide_jitter_p > 0 and rng.random() < wide_jitter_p else 1.0
        crop = rectify(img, jittered_obb(target.quad, rng, spread), crop_size)
        if rng.random() < 0.5:
            crop = crop[::-1, ::-1]
        if target.kind == "card":
            value, color = target.meta["value"], target.meta["color"] or "none"
        else:  # "back" or "other": no colour to learn
            value, color = target.kind, None
        path = out / "symbol" / split / value / f"{seed}_{done:06d}.png"
        write_image(path, crop)
        if color is not None:
            os.link(path, out / "color" / split / color / path.name)
        done += 1
