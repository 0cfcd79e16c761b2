"""A fresh-eyes pass over every ``tabletop`` command: what a tired parent or a careless script
does (a file that is there already, a number past any game, a file nested thousands deep, a
binary file named as a deck, Ctrl-C while the command starts, another program's database).

Each case ends in one line on stderr and a non-zero exit, never a traceback, and no file of
the user's is written over. ``tests/test_cli_bad_input.py`` covers the first mistakes of each
command; these are the ones it did not. ``serve`` runs as a real process.
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import referee.cli
from referee.cli import main
from referee.eventlog import EventLog
from vision.table.zones import TableLayout, ZoneKind, rectangle

DEEP = "[" * 100_000 + "]" * 100_000  # valid JSON, nested past Python's recursion limit
HEADER = '{"game": "deck-dash", "players": ["Ann", "Bob"]}'


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and stderr of ``tabletop ARGV`` (argparse's refusals included)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A dashboard database holding game 1."""
    path = tmp_path / "tabletop.db"
    log = EventLog(path)
    log.create_game("deck-dash", ["Ann", "Bob"])
    log.close()
    return path


# -- nothing of the user's is written over ----------------------------------------------------
def test_ruling_cli1_log_never_writes_over_an_existing_file(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI-1: ``log -o`` refuses a file that exists, as ``backup -o`` does (neither has a flag
    to force it): before, it wrote the game over it without a word, even over the database."""
    kept = tmp_path / "kept.jsonl"
    kept.write_text("last week's game\n")
    code, err = run(["log", "1", "--db", str(db), "-o", str(kept)], capsys)
    assert code == 2
    assert one_line(err) == f"tabletop log: {kept} exists already: name another file"
    assert kept.read_text() == "last week's game\n"

    before = db.read_bytes()
    code, err = run(["log", "1", "--db", str(db), "-o", str(db)], capsys)  # a slip of the -o
    assert code == 2 and "exists already" in one_line(err)
    assert db.read_bytes() == before

    new = tmp_path / "new.jsonl"  # a new file is written as before
    assert run(["log", "1", "--db", str(db), "-o", str(new)], capsys)[0] == 0
    assert new.read_text().splitlines()[0].startswith('{"game": "deck-dash"')


def test_ruling_cli1_hw_record_never_writes_over_an_existing_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI-1: a recording of a real table cannot be made again; before, recording to the same
    name emptied the old one at once."""
    old = tmp_path / "pads.jsonl"
    old.write_text('{"pad_log": 1}\n')
    code, err = run(["hw", "record", str(old), "--mock", "--script", "0:pad"], capsys)
    assert code == 2
    assert one_line(err) == f"tabletop hw record: {old} exists already: name another file"
    assert old.read_text() == '{"pad_log": 1}\n'


def test_ruling_cli2_serve_refuses_another_programs_database(tmp_path: Path) -> None:
    """CLI-2: as ``pin reset`` does, ``serve`` refuses an SQLite file of another program
    instead of adding its six tables to it (and turning it to WAL mode); before, it served."""
    other = tmp_path / "photos.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE album (name TEXT)")
    conn.close()
    before = other.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "serve", "--no-camera-referee", "--db", str(other)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout
    assert one_line(done.stderr).startswith(
        f"tabletop serve: {other} is another program's database"
    )
    assert other.read_bytes() == before


def test_ruling_cli2_serve_still_opens_new_empty_and_its_own_databases(
    tmp_path: Path, db: Path
) -> None:
    """What CLI-2 lets through: no file, an empty file, an SQLite file with no table yet, the
    referee's own database, and a file that is no database (serve names what is wrong)."""
    from web.commands import _foreign_database

    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.db"
    sqlite3.connect(blank).close()
    binary = tmp_path / "binary.bin"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    for path in (tmp_path / "new.db", empty, blank, db, binary, tmp_path):
        assert not _foreign_database(path), path


# -- a number past any game -------------------------------------------------------------------
def test_log_of_a_game_number_too_large_for_sqlite_is_no_such_game(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: OverflowError (Python int too large to convert to SQLite INTEGER)."""
    huge = "9" * 25
    code, err = run(["log", huge, "--db", str(db)], capsys)
    assert (code, one_line(err)) == (2, f"tabletop log: no game {huge} in {db}")


# -- files nested thousands deep --------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "content", "words"),
    [
        (["replay"], f"{HEADER}\n{DEEP}\n", "deep.txt:2: nested too deeply to be a log line"),
        (["hw", "replay", "--fast"], f"{DEEP}\n", "deep.txt:1: nested too deeply"),
        (["hw", "pins", "--config"], f"a = {DEEP}\n", "deep.txt: nested too deeply to be a config"),
        (["log", "--config"], f"a = {DEEP}\n", "deep.txt: nested too deeply to be a config"),
        (
            ["vision", "dryer", "x.jpg", "--zones"],
            DEEP,
            "deep.json: nested too deeply to be a zones file",
        ),
        (
            ["vision", "identify", "x.jpg", "--deck"],
            DEEP,
            "deep.json: nested too deeply to be a deck profile",
        ),
    ],
    ids=["replay", "hw-replay", "hw-pins-config", "log-config", "dryer-zones", "identify-deck"],
)
def test_a_file_nested_too_deeply_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    content: str,
    words: str,
) -> None:
    """Before: RecursionError from the JSON or TOML parser, with its traceback."""
    deep = tmp_path / ("deep.json" if argv[0] == "vision" else "deep.txt")
    deep.write_text(content)
    code, err = run([*argv, str(deep)], capsys)
    assert code == 2
    assert words in one_line(err)


def test_dash_batch_of_a_line_nested_too_deeply_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A batch answers a line nested too deeply with its own error line, as any malformed
    line, and goes on with the next (before: a traceback ended the batch)."""
    good = '{"level": "easy", "dash": 6, "cards": ["R4", "G5", "B6", "R7", "Y7", "W"]}'
    monkeypatch.setattr(sys, "stdin", io.StringIO(DEEP + "\n" + good + "\n"))
    code, out = main(["dash", "check", "--batch"]), capsys.readouterr().out
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 2 and first == {"error": "line 1: nested too deeply to be a request"}
    assert "error" not in second


# -- a binary file named as a deck ------------------------------------------------------------
@pytest.fixture
def zones(tmp_path: Path) -> Path:
    layout = TableLayout((rectangle("discard", ZoneKind.DISCARD, (0.3, 0.3, 0.7, 0.7)),))
    path = tmp_path / "zones.json"
    path.write_text(json.dumps(layout.to_dict()))
    return path


@pytest.mark.parametrize(
    "argv",
    [
        "vision identify --deck {deck} {t}/a.jpg",
        "vision render --n 1 --decks {deck} {t}/out",
        "vision teach --deck {deck} --guide",
        "vision watch --game dos --zones {zones} --deck {deck} {t}",
    ],
    ids=["identify", "render", "teach", "watch"],
)
def test_a_deck_that_is_not_text_is_named(
    tmp_path: Path, zones: Path, capsys: pytest.CaptureFixture[str], argv: str
) -> None:
    """Before: UnicodeDecodeError from reading the deck profile, with its traceback."""
    deck = tmp_path / "deck.json"
    deck.write_bytes(bytes(range(128, 256)) * 4)
    code, err = run(argv.format(deck=deck, t=tmp_path, zones=zones).split(), capsys)
    assert code == 2
    command = " ".join(argv.split()[:2])
    assert one_line(err) == (
        f"tabletop {command}: {deck}: not a text file (a deck profile is UTF-8 JSON)"
    )
    assert not (tmp_path / "out").exists()


# -- Ctrl-C, and a refusal that did not say whose it was --------------------------------------
def test_ctrl_c_while_the_commands_load_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C in the first half second (the command modules importing) escaped ``main``
    before; in a handler it was already exit 130."""

    def interrupted(name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(referee.cli, "optional_module", interrupted)
    try:
        code = main(["games"])
    except KeyboardInterrupt:  # caught here, or pytest would stop the whole run
        pytest.fail("Ctrl-C escaped tabletop's main: Python prints its traceback")
    assert code == 130


def test_teach_without_photos_or_camera_names_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = run(["vision", "teach", "--deck", "dos"], capsys)
    assert (code, one_line(err)) == (
        2,
        "tabletop vision teach: give --photos FOLDER or --camera SPEC (or --guide)",
    )


# -- numbers past any machine are refused before anything starts ------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["hw", "record", "{out}", "--mock", "--script", "all", "--bounce", "100000000"],
        ["vision", "identify", "--threads", "99999999", "{out}"],
        ["serve", "--threads", "100000"],
    ],
    ids=["hw-record-bounce", "vision-identify-threads", "serve-threads"],
)
def test_a_count_past_any_machine_is_refused_at_once(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--bounce 100000000`` wrote 244 MB a minute and never ended, ``--threads 99999999``
    hung while starting threads: argparse now refuses them with the bound, nothing written."""
    out = tmp_path / "out.jsonl"
    code, err = run([a.replace("{out}", str(out)) for a in argv], capsys)
    assert code == 2
    assert "is too large: give at most" in err
    assert not out.exists()


def test_a_config_with_threads_past_any_machine_is_refused(tmp_path: Path) -> None:
    """The same bound for ``[web] threads`` in tabletop.toml, with the key's name."""
    from web.config import ConfigError, load_file

    cfg = tmp_path / "tabletop.toml"
    cfg.write_text("[web]\nthreads = 100000\n")
    with pytest.raises(ConfigError, match=r"\[web\] threads: 100000 is too many"):
        load_file(cfg)


def test_log_o_without_a_game_says_to_name_one(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``log -o FILE`` with no game number listed the games on the screen and wrote nothing,
    silently: the user believed the game was saved."""
    out = tmp_path / "game.jsonl"
    code, err = run(["log", "--db", str(db), "-o", str(out)], capsys)
    assert code == 2 and "name it" in one_line(err)
    assert not out.exists()
