"""Checks ``tabletop vision teach`` makes before any training, so that a family learns of a bad
``--out`` or ``--check`` folder at once, not after minutes of fine-tuning."""

from __future__ import annotations

import os
from pathlib import Path

from vision.decks import DeckProfile
from vision.images import imread
from vision.teach.capture import photo_problems
from vision.teach.finetune import DATA_FILES, DATA_MARK, MODELS, model_folders, refuse_foreign
from vision.teach.guide import TeachError, read_folder
from vision.yolo import CONFIG_DIR

PHOTOS = "photos"  # OUT/photos: a live capture's photos, named by the guide
WEIGHTS = ("card-symbol.pt", "card-color.pt")  # what the fine-tune starts from


def _writable(folder: Path) -> Path | None:
    """``folder``'s nearest existing ancestor (itself included) if teach cannot write in it."""
    while not folder.exists():
        folder = folder.parent
    ok = folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)
    return None if ok else folder


def check_out(
    out: Path, models_dir: Path = MODELS, config_dir: Path = CONFIG_DIR, live: bool = False
) -> None:
    """``out`` can be written, and its ``data``/``model`` folders (``model.partial`` and
    ``model.old`` too) are teach's own or absent; the shipped weights the fine-tune starts
    from are there, and so is a writable folder for Ultralytics' settings. ``live`` (a camera
    capture): ``OUT/photos``, where its photos are kept, holds none yet."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise TeachError(f"--out {out}: is a file, not a folder")
    refuse_foreign(out / "data", DATA_FILES, DATA_MARK)
    model_folders(out / "model")  # OUT/model, and its .partial and .old: teach's or absent
    stuck = _writable(out)
    if stuck is not None:
        raise TeachError(f"--out {out}: cannot write in {stuck}")
    photos = out / PHOTOS
    if live and photos.exists() and (not photos.is_dir() or any(photos.iterdir())):
        raise TeachError(
            f"--out {out}: {photos} already holds photos: teach from them with --photos"
            f" {photos}, or move them away to capture again"
        )
    for name in WEIGHTS:
        if not (Path(models_dir) / name).is_file():
            raise TeachError(
                f"{Path(models_dir) / name}: not found: teach fine-tunes the shipped weights"
                f" ({', '.join(WEIGHTS)}): teach on a computer with the full models folder,"
                " then copy OUT/model over and use it with --models"
            )
    stuck = _writable(Path(config_dir) / "Ultralytics")
    if stuck is not None:
        raise TeachError(
            f"{stuck}: cannot write there, and the fine-tune keeps Ultralytics' settings in"
            f" {config_dir}: make it writable, or run teach as the user who installed tabletop"
        )


def check_photos(folder: Path, deck: DeckProfile, zone) -> None:
    """A ``--check`` folder reads as a ``--photos`` folder must: every photo named, readable,
    with one card found in the zone (TeachError naming each bad photo)."""
    try:
        empty_path, pairs = read_folder(Path(folder), deck)
    except (FileNotFoundError, ValueError) as exc:
        raise TeachError(f"--check {exc}") from None
    photos = [(p, imread(p)) for p, _ in pairs]
    problems = photo_problems(empty_path, imread(empty_path), photos, zone, deck.aspect)
    if problems:
        raise TeachError("--check: " + "; ".join(problems))
