"""Review 38 of the event log: a game keeps the deck it was set up with (an edit of a deck
file changes no game already begun, and its log replays the same on another Pi), a game ended
early exports its end, and the dashboard refuses a seat not at the table for every kind, while
a stored game holding one on a kind that needs none replays as it was judged."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import referee.hitthedeck.deck as htd_deck
import referee.washdash.deck as wd_deck
from referee.cli import main
from referee.eventlog import EventLog, GameUnreadable
from referee.events import Event, EventError
from referee.hitthedeck.game import GAME as HTD
from referee.registry import find_game
from referee.replay import ReplayError, replay
from referee.replay_cli import LogFileError, read_jsonl, replay_file
from referee.washdash.game import GAME as WD
from tests.test_web_routes import Tablet, make_app

DATA = Path(__file__).parent / "data"
WD_LOG = DATA / "wash-dash-example.jsonl"
HTD_LOG = DATA / "hit-the-deck-example.jsonl"
T27 = '{"id": "T27", "points": 2, "task": "pants:red; shirt:red"}'


def _clear_deck_caches() -> None:
    wd_deck.default_deck.cache_clear()
    htd_deck.composition.cache_clear()


@pytest.fixture
def edit_deck(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[..., None]]:
    """``edit_deck(module, text)``: the family edits that game's deck file (and the referee
    restarts, so nothing read before is kept). The shipped files are never touched."""

    def edit(module: Any, text: str) -> None:
        path = tmp_path / f"{module.__name__}.json"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(module, "DECK_FILE", path)
        _clear_deck_caches()

    yield edit
    monkeypatch.undo()
    _clear_deck_caches()


def _wash_deck_with_t27_blue() -> str:
    text = wd_deck.DECK_FILE.read_text(encoding="utf-8")
    assert T27 in text
    return text.replace(T27, T27.replace("shirt:red", "shirt:blue"))


def _htd_deck_one_hand_fewer() -> str:
    data = json.loads(htd_deck.DECK_FILE.read_text(encoding="utf-8"))
    data["extra"]["HAND"] -= 1  # the family's box lost a Hit the Deck With A Hand
    return json.dumps(data)


def _stored(db: Path, log_file: Path) -> int:
    """The game of ``log_file`` stored in the database ``db``, as the dashboard stores it."""
    name, players, options, events = read_jsonl(log_file, None)
    log = EventLog(db)
    try:
        game_id = log.create_game(name, players, options)
        log.append_many(game_id, events)
    finally:
        log.close()
    return game_id


def _board(log: EventLog, game_id: int) -> dict[str, Any]:
    record = log.game(game_id)
    return find_game(record.game).scoreboard(log.rebuild(game_id).state).to_dict()


# -- 1. a game keeps the deck it was set up with ------------------------------------------------
def test_ruling_wd5_a_wash_dash_game_keeps_the_deck_it_was_set_up_with(tmp_path, edit_deck):
    """Before: the log named card ids only, so editing T27 in the deck file rescored every
    stored game (totals [8, 11, 13] became [5, 10, 8]) and its downloaded log with it."""
    db = tmp_path / "tabletop.db"
    game_id = _stored(db, WD_LOG)
    log = EventLog(db)
    before = _board(log, game_id)
    assert before["totals"] == [8, 11, 13]
    lines = log.log_lines(game_id)
    assert json.loads(lines[0])["deck"] == wd_deck.default_deck().to_data()
    log.close()

    edit_deck(wd_deck, _wash_deck_with_t27_blue())
    log = EventLog(db)  # the dashboard after a restart
    assert _board(log, game_id) == before
    exported = tmp_path / "game.jsonl"
    exported.write_text("\n".join(lines) + "\n")
    assert replay_file(exported)["scoreboard"] == before  # on a Pi whose file is edited
    # a log without a deck (hand-written, or stored before) plays with the file as it is
    assert replay_file(WD_LOG)["scoreboard"]["totals"] == [5, 10, 8]
    # and a game set up now keeps the edited deck
    new_id = log.create_game("wash-dash", ["Ann", "Bob"])
    recorded = json.loads(log.log_lines(new_id)[0])["deck"]
    assert next(t for t in recorded["tasks"] if t["id"] == "T27")["task"] == "pants:red; shirt:blue"
    log.close()


def test_ruling_htd1_a_hit_the_deck_game_keeps_the_deck_it_was_set_up_with(tmp_path, edit_deck):
    """Before: a box with one Hand card fewer in deck.json made every stored game's deal
    illegal ("The deck has 109 cards but 110 were dealt"): 152 of 170 verdicts illegal."""
    db = tmp_path / "tabletop.db"
    game_id = _stored(db, HTD_LOG)
    log = EventLog(db)
    before = _board(log, game_id)
    lines = log.log_lines(game_id)
    header = json.loads(lines[0])
    assert header["deck"] == htd_deck.to_record(htd_deck.composition())
    assert header["deck"]["HAND"] == 4 and sum(header["deck"].values()) == 110
    log.close()

    edit_deck(htd_deck, _htd_deck_one_hand_fewer())
    log = EventLog(db)
    assert _board(log, game_id) == before
    exported = tmp_path / "game.jsonl"
    exported.write_text("\n".join(lines) + "\n")
    replayed = replay_file(exported)
    assert replayed["scoreboard"] == before
    assert not [v for v in replayed["verdicts"] if v["outcome"] == "illegal"]
    unrecorded = replay_file(HTD_LOG)  # no deck in the header: the file as it is now
    assert unrecorded["verdicts"][0]["reason"].startswith("The deck has 109 cards")
    log.close()


def test_ruling_htd1_the_dashboard_reads_the_deck_file_when_a_game_is_set_up(tmp_path, edit_deck):
    """The dashboard stores the deck with each new game: the file as it is at set-up (an
    edit reaches the next game, without a restart), in the downloaded log too."""
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    first = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cat"))
    edit_deck(htd_deck, _htd_deck_one_hand_fewer())
    htd_deck.composition()  # read before the edit's game is set up: a running server's copy
    second = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cat"))

    def header(game_id: int) -> dict[str, Any]:
        r = tablet.client.get(f"/api/games/{game_id}/log.jsonl")
        return json.loads(r.data.decode().splitlines()[0])

    assert header(first)["deck"]["HAND"] == 4 and header(second)["deck"]["HAND"] == 3
    deal = {"kind": "deal", "payload": {"hands": [7, 7, 7], "dealer": 0}}
    assert tablet.send(first, deal).status_code == 201
    assert tablet.snapshot(first)["view"]["draw_count"] == 110 - 21  # its own deck's
    assert "deck" not in header(tablet.new_game("deck-dash"))  # no deck file, none recorded


def test_a_deck_file_broken_since_the_server_started_is_a_409_at_set_up(tmp_path, monkeypatch):
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    tablet.new_game("wash-dash", ("Ann", "Bob"))  # the rules have read the deck file
    broken = tmp_path / "deck.json"
    broken.write_text(_wash_deck_with_t27_blue().replace("pants:red; shirt:blue", "hat:red"))
    monkeypatch.setattr(wd_deck, "DECK_FILE", broken)  # edited since: read at the next set-up
    r = tablet.post("/api/games", {"game": "wash-dash", "players": ["Ann", "Bob"]})
    assert r.status_code == 409
    assert r.json["error"] == (
        f"the deck for Wash Dash cannot be read: {broken}: card T27: unknown piece 'hat'; "
        "use pants, dress, shirt or any"
    )


def test_a_database_from_before_decks_were_recorded_opens_and_replays(tmp_path, capsys):
    """A game stored before (no decks table at all) plays with the deck file, as it did:
    opened by the dashboard (which adds the table) and read-only by ``tabletop log``."""
    db = tmp_path / "tabletop.db"
    game_id = _stored(db, WD_LOG)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE decks")
    conn.close()
    assert main(["log", str(game_id), "--db", str(db)]) == 0  # read-only: no table, no deck
    header = json.loads(capsys.readouterr().out.splitlines()[0])
    assert "deck" not in header and header["game"] == "wash-dash"
    log = EventLog(db)
    assert log.game(game_id).deck is None
    assert _board(log, game_id) == replay_file(WD_LOG)["scoreboard"]
    log.close()


@pytest.mark.parametrize(
    ("game", "deck", "message"),
    [
        ("hit-the-deck", {"R1": -1}, "the game's deck: R1 must be a count ≥ 0, got -1"),
        ("hit-the-deck", {"R9X": 4}, "the game's deck: bad card 'R9X'"),
        ("hit-the-deck", {"R1": 10**6}, "the game's deck must hold 1 to 1000 cards"),
        ("hit-the-deck", ["R1"], "the game's deck must be an object of card counts"),
        (
            "wash-dash",
            {"tasks": [{"id": "T1", "points": 1, "task": "hat:red"}]},
            "the game's deck: card T1",
        ),
        ("deck-dash", {"R1": 4}, "Deck Dash has no deck file"),
    ],
)
def test_a_recorded_deck_that_is_not_one_is_one_line(tmp_path, capsys, game, deck, message):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"game": game, "players": ["Ann", "Bob"], "deck": deck}) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop replay: {message}") and err.count("\n") == 1


# -- 2. a game ended early exports its end -----------------------------------------------------
def test_a_game_ended_early_exports_its_end_and_replay_reports_it(tmp_path, capsys):
    """Before: ending is no event and the result was not exported, so the downloaded log
    replayed as a game still running, with no word of the winners History shows."""
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    name, players, options, events = read_jsonl(DATA / "dos-example.jsonl", None)
    r = tablet.post("/api/games", {"game": name, "players": players, "options": options})
    game_id = r.json["id"]
    for event in events[:9]:
        assert tablet.send(game_id, event.to_dict()).status_code == 201
    running = tablet.client.get(f"/api/games/{game_id}/log.jsonl").data.decode()
    assert "ended" not in json.loads(running.splitlines()[0])
    ended = tablet.post(f"/api/games/{game_id}/end").json
    assert ended["finished"] is False and ended["winner_names"] == ["Ann"]

    path = tmp_path / "game.jsonl"
    path.write_bytes(tablet.client.get(f"/api/games/{game_id}/log.jsonl").data)
    header = json.loads(path.read_text().splitlines()[0])
    record = tablet.services.games.record(game_id)
    assert header["ended"] == {"at": record.ended_at, "winners": [0]}
    assert main(["replay", "--compact", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ended"] == {"at": record.ended_at, "winners": [0], "winner_names": ["Ann"]}
    assert out["scoreboard"] == replay_file(path)["scoreboard"]  # as replayed: unfinished
    assert out["scoreboard"]["finished"] is False
    # a log that records no end is reported with none: a replay never makes one up
    running_path = tmp_path / "running.jsonl"
    running_path.write_text(running)
    assert "ended" not in replay_file(running_path)


@pytest.mark.parametrize(
    ("ended", "message"),
    [
        ([0], "header 'ended' must be an object like"),
        ({"at": "noon"}, "header 'ended': 'at' must be a time in seconds"),
        ({"winners": [5]}, "header 'ended': 'winners' must be a list of seats 0..1"),
        ({"winners": [True]}, "header 'ended': 'winners' must be a list of seats 0..1"),
    ],
)
def test_a_bad_recorded_end_is_named(tmp_path, ended, message):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"game": "dos", "players": ["Ann", "Bob"], "ended": ended}) + "\n")
    with pytest.raises(LogFileError, match=message):
        replay_file(path)


# -- 3. a seat not at the table: refused on intake, replayed as judged ---------------------------
HTD_DEAL = [{"kind": "deal", "payload": {"hands": [7, 7], "dealer": 1}}]
HTD_UP = [*HTD_DEAL, {"kind": "turn_up", "payload": {"card": "HAND"}}]
HTD_RACE = [
    *HTD_DEAL,
    {"kind": "turn_up", "payload": {"card": "R3"}},
    {"kind": "play", "seat": 0, "payload": {"card": "HAND"}, "t_ns": 1},
]
DD_DEAL = [{"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G5"}}]
DOS_DEAL = [{"kind": "deal", "payload": {"hands": [3, 3], "piles": ["R7", "G2"]}}]
# (game, events before, an event of a kind that needs no seat): the dashboard gives it seat 7
NO_SEAT_KINDS = [
    ("hit-the-deck", HTD_DEAL, {"kind": "turn_up", "payload": {"card": "R3"}}),
    ("hit-the-deck", HTD_UP, {"kind": "shuffle"}),
    ("hit-the-deck", HTD_RACE, {"kind": "race_close", "t_ns": 5_000_000_000}),
    ("deck-dash", DD_DEAL, {"kind": "reshuffle"}),
    ("deck-dash", DD_DEAL, {"kind": "tally", "payload": {"hands": [1, 1]}}),
    ("dos", DOS_DEAL, {"kind": "reshuffle"}),
]


@pytest.mark.parametrize(("game", "before", "event"), NO_SEAT_KINDS)
def test_ruling_web13_a_stored_seat_not_at_the_table_on_a_kind_that_needs_none_replays_as_judged(
    game: str, before: list[dict[str, Any]], event: dict[str, Any]
) -> None:
    """Before: the engines refused such a seat for every kind, so a game the dashboard had
    stored with one (``turn_up`` seat 3 at a table of 3, 201 until day 38) no longer replayed
    ("409 this game's log cannot be replayed"). It is judged as it was: the seat ignored."""
    rules, players = find_game(game), ["Ann", "Bob"]
    with_seat = replay(
        rules, players, {}, [Event.from_dict(e) for e in [*before, {**event, "seat": 7}]]
    )
    without = replay(rules, players, {}, [Event.from_dict(e) for e in [*before, event]])

    def judged(result: Any) -> list[list[tuple[str, str]]]:
        return [[(v.outcome.value, v.reason) for v in s.verdicts] for s in result.steps]

    assert judged(with_seat) == judged(without)
    assert rules.scoreboard(with_seat.state) == rules.scoreboard(without.state)


def test_ruling_web13_a_game_stored_with_a_turn_up_for_seat_3_of_3_still_plays_on_the_dashboard(
    tmp_path,
):
    """The reviewer's game: stored by the dashboard before day 38, then opened by this one."""
    db = tmp_path / "tabletop.db"
    log = EventLog(db)
    game_id = log.create_game("hit-the-deck", ["Ann", "Bob", "Cat"])
    log.append_many(
        game_id,
        [
            Event("deal", payload={"hands": [7, 7, 7]}),
            Event("turn_up", 3, {"card": "G3"}),  # what the old dashboard stored (201)
            Event("play", 1, {"card": "G4"}),
        ],
    )
    log.close()
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    assert tablet.snapshot(game_id)["error"] is None
    r = tablet.send(game_id, {"kind": "draw", "seat": 2, "payload": {}})
    assert r.status_code == 201, r.json


def test_wash_dash_still_refuses_a_setup_for_a_seat_past_the_table() -> None:
    """Wash Dash's setup checked its seat before day 38 too (WD-23): stored games never hold
    one, and a log that does is refused as before."""
    with pytest.raises(ReplayError, match=r"event 1 \(setup\): seat 7 is not at this table"):
        replay(WD, ["Ann", "Bob"], {}, [Event("setup", 7)])


@pytest.mark.parametrize(
    ("game", "before", "event"),
    [*NO_SEAT_KINDS, ("wash-dash", [], {"kind": "setup"})],
)
def test_ruling_web13_a_seat_not_at_the_table_is_refused_for_every_kind_nothing_stored(
    referee: Tablet, game: str, before: list[dict[str, Any]], event: dict[str, Any]
) -> None:
    tablet = referee
    game_id = tablet.new_game(game, ("Ann", "Bob"))
    for earlier in before:
        assert tablet.send(game_id, earlier).status_code == 201
    r = tablet.send(game_id, {**event, "seat": 7})
    assert r.status_code == 400
    assert r.json["error"] == f"{event['kind']}: seat 7 is not at this table (2 players)"
    assert tablet.snapshot(game_id)["head"] == len(before)


def test_ruling_web13_the_dashboard_refuses_an_undo_or_overrule_with_a_seat_not_at_the_table(
    tmp_path,
):
    """Before: ``undo`` with seat 9 was stored (201), a seat no replay reads."""
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    game_id = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cat"))
    deal = {"kind": "deal", "payload": {"hands": [7, 7, 7]}}
    assert tablet.send(game_id, deal).status_code == 201
    r = tablet.send(game_id, {"kind": "turn_up", "seat": 42, "payload": {"card": "G3"}})
    assert r.status_code == 400
    assert r.json["error"] == "turn_up: seat 42 is not at this table (3 players)"
    r = tablet.send(game_id, {"kind": "undo", "seat": 9, "payload": {"target": 1}})
    assert r.status_code == 400
    assert r.json["error"] == "undo: seat 9 is not at this table (3 players)"
    replacement = {"kind": "deal", "seat": 5, "payload": {"hands": [7, 7, 7]}}
    r = tablet.post(f"/api/games/{game_id}/overrule", {"target": 1, "event": replacement})
    assert r.status_code == 400
    assert r.json["error"] == "overrule: the replacement's seat 5 is not at this table (3 players)"
    assert tablet.snapshot(game_id)["head"] == 1


# -- 4. what EVENTS.md says of a shuffle's draw pile -------------------------------------------
def test_a_shuffle_names_unseen_cards_with_question_marks_in_its_list() -> None:
    """EVENTS.md: the new order is a card list, ``"?"`` for a card nobody saw, or a count."""
    up = [Event.from_dict(e) for e in HTD_UP]
    state = replay(HTD, ["Ann", "Bob"], {}, up).state
    size = len(state.draw)
    for draw in (["?"] * size, size):
        shuffled, verdicts = HTD.apply(state, Event("shuffle", payload={"draw": draw}))
        assert verdicts[0].outcome.value == "legal" and len(shuffled.draw) == size
    with pytest.raises(EventError, match="draw must be a list of cards or a number of cards"):
        HTD.apply(state, Event("shuffle", payload={"draw": "?"}))


def test_the_shipped_wash_dash_deck_is_recorded_as_its_file_lists_it() -> None:
    """The recorded deck reads back as the same deck (each card, its points and task)."""
    recorded = WD.deck_record()
    assert wd_deck.parse_deck(recorded) == wd_deck.default_deck()
    assert recorded["tasks"][26] == json.loads(T27)
    assert WD.with_deck(recorded) is WD.with_deck(json.loads(json.dumps(recorded)))


def test_the_camera_rebuilds_a_hit_the_deck_pile_with_the_deck_the_game_was_set_up_with(
    tmp_path, edit_deck
):
    """A watcher started mid-game rebuilds the pile from the log (TBL-2); with the deck file
    edited since the game was set up, it must replay with the game's deck, or the deal is
    refused and the pile it knows is empty."""
    from web.services.referee_camera import piles_from_log

    db = tmp_path / "tabletop.db"
    game_id = _stored(db, HTD_LOG)
    edit_deck(htd_deck, _htd_deck_one_hand_fewer())
    log = EventLog(db)
    try:
        record, steps = log.game(game_id), log.rebuild(game_id).steps[:4]
        piles = piles_from_log("hit-the-deck", HTD, record, steps, ["discard_1"], lambda e: None)
    finally:
        log.close()
    played = [s.event.get("card") for s in steps if s.event.kind == "play"]
    assert piles["discard_1"].cards[-len(played) :] == played


def test_wash_dash_refuses_a_negative_seat_built_in_python():
    """``Event.from_dict`` refuses a negative seat, but an Event built in Python reached the
    engine, which took seat -1 as the last player (``players[-1]``): a second claim for them."""
    state = WD.new_state(["Ann", "Bob", "Cy"], {})
    with pytest.raises(EventError, match="seat -1 is not at this table"):
        WD.apply(state, Event("done", -1, {"card": "T01"}))


# -- 5. a broken deck file stops only the games that play with it ------------------------------
def test_a_deck_file_broken_since_changes_nothing_for_a_game_that_keeps_its_deck(
    tmp_path, edit_deck
):
    """Before: the dashboard loaded the file's deck for every Wash Dash request, so a game
    set up before the typo (its own deck recorded) answered 409 to every snapshot and event,
    while ``tabletop replay`` of its exported log played it. A game stored without a deck
    plays with the file, and is still told, in one line, that the file is broken."""
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    kept = tablet.new_game("wash-dash", ("Ann", "Bob"))
    before = tablet.new_game("wash-dash", ("Ann", "Bob"))
    with sqlite3.connect(tmp_path / "tabletop.db") as conn:  # as if stored before day 38
        conn.execute("DELETE FROM decks WHERE game_id = ?", (before,))
    conn.close()
    assert tablet.send(kept, {"kind": "setup", "payload": {"first": 0}}).status_code == 201
    edit_deck(wd_deck, _wash_deck_with_t27_blue().replace("pants:red; shirt:blue", "hat:red"))
    assert tablet.snapshot(kept)["error"] is None
    r = tablet.send(kept, {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T02"]}})
    assert r.status_code == 201, r.json
    r = tablet.client.get(f"/api/games/{before}")
    assert r.status_code == 409
    assert r.json["error"] == (
        f"the rules for 'wash-dash' cannot be loaded: {wd_deck.DECK_FILE}: card T27: unknown "
        "piece 'hat'; use pants, dress, shirt or any"
    )


# -- 6. a Wash Dash deck too small for a game, or larger than any box ---------------------------
def _tasks(n: int) -> dict[str, Any]:
    return {"tasks": [{"id": f"T{i}", "points": 1, "task": "pants:red"} for i in range(n)]}


def _wash_log(tmp_path: Path, deck: Any, players: int = 2) -> Path:
    path = tmp_path / "log.jsonl"
    header = {"game": "wash-dash", "players": ["Ann", "Bob", "Cy", "Dee"][:players], "deck": deck}
    path.write_text(json.dumps(header) + '\n{"kind": "setup", "payload": {"first": 0}}\n')
    return path


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (1, "the deck has 1 card; a game needs at least 23: 20 go back in the box"),
        (22, "the deck has 22 cards; a game needs at least 23"),
        (1001, "the deck has 1001 cards; a deck holds at most 1000"),
    ],
)
def test_a_recorded_wash_dash_deck_too_small_or_too_large_is_one_line(
    tmp_path, capsys, cards, message
):
    """Before: a header deck smaller than the 20 cards put back in the box was a traceback
    (ValueError: __len__() should return >= 0) at the setup; a deck of 500 000 cards took 26 s
    and 800 MB to read (Hit the Deck's stops at 1000)."""
    assert main(["replay", str(_wash_log(tmp_path, _tasks(cards)))]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop replay: the game's deck: {message}") and err.count("\n") == 1


def test_a_recorded_wash_dash_deck_of_23_cards_sets_up_every_table(tmp_path):
    for players in (2, 4):
        out = replay_file(_wash_log(tmp_path, _tasks(23), players))
        assert out["verdicts"][0]["outcome"] == "legal"


def test_the_fewest_cards_are_the_box_and_a_round_at_every_table():
    from referee.washdash.state import BOXED_FOR, CARDS_PER_ROUND

    need = max(BOXED_FOR[n] + CARDS_PER_ROUND[n] for n in BOXED_FOR)
    assert wd_deck.MIN_CARDS == need == 23


def test_a_deck_file_too_small_for_a_game_is_one_line(tmp_path, capsys, edit_deck):
    edit_deck(wd_deck, json.dumps(_tasks(1)))
    log = tmp_path / "log.jsonl"
    log.write_text('{"game": "wash-dash", "players": ["Ann", "Bob"]}\n{"kind": "setup"}\n')
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop replay: {wd_deck.DECK_FILE}: the deck has 1 card")
    assert err.count("\n") == 1


def test_a_setup_with_a_deck_made_in_python_too_small_is_an_event_error():
    rules = type(WD)(wd_deck.parse_deck(_tasks(1)))
    with pytest.raises(EventError, match="the deck has 1 card, fewer than the 20 that go back"):
        rules.apply(rules.new_state(["Ann", "Bob"], {}), Event("setup"))


# -- 7. a deck from the log is not named deck.json ---------------------------------------------
def test_messages_name_the_games_deck_when_it_came_from_the_log(tmp_path, capsys):
    """Before: "do not fit the 20-card deck (deck.json, HTD-1)" for a deck read from the log's
    header; a log without one still names the file it plays with."""
    path = tmp_path / "small.jsonl"
    header = {"game": "hit-the-deck", "players": ["Ann", "Bob", "Cat"]}
    path.write_text(json.dumps({**header, "deck": {"R1": 10, "G1": 10}}) + "\n")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == (
        "tabletop replay: 3 hands of 7 and a card to turn up do not fit the 20-card deck "
        "(the game's deck, HTD-1): at most 6 cards each\n"
    )
    events = [{"kind": "deal", "payload": {"hands": [7, 7, 7]}}, {"kind": "turn_up"}]
    events[1]["payload"] = {"card": "R7"}
    for deck, named in (
        (htd_deck.to_record(htd_deck.composition()), "the game's deck"),
        (None, "deck.json"),
    ):
        head = header if deck is None else {**header, "deck": deck}
        path.write_text("\n".join(json.dumps(x) for x in [head, *events]) + "\n")
        reason = replay_file(path)["verdicts"][-1]["reason"]
        assert reason == f"There is no red 7 in this deck (numbers 1–5; {named}, HTD-1)."


# -- 8. History's Export JSON holds what a log's header holds ----------------------------------
def test_history_export_holds_each_games_deck_and_end(tmp_path):
    """Before: the export said it held what a rebuild needs, yet left out the deck (a Wash
    Dash game then scored with whatever the file says now) and the recorded end."""
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    running = tablet.new_game("wash-dash", ("Ann", "Bob"))
    ended = tablet.new_game("dos", ("Ann", "Bob"))
    assert tablet.post(f"/api/games/{ended}/end").status_code == 200
    games = {g["id"]: g for g in tablet.client.get("/api/history.json").json["games"]}

    def header(game_id: int) -> dict[str, Any]:
        r = tablet.client.get(f"/api/games/{game_id}/log.jsonl")
        return json.loads(r.data.decode().splitlines()[0])

    assert games[running]["deck"] == header(running)["deck"] == WD.deck_record()
    assert games[running]["end"] is None
    assert games[ended]["deck"] is None and "deck" not in header(ended)
    assert games[ended]["end"] == header(ended)["ended"]
    assert set(games[ended]["end"]) == {"at", "winners"}


# -- 9. reading a game's record -----------------------------------------------------------------
def test_a_games_record_is_read_in_two_queries_and_its_deck_when_asked_for(tmp_path):
    """Before: every record asked sqlite_master whether the decks table exists and read and
    parsed its deck, listings included: ``game()`` went from 14.5 to 30 µs and ``games()`` of
    1000 games from 20 to 55 ms. The table is looked up once per connection, the deck read with
    the row and parsed only when a replay or an export asks for it."""
    log = EventLog(tmp_path / "tabletop.db")
    ids = [log.create_game("wash-dash", ["Ann", "Bob"]) for _ in range(3)]
    asked: list[str] = []
    log._conn().set_trace_callback(asked.append)
    records = [*log.games(), log.game(ids[0])]
    log._conn().set_trace_callback(None)
    looked_up = sum("sqlite_master" in q for q in asked)
    assert looked_up <= 1
    assert len(asked) - looked_up == 1 + 2 * len(records)  # the ids, then a row and its players
    assert all("_deck_read" not in vars(r) for r in records)  # not parsed for a listing
    assert records[0].deck == WD.deck_record()
    with sqlite3.connect(tmp_path / "tabletop.db") as conn:  # a damaged deck: said when read
        conn.execute("UPDATE decks SET deck = '{\"tasks\": [' WHERE game_id = ?", (ids[1],))
    conn.close()
    assert log.games()[1].error is None
    with pytest.raises(GameUnreadable, match=f"game {ids[1]} cannot be read: its deck is not JSON"):
        log.rebuild(ids[1])
    log.close()
