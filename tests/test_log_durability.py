"""The event log keeps what it acknowledged: a power cut, a killed server, a full or locked
or read-only file, a second server on the same file. Each failure is one clear line (503 on
the dashboard) and every event logged before it stays."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.eventlog import EventLog
from referee.events import Event
from referee.registry import register_game
from tests.test_web_routes import DEAL, Tablet, make_app
from web.errors import BadInput
from web.services import history
from web.services.games import GameService
from web.services.hub import Hub
from web.services.settings import Settings

register_game("tally", "tests.tally_game")
ROOT = Path(__file__).resolve().parents[1]


def add(seat: int, n: int) -> Event:
    return Event("add", seat=seat, payload={"n": n})


def service(db: Path) -> GameService:
    return GameService(db, Settings(db), Hub())


def fill_the_disk(conn: sqlite3.Connection) -> None:
    """The file may not grow past its current size: the next pages written find it full."""
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count={pages}")


def test_ruling_log1_every_commit_is_synced_so_a_power_cut_keeps_acknowledged_events(tmp_path):
    """WAL with synchronous=NORMAL may lose the last commits at a power cut (SQLite docs)."""
    log = EventLog(tmp_path / "tabletop.db")
    (level,) = log._conn().execute("PRAGMA synchronous").fetchone()
    log.close()
    assert level == 2  # FULL


def test_a_full_disk_is_named_and_the_logged_events_stay(tmp_path):
    log = EventLog(tmp_path / "tabletop.db")
    game_id = log.create_game("tally", ["Ann"])
    fill_the_disk(log._conn())
    stored = []
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        for _ in range(1000):
            stored.append(
                log.append(game_id, Event("add", seat=0, payload={"n": 1, "pad": "x" * 300}))
            )
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        for _ in range(1000):
            log.create_game("tally", ["A" * 2000])
    assert stored and [seq for seq, _ in log.events(game_id)] == stored
    log.close()


def another_programs_file(db: Path) -> None:
    """A file with an ``events`` table that is not the log's."""
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")


def tables_of(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}


def test_ruling_log1_a_database_of_another_program_is_refused_and_left_as_it_was(tmp_path):
    db = tmp_path / "other.db"
    another_programs_file(db)
    with pytest.raises(sqlite3.DatabaseError, match="not a Tabletop Referee event log: its events"):
        EventLog(db)
    assert tables_of(db) == {"events"}


def test_a_log_from_before_the_boots_table_opens_with_its_games(tmp_path):
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,"
            " created_at REAL NOT NULL, ended_at REAL, result TEXT);"
            "CREATE TABLE players (game_id INTEGER NOT NULL, seat INTEGER NOT NULL,"
            " name TEXT NOT NULL, PRIMARY KEY (game_id, seat));"
            "CREATE TABLE events (game_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
            " body TEXT NOT NULL, recorded_at REAL NOT NULL, PRIMARY KEY (game_id, seq));"
            "INSERT INTO games VALUES (1, 'tally', '{}', 0, NULL, NULL);"
            "INSERT INTO players VALUES (1, 0, 'Ann');"
            """INSERT INTO events VALUES (1, 1, '{"kind":"add","seat":0,"payload":{"n":4}}', 0);"""
        )
    log = EventLog(db)
    assert log.append(1, add(0, 3)) == 2
    assert log.rebuild(1).state.totals == (7,)
    log.close()


# -- the dashboard ---------------------------------------------------------------------


def locked(tablet: Tablet, db: Path) -> Any:
    """Another program holds the write lock; the dashboard waits 50 ms, not 10 s."""
    tablet.services.games.log._conn().execute("PRAGMA busy_timeout=50")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


# Bob draws again (illegal, so stored with its verdict): the event every case sends.
DRAW = {"kind": "draw", "seat": 1, "payload": {"pad": "x" * 300}}


def full(tablet: Tablet, db: Path) -> None:
    """Some draws fit; then the file is full for a draw (a smaller event may still fit)."""
    fill_the_disk(tablet.services.games.log._conn())
    for _ in range(2000):
        if tablet.send(1, DRAW).status_code != 201:
            break


def read_only(tablet: Tablet, db: Path) -> None:
    tablet.services.games.log._conn().execute("PRAGMA query_only=1")


@pytest.mark.parametrize(
    ("trouble", "message", "undo"),
    [(locked, "busy", True), (full, "disk is full", False), (read_only, "read-only", True)],
)
def test_ruling_log1_a_database_that_cannot_be_written_is_a_503_with_its_reason(
    tmp_path, trouble, message, undo
):
    db = tmp_path / "tabletop.db"
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    # kept until the end: a lock holder collected early (it ran in CI) releases the lock
    holder = trouble(tablet, db)
    before = [e.seq for e in EventLog(db, read_only=True).entries(game_id)]
    refused = [tablet.send(game_id, DRAW)]
    if undo:
        refused.append(tablet.post(f"/api/games/{game_id}/undo", {"target": 1}))
    if holder is not None:
        holder.rollback()
        holder.close()
    for r in refused:
        assert r.status_code == 503, r.json
        assert message in r.json["error"] and "events logged so far are kept" in r.json["error"]
    assert [e.seq for e in EventLog(db, read_only=True).entries(game_id)] == before


def test_the_history_of_an_unreadable_database_is_a_503(tmp_path):
    games = service(tmp_path / "tabletop.db")
    games.create("tally", ["Ann"], {})

    def broken() -> list[Any]:
        raise sqlite3.OperationalError("disk I/O error")

    games.log.games = broken  # type: ignore[method-assign]
    with pytest.raises(BadInput) as caught:
        history.all_summaries(games)
    assert caught.value.status == 503 and "disk I/O error" in caught.value.message


def test_a_database_error_while_replaying_is_not_blamed_on_the_rules(tmp_path):
    games = service(tmp_path / "tabletop.db")
    game_id = games.create("tally", ["Ann"], {})
    games.log.append(game_id, add(0, 1))  # the head moves: the next read replays

    def broken(gid: int) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    games.log.rebuild = broken  # type: ignore[method-assign]
    with pytest.raises(BadInput) as caught:
        games.result(game_id)
    assert caught.value.status == 503 and "rules" not in caught.value.message
    assert games.snapshot(game_id)["error"] == caught.value.message


def two_servers(db: Path, meanwhile: Event) -> tuple[GameService, int]:
    """Server B on a tally game that server A started with Ann +1; A logs ``meanwhile``
    between B's check (or replay) of B's first event and B's store of it."""
    a, b = service(db), service(db)
    game_id = a.create("tally", ["Ann", "Bob"], {})
    a.append(game_id, add(0, 1))
    store = b.log.append

    def after_the_other_server(gid: int, event: Event, **kw: Any) -> int:
        if not a.log.events(gid)[1:]:
            a.append(gid, meanwhile)
        return store(gid, event, **kw)

    b.log.append = after_the_other_server  # type: ignore[method-assign]
    return b, game_id


def test_ruling_log1_an_event_is_checked_against_what_a_second_server_logged_meanwhile(tmp_path):
    """Two servers on one file: B checks Ann's -5 while A logs her +10. Checked on the
    stale head (Ann at 1) it was illegal; it must be checked again on the new head."""
    db = tmp_path / "tabletop.db"
    b, game_id = two_servers(db, meanwhile=add(0, 10))
    out = b.append(game_id, add(0, -5))
    assert out["seq"] == 3 and [v["outcome"] for v in out["verdicts"]] == ["score"]
    assert b.snapshot(game_id)["scoreboard"]["totals"] == [6, 0]
    assert service(db).snapshot(game_id)["scoreboard"] == b.snapshot(game_id)["scoreboard"]


def test_an_undo_is_replayed_with_what_a_second_server_logged_meanwhile(tmp_path):
    db = tmp_path / "tabletop.db"
    b, game_id = two_servers(db, meanwhile=add(1, 7))
    assert b.undo(game_id, 1)["seq"] == 3
    assert b.snapshot(game_id)["scoreboard"]["totals"] == [0, 7]
    assert service(db).snapshot(game_id)["feed"] == b.snapshot(game_id)["feed"]


CHILD = """
import json, sys
from pathlib import Path
from referee.events import Event
from referee.registry import register_game
from web.services.games import GameService
from web.services.hub import Hub
from web.services.settings import Settings
register_game("tally", "tests.tally_game")
db = Path(sys.argv[1])
games = GameService(db, Settings(db), Hub())
game_id = games.create("tally", ["Ann", "Bob"], {"limit": 10**9})
for i in range(100_000):
    out = games.append(game_id, Event("add", seat=i % 2, payload={"n": 1 + i % 3}))
    board = games.snapshot(game_id)["scoreboard"]
    print(json.dumps({"seq": out["seq"], "scoreboard": board}), flush=True)
"""


def test_ruling_log1_a_server_killed_mid_game_resumes_from_the_log(tmp_path):
    db = tmp_path / "tabletop.db"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    acknowledged = [json.loads(child.stdout.readline()) for _ in range(40)]
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate()
    acknowledged += [json.loads(line) for line in rest.splitlines() if line.endswith("}")]

    resumed = service(db).snapshot(1)
    seqs = [item["seq"] for item in resumed["feed"]]
    last = acknowledged[-1]
    assert seqs == list(range(1, len(seqs) + 1)) and seqs[-1] in (last["seq"], last["seq"] + 1)
    assert all(item["status"] == "ok" for item in resumed["feed"])
    if seqs[-1] == last["seq"]:
        assert resumed["scoreboard"] == last["scoreboard"]
    totals = [0, 0]
    for i in range(seqs[-1]):
        totals[i % 2] += 1 + i % 3
    assert resumed["scoreboard"]["totals"] == totals


def test_a_database_error_outside_the_game_service_is_a_503_too(tmp_path):
    """Pages that read the log directly (the games list, the history download) answered a
    database error with a 500 and a traceback in the log; the app now answers any of them
    as the game service does."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    tablet.new_game("deck-dash", ("Ann", "Bob"))

    def broken(game_id: int) -> list[Any]:
        raise sqlite3.OperationalError("database is locked")

    tablet.services.games.log.entries = broken  # type: ignore[method-assign]
    r = tablet.client.get("/api/history.json")
    assert r.status_code == 503 and "the database is busy" in r.json["error"]


def test_the_dashboard_refuses_another_programs_file_before_changing_it(tmp_path):
    """The settings table was added to the file before the event log refused it."""
    db = tmp_path / "tabletop.db"
    another_programs_file(db)
    with pytest.raises(sqlite3.DatabaseError, match="not a Tabletop Referee event log"):
        make_app(tmp_path)
    assert tables_of(db) == {"events"}


def test_serve_names_a_database_folder_that_cannot_be_made(tmp_path):
    """Its parent is a file: before, a NotADirectoryError traceback and exit 1."""
    (tmp_path / "afile").write_text("x")
    run = subprocess.run(
        [sys.executable, "-m", "referee.cli", "serve", "--db", str(tmp_path / "afile" / "t.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("tabletop serve: cannot open the database") and (
        "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    ), run.stderr


def test_a_game_whose_log_no_longer_replays_can_still_be_ended(tmp_path):
    """An entry that no longer decodes (a damaged file, a hand edit): the game cannot be
    replayed, so it has no scoreboard. Before, ending it was refused (409) for good, and the
    console stayed on it; now it ends with no winners and says why, and the History page
    shows it with that reason. Nothing is removed from the log."""
    db = tmp_path / "tabletop.db"
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO events (game_id, seq, body, recorded_at) VALUES (?, 2, 'not json', 0)",
            (game_id,),
        )
    ended = tablet.post(f"/api/games/{game_id}/end")
    assert ended.status_code == 200, ended.json
    record = tablet.services.games.record(game_id)
    assert record.ended_at is not None and record.result["winners"] == []
    assert "cannot be replayed" in record.result["unreadable"]
    (row,) = history.all_summaries(tablet.services.games)
    assert row["over"] and "cannot be replayed" in row["error"]
    assert [e.seq for e in EventLog(db, read_only=True).entries(game_id)] == [1, 2]


def test_a_replayed_state_handed_out_never_changes_under_its_reader(tmp_path):
    """The camera thread or a tablet builds a snapshot from a game's replayed result outside
    the service's lock. Before, an event appended meanwhile changed that very object (its
    steps, then its state), so a snapshot could take its scoreboard from one state and its
    feed from the next."""
    games = service(tmp_path / "tabletop.db")
    game_id = games.create("tally", ["Ann", "Bob"], {})
    games.append(game_id, add(0, 2))
    seen = games.result(game_id)
    steps, state = list(seen.steps), seen.state
    games.append(game_id, add(1, 5))
    assert (seen.steps, seen.state) == (steps, state)
    assert len(games.result(game_id).steps) == len(steps) + 1
