"""The dashboard under a real waitress server in a daemon thread, for tests, and stopped so
that none of the server's threads dies with an error.

Closing waitress's sockets from the test thread (``server.close()``) races the server's own
loop thread: it may be polling those sockets (``select`` → EBADF) or a request thread may be
pulling the closed trigger (EINVAL). pytest reports an exception in any thread, and this
project's ``filterwarnings = error`` makes that a test error: a fresh-clone CI run on day 13
failed that way in a browser test that had passed hundreds of times. So every socket is closed
in the loop thread.

Day 30's CI failed once more in ``stop()``, which then asked the loop thread to close them by
pulling waitress's trigger (a pipe): the pipe was already closed (EBADF on the write) and
nothing had logged why. The loop here is therefore waitress's own (``wasyncore.loop``, the
same poll) with a stop flag that it reads between polls of at most ``POLL_S``; ``stop()`` sets
the flag and pulls the trigger only to end the current poll sooner, and only while the
trigger is open.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

POLL_S = 0.1
"""The longest poll between two looks at the stop flag (waitress polls for 1 s)."""


class ServedApp:
    """A WSGI app served on 127.0.0.1 at a free port until ``stop()`` (or the ``with`` block
    ends)."""

    def __init__(self, app: Any, threads: int = 6) -> None:
        import waitress

        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        self._stopping = threading.Event()
        self._loop = threading.Thread(target=self._serve, name="waitress-loop", daemon=True)
        self._loop.start()

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        """waitress's ``server.run()``, which also ends when ``stop()`` asks, and then closes
        every socket here, in the thread that polls them."""
        from waitress import wasyncore

        sockets = self.server._map
        poll = wasyncore.poll2 if self.server.adj.asyncore_use_poll else wasyncore.poll
        while sockets and not self._stopping.is_set():
            poll(POLL_S, sockets)
        wasyncore.close_all(sockets)

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the requests in flight, have the loop thread close every socket, join it."""
        server = self.server
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout / 2)
        self._stopping.set()
        self._wake()
        self._loop.join(timeout)
        if self._loop.is_alive():
            raise RuntimeError(f"waitress's loop thread did not end within {timeout} s")

    def _wake(self) -> None:
        """End the loop's current poll now rather than within ``POLL_S``. A trigger that
        waitress has closed is left alone: its file descriptor may already name another
        file."""
        trigger = self.server.trigger
        if getattr(trigger, "_closed", False):
            log.warning("waitress had closed its trigger before stop(): %r", trigger)
            return
        try:
            trigger.pull_trigger()
        except OSError as error:  # closed under waitress (day 30's CI): the poll ends anyway
            log.warning("waitress's trigger could not be pulled at stop(): %s", error)

    def __enter__(self) -> ServedApp:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
