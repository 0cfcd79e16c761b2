"""``vision eval``: detection mAP and card-identity accuracy on a YOLO-format dataset.

Labels are ``cls x1 y1 … x4 y4`` (oriented polygon) or ``cls cx cy w h`` (axis-aligned), all
normalised; class names (``red 7``, ``wild``, ``back``…) come from the dataset's ``data.yaml``.
Torch-free: runs the same ONNX runtime as ``identify``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.images import imread
from vision.runtime.detections import Detections
from vision.runtime.geometry import polygon_iou
from vision.runtime.rectify import box_corners

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


class DatasetError(ValueError):
    """The dataset cannot be scored as it is (no class names, no images, a malformed label
    line); the message names the file, and the line where there is one."""


def read_names(data_yaml: Path) -> list[str]:
    """Class names from a data.yaml (``names:`` as a mapping or a list), without PyYAML."""
    names: dict[int, str] = {}
    in_names = False
    try:
        text = data_yaml.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DatasetError(f"{data_yaml}: not a text file") from None
    except FileNotFoundError:
        raise DatasetError(f"{data_yaml} not found") from None
    except OSError as exc:
        raise DatasetError(f"{data_yaml}: cannot read ({exc.strerror or exc})") from None
    for line in text.splitlines():
        if line.startswith("names:"):
            rest = line[len("names:") :].strip()
            if rest.startswith("["):
                inline = [n.strip().strip("'\"") for n in rest[1:-1].split(",")]
                if not rest.endswith("]") or "" in inline:
                    raise DatasetError(f"{data_yaml}: malformed names list: {line.strip()}")
                return inline
            in_names = True
            continue
        if in_names:
            if line and not line.startswith((" ", "-")):
                break
            m = re.match(r"\s*(\d+)\s*:\s*(.+)$", line)
            if m:
                names[int(m.group(1))] = m.group(2).strip().strip("'\"")
            elif line.strip().startswith("-"):
                names[len(names)] = line.strip()[1:].strip().strip("'\"")
    missing = [i for i in range(len(names)) if i not in names]
    if missing:  # a label's class index is a position in this list: a gap shifts them all
        raise DatasetError(f"{data_yaml}: names has no class {missing[0]} (indices 0…N-1)")
    return [names[i] for i in range(len(names))]


def identity_of(color: str | None, value: str) -> str:
    if value == "back":
        return "back"
    return f"{color} {value}" if color else value


@dataclass
class GroundTruth:
    names: list[int]  # class index per object
    polys: list[np.ndarray]  # k×2 pixel polygons


def cards_read_right(
    found: Detections, truth: list[tuple[np.ndarray, str | None, str]], iou: float = 0.5
) -> int:
    """How many labelled cards (corners 4×2, colour, value) a detection names right on a box
    overlapping the card by more than ``iou``, each detection used once (the close-up and
    card-scale benches' count)."""
    boxes = [box_corners(*map(float, o)) for o in found.obb]
    used: set[int] = set()
    for quad, color, value in truth:
        for k, (box, c, v) in enumerate(zip(boxes, found.color, found.value, strict=True)):
            if k not in used and (c, v) == (color, value) and polygon_iou(box, quad) > iou:
                used.add(k)
                break
    return len(used)


def read_labels(path: Path, w: int, h: int) -> GroundTruth:
    gt = GroundTruth([], [])
    if not path.exists():
        return gt
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:  # a folder named like a label file, an unreadable file
        raise DatasetError(f"{path}: cannot read this label file ({exc.strerror or exc})") from None
    for lineno, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls, vals = int(parts[0]), np.array([float(v) for v in parts[1:]])
        except ValueError:
            raise DatasetError(f"{path}:{lineno}: not 'class x y w h' or a polygon") from None
        if len(vals) < 4 or (len(vals) > 4 and len(vals) % 2):
            raise DatasetError(f"{path}:{lineno}: not 'class x y w h' or a polygon")
        if len(vals) == 4:
            cx, cy, bw, bh = vals * [w, h, w, h]
            poly = np.array(
                [
                    [cx - bw / 2, cy - bh / 2],
                    [cx + bw / 2, cy - bh / 2],
                    [cx + bw / 2, cy + bh / 2],
                    [cx - bw / 2, cy + bh / 2],
                ]
            )
        else:
            poly = vals.reshape(-1, 2) * [w, h]
        gt.names.append(cls)
        gt.polys.append(poly.astype(np.float32))
    return gt


def average_precision(tp: np.ndarray, conf: np.ndarray, n_gt: int) -> float:
    """COCO-style 101-point interpolated AP from per-prediction TP flags."""
    if n_gt == 0:
        return float("nan")
    if len(tp) == 0:
        return 0.0
    order = np.argsort(-conf)
    tps = np.cumsum(tp[order])
    fps = np.cumsum(1 - tp[order])
    recall = tps / n_gt
    precision = tps / np.maximum(tps + fps, 1e-9)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([precision[i] if i < len(precision) else 0.0 for i in idx]))


@dataclass
class EvalReport:
    images: int = 0
    map50: float = 0.0
    map50_95: float = 0.0
    identity_accuracy: float = 0.0  # card faces: colour and value both right / all faces
    identity_correct: int = 0
    faces: int = 0
    detected_faces: int = 0
    frames_with_false_card: int = 0
    per_class: list[dict] = field(default_factory=list)
    # images the dataset lists that could not be decoded: skipped, and named, so that a
    # broken file cannot quietly shrink the set a figure is measured on
    unreadable: list[str] = field(default_factory=list)
    # images scored with no label file (YOLO: a background image, no card): counted and
    # said, so that labels in the wrong place cannot pass for tables with no card
    unlabelled: int = 0
    # which faces were read right ("IMAGE#LABEL_LINE", the image's path in the dataset), so
    # two readers can be compared face by face (how many each gains and loses), not only by
    # their totals
    read_faces: set[str] = field(default_factory=set)

    @property
    def false_card_rate(self) -> float:
        return self.frames_with_false_card / self.images if self.images else 0.0

    def to_dict(self) -> dict:
        return {
            "images": self.images,
            "mAP50": round(self.map50, 4),
            "mAP50-95": round(self.map50_95, 4),
            "identity_accuracy": round(self.identity_accuracy, 4) if self.faces else None,
            "identity_correct": self.identity_correct,
            "faces": self.faces,
            "face_recall": round(self.detected_faces / self.faces, 4) if self.faces else None,
            "frames_with_false_card": self.frames_with_false_card,
            "false_card_frame_rate": round(self.false_card_rate, 4),
            "per_class": self.per_class,
            "unreadable_images": self.unreadable,
            "images_without_labels": self.unlabelled,
        }

    def table(self) -> str:
        rows = [f"{'class':<22}{'cards':>6}{'AP50':>8}{'AP50-95':>9}{'identity':>10}"]
        for r in self.per_class:
            ident = "" if r["identity"] is None else f"{r['identity']:.3f}"
            rows.append(
                f"{r['class']:<22}{r['cards']:>6}{r['AP50']:>8.3f}{r['AP50-95']:>9.3f}{ident:>10}"
            )
        identity = (
            f"card identity {self.identity_accuracy:.4f} ({self.identity_correct}/{self.faces})"
            if self.faces
            else "card identity: no faces"
        )
        rows.append(
            f"images {self.images}  mAP50 {self.map50:.4f}  mAP50-95 {self.map50_95:.4f}  "
            f"{identity}  frames with a false card {self.frames_with_false_card}/{self.images}"
        )
        if self.unlabelled:
            rows.append(f"{self.unlabelled} images have no label file: scored as showing no card")
        if self.unreadable:
            rows.append(f"skipped {len(self.unreadable)} unreadable images")
        return "\n".join(rows)


def dataset_images(root: Path) -> list[Path]:
    img_dir = root / "images" if (root / "images").is_dir() else root
    return sorted(p for p in img_dir.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def label_path(image: Path, root: Path | None = None) -> Path:
    """YOLO's layout: ``…/images/x.jpg`` → ``…/labels/x.txt`` (the last ``images`` folder:
    ``images/train/x.jpg`` and the split-first ``train/images/x.jpg`` alike); an image outside
    an ``images`` folder keeps its label beside it. With the dataset's ``root``, only an
    ``images`` folder inside the dataset counts: one further up the path
    (``/data/images/set``) is not the dataset's, and rewriting it found no label at all."""
    base, rel = (root, image.relative_to(root)) if root is not None else (Path(), image)
    parts = list(rel.parts[:-1])  # the folders, not the file (an image named "images.jpg")
    if "images" not in parts:
        return image.with_suffix(".txt")
    parts[len(parts) - 1 - parts[::-1].index("images")] = "labels"
    return (base / Path(*parts, rel.name)).with_suffix(".txt")


def open_dataset(root: Path) -> tuple[list[str], dict[Path, Path]]:
    """A dataset's class names and each image's label file, or a ``DatasetError`` saying why
    it cannot be scored: checked before any model runs (``quantize --eval`` checks before it
    quantizes, not after)."""
    names = read_names(root / "data.yaml")
    if not names:
        raise DatasetError(f"{root / 'data.yaml'}: no class names ('names:')")
    images = dataset_images(root)
    if not images:
        raise DatasetError(f"{root}: no images (YOLO layout: images/…, labels/…)")
    labels = {p: label_path(p, root) for p in images}
    if not any(lab.exists() for lab in labels.values()):  # a missing labels/ is no empty set
        raise DatasetError(
            f"{root}: none of its {len(images)} images has a label file (YOLO layout:"
            " images/x.jpg → labels/x.txt; an empty file for a table with no card)"
        )
    return names, labels


def evaluate(root: Path, predict, log=None) -> EvalReport:
    """Run ``predict(bgr) -> Detections`` over a dataset and score it."""
    names, labels = open_dataset(root)
    index = {n: i for i, n in enumerate(names)}
    rep = EvalReport()
    # per IoU threshold, per class: lists of (conf, tp)
    records: list[dict[int, list[tuple[float, int]]]] = [defaultdict(list) for _ in IOU_THRESHOLDS]
    n_gt: dict[int, int] = defaultdict(int)
    ident_ok: dict[int, int] = defaultdict(int)
    for k, img_path in enumerate(labels):
        img = imread(img_path)
        if img is None:
            rep.unreadable.append(str(img_path))
            continue
        h, w = img.shape[:2]
        rep.unlabelled += not labels[img_path].exists()
        gt = read_labels(labels[img_path], w, h)
        if any(not 0 <= c < len(names) for c in gt.names):
            raise DatasetError(
                f"{labels[img_path]}: a class index outside data.yaml's {len(names)} names"
            )
        dets: Detections = predict(img)
        pred_cls = [
            index.get(identity_of(c, v), -1) for c, v in zip(dets.color, dets.value, strict=True)
        ]
        pred_polys = [box_corners(*o) for o in dets.obb]
        ious = np.array([[polygon_iou(p, g) for g in gt.polys] for p in pred_polys]).reshape(
            len(pred_polys), len(gt.polys)
        )
        rep.images += 1
        for c in gt.names:
            n_gt[c] += 1
        # detection mAP per IoU threshold (class-aware greedy matching by confidence)
        order = np.argsort(-dets.confidence)
        for ti, thr in enumerate(IOU_THRESHOLDS):
            used = np.zeros(len(gt.names), bool)
            for i in order:
                best, bj = thr, -1
                for j, gc in enumerate(gt.names):
                    if not used[j] and gc == pred_cls[i] and ious[i, j] >= best:
                        best, bj = ious[i, j], j
                if bj >= 0:
                    used[bj] = True
                records[ti][pred_cls[i]].append((float(dets.confidence[i]), int(bj >= 0)))
        # identity: class-agnostic matching at IoU 0.5, then compare the reading
        used_p = np.zeros(len(pred_cls), bool)
        false_card = False
        for j in np.argsort(
            [-(ious[:, j].max() if len(pred_cls) else 0) for j in range(len(gt.names))]
        ):
            cand = [i for i in range(len(pred_cls)) if not used_p[i] and ious[i, j] >= 0.5]
            gname = names[gt.names[j]]
            face = gname != "back"
            rep.faces += face
            if not cand:
                continue
            i = max(cand, key=lambda i: ious[i, j])
            used_p[i] = True
            if face:
                rep.detected_faces += 1
                if pred_cls[i] == gt.names[j]:
                    rep.identity_correct += 1
                    rep.read_faces.add(f"{img_path.relative_to(root).as_posix()}#{j}")
                    ident_ok[gt.names[j]] += 1
        false_card = bool((~used_p).any())
        rep.frames_with_false_card += false_card
        if log and (k + 1) % 50 == 0:
            log(f"{k + 1} images")
    rep.identity_accuracy = rep.identity_correct / rep.faces if rep.faces else float("nan")
    aps = np.full((len(IOU_THRESHOLDS), len(names)), np.nan)
    for ti in range(len(IOU_THRESHOLDS)):
        for c in n_gt:
            recs = records[ti].get(c, [])
            conf = np.array([r[0] for r in recs])
            tp = np.array([r[1] for r in recs], float)
            aps[ti, c] = average_precision(tp, conf, n_gt[c])
    present = sorted(n_gt)
    if present:
        rep.map50 = float(np.nanmean(aps[0, present]))
        rep.map50_95 = float(np.nanmean(aps[:, present]))
    for c in present:
        rep.per_class.append(
            {
                "class": names[c],
                "cards": n_gt[c],
                "AP50": round(float(aps[0, c]), 4),
                "AP50-95": round(float(np.nanmean(aps[:, c])), 4),
                "identity": None if names[c] == "back" else round(ident_ok[c] / n_gt[c], 4),
            }
        )
    return rep


def evaluate_crops(root: Path, reader, split: str = "val") -> dict:
    """Classifier-only accuracy on a crop folder written by ``write_crops`` (true boxes, so
    detector mistakes are excluded): symbol, colour, and both together (identity)."""
    colour_of: dict[str, str] = {}
    for p in (root / "color" / split).glob("*/*.png"):
        colour_of[p.name] = p.parent.name
    paths = sorted((root / "symbol" / split).glob("*/*.png"))
    n = sym_ok = col_ok = both = 0
    confusions: dict[str, int] = defaultdict(int)
    for i in range(0, len(paths), 64):
        chunk = paths[i : i + 64]
        crops = [cv2.imread(str(p))[..., ::-1] for p in chunk]
        ps = reader._classify(reader.symbol, crops)
        pc = reader._classify(reader.color, crops)
        for p, s, c in zip(chunk, ps, pc, strict=True):
            color, value, _ = reader._decide(s, c)
            want_v = p.parent.name
            want_c = colour_of.get(p.name, "none")
            want_c = None if want_c == "none" else want_c
            n += 1
            sym_ok += value == want_v
            col_ok += color == want_c or want_v in ("back", "other")
            ok = value == want_v and (color == want_c or want_v in ("back", "other"))
            both += ok
            if not ok:
                confusions[f"{want_c} {want_v} -> {color} {value}"] += 1
    worst = sorted(confusions.items(), key=lambda kv: -kv[1])[:10]
    return {
        "crops": n,
        "symbol_accuracy": round(sym_ok / n, 4) if n else None,
        "color_accuracy": round(col_ok / n, 4) if n else None,
        "identity_accuracy": round(both / n, 4) if n else None,
        "top_confusions": dict(worst),
    }
