"""Fine-tune Vision I's crop classifiers on one capture pass of a family's deck, and check.

Why a fine-tune of the *classifiers* only: the card detector finds "a card" whatever its
art; what a new deck changes is how its symbols and colours are drawn, which is exactly
what the two small crop classifiers (symbol, colour) know. They train in minutes on this
CPU from the shipped weights. Every class keeps a few examples (each symbol and each colour
no captured card shows is rendered in Vision I's training styles, a colour in that colour;
card backs and "not a card" patches too), so the networks keep their heads and all they
learned, and only move towards the family's drawings: a taught model whose classes are not
the shipped model's is refused, and the model taught before stays. Each captured card is
seen many times: re-cropped with the jitter a detector's box has, turned by 180°, under other
light, blur, noise and compression.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.decks import COLOR_CLASSES, SYMBOL_CLASSES, DeckProfile
from vision.runtime.rectify import rectify
from vision.teach.capture import CROP, find_card
from vision.teach.guide import Identity, TeachError

if TYPE_CHECKING:
    from vision.runtime.onnx_model import OnnxModel

MODELS = Path(__file__).resolve().parent.parent.parent / "models"
BATCH = 32  # training batch of both classifiers


@dataclass(frozen=True)
class TeachPlan:
    variants: int = 24  # training crops made from each captured card
    fillers: int = 6  # rendered crops for each class the deck does not have
    sym_epochs: int = 6
    col_epochs: int = 3
    # the shipped symbol model's input since round 3; a taught model must not read covered
    # cards worse than the one it replaces
    sym_imgsz: int = 96
    col_imgsz: int = 32
    seed: int = 0
    threads: int = 1
    lr: float = 0.0005

    @property
    def crop_size(self) -> int:
        """Crops are cut as the runtime cuts them (``rectify.crop_side``)."""
        from vision.runtime.rectify import crop_side

        return crop_side(self.sym_imgsz, self.col_imgsz)


def _augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = crop.astype(np.float32)
    out = out * rng.uniform(0.7, 1.25) + rng.uniform(-25, 25)  # exposure
    out = out * rng.uniform(0.9, 1.1, 3)  # white balance (no hue rotation: colour is the label)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.3))
    out += rng.normal(0, rng.uniform(0, 7), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return out


def variants(
    frame_bgr: np.ndarray,
    empty_bgr: np.ndarray,
    zone,
    n: int,
    rng: np.random.Generator,
    crop_size: int = CROP,
    aspect: float | None = None,
) -> list[np.ndarray]:
    """``n`` RGB training crops of the one card in ``frame_bgr``."""
    from vision.render.dataset import jittered_obb
    from vision.runtime.rectify import box_corners

    obb = find_card(frame_bgr, empty_bgr, zone, aspect=aspect)
    quad = box_corners(*obb)
    rgb = frame_bgr[..., ::-1]
    out = []
    for k in range(n):
        box = obb if k == 0 else jittered_obb(quad, rng)
        crop = np.ascontiguousarray(rectify(rgb, box, crop_size))
        if k % 2:
            crop = np.ascontiguousarray(crop[::-1, ::-1])
        out.append(crop if k == 0 else _augment(crop, rng))
    return out


Filler = tuple[np.ndarray, str | None, str | None]  # crop RGB, symbol class, colour class


def _fillers(
    deck: DeckProfile,
    plan: TeachPlan,
    rng: np.random.Generator,
    shown_symbols: set[str] | frozenset[str] = frozenset(),
    shown_colors: set[str] | frozenset[str] = frozenset(),
) -> list[Filler]:
    """Rendered crops (Vision I's training styles) for every symbol class and every colour class
    no captured card shows (``shown_symbols``, ``shown_colors``: those the capture does), plus
    card backs and "not a card" windows: (crop RGB, symbol class or None, colour class or None).

    Each class the shipped models read must keep examples, or Ultralytics drops it from the
    head and the taught model cannot read the deck (nor any other). A symbol is drawn in a
    colour some deck has it in; a colour's fillers (colour model only) are that colour."""
    from vision.decks import all_decks
    from vision.render.dataset import jittered_obb
    from vision.render.faces import CARD_H, CARD_W, TRAIN_STYLES, card_alpha, render_back, wear
    from vision.render.scenes import Canvas, Sprite, _affine, _degrade, _light, render_other_patch
    from vision.render.tables import table
    from vision.teach.render import card

    by_value: dict[str, list[tuple[DeckProfile, str | None]]] = {}
    by_color: dict[str, list[tuple[DeckProfile, str]]] = {}
    for d in (deck, *all_decks()):  # the family's own labels first
        for color, value in d.identities():
            by_value.setdefault(value, []).append((d, color))
            by_color.setdefault(color or "none", []).append((d, value))
    out: list[Filler] = []
    for _ in range(plan.fillers * 2):
        img, target = render_other_patch([deck], rng, TRAIN_STYLES)
        crop = rectify(img, jittered_obb(target.quad, rng), plan.crop_size)
        out.append((np.clip(crop, 0, 255).astype(np.uint8), "other", None))
    # (symbol label, colour label, deck drawn from, colour drawn, value drawn)
    Job = tuple[str | None, str | None, DeckProfile | None, str | None, str]
    jobs: list[Job] = [("back", None, None, None, "back")] * (plan.fillers * 2)
    for value in SYMBOL_CLASSES:
        if value in ("back", "other") or value in shown_symbols or value not in by_value:
            continue
        for _ in range(plan.fillers):
            d, color = by_value[value][int(rng.integers(len(by_value[value])))]
            jobs.append((value, color or "none", d, color, value))
    for color_class in COLOR_CLASSES:
        if color_class in shown_colors or color_class not in by_color:
            continue
        color = None if color_class == "none" else color_class
        for _ in range(plan.fillers):
            d, value = by_color[color_class][int(rng.integers(len(by_color[color_class])))]
            jobs.append((None, color_class, d, color, value))
    for symbol, color_class, d, color, value in jobs:
        n = 128
        canvas = Canvas(table(n, n, rng))
        if d is None:
            sprite = Sprite(wear(render_back(rng, deck.back_text), rng), card_alpha(rng), "back")
        else:
            style = TRAIN_STYLES[int(rng.integers(len(TRAIN_STYLES)))]
            sprite = card(d, (color, value), style, rng)
        m = _affine(n / 2, n / 2, float(rng.uniform(40, 70)), rng.uniform(0, 360), CARD_W, CARD_H)
        canvas.place(sprite, m, rng)
        img = _degrade(_light(canvas.img, rng), rng)
        quad = canvas.items[0][1]
        crop = rectify(img, jittered_obb(quad, rng), plan.crop_size)
        out.append((np.clip(crop, 0, 255).astype(np.uint8), symbol, color_class))
    return out


DATA_MARK = ".teach-data"  # in a data folder teach wrote (and may replace)
DATA_FILES = {"symbol", "color", DATA_MARK}
MODEL_MARK = "teach.json"  # in a models folder teach wrote
# not taught, copied from the models folder taught from: the detector finds a card whatever its
# art, the corner model reads a half-covered card's index; each with its int8 twin when current
SHARED = ("card-detector.onnx", "card-corner.onnx")
SHARED_FILES = {*SHARED, "card-detector.int8.onnx", "card-corner.int8.onnx"}
MODEL_FILES = {"runs", "card-symbol.onnx", "card-color.onnx", *SHARED_FILES, MODEL_MARK}


def refuse_foreign(
    folder: Path, ours: set[str], mark: str, use: str = "teach replaces this folder"
) -> None:
    """Raise TeachError unless ``folder`` is absent or one teach wrote: teach replaces its own
    folders, and must never delete a family's (photos kept in ``OUT/data``, say)."""
    folder = Path(folder)
    if not folder.exists():
        return
    if not folder.is_dir():
        raise TeachError(f"{folder} is a file: choose another --out")
    names = {p.name for p in folder.iterdir()}
    if mark in names or names <= ours:
        return
    raise TeachError(
        f"{folder} already holds files teach did not write ({use}): choose another --out"
    )


def model_folders(final: Path) -> tuple[Path, Path]:
    """``OUT/model.partial`` (where the model is built) and ``OUT/model.old`` (where the model
    it replaces waits during the swap), after refusing any of the three that teach did not
    write: a family's own ``model.old`` (a model kept by hand) is never deleted."""
    partial, old = (final.with_name(final.name + end) for end in (".partial", ".old"))
    refuse_foreign(final, MODEL_FILES, MODEL_MARK)
    for folder in (partial, old):
        refuse_foreign(folder, MODEL_FILES, MODEL_MARK, "teach builds and swaps its model there")
    return partial, old


def build_dataset(
    root: Path,
    shots: Sequence[tuple[np.ndarray, Identity]],
    empty: np.ndarray,
    zone,
    deck: DeckProfile,
    plan: TeachPlan,
) -> dict[str, int]:
    """Ultralytics classification folders ``root/symbol`` and ``root/color``, every class of the
    shipped models with examples in both splits (the captured cards, and fillers for the rest).
    A folder of the same name that teach did not write is refused, never deleted (TeachError)."""
    refuse_foreign(root, DATA_FILES, DATA_MARK)
    rng = np.random.default_rng(plan.seed)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / DATA_MARK).write_text("written by tabletop vision teach; replaced by the next teach\n")
    for split in ("train", "val"):
        for name in SYMBOL_CLASSES:
            (root / "symbol" / split / name).mkdir(parents=True, exist_ok=True)
        for name in COLOR_CLASSES:
            (root / "color" / split / name).mkdir(parents=True, exist_ok=True)
    counts = {"captured": len(shots), "crops": 0, "fillers": 0}

    def write(
        crop: np.ndarray, symbol: str | None, color: str | None, split: str, stem: str
    ) -> None:
        bgr = cv2.cvtColor(crop, cv2.COLOR_RGB2BGR)
        for task, name in (("symbol", symbol), ("color", color)):
            if name is not None and not cv2.imwrite(
                str(root / task / split / name / f"{stem}.png"), bgr
            ):  # OpenCV says a failed write (a full disk) only by returning False
                raise OSError(f"{root / task}: cannot write the training images")

    for i, (frame, (color, value)) in enumerate(shots):
        crops = variants(frame, empty, zone, plan.variants + 2, rng, plan.crop_size, deck.aspect)
        for k, crop in enumerate(crops):
            split = "val" if k >= plan.variants else "train"
            write(crop, value, color or "none", split, f"c{i:03d}_{k:03d}")
            counts["crops"] += 1
    shown_symbols = {value for _, (_, value) in shots}
    shown_colors = {color or "none" for _, (color, _) in shots}
    fillers = _fillers(deck, plan, rng, shown_symbols, shown_colors)
    for j, (crop, symbol, color) in enumerate(fillers):
        write(crop, symbol, color, "val" if j % 5 == 0 else "train", f"f{j:04d}")
        counts["fillers"] += 1
    # Ultralytics needs every class in both splits (a class it finds no folder for is dropped
    # from the head): copy one image across where a split is empty
    for task, classes in (("symbol", SYMBOL_CLASSES), ("color", COLOR_CLASSES)):
        for name in classes:
            train, val = (root / task / split / name for split in ("train", "val"))
            first = {d: next(iter(sorted(d.iterdir())), None) for d in (train, val)}
            if first[train] is None and first[val] is None:
                raise TeachError(f"no training example for the {task} class {name!r}")
            for have, empty_split in ((train, val), (val, train)):
                if first[empty_split] is None and first[have] is not None:
                    shutil.copy(first[have], empty_split / first[have].name)
        _no_lone_batch(root / task / "train")
    return counts


def _no_lone_batch(train: Path, batch: int = BATCH) -> None:
    """Ultralytics refuses a last batch of one image at the colour model's 32 px (BatchNorm
    would see one value per channel: a ValueError after the symbol model has trained): one
    image more where the training images are a multiple of ``batch`` plus one."""
    images = sorted(train.glob("*/*.png"))
    if len(images) % batch == 1:
        shutil.copy(images[0], images[0].with_name(f"{images[0].stem}_again.png"))


def _tune(
    weights: Path, data: Path, runs: Path, name: str, epochs: int, imgsz: int, plan: TeachPlan
) -> Path:
    """A gentle fine-tune: a small fixed learning rate and no warm-up. Ultralytics' defaults
    (automatic optimiser, warm-up at a high rate) are for training from scratch and wreck
    pretrained weights in a one- or two-epoch run."""
    from vision.yolo import fit, yolo_model

    model = yolo_model(str(weights), plan.threads)
    shipped = dict(model.names)
    folder = fit(
        model,
        data,
        runs,
        name,
        epochs=epochs,
        imgsz=imgsz,
        batch=BATCH,
        seed=plan.seed,
        optimizer="AdamW",
        lr0=plan.lr,
        lrf=0.2,
        warmup_epochs=0,
        cos_lr=True,
        auto_augment=None,
        erasing=0.0,
        scale=0.1,
        hsv_s=0.2,
        hsv_v=0.2,
        verbose=False,
    )
    taught = dict(model.names)  # Ultralytics reloads the trained weights: their classes
    if taught != shipped:  # a class with no example was dropped from the head
        lost = sorted(set(shipped.values()) - set(taught.values()))
        why = f"{', '.join(lost)} missing" if lost else "in another order"
        raise TeachError(
            f"the taught {name} model does not read the shipped model's classes ({why}):"
            " nothing was replaced"
        )
    return folder / "last.pt"


def finetune(
    root: Path,
    out: Path,
    plan: TeachPlan,
    models_dir: Path = MODELS,
    log: Callable[[str], None] = print,
) -> dict:
    """Train both classifiers from the shipped weights; write a runnable models folder.

    Everything is written to ``OUT.partial`` first and takes ``out``'s place only when
    complete: a teach that fails or is stopped leaves the previous taught model as it was,
    never a folder mixing old and new files. ``out``, ``OUT.partial`` and ``OUT.old`` must
    not hold files teach did not write (TeachError), and ``out`` is never the shipped models
    folder. Ultralytics' output goes to stderr."""
    from vision.yolo import setup_offline

    # absolute: Ultralytics puts a relative project under its own runs_dir (the install's
    # runs/ folder), outside ``out`` and never cleaned
    final = Path(out).absolute()
    if final.resolve() == Path(models_dir).resolve():
        raise TeachError(f"{final} is the models folder taught from: choose another --out")
    out, old = model_folders(final)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # marked at once: what a teach stopped halfway leaves (a temporary file, a run) is teach's
    (out / MODEL_MARK).write_text('{"partial": true}\n')
    setup_offline()
    try:
        with output_to_stderr():
            meta = _train_and_export(root, out, plan, models_dir)
    except TeachError:  # a model that cannot be used: the old one stays, no half-built one
        shutil.rmtree(out, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    out.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    log(f"fine-tuned in {meta['train_s']} s")
    return meta


@contextlib.contextmanager
def output_to_stderr() -> Iterator[None]:
    """Ultralytics' logs and progress bars go to stderr: teach's stdout is its one JSON result
    (``| jq``). Its logger's handler keeps the stdout it found when Ultralytics was imported,
    so that handler is pointed at stderr too, not only ``sys.stdout``."""
    handlers = [
        (h, h.stream)
        for h in logging.getLogger("ultralytics").handlers
        if type(h) is logging.StreamHandler and h.stream is not sys.stderr
    ]
    for handler, _ in handlers:
        _point(handler, sys.stderr)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        for handler, stream in handlers:
            _point(handler, stream)


def _point(handler: logging.StreamHandler, stream: Any) -> None:
    """``handler`` writing to ``stream`` from now on. ``setStream`` flushes the old stream
    first, and the one Ultralytics found at import may be closed by now (a test's captured
    stdout, a pipe gone): a flush that cannot be made is no reason to stop teaching."""
    handler.acquire()
    try:
        with contextlib.suppress(ValueError, OSError):
            handler.stream.flush()
        handler.stream = stream
    finally:
        handler.release()


def _twin_is_current(float_path: Path) -> bool:
    """``float_path``'s int8 twin loads and was made from this very file (the runtime's rule,
    ``onnx_model.load_model``): a stale twin copied beside it would only be ignored."""
    from vision.runtime.onnx_model import (
        SOURCE_HASH_KEY,
        ModelError,
        OnnxModel,
        file_sha256,
        int8_path,
    )

    try:
        twin = OnnxModel(int8_path(float_path), 1)
    except ModelError:  # absent or broken
        return False
    return twin.metadata.get(SOURCE_HASH_KEY) == file_sha256(float_path)


def _copy_shared(models_dir: Path, out: Path) -> None:
    """The models teach does not train (``SHARED``) copied into ``out``, each with its int8
    twin when current: without the twin the detector reads slower, without the corner model
    a half-covered card is read from its whole crop only."""
    from vision.runtime.onnx_model import int8_path

    for name in SHARED:
        src = Path(models_dir) / name
        if not src.is_file():
            continue
        shutil.copy(src, out / name)
        if _twin_is_current(src):
            shutil.copy(int8_path(src), out / int8_path(src).name)


def _train_and_export(root: Path, out: Path, plan: TeachPlan, models_dir: Path) -> dict:
    """Both classifiers trained on ``root`` and exported into ``out`` (the ``.partial``
    folder); TeachError when a taught model's classes are not the shipped one's."""
    from vision.yolo import export_onnx

    t0 = time.time()
    runs = out / "runs"
    sym = _tune(
        models_dir / "card-symbol.pt",
        root / "symbol",
        runs,
        "symbol",
        plan.sym_epochs,
        plan.sym_imgsz,
        plan,
    )
    t_sym = time.time() - t0
    col = _tune(
        models_dir / "card-color.pt",
        root / "color",
        runs,
        "color",
        plan.col_epochs,
        plan.col_imgsz,
        plan,
    )
    with warnings.catch_warnings():
        # torch's notice that its TorchScript ONNX exporter is the old one: not ours to fix
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        export_onnx(sym, plan.sym_imgsz, out / "card-symbol.onnx")
        export_onnx(col, plan.col_imgsz, out / "card-color.onnx")
    _copy_shared(models_dir, out)
    meta = {
        "plan": asdict(plan),
        "train_s": round(time.time() - t0, 1),
        "symbol_s": round(t_sym, 1),
    }
    (out / MODEL_MARK).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def load_classifiers(models_dir: Path) -> tuple[OnnxModel, OnnxModel]:
    """The symbol and colour models of a models folder (one thread each)."""
    from vision.runtime.onnx_model import OnnxModel

    d = Path(models_dir)
    return OnnxModel(d / "card-symbol.onnx", 1), OnnxModel(d / "card-color.onnx", 1)


def classify(
    classifiers: tuple[OnnxModel, OnnxModel], crops: Sequence[np.ndarray], deck: DeckProfile
) -> list[tuple[Identity, float]]:
    """Deck-constrained reading of RGB crops, both ways up (as Vision I's runtime reads)."""
    from vision.runtime.geometry import to_tensor

    sym_m, col_m = classifiers

    def probs(model: OnnxModel) -> np.ndarray:
        size = model.imgsz
        imgs = [cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA) for c in crops]
        both = list(imgs) + [np.ascontiguousarray(c[::-1, ::-1]) for c in imgs]
        p = model(to_tensor(both))
        if not np.allclose(p.sum(1), 1, atol=1e-3):
            e = np.exp(p - p.max(1, keepdims=True))
            p = e / e.sum(1, keepdims=True)
        return (p[: len(imgs)] + p[len(imgs) :]) / 2

    ps, pc = probs(sym_m), probs(col_m)
    sym_names = [sym_m.names[i] for i in range(len(sym_m.names))]
    col_names = [col_m.names[i] for i in range(len(col_m.names))]
    out = []
    for i in range(len(crops)):
        sym = dict(zip(sym_names, ps[i], strict=True))
        col = dict(zip(col_names, pc[i], strict=True))
        options = [
            (float(sym.get(v, 0) * col.get(c or "none", 0)), (c, v)) for c, v in deck.identities()
        ]
        p, ident = max(options)
        total = sum(o[0] for o in options) or 1.0
        out.append((ident, p / total))
    return out


def check(
    models_dir: Path,
    frames: Sequence[tuple[np.ndarray, Identity]],
    empty: np.ndarray,
    zone,
    deck: DeckProfile,
) -> dict:
    """Card identity accuracy on a capture pass the fine-tune did not see."""
    from vision.runtime.rectify import crop_side
    from vision.teach.capture import crop_card

    classifiers = load_classifiers(models_dir)
    size = crop_side(*(m.imgsz for m in classifiers))
    crops = [crop_card(f, empty, zone, size, deck.aspect) for f, _ in frames]
    got = classify(classifiers, crops, deck)
    wrong = [
        (want, ident) for (_, want), (ident, _) in zip(frames, got, strict=True) if ident != want
    ]
    return {
        "cards": len(frames),
        "right": len(frames) - len(wrong),
        "accuracy": (len(frames) - len(wrong)) / max(1, len(frames)),
        "wrong": [f"{w} read as {g}" for w, g in wrong],
    }
