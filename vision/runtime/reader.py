"""Frame → cards: find cards (OBB detector), rectify each, read symbol and colour.

Pure onnxruntime + numpy + OpenCV; no torch. A deck profile, when given, limits answers to
cards that deck contains (the best *allowed* colour × value pair wins, and what the symbol
model believes outside the deck, or in a value it prefers to the one named, counts against its
confidence: VIS-12); with none, answers are limited to cards some known deck contains (VIS-9),
unless ``known_cards_only`` is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from vision.decks import DeckProfile, known_identities
from vision.runtime.corners import NONE, corner_columns, corner_patches, fuse_corners
from vision.runtime.detections import Detections
from vision.runtime.geometry import decode_obb, letterbox, to_tensor, unletterbox_obb
from vision.runtime.onnx_model import ModelError, OnnxModel, load_model
from vision.runtime.rectify import crop_side, rectify
from vision.runtime.zoom import (
    detect_shrunk,
    detect_tiled,
    detect_zoomed_out,
    merged,
    suppress_nested,
)

MODELS_DIR = Path(__file__).resolve().parent.parent.parent / "models"
DETECTOR, SYMBOL, COLOR = "card-detector.onnx", "card-symbol.onnx", "card-color.onnx"
CORNER = "card-corner.onnx"  # optional: without it cards are read whole only


@dataclass(frozen=True)
class ReaderConfig:
    conf: float = 0.4  # detector confidence threshold
    iou: float = 0.5  # rotated NMS threshold
    # Ultralytics' Fast-NMS instead of greedy NMS (for parity checks; greedy keeps more of
    # a fan: geometry.nms_rotated)
    fast_nms: bool = False
    # each kept box becomes the score-weighted mean of the boxes NMS dropped for overlapping
    # it by more than this (geometry.fuse_boxes; None = NMS's boxes as they are): on
    # validation tables 0.9 read 15 more faces of 3 149 and raised mAP50-95 in every set
    fuse_iou: float | None = 0.9
    threads: int = 2  # detector
    # the classifiers' small batches gain nothing from a second thread (measured: more CPU and
    # more wall time with 2), so they run on one
    classifier_threads: int = 1
    # also read crops turned by 180° and average: the box does not say which end is up …
    turn_both_ways: bool = True
    # … but only crops whose first reading's top probability is below this (1.0 = every
    # crop); sure readings rarely change when turned, so this keeps most of the accuracy
    # of reading both ways at a fraction of the cost (measured: docs/VISION.md)
    turn_below: float = 0.95
    # run ``card-*.int8.onnx`` (``tabletop vision quantize``) when present and current
    int8: bool = True
    # a card read with less confidence (detector × reading) is not reported at all (VIS-7):
    # on held-out tables 0.3 cut frames with a false card from 16 to 4 of 200 (scenes) and
    # from 5 to 3 of 200 (empty tables) for 1.1 points of identity (bench/vision_thresholds.py)
    min_confidence: float = 0.3
    # how much the corner model's readings count against the whole-card reading (the exponent
    # in vision.runtime.corners.fuse_corners; 0 = whole-card reading only)
    corner_weight: float = 0.5
    # … read only for cards whose whole-card reading's top probability is below this (1.0 =
    # every card): on validation tables 0.95 and 1.0 read the same cards right, and reading
    # every card's four patches cost ≈ 4 ms more CPU per frame (bench/vision.py)
    corner_below: float = 0.95
    # with no deck profile given, name only (colour, value) pairs that some profile in
    # models/decks contains (VIS-9): on validation tables this read 6 more faces of 2 456
    # (no red Block, no yellow Keep 2); off = any colour with any value (``--deck any``)
    known_cards_only: bool = True
    # extra detector passes on the frame shrunk by 2, 4, … (vision.runtime.zoom), for cards
    # larger than a table camera sees them (a close-up photo); 0 = the frame as it is
    zoom_out: int = 0
    # the camera's card scale (VIS-11, vision.runtime.card_scale): the detector sees the
    # frame scaled by this; below 1 shrunk (one pass: a camera so low that every card is
    # larger than learnt), above 1 on 2×2 overlapping tiles each 1/scale of the frame (four
    # passes: a camera so high that every card is smaller); cards are read from the frame's
    # own pixels either way; 1 = as it is
    scale: float = 1.0


def _refuse_teach_out(folder: Path) -> None:
    """``--models OUT`` given for a taught deck's ``OUT/model``: say so, not the missing
    file's usual hint (``vision export``, which would write the shipped models instead)."""
    if not (folder / DETECTOR).is_file() and (folder / "model" / DETECTOR).is_file():
        raise ModelError(
            f"{folder}: no {DETECTOR} here: did you mean {folder / 'model'}?"
            " (tabletop vision teach puts a taught model there)"
        )


def _some(names: list[str], shown: int = 4) -> str:
    """A few class names, and how many in all when there are more (a message's one line)."""
    more = f" … ({len(names)} in all)" if len(names) > shown else ""
    return ", ".join(repr(n) for n in names[:shown]) + more


class CardReader:
    """Load the ONNX models once (detector, symbol, colour, and the corner model when the
    folder has one); call with a BGR frame to get :class:`Detections`."""

    def __init__(
        self,
        models_dir: str | Path = MODELS_DIR,
        deck: DeckProfile | None = None,
        config: ReaderConfig = ReaderConfig(),
    ) -> None:
        d = Path(models_dir)
        _refuse_teach_out(d)
        self.config = config
        self.detector = load_model(d / DETECTOR, config.threads, config.int8, "obb")
        self.symbol = load_model(d / SYMBOL, config.classifier_threads, config.int8, "classify")
        self.color = load_model(d / COLOR, config.classifier_threads, config.int8, "classify")
        self.corner = (
            load_model(d / CORNER, config.classifier_threads, config.int8, "classify")
            if (d / CORNER).is_file() and config.corner_weight > 0
            else None
        )
        self.deck = deck
        # the (colour, value) pairs a reading may name; None = any colour with any value
        self._allowed: list[tuple[str | None, str]] | None = (
            deck.identities()
            if deck is not None
            else known_identities()
            if config.known_cards_only
            else None
        )
        self._sym_names = [self.symbol.names[i] for i in range(len(self.symbol.names))]
        self._col_names = [self.color.names[i] for i in range(len(self.color.names))]
        if self._allowed is not None:
            self._check_readable(self._allowed, deck.name if deck is not None else None)
        # the symbol classes a reading may end in (the deck's values, "back", "other"): the
        # mass the model puts on the others is doubt about the card (``_decide``)
        names = {v for _, v in self._allowed or ()} | {"back", "other"}
        self._inside = np.array(
            [i for i, n in enumerate(self._sym_names) if n in names], dtype=np.intp
        )
        self.crop_size = crop_side(self.symbol.imgsz, self.color.imgsz)
        if self.corner is not None:
            names = [self.corner.names[i] for i in range(len(self.corner.names))]
            self._check_corner(names)
            self._corner_columns = corner_columns(self._sym_names, names)
            self._corner_none = names.index(NONE)

    def _check_readable(self, allowed: list[tuple[str | None, str]], deck: str | None) -> None:
        """Refuse a deck with a value (or colour) the models have no class for: it would get
        probability 0 and never be read, while the card itself is read as another one."""
        values = sorted({v for _, v in allowed} - set(self._sym_names))
        colors = sorted({c or "none" for c, _ in allowed} - set(self._col_names))
        if not values and not colors:
            return
        what = f"deck {deck!r}" if deck else "the known decks (models/decks)"
        missing = [f"value(s) {', '.join(values)} ({self.symbol.path})"] if values else []
        missing += [f"colour(s) {', '.join(colors)} ({self.color.path})"] if colors else []
        raise ModelError(
            f"{what} has {' and '.join(missing)} that the model cannot read: these models "
            "do not match the deck (retrain or teach them, or use a matching models folder)"
        )

    def _check_corner(self, names: list[str]) -> None:
        """Refuse a corner model that does not read the symbol model's values and ``none``:
        another classifier copied over it would crash on ``none`` (the symbol model) or be
        used silently, naming no value (the colour model)."""
        want = (set(self._sym_names) - {"back", "other"}) | {NONE}
        missing, extra = sorted(want - set(names)), sorted(set(names) - want)
        if not missing and not extra:
            return
        wrong = [f"lacks {_some(missing)}"] if missing else []
        wrong += [f"has {_some(extra)}"] if extra else []
        raise ModelError(
            f"{self.corner.path}: must be a corner model (the symbol model's values and"
            f" {NONE!r}), {' and '.join(wrong)}: another model saved under this name?"
        )

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        """Card boxes only (no reading), in frame pixels."""
        tensor, r, pad = self.detector_input(frame_bgr)
        out = self.detector(tensor)
        obb, scores, cls = decode_obb(
            out,
            self.config.conf,
            self.config.iou,
            fast_nms=self.config.fast_nms,
            fuse_iou=self.config.fuse_iou,
        )
        return Detections(unletterbox_obb(obb, r, pad), scores, cls)

    def detector_input(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, float, tuple[int, int]]:
        """The detector's input tensor for a frame, its scale and (left, top) padding."""
        boxed, r, pad = letterbox(frame_bgr, self.detector.input_hw)
        return to_tensor([boxed], swap_rb=True), r, pad

    def _classify(self, model: OnnxModel, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (N × classes) of RGB crops, re-reading unsure ones turned."""
        probs = self._classify_once(model, crops)
        if not self.config.turn_both_ways:
            return probs
        below = self.config.turn_below
        unsure = np.flatnonzero(probs.max(1) < below) if below < 1 else np.arange(len(probs))
        if len(unsure):
            turned = self._classify_once(model, [crops[i][::-1, ::-1] for i in unsure])
            probs[unsure] = (probs[unsure] + turned) / 2
        return probs

    @staticmethod
    def classifier_input(model: OnnxModel, crops: list[np.ndarray]) -> np.ndarray:
        """A classifier's input batch for RGB crops (resized to its input size)."""
        size = model.imgsz
        imgs = [
            c if c.shape[0] == size else cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA)
            for c in crops
        ]
        return to_tensor(imgs)

    def crops(self, frame_bgr: np.ndarray, obbs: np.ndarray) -> list[np.ndarray]:
        """Upright RGB crops of oriented boxes. Warps the BGR frame and swaps the small crop's
        channels: warping a reversed-channel view made OpenCV copy the whole frame per card
        (≈ 3 ms each); the pixels are the same."""
        return [rectify(frame_bgr, tuple(o), self.crop_size)[..., ::-1] for o in obbs]

    @property
    def symbol_names(self) -> list[str]:
        """The symbol model's classes, in the order of its probabilities."""
        return self._sym_names

    def symbol_probabilities(self, frame_bgr: np.ndarray, obbs: np.ndarray) -> np.ndarray:
        """The symbol model's own reading of each box (N × classes): no corners, no colour,
        no deck; for benches that ask what the network sees."""
        return self._classify(self.symbol, self.crops(frame_bgr, obbs))

    def _classify_once(self, model: OnnxModel, crops: list[np.ndarray]) -> np.ndarray:
        probs = model(self.classifier_input(model, crops))
        if np.abs(probs.sum(1) - 1).max() > 1e-3:  # logits → probabilities (cheap check)
            e = np.exp(probs - probs.max(1, keepdims=True))
            probs = e / e.sum(1, keepdims=True)
        return probs

    def read(self, frame_bgr: np.ndarray, dets: Detections) -> Detections:
        """Classify each detected card; drops detections the classifier calls "other" and
        readings below ``min_confidence``."""
        if len(dets) == 0:
            return dets
        crops = self.crops(frame_bgr, dets.obb)
        ps = self._classify(self.symbol, crops)
        pc = self._classify(self.color, crops)
        if self.corner is not None:
            ps = self._with_corners(ps, crops)
        colors, values, conf, keep = [], [], [], []
        for i in range(len(dets)):
            color, value, p = self._decide(ps[i], pc[i])
            if value == "other" or p * float(dets.confidence[i]) < self.config.min_confidence:
                continue
            keep.append(i)
            colors.append(color)
            values.append(value)
            conf.append(p * float(dets.confidence[i]))
        out = dets[np.array(keep, dtype=np.int64)]
        return Detections(
            out.obb,
            np.array(conf, np.float32),
            out.class_id,
            np.array(colors, dtype=object),
            np.array(values, dtype=object),
            {"detector_confidence": out.confidence},
        )

    def _with_corners(self, ps: np.ndarray, crops: list[np.ndarray]) -> np.ndarray:
        """Symbol probabilities with each card's four corner readings folded in."""
        unsure = np.flatnonzero(ps.max(1) < self.config.corner_below)
        if len(unsure) == 0:
            return ps
        size = self.corner.imgsz
        patches = [p for i in unsure for p in corner_patches(crops[i], size)]
        pk = self._classify_once(self.corner, patches).reshape(len(unsure), 4, -1)
        out = ps.copy()
        out[unsure] = fuse_corners(
            ps[unsure], pk, self._corner_columns, self._corner_none, self.config.corner_weight
        )
        return out

    def _decide(self, ps: np.ndarray, pc: np.ndarray) -> tuple[str | None, str, float]:
        sym = {n: float(p) for n, p in zip(self._sym_names, ps, strict=True)}
        col = {n: float(p) for n, p in zip(self._col_names, pc, strict=True)}
        best = max(sym, key=sym.__getitem__)
        if best in ("other", "back"):
            return None, best, sym[best]
        if self._allowed is None:
            c = max(col, key=col.__getitem__)
            return (None if c == "none" else c), best, sym[best] * col[c]
        options: list[tuple[float, str | None, str]] = []
        for c, v in self._allowed:
            p = sym.get(v, 0.0) * col.get(c or "none", 0.0)
            options.append((p, c, v))
        options.append((sym.get("back", 0.0), None, "back"))
        options.append((sym.get("other", 0.0), None, "other"))
        p, c, v = max(options, key=lambda o: o[0])
        total = sum(o[0] for o in options)
        if total <= 0:
            return c, v, 0.0
        # Within the deck the best pair's share is the reading (colour evidence may settle
        # the value, VIS-9), times how far the symbol model backs naming that value (VIS-12)
        return c, v, p / total * self._symbol_backing(ps, sym.get(v, 0.0))

    def _symbol_backing(self, ps: np.ndarray, named: float) -> float:
        """How far the symbol model backs the value a reading names (1 = fully): the lesser of
        its mass on what may be named at all and its belief in that value (``named``) against
        its own best. Either shortfall is doubt, not a vote for the deck's likeliest card: a
        model sure of an 8 that a 1-5 deck lacks must not make its 6 % on a 3 a confident 3,
        nor a colour model's "none" on a grey photo make a sure 4 (no deck has a colourless
        4) a confident Hit Hand at 0.04 % (VIS-12). The lesser, not the product: when the best
        is outside the deck both measure one doubt. A colour model overruled costs nothing (a
        pale card read as its deck's colour keeps its value's confidence)."""
        inside = float(ps[self._inside].sum() / ps.sum())
        return min(inside, named / float(ps.max()))

    def __call__(self, frame_bgr: np.ndarray) -> Detections:
        return self.find(frame_bgr, self.config.zoom_out, self.config.scale)

    def find(self, frame_bgr: np.ndarray, zoom_out: int = 0, scale: float = 1.0) -> Detections:
        """Cards found on the frame scaled by ``scale`` (``ReaderConfig.scale``; and shrunk by
        2, 4, … more, ``zoom_out`` extra passes), read from the full frame."""
        detect = self.detect
        if scale < 1:
            detect = partial(detect_shrunk, self.detect, factor=scale)
        elif scale > 1:
            detect = partial(detect_tiled, self.detect, tile=1 / scale, iou=self.config.iou)
        if zoom_out <= 0:
            return self.read(frame_bgr, detect(frame_bgr))
        found = detect_zoomed_out(detect, frame_bgr, int(zoom_out), self.config.iou)
        return self._read_unnested(frame_bgr, found)

    def find_any_size(
        self, frame_bgr: np.ndarray, zoom_out: int, enlarged: float, small: float
    ) -> Detections:
        """Cards of any size a table camera may see (the card scale's measuring read): the
        frame as it is and shrunk ``zoom_out`` times (cards as large as learnt or larger)
        and, when those passes find no box or boxes whose median width is under ``small``
        (a share of the frame's long side), also its 2×2 tiles ``enlarged`` times larger
        (cards smaller than learnt). The tiles only then: on a frame of large cards they
        find the cards' big symbols as cards."""
        iou = self.config.iou
        found = detect_zoomed_out(self.detect, frame_bgr, int(zoom_out), iou)
        widths = np.minimum(found.obb[:, 2], found.obb[:, 3]) / max(frame_bgr.shape[:2])
        if not len(found) or float(np.median(widths)) < small:
            found = merged([found, detect_tiled(self.detect, frame_bgr, 1 / enlarged, iou)], iou)
        return self._read_unnested(frame_bgr, found)

    def _read_unnested(self, frame_bgr: np.ndarray, found: Detections) -> Detections:
        """Boxes of several passes read, then of boxes nested in each other the better read
        kept (``suppress_nested``: a card's part, or a group of cards, found as a card)."""
        read = self.read(frame_bgr, found)
        return read[suppress_nested(read.obb, read.confidence)]
