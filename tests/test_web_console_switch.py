"""The referee console in headless Chromium when the game it follows changes under it (WEB-9):
another tablet starts a game between the two taps of "End game", or while an overrule is
being entered. And overruling an entry overruled already, from the console (WEB-8)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import Screen, unlock
from tests.test_web_routes import DEAL, Tablet, make_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DRAW = {"kind": "draw", "seat": 1, "payload": {"from": "discard"}}


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    app = make_app(tmp_path_factory.mktemp("switch"), race_timer=False)
    with ServedApp(app, threads=8) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.fixture
def screens(served: tuple[str, Any], browser: Any) -> Iterator[tuple[Screen, Tablet, Any]]:
    """The referee's console tablet, and another tablet (a test client on the same server)."""
    base, app = served
    screen = Screen(browser, base)
    unlock(screen, app)
    other = Tablet(app)
    assert other.login().status_code == 302
    yield screen, other, app
    screen.close()


def ended_at(app: Any, game_id: int) -> float | None:
    return app.extensions["tabletop"].games.record(game_id).ended_at


def test_ruling_web12_end_armed_for_one_game_never_ends_the_game_started_meanwhile(screens):
    """Before: the second tap, within 4 s, ended the new empty game; the first ran on."""
    from playwright.sync_api import expect

    screen, other, app = screens
    first = other.new_game()
    assert other.send(first, DEAL).status_code == 201
    page = screen.go("/console")  # follows the current game
    expect(page.locator("#c-title")).to_contain_text(f"game {first}")
    page.click("#end-game")
    expect(page.locator("#end-note")).to_contain_text(f"End game {first}?")

    started = other.new_game("deck-dash", ("Cy", "Dee"))  # another tablet, within the 4 s
    expect(page.locator("#c-title")).to_contain_text(f"game {started}")
    expect(page.locator("#end-game")).to_have_text("End game")  # disarmed
    expect(page.locator("#end-note")).to_be_hidden()
    expect(page.locator("#toast")).to_contain_text(f"End game {first} was disarmed")
    page.click("#end-game")  # the tap meant as the second: it only arms, for the game shown
    expect(page.locator("#end-note")).to_contain_text(f"End game {started}?")
    page.wait_for_timeout(300)
    assert ended_at(app, first) is None and ended_at(app, started) is None

    page.click("#end-game")  # now two taps on the game shown end that one
    page.wait_for_url(f"**/history/{started}")
    assert ended_at(app, started) is not None and ended_at(app, first) is None


def test_ruling_web12_an_overrule_being_entered_is_dropped_when_another_game_starts(screens):
    """Before: the overrule stayed open and Send posted it, with game 1's target, to game 2."""
    from playwright.sync_api import expect

    screen, other, _app = screens
    first = other.new_game()
    for event in (DEAL, DRAW):
        assert other.send(first, event).status_code == 201
    page = screen.go("/console")
    expect(page.locator("#c-title")).to_contain_text(f"game {first}")
    page.click("#feed li[data-seq='2'] button[data-action='overrule']")
    expect(page.locator("#overrule-note")).to_be_visible()

    started = other.new_game("deck-dash", ("Cy", "Dee"))
    assert other.send(started, DEAL).status_code == 201
    assert other.send(started, DRAW).status_code == 201  # a #2 the overrule would have hit
    expect(page.locator("#c-title")).to_contain_text(f"game {started}")
    expect(page.locator("#overrule-note")).to_be_hidden()
    expect(page.locator("#entry-title")).to_have_text("Enter an event")
    expect(page.locator("#toast")).to_contain_text(
        f"the overrule of #2 in game {first} was dropped"
    )
    expect(page.locator("#feed li[data-seq='2']")).to_have_class("ok")
    for game_id in (first, started):
        assert [f["status"] for f in other.snapshot(game_id)["feed"]] == ["ok", "ok"]


def test_ruling_web11_an_overruled_entry_is_overruled_again_by_undoing_the_overrule_first(screens):
    """The server refuses a second overrule in force (WEB-8): the console's Overrule of an
    overruled entry undoes that overrule, then overrules; its Undo, which changed nothing,
    is not offered (the overrule's own entry has one)."""
    from playwright.sync_api import expect

    screen, other, _app = screens
    game_id = other.new_game()
    for event in (DEAL, DRAW):
        assert other.send(game_id, event).status_code == 201
    pile = {**DRAW, "payload": {"from": "draw"}}
    r = other.post(f"/api/games/{game_id}/overrule", {"target": 2, "event": pile})
    assert r.status_code == 201
    page = screen.go(f"/console?game={game_id}")
    entry = page.locator("#feed li[data-seq='2']")
    expect(entry).to_have_class("overruled")
    expect(entry.locator("button[data-action='undo']")).to_have_count(0)
    expect(page.locator("#feed li[data-seq='3'] button[data-action='undo']")).to_have_count(1)

    entry.locator("button[data-action='overrule']").click()
    expect(page.locator("#f-from")).to_have_value("draw")  # the replacement, to correct
    page.fill("#f-card", "B4")
    page.click("#send")
    expect(page.locator("#toast")).to_contain_text("overruled #2")
    feed = other.snapshot(game_id)["feed"]
    assert [(f["event"]["kind"], f["status"]) for f in feed] == [
        ("deal", "ok"),
        ("draw", "overruled"),
        ("overrule", "meta-undone"),
        ("undo", "meta"),
        ("overrule", "meta"),
    ]
    assert feed[1]["replacement"]["payload"] == {"from": "draw", "card": "B4"}
