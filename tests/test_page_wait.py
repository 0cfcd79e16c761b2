"""The browser tests wait through ``tests.page_wait``, never Playwright's ``wait_for_function``.

Our pages' CSP forbids ``eval``, which ``wait_for_function`` uses while it polls: a test that
called it failed in CI whenever its condition was not already true (stop 40).
"""

from pathlib import Path

from tests.page_wait import wait_until


class _SlowPage:
    """Stands in for a Playwright page whose condition turns true on the third look."""

    def __init__(self) -> None:
        self.looks = 0

    def evaluate(self, expression: str) -> bool:
        self.looks += 1
        return self.looks >= 3

    def wait_for_timeout(self, ms: float) -> None:
        pass


def test_wait_until_polls_until_the_condition_holds_and_times_out_with_the_expression():
    page = _SlowPage()
    wait_until(page, "window.ready")
    assert page.looks == 3

    class Never(_SlowPage):
        def evaluate(self, expression: str) -> bool:
            return False

    try:
        wait_until(Never(), "window.never", timeout=0.05)
    except AssertionError as error:
        assert "window.never" in str(error)
    else:
        raise AssertionError("wait_until returned on a condition that never held")


def test_no_browser_test_calls_wait_for_function():
    here = Path(__file__).parent
    callers = [
        p.name
        for p in here.glob("*.py")
        if p.name != Path(__file__).name and ".wait_for_function(" in p.read_text()
    ]
    assert callers == []
