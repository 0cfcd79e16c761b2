"""Keep lgpio's notification FIFO out of the current directory.

Importing the ``lgpio`` Python module creates a FIFO named ``.lgd-nfy<N>`` in the current
working directory. Under systemd the working directory is ``/`` (not writable by a normal
user), so the import fails, gpiozero quietly falls back to another pin factory (with a
``PinFactoryFallback`` warning) and on a Pi 5 the fallback cannot drive the RP1 GPIOs. Run
from a checkout, it litters the repository. lgpio's ``LG_WD`` variable moves the FIFO but
also changes the whole program's working directory. So: import lgpio once from a private
runtime directory and restore the working directory straight after.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from pathlib import Path


def runtime_dir() -> Path:
    """$LG_WD if set, else $XDG_RUNTIME_DIR/tabletop, else a per-user temp directory."""
    if os.environ.get("LG_WD"):
        return Path(os.environ["LG_WD"])
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.access(base, os.W_OK):
        return Path(base) / "tabletop"
    return Path(tempfile.gettempdir()) / f"tabletop-{os.getuid()}"


def import_lgpio() -> bool:
    """Import lgpio with its FIFO in ``runtime_dir()``; False when lgpio is not installed."""
    if "lgpio" in sys.modules:
        return True
    where = runtime_dir()
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    before = os.getcwd()
    try:
        os.chdir(where)
        importlib.import_module("lgpio")
    except ImportError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.chdir(before)
    return True
