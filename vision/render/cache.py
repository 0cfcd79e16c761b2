"""Rendered training data that knows what it holds.

A training stage renders tables into a folder once and reuses the folder on the next run.
Folders are named by position (``crops96-fresh-15``), and a later plan may want other tables
under the same name: another seed or count, another worker, other render switches. Until
round 11 an empty ``done`` file was trusted by name alone, so a changed plan could train on
the old tables without a word (round 10 had to move such chunks aside by hand). Now the
marker records the folder's *recipe*, and a folder whose marker holds another recipe, or
none (older code's empty marker), is rendered again. Facts that may change without making
the folder stale, such as which detector cut the crops (a later union deliberately keeps
chunks cut by older detectors), are kept in the marker as provenance and never compared.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from vision.render.switches import active

MARKER = "done"


def recipe(**fields: Any) -> dict[str, Any]:
    """What a folder is rendered from: the given fields and the render switches on here."""
    return {**fields, "switches": sorted(active())}


def _normal(value: dict[str, Any]) -> dict[str, Any]:
    """The recipe as JSON gives it back (tuples become lists, paths strings)."""
    return json.loads(json.dumps(value, default=str))


def marker(folder: Path) -> dict[str, Any] | None:
    """The folder's marker, or None when it is missing, empty or unreadable."""
    try:
        data = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_done(folder: Path, wanted: dict[str, Any]) -> bool:
    """Whether ``folder`` was completely rendered from ``wanted``."""
    got = marker(folder)
    return got is not None and got.get("recipe") == _normal(wanted)


def begin(folder: Path, wanted: dict[str, Any]) -> bool:
    """True when ``folder`` must be rendered; it is then emptied first."""
    if is_done(folder, wanted):
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def finish(folder: Path, wanted: dict[str, Any], **provenance: Any) -> None:
    """Mark ``folder`` complete, rendered from ``wanted``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {"recipe": _normal(wanted), "provenance": _normal(provenance)}
    (folder / MARKER).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def file_digest(path: Path) -> str | None:
    """A model file's SHA-256 (provenance: which detector cut a chunk), None if absent."""
    from vision.runtime.onnx_model import file_sha256

    return file_sha256(path) if path.is_file() else None
