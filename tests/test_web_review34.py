"""Round 34's web findings: a change whose answer never came (the connection dropped, the
server was killed) says it may have been recorded, as a timeout does; a question answered
while a tablet was away (Wi-Fi down, a server restart) leaves that tablet when its stream
reopens, or when a tap on it finds it gone; a question id from before a restart names no
question after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, Screen, unlock
from tests.test_web_review33 import HIDE, sse_blocks
from tests.test_web_routes import DEAL, Tablet, make_app
from tests.test_web_soak import eventually

QUESTION = {
    "prompt": "same_card",
    "message": "Was that R7?",
    "suggestion": {"kind": "discard", "seat": 0, "payload": {"card": "R7"}},
}


def burst(blocks: Iterator[dict[str, str]]) -> list[dict[str, Any]]:
    """The next named messages up to the heartbeat after them (the stream idles), ``data``
    parsed; heartbeats before them are skipped."""
    got: list[dict[str, Any]] = []
    for block in blocks:
        if "event" not in block:
            if got:
                break
            continue
        got.append({**block, "data": json.loads(block["data"])})
    return got


def opening(resp: Any) -> list[dict[str, Any]]:
    """What a stream sends as it opens (``burst``); the stream is closed."""
    got = burst(sse_blocks(resp))
    resp.close()
    return got


def stream(tablet: Tablet, query: str = "?delta=1", last_id: str | None = None) -> Any:
    headers = {} if last_id is None else {"Last-Event-ID": last_id}
    return tablet.client.get("/api/stream" + query, headers=headers)


def prompts_of(messages: list[dict[str, Any]]) -> list[list[Any]]:
    """The question lists among ``messages`` (each the ids of its questions)."""
    return [[p["id"] for p in m["data"]["prompts"]] for m in messages if m["event"] == "prompts"]


def table(tmp_path: Any) -> tuple[Any, Tablet, int]:
    app = make_app(tmp_path, stream_heartbeat_s=0.2, race_timer=False)
    t = Tablet(app)
    assert t.set_pin().status_code == 302
    game_id = t.new_game()
    assert t.send(game_id, DEAL).status_code == 201
    return app, t, game_id


# -- 3. questions gone while a tablet was away ---------------------------------------------


def test_a_reconnect_with_no_open_question_gets_an_empty_list(tmp_path):
    """Before: the list went only "if any", so the question dismissed while tablet A was
    away stayed on A's screen for good."""
    app, a, game_id = table(tmp_path)
    q = app.extensions["tabletop"].prompts.add(game_id, QUESTION)
    first = opening(stream(a))
    assert [m["event"] for m in first] == ["state", "prompts"]
    assert prompts_of(first) == [[q.id]]

    assert a.post(f"/api/games/{game_id}/prompts/{q.id}/dismiss").status_code == 200  # tablet B
    for again in (
        stream(a, last_id=first[0]["id"]),  # the browser's own reconnect
        stream(a, "?delta=1&last=" + first[0]["id"]),  # the page's (watchdog, tab shown)
        stream(a, "?delta=1&last="),  # the page's, holding no feed
    ):
        assert prompts_of(opening(again)) == [[]]


def test_a_page_s_first_stream_gets_no_empty_list(tmp_path):
    """A page just loaded shows no question: nothing to clear, nothing sent."""
    _, a, _ = table(tmp_path)
    assert [m["event"] for m in opening(stream(a))] == ["state"]


def test_a_follower_switched_to_a_new_game_gets_its_list_even_empty(tmp_path):
    app, a, one = table(tmp_path)
    app.extensions["tabletop"].prompts.add(one, QUESTION)
    resp = stream(a)
    blocks = sse_blocks(resp)
    assert [m["event"] for m in burst(blocks)] == ["state", "prompts"]
    two = a.new_game()
    switched = burst(blocks)
    resp.close()
    assert [m["event"] for m in switched] == ["state", "prompts"]
    assert switched[1]["data"] == {"game_id": two, "prompts": []}


def test_a_restart_clears_the_list_and_an_old_id_names_no_new_question(tmp_path):
    """The board is not stored: after a restart a reconnecting tablet is told the list is
    empty, and ids no longer restart at 1, so a tap on a question it showed before is a 404,
    not an answer to the new run's first question."""
    app1, a, game_id = table(tmp_path)
    old = app1.extensions["tabletop"].prompts.add(game_id, QUESTION)
    held = opening(stream(a))[0]["id"]

    app2 = make_app(tmp_path, stream_heartbeat_s=0.2, race_timer=False)  # kill -9, restart
    b = Tablet(app2)
    assert b.login().status_code == 302
    assert prompts_of(opening(stream(b, last_id=held))) == [[]]
    new = app2.extensions["tabletop"].prompts.add(game_id, {**QUESTION, "message": "G2?"})
    assert new.id != old.id
    assert b.post(f"/api/games/{game_id}/prompts/{old.id}/dismiss").status_code == 404
    assert [p["id"] for p in app2.extensions["tabletop"].prompts.open(game_id)] == [new.id]


# -- in the browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    app = make_app(tmp_path_factory.mktemp("r34"), stream_heartbeat_s=0.5, race_timer=False)
    with ServedApp(app, threads=16) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.fixture(scope="module")
def other(served: tuple[str, Any]) -> Tablet:
    """Another tablet (a test client on the same server), the referee's."""
    t = Tablet(served[1])
    assert t.set_pin().status_code == 302
    return t


def asking(browser: Any, served: tuple[str, Any], other: Tablet) -> tuple[Screen, Any, int, Any]:
    """A referee's console on a new game, showing one question: (screen, page, game, it)."""
    from playwright.sync_api import expect

    base, app = served
    game_id = other.new_game()
    assert other.send(game_id, DEAL).status_code == 201
    screen = Screen(browser, base, LANDSCAPE)
    unlock(screen, app)
    page = screen.go(f"/console?game={game_id}")
    page.wait_for_selector("body[data-live='1']")
    q = app.extensions["tabletop"].prompts.add(game_id, QUESTION)
    expect(page.locator("#prompts li.prompt")).to_have_count(1, timeout=5000)
    return screen, page, game_id, q


def away_from(browser: Any, served: tuple[str, Any], other: Tablet) -> tuple[Screen, Any, int]:
    """A referee's console showing a question, then hidden (its stream closed, as with its
    Wi-Fi down), while the other tablet dismisses the question."""
    from playwright.sync_api import expect

    board = served[1].extensions["tabletop"]
    screen, page, game_id, q = asking(browser, served, other)
    page.evaluate(HIDE, True)
    assert eventually(lambda: board.streams.active == 0), "the hidden tab kept its stream"
    assert other.post(f"/api/games/{game_id}/prompts/{q.id}/dismiss").status_code == 200
    page.wait_for_timeout(300)
    expect(page.locator("#prompts li.prompt")).to_have_count(1)  # it missed the news
    return screen, page, game_id


@pytest.mark.browser
@pytest.mark.slow
def test_a_question_dismissed_while_the_page_was_away_leaves_it_on_reconnect(
    served, other, browser
):
    from playwright.sync_api import expect

    screen, page, _ = away_from(browser, served, other)
    page.evaluate(HIDE, False)  # shown again: the stream reopens
    expect(page.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_tap_on_a_question_gone_meanwhile_takes_it_off(served, other, browser):
    """Before: a 404 toast, and the question stayed, every tap a 404 again."""
    from playwright.sync_api import expect

    screen, page, _ = away_from(browser, served, other)
    page.locator("#prompts button[data-action='dismiss']").click()
    expect(page.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    expect(page.locator("#toast")).to_have_text("already answered on another tablet")
    screen.close()


# -- 2. a change whose answer never came -----------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_a_dropped_connection_says_the_change_may_have_been_recorded(served, browser):
    """Before: only a timeout said so; a connection dropped as the server was killed (the
    event stored, its answer lost) said only "cannot be reached", inviting a second Send."""
    screen = Screen(browser, served[0], LANDSCAPE)
    page = screen.go("/scoreboard")
    page.route("**/api/dropped", lambda route: route.abort("connectionreset"))
    call = "([m]) => TT.api(m, '/api/dropped', m === 'GET' ? undefined : {})"
    sent = page.evaluate(call, ["POST"])
    assert sent["ok"] is False and sent["status"] == 0
    error = sent["data"]["error"]
    assert error.startswith("the referee cannot be reached"), error
    assert error.endswith("; it may have been recorded: check before sending it again"), error
    read = page.evaluate(call, ["GET"])["data"]["error"]  # a read changes nothing
    assert read.startswith("the referee cannot be reached") and "recorded" not in read
    page.unroute("**/api/dropped")
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_double_tap_on_a_question_answers_it_once(served, other, browser):
    """Before: the second tap's request found the question gone and said "already answered
    on another tablet"."""
    from playwright.sync_api import expect

    screen, page, _, _ = asking(browser, served, other)
    posts: list[str] = []
    page.on(
        "request", lambda r: r.method == "POST" and "/prompts/" in r.url and posts.append(r.url)
    )
    page.locator("#prompts button[data-action='dismiss']").dblclick()
    expect(page.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    page.wait_for_timeout(300)
    assert len(posts) == 1, posts
    screen.close()
