"""Checks ``tabletop vision teach`` makes before any training, so that a family learns of a bad
``--out`` or ``--check`` folder at once, not after minutes of fine-tuning."""

from __future__ import annotations

import os
from pathlib import Path

from vision.decks import DeckProfile
from vision.images import imread
from vision.teach.capture import photo_problems
from vision.teach.finetune import DATA_FILES, DATA_MARK, MODEL_FILES, MODEL_MARK, refuse_foreign
from vision.teach.guide import TeachError, read_folder


def check_out(out: Path) -> None:
    """``out`` can be written, and its ``data``/``model`` folders are teach's own or absent."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise TeachError(f"--out {out}: is a file, not a folder")
    refuse_foreign(out / "data", DATA_FILES, DATA_MARK)
    refuse_foreign(out / "model", MODEL_FILES, MODEL_MARK)
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise TeachError(f"--out {out}: cannot write in {parent}")


def check_photos(folder: Path, deck: DeckProfile, zone) -> None:
    """A ``--check`` folder reads as a ``--photos`` folder must: every photo named, readable,
    with one card found in the zone (TeachError naming each bad photo)."""
    try:
        empty_path, pairs = read_folder(Path(folder), deck)
    except (FileNotFoundError, ValueError) as exc:
        raise TeachError(f"--check {exc}") from None
    photos = [(p, imread(p)) for p, _ in pairs]
    problems = photo_problems(empty_path, imread(empty_path), photos, zone)
    if problems:
        raise TeachError("--check: " + "; ".join(problems))
