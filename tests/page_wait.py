"""Wait in a browser page for a JavaScript condition without Playwright's ``wait_for_function``.

Why: ``wait_for_function`` evaluates its predicate with ``eval`` inside the page while it polls,
and our pages' Content-Security-Policy (``script-src 'self'``) forbids ``eval``, so the wait
failed whenever the condition was not already true (CI, stop 40). ``page.evaluate`` goes over
the DevTools protocol and is not bound by the page's CSP, so polling it here is safe.
"""

from __future__ import annotations

import time
from typing import Any


def wait_until(page: Any, expression: str, timeout: float = 10.0) -> None:
    """Poll ``expression`` (a JavaScript expression) in ``page`` until it is truthy."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"never became true in {timeout:g} s: {expression}")
        page.wait_for_timeout(50)
