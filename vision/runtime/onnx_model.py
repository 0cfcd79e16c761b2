"""A thin onnxruntime session wrapper that reads Ultralytics' metadata (class names, imgsz),
and the rule for preferring a model's int8 twin (``card-x.int8.onnx``) when it is current."""

from __future__ import annotations

import ast
import hashlib
import logging
from pathlib import Path
from types import ModuleType

import numpy as np

INT8_SUFFIX = ".int8.onnx"
SOURCE_HASH_KEY = "quantized_from_sha256"  # metadata of an int8 model: its float source's hash
# each kind of model (Ultralytics' ``task``) and its output's rank: the OBB detector's
# (1, 4 + classes + 1, anchors), a classifier's (batch, classes)
KINDS = {"obb": ("an oriented-box detector", 3), "classify": ("a classifier", 2)}

log = logging.getLogger(__name__)


def int8_path(float_path: str | Path) -> Path:
    """``card-x.onnx`` → ``card-x.int8.onnx`` (same folder)."""
    p = Path(float_path)
    return p.with_name(p.name.removesuffix(".onnx") + INT8_SUFFIX)


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class ModelError(Exception):
    """A model file is missing or is not an ONNX model onnxruntime can load, or onnxruntime
    itself cannot be loaded: the message names the file (or the runtime), so a command can
    say so instead of printing onnxruntime's traceback."""


# how to mend an onnxruntime that cannot be imported: ``make run`` would not touch it (its
# stamp says the runtime is installed, and pip sees the package there)
REINSTALL_ORT = (
    "reinstall it: .venv/bin/pip install --force-reinstall -c models/constraints.txt onnxruntime"
)


def load_onnxruntime() -> ModuleType:
    """The onnxruntime module, or a ``ModelError`` in one line: a broken install (its shared
    library missing, a wheel for another machine) is no bug to show as a traceback."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelError(f"onnxruntime cannot be loaded ({exc}): {REINSTALL_ORT}") from exc
    return ort


class OnnxModel:
    def __init__(self, path: str | Path, threads: int = 2) -> None:
        ort = load_onnxruntime()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        # no busy-waiting between ops: on a shared (or Pi) CPU spinning threads burn a core
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(
                f"{self.path}: no such model file (tabletop vision export writes them)"
            )
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own types (InvalidProtobuf, Fail, …)
            raise ModelError(f"{self.path}: not a model onnxruntime can load ({exc})") from exc
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.input_shape = inp.shape  # e.g. [1, 3, 320, 320] or ['batch', 3, 64, 64]
        self.metadata: dict[str, str] = dict(self.session.get_modelmeta().custom_metadata_map)
        meta = self.metadata
        self.names: dict[int, str] = (
            {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}
            if "names" in meta
            else {}
        )
        self.task = meta.get("task", "")
        hw = self.input_shape[2:4]
        if not all(isinstance(d, int) for d in hw):  # a dynamic export: Ultralytics' metadata
            size = ast.literal_eval(meta["imgsz"])
            hw = [size, size] if isinstance(size, int) else size
        # (height, width): the shipped detector runs at the camera's 4:3 shape, (384, 512)
        self.input_hw: tuple[int, int] = (int(hw[0]), int(hw[-1]))
        self.imgsz = self.input_hw[0]  # the side of a square (classifier) input
        self.fixed_batch = isinstance(self.input_shape[0], int)

    def require_task(self, task: str) -> None:
        """Refuse a model of another kind under this name (a classifier saved as the
        detector): it loads, then fails deep in decoding with an IndexError."""
        why = self.wrong_kind(task)
        if why is not None:
            raise ModelError(f"{self.path}: {why}")

    def wrong_kind(self, task: str) -> str | None:
        """Why this is not a ``task`` model (``obb``, ``classify``), or None: its ``task``
        metadata, where it has one, and its output's rank must both fit."""
        rank = len(self.session.get_outputs()[0].shape)
        kind, want = KINDS[task]
        if (self.task or task) == task and rank == want:
            return None
        return (
            f"must be {kind} (task {task!r}, {want}-D output), is task"
            f" {self.task or 'unrecorded'!r} with a {rank}-D output: another model saved"
            " under this name?"
        )

    @property
    def int8(self) -> bool:
        return SOURCE_HASH_KEY in self.metadata

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if self.fixed_batch and len(batch) != self.input_shape[0]:
            return np.concatenate([self(batch[i : i + 1]) for i in range(len(batch))])
        return self.session.run(None, {self.input_name: batch})[0]


def load_model(
    float_path: str | Path, threads: int, prefer_int8: bool, task: str | None = None
) -> OnnxModel:
    """The int8 twin of ``float_path`` when asked for, present, loadable and made from *this*
    float file (its recorded source hash matches), else the float model. A retrained or
    fine-tuned float model therefore never runs with a stale int8 twin (re-run ``tabletop
    vision quantize``), and a broken twin only costs a warning.
    With ``task`` (``obb``, ``classify``), a model of another kind is a ``ModelError``."""
    model = _current_model(float_path, threads, prefer_int8)
    if task is not None:
        model.require_task(task)
    return model


def _current_model(float_path: str | Path, threads: int, prefer_int8: bool) -> OnnxModel:
    load_onnxruntime()  # first: a broken runtime is not a broken int8 twin to warn about and skip
    twin = int8_path(float_path)
    if prefer_int8 and twin.is_file() and Path(float_path).is_file():
        try:
            model = OnnxModel(twin, threads)
        except ModelError as exc:  # cut short (a quantize killed, a full disk): float still works
            log.warning(
                "%s: ignored, reading with %s (re-run tabletop vision quantize)", exc, float_path
            )
        else:
            if model.metadata.get(SOURCE_HASH_KEY) == file_sha256(float_path):
                return model
    return OnnxModel(float_path, threads)
