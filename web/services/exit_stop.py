"""The camera's threads end before Python finalizes.

Why: when Python 3.11 finalizes, a daemon thread still inside OpenCV or onnxruntime (their
bindings let go of the GIL around a frame read, an encode or an inference) is ended with
``pthread_exit`` as it takes the GIL back; that unwinds through a C++ destructor that may not
throw, and libstdc++ aborts the process ("terminate called without an active exception")
after a run that otherwise ended cleanly. ``atexit`` handlers run before that, while such a
thread can still finish its step: each registered stop runs there, the newest first (the
camera referee before the camera it reads), and joins its thread.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable

log = logging.getLogger(__name__)

_lock = threading.Lock()
_stops: list[weakref.WeakMethod[Callable[[], None]]] = []


def stop_at_exit(stop: Callable[[], None]) -> None:
    """Call the bound method ``stop`` (it ends its owner's thread and joins it) when the
    interpreter exits, unless its owner is gone by then. Registering it again is harmless."""
    with _lock:
        _stops[:] = [ref for ref in _stops if ref() is not None]
        if not any(ref() == stop for ref in _stops):
            _stops.append(weakref.WeakMethod(stop))  # type: ignore[arg-type]


def stop_all() -> None:
    """Run every registered stop that is still wanted, the newest first."""
    with _lock:
        stops = [ref() for ref in reversed(_stops)]
        _stops.clear()
    for stop in stops:
        if stop is None:
            continue
        try:
            stop()
        except Exception:  # one failing stop must not keep the others from running
            log.exception("a background thread could not be stopped at exit")


atexit.register(stop_all)
