"""The command-line slips left after the fresh-eyes pass (``tests/test_cli_fresh_eyes.py``):
a missing pad log named in Python's words, a malformed decision line read as a verdict, a
file Windows Notepad saved (it starts with a byte-order mark), a reader that closes the pipe,
a camera referee without its card models, a teaching camera that is not there, and an empty
path read as "the default".

Each case ends as the other commands end theirs: one line on stderr (argparse's usage line
and error for an option's value), a non-zero exit, never a traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from referee.cli import build_parser, main
from tests.test_cli_fresh_eyes import db, one_line, run  # noqa: F401 (db: a fixture)
from vision.table.zones import TableLayout, ZoneKind, rectangle

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
BOM = "\ufeff"  # what Notepad writes first in a file saved as "UTF-8" (before Windows 10 1903)
PAD_HEADER = '{"pad_log": 1, "hardware": {"seats": {"0": {"pad": 4}}}}'


# -- 1. a missing pad log, or no folder to record into ----------------------------------------
def test_hw_replay_and_record_say_a_missing_file_as_replay_and_log_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "tabletop hw replay: [Errno 2] No such file or directory: 'x'"."""
    missing = str(tmp_path / "missing.jsonl")
    code, err = run(["replay", missing], capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop replay: cannot read {missing}: No such file or directory",
    )
    code, err = run(["hw", "replay", missing], capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop hw replay: cannot read {missing}: No such file or directory",
    )

    out = str(tmp_path / "no-folder" / "pads.jsonl")
    code, err = run(["hw", "record", out, "--mock", "--script", "0:pad"], capsys)
    assert (code, one_line(err)) == (
        2,
        f"tabletop hw record: cannot write {out}: No such file or directory",
    )
    assert not (tmp_path / "no-folder").exists()


# -- 2. a malformed decision (or mark) line ---------------------------------------------------
@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"decision": []}', "a decision must be a JSON object"),
        ('{"decision": {"seats": [1]}}', "a decision needs kind, tie, reason, trigger_ns"),
        ('{"mark": []}', "a mark must be a JSON object"),
        (
            '{"mark": {"race": "last_slapper", "t_ns": 1, "seats": ["a"]}}',
            "a mark's seats must be a list of seat numbers",
        ),
    ],
    ids=["decision-list", "decision-without-keys", "mark-list", "mark-seat-not-a-number"],
)
def test_hw_replay_names_the_line_of_a_malformed_decision_or_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, words: str
) -> None:
    """Before: a decision that is no object was kept and compared, so the replay said only
    "DECISIONS DIFFER" and exited 1; a mark that is no object ended in a traceback
    (AttributeError), one with a seat "a" was judged ("Seat a did not slap")."""
    log = tmp_path / "pads.jsonl"
    log.write_text(f"{PAD_HEADER}\n{line}\n")
    code, err = run(["hw", "replay", "--fast", str(log)], capsys)
    assert code == 2
    assert one_line(err).startswith(f"tabletop hw replay: {log}:2: bad entry: {words}")


# -- 3. a byte-order mark first (Windows Notepad) ---------------------------------------------
def _with_bom(source: Path, target: Path) -> Path:
    target.write_text(BOM + source.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def test_an_event_log_saved_with_a_bom_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "…:1: not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))"."""
    plain = DATA / "dos-example.jsonl"
    assert main(["replay", "--compact", str(plain)]) == 0
    expected = capsys.readouterr().out
    code = main(["replay", "--compact", str(_with_bom(plain, tmp_path / "log.jsonl"))])
    assert (code, capsys.readouterr().out) == (0, expected)


def test_a_pad_log_saved_with_a_bom_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _with_bom(DATA / "hw" / "session.jsonl", tmp_path / "session.jsonl")
    code, err = run(["hw", "replay", "--fast", str(log)], capsys)
    assert (code, err) == (0, "")


def test_a_deck_profile_saved_with_a_bom_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "…: not valid JSON (Unexpected UTF-8 BOM …)"."""
    assert main(["vision", "teach", "--deck", "dos", "--guide"]) == 0
    expected = capsys.readouterr().out
    deck = _with_bom(REPO / "models" / "decks" / "dos.json", tmp_path / "dos.json")
    code = main(["vision", "teach", "--deck", str(deck), "--guide"])
    assert (code, capsys.readouterr().out) == (0, expected)


def test_a_zones_file_saved_with_a_bom_is_read(tmp_path: Path) -> None:
    """Before: ZoneError "…: not JSON (Unexpected UTF-8 BOM …)"."""
    layout = TableLayout((rectangle("discard", ZoneKind.DISCARD, (0.3, 0.3, 0.7, 0.7)),))
    zones = tmp_path / "zones.json"
    zones.write_text(BOM + json.dumps(layout.to_dict()), encoding="utf-8")
    assert TableLayout.load(zones) == layout


def test_a_pin_map_saved_with_a_bom_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "…: not valid TOML: Invalid statement (at line 1, column 1)"."""
    config = tmp_path / "tabletop.toml"
    config.write_text(BOM + "[hardware]\nseats = { 0 = { pad = 4 } }\n", encoding="utf-8")
    code, out = main(["hw", "pins", "--config", str(config)]), capsys.readouterr().out
    assert code == 0 and "seat 0: pad BCM4" in out


def test_a_dash_batch_saved_with_a_bom_is_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tabletop dash check --batch < requests.jsonl``: before, the first line's answer was
    "line 1: not JSON (Unexpected UTF-8 BOM …)" and the exit 2."""
    good = '{"level": "easy", "dash": 6, "cards": ["R4", "G5", "B6", "R7", "Y7", "W"]}'
    monkeypatch.setattr(sys, "stdin", io.StringIO(BOM + good + "\n"))
    code, out = main(["dash", "check", "--batch"]), capsys.readouterr().out
    assert code == 0 and json.loads(out)["valid"] is True


# -- 4. a reader that closes the pipe ---------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["dash", "find", "--level", "easy", "--dash", "1", "R1", "R1", "G2", "G2"],
        ["replay", str(DATA / "deck-dash-12.jsonl")],  # 350 kB: breaks while writing
        ["games"],
    ],
    ids=["dash-find", "replay", "games"],
)
def test_ruling_cli3_a_closed_pipe_ends_every_command_with_141_and_no_words(
    argv: list[str],
) -> None:
    """CLI-3: ``tabletop … | head -0``: the reader is gone, as it is for ``cat FILE | head``,
    whose status the shell reports as 141 (128 + SIGPIPE). Before: a short output failed in
    Python's flush at exit ("Exception ignored … BrokenPipeError", exit 120), a long one
    exited 0 as if all was written; ``dash find``'s 0 said "found" for a hand with no Dash."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as in a shell
    try:
        done = subprocess.run(
            [sys.executable, "-m", "referee.cli", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


def test_ruling_cli3_a_command_that_writes_everything_still_exits_as_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only a closed pipe is 141: ``dash find``'s own statuses stand (1: no Dash)."""
    code = main(["dash", "find", "--level", "easy", "--dash", "1", "R1", "R1", "G2"])
    assert code == 1 and json.loads(capsys.readouterr().out)["found"] is False


# -- 5. a camera referee without its card models ----------------------------------------------
class _Server:
    """waitress's server, bound to nothing: ``run`` returns at once (Ctrl-C at once)."""

    def run(self) -> None:
        return None


def serve_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args
) -> tuple[int, str, str]:
    """``tabletop serve --db t.db ARGS`` up to the server's loop, which ends at once:
    (exit code, stdout, stderr)."""
    import waitress

    import web.commands

    monkeypatch.chdir(tmp_path)  # no tabletop.toml: the defaults
    for name in ("TABLETOP_CONFIG", "TABLETOP_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(waitress, "create_server", lambda app, **kw: _Server())
    monkeypatch.setattr(web.commands, "_stop_on_sigterm", lambda: None)
    code = main(["serve", "--db", str(tmp_path / "t.db"), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _serve_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args
) -> tuple[int, str, str]:
    video = str(DATA / "table" / "pile.avi")
    camera = ("--camera", video, "--no-camera-referee")
    return serve_at_once(tmp_path, monkeypatch, capsys, *camera, *args)


def test_serve_warns_at_start_when_the_camera_has_no_card_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Serve goes on showing the camera without card models, and says so at once. Before:
    not a word until the first card played was not seen."""
    missing = tmp_path / "MISSING"
    code, out, err = _serve_at_once(tmp_path, monkeypatch, capsys, "--models", str(missing))
    assert code == 0 and "dashboard on" in out
    assert one_line(err) == (
        f"tabletop serve: no card models in {missing}: the camera will not read cards"
    )

    code, out, err = _serve_at_once(tmp_path, monkeypatch, capsys)  # models/: all there
    assert (code, err) == (0, "")


# -- 6. a teaching camera that is not there ---------------------------------------------------
@pytest.mark.parametrize("command", ["teach", "watch"])
def test_teach_says_a_missing_camera_as_watch_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    """``vision teach --camera cam:99`` waited for the camera without a word (``watch`` said
    "no camera yet"); both wait for it, saying so. Ctrl-C on the second try ends the test."""
    import vision.table.frames as frames

    tries: list[float] = []

    def camera(device: int) -> Any:
        tries.append(time.monotonic())
        if len(tries) > 1:
            raise KeyboardInterrupt
        raise frames.CameraError(f"cannot open camera {device}")

    monkeypatch.setattr(frames, "OpenCVCameraSource", camera)
    if command == "teach":
        argv = ["vision", "teach", "--deck", "dos", "--camera", "cam:99", "--out", str(tmp_path)]
    else:
        zones = tmp_path / "zones.json"
        layout = TableLayout((rectangle("discard", ZoneKind.DISCARD, (0.3, 0.3, 0.7, 0.7)),))
        zones.write_text(json.dumps(layout.to_dict()))
        argv = ["vision", "watch", "--game", "dos", "--zones", str(zones), "cam:99"]
    code, err = run(argv, capsys)
    assert code == 130 and len(tries) == 2
    assert one_line(err) == (
        f"tabletop vision {command}: no camera yet: cannot open camera 99"
        " (trying again until it is there)"
    )


# -- 7. an empty path is a slip, not the default ----------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["log", "1", "--db", "{db}", "-o", ""],
        ["log", "--db", ""],
        ["log", "--config", ""],
        ["backup", "--db", "{db}", "-o", ""],
        ["pin", "reset", "--db", ""],
        ["hw", "pins", "--config", ""],
        ["vision", "watch", "--game", "dos", "--zones", "z.json", "--models", "", "cam:0"],
        ["vision", "teach", "--deck", "dos", "--photos", "p", "--out", ""],
    ],
    ids=["log-o", "log-db", "log-config", "backup-o", "pin-db", "hw-config", "watch", "teach"],
)
def test_an_empty_path_is_refused_not_read_as_the_default(
    tmp_path: Path,
    db: Path,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
) -> None:
    """``-o "$OUT"`` with OUT unset: before, ``backup`` wrote tabletop-backup-DATE.db here,
    ``log --db ""`` read var/tabletop.db, ``log -o ""`` tried to write the folder ".";
    now argparse refuses the value before anything runs, as it refuses ``--threads 0``."""
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, err = run([a.replace("{db}", str(db)) for a in argv], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("is empty: name a path, or leave the option out")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_serve_refuses_an_empty_path_before_starting(capsys: pytest.CaptureFixture[str]) -> None:
    """The same refusal for ``serve`` (parsed only: the old code went on to serve)."""
    for option in ("--db", "--config", "--models"):
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_args(["serve", option, ""])
        assert refused.value.code == 2
        assert f"argument {option}: is empty" in capsys.readouterr().err


def test_a_web_config_saved_with_a_bom_is_read(tmp_path: Path) -> None:
    """Windows Notepad starts a saved tabletop.toml with a BOM; its [web] table was refused as
    "not valid TOML" by log, backup, pin and serve."""
    from web.config import load_file

    cfg = tmp_path / "tabletop.toml"
    cfg.write_bytes("\ufeff[web]\nport = 8099\n".encode())
    assert load_file(cfg).port == 8099
