"""Rendered training data for the plan's stages: detector tables, crop chunks cut with the
current detector, corner patches, and the unions each classifier stage trains on. Every
folder is cached by recipe (``vision.render.cache``), so a re-run renders only what changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from vision.render import cache

if TYPE_CHECKING:
    from vision.train import TrainPlan

# round 7's negatives: the detector's false alarms (seed*1000 + 411) and phones and notes
# (+ 412), right after the fresh chunks' seeds (seed*1000 + 400 + chunk, chunks 1–10)
NEGATIVES_SEED_OFFSET = 411
# fresh chunks from here on are round 8's: numbered past the negatives' seeds, and their faces
# draw from more typefaces
TYPEFACE_CHUNKS_FROM = 11


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


def both_yaml(path: Path, roots: list[Path]) -> Path:
    """An Ultralytics data file whose train and val splits are the union of several sets."""
    lines = ["train:"] + [f"  - {(r / 'images' / 'train').resolve()}" for r in roots]
    lines += ["val:"] + [f"  - {(r / 'images' / 'val').resolve()}" for r in roots]
    from vision.render.dataset import DETECTOR_CLASSES

    lines += ["names:"] + [f'  {i}: "{n}"' for i, n in enumerate(DETECTOR_CLASSES)]
    path.write_text("\n".join(lines) + "\n")
    return path


def union(out: Path, parts: list[Path]) -> Path:
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


def detector_tables(folder: Path, n: int, seed: int, decks) -> None:
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


def render_round3_crops(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> None:
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
    balanced = balanced_crops(plan, work / "crops-balanced", decks, plan.sym_imgsz)
    union(work / "crops-round3", [scene_crops, balanced])


def balanced_crops(plan: TrainPlan, folder: Path, decks, crop_size: int) -> Path:
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


def scene_crop_chunk(args: tuple, styles: tuple[str, ...] | None = None) -> tuple[int, int]:
    """One chunk of round-3 scene crops, in a worker process (its own detector session);
    faces in ``styles`` (default: the training styles)."""
    folder, models_dir, n, seed, deck_names, threads, split, crop_size = args
    from vision.decks import load_deck
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scene_crops import write_scene_crops
    from vision.runtime.reader import CardReader, ReaderConfig

    finder = CardReader(models_dir, config=ReaderConfig(conf=0.25, threads=threads))
    decks = [load_deck(d) for d in deck_names]
    made = write_scene_crops(
        folder, finder.detect, n, seed, decks, styles or TRAIN_STYLES, split, crop_size=crop_size
    )
    return seed, made


def typeface_crop_chunk(args: tuple) -> tuple[int, int]:
    """``scene_crop_chunk`` with faces drawn from more typefaces (round 8)."""
    from vision.render.fonts import more_typefaces

    with more_typefaces():
        return scene_crop_chunk(args)


def emblem_crop_chunk(args: tuple) -> tuple[int, int]:
    """``typeface_crop_chunk`` with faces in the emblem style too (round 13)."""
    from vision.render.faces import ROUND13_STYLES
    from vision.render.fonts import more_typefaces

    with more_typefaces():
        return scene_crop_chunk(args, ROUND13_STYLES)


def negatives_chunk(args: tuple) -> tuple[int, int]:
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


def corner_chunk(args: tuple) -> tuple[int, int]:
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


def typeface_corner_chunk(args: tuple) -> tuple[int, int]:
    """``corner_chunk`` with faces drawn from more typefaces (round 8)."""
    from vision.render.fonts import more_typefaces

    with more_typefaces():
        return corner_chunk(args)


def render_chunks(
    plan: TrainPlan, models_dir: Path, jobs: list[tuple], size, log, worker=scene_crop_chunk
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


def render_round3_more_crops(plan: TrainPlan, work: Path, models_dir: Path, log) -> None:
    """``scene_crop_more_chunks`` more chunks of scene crops (train split; seeds
    seed*1000 + 101, 102, …), rendered by ``render_workers`` processes, then the union of
    all round-3 crops in ``work/crops-round3-more``."""
    chunks = [work / f"crops-scenes-{i}" for i in range(1, plan.scene_crop_more_chunks + 1)]
    jobs = [
        (folder, plan.scene_crop_tables, plan.seed * 1000 + 100 + i, "train")
        for i, folder in enumerate(chunks, start=1)
    ]
    render_chunks(plan, models_dir, jobs, plan.sym_imgsz, log)
    parts = [work / "crops-scenes", *chunks, work / "crops-balanced"]
    union(work / "crops-round3-more", parts)


def render_crops96(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> None:
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
    render_chunks(plan, models_dir, jobs, size, log)
    balanced = balanced_crops(plan, work / "crops96-balanced", decks, size)
    union(work / "crops96", [job[0] for job in jobs] + [balanced])


def render_crops96_fans(plan: TrainPlan, work: Path, models_dir: Path, decks, log) -> Path:
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
    render_chunks(plan, models_dir, jobs, size, log)
    balanced = balanced_crops(plan, work / "crops96-balanced", decks, size)
    return union(work / "crops96-fans", [job[0] for job in jobs] + [balanced])


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


def render_crops96_fresh(
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
    render_chunks(plan, models_dir, plain, plan.sym96_imgsz, log)
    render_chunks(plan, models_dir, typefaces, plan.sym96_imgsz, log, typeface_crop_chunk)
    fans = render_crops96_fans(plan, work, models_dir, decks, log)
    parts = [fans] + [job[0] for job in jobs]
    if chunks > fresh_unions(plan)["crops96-fresh-round6-more"]:  # round 7 and later
        parts.append(render_round7_negatives(plan, work, models_dir, log))
    return union(work / name, parts)


def render_round7_negatives(plan: TrainPlan, work: Path, models_dir: Path, log) -> Path:
    """Round 7's hard negatives at ``sym96_imgsz`` (seeds seed*1000 + 411, 412) in
    ``work/crops96-negatives``, rendered once and shared by every later symbol union."""
    folder = work / "crops96-negatives"
    seed = plan.seed * 1000 + NEGATIVES_SEED_OFFSET
    jobs = [(folder, plan.neg_round7_tables, seed, "train")]
    render_chunks(plan, models_dir, jobs, plan.sym96_imgsz, log, negatives_chunk)
    return folder


def render_round13_crops(plan: TrainPlan, work: Path, models_dir: Path, log) -> Path:
    """``sym_round13_chunks`` chunks of ``sym_fresh_tables`` tables whose faces also take the
    emblem style, in the wider typefaces (seeds seed*1000 + 431, …), their val tables
    (+ 439) and round 7's negatives, cut at ``sym96_imgsz`` with the detector in
    ``models_dir``, into ``work/crops96-round13``. Earlier unions are not part of it: these
    tables hold every training style, and the stage goes on from the shipped weights."""
    jobs = [
        (work / f"crops96-round13-{i}", plan.sym_fresh_tables, plan.seed * 1000 + 430 + i, "train")
        for i in range(1, plan.sym_round13_chunks + 1)
    ]
    val = (work / "crops96-round13-val", plan.scene_crop_val_tables, plan.seed * 1000 + 439)
    jobs.append((*val, "val"))
    render_chunks(plan, models_dir, jobs, plan.sym96_imgsz, log, emblem_crop_chunk)
    negatives = render_round7_negatives(plan, work, models_dir, log)
    crops = union(work / "crops96-round13", [job[0] for job in jobs] + [negatives])
    val_has_every_class(crops / "symbol")
    return crops


def render_corner_patches(
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
    render_chunks(plan, models_dir, jobs, sizes, log, worker=corner_chunk)
    patches = union(work / ("corners-more" if more else "corners"), [job[0] for job in jobs])
    return val_has_every_class(patches / "corner")


def render_corner_patches_round8(plan: TrainPlan, work: Path, models_dir: Path, log) -> Path:
    """Round 4's corner patches (``corners-more``'s chunks) and ``corner_round8_chunks``
    chunks of tables in more typefaces (seeds seed*1000 + 205, …) in ``work/corners-round8``."""
    from vision.runtime.rectify import crop_side

    render_corner_patches(plan, work, models_dir, log, more=True)
    sizes = (crop_side(plan.sym96_imgsz, plan.col_imgsz), plan.corner_imgsz)
    first = plan.corner_chunks + plan.corner_more_chunks + 1
    jobs = [
        (work / f"corners-{i}", plan.corner_tables, plan.seed * 1000 + 200 + i, "train")
        for i in range(first, first + plan.corner_round8_chunks)
    ]
    render_chunks(plan, models_dir, jobs, sizes, log, worker=typeface_corner_chunk)
    earlier = [work / f"corners-{i}" for i in range(1, first)] + [work / "corners-val"]
    patches = union(work / "corners-round8", earlier + [job[0] for job in jobs])
    return val_has_every_class(patches / "corner")


def val_has_every_class(root: Path, n: int = 4) -> Path:
    """Move ``n`` training files of each class the val split lacks into it: Ultralytics
    numbers each split's classes from its own folders, so a missing one shifts the rest."""
    for cls in sorted(p.name for p in (root / "train").iterdir() if p.is_dir()):
        val = root / "val" / cls
        if not val.is_dir() or not any(val.iterdir()):
            val.mkdir(parents=True, exist_ok=True)
            for f in sorted((root / "train" / cls).glob("*.png"))[:n]:
                f.rename(val / f.name)
    return root.parent
