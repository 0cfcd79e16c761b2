"""``tabletop vision teach|watch|dryer`` (added to the ``vision`` group by
``vision/commands.py`` through ``add_commands_to``). Light module: heavy imports live in the
handlers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli_args import (
    CARD_SCALE_HELP,
    card_scale,
    non_negative_int,
    nonempty_path,
    positive_int,
)

if TYPE_CHECKING:
    from vision.runtime.card_scale import CardScale


def _zone_box(text: str) -> tuple[float, float, float, float]:
    try:
        x1, y1, x2, y2 = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("a zone is x1,y1,x2,y2 between 0 and 1") from None
    if not (0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1):
        raise argparse.ArgumentTypeError("a zone is x1,y1,x2,y2 between 0 and 1")
    return x1, y1, x2, y2


def _teach(args: argparse.Namespace) -> int:
    """``vision teach``: its refusals (a bad ``--out`` or ``--check``, a camera that cannot be
    opened or stops early, a folder that cannot be written) are one line and exit 2, and
    everything that can be checked is checked before any training."""
    from vision.commands import deck_profile
    from vision.decks import DeckError
    from vision.table.frames import CameraError
    from vision.teach.capture import CaptureError
    from vision.teach.guide import TeachError, check_profile_name, guide_order, photo_name, say

    try:
        deck = deck_profile(args.deck)
        check_profile_name(deck, args.deck)
    except (DeckError, TeachError) as exc:
        print(f"tabletop vision teach: {exc}", file=sys.stderr)
        return 2
    if args.guide:
        for i, ident in enumerate(guide_order(deck)):
            print(f"{photo_name(i, ident)}.jpg\t{say(ident, deck)}")
        return 0
    try:
        return _teach_deck(args, deck)
    except (TeachError, CaptureError, CameraError, DeckError) as exc:
        print(f"tabletop vision teach: {exc}", file=sys.stderr)
    except OSError as exc:  # a folder that cannot be written after all (full, read-only)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tabletop vision teach: {where}{exc.strerror or exc}", file=sys.stderr)
    return 2


def _teach_deck(args: argparse.Namespace, deck: Any) -> int:
    from vision.decks import all_decks
    from vision.images import imread
    from vision.teach.capture import photo_problems
    from vision.teach.finetune import TeachPlan, build_dataset, finetune
    from vision.teach.guide import guide_order, read_folder
    from vision.teach.preflight import PHOTOS, check_out, check_photos

    order = guide_order(deck)
    # absolute, so that Ultralytics trains under --out, not under its own runs folder
    out = Path(args.out or f"runs/taught/{deck.name}").absolute()
    if args.photos or args.camera:  # before any photo is taken or model trained
        all_decks()  # the fillers read every profile: a broken one is said now (DeckError)
        check_out(out, live=not args.photos)
        if args.check:
            check_photos(Path(args.check), deck, args.zone)
    if args.photos:
        try:
            empty_path, pairs = read_folder(Path(args.photos), deck)
        except (FileNotFoundError, ValueError) as exc:
            print(f"tabletop vision teach: {exc}", file=sys.stderr)
            return 2
        empty = imread(empty_path)
        shots = [(imread(p), ident) for p, ident in pairs]
        photos = [(p, image) for (p, _ident), (image, _) in zip(pairs, shots, strict=True)]
        problems = photo_problems(empty_path, empty, photos, args.zone, deck.aspect)
        if problems:  # before any training: a family fixes every photo in one go
            for problem in problems:
                print(f"tabletop vision teach: {problem}", file=sys.stderr)
            return 2
        # in guide order: a colourless card's (None, value) does not sort against a colour
        taken = {i for _, i in pairs}
        missing = [i for i in order if i not in taken]
        if missing:
            print(f"note: {len(missing)} cards of the deck have no photo", file=sys.stderr)
    elif args.camera:
        from vision.table.frames import open_source

        source = open_source(args.camera)
        _say_camera_status(source, "teach")  # cam:99: "no camera yet", not a silent wait
        empty, images = _live_capture(args, deck, order, source, out / PHOTOS)
        shots = list(zip(images, order, strict=True))
    else:
        print(
            "tabletop vision teach: give --photos FOLDER or --camera SPEC (or --guide)",
            file=sys.stderr,
        )
        return 2
    plan = TeachPlan(
        variants=args.variants, sym_epochs=args.epochs, col_epochs=max(1, args.epochs // 2)
    )
    counts = build_dataset(out / "data", shots, empty, args.zone, deck, plan)
    meta = finetune(out / "data", out / "model", plan, log=lambda m: print(m, file=sys.stderr))
    result = {"deck": deck.name, "model": str(out / "model"), **counts, **meta}
    if args.check:
        result["check"] = _check(Path(args.check), out / "model", args.zone, deck)
    print(json.dumps(result))
    return 0


def _check(folder: Path, taught: Path, zone: Any, deck: Any) -> dict:
    """The taught model's reading of the ``--check`` photos, beside the shipped models' (under
    ``shipped``, when they are there): a taught model reading fewer of them right is said on
    stderr, since teach installs it all the same (a photo filed under another card's name, too
    few photos or epochs)."""
    from vision.images import imread
    from vision.runtime.onnx_model import ModelError
    from vision.teach.finetune import MODELS, check
    from vision.teach.guide import read_folder

    c_empty, c_pairs = read_folder(folder, deck)
    frames_ = [(imread(p), ident) for p, ident in c_pairs]
    empty = imread(c_empty)
    result = check(taught, frames_, empty, zone, deck)
    try:
        shipped = check(MODELS, frames_, empty, zone, deck)
    except ModelError:  # no shipped ONNX files here (only the .pt teach starts from)
        return result
    result["shipped"] = {k: shipped[k] for k in ("right", "accuracy", "wrong")}
    if result["right"] < shipped["right"]:
        print(
            f"tabletop vision teach: warning: the taught model read {result['right']} of the"
            f" {result['cards']} --check photos right, the shipped models {shipped['right']}:"
            f" it is in {taught} all the same; check that each photo shows the card its name"
            " says, or read with the shipped models (leave out --models)",
            file=sys.stderr,
        )
    return result


def _live_capture(args: argparse.Namespace, deck: Any, order: list, source: Any, keep: Path):
    """The guided capture from the camera, each photo kept in ``keep`` (named by the guide) as
    it is taken: a fine-tune that fails, or a camera that stops, loses no card put down."""
    import cv2

    from vision.table.frames import frames
    from vision.teach.capture import CaptureError, LiveCapture
    from vision.teach.guide import EMPTY, photo_name, say

    cards: list[int] = []

    def kept(i: int | None, image: Any) -> None:
        name = EMPTY if i is None else photo_name(i, order[i])
        keep.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(keep / f"{name}.png"), image):  # lossless: the pixels taught
            raise OSError(f"{keep}: cannot write the photos taken")
        if i is not None:
            cards.append(i)

    rerun = f"tabletop vision teach --deck {args.deck} --photos {keep}"
    if args.zone != (0.0, 0.0, 1.0, 1.0):
        rerun += " --zone " + ",".join(f"{v:g}" for v in args.zone)
    if args.out:
        rerun += f" --out {args.out}"
    capture = LiveCapture(args.zone, aspect=deck.aspect, on_photo=kept)
    try:
        empty, images = capture.run(frames(source), [say(i, deck) for i in order])
    except CaptureError as exc:
        if not cards:
            raise
        raise CaptureError(f"{exc}; the photos taken are kept: {rerun} teaches on them") from None
    print(f"the photos are kept in {keep}: {rerun} teaches again from them", file=sys.stderr)
    return empty, images


# The dryer reader resamples each picture with OpenCV's remap, which refuses a picture of
# SHRT_MAX (32 767) px or more on a side: such a picture is refused before it is read.
DRYER_MAX_SIDE = 32_766


def _dryer_picture(path: str) -> tuple[Any, str | None]:
    """(BGR picture, None), or (None, why the dryer reader cannot take it): unreadable, or too
    wide or tall for it (a panorama, a large scan)."""
    from vision.images import read_image

    image, why = read_image(path)
    if image is None:
        return None, why
    h, w = image.shape[:2]
    if max(h, w) > DRYER_MAX_SIDE:
        return None, f"{w} x {h} px, more than the dryer reader takes ({DRYER_MAX_SIDE} px a side)"
    return image, None


def _dryer(args: argparse.Namespace) -> int:
    from vision.dryer.read import DryerReader
    from vision.table.zones import TableLayout, ZoneError

    try:
        reader = DryerReader(TableLayout.load(args.zones), args.seat)
    except ZoneError as exc:
        print(f"tabletop vision dryer: {exc}", file=sys.stderr)
        return 2
    if args.empty:
        empty, why = _dryer_picture(args.empty)
        if empty is None:
            print(f"tabletop vision dryer: --empty {args.empty}: {why}", file=sys.stderr)
            return 2
        reader.set_reference(empty)
    status = 0
    for path in args.images:
        image, why = _dryer_picture(path)
        if image is None:
            print(json.dumps({"image": path, "error": f"cannot read this image: {why}"}))
            status = 1
            continue
        got = reader.read(image)
        print(
            json.dumps(
                {
                    "image": path,
                    "seat": args.seat,
                    "dryer": got.dryer.to_dict(),
                    "text": got.dryer.to_text(),
                    "confidence": got.confidence,
                    "notes": list(got.notes),
                }
            )
        )
    return status


def _watch(args: argparse.Namespace) -> int:
    from vision.decks import DeckError
    from vision.runtime.card_scale import ScaledReader
    from vision.runtime.onnx_model import ModelError
    from vision.runtime.reader import CardReader
    from vision.table.adapter import reader_detector
    from vision.table.frames import CameraError, CameraSoftwareMissing, frames, open_source
    from vision.table.to_events import EventMapper
    from vision.table.watcher import TableWatcher
    from vision.table.zones import TableLayout, ZoneError

    try:
        layout = TableLayout.load(args.zones)
        _check_discard_pile(layout, args.zones)
        deck = _watch_deck(args.game, args.deck)
        cards = CardReader(args.models, deck=deck) if args.models else CardReader(deck=deck)
        reader = ScaledReader(cards, args.card_scale)
        source = open_source(args.source)
    except (ZoneError, DeckError, ModelError, CameraError) as exc:
        print(f"tabletop vision watch: {exc}", file=sys.stderr)
        return 2

    _say_camera_status(source, "watch")
    watcher = TableWatcher(reader_detector(reader, args.game), layout)
    mapper = EventMapper(args.game, layout)
    seen = 0
    said = reader.card_scale  # the scale last said on stderr (VIS-11)
    try:
        for frame in frames(source):
            seen += 1
            for obs in watcher.process(frame):
                line = {"observation": obs.to_dict()}
                line["proposals"] = [p.to_dict() for p in mapper.propose(obs, args.seat)]
                print(json.dumps(line), flush=True)
            if reader.card_scale is not said:  # measured on this frame, or drifted
                said = reader.card_scale
                print(f"tabletop vision watch: {_scale_line(said)}", file=sys.stderr)
    except CameraSoftwareMissing as exc:  # nothing was watched: a setup error, as a bad spec
        print(f"tabletop vision watch: {exc}", file=sys.stderr)
        return 2
    except CameraError as exc:  # the camera went away: what was printed stands
        print(f"tabletop vision watch: {exc}", file=sys.stderr)
        return 1
    if not seen:  # an empty folder, a file OpenCV opens but cannot decode
        print(f"tabletop vision watch: no frame could be read from {args.source}", file=sys.stderr)
        return 1
    return 0


def _check_discard_pile(layout: Any, zones: str) -> None:
    """Every game ``watch`` reads is played on a discard pile: without its zone nothing
    would ever be proposed, and the video would play through in silence (as the dashboard,
    it refuses such a layout; ``ZoneError``)."""
    from vision.table.zones import ZoneError

    if not layout.discard_piles():
        raise ZoneError(
            f"{zones} has no discard pile zone: draw discard_1 on the dashboard's Calibrate "
            "page (or add a zone of kind discard to the file)"
        )


def _watch_deck(game: str, name: str | None) -> Any:
    """The profile ``watch`` reads with (``--deck``, else the game's), narrowed to the kinds
    of card the game's referee deck holds (VIS-3), a named one too: a Hit the Deck 3 is never
    answered as an 8 the referee would refuse. A ``DeckError`` when nothing is left."""
    from vision.commands import deck_profile
    from vision.decks import DeckError
    from vision.table.labels import refereed_deck

    profile = deck_profile(name or game)
    deck = refereed_deck(game, profile)
    if not deck.identities():
        raise DeckError(f"deck {profile.name!r} holds no card {game}'s referee deck holds")
    return deck


def _say_camera_status(source: Any, command: str) -> None:
    """A live camera (a ``ReconnectingSource``) says on stderr when it is not there yet, lost
    or back, while it retries; a video or a folder has no status."""
    from vision.table.frames import ReconnectingSource

    if isinstance(source, ReconnectingSource):
        source.on_status = lambda status: print(
            f"tabletop vision {command}: {'camera ok' if status == 'ok' else status}",
            file=sys.stderr,
            flush=True,
        )


def _scale_line(scale: CardScale | None) -> str:
    if scale is None:
        return "the cards changed size (was the camera moved?): measuring the card scale again"
    return scale.describe()


def _add(sub: argparse._SubParsersAction) -> None:
    te = sub.add_parser("teach", help="teach the camera a family's own deck (capture, fine-tune)")
    te.add_argument("--deck", required=True, help="deck profile name (models/decks)")
    te.add_argument("--guide", action="store_true", help="print the capture order and photo names")
    te.add_argument("--photos", help="folder of photos named by the guide (000_empty.jpg first)")
    te.add_argument("--camera", help="capture live: picamera2, cam:N, a video or an image folder")
    te.add_argument(
        "--zone",
        type=_zone_box,
        default=(0.0, 0.0, 1.0, 1.0),
        help="capture zone x1,y1,x2,y2 (normalised; default the whole picture)",
    )
    te.add_argument(
        "--out", type=nonempty_path, help="where the taught model goes (default runs/taught/DECK)"
    )
    te.add_argument("--check", help="a second folder of guide-named photos to measure on")
    te.add_argument(
        "--variants", type=positive_int, default=24, help="training crops per captured card"
    )
    te.add_argument("--epochs", type=positive_int, default=10)
    te.set_defaults(handler=_teach)

    dr = sub.add_parser("dryer", help="read Wash Dash dryers in pictures")
    dr.add_argument("images", nargs="+")
    dr.add_argument("--zones", required=True, help="calibration JSON (the dashboard's zones)")
    dr.add_argument("--seat", type=non_negative_int, default=0)
    dr.add_argument("--empty", help="a picture of the same dryer with nothing on it")
    dr.set_defaults(handler=_dryer)

    wa = sub.add_parser("watch", help="watch a table and print observations and proposed events")
    wa.add_argument("source", help="picamera2, cam:N, a video file or an image folder")
    wa.add_argument("--game", required=True, choices=["deck-dash", "dos", "hit-the-deck"])
    wa.add_argument("--zones", required=True)
    wa.add_argument(
        "--deck", help="deck profile (default: the game's), narrowed to the game's cards (VIS-3)"
    )
    wa.add_argument("--models", type=nonempty_path, help="models folder (e.g. a taught deck's)")
    wa.add_argument(
        "--seat", type=non_negative_int, default=None, help="the player on turn, if fixed"
    )
    wa.add_argument(
        "--card-scale",
        type=card_scale,
        default=None,
        metavar="auto|SCALE",
        help=CARD_SCALE_HELP,
    )
    wa.set_defaults(handler=_watch)


def add_commands_to(vision_subparsers: argparse._SubParsersAction) -> None:
    """``tabletop vision teach|dryer|watch``."""
    _add(vision_subparsers)
