"""Past games: summaries, per-round tables, per-player stats, CSV/JSON export."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from referee.eventlog import (
    GameRecord,
    GameUnreadable,
    LogEntry,
    primary_code,
    recorded_end,
    storage_problem,
)
from web.errors import BadInput
from web.services.games import GameService, name_key


def iso(t: float | None) -> str:
    """A moment as ISO 8601 in UTC ("2026-12-04T13:51:07Z"): what the exports and the API
    carry, and a page's ``<time datetime>``, which the browser shows in the tablet's own zone."""
    if t is None:
        return ""
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def utc_text(t: float | None) -> str:
    """The same moment for people, in UTC: what a page shows before (or without) JavaScript."""
    return "" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")


def summary(games: GameService, game_id: int) -> dict[str, Any]:
    """One game for the history: scoreboard (as ended, else as now), winners, rounds."""
    record = games.record(game_id)
    out: dict[str, Any] = {
        "id": record.id,
        "game": record.game,
        "players": list(record.players),
        # what a rebuild needs beside the log; None where the stored options cannot be read
        "options": None if "options" in record.unreadable else dict(record.options),
        "created": iso(record.created_at),
        "ended": iso(record.ended_at),
        "created_text": utc_text(record.created_at),
        "ended_text": utc_text(record.ended_at),
        "running": record.ended_at is None,
        "finished": bool(record.result and record.result.get("finished")),
        "over": record.ended_at is not None,
        "error": None,
    }
    board = None
    stored = record.result.get("scoreboard") if record.result else None
    if isinstance(stored, dict) and _readable_board(stored):
        board = stored
    else:
        if stored is not None:  # a damaged file or a hand edit: the log still tells
            out["error"] = f"game {game_id}: its stored scoreboard cannot be read"
        try:
            snap = games.snapshot(game_id)
            board, out["error"] = snap["scoreboard"], snap.get("error") or out["error"]
        except BadInput as exc:
            out["error"] = exc.message
    if board is None:
        out.update(title=record.game, totals=[], rounds=[], winners=[], round=0)
        out["error"] = out["error"] or "no scoreboard"
        return out
    if record.result and isinstance(record.result.get("winners"), list):
        winners = record.result["winners"]
    else:
        winners = board.get("winners") or []
    try:
        out["title"] = games.rules(record.game).title
    except BadInput:
        out["title"] = record.game
    out.update(
        totals=list(board.get("totals", [])),
        rounds=[list(r) for r in board.get("rounds", [])],
        winners=[w for w in winners if isinstance(w, int)],
        round=board.get("round", 0),
        lower_is_better=board.get("lower_is_better", True),
    )
    if record.ended_at is None and board.get("finished"):
        out["finished"] = True  # over by the rules; the console has not ended it yet
    out["over"] = out["over"] or out["finished"]
    out["winner_names"] = [out["players"][w] for w in out["winners"] if w < len(out["players"])]
    return out


def _readable_board(board: dict[str, Any]) -> bool:
    """Whether a stored scoreboard has the shape the history reads (totals a list of numbers,
    rounds a list of lists, round a number): a damaged row must not take every page down."""
    totals, rounds = board.get("totals", []), board.get("rounds", [])
    return (
        isinstance(totals, list)
        and all(isinstance(t, int | float) and not isinstance(t, bool) for t in totals)
        and isinstance(rounds, list)
        and all(isinstance(r, list) for r in rounds)
        and isinstance(board.get("round", 0), int)
    )


def all_summaries(games: GameService) -> list[dict[str, Any]]:
    return [summary(games, g.id) for g in reversed(games.records())]


def export(games: GameService) -> dict[str, Any]:
    """History's "Export JSON": every game's summary with what its log's header holds beside
    it (options, ``deck``, ``end``) and its whole log, so each game can be rebuilt from it
    as from its log.jsonl; and the players' stats."""
    summaries = all_summaries(games)
    for s in summaries:
        s.update(_header_extras(games.record(s["id"])))
        s["events"] = _events_or_damage(games, s)
    return {"games": summaries, "players": player_stats(summaries)}


def _header_extras(record: GameRecord) -> dict[str, Any]:
    """What a game's log header holds that its summary does not (docs/EVENTS.md): the deck
    it was set up with (None: none recorded; WD-5, HTD-1) and its end as the dashboard
    recorded it (``{"at": seconds, "winners": [seats]}``, None while it runs; WEB-1)."""
    return {"deck": record.deck, "end": recorded_end(record)}


def _events_or_damage(games: GameService, summary: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The game's exported events; None where the file's pages holding them are damaged
    (SQLITE_CORRUPT, a failing SD card), its ``error`` saying so: the other games are still
    exported (before, one damaged page made the whole export a 503)."""
    try:
        return exported_events(games, summary["id"])
    except sqlite3.DatabaseError as exc:
        if primary_code(exc) != sqlite3.SQLITE_CORRUPT:
            raise  # busy, full: the whole export may work later, as a 503 says
        why = f"game {summary['id']}: its events cannot be read: {storage_problem(exc)}"
        summary["error"] = summary["error"] or why
        return None


def exported_events(games: GameService, game_id: int) -> list[dict[str, Any]]:
    """Every stored entry, in order. One that no longer decodes is kept, marked: its
    ``error`` and its ``body`` as the log.jsonl download writes it, so nothing is left out
    without a trace."""
    with games.log.reading():  # one snapshot: an append meanwhile cannot misalign the two
        entries = list(games.log.entries(game_id))
        damaged = any(e.event is None for e in entries)
        bodies = _stored_bodies(games, game_id) if damaged else []
    return [_exported(e, bodies[i] if i < len(bodies) else None) for i, e in enumerate(entries)]


def _stored_bodies(games: GameService, game_id: int) -> list[str]:
    """Each entry's body as text, in order (log.jsonl's lines, less its header); none for a
    game whose rules, players or options cannot be read: its summary says why."""
    try:
        return games.log.log_lines(game_id)[1:]
    except GameUnreadable:
        return []


def _exported(entry: LogEntry, body: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": entry.seq, "recorded_at": entry.recorded_at}
    if entry.event is not None:
        out["event"] = entry.event.to_dict()
    else:
        out.update(event=None, error=entry.error, body=body)
    return out


def player_stats(summaries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per player: games played, games over (ended on the console, early or not, or
    finished by the rules) and won; only games over count wins, and a game every player
    won (all level: a Deck Dash stopped before any Dash was counted, an old early end)
    counts a win for nobody, as WEB-1 records none. Names equal but for capitals or width
    are one player (``name_key``, WEB-14), shown as the latest game spells it; a game that
    seats such a name twice (stored before WEB-14) counts once for them."""
    stats: dict[str, dict[str, Any]] = {}
    latest: dict[str, int] = {}  # key -> the game whose spelling the row shows
    for s in summaries:
        everyone = len(set(s["winners"])) >= len(s["players"])
        seats: dict[str, list[int]] = {}
        for seat, name in enumerate(s["players"]):
            seats.setdefault(name_key(name), []).append(seat)
        for key, taken in seats.items():
            row = stats.setdefault(key, {"player": "", "games": 0, "wins": 0, "ended": 0})
            if s["id"] >= latest.get(key, s["id"]):
                row["player"], latest[key] = s["players"][taken[0]], s["id"]
            row["games"] += 1
            if s["over"]:
                row["ended"] += 1
                if not everyone and any(seat in s["winners"] for seat in taken):
                    row["wins"] += 1
    return sorted(stats.values(), key=lambda r: (-r["wins"], -r["games"], r["player"]))


def describe(event: dict[str, Any] | None, players: list[str]) -> str:
    """An event in a line, as the console writes it: kind · player · payload."""
    if not isinstance(event, dict):
        return "unreadable entry"
    parts = [str(event.get("kind", "?"))]
    seat = event.get("seat")
    if isinstance(seat, int) and not isinstance(seat, bool):
        parts.append(players[seat] if 0 <= seat < len(players) else f"seat {seat}")
    payload = event.get("payload")
    if isinstance(payload, dict) and payload:
        parts.append(", ".join(f"{k}={_value(v)}" for k, v in payload.items()))
    return " · ".join(parts)


def _value(v: Any) -> str:
    if isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v):
        return " ".join(str(x) for x in v)
    return json.dumps(v) if isinstance(v, (dict, list)) else str(v)


def to_csv(summaries: list[dict[str, Any]]) -> str:
    """One row per game and seat, with each round's score in its own column."""
    n_rounds = max((len(s["rounds"]) for s in summaries), default=0)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(
        ["game_id", "game", "created", "ended", "seat", "player", "total", "winner"]
        + [f"round_{i}" for i in range(1, n_rounds + 1)]
    )
    for s in summaries:
        for seat, name in enumerate(s["players"]):
            total = s["totals"][seat] if seat < len(s["totals"]) else ""
            rounds = [r[seat] if seat < len(r) else "" for r in s["rounds"]]
            rounds += [""] * (n_rounds - len(rounds))
            writer.writerow(
                [s["id"], s["game"], s["created"], s["ended"], seat, _safe(name), total]
                + ["yes" if seat in s["winners"] else "no"]
                + rounds
            )
    return buf.getvalue()


def _safe(text: str) -> str:
    """Defuse spreadsheet formulas in player names (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
