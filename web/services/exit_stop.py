"""The camera's threads end before Python finalizes.

Why: when Python 3.11 finalizes, a daemon thread still inside OpenCV or onnxruntime (their
bindings let go of the GIL around a frame read, an encode or an inference) is ended with
``pthread_exit`` as it takes the GIL back; that unwinds through a C++ destructor that may not
throw, and libstdc++ aborts the process ("terminate called without an active exception")
after a run that otherwise ended cleanly. ``atexit`` handlers run before that, while such a
thread can still finish its step: each registered stop runs there and joins its thread,
those of frame readers (the camera referee) before those of the sources they read (the
camera: it would otherwise end under a referee still reading it), each kind newest first.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable

log = logging.getLogger(__name__)

_lock = threading.Lock()
# (reads frames, its stop) in the order registered
_stops: list[tuple[bool, weakref.WeakMethod[Callable[[], None]]]] = []


def stop_at_exit(stop: Callable[[], None], *, reads_frames: bool = False) -> None:
    """Call the bound method ``stop`` (it ends its owner's thread and joins it) when the
    interpreter exits, unless its owner is gone by then; ``reads_frames``: its owner reads
    another's frames, and is stopped before any source. Registering it again is harmless."""
    with _lock:
        _stops[:] = [(reads, ref) for reads, ref in _stops if ref() is not None]
        if not any(ref() == stop for _, ref in _stops):
            _stops.append((reads_frames, weakref.WeakMethod(stop)))  # type: ignore[arg-type]


def stop_all() -> None:
    """Run every registered stop that is still wanted: the frame readers', then the
    sources', each the newest first."""
    with _lock:
        newest_first = list(reversed(_stops))
        _stops.clear()
    stops = [ref() for reads, ref in newest_first if reads]
    stops += [ref() for reads, ref in newest_first if not reads]
    for stop in stops:
        if stop is None:
            continue
        try:
            stop()
        except Exception:  # one failing stop must not keep the others from running
            log.exception("a background thread could not be stopped at exit")


atexit.register(stop_all)
