"""The SQLite event log: append-only, WAL, replayable, corrupt entries isolated."""

import sqlite3

import pytest

from referee.eventlog import EventLog, LogError
from referee.events import Event
from referee.game import GameError
from referee.registry import UnknownGameError, find_game, register_game

register_game("tally", "tests.tally_game")


def add(seat, n):
    return Event("add", seat=seat, payload={"n": n})


@pytest.fixture
def log(tmp_path):
    store = EventLog(tmp_path / "tabletop.db")
    yield store
    store.close()


def test_uses_wal_and_rebuilds_state_from_events(log, tmp_path):
    game_id = log.create_game("tally", ["Ann", "Bob"], {"limit": 10})
    assert [log.append(game_id, e) for e in (add(0, 4), add(1, 2))] == [1, 2]
    (mode,) = sqlite3.connect(tmp_path / "tabletop.db").execute("PRAGMA journal_mode").fetchone()
    assert mode == "wal"
    assert log.rebuild(game_id).state.totals == (4, 2)
    record = log.game(game_id)
    assert record.players == ("Ann", "Bob")
    assert record.options == {"limit": 10}


def test_a_new_connection_sees_the_same_game(log, tmp_path):
    """A crash mid-game loses nothing: a fresh process replays to the same state."""
    game_id = log.create_game("tally", ["Ann"])
    log.append(game_id, add(0, 7))
    log.append(game_id, Event("undo", payload={"target": 1}))
    log.append(game_id, add(0, 5))
    fresh = EventLog(tmp_path / "tabletop.db")
    assert fresh.rebuild(game_id).state.totals == log.rebuild(game_id).state.totals == (5,)
    fresh.close()


def test_log_is_append_only(log, tmp_path):
    game_id = log.create_game("tally", ["Ann"])
    log.append(game_id, add(0, 1))
    conn = sqlite3.connect(tmp_path / "tabletop.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET body = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")


def test_corrupt_entry_is_reported_and_the_rest_stays_readable(log, tmp_path):
    game_id = log.create_game("tally", ["Ann"])
    log.append(game_id, add(0, 1))
    conn = sqlite3.connect(tmp_path / "tabletop.db")
    conn.execute(
        "INSERT INTO events (game_id, seq, body, recorded_at) VALUES (?, 2, '{oops', 0)",
        (game_id,),
    )
    conn.commit()
    log.append(game_id, add(0, 2))
    entries = list(log.entries(game_id))
    assert [e.seq for e in entries] == [1, 2, 3]
    assert entries[1].event is None and "event 2" in entries[1].error
    assert entries[2].event == add(0, 2)
    with pytest.raises(LogError, match="event 2: not JSON"):
        log.rebuild(game_id)


def test_unknown_event_kind_fails_replay_with_its_number(log):
    game_id = log.create_game("tally", ["Ann"])
    log.append(game_id, add(0, 1))
    log.append(game_id, Event("juggle"))
    with pytest.raises(LogError, match=r"event 2 \(juggle\): unknown event kind"):
        log.rebuild(game_id)


def test_bad_games_are_refused(log):
    with pytest.raises(UnknownGameError, match="known games"):
        log.create_game("chess", ["Ann"])
    with pytest.raises(GameError):
        log.create_game("tally", [])
    with pytest.raises(LogError, match="no game 99"):
        log.append(99, add(0, 1))
    assert log.games() == []


def test_ended_games_keep_their_result(log):
    game_id = log.create_game("tally", ["Ann"])
    log.end_game(game_id, {"winners": [0]})
    assert log.game(game_id).result == {"winners": [0]}
    assert log.game(game_id).ended_at is not None


def test_find_game_normalises_names():
    assert find_game("Tally").name == "tally"
