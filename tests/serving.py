"""The dashboard under a real waitress server in a daemon thread, for tests, and stopped so
that none of the server's threads dies with an error.

Closing waitress's sockets from the test thread (``server.close()``) races the server's own
loop thread: it may be polling those sockets (``select`` → EBADF) or a request thread may be
pulling the closed trigger (EINVAL). pytest reports an exception in any thread, and this
project's ``filterwarnings = error`` makes that a test error: a fresh-clone CI run on day 13
failed that way in a browser test that had passed hundreds of times. ``stop()`` lets the
request threads finish, then closes every channel from inside the loop thread (a trigger
thunk, waitress's own way to run code there) and waits for the loop to end.
"""

from __future__ import annotations

import threading
from typing import Any


class ServedApp:
    """A WSGI app served on 127.0.0.1 at a free port until ``stop()`` (or the ``with`` block
    ends)."""

    def __init__(self, app: Any, threads: int = 6) -> None:
        import waitress

        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        self._loop = threading.Thread(target=self.server.run, daemon=True)
        self._loop.start()

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the requests in flight, close every socket in the loop thread, join it."""
        from waitress import wasyncore

        server = self.server
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout / 2)
        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        self._loop.join(timeout)
        if self._loop.is_alive():
            raise RuntimeError(f"waitress's loop thread did not end within {timeout} s")

    def __enter__(self) -> ServedApp:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
