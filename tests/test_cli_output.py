"""Where the commands' output goes: a standard output that cannot take it (a full disk, no
standard output at all), no standard error, and the outputs ``vision eval --json`` and
``vision render OUT`` write.

Each case ends as the other commands end theirs: one line on stderr, a non-zero exit, never a
traceback, and nothing of the user's written over.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import EXIT_CANNOT_WRITE, main
from referee.eventlog import EventLog
from tests.test_cli_fresh_eyes import one_line

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
FULL = "tabletop: cannot write the output: No space left on device"
CLOSED = "tabletop: cannot write the output: standard output is closed"

COMMANDS = {
    "replay": ["replay", str(DATA / "deck-dash-12.jsonl")],  # 350 kB: fails while writing
    "games": ["games"],  # a few bytes: fails in the flush, not at exit
    "demo": ["demo"],
    "dash-find": ["dash", "find", "--level", "easy", "--dash", "1", "R1", "R1", "G2"],
    "log": ["log", "--db", "{db}"],
    "log-game": ["log", "1", "--db", "{db}"],
    "help": ["--help"],  # argparse swallows its write error and exits 0
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "tabletop.db"
    log = EventLog(path)
    log.create_game("deck-dash", ["Ann", "Bob"])
    log.close()
    return path


def tabletop(
    argv: list[str], db: Path, shell: str = "", stdout: object = None
) -> subprocess.CompletedProcess[str]:
    """``tabletop ARGV`` in a child process, its redirections ``shell`` made by sh."""
    args = [a.format(db=db) for a in argv]
    command = [sys.executable, "-m", "referee.cli", *args]
    if shell:
        command = ["sh", "-c", f'exec "$0" "$@" {shell}', *command]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as in a shell
    return subprocess.run(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_ruling_cli5_a_full_disk_ends_every_command_with_74_and_one_line(
    argv: list[str], db: Path
) -> None:
    """``tabletop … > /dev/full``: before, OSError "[Errno 28] No space left on device" and its
    traceback (exit 1, ``dash find``'s "no Dash"), or nothing at all and exit 0 (``--help``)."""
    with open("/dev/full", "w") as full:
        done = tabletop(argv, db, stdout=full)
    assert (done.returncode, one_line(done.stderr)) == (EXIT_CANNOT_WRITE, FULL)


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_ruling_cli5_no_standard_output_ends_every_command_with_74_and_one_line(
    argv: list[str], db: Path
) -> None:
    """``tabletop … >&-``: Python's sys.stdout is None. Before: AttributeError "'NoneType'
    object has no attribute 'write'" and its traceback (replay, dash find), or the output
    dropped without a word and exit 0 (print() writes nothing to None; ``--help`` went to
    stderr)."""
    done = tabletop(argv, db, shell=">&-")
    assert (done.returncode, one_line(done.stderr)) == (EXIT_CANNOT_WRITE, CLOSED)


@pytest.mark.parametrize("shell", ["> /dev/full 2>&-", ">&- 2>&-", "> /dev/full 2> /dev/full"])
@pytest.mark.parametrize("argv", [COMMANDS["replay"], COMMANDS["games"]], ids=["replay", "games"])
def test_ruling_cli5_without_a_standard_error_a_failed_output_exits_74_quietly(
    argv: list[str], db: Path, shell: str
) -> None:
    """Nowhere to say it: the status says it, and Python's flush at exit finds nothing left
    to fail on (it would say "Exception ignored …" or exit 120). Before: a traceback that
    could not be written either, exit 1."""
    done = tabletop(argv, db, shell=shell)
    assert (done.returncode, done.stdout, done.stderr) == (EXIT_CANNOT_WRITE, "", "")


def test_ruling_cli5_without_a_standard_error_errors_stay_out_of_the_output(
    tmp_path: Path, db: Path
) -> None:
    """``tabletop replay MISSING 2>&- > out.json``: before, the error line was written into
    the output (print(file=None) writes to sys.stdout)."""
    done = tabletop(["replay", str(tmp_path / "missing.jsonl")], db, shell="2>&-")
    assert (done.returncode, done.stdout) == (2, "")


def test_a_command_that_writes_nothing_is_not_stopped_by_a_closed_output(
    tmp_path: Path, db: Path
) -> None:
    """Only a write that fails is an error: ``log 1 -o FILE >&-`` writes its file, exit 0;
    and an output that takes everything is as before."""
    out = tmp_path / "game.jsonl"
    done = tabletop(["log", "1", "--db", "{db}", "-o", str(out)], db, shell=">&-")
    assert (done.returncode, done.stderr) == (0, "")
    assert out.read_text().startswith('{"game": "deck-dash"')
    done = tabletop(COMMANDS["games"], db)
    assert (done.returncode, done.stderr) == (0, "") and "deck-dash" in done.stdout.split()


class _Full(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_main_gives_standard_output_back_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In one process (the tests call main again and again): the streams main watches are
    put back, also after a failed write."""
    full = _Full()
    monkeypatch.setattr(sys, "stdout", full)
    assert main(["games"]) == EXIT_CANNOT_WRITE
    assert sys.stdout is full
    assert one_line(capsys.readouterr().err) == FULL


# -- vision eval --json FILE --------------------------------------------------------------------
def _render(out: Path, *args: str) -> int:
    return main(["vision", "render", "--n", "2", "--decks", "dos", *args, str(out)])


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_ruling_cli1_eval_never_writes_over_an_existing_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``log -o`` (CLI-1): a report file that exists is refused before the run (here a
    models folder with no models would fail the run), exit 2, the file unchanged. Before: the
    run, then the file written over without a word."""
    assert _render(tmp_path / "set") == 0
    kept = tmp_path / "report.json"
    kept.write_text('{"last": "week"}\n')
    capsys.readouterr()
    argv = ["vision", "eval", str(tmp_path / "set"), "--json", str(kept)]
    assert main([*argv, "--models", str(tmp_path / "no-models")]) == 2
    err = one_line(capsys.readouterr().err)
    assert err == f"tabletop vision eval: {kept} exists already: name another file"
    assert kept.read_text() == '{"last": "week"}\n'


def test_ruling_cli5_eval_writes_its_report_before_a_failing_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``vision eval SET --json R > /dev/full``: the table fails, the report is kept (exit
    74). Before: the table was printed first and its failure lost the report of the run."""
    assert _render(tmp_path / "set") == 0
    report = tmp_path / "report.json"
    monkeypatch.setattr(sys, "stdout", _Full())
    assert main(["vision", "eval", str(tmp_path / "set"), "--json", str(report)]) == 74
    assert json.loads(report.read_text())["images"] == 2
    assert capsys.readouterr().err.splitlines()[-1] == FULL


# -- vision render OUT ---------------------------------------------------------------------------
def test_ruling_cli4_render_never_mixes_two_sets_in_one_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another render into a folder that holds one is refused, exit 2, the folder as it
    was. Before: exit 0 and the second seed's images beside the first's (stems are
    SEED_INDEX), so ``vision eval OUT`` scored both sets as one; the same seed with a smaller
    --n, or another --kind, replaced some files and left the rest."""
    out = tmp_path / "set"
    assert _render(out, "--seed", "1") == 0
    before = _tree(out)
    capsys.readouterr()
    for other in (["--seed", "2"], ["--seed", "1", "--n", "1"], ["--seed", "1", "--kind", "empty"]):
        assert main(["vision", "render", "--n", "2", "--decks", "dos", *other, str(out)]) == 2
        assert one_line(capsys.readouterr().err) == (
            f"tabletop vision render: {out} holds another render (its kind, style, decks, --n"
            " or --seed differ): name a new or empty folder"
        )
        assert _tree(out) == before


def test_ruling_cli4_render_never_writes_into_a_folder_of_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that is no render (here one with its own data.yaml) is refused, untouched.
    Before: its data.yaml written over, images/ and labels/ added."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "data.yaml").write_text("names: {0: mine}\n")
    assert _render(out) == 2
    err = one_line(capsys.readouterr().err)
    assert err == f"tabletop vision render: {out} is not empty: name a new or empty folder"
    assert _tree(out) == {"data.yaml": b"names: {0: mine}\n"}


def test_ruling_cli4_render_may_run_again_into_its_own_folder_or_an_empty_one(
    tmp_path: Path,
) -> None:
    """The same render again (an interrupted one, a renderer changed) writes the same files
    over: nothing mixes. An empty folder (mktemp -d) takes a render."""
    out = tmp_path / "set"
    out.mkdir()
    assert _render(out, "--seed", "3") == 0
    first = _tree(out)
    assert sorted(first) == [
        "data.yaml",
        "images/3_00000.jpg",
        "images/3_00001.jpg",
        "labels/3_00000.txt",
        "labels/3_00001.txt",
        "render.json",
    ]
    assert _render(out, "--seed", "3") == 0
    assert _tree(out) == first
