"""A dashboard game taken out of the dashboard: its event log as the JSON-lines file that
``tabletop replay`` reads (the History page's download, ``GET /api/games/ID/log.jsonl``,
``tabletop log``). Replayed, the file gives the state and verdicts the dashboard shows, undo,
overrule and camera events included, so a game can be kept, shared or checked elsewhere."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from referee.cli import main
from referee.replay_cli import LogFileError, replay_file
from tests.test_web_routes import DEAL, Tablet, make_app


def played(tmp_path: Path) -> tuple[Tablet, int]:
    """A Deck Dash game with a typed play, a camera play, an undo and an overrule."""
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.new_game("dos", ("Ann", "Bob"))  # another game in the same database
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    camera = {"kind": "discard", "seat": 1, "payload": {"card": "R3"}, "source": "camera"}
    for event in (
        DEAL,  # Ann deals: Bob starts
        {"kind": "draw", "seat": 1},
        {**camera, "t_ns": 1_520_334_000_111},
        {"kind": "draw", "seat": 0},
        {"kind": "discard", "seat": 0, "payload": {"card": "G9"}},
        {"kind": "undo", "payload": {"target": 5}},
        {
            "kind": "overrule",
            "payload": {"target": 3, "event": {**camera, "payload": {"card": "R4"}}},
        },
    ):
        assert tablet.send(game_id, event).status_code == 201
    return tablet, game_id


def test_a_games_log_downloads_as_a_file_that_replays_to_what_the_dashboard_shows(tmp_path):
    tablet, game_id = played(tmp_path)
    r = tablet.client.get(f"/api/games/{game_id}/log.jsonl")  # open to viewers, as History is
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    assert f"filename=tabletop-deck-dash-{game_id}.jsonl" in r.headers["Content-Disposition"]
    lines = r.data.decode().splitlines()
    assert json.loads(lines[0]) == {"game": "deck-dash", "players": ["Ann", "Bob"], "options": {}}
    assert len(lines) == 1 + 7 and json.loads(lines[3])["t_ns"] == 1_520_334_000_111
    path = tmp_path / "game.jsonl"
    path.write_bytes(r.data)

    replayed, shown = replay_file(path), tablet.snapshot(game_id)
    assert replayed["scoreboard"] == shown["scoreboard"]
    assert replayed["state"] == shown["view"]
    assert replayed["state"]["round"]["discard"][-1] == "R4"  # the overruled camera play
    outcomes = [(v["seq"], v["outcome"]) for v in replayed["verdicts"]]
    shown_outcomes = [(f["seq"], v["outcome"]) for f in shown["feed"] for v in f["verdicts"]]
    assert sorted(outcomes) == sorted(shown_outcomes)
    assert all(outcome != "illegal" for _, outcome in outcomes)

    r = tablet.client.get(f"/api/games/{game_id + 9}/log.jsonl")
    assert r.status_code == 404 and r.json["error"] == f"there is no game {game_id + 9}"
    page = tablet.client.get(f"/history/{game_id}").data.decode()
    assert f'href="/api/games/{game_id}/log.jsonl"' in page


def test_tabletop_log_lists_the_games_and_writes_one_that_replay_reads(tmp_path, capsys):
    tablet, game_id = played(tmp_path)
    db = str(tablet.services.games.db_path)
    assert main(["log", "--db", db]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in listed] == [["1", "dos"], [str(game_id), "deck-dash"]]
    assert listed[1].endswith("running  Ann, Bob")

    out = tmp_path / "kept.jsonl"
    assert main(["log", str(game_id), "--db", db, "-o", str(out)]) == 0
    assert out.read_bytes() == tablet.client.get(f"/api/games/{game_id}/log.jsonl").data
    assert main(["replay", "--compact", str(out)]) == 0
    assert (
        json.loads(capsys.readouterr().out)["scoreboard"] == tablet.snapshot(game_id)["scoreboard"]
    )
    assert main(["log", str(game_id), "--db", db]) == 0  # to standard output
    assert capsys.readouterr().out == out.read_text()

    assert main(["log", "7", "--db", db]) == 2
    assert capsys.readouterr().err.strip() == f"tabletop log: no game 7 in {db}"
    assert main(["log", str(game_id), "--db", db, "-o", str(tmp_path)]) == 2
    assert "tabletop log: cannot write" in capsys.readouterr().err
    missing = tmp_path / "nothing" / "here.db"
    assert main(["log", "--db", str(missing)]) == 2
    assert not missing.parent.exists()  # asking never creates a database


def test_an_entry_that_no_longer_reads_is_kept_in_the_file_and_named_by_replay(tmp_path):
    """Nothing is left out: a stored entry that no longer decodes is written as it is, on
    its own line, so the numbering of undo targets holds and the replay names the line."""
    tablet, game_id = played(tmp_path)
    with sqlite3.connect(tablet.services.games.db_path) as conn:  # appending is allowed
        conn.execute(
            "INSERT INTO events (game_id, seq, body, recorded_at) VALUES (?, 8, ?, 0)",
            (game_id, '{"kind": "draw",\n "seat": "x"}'),
        )
    lines = tablet.client.get(f"/api/games/{game_id}/log.jsonl").data.decode().splitlines()
    assert len(lines) == 1 + 8 and lines[8] == '{"kind": "draw",  "seat": "x"}'
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogFileError, match=":9: "):
        replay_file(path)


def test_tabletop_log_only_reads_the_database_it_is_pointed_at(tmp_path, capsys):
    """Looking at a database never writes to it: another program's SQLite file gets a clear
    error and keeps its bytes (no tables added), and a log file the user may only read (a
    copy from another table, a backup) still lists its games."""
    other = tmp_path / "recipes.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.close()
    before = other.read_bytes()
    assert main(["log", "--db", str(other)]) == 2
    assert "tabletop log: cannot read the database" in capsys.readouterr().err
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["recipes.db"]  # no -wal, no -shm

    tablet, game_id = played(tmp_path / "table")
    db = tablet.services.games.db_path
    tablet.services.games.log.close()
    kept = tmp_path / "backup.db"
    with sqlite3.connect(db) as source, sqlite3.connect(kept) as copy:
        source.backup(copy)
    with sqlite3.connect(kept) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()
    assert main(["log", "--db", str(kept)]) == 0
    assert capsys.readouterr().out.split()[:2] == ["1", "dos"]
    assert main(["log", str(game_id), "--db", str(kept)]) == 0
    assert capsys.readouterr().out == tablet.client.get(f"/api/games/{game_id}/log.jsonl").text
    # reading a WAL file makes -wal/-shm files; the tool's connection, the last, removes them
    assert not kept.with_name("backup.db-wal").exists()
    assert not kept.with_name("backup.db-shm").exists()


def test_tabletop_log_reads_a_file_it_may_not_write(tmp_path, capsys, monkeypatch):
    """A backup kept read-only (where the user may not write it) opens read-only."""
    tablet, game_id = played(tmp_path)
    db = str(tablet.services.games.db_path)
    connect, modes = sqlite3.connect, []

    def no_writing(target, *args, **kwargs):  # as SQLite answers for a file one may not write
        modes.append(str(target).rsplit("?", 1)[-1] if kwargs.get("uri") else "path")
        if kwargs.get("uri") and str(target).endswith("mode=rw"):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return connect(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", no_writing)
    assert main(["log", str(game_id), "--db", db]) == 0
    assert modes == ["mode=rw", "mode=ro"]
    assert capsys.readouterr().out.splitlines()[0] == (
        '{"game": "deck-dash", "players": ["Ann", "Bob"], "options": {}}'
    )
