"""Training with Ultralytics, kept offline and reproducible (train-time only: imports torch).

Design (see docs/VISION.md): an oriented-box detector with two classes (card face, card back)
finds cards; two small classifiers read each rectified crop: its *symbol* (1-12 or an action
picture) and its *colour* (red, yellow, green, blue, none). Fine classes from scratch do not
converge on a 2-core CPU budget; a 2-class detector and crop classifiers do.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

from vision.render import cache

REPO = Path(__file__).resolve().parent.parent
CONFIG_DIR = REPO / "runs" / "ultralytics-config"


def setup_offline(config_dir: Path = CONFIG_DIR) -> None:
    """Keep Ultralytics from touching the network: offline flag, own settings dir, a local
    font where it would download Arial.ttf. Must run before ``import ultralytics``."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("YOLO_VERBOSE", "True")
    target = config_dir / "Ultralytics"
    target.mkdir(parents=True, exist_ok=True)
    from vision.render.fonts import matplotlib_font_dir

    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (target / name).exists():
            shutil.copy(matplotlib_font_dir() / "DejaVuSans.ttf", target / name)


def _threads_callback(threads: int):
    def set_threads(_trainer) -> None:
        import torch

        torch.set_num_threads(threads)

    return set_threads


# Augmentations that would teach the model wrong things about cards.
CARD_SAFE = {"fliplr": 0.0, "flipud": 0.0, "hsv_h": 0.0, "amp": False}
# How every training run here is hosted: CPU, no worker processes, no plots, re-runnable.
CPU_RUN = {"device": "cpu", "workers": 0, "exist_ok": True, "plots": False}


def _yolo(cfg: str, threads: int):
    from ultralytics import YOLO

    model = YOLO(cfg)  # from .yaml: random init, no weight download
    cb = _threads_callback(threads)
    for event in ("on_pretrain_routine_start", "on_train_epoch_start", "on_val_start"):
        model.add_callback(event, cb)
    return model


DETECTOR_CFG = REPO / "models" / "cfg" / "card-obb-t.yaml"


def train_detector(
    data_yaml: Path,
    out: Path,
    *,
    epochs: int,
    imgsz: int,
    seed: int,
    batch: int = 8,
    threads: int = 1,
    name: str = "detector",
    model_cfg: str = str(DETECTOR_CFG),
    close_mosaic: int | None = None,
) -> Path:
    model = _yolo(model_cfg, threads)
    model.train(
        data=str(data_yaml),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        deterministic=True,
        project=str(out),
        name=name,
        degrees=0.0,
        scale=0.25,
        mosaic=1.0,
        close_mosaic=max(1, epochs // 6) if close_mosaic is None else close_mosaic,
        patience=epochs,
        # nbs = batch: one optimizer step per batch. With the default nbs=64 and batch 16,
        # Ultralytics accumulates 4 batches: only 8 steps per epoch, and after 3 epochs the
        # detector still predicted nothing (measured, run 2).
        nbs=batch,
        verbose=True,
        **CARD_SAFE,
        **CPU_RUN,
    )
    return Path(model.trainer.save_dir) / "weights" / "best.pt"


def train_classifier(
    root: Path,
    out: Path,
    *,
    epochs: int,
    imgsz: int,
    seed: int,
    batch: int = 64,
    threads: int = 1,
    name: str,
    lr0: float = 0.003,
    model_cfg: str = "yolov8n-cls.yaml",
) -> Path:
    model = _yolo(model_cfg, threads)
    model.train(
        data=str(root),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        deterministic=True,
        project=str(out),
        name=name,
        auto_augment=None,
        erasing=0.0,
        scale=0.1,
        hsv_s=0.3,
        hsv_v=0.3,
        patience=epochs,
        verbose=True,
        # optimizer="auto" picks AdamW at lr 0.0003 for 30 classes: 8 % top-1 after 2 epochs
        # (measured, run 1); an explicit 0.003 with a 1-epoch warm-up learns in a few epochs.
        optimizer="AdamW",
        lr0=lr0,
        warmup_epochs=1,
        **CARD_SAFE,
        **CPU_RUN,
    )
    return Path(model.trainer.save_dir) / "weights" / "best.pt"


def export_onnx(weights: Path, imgsz: int | list[int], dest: Path) -> Path:
    """``weights`` as a batch-1 ONNX file at ``dest``; ``imgsz`` a side or [height, width]."""
    from ultralytics import YOLO

    onnx_path = Path(
        YOLO(str(weights)).export(
            format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=False
        )
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    if onnx_path.resolve() != dest.resolve():
        shutil.copy(onnx_path, dest)
    return dest


class PlanError(ValueError):
    """A training request that cannot run as asked (e.g. an unknown stage)."""


@dataclass(frozen=True)
class TrainPlan:
    """Everything that decides the shipped model; stored next to it for the model card."""

    seed: int = 0
    decks: tuple[str, ...] = ("deck-dash", "dos", "hit-the-deck")
    det_train: int = 500
    det_val: int = 60
    det_epochs: int = 16
    det_batch: int = 8
    det_imgsz: int = 320
    crops_train: int = 6000
    crops_val: int = 600
    sym_epochs: int = 12
    sym_imgsz: int = 64
    col_epochs: int = 5
    col_imgsz: int = 32
    # a second, gentler pass over the symbol crops (val loss was still falling after 12)
    sym_more_epochs: int = 8
    sym_more_lr0: float = 0.001
    det_more_epochs: int = 10  # a second detector pass from the first pass's weights
    # Round 2 (second session): 4 more art styles, reshaped digits, wider box jitter, 3x the
    # crops; the classifiers continue from round 1 on old + new crops, the detector goes on.
    crops_more: int = 18000
    crops_more_val: int = 900
    wide_jitter_p: float = 0.4
    negative_scenes: int = 1200  # tables searched for the detector's false alarms ("other")
    sym_round2_epochs: int = 6
    col_round2_epochs: int = 3
    round2_lr0: float = 0.001
    det_round2_epochs: int = 20
    # ... then on 500 more scenes drawn in all nine styles, together with the first 500
    det_more_images: int = 500
    det_styles_epochs: int = 15
    # Round 3 (third session): crops cut from whole rendered tables, where 42 % of the card
    # faces are only 40-80 % visible (the patches under-drew that), from true boxes and from
    # the detector's own boxes; plus fresh balanced patches so rare action cards stay in view.
    scene_crop_tables: int = 3000
    scene_crop_val_tables: int = 200
    balanced_crops: int = 6000
    sym_round3_epochs: int = 4
    col_round3_epochs: int = 2
    round3_lr0: float = 0.001
    # ... then longer, on 2 more chunks of tables (val top-1 was still rising after 4 epochs)
    scene_crop_more_chunks: int = 2  # each chunk: scene_crop_tables more tables
    sym_round3_more_epochs: int = 6
    col_round3_more_epochs: int = 2
    round3_more_lr0: float = 0.0005
    render_workers: int = 2  # processes rendering the extra chunks side by side
    # ... then the symbol model at 96 px, on the same tables cut at 96 px: a half-covered
    # card is often readable only by its corner index, ≈ 8 px tall in a 64 px crop
    sym96_imgsz: int = 96
    sym96_epochs: int = 4
    sym96_lr0: float = 0.0005
    # ... and the detector goes on over 1 000 fresh tables
    det_round3_images: int = 1000
    det_round3_epochs: int = 12
    # ... then at a larger input: the same weights see small and half-covered cards at 1.3x
    # the pixels (a convolutional detector carries over to another input size)
    det_hires_imgsz: int = 416
    det_hires_epochs: int = 10
    # Round 4 (fourth session): a corner model that reads each crop's four corner patches
    # (vision.runtime.corners): 98 % of the 40-60 % visible faces keep an index corner in
    # view, where the round-3 models read 49 % of them right (21 % in the held-out style).
    # Trained from scratch on patches from true boxes and the round-3 detector's boxes.
    corner_tables: int = 2000  # per chunk
    corner_chunks: int = 2
    corner_val_tables: int = 200
    corner_imgsz: int = 32
    corner_epochs: int = 8
    corner_lr0: float = 0.003
    # ... then on 2 more chunks of tables, drawn with fans that overlap at most half (VIS-8),
    # with the first chunks (val top-1 was still rising after 8 epochs)
    corner_more_chunks: int = 2
    corner_more_epochs: int = 4
    corner_more_lr0: float = 0.001
    # ... the 96 px symbol model goes on over crops of fresh tables with those fans (cut with
    # the detector of the round before, like round 3's), with round 3's balanced patches
    sym_fans_tables: int = 1500  # per chunk, 2 chunks
    sym_fans_epochs: int = 2
    sym_fans_lr0: float = 0.0005
    # ... and the detector goes on over fresh tables with those fans: it had only seen fans
    # overlapping along the cards' length, and found 38 % of the 40-60 % visible cards of the
    # new ones (bench/vision_visibility.py, seed 7101)
    det_fans_images: int = 1000
    det_fans_epochs: int = 8
    # Round 5 (fifth session): the detector is where most identity is lost. At confidence 0.4
    # it found 64 % of the 40-60 % visible faces, and from its boxes the reader named 52 %
    # right where true boxes gave 82 % (bench/vision_visibility.py, seed 7101): missed cards
    # and loose boxes. Its mAP50-95 rose most in the last, mosaic-free epochs of each stage,
    # so it goes on over 2 000 fresh tables with a longer mosaic-free tail, at 480 px: the
    # round-4 weights run at 480 px without training already read 88.9 % of the validation
    # tables' cards (416 px: 86.6 %), and 88.1 % in the held-out style (84.8 %).
    det_long_imgsz: int = 480
    det_long_images: int = 2000
    det_long_epochs: int = 10
    det_long_close_mosaic: int = 4
    # ... and the 96 px symbol and corner models go on over their round-4 crops, at a lower
    # rate: both validation top-1s were still rising when round 4 stopped (0.934, 0.857)
    sym_round5_epochs: int = 3
    sym_round5_lr0: float = 0.0003
    corner_round5_epochs: int = 4
    corner_round5_lr0: float = 0.0005
    # ... and the colour model, which had never seen those fans, goes on over the same crops
    col_round5_epochs: int = 2
    col_round5_lr0: float = 0.0003
    # ... then the symbol model once more, over fresh tables cut with the round-5 detector
    # (run after `detector-long`) added to the round-4 crops
    sym_fresh_tables: int = 1500  # per chunk
    sym_fresh_chunks: int = 2
    sym_fresh_epochs: int = 2
    sym_fresh_lr0: float = 0.0002
    # ... and with 2 more chunks (val top-1 rose from 0.935 to 0.947 on the first two), the
    # symbol and colour models both
    sym_fresh_more_chunks: int = 2
    sym_fresh_more_epochs: int = 2
    sym_fresh_more_lr0: float = 0.0001
    col_fresh_more_epochs: int = 2
    col_fresh_more_lr0: float = 0.0002
    # Round 6 (sixth session): on 150 validation tables (seed 7101) the round-5 files lost 43
    # of 539 faces: 20 misread, 11 found only below confidence 0.4, 8 under a loose box
    # (IoU < 0.5), 4 not found. The detector goes on over 2 000 fresh tables, with a longer
    # mosaic-free tail: detector-long's mAP50-95 rose in each of its 4 mosaic-free epochs
    det_round6_images: int = 2000
    det_round6_epochs: int = 10
    det_round6_close_mosaic: int = 6
    # ... and the symbol and colour models go on over 2 more chunks of fresh tables (seeds
    # seed*1000 + 405, 406, cut with round 5's detector: these stages come before
    # detector-round6 and trained beside it) with the first four: each earlier pair of
    # chunks raised symbol val top-1 (0.935 → 0.947 → 0.948)
    sym_round6_chunks: int = 2
    sym_round6_epochs: int = 2
    sym_round6_lr0: float = 0.0001
    col_round6_epochs: int = 2
    col_round6_lr0: float = 0.0001
    # ... then once more, as round 6 measured on the validation tables: the round-6 detector
    # read 0.9 / 1.2 points more cards (training styles / held-out style) and the round-6
    # classifiers 0.8 more in the held-out style. Two more chunks (seeds seed*1000 + 407,
    # 408) cut with the round-6 detector, and the detector over 2 000 more fresh tables
    sym_round6_more_chunks: int = 2
    det_round6_more_images: int = 2000
    # Round 7 (seventh session): once more over fresh tables, as each earlier pair did —
    # 2 chunks (seeds seed*1000 + 409, 410) cut with the round-6 detector and 2 000 detector
    # tables — and the symbol model also sees, as "other", the round-6 detector's false
    # alarms on 1 500 tables, half of them empty (seed*1000 + 411), and 1 500 phones and
    # notes cut from their own boxes (412): on the empty evaluation tables all of its false
    # cards were phones read as a card back, and the detector's false alarms hold few
    # phones (130 boxes from those 1 500 tables)
    sym_round7_chunks: int = 2
    neg_round7_tables: int = 1500
    det_round7_images: int = 2000
    # Round 8 (eighth session): fresh tables stopped raising identity, and most faces the
    # round-7 files still lose in the held-out style are misread even from their true box
    # (17 of 38 on its validation tables): a reading of unseen typefaces. 2 more chunks of
    # fresh tables whose faces also draw from 19 more typefaces (fonts.MORE_TRAIN_FONTS;
    # seeds seed*1000 + 413, 414, past round 7's negatives), cut with the round-7 detector,
    # for the symbol and colour models at round 6's epochs and rates
    sym_round8_chunks: int = 2
    # ... and the corner model (round 5's until now), which reads the small corner indices,
    # over round 4's patches and 2 chunks of tables in the same wider typefaces (seeds
    # seed*1000 + 205, 206), at round 5's rate
    corner_round8_chunks: int = 2
    corner_round8_epochs: int = 2
    # ... then the symbol model alone once more, over 2 more such chunks (seeds seed*1000 +
    # 415, 416): on the validation tables round 8 read 5 more faces of 513 in the held-out
    # style (91.6 → 92.6 %) and the same in the training styles
    sym_round8_more_chunks: int = 2
    # Round 9 (ninth session): on its validation tables the round-8 files lose 10 held-out
    # faces under a loose box: the detector boxes the held-out style's inner rule, not the
    # card's edge. The detector goes on over 2 000 fresh tables whose faces often carry a
    # printed frame (frames.more_frames: a pale margin, thin rules) in the wider typefaces
    det_round9_images: int = 2000
    # Round 11 (eleventh session): each detector round on fresh tables has found a few more
    # half-covered cards (round 9: 0.86 → 0.89 of those 40–60 % visible); the detector goes
    # on over 2 000 more framed tables (seeds seed*1000 + 91, 92)
    det_round11_images: int = 2000
    # 1 torch thread: on this shared 2-core machine 2 threads ran 5x slower (OpenMP waits).
    threads: int = 1


STAGES = (
    "symbol",
    "color",
    "detector",
    "symbol-more",
    "detector-more",
    "symbol-round2",
    "color-round2",
    "detector-round2",
    "detector-styles",
    "symbol-round3",
    "color-round3",
    "symbol-round3-more",
    "color-round3-more",
    "symbol-96",
    "detector-round3",
    "detector-hires",
    "corner",
    "corner-more",
    "symbol-fans",
    "detector-fans",
    "detector-long",
    "symbol-round5",
    "corner-round5",
    "color-round5",
    "symbol-round5-fresh",
    "symbol-round5-more",
    "color-round5-more",
    "symbol-round6",
    "color-round6",
    "detector-round6",
    "symbol-round6-more",
    "color-round6-more",
    "detector-round6-more",
    "symbol-round7",
    "color-round7",
    "detector-round7",
    "symbol-round8",
    "color-round8",
    "corner-round8",
    "symbol-round8-more",
    "detector-round9",
    "detector-round11",
)
ROUND1_CROPS = ("symbol", "color", "symbol-more")
ROUND2 = ("symbol-round2", "color-round2")
ROUND3 = ("symbol-round3", "color-round3")
ROUND3_MORE = ("symbol-round3-more", "color-round3-more")
ROUND5_MORE = ("symbol-round5-more", "color-round5-more")
# From round 6 on, each (symbol, colour) pair goes on over its own union of fresh-table
# crops, at round 6's epochs and rates (colour None: the symbol model alone)
LATE_CLASSIFIER_PAIRS: dict[str, tuple[str, str | None]] = {
    "crops96-fresh-round6": ("symbol-round6", "color-round6"),
    "crops96-fresh-round6-more": ("symbol-round6-more", "color-round6-more"),
    "crops96-fresh-round7": ("symbol-round7", "color-round7"),
    "crops96-fresh-round8": ("symbol-round8", "color-round8"),
    "crops96-fresh-round8-more": ("symbol-round8-more", None),
}
# round 7's negatives: the detector's false alarms (seed*1000 + 411) and phones and notes
# (+ 412), right after the fresh chunks' seeds (seed*1000 + 400 + chunk, chunks 1–10)
NEGATIVES_SEED_OFFSET = 411
# fresh chunks from here on are round 8's: numbered past the negatives' seeds, and their faces
# draw from more typefaces
TYPEFACE_CHUNKS_FROM = 11


# detector stages whose tables' faces carry printed frames, in the wider typefaces (round 9)
FRAMED_DETECTOR_STAGES = ("detector-round9", "detector-round11")


@contextmanager
def framed_faces() -> Iterator[None]:
    """Inside, training faces get printed frames and the wider typefaces."""
    from vision.render.fonts import more_typefaces
    from vision.render.frames import more_frames

    with more_frames(), more_typefaces():
        yield


def fresh_chunk_seed(plan: TrainPlan, chunk: int) -> int:
    """Chunk 1.. → its tables' seed: seed*1000 + 400 + chunk, stepping over the negatives'
    two seeds (chunk 11 → + 413)."""
    offset = 400 + chunk
    if offset >= NEGATIVES_SEED_OFFSET:
        offset += 2
    return plan.seed * 1000 + offset


def _both_yaml(path: Path, roots: list[Path]) -> Path:
    """An Ultralytics data file whose train and val splits are the union of several sets."""
    lines = ["train:"] + [f"  - {(r / 'images' / 'train').resolve()}" for r in roots]
    lines += ["val:"] + [f"  - {(r / 'images' / 'val').resolve()}" for r in roots]
    from vision.render.dataset import DETECTOR_CLASSES

    lines += ["names:"] + [f'  {i}: "{n}"' for i, n in enumerate(DETECTOR_CLASSES)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _union(out: Path, parts: list[Path]) -> Path:
    """One class-folder tree made of hard links to several (same layout, distinct names);
    built again when its parts or what they were rendered from change."""
    wanted = cache.recipe(
        kind="union", parts=[{"name": p.name, "marker": cache.marker(p)} for p in parts]
    )
    if not cache.begin(out, wanted):
        return out
    for part in parts:
        for f in part.rglob("*.png"):
            dest = out / f.relative_to(part)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.link(f, dest)
    cache.finish(out, wanted)
    return out


def _detector_tables(folder: Path, n: int, seed: int, decks) -> None:
    """A cached detector set of ``n`` training tables (seed) and n/8 validation tables
    (seed + 1), all training styles."""
    from vision.render.dataset import write_detector_dataset
    from vision.render.faces import TRAIN_STYLES

    n_val = max(8, n // 8)
    names = [d.name for d in decks]
    wanted = cache.recipe(kind="detector-tables", n=n, n_val=n_val, seed=seed, decks=names)
    if cache.begin(folder, wanted):
        write_detector_dataset(folder, n, n_val, seed, decks, TRAIN_STYLES)
        cache.finish(folder, wanted)


def _render_round3_crops(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> None:
    """Scene crops (true and detected boxes, with the detector in ``models_dir``) and balanced
    patches, unioned into ``work/crops-round3``."""
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scene_crops import write_scene_crops
    from vision.runtime.reader import CardReader, ReaderConfig

    scene_crops = work / "crops-scenes"
    wanted = cache.recipe(
        kind="scene-crops",
        tables=[plan.scene_crop_tables, plan.scene_crop_val_tables],
        seeds=[plan.seed * 1000 + 27, plan.seed * 1000 + 28],
        size=plan.sym_imgsz,
        decks=[d.name for d in decks],
    )
    if cache.begin(scene_crops, wanted):
        finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=plan.threads))
        for split, n, offset in (
            ("train", plan.scene_crop_tables, 27),
            ("val", plan.scene_crop_val_tables, 28),
        ):
            made = write_scene_crops(
                scene_crops, finder.detect, n, plan.seed * 1000 + offset, decks, TRAIN_STYLES, split
            )
            log(f"{made} {split} crops from {n} tables")
        detector = cache.file_digest(models_dir / "card-detector.onnx")
        cache.finish(scene_crops, wanted, detector=detector)
    balanced = _balanced_crops(plan, work / "crops-balanced", decks, plan.sym_imgsz)
    _union(work / "crops-round3", [scene_crops, balanced])


def _balanced_crops(plan: TrainPlan, folder: Path, decks, crop_size: int) -> Path:
    """Round 3's fresh balanced patches (seeds seed*1000 + 29 / 30), cut at ``crop_size``.
    The val split also gives every class at least one val image (Ultralytics' folders)."""
    from vision.decks import SYMBOL_CLASSES
    from vision.render.dataset import write_crops
    from vision.render.faces import TRAIN_STYLES

    wanted = cache.recipe(
        kind="balanced-crops",
        n=plan.balanced_crops,
        seeds=[plan.seed * 1000 + 29, plan.seed * 1000 + 30],
        size=crop_size,
        wide_jitter_p=plan.wide_jitter_p,
        decks=[d.name for d in decks],
    )
    if cache.begin(folder, wanted):
        for split, n, offset in (
            ("train", plan.balanced_crops, 29),
            ("val", max(len(SYMBOL_CLASSES) * 4, plan.balanced_crops // 10), 30),
        ):
            write_crops(
                folder,
                n,
                plan.seed * 1000 + offset,
                decks,
                TRAIN_STYLES,
                split,
                wide_jitter_p=plan.wide_jitter_p,
                crop_size=crop_size,
            )
        cache.finish(folder, wanted)
    return folder


def _scene_crop_chunk(args: tuple) -> tuple[int, int]:
    """One chunk of round-3 scene crops, in a worker process (its own detector session)."""
    folder, models_dir, n, seed, deck_names, threads, split, crop_size = args
    from vision.decks import load_deck
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scene_crops import write_scene_crops
    from vision.runtime.reader import CardReader, ReaderConfig

    finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=threads))
    decks = [load_deck(d) for d in deck_names]
    made = write_scene_crops(
        folder, finder.detect, n, seed, decks, TRAIN_STYLES, split, crop_size=crop_size
    )
    return seed, made


def _typeface_crop_chunk(args: tuple) -> tuple[int, int]:
    """``_scene_crop_chunk`` with faces drawn from more typefaces (round 8)."""
    from vision.render.fonts import more_typefaces

    with more_typefaces():
        return _scene_crop_chunk(args)


def _negatives_chunk(args: tuple) -> tuple[int, int]:
    """Hard negatives at ``crop_size``, in a worker process (its own detector session): the
    detector's false alarms on ``n`` tables (half of them empty; ``seed``), then ``n``
    phones and notes cut from their own boxes (``seed + 1``)."""
    folder, models_dir, n, seed, deck_names, threads, split, crop_size = args
    from vision.decks import load_deck
    from vision.render.faces import TRAIN_STYLES
    from vision.render.negatives import write_clutter_negatives, write_hard_negatives
    from vision.runtime.reader import CardReader, ReaderConfig

    finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=threads))
    decks = [load_deck(d) for d in deck_names]
    made = write_hard_negatives(
        folder, finder.detect, n, seed, decks, TRAIN_STYLES, split, crop_size=crop_size
    )
    made += write_clutter_negatives(folder, n, seed + 1, split, crop_size)
    return seed, made


def _corner_chunk(args: tuple) -> tuple[int, int]:
    """One chunk of corner patches, in a worker process (its own detector session)."""
    folder, models_dir, n, seed, deck_names, threads, split, (crop_size, patch_size) = args
    from vision.decks import load_deck
    from vision.render.corner_crops import write_corner_crops
    from vision.render.faces import TRAIN_STYLES
    from vision.runtime.reader import CardReader, ReaderConfig

    finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=threads))
    decks = [load_deck(d) for d in deck_names]
    made = write_corner_crops(
        folder, finder.detect, n, seed, decks, TRAIN_STYLES, split, crop_size, patch_size
    )
    return seed, made


def _typeface_corner_chunk(args: tuple) -> tuple[int, int]:
    """``_corner_chunk`` with faces drawn from more typefaces (round 8)."""
    from vision.render.fonts import more_typefaces

    with more_typefaces():
        return _corner_chunk(args)


def _render_chunks(
    plan: TrainPlan, models_dir: Path, jobs: list[tuple], size, log, worker=_scene_crop_chunk
) -> None:
    """Render the (folder, tables, seed, split) chunks not yet done from this recipe,
    ``render_workers`` at a time, with ``worker`` (default: whole-card crops at ``size``).
    A chunk's marker names the detector that cut it (provenance, never compared: a later
    union keeps chunks cut by older detectors)."""
    from concurrent.futures import ProcessPoolExecutor

    todo, wanted = [], []
    for folder, n, seed, split in jobs:
        chunk = cache.recipe(
            kind=worker.__name__, tables=n, seed=seed, split=split, size=size, decks=plan.decks
        )
        if cache.begin(folder, chunk):
            todo.append((folder, models_dir, n, seed, plan.decks, 1, split, size))
            wanted.append(chunk)
    if todo:
        detector = cache.file_digest(models_dir / "card-detector.onnx")
        with ProcessPoolExecutor(max_workers=max(1, plan.render_workers)) as pool:
            for job, chunk, (seed, made) in zip(todo, wanted, pool.map(worker, todo), strict=True):
                cache.finish(job[0], chunk, detector=detector, crops=made)
                log(f"{made} crops at {size} px (seed {seed})")


def _render_round3_more_crops(plan: TrainPlan, work: Path, models_dir: Path, log) -> None:
    """``scene_crop_more_chunks`` more chunks of scene crops (train split; seeds
    seed*1000 + 101, 102, …), rendered by ``render_workers`` processes, then the union of
    all round-3 crops in ``work/crops-round3-more``."""
    chunks = [work / f"crops-scenes-{i}" for i in range(1, plan.scene_crop_more_chunks + 1)]
    jobs = [
        (folder, plan.scene_crop_tables, plan.seed * 1000 + 100 + i, "train")
        for i, folder in enumerate(chunks, start=1)
    ]
    _render_chunks(plan, models_dir, jobs, plan.sym_imgsz, log)
    parts = [work / "crops-scenes", *chunks, work / "crops-balanced"]
    _union(work / "crops-round3-more", parts)


def _render_crops96(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> None:
    """The round-3 '-more' tables and patches again (same seeds), cut at ``sym96_imgsz``,
    into ``work/crops96``: the tables of chunks 1.. and the val tables, then patches."""
    size = plan.sym96_imgsz
    jobs = [
        (work / f"crops96-scenes-{i}", plan.scene_crop_tables, plan.seed * 1000 + 100 + i, "train")
        for i in range(1, plan.scene_crop_more_chunks + 1)
    ]
    jobs.append(
        (work / "crops96-scenes-val", plan.scene_crop_val_tables, plan.seed * 1000 + 28, "val")
    )
    _render_chunks(plan, models_dir, jobs, size, log)
    balanced = _balanced_crops(plan, work / "crops96-balanced", decks, size)
    _union(work / "crops96", [job[0] for job in jobs] + [balanced])


def _render_crops96_fans(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> Path:
    """Two chunks of ``sym_fans_tables`` fresh tables (seeds seed*1000 + 301, 302) and val
    tables (seed*1000 + 329) cut at ``sym96_imgsz``, with round 3's 96 px balanced patches,
    into ``work/crops96-fans``."""
    size = plan.sym96_imgsz
    jobs = [
        (work / f"crops96-fans-{i}", plan.sym_fans_tables, plan.seed * 1000 + 300 + i, "train")
        for i in (1, 2)
    ]
    jobs.append(
        (work / "crops96-fans-val", plan.scene_crop_val_tables, plan.seed * 1000 + 329, "val")
    )
    _render_chunks(plan, models_dir, jobs, size, log)
    balanced = _balanced_crops(plan, work / "crops96-balanced", decks, size)
    return _union(work / "crops96-fans", [job[0] for job in jobs] + [balanced])


def late_detector_stages(plan: TrainPlan) -> dict[str, tuple[int, int, int, int]]:
    """The 480 px detector stages (rounds 5 to 9), each on its own fresh tables in
    ``work/detector-data-SUFFIX`` → (tables, seed offset, epochs, mosaic-free epochs)."""
    round6 = (plan.det_round6_epochs, plan.det_round6_close_mosaic)
    return {
        "detector-long": (
            plan.det_long_images,
            41,
            plan.det_long_epochs,
            plan.det_long_close_mosaic,
        ),
        "detector-round6": (plan.det_round6_images, 51, *round6),
        "detector-round6-more": (plan.det_round6_more_images, 61, *round6),
        "detector-round7": (plan.det_round7_images, 71, *round6),
        "detector-round9": (plan.det_round9_images, 81, *round6),
        "detector-round11": (plan.det_round11_images, 91, *round6),
    }


def fresh_unions(plan: TrainPlan) -> dict[str, int]:
    """Each union of fresh-table crops → how many chunks it holds (chunks 1.. in order)."""
    round5 = plan.sym_fresh_chunks + plan.sym_fresh_more_chunks
    round6 = round5 + plan.sym_round6_chunks + plan.sym_round6_more_chunks
    round7 = round6 + plan.sym_round7_chunks
    return {
        "crops96-fresh": plan.sym_fresh_chunks,
        "crops96-fresh-more": round5,
        "crops96-fresh-round6": round5 + plan.sym_round6_chunks,
        "crops96-fresh-round6-more": round6,
        "crops96-fresh-round7": round7,
        "crops96-fresh-round8": round7 + plan.sym_round8_chunks,
        "crops96-fresh-round8-more": round7 + plan.sym_round8_chunks + plan.sym_round8_more_chunks,
    }


def _render_crops96_fresh(
    plan: TrainPlan, work: Path, models_dir: Path, decks, log, name: str = "crops96-fresh"
) -> Path:
    """The first ``fresh_unions(plan)[name]`` chunks of ``sym_fresh_tables`` fresh tables
    (seeds: ``fresh_chunk_seed``) cut at ``sym96_imgsz`` with the detector in ``models_dir``,
    unioned with round 4's 96 px fan crops and patches into ``work/NAME`` (validation: round
    4's). A chunk already rendered is kept, so a later union cuts only its new chunks with
    the newer detector. Chunks from ``TYPEFACE_CHUNKS_FROM`` on draw faces in more
    typefaces; from round 7 on, the union holds round 7's negatives too."""
    chunks = fresh_unions(plan)[name]
    jobs = [
        (work / f"crops96-fresh-{i}", plan.sym_fresh_tables, fresh_chunk_seed(plan, i), "train")
        for i in range(1, chunks + 1)
    ]
    plain, typefaces = jobs[: TYPEFACE_CHUNKS_FROM - 1], jobs[TYPEFACE_CHUNKS_FROM - 1 :]
    _render_chunks(plan, models_dir, plain, plan.sym96_imgsz, log)
    _render_chunks(plan, models_dir, typefaces, plan.sym96_imgsz, log, _typeface_crop_chunk)
    fans = _render_crops96_fans(plan, work, models_dir, decks, log)
    parts = [fans] + [job[0] for job in jobs]
    if chunks > fresh_unions(plan)["crops96-fresh-round6-more"]:  # round 7 and later
        offset = NEGATIVES_SEED_OFFSET
        negatives = (work / "crops96-negatives", plan.neg_round7_tables, plan.seed * 1000 + offset)
        _render_chunks(
            plan, models_dir, [(*negatives, "train")], plan.sym96_imgsz, log, _negatives_chunk
        )
        parts.append(negatives[0])
    return _union(work / name, parts)


def _render_corner_patches(
    plan: TrainPlan, work: Path, models_dir: Path, log, more: bool = False
) -> Path:
    """``corner_chunks`` chunks of tables (seeds seed*1000 + 201, …; with ``more``, the
    ``corner_more_chunks`` after them too) and the val tables (seed*1000 + 229), cut as the
    runtime cuts them, into ``work/corners`` (``work/corners-more``)."""
    from vision.runtime.rectify import crop_side

    sizes = (crop_side(plan.sym96_imgsz, plan.col_imgsz), plan.corner_imgsz)
    chunks = plan.corner_chunks + (plan.corner_more_chunks if more else 0)
    jobs = [
        (work / f"corners-{i}", plan.corner_tables, plan.seed * 1000 + 200 + i, "train")
        for i in range(1, chunks + 1)
    ]
    jobs.append((work / "corners-val", plan.corner_val_tables, plan.seed * 1000 + 229, "val"))
    _render_chunks(plan, models_dir, jobs, sizes, log, worker=_corner_chunk)
    union = _union(work / ("corners-more" if more else "corners"), [job[0] for job in jobs])
    return _val_has_every_class(union / "corner")


def _render_corner_patches_round8(plan: TrainPlan, work: Path, models_dir: Path, log) -> Path:
    """Round 4's corner patches (``corners-more``'s chunks) and ``corner_round8_chunks``
    chunks of tables in more typefaces (seeds seed*1000 + 205, …) in ``work/corners-round8``."""
    from vision.runtime.rectify import crop_side

    _render_corner_patches(plan, work, models_dir, log, more=True)
    sizes = (crop_side(plan.sym96_imgsz, plan.col_imgsz), plan.corner_imgsz)
    first = plan.corner_chunks + plan.corner_more_chunks + 1
    jobs = [
        (work / f"corners-{i}", plan.corner_tables, plan.seed * 1000 + 200 + i, "train")
        for i in range(first, first + plan.corner_round8_chunks)
    ]
    _render_chunks(plan, models_dir, jobs, sizes, log, worker=_typeface_corner_chunk)
    earlier = [work / f"corners-{i}" for i in range(1, first)] + [work / "corners-val"]
    union = _union(work / "corners-round8", earlier + [job[0] for job in jobs])
    return _val_has_every_class(union / "corner")


def _val_has_every_class(root: Path, n: int = 4) -> Path:
    """Move ``n`` training files of each class the val split lacks into it: Ultralytics
    numbers each split's classes from its own folders, so a missing one shifts the rest."""
    for cls in sorted(p.name for p in (root / "train").iterdir() if p.is_dir()):
        val = root / "val" / cls
        if not val.is_dir() or not any(val.iterdir()):
            val.mkdir(parents=True, exist_ok=True)
            for f in sorted((root / "train" / cls).glob("*.png"))[:n]:
                f.rename(val / f.name)
    return root.parent


def run_plan(
    plan: TrainPlan, work: Path, models_dir: Path, *, log=print, stages: tuple[str, ...] = STAGES
) -> dict:
    """Render data, train the card networks, export ONNX into ``models_dir``.

    Rendered data is cached in ``work`` (same seed → same data); ``stages`` retrains only some
    networks (the others keep their shipped weights). Timings merge into cards-training.json.
    An unknown stage name is an error before anything is rendered (a typo would otherwise
    skip the stage silently).
    """
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise PlanError(
            f"unknown training stage(s) {', '.join(unknown)}; known: {', '.join(STAGES)}"
        )
    setup_offline()
    from vision.decks import load_deck
    from vision.render.dataset import write_crops, write_detector_dataset
    from vision.render.faces import TRAIN_STYLES

    decks = [load_deck(d) for d in plan.decks]
    timings: dict[str, float] = {}
    t0 = time.time()
    crops = work / "crops"
    names = list(plan.decks)
    wanted = cache.recipe(
        kind="crops",
        n=[plan.crops_train, plan.crops_val],
        seeds=[plan.seed * 1000 + 11, plan.seed * 1000 + 12],
        decks=names,
    )
    if any(s in stages for s in ROUND1_CROPS + ROUND2) and cache.begin(crops, wanted):
        write_crops(crops, plan.crops_train, plan.seed * 1000 + 11, decks, TRAIN_STYLES, "train")
        write_crops(crops, plan.crops_val, plan.seed * 1000 + 12, decks, TRAIN_STYLES, "val")
        cache.finish(crops, wanted)
    timings["render_crops_s"] = time.time() - t0
    log(f"crops rendered in {timings['render_crops_s']:.0f}s")
    t = time.time()
    det = work / "detector-data"
    needs_det = {"detector", "detector-more", "detector-round2", "detector-styles"}
    wanted = cache.recipe(
        kind="detector-tables",
        n=plan.det_train,
        n_val=plan.det_val,
        seed=plan.seed * 1000 + 21,
        decks=names,
    )
    if needs_det & set(stages) and cache.begin(det, wanted):
        write_detector_dataset(
            det, plan.det_train, plan.det_val, plan.seed * 1000 + 21, decks, TRAIN_STYLES
        )
        cache.finish(det, wanted)
    timings["render_scenes_s"] = time.time() - t
    log(f"scenes rendered in {timings['render_scenes_s']:.0f}s")
    more = work / "crops-more"
    if any(s in stages for s in ROUND2):
        t = time.time()
        wanted = cache.recipe(
            kind="crops-more",
            n=[plan.crops_more, plan.crops_more_val],
            seeds=[plan.seed * 1000 + 13, plan.seed * 1000 + 14],
            wide_jitter_p=plan.wide_jitter_p,
            decks=names,
        )
        if cache.begin(more, wanted):
            for split, n, offset in (
                ("train", plan.crops_more, 13),
                ("val", plan.crops_more_val, 14),
            ):
                write_crops(
                    more,
                    n,
                    plan.seed * 1000 + offset,
                    decks,
                    TRAIN_STYLES,
                    split,
                    wide_jitter_p=plan.wide_jitter_p,
                )
            cache.finish(more, wanted)
        negatives = work / "crops-negatives"
        wanted = cache.recipe(
            kind="hard-negatives",
            tables=plan.negative_scenes,
            seed=plan.seed * 1000 + 15,
            decks=names,
        )
        if cache.begin(negatives, wanted):
            from vision.render.negatives import write_hard_negatives
            from vision.runtime.reader import CardReader, ReaderConfig

            finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=plan.threads))
            found = write_hard_negatives(
                negatives,
                finder.detect,
                plan.negative_scenes,
                plan.seed * 1000 + 15,
                decks,
                TRAIN_STYLES,
            )
            log(f"{found} hard negatives from {plan.negative_scenes} tables")
            detector = cache.file_digest(models_dir / "card-detector.onnx")
            cache.finish(negatives, wanted, detector=detector)
        _union(work / "crops-all", [crops, more, negatives])
        timings["render_crops_more_s"] = time.time() - t
        log(f"round-2 crops rendered in {timings['render_crops_more_s']:.0f}s")
    det_more = work / "detector-data-more"
    if "detector-styles" in stages:
        t = time.time()
        _detector_tables(det_more, plan.det_more_images, plan.seed * 1000 + 23, decks)
        _both_yaml(work / "detector-all.yaml", [det, det_more])
        timings["render_scenes_more_s"] = time.time() - t
    if any(s in stages for s in ROUND3 + ROUND3_MORE):
        t = time.time()
        _render_round3_crops(plan, work, models_dir, decks, log)
        if any(s in stages for s in ROUND3_MORE):
            _render_round3_more_crops(plan, work, models_dir, log)
        timings["render_crops_round3_s"] = time.time() - t
        log(f"round-3 crops rendered in {timings['render_crops_round3_s']:.0f}s")
    if "symbol-96" in stages:
        t = time.time()
        _render_crops96(plan, work, models_dir, decks, log)
        timings["render_crops96_s"] = time.time() - t
        log(f"96 px crops rendered in {timings['render_crops96_s']:.0f}s")
    if {"symbol-fans", "symbol-round5", "color-round5"} & set(stages):
        t = time.time()
        _render_crops96_fans(plan, work, models_dir, decks, log)
        timings["render_crops96_fans_s"] = time.time() - t
        log(f"96 px crops of the new fans rendered in {timings['render_crops96_fans_s']:.0f}s")
    fresh_users = {
        "crops96-fresh": ("symbol-round5-fresh",),
        "crops96-fresh-more": ROUND5_MORE,
        **LATE_CLASSIFIER_PAIRS,
    }
    if {u for users in fresh_users.values() for u in users} & set(stages):
        t = time.time()
        for name, users in fresh_users.items():
            if set(users) & set(stages):  # each stage trains on its own union of the chunks
                _render_crops96_fresh(plan, work, models_dir, decks, log, name=name)
        timings["render_crops96_fresh_s"] = time.time() - t
        log(f"96 px crops of fresh tables rendered in {timings['render_crops96_fresh_s']:.0f}s")
    if {"corner", "corner-more", "corner-round5"} & set(stages):
        t = time.time()
        for more, stage in ((False, "corner"), (True, "corner-more")):
            if stage in stages or (more and "corner-round5" in stages):
                # each stage trains on its own union of the chunks
                _render_corner_patches(plan, work, models_dir, log, more=more)
        timings["render_corners_s"] = time.time() - t
        log(f"corner patches rendered in {timings['render_corners_s']:.0f}s")
    if "corner-round8" in stages:
        t = time.time()
        _render_corner_patches_round8(plan, work, models_dir, log)
        timings["render_corners_round8_s"] = time.time() - t
        log(f"round-8 corner patches rendered in {timings['render_corners_round8_s']:.0f}s")
    det_fresh = work / "detector-data-round3"
    if {"detector-round3", "detector-hires"} & set(stages):
        t = time.time()
        _detector_tables(det_fresh, plan.det_round3_images, plan.seed * 1000 + 25, decks)
        timings["render_scenes_round3_s"] = time.time() - t
    det_fans = work / "detector-data-fans"
    if "detector-fans" in stages:
        t = time.time()
        _detector_tables(det_fans, plan.det_fans_images, plan.seed * 1000 + 31, decks)
        timings["render_scenes_fans_s"] = time.time() - t
    late = late_detector_stages(plan)
    late_data = {name: work / f"detector-data-{name.removeprefix('detector-')}" for name in late}
    for stage, (n, offset, _epochs, _mosaic_free) in late.items():
        folder = late_data[stage]
        if stage in stages:
            t = time.time()
            with framed_faces() if stage in FRAMED_DETECTOR_STAGES else nullcontext():
                _detector_tables(folder, n, plan.seed * 1000 + offset, decks)
            suffix = stage.removeprefix("detector-").replace("-", "_")
            timings[f"render_scenes_{suffix}_s"] = time.time() - t
    out = work.resolve() / "train"
    results: dict[str, str] = {}
    jobs = {
        "symbol": (crops / "symbol", plan.sym_epochs, plan.sym_imgsz, "card-symbol"),
        "color": (crops / "color", plan.col_epochs, plan.col_imgsz, "card-color"),
        "symbol-more": (crops / "symbol", plan.sym_more_epochs, plan.sym_imgsz, "card-symbol"),
        "symbol-round2": (
            work / "crops-all" / "symbol",
            plan.sym_round2_epochs,
            plan.sym_imgsz,
            "card-symbol",
        ),
        "color-round2": (
            work / "crops-all" / "color",
            plan.col_round2_epochs,
            plan.col_imgsz,
            "card-color",
        ),
        "symbol-round3": (
            work / "crops-round3" / "symbol",
            plan.sym_round3_epochs,
            plan.sym_imgsz,
            "card-symbol",
        ),
        "color-round3": (
            work / "crops-round3" / "color",
            plan.col_round3_epochs,
            plan.col_imgsz,
            "card-color",
        ),
        "symbol-round3-more": (
            work / "crops-round3-more" / "symbol",
            plan.sym_round3_more_epochs,
            plan.sym_imgsz,
            "card-symbol",
        ),
        "color-round3-more": (
            work / "crops-round3-more" / "color",
            plan.col_round3_more_epochs,
            plan.col_imgsz,
            "card-color",
        ),
        "symbol-96": (
            work / "crops96" / "symbol",
            plan.sym96_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "corner": (
            work / "corners" / "corner",
            plan.corner_epochs,
            plan.corner_imgsz,
            "card-corner",
        ),
        "symbol-fans": (
            work / "crops96-fans" / "symbol",
            plan.sym_fans_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "corner-more": (
            work / "corners-more" / "corner",
            plan.corner_more_epochs,
            plan.corner_imgsz,
            "card-corner",
        ),
        "symbol-round5": (
            work / "crops96-fans" / "symbol",
            plan.sym_round5_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "symbol-round5-fresh": (
            work / "crops96-fresh" / "symbol",
            plan.sym_fresh_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "symbol-round5-more": (
            work / "crops96-fresh-more" / "symbol",
            plan.sym_fresh_more_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "color-round5-more": (
            work / "crops96-fresh-more" / "color",
            plan.col_fresh_more_epochs,
            plan.col_imgsz,
            "card-color",
        ),
        "color-round5": (
            work / "crops96-fans" / "color",
            plan.col_round5_epochs,
            plan.col_imgsz,
            "card-color",
        ),
        "corner-round5": (
            work / "corners-more" / "corner",
            plan.corner_round5_epochs,
            plan.corner_imgsz,
            "card-corner",
        ),
        "corner-round8": (
            work / "corners-round8" / "corner",
            plan.corner_round8_epochs,
            plan.corner_imgsz,
            "card-corner",
        ),
    }
    going_on_lr0 = {  # classifier stages that continue from the shipped weights: their rate
        "symbol-more": plan.sym_more_lr0,
        **dict.fromkeys(ROUND2, plan.round2_lr0),
        **dict.fromkeys(ROUND3, plan.round3_lr0),
        **dict.fromkeys(ROUND3_MORE, plan.round3_more_lr0),
        "symbol-96": plan.sym96_lr0,
        "symbol-fans": plan.sym_fans_lr0,
        "corner-more": plan.corner_more_lr0,
        "symbol-round5": plan.sym_round5_lr0,
        "corner-round5": plan.corner_round5_lr0,
        "corner-round8": plan.corner_round5_lr0,
        "color-round5": plan.col_round5_lr0,
        "symbol-round5-fresh": plan.sym_fresh_lr0,
        "symbol-round5-more": plan.sym_fresh_more_lr0,
        "color-round5-more": plan.col_fresh_more_lr0,
    }
    for union, (symbol_stage, color_stage) in LATE_CLASSIFIER_PAIRS.items():
        symbol_root, color_root = work / union / "symbol", work / union / "color"
        jobs[symbol_stage] = (symbol_root, plan.sym_round6_epochs, plan.sym96_imgsz, "card-symbol")
        going_on_lr0[symbol_stage] = plan.sym_round6_lr0
        if color_stage is not None:
            jobs[color_stage] = (color_root, plan.col_round6_epochs, plan.col_imgsz, "card-color")
            going_on_lr0[color_stage] = plan.col_round6_lr0
    for stage in STAGES:
        if stage not in stages:
            continue
        t = time.time()
        if stage.startswith("detector"):
            goes_on = stage != "detector"  # continues from the weights in models_dir
            epochs = {
                "detector": plan.det_epochs,
                "detector-more": plan.det_more_epochs,
                "detector-round2": plan.det_round2_epochs,
                "detector-styles": plan.det_styles_epochs,
                "detector-round3": plan.det_round3_epochs,
                "detector-hires": plan.det_hires_epochs,
                "detector-fans": plan.det_fans_epochs,
                **{name: row[2] for name, row in late.items()},
            }[stage]
            if epochs <= 0:
                continue
            data = {
                "detector-styles": work / "detector-all.yaml",
                "detector-round3": det_fresh / "data.yaml",
                "detector-hires": det_fresh / "data.yaml",
                "detector-fans": det_fans / "data.yaml",
                **{name: folder / "data.yaml" for name, folder in late_data.items()},
            }.get(stage, det / "data.yaml")
            det_imgsz = {
                "detector-hires": plan.det_hires_imgsz,
                "detector-fans": plan.det_hires_imgsz,
                **dict.fromkeys(late, plan.det_long_imgsz),
            }.get(stage, plan.det_imgsz)
            weights = train_detector(
                data,
                out,
                name=stage,
                model_cfg=str(models_dir / "card-detector.pt") if goes_on else str(DETECTOR_CFG),
                batch=plan.det_batch,
                epochs=epochs,
                imgsz=det_imgsz,
                seed=plan.seed,
                threads=plan.threads,
                close_mosaic=late[stage][3] if stage in late else None,
            )
            imgsz, stem = det_imgsz, "card-detector"
        else:
            root, epochs, imgsz, stem = jobs[stage]
            extra: dict = {}
            if epochs <= 0:
                continue
            if stage == "corner":  # from scratch: a new model
                extra = {"lr0": plan.corner_lr0}
            elif stage in going_on_lr0:  # continues from the weights in models_dir
                extra = {"model_cfg": str(models_dir / f"{stem}.pt"), "lr0": going_on_lr0[stage]}
            weights = train_classifier(
                root,
                out,
                epochs=epochs,
                imgsz=imgsz,
                seed=plan.seed,
                threads=plan.threads,
                name=stage,
                **extra,
            )
        timings[f"train_{stage}_s"] = time.time() - t
        results[stage] = str(export_onnx(weights, imgsz, models_dir / f"{stem}.onnx"))
        shutil.copy(weights, models_dir / f"{stem}.pt")
        log(f"{stage} trained in {timings[f'train_{stage}_s']:.0f}s")
    timings["total_s"] = time.time() - t0
    meta_path = models_dir / "cards-training.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    # the plan only ever gains fields (a new round's stages); earlier runs stay on record
    meta["plan"] = asdict(plan)
    meta.setdefault("runs", []).append({"stages": list(stages), "timings": timings})
    meta.setdefault("outputs", {}).update(results)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    log(json.dumps(meta, indent=2))
    return meta


MODEL_FILES = {  # .pt in models/ → (ONNX name, input size or None: as trained, is a classifier)
    "card-detector.pt": ("card-detector.onnx", None, False),
    "card-symbol.pt": ("card-symbol.onnx", None, True),
    "card-color.pt": ("card-color.onnx", 32, True),
    "card-corner.pt": ("card-corner.onnx", None, True),
}


def export_all(models_dir: Path, dynamic_classifiers: bool = True) -> list[Path]:
    """Re-export the shipped .pt weights to ONNX (classifiers with a dynamic batch size so a
    frame's cards are read in one call)."""
    setup_offline()
    from ultralytics import YOLO

    out = []
    for pt, (onnx_name, imgsz, is_cls) in MODEL_FILES.items():
        src = models_dir / pt
        if not src.exists():
            raise FileNotFoundError(f"{src} not found: train first (tabletop vision train)")
        model = YOLO(str(src))
        path = model.export(
            format="onnx",
            imgsz=imgsz or int(model.overrides.get("imgsz", 320)),
            opset=17,
            simplify=False,
            dynamic=bool(is_cls and dynamic_classifiers),
        )
        if Path(path).resolve() != (models_dir / onnx_name).resolve():
            shutil.copy(path, models_dir / onnx_name)
        out.append(models_dir / onnx_name)
    return out
