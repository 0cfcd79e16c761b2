"""``vision eval``: detection mAP and card-identity accuracy on a YOLO-format dataset.

Labels are ``cls x1 y1 … x4 y4`` (oriented polygon) or ``cls cx cy w h`` (axis-aligned), all
normalised; class names (``red 7``, ``wild``, ``back``…) come from the dataset's ``data.yaml``,
and so do the images scored (its ``val:`` split, else every image under ``images/``).
Torch-free: runs the same ONNX runtime as ``identify``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
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


def _yaml_text(data_yaml: Path) -> str:
    """data.yaml's text (a BOM dropped), or a ``DatasetError`` saying why it has none."""
    try:
        return data_yaml.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{data_yaml}: not a text file") from None
    except FileNotFoundError:
        raise DatasetError(f"{data_yaml} not found") from None
    except OSError as exc:
        raise DatasetError(f"{data_yaml}: cannot read ({exc.strerror or exc})") from None


def read_names(data_yaml: Path) -> list[str]:
    """Class names from a data.yaml (``names:`` as a mapping or a list), without PyYAML."""
    names: dict[int, str] = {}
    in_names = False
    text = _yaml_text(data_yaml)
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


def _scalar(text: str) -> str | None:
    """A YAML scalar without its comment and quotes; None for an empty or null one."""
    text = re.sub(r"(^|\s)#.*$", "", text).strip().strip("'\"")
    return None if text in ("", "~", "null") else text


def read_entry(data_yaml: Path, key: str) -> list[str] | None:
    """A top-level ``key:`` of a data.yaml as a list (``val: images/val``, ``val: [a, b]``, a
    block list of ``- a`` lines, or the value on the next line, indented), without PyYAML;
    None when it has none."""
    lines = _yaml_text(data_yaml).splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(f"{key}:"):
            continue
        rest = re.sub(r"(^|\s)#.*$", "", line[len(key) + 1 :]).strip()
        if rest.startswith("["):
            if not rest.endswith("]"):
                raise DatasetError(f"{data_yaml}: malformed {key} list: {line.strip()}")
            return [v for v in map(_scalar, rest[1:-1].split(",")) if v is not None]
        if rest:
            value = _scalar(rest)
            return None if value is None else [value]
        items = []
        for more in lines[i + 1 :]:
            item = re.sub(r"(^|\s)#.*$", "", more).strip()
            if not item:
                continue
            if not more.startswith((" ", "\t", "-")):
                break
            if not item.startswith("-"):  # ``val:`` then an indented plain scalar: the value
                value = None if items else _scalar(item)
                return items or ([value] if value is not None else None)
            if (value := _scalar(item[1:])) is not None:
                items.append(value)
        return items or None
    return None


def _inside(path: Path, root: Path) -> Path | None:
    """``path`` spelt from ``root`` (``root / …``) when it is ``root`` or inside it, else None."""
    try:
        return root / path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None


def split_folders(root: Path) -> list[Path]:
    """The folders ``vision eval`` scores: data.yaml's ``val:`` (a folder or a list of them;
    Ultralytics' own reading, ``../`` dropped where the path does not exist), found in its
    ``path:`` when that is the dataset folder or inside it, else in the dataset folder: the
    renderer writes its own absolute ``path:``, which a copied set keeps. Without ``val:``,
    ``images/`` (or the dataset folder itself)."""
    data_yaml = root / "data.yaml"
    val = read_entry(data_yaml, "val") if data_yaml.is_file() else None
    if val is None:
        return [root / "images" if (root / "images").is_dir() else root]
    path = read_entry(data_yaml, "path")
    base = root
    if path:
        named = Path(path[0]) if Path(path[0]).is_absolute() else root / path[0]
        base = _inside(named, root) or root
    return [_val_folder(data_yaml, root, base, entry) for entry in val]


def _val_folder(data_yaml: Path, root: Path, base: Path, entry: str) -> Path:
    """One ``val:`` entry as a folder of the dataset, or a ``DatasetError`` saying why not."""
    folder = base / entry
    if not folder.exists() and entry.startswith("../"):
        folder = base / entry[3:]
    if folder.is_file():
        raise DatasetError(f"{data_yaml}: val: {entry} is a file: name a folder of images")
    if not folder.is_dir():
        raise DatasetError(f"{data_yaml}: val: {entry}: no such folder in {base}")
    inside = _inside(folder, root)
    if inside is None:  # its images' names and labels are read from the dataset folder
        raise DatasetError(f"{data_yaml}: val: {entry} is outside {root}: copy it in")
    return inside


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


# Ultralytics' own tolerance: it accepts label coordinates from -0.01 to 1.01 and no others
COORD_RANGE = (-0.01, 1.01)
NOT_A_LABEL = "not 'class x y w h' or a polygon of 4 or more corners"


def label_lines(path: Path, classes: int | None = None) -> list[tuple[int, np.ndarray]]:
    """A label file's objects, (class, normalised values), each line checked as YOLO checks
    it: a class index (below ``classes``, when given), then 4 values (a box) or 4 or more
    corners, every value a finite number from 0 to 1. Why: a line YOLO refuses (``nan``, a
    3-point polygon) would be scored as a card no reader can match. No file: no object."""
    if not path.exists():
        return []
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:  # a folder named like a label file, an unreadable file
        raise DatasetError(f"{path}: cannot read this label file ({exc.strerror or exc})") from None
    objects = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if line.split():
            objects.append(_label_line(line.split(), f"{path}:{lineno}", classes))
    return objects


def _label_line(parts: list[str], where: str, classes: int | None) -> tuple[int, np.ndarray]:
    """One label line's class and values, or a ``DatasetError`` naming ``where``."""
    try:
        cls, vals = int(parts[0]), np.array([float(v) for v in parts[1:]])
    except ValueError:
        raise DatasetError(f"{where}: {NOT_A_LABEL}") from None
    if len(vals) != 4 and (len(vals) < 8 or len(vals) % 2):
        raise DatasetError(f"{where}: {NOT_A_LABEL}")
    low, high = COORD_RANGE
    bad = [text for text, v in zip(parts[1:], vals, strict=True) if not low <= v <= high]
    if bad:
        raise DatasetError(f"{where}: {bad[0]} is not a coordinate from 0 to 1 (normalised)")
    if classes is not None and not 0 <= cls < classes:
        raise DatasetError(f"{where}: a class index outside data.yaml's {classes} names ({cls})")
    return cls, vals


def read_labels(path: Path, w: int, h: int) -> GroundTruth:
    """A label file's objects as pixel polygons of a ``w``×``h`` image (``label_lines``)."""
    gt = GroundTruth([], [])
    for cls, vals in label_lines(path):
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
    # the folders scored, from the dataset's (data.yaml's ``val:``, else images/): said, so
    # that a set's train split cannot be scored with its val split unnoticed
    scored: list[str] = field(default_factory=list)

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
            "scored_folders": self.scored,
        }

    def table(self) -> str:
        folders = ", ".join("the dataset folder" if f == "." else f for f in self.scored)
        rows = [f"scored the images in {folders or 'the dataset'}"]
        rows.append(f"{'class':<22}{'cards':>6}{'AP50':>8}{'AP50-95':>9}{'identity':>10}")
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
    """The images ``vision eval`` scores: those in ``split_folders``, each once, in order."""
    found: dict[Path, None] = {}
    for folder in split_folders(root):
        found.update(
            dict.fromkeys(
                sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
            )
        )
    return list(found)


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


def reader_names() -> set[str]:
    """Every class name a reading can be scored as (``identity_of``): ``red 7``, ``wild``…"""
    from vision.decks import COLORS, SYMBOLS

    colors: tuple[str | None, ...] = (*COLORS, None)
    return {identity_of(c, v) for c in colors for v in SYMBOLS} | {"back"}


def names_warning(data_yaml: Path, names: list[str]) -> str | None:
    """A one-line warning when fewer than half of data.yaml's class names are names a reading
    can be scored as: every card of the others scores as never read (``Red 1`` is no
    ``red 1``), which looks like a bad model rather than a set named otherwise."""
    known = reader_names()
    shared = sum(n in known for n in names)
    if 2 * shared >= len(names):
        return None
    lower = sum(n.lower() in known for n in names)
    hint = f"; in lower case {lower} would be" if lower > shared else ""
    return (
        f"warning: {data_yaml}: only {shared} of its {len(names)} class names are card names"
        f" the reader gives ('red 7', 'wild', 'back'…), so the other classes' cards are never"
        f" read right{hint}"
    )


def open_dataset(
    root: Path, warn: Callable[[str], None] | None = None
) -> tuple[list[str], dict[Path, Path]]:
    """A dataset's class names and each image's label file, or a ``DatasetError`` saying why
    it cannot be scored: every label line is checked before any model runs (``quantize
    --eval`` checks before it quantizes, ``eval`` before its first image). ``warn`` is told
    when the class names are not the reader's (``names_warning``)."""
    names = read_names(root / "data.yaml")
    if not names:
        raise DatasetError(f"{root / 'data.yaml'}: no class names ('names:')")
    images = dataset_images(root)
    if not images:
        where = ", ".join(str(f) for f in split_folders(root))
        raise DatasetError(f"{where}: no images (YOLO layout: images/…, labels/…)")
    labels = {p: label_path(p, root) for p in images}
    if not any(lab.exists() for lab in labels.values()):  # a missing labels/ is no empty set
        raise DatasetError(
            f"{root}: none of its {len(images)} images has a label file (YOLO layout:"
            " images/x.jpg → labels/x.txt; an empty file for a table with no card)"
        )
    for lab in labels.values():
        label_lines(lab, len(names))
    if warn is not None and (why := names_warning(root / "data.yaml", names)) is not None:
        warn(why)
    return names, labels


def _relative(folder: Path, root: Path) -> str:
    """A scored folder as the report names it: from the dataset folder (``.`` for itself)."""
    return folder.relative_to(root).as_posix()


def evaluate(root: Path, predict, log=None) -> EvalReport:
    """Run ``predict(bgr) -> Detections`` over a dataset and score it."""
    names, labels = open_dataset(root, warn=log)
    index = {n: i for i, n in enumerate(names)}
    rep = EvalReport(scored=[_relative(f, root) for f in split_folders(root)])
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
        gt = read_labels(labels[img_path], w, h)  # checked by open_dataset
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
