"""Argument types for ``tabletop …`` options that have a valid range.

argparse rejects a value outside it with a usage line and exit 2 before anything loads, so a
typo (``--threads 0``, ``--conf 7``, ``--port 99999``) never reaches a model, a pin or a socket
as a number that makes no sense there.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _number(kind: type, text: str) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
    if kind is float and not math.isfinite(value):  # NaN passes every comparison below, and
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")  # sleep(inf) fails
    return value


def ranged(
    kind: type, low: float | None = None, high: float | None = None, *, above: bool = False
) -> Callable[[str], int | float]:
    """An argparse ``type``: ``kind`` (int or float) at least ``low`` (more than ``low`` when
    ``above``) and at most ``high``."""

    def parse(text: str) -> int | float:
        value = _number(kind, text)
        if low is not None and (value <= low if above else value < low):
            bound = f"more than {low:g}" if above else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"{text} is too small: give {bound}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} is too large: give at most {high:g}")
        return value

    return parse


# vision.runtime.card_scale.ENLARGE (5/3: tiles overlap by a fifth), as a user writes it
MAX_CARD_SCALE = round(5 / 3, 3)
CARD_SCALE_HELP = (
    "how the camera's frames are scaled before finding cards (VIS-11): below 1 shrunk, for a"
    " camera so low that cards look larger than the models learnt; above 1 (at most 1.667)"
    " enlarged on four tiles, for a camera so high that they look smaller; auto (default)"
    " measures it from the first cards, and again when they change size (a camera moved)"
)


def card_scale(text: str) -> float | None:
    """``--card-scale``: ``auto`` (None: the camera measures it) or a scale in (0, 5/3]."""
    if text.strip().lower() == "auto":
        return None
    return float(ranged(float, 0, MAX_CARD_SCALE, above=True)(text))


def nonempty_path(text: str) -> str:
    """A file or folder option: ``""`` (an unset shell variable, ``-o ""``) is a slip, not the
    default that leaving the option out gives; refused rather than quietly read as the default
    (or as ``.``)."""
    if not text:
        raise argparse.ArgumentTypeError("is empty: name a path, or leave the option out")
    return text


positive_int = ranged(int, 1)
non_negative_int = ranged(int, 0)
positive_float = ranged(float, 0, above=True)
fraction = ranged(float, 0, 1)  # a probability or confidence threshold
port = ranged(int, 1, 65535)
# A thread count past any machine's cores hangs the command while it starts them (measured:
# ``vision identify --threads 99999999``); a server's threads are cheap but not free.
MAX_THREADS = 256
MAX_SERVER_THREADS = 1024
thread_count = ranged(int, 1, MAX_THREADS)
server_threads = ranged(int, 1, MAX_SERVER_THREADS)
# Bounce pairs per scripted press: a real contact bounces a few times in a 0-100 ms debounce
# window; 10**8 wrote 244 MB a minute and never ended
MAX_BOUNCES = 1000
bounce_pairs = ranged(int, 0, MAX_BOUNCES)
# How long a command may wait or record (``hw record --seconds``, ``hw test --timeout``): a
# week is past any game night; 1e20 s reached time.sleep as an OverflowError traceback.
MAX_SECONDS = 7 * 24 * 3600
seconds = ranged(float, 0, MAX_SECONDS, above=True)
# ``hw replay --speed``: a pace factor from a hundredth (a 1 s gap waits 100 s) to a thousand
# times as recorded; 1e-300 made the pacing's wait an OverflowError traceback.
MIN_SPEED, MAX_SPEED = 0.01, 1000.0
replay_speed = ranged(float, MIN_SPEED, MAX_SPEED)
