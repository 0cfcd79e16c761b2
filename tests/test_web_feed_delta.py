"""A live stream asked with ``?delta=1`` sends a game's feed once, then only its new
entries (``delta``), and the whole ``state`` whenever the tablet could otherwise show a stale
verdict: a page load, another game, a rewrite of history (undo, overrule, accept), a
reconnect with an id it cannot build on, a tablet too far behind. Without ``?delta=1`` the
stream is what it always was. In a browser, the page after events and an undo shows what a
reload shows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_routes import BOB_FINISHES, DEAL, Tablet, make_app
from web.blueprints import live
from web.blueprints.live import Held, push
from web.services.hub import FeedVersions

TALLY = {"kind": "tally", "payload": {"hands": [["R9", "R10"], []]}}


@pytest.fixture
def referee(tmp_path: Any) -> Tablet:
    t = Tablet(make_app(tmp_path, stream_heartbeat_s=0.2))
    assert t.set_pin().status_code == 302
    return t


class Stream:
    """An open ``/api/stream`` read message by message (heartbeats skipped): each message
    as a dict of its fields, ``data`` parsed."""

    def __init__(self, tablet: Tablet, query: str = "?delta=1", last_id: str | None = None):
        headers = {} if last_id is None else {"Last-Event-ID": last_id}
        self.resp = tablet.client.get("/api/stream" + query, headers=headers)
        assert self.resp.status_code == 200
        self._chunks = iter(self.resp.response)
        self._buf = b""

    def next(self) -> dict[str, Any]:
        while True:
            while b"\n\n" not in self._buf:
                self._buf += next(self._chunks)
            block, self._buf = self._buf.split(b"\n\n", 1)
            fields: dict[str, Any] = {}
            for line in block.decode().splitlines():
                name, _, value = line.partition(":")
                if name:  # ": ping" is a comment
                    fields[name] = value[1:] if value.startswith(" ") else value
            if "event" in fields:
                fields["data"] = json.loads(fields["data"])
                return fields

    def close(self) -> None:
        self.resp.close()


def merge(held: dict[str, Any], msg: dict[str, Any]) -> dict[str, Any]:
    """What common.js makes of a message: a state as it is, a delta added to the held one."""
    if msg["event"] == "state":
        return msg["data"]
    assert msg["event"] == "delta"
    d = msg["data"]
    assert d["game"]["id"] == held["game"]["id"]
    assert d["after"] == (held["feed"][-1]["seq"] if held["feed"] else 0)
    out = {k: v for k, v in d.items() if k != "after"}
    out["feed"] = held["feed"] + d["feed"]
    return out


def without_why(snap: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snap.items() if k != "why"}


# -- the wire ---------------------------------------------------------------------------


def test_a_delta_after_an_event_holds_only_the_new_entry_and_the_small_state(referee):
    game_id = referee.new_game()
    for event in BOB_FINISHES[:3]:
        assert referee.send(game_id, event).status_code == 201
    stream = Stream(referee)
    first = stream.next()
    assert first["event"] == "state" and [f["seq"] for f in first["data"]["feed"]] == [1, 2, 3]
    token = referee.services.hub.feeds.token
    assert first["id"].startswith(f"{token}.{game_id}.") and first["id"].endswith(".3")

    assert referee.send(game_id, BOB_FINISHES[3]).status_code == 201
    msg = stream.next()
    assert msg["event"] == "delta"
    assert msg["data"]["after"] == 3
    assert [f["seq"] for f in msg["data"]["feed"]] == [4]
    assert msg["data"]["feed"][0]["event"]["kind"] == "handoff"
    assert msg["data"]["scoreboard"]["players"] == ["Ann", "Bob"]
    assert msg["data"]["why"] == "event"
    assert msg["id"].endswith(".4") and msg["id"].split(".")[2] == first["id"].split(".")[2]
    held = merge(first["data"], msg)
    assert without_why(held) == referee.snapshot(game_id)
    stream.close()
    assert referee.services.streams.active == 0


def test_every_rewrite_of_history_sends_the_whole_state(referee):
    """Undo, overrule and accept change an entry the tablet already shows: never a delta."""
    game_id = referee.new_game()
    for event in BOB_FINISHES:
        assert referee.send(game_id, event).status_code == 201
    seq = referee.send(game_id, TALLY).json["seq"]
    stream = Stream(referee)
    held = stream.next()["data"]
    overrule = {"target": seq, "event": {**TALLY, "payload": {"hands": [["R9"], []]}}}
    steps = [
        ("overrule", lambda: referee.post(f"/api/games/{game_id}/overrule", overrule)),
        ("event", lambda: referee.send(game_id, {**DEAL, "seat": 1})),
        ("undo", lambda: referee.post(f"/api/games/{game_id}/undo", {"target": seq + 2})),
        ("accept", lambda: referee.post(f"/api/games/{game_id}/accept", {"seq": 2})),
        ("undo", lambda: referee.post(f"/api/games/{game_id}/undo", {"target": 2})),
    ]
    versions = []
    for what, act in steps:
        r = act()
        assert r.status_code in (200, 201), (what, r.json)
        msg = stream.next()
        assert msg["event"] == ("delta" if what == "event" else "state"), what
        versions.append(msg["id"].split(".")[2])
        held = merge(held, msg)
        assert without_why(held) == referee.snapshot(game_id), what
    assert versions[0] == versions[1]  # a plain event keeps the version
    assert len(set(versions)) == 4  # each rewrite starts a new one
    feed = {f["seq"]: f for f in held["feed"]}
    assert feed[seq]["status"] == "overruled" and feed[seq + 2]["status"] == "undone"
    assert feed[2]["status"] == "undone"
    assert feed[2]["review"] == "accepted"
    stream.close()


def test_a_new_round_after_many_events_is_a_delta_not_a_state(referee):
    """A plain event whose rules change no earlier verdict is a delta, whatever it does to
    the scores: here the game's end (the state's scoreboard carries it)."""
    game_id = referee.new_game()
    for event in BOB_FINISHES[:-1]:
        assert referee.send(game_id, event).status_code == 201
    stream = Stream(referee)
    held = stream.next()["data"]
    assert referee.send(game_id, BOB_FINISHES[-1]).status_code == 201
    msg = stream.next()
    assert msg["event"] == "delta" and len(msg["data"]["feed"]) == 1
    assert msg["data"]["scoreboard"]["totals"] == [12, 0]
    assert referee.post(f"/api/games/{game_id}/end").status_code == 200
    ended = stream.next()  # the game ended: no entry changed, the state did
    assert ended["event"] == "delta" and ended["data"]["feed"] == []
    assert ended["data"]["game"]["ended_at"] is not None
    held = merge(merge(held, msg), ended)
    assert without_why(held) == referee.snapshot(game_id)
    stream.close()


def test_a_reconnect_gets_what_it_missed_or_the_whole_state(referee):
    game_id = referee.new_game()
    assert referee.send(game_id, BOB_FINISHES[0]).status_code == 201
    stream = Stream(referee)
    first = stream.next()
    stream.close()
    for event in BOB_FINISHES[1:3]:
        assert referee.send(game_id, event).status_code == 201

    # the id it last had: the two entries it missed
    again = Stream(referee, last_id=first["id"])
    msg = again.next()
    assert msg["event"] == "delta" and [f["seq"] for f in msg["data"]["feed"]] == [2, 3]
    assert without_why(merge(first["data"], msg)) == referee.snapshot(game_id)
    again.close()

    # up to date: an empty delta
    same = Stream(referee, last_id=msg["id"])
    assert (m := same.next())["event"] == "delta" and m["data"]["feed"] == []
    same.close()

    # an undo since: its old id cannot be built on
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 2}).status_code == 201
    for last_id in (first["id"], msg["id"]):
        old = Stream(referee, last_id=last_id)
        full = old.next()
        assert full["event"] == "state" and full["data"]["feed"][1]["status"] == "undone"
        old.close()

    # ids it cannot know: another server run, another game, an id from the future, garbage
    token = referee.services.hub.feeds.token
    _, _, version, _ = full["id"].split(".")
    other = "0" * 8 if token != "0" * 8 else "1" * 8
    for last_id in (
        f"{other}.{game_id}.{version}.4",
        f"{token}.{game_id + 1}.{version}.4",
        f"{token}.{game_id}.{version}.99",
        f"{token}.{game_id}.{int(version) + 7}.4",
        "garbage",
        "",
        "١.٢.٣.٤",
    ):
        s = Stream(referee, last_id=last_id)
        assert s.next()["event"] == "state", last_id
        s.close()
    assert referee.services.streams.active == 0


def test_a_tablet_too_far_behind_gets_the_whole_state(referee, monkeypatch):
    monkeypatch.setattr(live, "DELTA_MAX", 2)
    game_id = referee.new_game()
    s = Stream(referee)
    empty = s.next()
    assert empty["event"] == "state" and empty["data"]["feed"] == []  # no event yet
    s.close()
    for event in BOB_FINISHES[:2]:
        assert referee.send(game_id, event).status_code == 201
    near = Stream(referee, last_id=empty["id"])
    msg = near.next()
    assert msg["event"] == "delta" and [f["seq"] for f in msg["data"]["feed"]] == [1, 2]
    near.close()
    assert referee.send(game_id, BOB_FINISHES[2]).status_code == 201
    far = Stream(referee, last_id=empty["id"])
    assert far.next()["event"] == "state"
    far.close()


def test_without_the_parameter_the_stream_is_as_before(referee):
    """Older pages (and tests/test_web_*.py) get whole states and no ids."""
    game_id = referee.new_game()
    stream = Stream(referee, query="")
    first = stream.next()
    assert set(first) == {"event", "data"} and first["event"] == "state"
    for event in BOB_FINISHES[:2]:
        assert referee.send(game_id, event).status_code == 201
        msg = stream.next()
        assert set(msg) == {"event", "data"} and msg["event"] == "state"
    assert [f["seq"] for f in msg["data"]["feed"]] == [1, 2]
    assert without_why(msg["data"]) == referee.snapshot(game_id)
    stream.close()
    # a Last-Event-ID changes nothing without ?delta=1
    old = Stream(referee, query="", last_id=first.get("id", "x.1.1.1"))
    assert set(m := old.next()) == {"event", "data"} and len(m["data"]["feed"]) == 2
    old.close()


def test_a_follower_switched_to_a_new_game_gets_its_whole_state(referee):
    one = referee.new_game()
    assert referee.send(one, DEAL).status_code == 201
    stream = Stream(referee)
    assert stream.next()["data"]["game"]["id"] == one
    two = referee.new_game()
    msg = stream.next()
    assert msg["event"] == "state" and msg["data"]["game"]["id"] == two
    assert msg["id"].split(".")[1] == str(two)
    stream.close()


def test_no_game_and_an_unreadable_game_clear_the_id(referee):
    stream = Stream(referee)
    nogame = stream.next()
    assert nogame["event"] == "nogame" and nogame["id"] == ""
    stream.close()
    held = Held(1, 1, 5)
    msg = push(referee.services.hub.feeds, {"game": {"id": 1}, "error": "broken"}, held)
    assert msg.startswith(b"id: \nevent: state\n") and held == Held()


# -- the versions -----------------------------------------------------------------------


def _entries(*seqs: int, status: str = "ok") -> list[dict[str, Any]]:
    return [{"seq": s, "status": status, "verdicts": [{"reason": f"#{s}"}]} for s in seqs]


def test_feed_versions_follow_growth_and_change_on_any_rewrite():
    feeds = FeedVersions()
    v = feeds.observe(1, _entries(1, 2))
    assert feeds.observe(1, _entries(1, 2, 3)) == v  # grown at the end
    assert feeds.observe(1, _entries(1, 2)) == v  # an older snapshot, queued late
    assert feeds.observe(1, _entries(1, 2, 3, 4)) == v  # still the same history
    rewritten = _entries(1, 2, 3, 4)
    rewritten[1]["status"] = "undone"
    w = feeds.observe(1, rewritten)
    assert w != v
    assert feeds.observe(1, _entries(1, 2, 3, 4, 5)) not in (v, w)  # back: new, not old
    assert feeds.observe(2, _entries(1, 2)) not in (v, w)  # another game
    assert feeds.observe(1, []) != feeds.observe(3, [])


def test_feed_versions_know_a_published_snapshot_by_identity():
    feeds = FeedVersions()
    feed = _entries(1, 2, 3)
    v = feeds.observe(1, feed)
    feeds.observe(1, _entries(1, 9))  # a rewrite since
    assert feeds.observe(1, feed) == v  # the same object, as another stream sees it
    assert feeds.observe(1, _entries(1, 2, 3)) != v  # an equal copy is compared afresh


def test_feed_versions_forget_old_games_safely():
    feeds = FeedVersions()
    v = feeds.observe(1, _entries(1))
    for gid in range(2, 2 + FeedVersions.GAMES + FeedVersions.RECENT):
        feeds.observe(gid, _entries(1))
    assert feeds.observe(1, _entries(1, 2)) != v  # forgotten: a new version (the whole state)
    assert FeedVersions().token != feeds.token


def test_push_bytes_at_a_thousand_entries():
    """The point of it: at 1 000 entries a delta is a small fraction of the whole state."""
    feeds = FeedVersions()
    entry = {"verdicts": [{"outcome": "legal", "reason": "Ann played blue 3.", "seat": 0}]}
    feed = [{"seq": s, "status": "ok", **entry} for s in range(1, 1001)]
    snap = {"game": {"id": 1}, "scoreboard": {"totals": [0, 1]}, "feed": feed[:-1]}
    held = Held()
    full = push(feeds, snap, held)
    delta = push(feeds, {**snap, "feed": feed}, held)
    assert full.startswith(f"id: {feeds.token}.1.".encode()) and b"event: state\n" in full
    assert b"event: delta\n" in delta and held.last == 1000
    assert len(delta) * 50 < len(full)


def test_the_bench_prints_full_and_delta_per_push():
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[1] / "bench" / "feed_push.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--events", "3", "12", "--repeat", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "full bytes" in out and "delta bytes" in out
    rows = json.loads(out.splitlines()[-1])["rows"]
    assert [r["events"] for r in rows] == [3, 12]
    assert all(r["delta_bytes"] < r["full_bytes"] for r in rows)
    assert rows[1]["full_bytes"] > rows[0]["full_bytes"]  # the whole state grows, the delta not


# -- in a browser -----------------------------------------------------------------------

COUNT_SSE = """(() => {
  window.sse = { state: 0, delta: 0 };
  const Real = window.EventSource;
  window.EventSource = function (url, init) {
    const es = new Real(url, init);
    for (const name of ["state", "delta"]) es.addEventListener(name, () => window.sse[name]++);
    return es;
  };
  window.EventSource.prototype = Real.prototype;
  Object.assign(window.EventSource, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
})();"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[Any]:
    app = make_app(tmp_path_factory.mktemp("delta"), stream_heartbeat_s=0.5)
    with ServedApp(app, threads=8) as server:
        yield server, app
        app.extensions["tabletop"].end_streams()


@pytest.mark.browser
@pytest.mark.slow
def test_the_console_after_events_and_an_undo_shows_what_a_reload_shows(served, browser):
    from playwright.sync_api import expect

    from tests.test_web_browser import Screen, unlock

    server, app = served
    referee = Screen(browser, server.url)
    referee.ctx.add_init_script(COUNT_SSE)
    unlock(referee, app)
    game_id = referee.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"]})
    game_id = game_id["data"]["id"]
    page = referee.go("/console")
    expect(page.locator("#c-title")).to_contain_text(f"game {game_id}")
    page.evaluate("() => { window.got = null; TT.stream({ state: (s) => { window.got = s; } }); }")
    for n, event in enumerate(BOB_FINISHES[:3], start=1):
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]
        expect(page.locator("#feed li[data-seq]")).to_have_count(n)
    assert page.evaluate("window.sse.delta") >= 4  # two streams, events 2 and 3 (at least)
    states = page.evaluate("window.sse.state")
    assert referee.api("POST", f"/api/games/{game_id}/undo", {"target": 2})["ok"]
    expect(page.locator("#feed li[data-seq='2']")).to_have_class("undone")
    expect(page.locator("#feed li[data-seq]")).to_have_count(4)
    wait_until(page, f"window.sse.state >= {states + 2}")  # the undo: whole states
    wait_until(page, "window.got && window.got.feed.length === 4")
    served_snap = referee.api("GET", f"/api/games/{game_id}")["data"]
    got = page.evaluate("window.got")
    assert {k: v for k, v in got.items() if k != "why"} == served_snap

    def shown() -> tuple[str, str, str]:
        return (
            page.locator("#feed").inner_text(),
            page.locator("#c-score").inner_text(),
            page.locator("#c-meta").inner_text(),
        )

    live_view = shown()
    assert "undone" in live_view[0] and "#3" in live_view[0]
    page.reload(wait_until="domcontentloaded")
    expect(page.locator("#feed li[data-seq]")).to_have_count(4)
    expect(page.locator("#feed li[data-seq='2']")).to_have_class("undone")
    assert shown() == live_view
    referee.close()


def test_an_older_snapshot_of_the_feed_a_tablet_holds_is_not_sent():
    """A snapshot queued for a stream before the one it opened with would take the tablet
    back an event until the next change: nothing is sent for it, and the next is a delta."""
    feeds, held = FeedVersions(), Held()
    game = {"id": 1}
    assert b"event: state\n" in push(feeds, {"game": game, "feed": _entries(1, 2, 3)}, held)
    assert push(feeds, {"game": game, "feed": _entries(1, 2)}, held, live=True) is None
    assert held.last == 3
    delta = push(feeds, {"game": game, "feed": _entries(1, 2, 3, 4)}, held, live=True)
    assert b"event: delta\n" in delta and b'"after": 3' in delta and held.last == 4


def test_a_late_snapshot_from_before_a_rewrite_does_not_cost_the_others_a_whole_state():
    """A slow tablet's snapshot from before an undo, observed after the undo's (found by
    review: it became the reference, so the next snapshot got a new version and every
    up-to-date tablet a whole state)."""
    feeds = FeedVersions()
    v = feeds.observe(1, _entries(1, 2, 3))
    rewritten = _entries(1, 2, 3, 4)
    rewritten[1]["status"] = "undone"
    w = feeds.observe(1, rewritten)
    assert w != v
    late = feeds.observe(1, _entries(1, 2, 3))  # an equal copy: not known by identity
    assert late not in (v, w)  # its own version: a tablet at it gets the whole state
    grown = [*rewritten, *_entries(5)]
    assert feeds.observe(1, grown) == w  # the others go on with deltas
