"""The test server's own stop (``tests/serving.py``): a browser test that passed must not
fail while its server shuts down."""

from __future__ import annotations

import logging
import socket
import threading

import pytest
from flask import Flask

from tests.serving import ServedApp


def hello_app() -> Flask:
    app = Flask(__name__)
    app.add_url_rule("/", "hello", lambda: "hello")
    return app


def get(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read()


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def test_stop_closes_every_socket_in_the_loop_thread() -> None:
    served = ServedApp(hello_app())
    port = served.port
    assert get(served.url) == b"hello"
    served.stop()
    assert not served._loop.is_alive()
    assert served.server._map == {}
    assert refused(port)


def test_stop_ends_the_server_whose_trigger_waitress_already_closed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Day 30's fresh-clone CI: ``stop()`` pulled waitress's trigger to reach the loop thread
    and the pipe was already closed (``OSError: [Errno 9] Bad file descriptor``), failing a
    browser test whose checks had all passed. Here the trigger is closed as waitress closes
    it (in the loop thread); ``stop()`` still ends the loop and closes the rest, and says
    what it found."""
    served = ServedApp(hello_app())
    port = served.port
    closed = threading.Event()
    trigger = served.server.trigger
    trigger.pull_trigger(lambda: (trigger.close(), closed.set()))
    assert closed.wait(5)
    assert get(served.url) == b"hello"  # the server still serves without its trigger
    with caplog.at_level(logging.WARNING, logger="tests.serving"):
        served.stop()
    assert not served._loop.is_alive()
    assert served.server._map == {}
    assert refused(port)
    assert "closed its trigger before stop()" in caplog.text
