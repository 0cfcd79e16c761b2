"""Review r28b: defects found reviewing 6232b82..c3ab32f (each test failed before its fix)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from referee.cli import main
from referee.eventlog import EventLog
from tests.test_web_routes import Tablet, make_app


def test_a_backup_of_a_database_locked_too_long_says_so_and_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """Another program holds the database locked past the wait: one line and exit 2. Before,
    SQLite's busy wait ended, then Python's ``Connection.backup`` retried a busy step every
    250 ms forever: ``tabletop backup`` hung (and a cron job's backups piled up)."""
    import web.storage_commands

    monkeypatch.setattr(web.storage_commands, "BACKUP_BUSY_S", 0.2)
    db, copy = tmp_path / "tabletop.db", tmp_path / "copy.db"
    log = EventLog(db)
    log.create_game("deck-dash", ["Ann", "Bob"], {})
    log.close()  # the lock below needs every other connection (WAL readers) gone
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    result: list[int] = []
    worker = threading.Thread(
        target=lambda: result.append(main(["backup", "--db", str(db), "-o", str(copy)])),
        daemon=True,
    )
    try:
        worker.start()
        worker.join(timeout=10)
        finished = not worker.is_alive()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        worker.join(timeout=10)
    assert finished, "tabletop backup still waiting on a locked database"
    err = capsys.readouterr().err
    assert result == [2] and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"tabletop backup: cannot back up {db} to {copy}: the database is locked")
    assert not copy.exists()


def test_the_documented_service_keeps_its_database_across_restarts(monkeypatch, tmp_path):
    """docs/HARDWARE.md's unit runs in ``WorkingDirectory=/run/tabletop``, its
    ``RuntimeDirectory``: a RAM folder systemd deletes whenever the service stops. With no
    ``db`` named, the database was ``var/tabletop.db`` there: every game and the PIN were lost
    at each restart and reboot (now its config file is read, 3494358, but names none)."""
    from referee.cli import build_parser
    from web.commands import _config

    text = (Path(__file__).parents[1] / "docs" / "HARDWARE.md").read_text(encoding="utf-8")
    unit = text.split("```ini\n", 1)[1].split("```", 1)[0]  # [Unit], [Service], [Install]
    settings = [line.split("=", 1) for line in unit.splitlines() if "=" in line]
    env = dict(v.split("=", 1) for k, v in settings if k == "Environment")
    options = dict((k, v) for k, v in settings if k != "Environment")
    workdir = Path(options["WorkingDirectory"])
    assert workdir == Path("/run") / options["RuntimeDirectory"]  # deleted at every stop
    monkeypatch.delenv("TABLETOP_DB", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    empty = tmp_path / "tabletop.toml"  # the unit's file must exist; empty: the defaults
    empty.touch()
    monkeypatch.setenv("TABLETOP_CONFIG", str(empty))
    cfg = _config(build_parser().parse_args(["serve"]), "serve")
    db = workdir / cfg.db_path  # a relative path is read from the working directory
    assert not db.is_relative_to(workdir), db
    state = options.get("StateDirectory")
    assert state and db.is_relative_to(Path("/var/lib") / state), db


def test_the_pads_page_names_the_players_of_the_game_the_pads_play_in(tmp_path: Path):
    """The pads play in the latest game, while it runs (d7eeb0e). The family starts A, then
    B without ending A, then ends B: a press now goes nowhere, yet the Pads page still
    labelled each pad with A's players (it asked for the latest game *running*)."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    tablet.new_game("deck-dash", ("Ann", "Bob"))
    second = tablet.new_game("deck-dash", ("Cy", "Dee"))
    page = tablet.client.get("/hardware").get_data(as_text=True)
    assert "Seat 0 · Cy" in page and "Ann" not in page
    assert tablet.post(f"/api/games/{second}/end").status_code == 200
    page = tablet.client.get("/hardware").get_data(as_text=True)
    assert "Seat 0 ·" not in page and "Ann" not in page


def test_a_refused_answer_does_not_put_back_a_question_whose_game_ends_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Accept is refused by the rules while another tablet ends the game: the game's
    ``changed`` (which takes its questions off) could run between ``accept`` finding the game
    still running and putting the question back, which then stayed on an ended game's board."""
    import web.services.prompts as prompts

    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game()
    board, games = tablet.services.prompts, tablet.services.games
    question = {"prompt": "confirm", "message": "?", "suggestion": {"kind": "nonsense"}, "t_ns": 0}
    item = board.add(game_id, question)
    ending: list[threading.Thread] = []
    ended = prompts._ended

    def ended_then_the_game_ends(games_: object, gid: int) -> bool:
        answer = ended(games_, gid)  # still running...
        thread = threading.Thread(target=games.end, args=(gid,), daemon=True)
        ending.append(thread)
        thread.start()  # ...and another tablet ends it now
        thread.join(timeout=1)
        return answer

    monkeypatch.setattr(prompts, "_ended", ended_then_the_game_ends)
    r = tablet.post(f"/api/games/{game_id}/prompts/{item.id}/accept", {})
    assert r.status_code == 400, r.json
    ending[0].join(timeout=10)
    assert games.record(game_id).ended_at is not None
    assert board.open(game_id) == []


def test_the_camera_says_the_latest_game_has_ended_not_that_none_runs(tmp_path):
    """With a game left running from before, "no game is running" was untrue: the camera
    follows the latest game, which has ended."""
    from tests.test_web_camera_dryer import Table, dryer_app

    tablet, referee, game_id = dryer_app(tmp_path, Table())
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    assert referee._target() is None
    assert referee.message == "the latest game has ended: start one on the Setup page"
