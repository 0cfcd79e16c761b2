"""Read a JSON-lines file (an event log, a pad log): one JSON value per line, blank lines and
``#`` comments skipped, a leading UTF-8 BOM too, every problem named with its file and line.

The two log readers share this so that a binary file, a bad line or a comment reads the same
way in both; each passes its own error type, so its callers keep catching what they caught.

It also holds what every reader of JSON a person may have written shares: ``loads``, which
refuses a key given twice, and ``shown``, which puts a bad value in a message, shortened.
This module imports nothing of the project's, so every other one may use them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# how much of a bad value a message repeats: enough to find it, not a 10 MB line echoed whole
SHOWN_MAX = 40
# how many names (unknown fields) a message lists before "and N more"
SHOWN_NAMES = 5


class DuplicateKeyError(ValueError):
    """A JSON object gives one key twice. ``json.loads`` keeps the last value without a word,
    so a copy-paste slip (``"card": "RSKIP", "card": "R9"``) would change a game unseen."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {shown(key)} given twice")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object as a dict, or DuplicateKeyError
    naming a key given twice. The parser calls it for every object, at every depth."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses a key given twice (DuplicateKeyError, a ValueError)."""
    return json.loads(text, object_pairs_hook=unique_keys)


def shown(value: Any) -> str:
    """A bad value for a one-line message: its ``repr``, cut to ``SHOWN_MAX`` characters with
    "..." when longer (as the event log's ``_shown`` does)."""
    try:
        text = repr(value)
    except ValueError:  # a whole number past Python's 4 300 digits, alone or in a list
        return f"a {type(value).__name__} holding a number too long to show"
    return clipped(text)


def clipped(text: str) -> str:
    """``text`` cut to ``SHOWN_MAX`` characters, "..." marking the cut."""
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 3] + "..."


def shown_names(names: list[str]) -> str:
    """Names a person sent (unknown fields), comma-separated: each as written when short and
    printable, else ``shown``; at most ``SHOWN_NAMES`` of them, then how many more."""
    parts = [n if len(n) <= SHOWN_MAX and n.isprintable() else shown(n) for n in names]
    listed = ", ".join(parts[:SHOWN_NAMES])
    more = len(parts) - SHOWN_NAMES
    return f"{listed} and {more} more" if more > 0 else listed


def json_lines(path: Path, error: type[Exception]) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` per JSON line, ``where`` being ``path:line`` for messages. Raises
    ``error`` for a file that is not UTF-8 text and for a line that is not JSON (or nested too
    deeply to parse, or holding a number too long to read, or giving a key twice); ``OSError``
    (no such file, a folder) is the caller's to word."""
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
            yield where, loads(stripped)
        except DuplicateKeyError as exc:
            raise error(f"{where}: {exc}") from None
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
