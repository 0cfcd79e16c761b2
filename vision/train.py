"""The training plan: which stages run, on which rendered data, at which epochs and rates, so
that ``tabletop vision train --seed 0`` reproduces the shipped models (train-time only).

Design (see docs/VISION.md): a one-class oriented-box detector finds cards; small classifiers
read each rectified crop: its *symbol* (1-12 or an action picture), its *colour* and its
corner indices. Fine classes from scratch do not converge on a 2-core CPU budget; a one-class
detector and crop classifiers do. The data each stage trains on is rendered by
``vision.train_data``; Ultralytics runs through ``vision.yolo``.
"""

from __future__ import annotations

import json
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

from vision import train_data as data
from vision import yolo
from vision.render import cache


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
    # ... which read 5 more validation faces in the training styles and 10 fewer in the held-out
    # style: more rendered tables trade transfer for fit. The shipped detector is the point
    # this far from round 9's weights towards round 11's (``yolo.interpolate_weights``); on
    # the validation tables 0.3 / 0.5 / 0.7 / 1.0 read +5 / +5 / −2 / −5 faces of 2 456
    det_soup_alpha: float = 0.5
    # Round 13 (thirteenth session): in the third held-out style (a six-sided badge) the
    # symbol model misread fully visible 10s and 11s (as draw-4s and 12s) in training
    # typefaces too, while the same digits read right in every training layout: it had tied
    # digits to the shapes around them. The symbol model goes on over tables whose faces
    # also take the emblem style (a random shape behind the symbol; faces.ROUND13_STYLES)
    sym_round13_chunks: int = 6
    sym_round13_epochs: int = 2
    # ... which read 23 more faces in that style and 18 fewer in ``ticket`` (validation
    # tables): the trade round 11 met in the detector, met the same way. The shipped symbol
    # model is the point this far from round 8's weights towards round 13's; on the
    # validation tables 0.3 / 0.5 / 0.6 / 0.7 / 1.0 read +0 / +10 / +5 / +11 / +0 faces of
    # 3 149 (0.5 keeps 5 more ``ticket`` faces than 0.7)
    sym_soup_alpha: float = 0.5
    # Round 18 (eighteenth session): the symbol model read 94.1 % of its own training crops
    # and 93.9 % of their val crops, misreading large clear digits: every stage since round 6
    # trained 2 epochs at lr 0.0001, too little to fit. It goes on over round 13's crops
    # (no new tables) for 4 epochs at lr 0.001, cosine-decayed (training crops 98.3 %)
    sym_round18_epochs: int = 4
    sym_round18_lr0: float = 0.001
    # ... and the shipped symbol model is the point halfway towards it: validation faces
    # (3 149 / 2 007 more), seed 0 +19 / +15, seed 1 +10 / +8; alone +16 / −2 (seeds 0 / 1).
    # Round 19 re-ran these two stages through `vision train` on another machine (crops cut
    # again): +13 / +7 over round 13's soup, −12 / −10 under the shipped seed-0 files
    sym_soup18_alpha: float = 0.5
    # Round 14 (fourteenth session): the detector is exported to run at (height, width)
    # (384, 512), not the square 480 it was trained at: a 640×480 frame is scaled by 0.8
    # (not 0.75) with no padding (not 60 rows a side), so cards are larger for 15 % fewer
    # input pixels. Validation faces (3 149 / 2 007 more tables), the shipped weights
    # exported at each shape: (480, 480) 2 924 / 1 852, (384, 512) 2 945 / 1 868, (416, 544)
    # 2 957 / 1 847, (448, 576) 2 949 / 1 859; (384, 480) 2 924, (480, 608) 2 953, (480, 640)
    # 2 927 on the first tables
    det_run_hw: tuple[int, int] = (384, 512)
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
    "detector-soup",
    "symbol-round13",
    "symbol-soup",
    "symbol-round18",
    "symbol-soup18",
)
# detector-soup interpolates between these two stages' weights
SOUP_INGREDIENTS = ("detector-round9", "detector-round11")
# each soup stage → (the stages it lies between, the plan field giving how far from the first)
SOUPS: dict[str, tuple[tuple[str, str], str]] = {
    "detector-soup": (SOUP_INGREDIENTS, "det_soup_alpha"),
    "symbol-soup": (("symbol-round8-more", "symbol-round13"), "sym_soup_alpha"),
    "symbol-soup18": (("symbol-soup", "symbol-round18"), "sym_soup18_alpha"),
}
# classifier stages whose rate decays by a cosine (round 18: 4 epochs to fit, decayed to
# settle); every other stage keeps Ultralytics' linear decay
COSINE_RATE_STAGES = ("symbol-round18",)
# classifier stages that train over round 13's crops (round 18 renders nothing new)
ROUND13_CROP_STAGES = ("symbol-round13", "symbol-round18")
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

# detector stages whose tables' faces carry printed frames, in the wider typefaces (round 9)
FRAMED_DETECTOR_STAGES = ("detector-round9", "detector-round11")
# the stages that start from no weights; every other one but the soups goes on from the
# .pt in the models folder
FROM_SCRATCH = ("symbol", "color", "detector", "corner")


def stage_stem(stage: str) -> str:
    """The model a stage trains, named as its files are: ``symbol-round8`` → ``card-symbol``."""
    return "card-" + stage.split("-")[0]


def cuts_crops(stage: str) -> bool:
    """Whether a stage's data is cut from rendered tables with the models in the models
    folder (a ``CardReader``): every classifier stage after round 1's."""
    detector = stage_stem(stage) == "card-detector"
    return not detector and stage not in ROUND1_CROPS and stage not in SOUPS


def missing_inputs(stages: tuple[str, ...], models_dir: Path) -> dict[tuple[str, str], list[str]]:
    """What the selected stages need from ``models_dir`` and it lacks, as (stage, how it
    uses them) → file names: the weights a stage goes on from (unless an earlier selected
    stage writes them) and the models that cut a stage's crops (all data is rendered before
    any stage trains, so those must be there already)."""
    from vision.runtime.reader import COLOR, DETECTOR, SYMBOL  # what a CardReader loads

    needs: dict[str, tuple[str, str]] = {}  # file name → the first stage needing it, and how
    written: set[str] = set()
    for stage in (s for s in STAGES if s in stages):
        stem = stage_stem(stage)
        if stage not in FROM_SCRATCH and stage not in SOUPS and stem not in written:
            needs.setdefault(f"{stem}.pt", (stage, "goes on from"))
        if cuts_crops(stage):
            for name in (DETECTOR, SYMBOL, COLOR):
                needs.setdefault(name, (stage, "cuts its crops with"))
        written.add(stem)
    missing: dict[tuple[str, str], list[str]] = {}
    for name, use in needs.items():
        if not (models_dir / name).is_file():
            missing.setdefault(use, []).append(name)
    return missing


def stage_weights(work: Path, stage: str) -> Path:
    """Where a stage's trained weights lie in ``work`` (Ultralytics' ``project/name``)."""
    return work.resolve() / "train" / stage / "weights" / "best.pt"


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


def check_stages(stages: tuple[str, ...], work: Path) -> None:
    """``PlanError`` for an unknown stage name (a typo would otherwise skip the stage
    silently) or a soup stage whose ingredients' weights are neither in ``work`` nor made
    by this run."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise PlanError(
            f"unknown training stage(s) {', '.join(unknown)}; known: {', '.join(STAGES)}"
        )
    for soup, (ingredients, _alpha) in SOUPS.items():
        if soup not in stages:
            continue
        missing = [s for s in ingredients if s not in stages]
        missing = [s for s in missing if not stage_weights(work, s).is_file()]
        if missing:
            raise PlanError(
                f"{soup} needs the weights of {', '.join(missing)}: run those stages"
                f" first (missing: {', '.join(str(stage_weights(work, s)) for s in missing)})"
            )


def check_models(stages: tuple[str, ...], models_dir: Path) -> None:
    """``PlanError`` naming each file of ``models_dir`` the stages need and lack
    (``missing_inputs``). ``vision train`` checks it before ``run_plan``, which its tests run
    with training stubbed out and an empty models folder."""
    missing = missing_inputs(stages, models_dir)
    if missing:
        uses = "; ".join(
            f"{', '.join(names)} ({stage} {how} {'it' if len(names) == 1 else 'them'})"
            for (stage, how), names in missing.items()
        )
        raise PlanError(
            f"missing from {models_dir}: {uses}: copy the shipped models there or train the"
            " stages that make them first (tabletop vision export writes the ONNX files from"
            " the .pt files)"
        )


def run_plan(
    plan: TrainPlan, work: Path, models_dir: Path, *, log=print, stages: tuple[str, ...] = STAGES
) -> dict:
    """Render data, train the card networks, export ONNX into ``models_dir``.

    Rendered data is cached in ``work`` (same seed → same data); ``stages`` retrains only some
    networks (the others keep their shipped weights). Timings merge into cards-training.json.
    ``check_stages`` refuses a request before anything is rendered.
    """
    check_stages(stages, work)
    yolo.setup_offline()
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
        data.union(work / "crops-all", [crops, more, negatives])
        timings["render_crops_more_s"] = time.time() - t
        log(f"round-2 crops rendered in {timings['render_crops_more_s']:.0f}s")
    det_more = work / "detector-data-more"
    if "detector-styles" in stages:
        t = time.time()
        data.detector_tables(det_more, plan.det_more_images, plan.seed * 1000 + 23, decks)
        data.both_yaml(work / "detector-all.yaml", [det, det_more])
        timings["render_scenes_more_s"] = time.time() - t
    if any(s in stages for s in ROUND3 + ROUND3_MORE):
        t = time.time()
        data.render_round3_crops(plan, work, models_dir, decks, log)
        if any(s in stages for s in ROUND3_MORE):
            data.render_round3_more_crops(plan, work, models_dir, log)
        timings["render_crops_round3_s"] = time.time() - t
        log(f"round-3 crops rendered in {timings['render_crops_round3_s']:.0f}s")
    if "symbol-96" in stages:
        t = time.time()
        data.render_crops96(plan, work, models_dir, decks, log)
        timings["render_crops96_s"] = time.time() - t
        log(f"96 px crops rendered in {timings['render_crops96_s']:.0f}s")
    if {"symbol-fans", "symbol-round5", "color-round5"} & set(stages):
        t = time.time()
        data.render_crops96_fans(plan, work, models_dir, decks, log)
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
                data.render_crops96_fresh(plan, work, models_dir, decks, log, name=name)
        timings["render_crops96_fresh_s"] = time.time() - t
        log(f"96 px crops of fresh tables rendered in {timings['render_crops96_fresh_s']:.0f}s")
    if {"corner", "corner-more", "corner-round5"} & set(stages):
        t = time.time()
        for more, stage in ((False, "corner"), (True, "corner-more")):
            if stage in stages or (more and "corner-round5" in stages):
                # each stage trains on its own union of the chunks
                data.render_corner_patches(plan, work, models_dir, log, more=more)
        timings["render_corners_s"] = time.time() - t
        log(f"corner patches rendered in {timings['render_corners_s']:.0f}s")
    if "corner-round8" in stages:
        t = time.time()
        data.render_corner_patches_round8(plan, work, models_dir, log)
        timings["render_corners_round8_s"] = time.time() - t
        log(f"round-8 corner patches rendered in {timings['render_corners_round8_s']:.0f}s")
    if set(ROUND13_CROP_STAGES) & set(stages):
        t = time.time()
        data.render_round13_crops(plan, work, models_dir, log)
        timings["render_crops96_round13_s"] = time.time() - t
        log(f"round-13 crops rendered in {timings['render_crops96_round13_s']:.0f}s")
    det_fresh = work / "detector-data-round3"
    if {"detector-round3", "detector-hires"} & set(stages):
        t = time.time()
        data.detector_tables(det_fresh, plan.det_round3_images, plan.seed * 1000 + 25, decks)
        timings["render_scenes_round3_s"] = time.time() - t
    det_fans = work / "detector-data-fans"
    if "detector-fans" in stages:
        t = time.time()
        data.detector_tables(det_fans, plan.det_fans_images, plan.seed * 1000 + 31, decks)
        timings["render_scenes_fans_s"] = time.time() - t
    late = late_detector_stages(plan)
    late_data = {name: work / f"detector-data-{name.removeprefix('detector-')}" for name in late}
    for stage, (n, offset, _epochs, _mosaic_free) in late.items():
        folder = late_data[stage]
        if stage in stages:
            t = time.time()
            with data.framed_faces() if stage in FRAMED_DETECTOR_STAGES else nullcontext():
                data.detector_tables(folder, n, plan.seed * 1000 + offset, decks)
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
        "symbol-round13": (
            work / "crops96-round13" / "symbol",
            plan.sym_round13_epochs,
            plan.sym96_imgsz,
            "card-symbol",
        ),
        "symbol-round18": (
            work / "crops96-round13" / "symbol",
            plan.sym_round18_epochs,
            plan.sym96_imgsz,
            "card-symbol",
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
        "symbol-round13": plan.sym_round6_lr0,
        "symbol-round18": plan.sym_round18_lr0,
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
        if stage in SOUPS:
            ingredients, alpha = SOUPS[stage]
            before, after = (stage_weights(work, s) for s in ingredients)
            weights = yolo.interpolate_weights(
                before, after, getattr(plan, alpha), stage_weights(work, stage)
            )
            if stage == "detector-soup":
                imgsz, stem = list(plan.det_run_hw), "card-detector"
            else:
                imgsz, stem = plan.sym96_imgsz, "card-symbol"
        elif stage.startswith("detector"):
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
            data_yaml = {
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
            weights = yolo.train_detector(
                data_yaml,
                out,
                name=stage,
                model_cfg=str(models_dir / "card-detector.pt")
                if goes_on
                else str(yolo.DETECTOR_CFG),
                batch=plan.det_batch,
                epochs=epochs,
                imgsz=det_imgsz,
                seed=plan.seed,
                threads=plan.threads,
                close_mosaic=late[stage][3] if stage in late else None,
            )
            # the 480 px stages' detectors run at the camera's shape (det_run_hw)
            imgsz = list(plan.det_run_hw) if stage in late else det_imgsz
            stem = "card-detector"
        else:
            root, epochs, imgsz, stem = jobs[stage]
            extra: dict = {}
            if epochs <= 0:
                continue
            if stage == "corner":  # from scratch: a new model
                extra = {"lr0": plan.corner_lr0}
            elif stage in going_on_lr0:  # continues from the weights in models_dir
                extra = {"model_cfg": str(models_dir / f"{stem}.pt"), "lr0": going_on_lr0[stage]}
                if stage in COSINE_RATE_STAGES:
                    extra["cos_lr"] = True
            weights = yolo.train_classifier(
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
        results[stage] = str(yolo.export_onnx(weights, imgsz, models_dir / f"{stem}.onnx"))
        yolo.install(weights, models_dir / f"{stem}.pt")
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
