"""The rulings a game's options name ("HTD-16"), read from ``docs/RULINGS.md``, so a family
can read on the tablet what an option changes instead of a tag leading nowhere."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

RULINGS_FILE = Path(__file__).resolve().parents[2] / "docs" / "RULINGS.md"
_HEADING = re.compile(r"^### ([A-Z]+-\d+) · (.+)$")


@dataclass(frozen=True)
class Ruling:
    id: str
    title: str
    text: str  # the entry as written: the rule quoted, the ruling, configurable, tests


@cache
def rulings(path: Path = RULINGS_FILE) -> dict[str, Ruling]:
    """Every ``### ID · title`` entry of the rulings file (empty when it is not installed)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    found: dict[str, Ruling] = {}
    current: tuple[str, str] | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            found[current[0]] = Ruling(current[0], current[1], "\n".join(body).strip())

    for line in lines:
        heading = _HEADING.match(line)
        if heading or line.startswith("## "):
            close()
            current, body = (heading.group(1), heading.group(2)) if heading else None, []
        elif current is not None:
            body.append(line)
    close()
    return found


def paragraphs(ruling: Ruling) -> list[tuple[str, str]]:
    """(kind, text) for the page: "quote" for the rule quoted, "text" for the rest; the list
    of tests is left out (it is for developers)."""
    out: list[tuple[str, str]] = []
    for block in re.split(r"\n\s*\n", ruling.text):
        text = " ".join(line.strip() for line in block.splitlines() if line.strip())
        text = re.sub(r"\s*\*\*Tests?:\*\*.*$", "", text).replace("**", "").replace("`", "")
        if not text:
            continue
        if text.startswith(">"):
            out.append(("quote", text.lstrip("> ").replace(" > ", " ")))
        else:
            out.append(("text", text))
    return out
