"""The dashboard in real headless Chromium (Debian's), driven by Playwright, against the app
served by waitress: live scoreboard, overrule on a second screen, setup → play → history,
and a screenshot of every page in tests/artifacts/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_routes import BOB_FINISHES, DEAL, PIN, Tablet, write_images
from web import create_app
from web.config import WebConfig

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PORTRAIT = {"width": 800, "height": 1280}
LANDSCAPE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_chromium_is_installed():
    """The browser tests must run, not skip: `make test` installs Debian's chromium."""
    assert CHROMIUM.exists(), "needs Debian chromium at /usr/bin/chromium: run `make chromium`"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, Any]]:
    tmp = tmp_path_factory.mktemp("web")
    cfg = WebConfig(db_path=tmp / "tabletop.db", camera=str(write_images(tmp / "frames", 4)))
    app = create_app(cfg)
    served = ServedApp(app, threads=16)
    yield served.url, app
    app.extensions["tabletop"].end_streams()
    served.stop()
    app.extensions["tabletop"].camera.close()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


class Screen:
    """One tablet: its own browser context (own cookies)."""

    def __init__(self, browser: Any, base: str, viewport: dict[str, int] = LANDSCAPE) -> None:
        self.base = base
        self.ctx = browser.new_context(viewport=viewport, accept_downloads=True)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def go(self, path: str) -> Any:
        self.page.goto(self.base + path, wait_until="domcontentloaded")
        return self.page

    def api(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        """A JSON call made by the page itself (its cookie, its CSRF token)."""
        return self.page.evaluate(
            """async ([m, p, b]) => { const r = await TT.api(m, p, b); return r; }""",
            [method, path, body],
        )

    def close(self) -> None:
        assert not self.errors, self.errors
        self.ctx.close()


def unlock(screen: Screen, app: Any) -> None:
    """First start: set the PIN with the setup code, or log in with it."""
    settings = app.extensions["tabletop"].settings
    if not settings.pin_is_set:
        page = screen.go("/pin/setup")
        shot(page, "pin-setup")
        page.fill("#setup_code", settings.setup_code)
        page.fill("#pin", PIN)
        page.fill("#pin2", PIN)
        page.click("button[type=submit]")
    else:
        page = screen.go("/login")
        for digit in PIN:
            page.click(f".pinpad button[data-digit='{digit}']")
        shot(page, "login")
        page.click(".pinpad button[type=submit]")
    page.wait_for_load_state("domcontentloaded")
    assert screen.api("GET", "/api/whoami")["data"]["referee"] is True


def total(page: Any, seat: int) -> Any:
    return page.locator(f"#players .player[data-seat='{seat}'] .total")


def choose(page: Any, kind: str, seat: int | None) -> None:
    page.click(f"#kinds button[data-kind='{kind}']")
    page.click(f"#seats button[data-seat='{'' if seat is None else seat}']")


def test_scoreboard_updates_live_after_a_referee_event(server, browser):
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    created = referee.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"]})
    game_id = created["data"]["id"]
    for event in BOB_FINISHES[:-1]:
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]

    viewer = Screen(browser, base, PORTRAIT)
    board = viewer.go("/scoreboard")
    expect(total(board, 0)).to_have_text("0")
    expect(board.locator("#sb-title")).to_contain_text("Deck Dash")
    expect(board.locator("#players .player.leader")).to_have_count(0)  # level: no star

    console = referee.go("/console")
    expect(console.locator("#feed li")).to_have_count(len(BOB_FINISHES) - 1)
    choose(console, "discard", 1)
    console.fill("#f-card", "R5")
    console.click("#send")
    # No reload: the open scoreboard hears the verdict over SSE.
    expect(total(board, 0)).to_have_text("12", timeout=5000)
    expect(total(board, 1)).to_have_text("0")
    expect(board.locator("#players .player.leader")).to_have_attribute("data-seat", "1")
    expect(board.locator("#sb-rounds")).to_contain_text("12")
    expect(console.locator("#feed")).to_contain_text("Bob finished and wins Dash 1.")
    shot(board, "scoreboard-portrait")
    shot(console, "console")
    viewer.close()
    referee.close()


def test_a_dropped_connection_is_said_on_the_page(browser, tmp_path):
    """The Pi restarts (or Wi-Fi drops): a live page says its scores may be out of date once
    its stream has been gone a few seconds. The routine renewal of an old stream (the
    server ends each after ``stream_max_age_s``; the browser reconnects within a second)
    shows nothing. (Bringing a server back on the same port in one test process raced
    waitress's file descriptors one run in twenty, so the return is not replayed here; the
    notice goes with the stream's next ``open``, as at the start.)"""
    from playwright.sync_api import expect

    cfg = WebConfig(db_path=tmp_path / "restart.db", stream_max_age_s=0.5, stream_heartbeat_s=0.2)
    app = create_app(cfg)
    served = ServedApp(app, threads=4)
    viewer = Screen(browser, served.url, PHONE)
    try:
        board = viewer.go("/scoreboard")
        board.wait_for_selector("body[data-live='1']")
        board.evaluate(
            """() => { window.drops = 0; window.shown = 0;
            new MutationObserver(() => {
              if (document.body.dataset.live === "0") window.drops++;
              if (document.body.dataset.lost) window.shown++;
            }).observe(document.body, { attributes: true }); }"""
        )
        board.wait_for_timeout(4000)  # streams renewed every half second
        assert board.evaluate("window.drops") >= 2 and board.evaluate("window.shown") == 0
        notice = board.locator(".conn-lost")
        expect(notice).to_be_hidden()
        app.extensions["tabletop"].hub.close()  # what `tabletop serve` does as it stops
        served.stop()
        expect(notice).to_be_visible(timeout=8000)
        expect(notice).to_contain_text("reconnecting")
        expect(board.locator(".conn-stopped")).to_be_hidden()
        shot(board, "scoreboard-offline")
    finally:
        viewer.close()


def test_a_refused_live_stream_says_to_reload(browser, tmp_path):
    """A screen over the server's limit of live streams is refused (503), and a browser
    does not retry a refused stream: the page says live updates stopped, not reconnecting."""
    from playwright.sync_api import expect

    app = create_app(WebConfig(db_path=tmp_path / "full.db", max_streams=1))
    with ServedApp(app, threads=4) as served:
        first, second = Screen(browser, served.url, PHONE), Screen(browser, served.url, PHONE)
        try:
            first.go("/scoreboard").wait_for_selector("body[data-live='1']")
            board = second.go("/scoreboard")
            expect(board.locator(".conn-stopped")).to_be_visible(timeout=8000)
            expect(board.locator(".conn-stopped")).to_contain_text("reload the page")
            expect(board.locator(".conn-lost")).to_be_hidden()
        finally:
            second.close()
            first.close()
            app.extensions["tabletop"].hub.close()


def test_an_overrule_in_the_console_changes_a_second_open_scoreboard(server, browser):
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    game_id = referee.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"]})[
        "data"
    ]["id"]
    for event in BOB_FINISHES:
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]
    tally = {"kind": "tally", "payload": {"hands": [["R9", "R10"], []]}}
    seq = referee.api("POST", f"/api/games/{game_id}/events", tally)["data"]["seq"]

    first = Screen(browser, base, LANDSCAPE)
    second = Screen(browser, base, PORTRAIT)
    board1 = first.go(f"/scoreboard?game={game_id}")
    board2 = second.go("/scoreboard")
    expect(total(board1, 0)).to_have_text("2")
    expect(total(board2, 0)).to_have_text("2")

    console = referee.go(f"/console?game={game_id}")
    console.click(f"#feed li[data-seq='{seq}'] button[data-action='overrule']")
    expect(console.locator("#overrule-note")).to_be_visible()
    console.fill("#f-hands", json.dumps([["R9", "R10", "B4", "W"], []]))
    console.click("#send")
    expect(total(board2, 0)).to_have_text("4", timeout=5000)
    expect(total(board1, 0)).to_have_text("4", timeout=5000)
    expect(console.locator(f"#feed li[data-seq='{seq}']")).to_contain_text("overruled")
    shot(board1, "scoreboard-landscape")
    shot(console, "console-overruled")

    # Undo the overrule from the console: back to 2 everywhere.
    console.click(f"#feed li[data-seq='{seq + 1}'] button[data-action='undo']")
    expect(total(board2, 0)).to_have_text("2", timeout=5000)
    for s in (first, second, referee):
        s.close()


def test_setup_then_play_then_history(server, browser):
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base, PORTRAIT)
    unlock(referee, app)
    setup = referee.go("/setup")
    setup.click("#game-choices button[data-game='deck-dash']")
    first = setup.locator("#player-list input[data-seat='0']")
    expect(first).to_have_attribute("placeholder", "Player 1's name")  # as the list counts
    setup.fill("#player-list input[data-seat='0']", "Mia")
    setup.fill("#player-list input[data-seat='1']", "Leo")
    setup.click("#add-player")
    setup.fill("#player-list input[data-seat='2']", "Zoe")
    expect(setup.locator("#opt-level")).to_be_visible()
    shot(setup, "setup")
    setup.click("#start")
    setup.wait_for_url("**/console?game=*", wait_until="domcontentloaded")
    console = setup
    expect(console.locator("#kinds button[data-kind='deal']")).to_be_visible()
    choose(console, "deal", 0)
    console.fill("#f-start", "R5")
    console.fill("#f-hands", "[12, 12, 12]")
    console.click("#send")
    expect(console.locator("#feed")).to_contain_text("Mia dealt Dash 1")
    choose(console, "draw", 1)
    console.fill("#f-from", "draw")
    console.click("#send")
    expect(console.locator("#feed")).to_contain_text("Leo drew")
    # A typo is refused with a message, and nothing is stored.
    choose(console, "discard", 1)
    console.fill("#f-card", "Q77")
    console.click("#send")
    expect(console.locator("#toast")).to_contain_text("Q77")
    expect(console.locator("#feed li")).to_have_count(2)
    # A play out of turn is stored with its illegal verdict: the toast says it was refused,
    # in the warning colour, not as a success.
    choose(console, "discard", 0)
    console.fill("#f-card", "R3")
    console.click("#send")
    expect(console.locator("#toast")).to_contain_text("refused: It's Leo's turn")
    expect(console.locator("#toast")).to_have_class("toast bad")
    expect(console.locator("#feed li")).to_have_count(3)
    console.click("#end-game")
    console.click("#end-game")  # a second tap confirms
    console.wait_for_url("**/history/*", wait_until="domcontentloaded")
    # ended before anyone scored: no winner (WEB-1), and the page says why
    expect(console.locator("#game-times")).to_contain_text("early (everyone level: no winner)")
    expect(console.locator("#winners")).to_have_count(0)
    shot(console, "history-game")
    with console.expect_download() as download:  # the game as a file `tabletop replay` reads
        console.click("#download-log")
    lines = Path(download.value.path()).read_text().splitlines()
    assert json.loads(lines[0])["players"] == ["Mia", "Leo", "Zoe"] and len(lines) == 1 + 3
    history = referee.go("/history")
    expect(history.locator("#games-table")).to_contain_text("Mia, Leo, Zoe")
    expect(history.locator("#stats-table")).to_contain_text("Zoe")
    shot(history, "history")
    referee.close()


# A Hit the Deck race slapped on pads (Bob first, Cy last): the Live page's timeline.
HTD_RACE_GAME = {
    "game": "hit-the-deck",
    "players": ["Ann", "Bob", "Cy"],
    "options": {"hand_size": 2, "strict_deck": False},
}
HTD_RACE = [
    {
        "kind": "deal",
        "payload": {
            "hands": [["HAND", "R3"], ["G4", "B5"], ["Y6", "R7"]],
            "draw": ["G2", "B3", "Y4"],
            "dealer": 2,
        },
    },
    {"kind": "turn_up", "payload": {"card": "G2"}},
    {"kind": "play", "seat": 0, "payload": {"card": "HAND"}},
    {"kind": "slap", "seat": 1, "t_ns": 1_000_000_000, "source": "pad"},
    {"kind": "slap", "seat": 0, "t_ns": 1_050_000_000, "source": "pad"},
    {"kind": "slap", "seat": 2, "t_ns": 1_180_000_000, "source": "pad"},
]


def test_live_calibration_and_pads_pages(server, browser):
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    calib = referee.go("/calibration")
    canvas = calib.locator("#calib")
    expect(canvas).to_have_attribute("width", "160", timeout=5000)  # the snapshot arrived
    box = canvas.bounding_box()
    calib.select_option("#zone-name", "discard_1")
    for fx, fy in ((0.2, 0.2), (0.6, 0.2), (0.6, 0.7), (0.2, 0.7)):
        calib.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    calib.click("#close-zone")
    calib.click("#save-zones")
    expect(calib.locator("#calib-msg")).to_have_text("Saved 1 zone.")
    # the family reads what a zone is, the log keeps its stored name
    expect(calib.locator("#zone-list li strong")).to_have_text("Discard pile (DOS: the left one)")
    expect(calib.locator("#zone-name option[value='seat_1_dryer_bar_2']")).to_have_text(
        "Seat 1 · dryer bar 2 (top to bottom)"
    )
    shot(calib, "calibration")
    zones = referee.api("GET", "/api/zones")["data"]["zones"]
    assert zones[0]["name"] == "discard_1" and len(zones[0]["points"]) == 4
    assert all(0 <= v <= 1 for p in zones[0]["points"] for v in p)

    # A Hit the Deck race, slapped on pads: the Live page draws its evidence.
    game_id = referee.api("POST", "/api/games", HTD_RACE_GAME)["data"]["id"]
    for event in HTD_RACE:
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]
    live = referee.go("/live")
    expect(live.locator("#cam")).to_have_js_property("complete", True, timeout=5000)
    wait_until(live, "document.getElementById('cam').naturalWidth === 160")
    expect(live.locator("#timeline .tl-row")).to_have_count(3)
    expect(live.locator("#timeline .tl-row.loser")).to_contain_text("Cy")
    expect(live.locator("#timeline .tl-row.loser")).to_contain_text("180.0 ms")
    expect(live.locator("#race-reason")).to_contain_text("slapped last")
    shot(live, "live")

    pads = referee.go("/hardware")
    watcher = Screen(browser, base, PORTRAIT)
    other = watcher.go("/hardware")
    other.wait_for_selector("body[data-live='1']")  # the watcher's stream is connected
    table = Screen(browser, base, PORTRAIT)  # a third tablet on the Live page
    presses = table.go("/live")
    presses.wait_for_selector("body[data-live='1']")
    expect(presses.locator("#presses-none")).to_be_visible()
    pads.click("#pad-2-pad")
    expect(other.locator("#pad-2-pad")).to_have_class("pad-btn lit", timeout=3000)
    expect(presses.locator("#presses")).to_contain_text("pad · Cy", timeout=3000)
    expect(presses.locator("#presses-none")).to_be_hidden()
    shot(other, "hardware")
    table.close()
    watcher.close()
    referee.close()


def test_viewer_pages_without_pin_and_no_camera_message(server, browser):
    from playwright.sync_api import expect

    base, _ = server
    viewer = Screen(browser, base, PORTRAIT)
    page = viewer.go("/console")
    expect(page.locator("#send")).to_be_disabled()
    expect(page.locator("#view-only")).to_contain_text("Viewing only")
    shot(page, "console-viewer")
    phone = Screen(browser, base, PHONE)  # a phone that joined: the menu leaves room for the game
    board = phone.go("/scoreboard")
    header = board.locator("header.top").bounding_box()
    assert header["height"] < PHONE["height"] / 4, header
    links = board.locator("nav.main a")
    for i in range(links.count()):
        expect(links.nth(i)).to_be_in_viewport()
    shot(board, "scoreboard-phone")
    phone.close()
    r = viewer.api("POST", "/api/games", {"game": "deck-dash", "players": ["A", "B"]})
    assert r["status"] == 401
    viewer.close()
    # A second server without a camera: the Live page says so plainly.
    tmp_app = create_app(WebConfig(db_path=Path(app_tmp(server)) / "nocam.db"))
    with ServedApp(tmp_app, threads=8) as served:
        s = Screen(browser, served.url)
        live = s.go("/live")
        expect(live.locator("#nocam")).to_contain_text("No camera is configured")
        shot(live, "live-no-camera")
        tablet = Tablet(tmp_app)  # a game running: a viewer's Setup page names it, no "End it"
        tablet.set_pin()
        game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
        setup = s.go("/setup")
        running = setup.locator("#running")
        expect(running).to_have_text("Running: Deck Dash · game 1 · Ann, Bob Open console")
        expect(running.locator("#end-running")).to_have_count(0)
        s.close()
        assert tablet.send(game_id, DEAL).status_code == 201  # the console's table grows
        phone = Screen(browser, served.url, PHONE)  # every page fits a phone's width
        for path in ("/scoreboard", "/console", "/live", "/setup", "/history", "/calibration"):
            page = phone.go(path)
            if path == "/console":  # the table's keys wrap: no value hidden past the edge
                page.click("#c-raw summary")  # the raw view is folded under "On the table"
                expect(page.locator("#c-view")).to_be_visible()
                expect(page.locator("#c-view")).to_contain_text("dashes won")
                past = page.evaluate(
                    """() => { const edge = document.querySelector('#c-view')
                        .getBoundingClientRect().right + 1;
                      return [...document.querySelectorAll('#c-view *')]
                        .filter((e) => e.getBoundingClientRect().right > edge).length; }"""
                )
                assert past == 0, past
            if path == "/scoreboard":
                expect(page.locator("#players .player")).to_have_count(2)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], (path, width)
        phone.close()
        # A game the rules have won but nobody has ended yet: Setup says it is over.
        assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
        body = {"game": "deck-dash", "players": ["Ann", "Bob"], "options": {"dash_count": 1}}
        won = tablet.post("/api/games", body).json["id"]
        for event in BOB_FINISHES:
            tablet.send(won, event)
        s = Screen(browser, served.url)
        running = s.go("/setup").locator("#running")
        expect(running).to_contain_text("Game over, not yet ended: Deck Dash · game 2")
        s.close()


def app_tmp(server: tuple[str, Any]) -> str:
    return str(server[1].extensions["tabletop"].config.db_path.parent)


def test_hand_counts_typed_as_numbers_deal_in_every_card_game(server, browser):
    """A family types a table deal's hand counts as "12 12 12", as the field's label reads;
    each game's deal must get numbers per seat (before: the text, or card names '14'),
    and a lone number in a "cards … or a count" field is that count."""
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    deals = {
        "deck-dash": ({"#f-start": "R5", "#f-hands": "12 12 12"}, "Mia dealt Dash 1"),
        "dos": ({"#f-hands": "14, 14, 14", "#f-piles": "R3 B5"}, "14 cards each"),
        "hit-the-deck": ({"#f-hands": "7 7 7"}, "7 cards each"),
    }
    for game, (fields, dealt) in deals.items():
        body = {"game": game, "players": ["Mia", "Leo", "Zoe"]}
        game_id = referee.api("POST", "/api/games", body)["data"]["id"]
        page = referee.go(f"/console?game={game_id}")
        choose(page, "deal", 0)
        for selector, text in fields.items():
            page.fill(selector, text)
        hands = json.loads(page.input_value("#payload"))["hands"]
        assert hands == [int(fields["#f-hands"].split()[0].strip(","))] * 3, (game, hands)
        page.click("#send")
        expect(page.locator("#feed")).to_contain_text(dealt)
        # the game's table names players, not seats counted from 0 ("dealer 0")
        dealer = page.evaluate(
            """() => [...document.querySelectorAll('#c-view .k')]
                .filter((k) => k.textContent === 'dealer')
                .map((k) => k.nextElementSibling.textContent)"""
        )
        assert dealer and set(dealer) == {"Mia"}, (game, dealer)
    page = referee.go(f"/console?game={game_id}")  # Hit the Deck: "draw: … or a count"
    choose(page, "deal", 0)
    page.fill("#f-draw", "40")
    assert json.loads(page.input_value("#payload"))["draw"] == 40
    page.fill("#f-draw", "R3 B4")
    assert json.loads(page.input_value("#payload"))["draw"] == ["R3", "B4"]
    referee.close()


def test_every_games_every_event_kind_has_a_manual_form(server, browser):
    """Manual entry is generated from event_kinds(): every kind of every installed game
    gets a button, its description and its fields, with no script errors."""
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    catalogue = referee.api("GET", "/api/catalogue")["data"]["games"]
    assert {g["name"] for g in catalogue} >= {"deck-dash", "dos", "hit-the-deck", "wash-dash"}
    for game in catalogue:
        players = [f"P{i}" for i in range(max(2, game["min_players"]))]
        body = {"game": game["name"], "players": players}
        game_id = referee.api("POST", "/api/games", body)["data"]["id"]
        page = referee.go(f"/console?game={game_id}")
        for kind, desc in game["event_kinds"].items():
            page.click(f"#kinds button[data-kind='{kind}']")
            expect(page.locator("#kind-desc")).to_contain_text(kind + ":")
            for field in page.locator("#fields input[data-field]").all():
                name = field.get_attribute("data-field")
                assert name in desc, (game["name"], kind, name)
        if game["name"] == "dos":
            page.click("#kinds button[data-kind='play']")
            assert page.locator("#f-card").count() == 1 and page.locator("#f-pile").count() == 1
            shot(page, "console-dos")
    referee.close()


def test_the_console_says_whose_forfeit_a_wash_dash_result_waits_for(server, browser):
    """WD-11: after the last round a mistaken player still gives up an earlier card, so the
    console names whose choice the result waits for, not "game over", until it is made."""
    from playwright.sync_api import expect

    from referee.events import Event
    from referee.washdash.state import earlier_tasks
    from tests.test_washdash_review import DECK, last_round_mistake, run

    base, app = server
    games = app.extensions["tabletop"].games
    game_id = games.create("wash-dash", ["Ann", "Bob"], {})
    events = last_round_mistake()
    for event in events:
        games.append(game_id, event)
    referee = Screen(browser, base)
    unlock(referee, app)
    page = referee.go(f"/console?game={game_id}")
    meta = page.locator("#c-meta")
    expect(meta).to_contain_text("waiting for Ann to give up an earlier task card")
    assert "game over" not in meta.inner_text()
    state = run(["Ann", "Bob"], events).state
    card = earlier_tasks(state, DECK, 0)[0]
    games.append(game_id, Event("forfeit", seat=0, payload={"card": card}))
    expect(meta).to_contain_text("game over: End game files it in History")
    assert "waiting for" not in meta.inner_text()
    referee.close()
