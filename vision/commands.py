"""``tabletop vision …`` sub-commands. Light module: heavy imports live inside the handlers."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from referee.cli_args import fraction, non_negative_int, positive_int, ranged, thread_count

ANY_DECK = "any"  # ``--deck any``: read any colour with any value (VIS-9 off)
# identify reads photos taken from any distance, so it also looks at them shrunk by 2 and 4
# (vision.runtime.zoom): close-ups 48 → 150 of 160 read, table scenes −9 of 3 149 faces.
# eval scores table scenes as the table camera sees them, with none.
IDENTIFY_ZOOM_OUT = 2
# The most shrunk passes: the 4th shrinks by 16, so a card filling the frame is 6 % of it,
# under the learnt 11-33 % of its height; more passes only cost time (each a detector run).
MAX_ZOOM_OUT = 4
# every command's --models default: the repo's models/, wherever the command is run from
MODELS = str(Path(__file__).resolve().parent.parent / "models")


def train_plan(args: argparse.Namespace):
    """The plan ``vision train`` runs: the defaults, with the command line's sizes and the
    validation splits derived from them."""
    from vision.train import TrainPlan

    return TrainPlan(
        seed=args.seed,
        det_train=args.det_images,
        det_val=max(8, args.det_images // 8),
        det_epochs=args.det_epochs,
        crops_train=args.crops,
        crops_val=max(60, args.crops // 10),
        sym_epochs=args.sym_epochs,
        col_epochs=args.col_epochs,
        threads=args.threads,
        sym_more_epochs=args.sym_more_epochs,
        det_more_epochs=args.det_more_epochs,
        crops_more=args.crops_more,
        crops_more_val=max(60, args.crops_more // 20),
        sym_round2_epochs=args.sym_round2_epochs,
        col_round2_epochs=args.col_round2_epochs,
        det_round2_epochs=args.det_round2_epochs,
        det_more_images=args.det_more_images,
        det_styles_epochs=args.det_styles_epochs,
        scene_crop_tables=args.scene_crop_tables,
        scene_crop_val_tables=max(20, args.scene_crop_tables // 15),
        sym_round3_epochs=args.sym_round3_epochs,
        col_round3_epochs=args.col_round3_epochs,
        sym_round3_more_epochs=args.sym_round3_more_epochs,
        col_round3_more_epochs=args.col_round3_more_epochs,
        sym96_epochs=args.sym96_epochs,
        det_round3_images=args.det_round3_images,
        det_round3_epochs=args.det_round3_epochs,
        corner_tables=args.corner_tables,
        corner_val_tables=max(20, args.corner_tables // 10),
        corner_epochs=args.corner_epochs,
    )


def _train(args: argparse.Namespace) -> int:
    from vision.runtime.onnx_model import ModelError
    from vision.train import STAGES, PlanError, check_models, check_stages, run_plan

    def fail(why: str) -> int:
        print(f"tabletop vision train: {why}", file=sys.stderr)
        return 2

    plan = train_plan(args)
    work = Path(args.work) if args.work else Path("runs") / f"train-seed{args.seed}"
    models = Path(args.models)
    stages = STAGES
    if args.stages is not None:  # "" or "," names no stage: not "all of them"
        stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
        if not stages:
            return fail("--stages names no stage")
    if work.exists() and not work.is_dir():
        return fail(f"--work {work}: not a folder")
    try:
        check_stages(stages, work)
        check_models(stages, models)  # before minutes of rendering
        run_plan(plan, work, models, log=lambda m: print(m, flush=True), stages=stages)
    except (PlanError, ModelError) as exc:  # ModelError: a models file broken, not missing
        return fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        return fail(f"{where}{exc.strerror or exc}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from vision.train import TrainPlan
    from vision.yolo import ExportError, WeightsMissing, export_all

    detector_hw = TrainPlan().det_run_hw  # the shape the shipped detector runs at
    try:
        exported = export_all(
            Path(args.models), dynamic_classifiers=not args.fixed_batch, detector_hw=detector_hw
        )
    except (WeightsMissing, ExportError) as exc:  # each names its file
        print(f"tabletop vision export: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # renaming into the models folder
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tabletop vision export: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    for path in exported:
        print(path)
    return 0


def _quantize(args: argparse.Namespace) -> int:
    from vision.decks import DeckError
    from vision.evaluate import DatasetError
    from vision.quantize import QuantizePlan, quantize_models
    from vision.runtime.onnx_model import ModelError
    from vision.runtime.reader import COLOR, CORNER, DETECTOR, SYMBOL

    names = {"detector": DETECTOR, "symbol": SYMBOL, "color": COLOR, "corner": CORNER}
    try:
        models = tuple(names[m] for m in args.which.split(","))
    except KeyError as exc:
        print(f"tabletop vision quantize: unknown model {exc}", file=sys.stderr)
        return 2
    plan = QuantizePlan(frames=args.frames, check_frames=args.check_frames, models=models)
    try:
        report = quantize_models(
            args.models,
            plan,
            log=lambda m: print(m, file=sys.stderr, flush=True),
            eval_sets=tuple(Path(d) for d in args.eval),
        )
    except (ModelError, DeckError, DatasetError) as exc:
        print(f"tabletop vision quantize: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a models folder that cannot be written, a file gone meanwhile
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tabletop vision quantize: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


def deck_profile(name: str):  # -> vision.decks.DeckProfile
    """``vision.decks.load_deck``: every way a profile can be bad (no UTF-8 text, not JSON,
    a malformed field) is a ``DeckError`` naming the file, not a traceback."""
    from vision.decks import load_deck

    return load_deck(name)


def _reader(args: argparse.Namespace):
    from vision.decks import DeckError, require_profiles
    from vision.runtime.reader import CardReader, ReaderConfig

    if args.deck is not None and not args.deck.strip():  # not "no deck": a slip
        raise DeckError(
            "--deck is empty: name a deck (models/decks/NAME.json), a JSON path or 'any'"
        )
    deck = deck_profile(args.deck) if args.deck and args.deck != ANY_DECK else None
    if deck is None and args.deck != ANY_DECK:  # any card of a known deck (VIS-9), with
        require_profiles()  # none known: said before the models load, not read as no card
    config = ReaderConfig(
        conf=args.conf,
        threads=args.threads,
        min_confidence=args.min_confidence,
        known_cards_only=args.deck != ANY_DECK,
        zoom_out=args.zoom_out,
    )
    return CardReader(args.models, deck, config)


def read_image(path: str):
    """(BGR image, None), or (None, why it could not be read): ``vision.images.read_image``,
    which never raises (a too-large header included)."""
    from vision.images import read_image as read

    return read(path)


def _reader_or_none(args: argparse.Namespace, command: str):
    """The reader, or None after naming why it cannot be made (no such deck, a models folder
    without its files)."""
    from vision.decks import DeckError
    from vision.runtime.onnx_model import ModelError

    try:
        return _reader(args)
    except (DeckError, ModelError, FileNotFoundError) as exc:
        print(f"tabletop vision {command}: {exc}", file=sys.stderr)
        return None


def _identify(args: argparse.Namespace) -> int:
    reader = _reader_or_none(args, "identify")
    if reader is None:
        return 2
    failed = 0
    for path in args.images:
        image, why = read_image(path)
        if image is None:
            failed += 1
            print(json.dumps({"image": path, "error": f"cannot read image: {why}"}), flush=True)
            continue
        cards = reader(image).cards(within=image.shape[1::-1])  # boxes inside the image
        print(json.dumps({"image": path, "cards": cards}), flush=True)
    return 1 if failed else 0


def _eval(args: argparse.Namespace) -> int:
    from vision.evaluate import DatasetError, evaluate

    def fail(why: str) -> int:
        print(f"tabletop vision eval: {why}", file=sys.stderr)
        return 2

    root = Path(args.dataset)
    if not (root / "data.yaml").is_file():
        return fail(f"{root}/data.yaml not found")
    if args.json and (Path(args.json).is_dir() or not Path(args.json).parent.is_dir()):
        return fail(f"--json {args.json}: not a file in an existing folder")  # before the run
    if args.json and Path(args.json).is_file():  # CLI-1, before the run
        return fail(f"{args.json} exists already: name another file")
    reader = _reader_or_none(args, "eval")
    if reader is None:
        return 2
    try:
        report = evaluate(root, reader, log=lambda m: print(m, file=sys.stderr, flush=True))
    except DatasetError as exc:
        return fail(str(exc))
    unwritten = None  # the report file first: a standard output that fails then loses no run
    if args.json:
        try:
            write_new_file(Path(args.json), json.dumps(report.to_dict(), indent=2) + "\n")
        except FileExistsError:  # made while the run ran
            unwritten = f"{args.json} exists already: name another file"
        except OSError as exc:
            unwritten = f"cannot write {args.json}: {exc.strerror or exc}"
    print(report.table())
    if unwritten is not None:
        return fail(unwritten)
    for path in report.unreadable:  # scored without them: say so, and fail at the end
        print(f"tabletop vision eval: cannot read image {path}: skipped", file=sys.stderr)
    return 1 if report.unreadable else 0


def write_new_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, never over a regular file (CLI-1: FileExistsError); a
    device such as /dev/null is written to. The file appears whole or not at all: a write
    that fails (a full disk) must not leave half a report that CLI-1 then keeps."""
    import tempfile

    from vision.files import PLAIN_MODE

    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8") as file:
            file.write(text)
        return
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    part = Path(name)
    try:
        with open(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(part, PLAIN_MODE)  # mkstemp's 0600 would hide the report from others
        _link_new(part, path, text)
    finally:
        part.unlink(missing_ok=True)


def _link_new(part: Path, path: Path, text: str) -> None:
    """``part`` also named ``path``: a link, unlike a rename, refuses a name that exists
    (FileExistsError). Where links fail (a FAT stick has none) ``text`` goes into a new file
    instead, removed again if the write fails."""
    try:
        os.link(part, path)
        return
    except FileExistsError:
        raise
    except OSError:
        pass
    with path.open("x", encoding="utf-8") as file:  # "x": the file is ours to remove
        try:
            file.write(text)
            file.flush()
        except BaseException:
            path.unlink(missing_ok=True)
            raise


# ``vision render OUT`` writes what it rendered (kind, styles, decks, n, seed) here first: the
# same render may run again into its own folder (it writes the same files over), another may
# not (images of two sets would be scored as one).
RENDER_RECORD = "render.json"


def render_refusal(out: Path, recipe: dict) -> str | None:
    """Why ``vision render`` refuses OUT, or None: a folder that holds anything but the same
    render (same kind, styles, decks, n and seed) is refused; a new or empty folder is not,
    and a file that is no folder keeps the "cannot write" error."""
    try:
        if not out.is_dir() or not any(out.iterdir()):
            return None
    except OSError:  # not readable: writing says why
        return None
    try:
        record = json.loads((out / RENDER_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no record: not a render, or one from before it was kept
        return f"{out} is not empty: name a new or empty folder"
    if record == recipe:
        return None
    return (
        f"{out} holds another render (its kind, style, decks, --n or --seed differ): name a"
        " new or empty folder"
    )


def _unwritten(out: Path, exc: OSError) -> str:
    """What ``vision render`` could not write into ``out``, and why: the file and the
    system's reason, not OSError's ``[Errno N] …`` text."""
    if out.exists() and not out.is_dir():
        return f"{out}: not a folder"
    return f"{exc.filename or out}: {exc.strerror or exc}"


def _render(args: argparse.Namespace) -> int:
    from vision.decks import DeckError
    from vision.render.dataset import write_eval_dataset
    from vision.render.faces import ALL_STYLES, HELDOUT_STYLE, TRAIN_STYLES

    if args.style is not None and args.style not in ALL_STYLES:
        known = ", ".join(ALL_STYLES)
        print(
            f"tabletop vision render: unknown style {args.style!r} (one of {known})",
            file=sys.stderr,
        )
        return 2
    try:
        decks = [deck_profile(d) for d in args.decks.split(",")]
    except DeckError as exc:
        print(f"tabletop vision render: {exc}", file=sys.stderr)
        return 2
    styles = (HELDOUT_STYLE,) if args.kind == "heldout" else TRAIN_STYLES
    if args.style is not None:
        styles = (args.style,)
    recipe = {
        "rendered by": "tabletop vision render",
        "kind": args.kind,
        "styles": list(styles),
        "decks": args.decks.split(","),
        "n": args.n,
        "seed": args.seed,
    }
    refusal = render_refusal(Path(args.out), recipe)
    if refusal is not None:
        print(f"tabletop vision render: {refusal}", file=sys.stderr)
        return 2
    try:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / RENDER_RECORD).write_text(json.dumps(recipe, indent=2) + "\n")
        out = write_eval_dataset(
            Path(args.out), args.n, args.seed, decks, styles, empty=args.kind == "empty"
        )
    except OSError as exc:  # OUT is a file, or not writable, or the disk is full
        print(
            f"tabletop vision render: cannot write {_unwritten(Path(args.out), exc)}",
            file=sys.stderr,
        )
        return 2
    print(out)
    return 0


def _runtime_args(p: argparse.ArgumentParser, zoom_out: int = 0) -> None:
    p.add_argument(
        "--deck",
        help="deck profile name (models/decks/NAME.json) or a JSON path; default: any card of a"
        f" known deck (VIS-9); {ANY_DECK!r}: any colour with any value",
    )
    p.add_argument("--models", default=MODELS)
    p.add_argument("--conf", type=fraction, default=0.4, help="detector confidence threshold")
    p.add_argument(
        "--min-confidence",
        type=fraction,
        default=0.3,
        help="drop cards read with less confidence (detector × reading; VIS-7)",
    )
    p.add_argument("--threads", type=thread_count, default=2)
    p.add_argument(
        "--zoom-out",
        type=ranged(int, 0, MAX_ZOOM_OUT),
        default=zoom_out,
        metavar="N",
        help="also look for cards on the image shrunk by 2, 4, … (N passes), for cards larger"
        f" than a table camera sees them, as in a close-up photo (default {zoom_out}, at most"
        f" {MAX_ZOOM_OUT}; docs/VISION.md)",
    )


def add_commands(sub: argparse._SubParsersAction) -> None:
    vision = sub.add_parser("vision", help="recognise cards: train, export, identify, evaluate")
    vsub = vision.add_subparsers(dest="vision_command", required=True, metavar="ACTION")

    tr = vsub.add_parser("train", help="render data and train the card models (Ultralytics, CPU)")
    tr.add_argument("--seed", type=non_negative_int, default=0)
    tr.add_argument("--work", help="working folder for data and runs (default runs/train-seedN)")
    tr.add_argument(
        "--models", default=MODELS, help="where the ONNX/.pt files go (default: the repo's)"
    )
    tr.add_argument("--det-images", type=positive_int, default=500)
    tr.add_argument("--det-epochs", type=positive_int, default=16)
    tr.add_argument("--crops", type=positive_int, default=6000)
    tr.add_argument("--sym-epochs", type=positive_int, default=12)
    tr.add_argument("--col-epochs", type=positive_int, default=5)
    tr.add_argument("--threads", type=thread_count, default=1)
    tr.add_argument(
        "--sym-more-epochs",
        type=positive_int,
        default=8,
        help="second pass over the symbol crops at a lower learning rate",
    )
    tr.add_argument(
        "--det-more-epochs",
        type=positive_int,
        default=10,
        help="second detector pass from the first pass's weights",
    )
    tr.add_argument(
        "--crops-more", type=positive_int, default=18000, help="round-2 crops (all training styles)"
    )
    tr.add_argument("--sym-round2-epochs", type=positive_int, default=6)
    tr.add_argument("--col-round2-epochs", type=positive_int, default=3)
    tr.add_argument("--det-round2-epochs", type=positive_int, default=20)
    tr.add_argument(
        "--det-more-images", type=positive_int, default=500, help="scenes in all styles"
    )
    tr.add_argument("--det-styles-epochs", type=positive_int, default=15)
    tr.add_argument(
        "--scene-crop-tables", type=positive_int, default=3000, help="round-3 tables cut into crops"
    )
    tr.add_argument("--sym-round3-epochs", type=positive_int, default=4)
    tr.add_argument("--col-round3-epochs", type=positive_int, default=2)
    tr.add_argument("--sym-round3-more-epochs", type=positive_int, default=6)
    tr.add_argument("--col-round3-more-epochs", type=positive_int, default=2)
    tr.add_argument("--sym96-epochs", type=positive_int, default=4)
    tr.add_argument(
        "--det-round3-images", type=positive_int, default=1000, help="fresh round-3 tables"
    )
    tr.add_argument("--det-round3-epochs", type=positive_int, default=12)
    tr.add_argument(
        "--corner-tables", type=positive_int, default=2000, help="corner tables per chunk"
    )
    tr.add_argument("--corner-epochs", type=positive_int, default=8)
    tr.add_argument(
        "--stages",
        help="comma-separated stages to (re)train, the others keep their weights "
        "(default: every stage in order; see models/cards.md)",
    )
    tr.set_defaults(handler=_train)

    ex = vsub.add_parser("export", help="export the trained .pt models in MODELS to ONNX")
    ex.add_argument("--models", default=MODELS)
    ex.add_argument("--fixed-batch", action="store_true", help="classifiers take batch 1 only")
    ex.set_defaults(handler=_export)

    qu = vsub.add_parser(
        "quantize", help="write int8 twins (card-*.int8.onnx) the runtime then prefers"
    )
    qu.add_argument("--models", default=MODELS)
    qu.add_argument("--frames", type=positive_int, default=96, help="rendered calibration scenes")
    qu.add_argument(
        "--which",
        default="detector,symbol,color,corner",
        help="models to quantize (comma-separated; corner only where the folder has one)",
    )
    qu.add_argument(
        "--check-frames",
        type=positive_int,
        default=24,
        help="fresh scenes for the agreement report",
    )
    qu.add_argument(
        "--eval",
        action="append",
        default=[],
        metavar="DATASET",
        help="also compare float and int8 with `vision eval` on this dataset (repeatable)",
    )
    qu.set_defaults(handler=_quantize)

    ident = vsub.add_parser("identify", help="name the cards in images (one JSON line each)")
    ident.add_argument("images", nargs="+", metavar="IMAGE")
    _runtime_args(ident, zoom_out=IDENTIFY_ZOOM_OUT)
    ident.set_defaults(handler=_identify)

    ev = vsub.add_parser("eval", help="mAP and card identity accuracy on a YOLO-format dataset")
    ev.add_argument("dataset", metavar="DATASET", help="folder with data.yaml, images/, labels/")
    ev.add_argument("--json", help="also write the full report as JSON here")
    _runtime_args(ev)
    ev.set_defaults(handler=_eval)

    rd = vsub.add_parser("render", help="render a labelled evaluation set of table scenes")
    rd.add_argument("out", metavar="OUT")
    rd.add_argument("--kind", choices=["scenes", "heldout", "empty"], default="scenes")
    rd.add_argument(
        "--style", help="only this art style (e.g. halftone, the second held-out style)"
    )
    rd.add_argument("--n", type=positive_int, default=200)
    rd.add_argument("--seed", type=non_negative_int, default=1000)
    rd.add_argument("--decks", default="deck-dash,dos,hit-the-deck")
    rd.set_defaults(handler=_render)

    # Vision II: the table camera (teach a deck, read dryers, watch the piles).
    from vision.table.commands import add_commands_to

    add_commands_to(vsub)


if __name__ == "__main__":  # pragma: no cover - convenience
    import referee.cli

    sys.exit(referee.cli.main(["vision", *sys.argv[1:]]))
