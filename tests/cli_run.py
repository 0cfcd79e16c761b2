"""Running ``tabletop`` in-process in a test: exit code, stdout and stderr."""

from __future__ import annotations

import pytest

from referee.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``tabletop ARGV`` (argparse's refusals included); a
    traceback on stderr fails the test, whatever the exit code."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err
