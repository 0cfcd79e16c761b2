"""The dashboard through Flask's test client: every route, the PIN, CSRF, bad input."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from werkzeug.security import check_password_hash

from tests.serving import ServedApp
from web import create_app
from web.config import ConfigError, WebConfig, load_file

PIN = "2468"

DEAL = {"kind": "deal", "seat": 0, "payload": {"start": "R5", "hands": [12, 12]}}
# Bob goes out on Dash 1 (3 pairs) in one turn; Ann is left holding 12 cards.
BOB_FINISHES = [
    DEAL,
    {"kind": "draw", "seat": 1, "payload": {"from": "discard"}},
    {"kind": "lay", "seat": 1, "payload": {"cards": ["R1", "R1", "R2", "R2", "R3", "R3"]}},
    *[
        {"kind": "handoff", "seat": 1, "payload": {"card": c, "group": i // 2}}
        for i, c in enumerate(["G1", "G1", "G2", "G2", "G3", "G3"])
    ],
    {"kind": "discard", "seat": 1, "payload": {"card": "R5"}},
]


def csrf_of(html: bytes) -> str:
    m = re.search(rb'name="csrf-token" content="([^"]+)"', html)
    assert m, "every page carries the CSRF token"
    return m.group(1).decode()


class Tablet:
    """A test client that can unlock as the referee and send JSON with the CSRF header."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.client = app.test_client()
        self.token = csrf_of(self.client.get("/scoreboard").data)

    @property
    def services(self) -> Any:
        return self.app.extensions["tabletop"]

    def refresh_token(self) -> str:
        self.token = csrf_of(self.client.get("/scoreboard").data)
        return self.token

    def set_pin(self, pin: str = PIN) -> Any:
        code = self.services.settings.setup_code
        r = self.client.post(
            "/pin/setup",
            data={"csrf_token": self.token, "setup_code": code, "pin": pin, "pin2": pin},
        )
        self.refresh_token()
        return r

    def login(self, pin: str = PIN) -> Any:
        r = self.client.post("/login", data={"csrf_token": self.token, "pin": pin})
        self.refresh_token()
        return r

    def post(self, url: str, data: Any = None, token: str | None = "own") -> Any:
        headers = {} if token is None else {"X-CSRF-Token": self.token if token == "own" else token}
        return self.client.post(url, json=data if data is not None else {}, headers=headers)

    def new_game(self, game: str = "deck-dash", players: tuple[str, ...] = ("Ann", "Bob")) -> int:
        r = self.post("/api/games", {"game": game, "players": list(players), "options": {}})
        assert r.status_code == 201, r.json
        return int(r.json["id"])

    def send(self, game_id: int, event: dict[str, Any]) -> Any:
        return self.post(f"/api/games/{game_id}/events", event)

    def snapshot(self, game_id: int) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{game_id}")
        assert r.status_code == 200
        return r.json


def make_app(tmp_path: Path, **extra: Any) -> Any:
    cfg = WebConfig(db_path=tmp_path / "tabletop.db", testing=True, **extra)
    return create_app(cfg)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def tablet(app):
    return Tablet(app)


@pytest.fixture
def referee(app):
    t = Tablet(app)
    assert t.set_pin().status_code == 302
    return t


def test_every_page_renders_for_a_viewer_without_pin(tablet):
    for url in ("/scoreboard", "/console", "/live", "/setup", "/history", "/calibration"):
        r = tablet.client.get(url)
        assert r.status_code == 200, url
        assert b"Set referee PIN" in r.data  # nobody set one yet: the page says so
    assert tablet.client.get("/").status_code == 302
    assert tablet.client.get("/j").headers["Location"].endswith("/scoreboard")
    assert tablet.client.get("/hardware").status_code == 200


def test_there_is_no_default_pin_and_setting_it_needs_the_setup_code(tablet):
    s = tablet.services.settings
    assert not s.pin_is_set
    for guess in ("0000", "1234", ""):
        assert not s.check_pin(guess)
    assert tablet.client.get("/login").headers["Location"].endswith("/pin/setup")
    r = tablet.client.post(
        "/pin/setup",
        data={"csrf_token": tablet.token, "setup_code": "000000x", "pin": PIN, "pin2": PIN},
    )
    assert r.status_code == 400 and b"wrong setup code" in r.data
    assert not s.pin_is_set
    bad = tablet.client.post(
        "/pin/setup",
        data={"csrf_token": tablet.token, "setup_code": s.setup_code, "pin": "12", "pin2": "12"},
    )
    assert bad.status_code == 400 and b"4 to 12 digits" in bad.data
    assert tablet.set_pin().status_code == 302
    assert s.pin_is_set and s.check_pin(PIN) and not s.check_pin("1357")


def test_the_pin_is_stored_hashed_in_the_dashboards_own_table(referee, tmp_path):
    db = sqlite3.connect(tmp_path / "tabletop.db")
    (stored,) = db.execute("SELECT value FROM web_settings WHERE key = 'pin_hash'").fetchone()
    # no field is the PIN itself (a hash's hex digits may hold "2468" by chance: ~1 run in 500)
    assert PIN not in stored.replace("$", ":").split(":")
    assert stored.split(":")[0] in ("scrypt", "pbkdf2")  # werkzeug's password hash
    assert check_password_hash(stored, PIN) and not check_password_hash(stored, "1357")


def test_the_pin_cannot_be_set_twice(referee):
    other = Tablet(referee.app)
    r = other.client.post(
        "/pin/setup",
        data={
            "csrf_token": other.token,
            "setup_code": referee.services.settings.setup_code,
            "pin": "9999",
            "pin2": "9999",
        },
    )
    assert r.status_code == 409
    assert referee.services.settings.check_pin(PIN)


def test_wrong_pins_are_refused_then_throttled(referee):
    other = Tablet(referee.app)
    for _ in range(5):
        assert other.login("0000").status_code == 403
    assert other.login(PIN).status_code == 429  # locked out for a while, even with the PIN
    assert other.post("/api/games", {"game": "deck-dash", "players": ["A", "B"]}).status_code == 401


def test_login_then_logout_and_no_open_redirect(referee):
    other = Tablet(referee.app)
    r = other.client.post(
        "/login", data={"csrf_token": other.token, "pin": PIN, "next": "//evil.example/x"}
    )
    assert r.status_code == 302 and r.headers["Location"] == "/console"
    other.refresh_token()
    assert other.client.get("/api/whoami").json["referee"] is True
    other.client.post("/logout", data={"csrf_token": other.token})
    assert other.client.get("/api/whoami").json["referee"] is False


def test_changing_the_pin_ends_other_referee_sessions(referee):
    second = Tablet(referee.app)
    second.login()
    assert second.client.get("/api/whoami").json["referee"]
    r = referee.client.post(
        "/pin/change",
        data={"csrf_token": referee.token, "old": PIN, "pin": "13579", "pin2": "13579"},
    )
    assert r.status_code == 302
    assert referee.client.get("/api/whoami").json["referee"]
    assert not second.client.get("/api/whoami").json["referee"]


CHANGES = [
    ("/api/games", {"game": "deck-dash", "players": ["A", "B"]}),
    ("/api/games/1/events", DEAL),
    ("/api/games/1/undo", {"target": 1}),
    ("/api/games/1/overrule", {"target": 1, "event": DEAL}),
    ("/api/games/1/accept", {"seq": 1}),
    ("/api/games/1/end", {}),
    ("/api/zones", {"zones": []}),
    ("/api/pads/press", {"seat": 0, "device": "pad"}),
]


def test_every_change_is_refused_without_the_pin(referee):
    game_id = referee.new_game()
    referee.send(game_id, DEAL)
    viewer = Tablet(referee.app)  # has a session and a CSRF token, but no PIN
    for url, body in CHANGES:
        r = viewer.post(url, body)
        assert r.status_code == 401, url
        assert "referee PIN" in r.json["error"]
    snap = referee.snapshot(game_id)
    assert [f["seq"] for f in snap["feed"]] == [1]
    assert snap["game"]["ended_at"] is None
    assert len(referee.client.get("/api/games").json["games"]) == 1


def test_every_change_is_refused_without_a_valid_csrf_token(referee):
    game_id = referee.new_game()
    for url, body in CHANGES:
        assert referee.post(url, body, token=None).status_code == 403, url
        assert referee.post(url, body, token="forged-token-xxxxxxxxxxxx").status_code == 403
    # A form post from another site carries no token either.
    r = referee.client.post("/logout")
    assert r.status_code == 403
    assert referee.snapshot(game_id)["feed"] == []


def test_a_referee_event_is_checked_stored_and_scored(referee):
    game_id = referee.new_game()
    for event in BOB_FINISHES:
        r = referee.send(game_id, event)
        assert r.status_code == 201, r.json
        assert not [v for v in r.json["verdicts"] if v["outcome"] == "illegal"]
    snap = referee.snapshot(game_id)
    assert snap["scoreboard"]["totals"] == [12, 0]
    assert snap["scoreboard"]["rounds"] == [[12, 0]]
    reasons = [v["reason"] for f in snap["feed"] for v in f["verdicts"]]
    assert "Bob finished and wins Dash 1." in reasons
    assert snap["view"]["totals"] == [12, 0]


def test_a_malformed_event_is_a_400_and_is_not_stored(referee):
    game_id = referee.new_game()
    for bad in (
        {"kind": "teleport", "seat": 0},
        {"kind": "deal", "seat": 0, "payload": {"start": "X99", "hands": [12, 12]}},
        {"kind": "deal", "seat": -3},
        {"kind": "", "payload": {}},
        {"kind": "deal", "payload": "not an object"},
        {"kind": "deal", "color": "red"},
    ):
        r = referee.send(game_id, bad)
        assert r.status_code == 400, bad
        assert r.json["error"]
    assert referee.snapshot(game_id)["feed"] == []


def test_an_illegal_play_is_stored_with_its_reason(referee):
    game_id = referee.new_game()
    referee.send(game_id, DEAL)
    r = referee.send(game_id, {"kind": "discard", "seat": 0, "payload": {"card": "G7"}})
    assert r.status_code == 201
    assert r.json["verdicts"][0]["outcome"] == "illegal"
    feed = referee.snapshot(game_id)["feed"]
    assert feed[-1]["verdicts"][0]["reason"] == r.json["verdicts"][0]["reason"]


def test_undo_and_overrule_are_events_and_change_the_score(referee):
    game_id = referee.new_game()
    for event in BOB_FINISHES:
        referee.send(game_id, event)
    tally = {"kind": "tally", "payload": {"hands": [["R9", "R10"], []]}}
    seq = referee.send(game_id, tally).json["seq"]
    assert referee.snapshot(game_id)["scoreboard"]["totals"] == [2, 0]
    new = {"kind": "tally", "payload": {"hands": [["R9", "R10", "B4", "Y6", "W"], []]}}
    r = referee.post(f"/api/games/{game_id}/overrule", {"target": seq, "event": new})
    assert r.status_code == 201, r.json
    snap = referee.snapshot(game_id)
    assert snap["scoreboard"]["totals"] == [5, 0]
    item = next(f for f in snap["feed"] if f["seq"] == seq)
    assert item["status"] == "overruled" and item["replacement"]["payload"] == new["payload"]
    overrule_seq = r.json["seq"]
    assert referee.post(f"/api/games/{game_id}/undo", {"target": overrule_seq}).status_code == 201
    assert referee.snapshot(game_id)["scoreboard"]["totals"] == [2, 0]
    assert referee.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    assert referee.snapshot(game_id)["scoreboard"]["totals"] == [12, 0]
    kinds = [f["event"]["kind"] for f in referee.snapshot(game_id)["feed"]]
    assert kinds[-3:] == ["overrule", "undo", "undo"]  # nothing was edited or deleted


def test_bad_undo_and_overrule_targets_are_400s(referee):
    game_id = referee.new_game()
    referee.send(game_id, DEAL)
    url = f"/api/games/{game_id}"
    assert referee.post(url + "/undo", {"target": 99}).status_code == 400
    assert referee.post(url + "/undo", {"target": "one"}).status_code == 400
    assert referee.post(url + "/undo", {}).status_code == 400
    assert (
        referee.post(url + "/overrule", {"target": 1, "event": {"kind": "undo"}}).status_code == 400
    )
    assert referee.post(url + "/overrule", {"target": 1, "event": "deal"}).status_code == 400
    bad_card = {"kind": "deal", "seat": 0, "payload": {"start": "Q1", "hands": [12, 12]}}
    assert referee.post(url + "/overrule", {"target": 1, "event": bad_card}).status_code == 400
    assert [f["seq"] for f in referee.snapshot(game_id)["feed"]] == [1]


def test_ruling_web2_accept_marks_a_verdict_reviewed_without_touching_the_log(referee):
    game_id = referee.new_game()
    referee.send(game_id, DEAL)
    r = referee.post(f"/api/games/{game_id}/accept", {"seq": 1})
    assert r.status_code == 200
    snap = referee.snapshot(game_id)
    assert snap["feed"][0]["review"] == "accepted"
    assert len(snap["feed"]) == 1
    assert referee.post(f"/api/games/{game_id}/accept", {"seq": 7}).status_code == 404


def test_setup_rejects_bad_games_players_and_options(referee):
    bad = [
        {"game": "chess", "players": ["A", "B"]},
        {"game": "deck-dash", "players": ["A"]},
        {"game": "deck-dash", "players": ["A", "A"]},
        {"game": "deck-dash", "players": "A,B"},
        {"game": "deck-dash", "players": ["A", "B"], "options": {"level": "impossible"}},
        {"game": "deck-dash", "players": ["A", "B"], "options": {"nonsense": 1}},
        {"game": "deck-dash", "players": ["A", "B"], "options": []},
        {"game": 5, "players": ["A", "B"]},
        {"game": "deck-dash", "players": ["A" * 500, "B"]},
    ]
    for body in bad:
        r = referee.post("/api/games", body)
        assert r.status_code in (400, 409), body
        assert r.json["error"]
    assert referee.client.get("/api/games").json["games"] == []


def test_setup_options_come_from_the_games_option_specs(referee):
    games = referee.client.get("/api/catalogue").json["games"]
    dd = next(g for g in games if g["name"] == "deck-dash")
    level = next(o for o in dd["options"] if o["name"] == "level")
    assert level["type"] == "choice" and "advanced" in level["choices"]
    assert dd["event_kinds"]["lay"]
    r = referee.post(
        "/api/games",
        {"game": "deck-dash", "players": ["A", "B", "C"], "options": {"level": "advanced"}},
    )
    assert r.status_code == 201
    snap = referee.snapshot(r.json["id"])
    assert snap["game"]["options"] == {"level": "advanced"}
    assert snap["scoreboard"]["extra"]["level"] == "advanced"


def test_ruling_web1_ending_early_makes_the_leaders_the_winners(referee):
    game_id = referee.new_game()
    for event in BOB_FINISHES:
        referee.send(game_id, event)
    r = referee.post(f"/api/games/{game_id}/end")
    assert r.status_code == 200
    assert r.json["finished"] is False and r.json["winner_names"] == ["Bob"]
    assert referee.send(game_id, DEAL).status_code == 409  # an ended game takes no events
    assert referee.post(f"/api/games/{game_id}/end").status_code == 409
    history = referee.client.get("/api/history").json
    assert history["games"][0]["winner_names"] == ["Bob"]
    bob = next(p for p in history["players"] if p["player"] == "Bob")
    assert bob == {"player": "Bob", "games": 1, "wins": 1, "ended": 1}


def test_ruling_web1_a_game_ended_with_everyone_level_has_no_winners(referee):
    """Ended before anyone scored: before, every player was recorded as a winner, and
    History gave each of them a win (4 such games: "4 wins, 100 %" for everybody)."""
    game_id = referee.new_game()
    assert referee.send(game_id, DEAL).status_code == 201
    r = referee.post(f"/api/games/{game_id}/end")
    assert r.status_code == 200 and (r.json["winners"], r.json["winner_names"]) == ([], [])
    history = referee.client.get("/api/history").json
    assert {p["player"]: p["wins"] for p in history["players"]} == {"Ann": 0, "Bob": 0}


def test_ruling_web1_a_deck_dash_stopped_before_any_dash_counts_no_win(referee):
    """Deck Dash's own stop (DD-13) before any Dash is counted finishes with everyone
    sharing the win; History gave each player a win for it, as for an early end."""
    game_id = referee.new_game()
    assert referee.send(game_id, DEAL).status_code == 201
    assert referee.send(game_id, {"kind": "stop"}).status_code == 201
    history = referee.client.get("/api/history").json
    assert history["games"][0]["over"] and sorted(history["games"][0]["winners"]) == [0, 1]
    assert {p["player"]: p["wins"] for p in history["players"]} == {"Ann": 0, "Bob": 0}


def test_history_pages_and_exports(referee):
    first = referee.new_game()
    for event in BOB_FINISHES:
        referee.send(game_id=first, event=event)
    referee.post(f"/api/games/{first}/end")
    second = referee.new_game(players=("=cmd()", "Cy"))
    page = referee.client.get("/history").data.decode()
    assert "Deck Dash" in page and "Bob" in page and "running" in page
    detail = referee.client.get(f"/history/{first}").data.decode()
    assert "Winner: Bob" in detail and ">12<" in detail
    csv_text = referee.client.get("/api/history.csv").data.decode()
    lines = csv_text.strip().splitlines()
    assert lines[0].startswith("game_id,game,created,ended,seat,player,total,winner,round_1")
    assert any(line.startswith(f"{first},deck-dash,") and ",Bob,0,yes,0" in line for line in lines)
    assert any("'=cmd()" in line for line in lines)  # no spreadsheet formula injection
    data = json.loads(referee.client.get("/api/history.json").data)
    by_id = {g["id"]: g for g in data["games"]}
    assert by_id[first]["rounds"] == [[12, 0]]
    assert [e["event"]["kind"] for e in by_id[first]["events"]][:2] == ["deal", "draw"]
    assert by_id[second]["running"] is True
    assert referee.client.get("/history/999").status_code == 404


def test_history_says_a_game_the_rules_finished_is_over_before_it_is_ended(referee):
    """A game won by the rules (here Deck Dash to one Dash) is not yet ended on the console
    (an overrule may still change its last event), but History must not call it running:
    it names the winner, counts it in the players' table, and its page says it is over;
    the event list names players and payloads, and marks only events that are not "ok"."""
    r = referee.post(
        "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"], "options": {"dash_count": 1}}
    )
    game_id = int(r.json["id"])
    for event in BOB_FINISHES:
        assert referee.send(game_id, event).status_code in (200, 201)
    assert referee.snapshot(game_id)["scoreboard"]["finished"] is True
    history = referee.client.get("/api/history").json
    summary = history["games"][0]
    assert summary["running"] is True and summary["finished"] is True and summary["over"] is True
    assert summary["winner_names"] == ["Bob"]
    bob = next(p for p in history["players"] if p["player"] == "Bob")
    assert bob == {"player": "Bob", "games": 1, "wins": 1, "ended": 1}
    page = referee.client.get("/history").data.decode()
    assert ">running<" not in page and "game over, not yet ended" in page
    detail = referee.client.get(f"/history/{game_id}").data.decode()
    assert "over by the rules, not yet ended on the console" in detail
    assert "lay · Bob · cards=R1 R1 R2 R2 R3 R3" in detail and "seat 1" not in detail
    assert '<span class="tag">ok</span>' not in detail


STREAMS = ("text/event-stream", "multipart/x-mixed-replace")


def test_garbage_to_every_route_never_gives_a_5xx(referee):
    """Every rule in the url_map, with hostile paths, queries and bodies, as a viewer and as
    the referee: always a 4xx (or a success), never a 5xx or a traceback."""
    game_id = referee.new_game()
    referee.send(game_id, DEAL)
    viewer = Tablet(referee.app)
    garbage_bodies: list[dict[str, Any]] = [
        {"data": b"\x00\xff\xfe garbage", "content_type": "application/json"},
        {"data": b"{not json", "content_type": "application/json"},
        {"data": b"[1,2,3]", "content_type": "application/json"},
        {
            "data": b'{"kind": {"a": 1}, "seat": "x", "payload": [], "target": null}',
            "content_type": "application/json",
        },
        {
            "data": json.dumps(
                {
                    "game": ["x"],
                    "players": [1, None],
                    "options": "x",
                    "event": 5,
                    "target": 10**30,
                    "seq": -1,
                    "zones": [{"name": 1}],
                    "seat": 10**20,
                    "device": [],
                }
            ).encode(),
            "content_type": "application/json",
        },
        {
            "data": b"a=1&pin=%00%ff&csrf_token=zz&next=javascript:alert(1)",
            "content_type": "application/x-www-form-urlencoded",
        },
        {"data": b"x" * 300_000, "content_type": "application/json"},
    ]
    values = {"int": ["0", "1", str(game_id), "99999999999999999999"], "default": ["x"]}
    checked = 0
    for rule in referee.app.url_map.iter_rules():
        urls = [rule.rule]
        for arg, conv in rule._converters.items():
            kind = "int" if type(conv).__name__ == "IntegerConverter" else "default"
            samples = values[kind] + ["..%2F..%2Fetc%2Fpasswd", "%00"]
            urls = [u.replace(f"<{rule_arg(rule, arg)}>", s) for u in urls for s in samples]
        for url in urls:
            for who in (viewer, referee):
                for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                    for query in QUERIES if method == "GET" else QUERIES[:2]:
                        bodies = garbage_bodies if method == "POST" else [{}]
                        for body in bodies:
                            headers = {"X-CSRF-Token": who.token}
                            r = who.client.open(url + query, method=method, headers=headers, **body)
                            assert r.status_code < 500, (method, url + query, r.status_code)
                            # SSE/MJPEG bodies never end: not read (the test client marks every
                            # unread response streamed, so ``is_streamed`` skipped them all)
                            if r.mimetype not in STREAMS:
                                assert b"Traceback" not in r.data
                            r.close()
                            checked += 1
    assert checked > 500
    assert [f["seq"] for f in referee.snapshot(game_id)["feed"]] == [1]  # nothing was lost


QUERIES = ("", "?game=abc&pads=1&next=//x", "?game=-1", "?game=99999999999999&t=%ff")


def rule_arg(rule: Any, arg: str) -> str:
    """The placeholder text of ``arg`` in ``rule.rule`` (e.g. ``int:game_id``)."""
    m = re.search(r"<([^>]*:)?" + re.escape(arg) + ">", rule.rule)
    assert m
    return m.group(0)[1:-1]


def test_zones_are_saved_normalised_and_validated(referee, tmp_path):
    zones = {
        "frame": {"width": 640, "height": 480},
        "zones": [
            {"name": "draw_pile", "points": [[0.1, 0.1], [0.2, 0.1], [0.2, 0.3]]},
            {"name": "seat_1_dryer_bar_2", "points": [[0.5, 0.5], [0.6, 0.5], [0.6, 0.55]]},
        ],
    }
    r = referee.post("/api/zones", zones)
    assert r.status_code == 200
    saved = json.loads((tmp_path / "zones.json").read_text())
    assert saved["version"] == 1
    bar = saved["zones"][1]
    assert (bar["kind"], bar["seat"], bar["bar"]) == ("dryer_bar", 1, 2)
    assert referee.client.get("/api/zones").json["zones"][0]["kind"] == "draw_pile"
    for bad in (
        {"zones": [{"name": "moon", "points": [[0, 0], [1, 0], [1, 1]]}]},
        {"zones": [{"name": "draw_pile", "points": [[0, 0], [1, 0]]}]},
        {"zones": [{"name": "draw_pile", "points": [[0, 0], [1.5, 0], [1, 1]]}]},
        {"zones": [{"name": "draw_pile", "points": [[0, 0], [1, 0], [1, 1]]}] * 2},
        {"zones": "all"},
    ):
        assert referee.post("/api/zones", bad).status_code == 400, bad
    assert json.loads((tmp_path / "zones.json").read_text()) == saved


def test_live_view_says_clearly_when_no_camera_is_configured(referee):
    page = referee.client.get("/live").data.decode()
    assert "No camera is configured" in page
    assert referee.client.get("/api/camera/frame.jpg").status_code == 404
    assert referee.client.get("/api/camera/stream.mjpg").status_code == 404
    assert referee.client.get("/api/camera/status").json["configured"] is False


def write_images(folder: Path, n: int = 3) -> Path:
    import cv2
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        img = np.full((120, 160, 3), 40 * i, np.uint8)
        cv2.rectangle(img, (20 + 10 * i, 20), (60 + 10 * i, 80), (0, 0, 255), -1)
        cv2.imwrite(str(folder / f"f{i:03d}.jpg"), img)
    return folder


def test_camera_frames_from_an_image_folder_with_zones_drawn(tmp_path):
    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames")))
    t = Tablet(app)
    t.set_pin()
    status = t.client.get("/api/camera/status").json
    assert status["configured"] and status["width"] == 160 and status["height"] == 120
    raw = t.client.get("/api/camera/snapshot.jpg")
    assert raw.status_code == 200 and raw.mimetype == "image/jpeg"
    assert raw.data[:2] == b"\xff\xd8" and int(raw.headers["X-Frame-T-Ns"]) > 0
    t.post("/api/zones", {"zones": [{"name": "discard_1", "points": [[0, 0], [1, 0], [1, 1]]}]})
    drawn = t.client.get("/api/camera/frame.jpg")
    assert drawn.status_code == 200 and drawn.data[:2] == b"\xff\xd8"
    mj = t.client.get("/api/camera/stream.mjpg")
    assert mj.mimetype == "multipart/x-mixed-replace"
    first = next(iter(mj.response))
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg")
    mj.close()
    assert t.services.streams.active == 0
    assert "No camera" not in t.client.get("/live").data.decode()
    t.services.camera.close()


def test_a_missing_camera_source_is_reported_not_fatal(tmp_path):
    app = make_app(tmp_path, camera=str(tmp_path / "nope.mp4"))
    page = app.test_client().get("/live").data.decode()
    assert "No camera is configured" in page and "does not exist" in page


def read_sse(resp: Any, want: int, timeout: float = 5.0) -> list[tuple[str, Any]]:
    """The first ``want`` SSE messages of a streaming test response (read on a thread)."""
    out: list[tuple[str, Any]] = []

    def reader() -> None:
        buf = b""
        for chunk in resp.response:
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                lines = dict(
                    line.split(": ", 1) for line in block.decode().splitlines() if ": " in line
                )
                if "event" in lines:
                    out.append((lines["event"], json.loads(lines["data"])))
            if len(out) >= want:
                return

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    th.join(timeout)
    return out


def test_the_live_stream_pushes_the_new_state_after_a_referee_event(referee):
    game_id = referee.new_game()
    viewer = Tablet(referee.app).client
    resp = viewer.get("/api/stream")
    assert resp.mimetype == "text/event-stream"
    first = read_sse(resp, 1)
    assert first[0][0] == "state" and first[0][1]["game"]["id"] == game_id
    got: list[tuple[str, Any]] = []
    th = threading.Thread(target=lambda: got.extend(read_sse(resp, 1)), daemon=True)
    th.start()
    referee.send(game_id, DEAL)
    th.join(5)
    assert got and got[0][1]["feed"][0]["event"]["kind"] == "deal"
    resp.close()
    assert referee.services.streams.active == 0


def test_streams_are_capped_so_pages_stay_fast(tmp_path):
    app = make_app(tmp_path, max_streams=1)
    c = app.test_client()
    one = c.get("/api/stream")
    assert one.status_code == 200
    two = c.get("/api/stream")
    assert two.status_code == 503 and "too many live screens" in two.json["error"]
    assert c.get("/scoreboard").status_code == 200
    one.close()
    three = c.get("/api/stream")
    assert three.status_code == 200
    three.close()


def test_ruling_web3_a_pad_press_becomes_an_event_when_the_game_has_that_kind(referee):
    game_id = referee.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    r = referee.post("/api/pads/press", {"seat": 1, "device": "pad"})
    assert r.status_code == 200 and r.json["t_ns"] > 0
    feed = referee.snapshot(game_id)["feed"]
    slap = feed[-1]["event"]
    assert (slap["kind"], slap["seat"], slap["source"]) == ("slap", 1, "pad")
    assert slap["t_ns"] == r.json["t_ns"]
    assert "slap is ignored" in feed[-1]["verdicts"][0]["reason"]  # no round yet
    assert referee.client.get("/api/pads").json["log"][-1]["accepted"] is True
    # Deck Dash has no slap: a press is shown on the Pads page but changes no game.
    dd = referee.new_game()
    assert referee.post("/api/pads/press", {"seat": 0, "device": "pad"}).status_code == 200
    assert referee.snapshot(dd)["feed"] == []
    assert referee.post("/api/pads/press", {"seat": 42, "device": "pad"}).status_code == 400
    assert referee.post("/api/pads/press", {"seat": 0, "device": "laser"}).status_code == 400


def test_ruling_web4_a_tablet_tap_can_be_stamped_on_arrival(referee):
    import time

    game_id = referee.new_game("hit-the-deck", ("Ann", "Bob"))
    before = time.monotonic_ns()
    r = referee.send(game_id, {"kind": "slap", "seat": 0, "t_ns": "now"})
    assert r.status_code == 201, r.json
    event = referee.snapshot(game_id)["feed"][-1]["event"]
    assert before <= event["t_ns"] <= time.monotonic_ns()
    assert referee.send(game_id, {"kind": "slap", "seat": 0, "t_ns": "later"}).status_code == 400


def test_qr_code_and_short_url(referee):
    r = referee.client.get("/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    page = referee.client.get("/scoreboard").data.decode()
    assert 'src="/qr.svg"' in page and "join-url" in page
    assert "https://" not in page.replace("http://localhost", "")  # nothing from a CDN


def test_security_headers_and_never_debug(app):
    r = app.test_client().get("/scoreboard")
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
    assert not app.debug
    cookie = r.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_config_file_and_serve_command(tmp_path):
    toml = tmp_path / "tabletop.toml"
    toml.write_text('[web]\nport = 9090\ndb = "x/y.db"\ncamera = "table.mp4"\n[hardware]\na = 1\n')
    cfg = load_file(toml)
    assert (cfg.port, str(cfg.db_path), cfg.camera) == (9090, "x/y.db", "table.mp4")
    # db_path is WebConfig's field name, not a file key: a file setting it used to be taken
    # as it was (db_path = 7, untyped); binary bytes used to raise UnicodeDecodeError
    for bad in ("[web]\nport = 'x'\n", "[web]\nbogus = 1\n", "not toml [", "[web]\ndb_path = 7\n"):
        toml.write_text(bad)
        with pytest.raises(ConfigError):
            load_file(toml)
    toml.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ConfigError, match="not a text file"):
        load_file(toml)
    from referee.cli import build_parser

    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "8080"])
    assert (args.host, args.port) == ("0.0.0.0", 8080)
    assert args.handler.__module__ == "web.commands"


def test_serve_reads_web_settings_from_the_same_file_as_the_pin_map(tmp_path, monkeypatch):
    """docs/HARDWARE.md's service unit names the file with $TABLETOP_CONFIG: the [hardware]
    pin map came from it, but [web] (port, database, camera) was read from ./tabletop.toml
    (here: none), so the unit's web settings were silently ignored."""
    from referee.cli import build_parser
    from web.commands import _config

    toml = tmp_path / "etc.toml"
    toml.write_text('[web]\nport = 9191\ndb = "family.db"\n')
    monkeypatch.chdir(tmp_path / "..")
    monkeypatch.setenv("TABLETOP_CONFIG", str(toml))
    monkeypatch.delenv("TABLETOP_DB", raising=False)
    cfg = _config(build_parser().parse_args(["serve"]), "serve")
    assert (cfg.port, str(cfg.db_path)) == (9191, "family.db")


def test_the_hardware_packages_pads_plug_into_the_dashboard(tmp_path):
    from hardware.config import default_config
    from hardware.service import PadsService
    from hardware.table import Table

    pads = PadsService(Table.open(default_config("virtual"), "virtual"))
    try:
        t = Tablet(make_app(tmp_path, pads=pads))
        t.set_pin()
        page = t.client.get("/hardware").data.decode()
        assert 'id="pad-0-pad"' in page and "Seat 0</div>" in page  # no game: seats only
        game_id = t.new_game("wash-dash", ("Ann", "Bob"))
        page = t.client.get("/hardware").data.decode()  # each pad labelled by who sits there
        assert "Seat 0 · Ann</div>" in page and "Seat 1 · Bob</div>" in page
        assert "Seat 2</div>" in page
        assert t.send(game_id, {"kind": "setup"}).status_code < 300
        reveal = {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T02"]}}
        assert t.send(game_id, reveal).status_code < 300
        r = t.post("/api/pads/press", {"seat": 1, "device": "button"})
        assert r.status_code == 200 and r.json["device"] == "button"
        assert t.client.get("/api/pads").json["recent"][-1]["seat"] == 1
        # Wash Dash's "done" button names no card: the referee asks the tablet (WD-17).
        feed = t.snapshot(game_id)["feed"]
        assert any("which task card" in str(item) for item in feed), feed
    finally:
        pads.close()


def test_camera_viewers_arriving_together_all_wait_for_the_first_frame(tmp_path):
    from web.services.camera import FileFeed

    feed = FileFeed(write_images(tmp_path / "f"), fps=20)
    got: list[Any] = []
    threads = [threading.Thread(target=lambda: got.append(feed.latest())) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    feed.close()
    assert len(got) == 4 and all(f is not None and f.width == 160 for f in got)


def _open_streams(port: int, n: int) -> list:
    """``n`` raw sockets, each with an open ``/api/stream`` (its 200 header read)."""
    import socket

    socks = []
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 200")
        socks.append(sock)
    return socks


def test_a_vanished_tablet_gives_its_stream_slot_back(tmp_path):
    """Under waitress: a client that disconnects is noticed at the next heartbeat and its
    server thread and stream slot are freed (so dead tablets cannot starve the pool)."""
    import time

    app = make_app(tmp_path, stream_heartbeat_s=0.2)
    served = ServedApp(app)
    streams = app.extensions["tabletop"].streams
    try:
        socks = _open_streams(served.port, 3)
        assert streams.active == 3
        for sock in socks:
            sock.close()
        deadline = time.monotonic() + 10
        while streams.active and time.monotonic() < deadline:
            time.sleep(0.1)
        assert streams.active == 0
    finally:
        served.stop()


def test_shutting_down_ends_open_live_streams(tmp_path):
    """Under waitress: ``end_streams`` makes every open SSE stream finish at once (not at its
    next heartbeat, which would write into a server that has already closed its sockets)."""
    app = make_app(tmp_path, stream_heartbeat_s=60)
    served = ServedApp(app)
    services = app.extensions["tabletop"]
    try:
        socks = _open_streams(served.port, 2)
        assert services.streams.active == 2
        assert services.end_streams(timeout=5)
        assert services.streams.active == 0
        # a tablet that connects during shutdown is told to go away at once, too
        late = services.hub.subscribe("game")
        assert late.get(timeout=1) == ("closed", None)
        for sock in socks:
            sock.close()
    finally:
        served.stop()


def test_live_camera_specs_go_through_the_frame_sources(tmp_path):
    from web.services.camera import FeedError, FileFeed, LiveFeed, open_feed

    assert isinstance(open_feed(str(write_images(tmp_path / "f"))), FileFeed)
    with pytest.raises(FeedError, match="cam:N"):
        open_feed("cam:x")
    # A live feed over any frame source (here an image folder through open_source).
    feed = LiveFeed(str(write_images(tmp_path / "g", 2)))
    try:
        frame = feed.latest()
        assert frame is not None and (frame.width, frame.height) == (160, 120)
        assert frame.jpeg[:2] == b"\xff\xd8"
    finally:
        feed.close()


def test_a_game_left_running_does_not_come_back_when_the_next_one_ends(referee):
    """The family starts game A, then game B from Setup without ending A, then ends B.
    Before, the scoreboard, the console and the pads went back to A (the latest game still
    running); now they stay on B, the latest game, ended."""
    first = referee.new_game("deck-dash", ("Ann", "Bob"))
    second = referee.new_game("deck-dash", ("Cy", "Dee"))
    assert referee.post(f"/api/games/{second}/end").status_code == 200
    assert referee.client.get("/api/games/current").json == {"id": second}
    assert first != second
    press = referee.post("/api/pads/press", {"seat": 0, "device": "pad"})
    assert press.status_code == 200
    assert [e["seq"] for e in referee.snapshot(first)["feed"]] == []  # A hears nothing
