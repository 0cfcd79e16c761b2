"""Ultralytics, kept offline, card-safe and reproducible: train, export (train-time only: imports
torch). Every training run and export in the project goes through here, so the offline
settings and the augmentations that would teach wrong things about cards are set once."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def yolo_model(cfg: str, threads: int):
    """A YOLO model from a ``.yaml`` (random init: no weight download) or a ``.pt``, with
    torch pinned to ``threads`` (Ultralytics resets it at each epoch)."""
    from ultralytics import YOLO

    model = YOLO(cfg)  # from .yaml: random init, no weight download
    cb = _threads_callback(threads)
    for event in ("on_pretrain_routine_start", "on_train_epoch_start", "on_val_start"):
        model.add_callback(event, cb)
    return model


DETECTOR_CFG = REPO / "models" / "cfg" / "card-obb-t.yaml"


def fit(
    model,
    data: Path,
    out: Path,
    name: str,
    *,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    **settings,
) -> Path:
    """Train ``model`` the one way every run here is hosted: seeded and deterministic, on the
    CPU, card-safe, no early stop, into ``out/name``. Returns its weights folder (where
    Ultralytics really wrote it: a relative ``out`` lands under runs/<task>/)."""
    model.train(
        data=str(data),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        deterministic=True,
        project=str(out),
        name=name,
        patience=epochs,
        **settings,
        **CARD_SAFE,
        **CPU_RUN,
    )
    return Path(model.trainer.save_dir) / "weights"


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
    weights = fit(
        yolo_model(model_cfg, threads),
        data_yaml,
        out,
        name,
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        degrees=0.0,
        scale=0.25,
        mosaic=1.0,
        close_mosaic=max(1, epochs // 6) if close_mosaic is None else close_mosaic,
        # nbs = batch: one optimizer step per batch. With the default nbs=64 and batch 16,
        # Ultralytics accumulates 4 batches: only 8 steps per epoch, and after 3 epochs the
        # detector still predicted nothing (measured, run 2).
        nbs=batch,
        verbose=True,
    )
    return weights / "best.pt"


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
    cos_lr: bool = False,
) -> Path:
    weights = fit(
        yolo_model(model_cfg, threads),
        root,
        out,
        name,
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        auto_augment=None,
        erasing=0.0,
        scale=0.1,
        hsv_s=0.3,
        hsv_v=0.3,
        verbose=True,
        # optimizer="auto" picks AdamW at lr 0.0003 for 30 classes: 8 % top-1 after 2 epochs
        # (measured, run 1); an explicit 0.003 with a 1-epoch warm-up learns in a few epochs.
        optimizer="AdamW",
        lr0=lr0,
        cos_lr=cos_lr,
        warmup_epochs=1,
    )
    return weights / "best.pt"


def interpolate_weights(before: Path, after: Path, alpha: float, dest: Path) -> Path:
    """``before + alpha × (after − before)``, tensor by tensor (weights and batch-norm
    statistics; integer counters are ``after``'s), saved as a checkpoint at ``dest``.

    Why: going on over more rendered tables trades held-out styles for the training styles
    (round 11); a point between a fine-tuned model and its starting point keeps much of the
    gain and the robustness both (WiSE-FT, Wortsman et al. 2022). ``after`` must continue
    from ``before`` (same architecture); ``dest`` keeps the rest of ``after``'s checkpoint.
    """
    setup_offline()  # unpickling a checkpoint imports Ultralytics
    import torch

    a = torch.load(before, map_location="cpu", weights_only=False)
    b = torch.load(after, map_location="cpu", weights_only=False)
    sa, sb = a["model"].state_dict(), b["model"].state_dict()
    if sa.keys() != sb.keys() or any(sa[k].shape != v.shape for k, v in sb.items()):
        raise ValueError(f"{before} and {after} are not the same architecture")
    mixed = {
        k: ((1 - alpha) * sa[k].float() + alpha * v.float()).to(v.dtype)
        if v.is_floating_point()
        else v
        for k, v in sb.items()
    }
    b["model"].load_state_dict(mixed)
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.save(b, dest)
    return dest


def install(src: Path, dest: Path) -> Path:
    """Copy ``src`` to ``dest`` whole or not at all (``vision.files``): a copy cut short (a
    full disk) leaves the old file, never a truncated one."""
    from vision.files import copy_whole

    return copy_whole(src, dest)


def export_onnx(weights: Path, imgsz: int | list[int], dest: Path) -> Path:
    """``weights`` as a batch-1 ONNX file at ``dest``; ``imgsz`` a side or [height, width]."""
    from ultralytics import YOLO

    onnx_path = Path(
        YOLO(str(weights)).export(
            format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=False
        )
    )
    if onnx_path.resolve() != dest.resolve():
        install(onnx_path, dest)
    return dest


MODEL_FILES = {  # .pt in models/ → (ONNX name, input size or None: as trained, is a classifier)
    "card-detector.pt": ("card-detector.onnx", None, False),
    "card-symbol.pt": ("card-symbol.onnx", None, True),
    "card-color.pt": ("card-color.onnx", 32, True),
    "card-corner.pt": ("card-corner.onnx", None, True),
}
# what Ultralytics raises for a file that is no checkpoint it can load (empty, truncated, not
# a pickle, a plain state dict, a model of another library)
CHECKPOINT_ERRORS = (
    TypeError,
    ValueError,
    RuntimeError,
    EOFError,
    AttributeError,
    KeyError,
    ModuleNotFoundError,
    pickle.UnpicklingError,
)


class WeightsMissing(FileNotFoundError):
    """A ``.pt`` to export is not in the models folder (only this is the user's to fix:
    any other missing file during an export is a fault and is not caught as this)."""


class ExportError(ValueError):
    """A ``.pt`` that cannot become the ONNX model its name says (no checkpoint Ultralytics
    can load, another kind of model) or a models folder the export cannot be written into
    (a full disk): the message names the file."""


def export_all(
    models_dir: Path,
    dynamic_classifiers: bool = True,
    detector_hw: tuple[int, int] | None = None,
) -> list[Path]:
    """Re-export the shipped .pt weights to ONNX (classifiers with a dynamic batch size so a
    frame's cards are read in one call; the detector at ``detector_hw``, (height, width), or
    the square it was trained at).

    Each is exported into a temporary folder in ``models_dir`` and checked there (onnxruntime
    loads it; it is the kind of model its name says, by the runtime's own check); only when
    all are is each renamed over its ONNX file. A failure (a full disk, a truncated .pt, a
    classifier saved as the detector) leaves the folder's ONNX files as they were."""
    setup_offline()
    from ultralytics import YOLO  # first: a missing training extra is named before anything

    for pt in MODEL_FILES:
        if not (models_dir / pt).is_file():
            raise WeightsMissing(
                f"{models_dir / pt} not found: train first (tabletop vision train)"
            )
    try:
        tmp = Path(tempfile.mkdtemp(dir=models_dir, prefix=".export-"))
    except OSError as exc:
        raise ExportError(f"cannot write in {models_dir}: {exc.strerror or exc}") from exc
    made: list[tuple[Path, Path]] = []
    try:
        for pt, (onnx_name, imgsz, is_cls) in MODEL_FILES.items():
            if not is_cls and detector_hw is not None:
                imgsz = list(detector_hw)
            dynamic = is_cls and dynamic_classifiers
            onnx = _export_checked(YOLO, models_dir / pt, tmp, imgsz, dynamic, is_cls)
            made.append((onnx, models_dir / onnx_name))
        for onnx, dest in made:
            os.replace(onnx, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [dest for _, dest in made]


def _unwritten(src: Path, exc: OSError) -> ExportError:
    """The export of ``src`` could not be written into its folder (a full disk)."""
    return ExportError(f"cannot export {src} into {src.parent}: {exc.strerror or exc}")


def _load_checkpoint(yolo: Callable[[str], Any], path: Path, src: Path) -> Any:
    """``yolo(path)``, or an ``ExportError`` naming ``src`` when it is no checkpoint Ultralytics
    can load. An OSError here is the file's too: torch reads a truncated checkpoint's zip
    as EINVAL ("Invalid argument"), which is no disk problem."""
    try:
        return yolo(str(path))
    except (*CHECKPOINT_ERRORS, OSError) as exc:
        raise ExportError(
            f"{src}: not a checkpoint Ultralytics can load (empty, truncated or of another format)"
        ) from exc


def _export_checked(
    yolo: Callable[[str], Any],
    src: Path,
    tmp: Path,
    imgsz: int | list[int] | None,
    dynamic: bool,
    is_cls: bool,
) -> Path:
    """``src`` exported to ONNX in ``tmp`` by ``yolo`` (Ultralytics' ``YOLO``; through a link
    to ``src`` there, as Ultralytics writes beside the .pt), once onnxruntime loads it as the
    kind of model ``is_cls`` says."""
    from vision.runtime.onnx_model import ModelError, OnnxModel

    try:
        try:
            os.link(src, tmp / src.name)
        except OSError:  # no hard links here (another file system): a copy
            shutil.copy(src, tmp / src.name)
    except OSError as exc:  # a full disk
        raise _unwritten(src, exc) from exc
    model = _load_checkpoint(yolo, tmp / src.name, src)
    try:
        out = Path(
            model.export(
                format="onnx",
                imgsz=imgsz or int(model.overrides.get("imgsz", 320)),
                opset=17,
                simplify=False,
                dynamic=dynamic,
            )
        )
    except OSError as exc:  # ENOSPC while torch writes the file names no file
        raise _unwritten(src, exc) from exc
    try:
        why = OnnxModel(out, threads=1).wrong_kind("classify" if is_cls else "obb")
    except ModelError as exc:
        raise ExportError(f"{src}: its export is not a model onnxruntime can load") from exc
    if why is not None:
        raise ExportError(f"{src}: {why}")
    return out
