"""Every ruling in docs/RULINGS.md is named by a test, and every named ruling exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULING_HEADING = re.compile(r"^### ([A-Z]+-\d+) · ", re.M)
TEST_NAME = re.compile(r"def (test_\w*ruling_\w+)\(")
RULING_TAG = re.compile(r"ruling_([a-z]+)(\d+)")


def ruling_ids() -> list[str]:
    return RULING_HEADING.findall((ROOT / "docs" / "RULINGS.md").read_text(encoding="utf-8"))


def rulings_named_by_tests() -> dict[str, list[str]]:
    named: dict[str, list[str]] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        for name in TEST_NAME.findall(path.read_text(encoding="utf-8")):
            for prefix, number in RULING_TAG.findall(name):
                named.setdefault(f"{prefix.upper()}-{int(number)}", []).append(
                    f"{path.name}::{name}"
                )
    return named


def test_rulings_are_numbered_uniquely():
    ids = ruling_ids()
    assert len(ids) > 0
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_every_ruling_is_named_by_a_test():
    named = rulings_named_by_tests()
    missing = [rid for rid in ruling_ids() if rid not in named]
    assert missing == []


def test_every_test_names_an_existing_ruling():
    known = set(ruling_ids())
    unknown = {rid: tests for rid, tests in rulings_named_by_tests().items() if rid not in known}
    assert unknown == {}


def test_every_test_the_rulings_cite_exists():
    text = (ROOT / "docs" / "RULINGS.md").read_text(encoding="utf-8")
    defined = {
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M)
    }
    cited = set(re.findall(r"::(test_\w+)", text))
    assert sorted(cited - defined) == []


def test_every_ruling_quotes_the_rules_and_says_if_configurable():
    text = (ROOT / "docs" / "RULINGS.md").read_text(encoding="utf-8")
    entries = re.split(r"^### ", text, flags=re.M)[1:]
    for entry in entries:
        rid = entry.split(" ", 1)[0]
        assert "**Ruling:**" in entry, rid
        assert "**Configurable:**" in entry, rid
