"""Read a JSON-lines file (an event log, a pad log): one JSON value per line, blank lines and
``#`` comments skipped, a leading UTF-8 BOM too, every problem named with its file and line.

The two log readers share this so that a binary file, a bad line or a comment reads the same
way in both; each passes its own error type, so its callers keep catching what they caught.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def json_lines(path: Path, error: type[Exception]) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` per JSON line, ``where`` being ``path:line`` for messages. Raises
    ``error`` for a file that is not UTF-8 text and for a line that is not JSON (or nested too
    deeply to parse); ``OSError`` (no such file, a folder) is the caller's to word."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Windows Notepad) is no line
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (a log is UTF-8 JSON lines)") from None
    for lineno, line in enumerate(text.split("\n"), start=1):  # as a file iterates: \n only
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{path}:{lineno}"
        try:
            yield where, json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not JSON ({exc.msg})") from None
        except RecursionError:  # thousands of [ or {: garbage, and no log nests so deep
            raise error(f"{where}: nested too deeply to be a log line") from None
