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
    deeply to parse, or holding a number too long to read); ``OSError`` (no such file, a
    folder) is the caller's to word."""
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
        except ValueError as exc:  # an integer past Python's 4300 digits: no JSONDecodeError
            raise error(f"{where}: not JSON ({json_problem(exc)})") from None


def json_problem(exc: ValueError) -> str:
    """What ``json.loads`` said, in a few words: a ``JSONDecodeError``'s message, or the
    first clause of another ``ValueError`` (an integer of more than 4300 digits, which Python
    refuses to convert: "Exceeds the limit (4300 digits) for integer string conversion: value
    has 5000 digits"), without its advice to developers."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    return str(exc).split(";")[0].strip() or type(exc).__name__
