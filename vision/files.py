"""Files written whole or not at all.

A calibration, a model or its int8 twin is written into a temporary file beside its
destination and renamed over it only once whole: a write cut short (a full card, a pulled
plug, an exception) leaves the old file, never half a new one. Every writer of such a file
goes through ``written_whole``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

# the mode a file gets from open() under the usual umask; mkstemp's 0600 would hide a
# calibration or a model from another user (the service account, a backup)
PLAIN_MODE = 0o644


@contextlib.contextmanager
def written_whole(dest: Path, *, sync: bool = False, mode: int | None = None) -> Iterator[Path]:
    """A fresh temporary path beside ``dest`` to write; renamed over ``dest`` when the block
    ends without an exception, removed otherwise. ``sync``: flushed to the card first, so that
    what a caller then reports as saved survives a power cut. The file gets ``mode``, else
    keeps ``dest``'s when it exists, else ``PLAIN_MODE``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}-")
    os.close(fd)
    part = Path(name)
    try:
        yield part
        if mode is None:
            mode = stat.S_IMODE(dest.stat().st_mode) if dest.exists() else PLAIN_MODE
        os.chmod(part, mode)
        if sync:
            with part.open("rb") as fh:
                os.fsync(fh.fileno())
        os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)


def copy_whole(src: Path, dest: Path) -> Path:
    """``src`` copied to ``dest`` through ``written_whole`` (with ``src``'s mode)."""
    with written_whole(dest, mode=stat.S_IMODE(src.stat().st_mode)) as part:
        shutil.copyfile(src, part)
    return dest
