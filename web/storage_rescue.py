"""Rescue from a damaged database (a failing SD card): ``tabletop backup`` copies every game
that can still be read, whole, into a new database and names the rest (ruling LOG-5). Kept
apart from ``storage_commands``: only a backup whose copy fails its integrity check needs it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NamedTuple

from web.commands import _storage_why
from web.storage_commands import (
    DamagedCopy,
    _check_whole,
    _damage,
    _refuse_foreign,
    _remove_copy,
)


class Rescued(NamedTuple):
    """What ``_rescue`` copied of a damaged database, and what it could not read."""

    games: int
    events: int
    lost_games: list[int]
    lost_tables: list[str]


def save_what_reads(db: Path, out: Path, damage: DamagedCopy) -> int:
    """``tabletop backup`` of a damaged database (``damage``): every game that can still be
    read, whole, in a new database at ``out``; the copy as read stays beside it for a repair
    by hand. Exit 1 with one line naming what could not be copied; 2 where nothing was."""
    import sqlite3

    kept = damage.kept
    if kept is None:  # no name for it: nothing to read the games from
        print(f"tabletop backup: cannot back up {db} to {out}: {damage}", file=sys.stderr)
        return 2
    try:
        rescued = _rescue_to_new_file(kept, out)
    except (sqlite3.Error, OSError, DamagedCopy) as exc:
        print(
            f"tabletop backup: {db} is damaged ({damage.check}) and no game could be copied "
            f"from it: {_storage_why(exc, out)}; its pages as read are kept in {kept}",
            file=sys.stderr,
        )
        return 2
    except BaseException:  # Ctrl-C: nothing of the backup stays (CLI-1)
        _remove_copy(kept)
        raise
    print(f"tabletop backup: {_rescue_said(db, out, damage, rescued)}", file=sys.stderr)
    return 1


def _rescue_said(db: Path, out: Path, damage: DamagedCopy, rescued: Rescued) -> str:
    """The line a backup of a damaged database ends with."""
    n = rescued.games + len(rescued.lost_games)
    copied = (
        f"{rescued.games} of {n} game{'s' * (n != 1)} ({rescued.events} "
        f"event{'s' * (rescued.events != 1)}) copied to {out}"
    )
    lost = [
        f"game{'s' * (len(rescued.lost_games) != 1)} "
        + ", ".join(str(g) for g in rescued.lost_games)
        + " could not be read"
    ] * bool(rescued.lost_games)
    lost += [f"table {t} could not be read" for t in rescued.lost_tables]
    return (
        f"{db} is damaged ({damage.check}): {copied}; "
        + ("; ".join(lost) or "every game was copied whole")
        + f"; its pages as read are kept in {damage.kept}"
    )


def _rescue_to_new_file(damaged: Path, out: Path) -> Rescued:
    """``_rescue`` into a file made here: stopped, it leaves nothing (``_copy_to_new_file``)."""
    out.open("xb").close()
    try:
        return _rescue(damaged, out)
    except BaseException:
        _remove_copy(out)
        raise


def _rescue(damaged: Path, out: Path) -> Rescued:
    """Make ``out`` a database with the tables of ``damaged`` and copy into it each game (its
    ``games`` row and its rows of every table with a ``game_id``) and each other table, in a
    transaction of its own: one a damaged page stops, or whose log has a hole, is left out
    (a part of a log replays to another game), the others are copied whole."""
    import sqlite3

    conn = sqlite3.connect(out, isolation_level=None)
    try:
        conn.execute("ATTACH DATABASE ? AS damaged", (str(damaged.resolve()),))
        later = _copy_schema(conn)
        per_game, whole = _tables(conn)
        ids = [gid for (gid,) in conn.execute("SELECT id FROM damaged.games ORDER BY id")]
        lost_games = [gid for gid in ids if not _copied(conn, _game_rows(gid, per_game), gid)]
        lost_tables = [
            t for t in whole if not _copied(conn, [(f"INSERT INTO main.{_q(t)} {_all_of(t)}", ())])
        ]
        for sql in later:  # views and triggers, once the rows are in
            conn.execute(sql)
        conn.execute("DETACH DATABASE damaged")
        _check_whole(conn)
        (games,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
        (events,) = conn.execute("SELECT COUNT(*) FROM events").fetchone()
    finally:
        conn.close()
    return Rescued(int(games), int(events), lost_games, lost_tables)


def _copy_schema(conn: Any) -> list[str]:
    """Make the attached ``damaged`` database's tables and indexes in ``conn``'s own; its
    views and triggers, to be made once the rows are copied. Refused (DatabaseError) where
    they are not the event log's."""
    rows = conn.execute(
        "SELECT type, sql FROM damaged.sqlite_master WHERE sql IS NOT NULL "
        "AND name NOT LIKE 'sqlite^_%' ESCAPE '^'"
    ).fetchall()
    _refuse_foreign({name for (name,) in conn.execute("SELECT name FROM damaged.sqlite_master")})
    for kind in ("table", "index"):
        for sql in (sql for (t, sql) in rows if t == kind):
            conn.execute(sql)
    (version,) = conn.execute("PRAGMA damaged.user_version").fetchone()
    conn.execute(f"PRAGMA main.user_version = {int(version)}")
    return [sql for (t, sql) in rows if t not in ("table", "index")]


def _tables(conn: Any) -> tuple[list[str], list[str]]:
    """``conn``'s tables: (those holding rows per game, by ``game_id``; the others but
    ``games``)."""
    per_game: list[str] = []
    whole: list[str] = []
    names = conn.execute(
        "SELECT name FROM main.sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite^_%' ESCAPE '^' AND name != 'games'"
    ).fetchall()
    for (name,) in names:
        columns = {c for (c,) in conn.execute("SELECT name FROM pragma_table_info(?)", (name,))}
        (per_game if "game_id" in columns else whole).append(name)
    return per_game, whole


def _q(name: str) -> str:
    """A table's name as SQL reads it, whatever it holds."""
    return '"' + name.replace('"', '""') + '"'


def _all_of(table: str, where: str = "") -> str:
    """The SELECT of ``table``'s rows in the damaged database (``where`` some of them)."""
    return f"SELECT * FROM damaged.{_q(table)} {where}".strip()


def _game_rows(game_id: int, per_game: list[str]) -> list[tuple[str, tuple[int]]]:
    """The statements copying the game ``game_id``: its row, then its rows of each table."""
    return [
        (f"INSERT INTO main.games {_all_of('games', 'WHERE id = ?')}", (game_id,)),
        *(
            (f"INSERT INTO main.{_q(t)} {_all_of(t, 'WHERE game_id = ?')}", (game_id,))
            for t in per_game
        ),
    ]


def _copied(
    conn: Any, statements: list[tuple[str, tuple[int, ...]]], game_id: int | None = None
) -> bool:
    """Run ``statements`` in one transaction; False, nothing of them kept, where a damaged
    page stops them, a damaged row breaks the schema's rules (a flipped bit made a NULL where
    none may be: the integrity check's "NULL value in events.body") or the game
    ``game_id``'s log is not whole (its entries 1 to N)."""
    import sqlite3

    conn.execute("BEGIN")
    try:
        for sql, params in statements:
            conn.execute(sql, params)
        whole = game_id is None or _whole_log(conn, game_id)
    except sqlite3.DatabaseError as exc:
        if conn.in_transaction:  # SQLite ends some itself (a full disk)
            conn.execute("ROLLBACK")
        if not (_damage(exc) or isinstance(exc, sqlite3.IntegrityError)):
            raise  # a full disk: no backup at all, said as such
        return False
    conn.execute("COMMIT" if whole else "ROLLBACK")
    return whole


def _whole_log(conn: Any, game_id: int) -> bool:
    """Whether the copied game's entries are numbered 1 to N with none missing (the log
    numbers them so): a damaged index may have hidden some."""
    count, first, last = conn.execute(
        "SELECT COUNT(*), MIN(seq), MAX(seq) FROM main.events WHERE game_id = ?", (game_id,)
    ).fetchone()
    return count == 0 or (first == 1 and last == count)
