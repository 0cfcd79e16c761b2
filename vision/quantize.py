"""int8 twins of the card models: onnxruntime static quantization (QDQ, per-channel weights),
calibrated on rendered table scenes run through the runtime's own pre-processing.

Why these settings (measured on this machine's AVX2 CPU, which has no VNNI):
* ``reduce_range`` (7-bit weights) — int8 kernels on AVX2 without VNNI can saturate with
  full-range weights; reduced range was both the most faithful and the fastest variant.
* The decoding tail of the last Ultralytics module (the detector's DFL, box/angle maths and the
  final concat of pixel boxes with 0..1 scores; the classifier's pool, linear layer and
  softmax) stays float: one int8 scale for boxes and scores together erased every score.
* Calibration frames come from a seed no training or evaluation set uses; crops are cut at the
  float detector's boxes and at the true boxes, both ways up, as the runtime reads them.
* The DFL block is rewritten first (``fast_dfl``): same numbers, a softmax over the last axis.

Each twin records its float source's SHA-256 (``quantized_from_sha256``), so the runtime
ignores it once the float model changes (retrained, fine-tuned): re-run this command.
"""

from __future__ import annotations

import re
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.runtime.corners import corner_patches
from vision.runtime.onnx_model import SOURCE_HASH_KEY, file_sha256, int8_path
from vision.runtime.reader import COLOR, CORNER, DETECTOR, SYMBOL, CardReader, ReaderConfig

CALIBRATION_SEED = 4_200_001  # beyond training seeds (0..999 × 1000 + small) and eval seeds
CHECK_SEED = 4_200_002


@dataclass(frozen=True)
class QuantizePlan:
    frames: int = 96  # calibration scenes
    empty_every: int = 8  # every n-th calibration scene is an empty table
    check_frames: int = 24  # fresh scenes for the float-vs-int8 agreement report
    seed: int = CALIBRATION_SEED
    batch: int = 16  # crops per calibration batch
    # which float models get a twin (the corner model only where the folder has one)
    models: tuple[str, ...] = (DETECTOR, SYMBOL, COLOR, CORNER)


def render_frames(n: int, seed: int, empty_every: int = 0) -> list[tuple[np.ndarray, list]]:
    """``n`` rendered 640×480 BGR frames (training styles) with their true card quads."""
    from vision.decks import all_decks
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scenes import render_scene

    rng = np.random.default_rng(seed)
    decks = all_decks()
    out = []
    for i in range(n):
        empty = empty_every > 0 and i % empty_every == empty_every - 1
        scene = render_scene(decks, rng, TRAIN_STYLES, empty=empty)
        out.append((np.ascontiguousarray(scene.image[..., ::-1]), [p.quad for p in scene.objects]))
    return out


def decode_tail(model) -> list[str]:
    """Names of the nodes that stay float: the last Ultralytics module's own ops (``/model.N/…``)
    except its convolution branches (``cv2.0``, ``cv3.1``, ``conv`` …)."""
    numbers = [
        int(m.group(1)) for n in model.graph.node if (m := re.match(r"/model\.(\d+)/", n.name))
    ]
    if not numbers:
        raise ValueError("not an Ultralytics export: no /model.N/ node names to find its head")
    head = f"/model.{max(numbers)}/"
    branch = re.compile(re.escape(head) + r"(cv\d|conv)[./]")
    return [
        n.name for n in model.graph.node if n.name.startswith(head) and not branch.match(n.name)
    ]


def fast_dfl(model) -> int:
    """Rewrite Ultralytics' DFL box decoding (Transpose → Softmax over axis 1 → 1×1 Conv) as
    Transpose → Softmax over the last axis → MatMul: the same numbers, but onnxruntime's
    softmax over a middle axis transposes twice and cost ≈ 12 % of the detector. Returns how
    many blocks were rewritten (0 for models without one, such as the classifiers)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    producer = {o: n for n in graph.node for o in n.output}
    consumers: dict[str, list] = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    inits = {i.name: i for i in graph.initializer}
    done = 0
    for soft in [n for n in graph.node if n.op_type == "Softmax"]:
        attrs = {a.name: helper.get_attribute_value(a) for a in soft.attribute}
        trans = producer.get(soft.input[0])
        users = consumers.get(soft.output[0], [])
        if trans is None or trans.op_type != "Transpose" or attrs.get("axis") != 1:
            continue
        perm = [helper.get_attribute_value(a) for a in trans.attribute if a.name == "perm"]
        if perm != [[0, 2, 1, 3]] or len(users) != 1 or users[0].op_type != "Conv":
            continue
        conv = users[0]
        if len(conv.input) != 2 or conv.input[1] not in inits:
            continue
        w = numpy_helper.to_array(inits[conv.input[1]])
        if w.ndim != 4 or w.shape[0] != 1 or w.shape[2:] != (1, 1):
            continue
        del trans.attribute[:]
        trans.attribute.append(helper.make_attribute("perm", [0, 1, 3, 2]))
        del soft.attribute[:]
        soft.attribute.append(helper.make_attribute("axis", -1))
        weight = numpy_helper.from_array(w.reshape(w.shape[1], 1), conv.input[1] + ".matmul")
        graph.initializer.append(weight)
        matmul = helper.make_node(
            "MatMul", [soft.output[0], weight.name], list(conv.output), name=conv.name + "_matmul"
        )
        index = list(graph.node).index(conv)
        graph.node.remove(conv)
        graph.node.insert(index, matmul)
        if all(conv.input[1] not in n.input for n in graph.node):
            graph.initializer.remove(inits[conv.input[1]])
        done += 1
    return done


def calibration_batches(
    reader: CardReader, frames: list[tuple[np.ndarray, list]], batch: int
) -> dict[str, list[np.ndarray]]:
    """Model inputs, as the runtime builds them, for each model the reader loaded."""
    from vision.runtime.rectify import quad_to_obb

    det_inputs, crops = [], []
    for frame, quads in frames:
        det_inputs.append(reader.detector_input(frame)[0])
        boxes = [quad_to_obb(q) for q in quads] + [tuple(o) for o in reader.detect(frame).obb]
        for c in reader.crops(frame, np.array(boxes, np.float32).reshape(-1, 5)):
            crops += [c, c[::-1, ::-1]]
    out = {DETECTOR: det_inputs}
    inputs = [(SYMBOL, reader.symbol, crops), (COLOR, reader.color, crops)]
    if reader.corner is not None:
        patches = [p for c in crops[::2] for p in corner_patches(c, reader.corner.imgsz)]
        inputs.append((CORNER, reader.corner, patches))
    for name, model, images in inputs:
        step = int(model.input_shape[0]) if model.fixed_batch else batch  # batch-1 exports
        out[name] = [
            reader.classifier_input(model, images[i : i + step])
            for i in range(0, len(images) - step + 1, step)
        ]
    return out


def quantize_model(src: Path, dst: Path, inputs: list[np.ndarray]) -> Path:
    """Write the int8 twin of ``src`` to ``dst``, calibrated on ``inputs``: into a temporary
    file beside it, renamed over ``dst`` once whole, so a run cut short (a full disk, a kill)
    leaves the last twin or none, never a truncated one. An ``OSError`` names ``dst``."""
    from vision.files import written_whole

    mode = stat.S_IMODE(src.stat().st_mode)  # mkstemp's 0600 would hide it from others
    try:
        with written_whole(dst, mode=mode) as part:
            _quantize_to(src, part, inputs)
    except OSError as exc:
        name = Path(exc.filename).name if isinstance(exc.filename, str) else None
        if name is not None and not name.startswith(f".{dst.name}-"):
            raise  # another file (the float model), named already
        # the twin's own temporary file, or no name at all (ENOSPC): say which file it was
        raise OSError(exc.errno, exc.strerror or str(exc), str(dst)) from exc
    return dst


def _quantize_to(src: Path, dst: Path, inputs: list[np.ndarray]) -> None:
    """``quantize_model``'s work, written straight to ``dst``."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    float_model = onnx.load(str(src))
    input_name = float_model.graph.input[0].name

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(inputs)

        def get_next(self) -> dict | None:
            x = next(self._it, None)
            return None if x is None else {input_name: x}

    with tempfile.TemporaryDirectory(prefix="tabletop-quant-") as tmp:
        fast, pre = Path(tmp) / "fast.onnx", Path(tmp) / "pre.onnx"
        rewritten = onnx.load(str(src))
        fast_dfl(rewritten)
        onnx.save(rewritten, str(fast))
        quant_pre_process(str(fast), str(pre))
        quantize_static(
            str(pre),
            str(dst),
            Feed(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=decode_tail(onnx.load(str(pre))),
        )
    q = onnx.load(str(dst))
    meta = {p.key: p.value for p in float_model.metadata_props}
    meta[SOURCE_HASH_KEY] = file_sha256(src)
    meta["quantization"] = "onnxruntime static QDQ, per-channel int8 weights (reduce_range)"
    del q.metadata_props[:]
    for k, v in meta.items():
        q.metadata_props.add(key=k, value=v)
    onnx.save(q, str(dst))


def agreement(float_reader: CardReader, int8_reader: CardReader, frames: list) -> dict:
    """How often the int8 reader says what the float one says, on the same frames."""
    from vision.runtime.geometry import probiou

    n_float = n_int8 = matched = same = 0
    for frame, _ in frames:
        a, b = float_reader(frame), int8_reader(frame)
        n_float, n_int8 = n_float + len(a), n_int8 + len(b)
        if len(a) == 0 or len(b) == 0:
            continue
        iou = probiou(a.obb, b.obb)
        for i in range(len(a)):
            j = int(iou[i].argmax())
            if iou[i, j] > 0.5:
                matched += 1
                same += (a.color[i], a.value[i]) == (b.color[j], b.value[j])
    return {
        "frames": len(frames),
        "cards_float": n_float,
        "cards_int8": n_int8,
        "matched_boxes": matched,
        "same_reading": same,
        "box_agreement": round(matched / n_float, 4) if n_float else None,
        "reading_agreement": round(same / matched, 4) if matched else None,
    }


def compare_on(dataset: Path, float_reader: CardReader, int8_reader: CardReader) -> dict:
    """``vision eval`` figures of both readers on one labelled dataset."""
    from vision.evaluate import evaluate

    out = {}
    for name, reader in (("float", float_reader), ("int8", int8_reader)):
        rep = evaluate(dataset, reader).to_dict()
        out[name] = {k: rep[k] for k in ("identity_accuracy", "mAP50", "face_recall")}
        out[name]["frames_with_false_card"] = rep["frames_with_false_card"]
    return out


def quantize_models(
    models_dir: str | Path,
    plan: QuantizePlan = QuantizePlan(),
    log: Callable[[str], None] = lambda _m: None,
    eval_sets: tuple[Path, ...] = (),
) -> dict:
    """Write ``card-*.int8.onnx`` beside the float models (those in ``plan.models``); returns
    the files and the float-vs-int8 agreement on fresh rendered frames. Each ``eval_sets``
    dataset is checked first, every label line of it (``DatasetError``): a bad one found
    after quantizing lost the run's report, the twins already replaced."""
    from vision.evaluate import open_dataset

    for dataset in eval_sets:
        open_dataset(Path(dataset), warn=log)
    d = Path(models_dir)
    float_cfg = ReaderConfig(int8=False, threads=1)
    reader = CardReader(d, config=float_cfg)
    log(f"rendering {plan.frames} calibration frames (seed {plan.seed})")
    frames = render_frames(plan.frames, plan.seed, plan.empty_every)
    batches = calibration_batches(reader, frames, plan.batch)
    names = [n for n in plan.models if n in batches]  # no corner model: no corner twin
    written = []
    for name in names:
        dst = quantize_model(d / name, int8_path(d / name), batches[name])
        log(f"wrote {dst} ({len(batches[name])} calibration batches)")
        written.append(str(dst))
    check = render_frames(plan.check_frames, CHECK_SEED, plan.empty_every)
    int8_reader = CardReader(d, config=ReaderConfig(int8=True, threads=1))
    used = {
        DETECTOR: int8_reader.detector,
        SYMBOL: int8_reader.symbol,
        COLOR: int8_reader.color,
        CORNER: int8_reader.corner,
    }
    if not all(used[name].int8 for name in names):
        raise RuntimeError("the runtime did not pick up the int8 models just written")
    report = {"files": written, "agreement": agreement(reader, int8_reader, check)}
    for dataset in eval_sets:
        log(f"evaluating float and int8 on {dataset}")
        report[f"eval {dataset}"] = compare_on(Path(dataset), reader, int8_reader)
    return report
