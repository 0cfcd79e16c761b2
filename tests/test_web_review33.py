"""Round 33's walk of the dashboard in headless Chromium: a connection that drops without a
word (half-open TCP, Wi-Fi gone) is said and caught up; a hidden tab gives its live stream back
(six live tabs held all six of a browser's connections); a call with no answer says so; the
console's "Skip to the verdicts" covers nothing until focused; every payload key an event
kind's description names gets a field; Setup's "End it" takes two taps as the console's End
game does; Setup's name boxes fit the game chosen; Enter in a console field sends."""

from __future__ import annotations

import json
import re
import select
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, PHONE, Screen, unlock
from tests.test_web_routes import BOB_FINISHES, DEAL, Tablet, make_app
from tests.test_web_soak import eventually

TABLET = {"width": 768, "height": 1024}


def referee_screen(browser: Any, served: tuple[str, Any], viewport: dict[str, int]) -> Screen:
    screen = Screen(browser, served[0], viewport)
    unlock(screen, served[1])
    return screen


def console(screen: Screen, game_id: int) -> Any:
    page = screen.go(f"/console?game={game_id}")
    page.wait_for_selector("#kinds button")
    return page


# -- 1. the heartbeat is a message the page sees; a fresh stream resumes from ?last= --------


def sse_blocks(resp: Any) -> Iterator[dict[str, str]]:
    """The stream's messages as dicts of their fields, comments and retry left out."""
    buf = b""
    for chunk in resp.response:
        buf += chunk
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            fields = {}
            for line in block.decode().splitlines():
                name, _, value = line.partition(":")
                if name and name != "retry":
                    fields[name] = value[1:] if value.startswith(" ") else value
            if fields:
                yield fields


def test_the_heartbeat_is_a_message_with_its_interval_not_a_comment(tmp_path):
    """A comment (": ping") never reaches the page, so a silent drop was never noticed. The
    heartbeat carries no event name (existing readers skip it) and no id (the page's last
    id stays); it comes at once, so the page knows how long a silence may be, then when idle."""
    t = Tablet(make_app(tmp_path, stream_heartbeat_s=0.2))
    assert t.set_pin().status_code == 302
    t.new_game()
    resp = t.client.get("/api/stream?delta=1")
    blocks = sse_blocks(resp)
    first = next(blocks)
    assert first == {"data": json.dumps({"heartbeat_s": 0.2})}
    assert next(blocks)["event"] == "state"
    idle = next(blocks)
    assert "event" not in idle and "id" not in idle
    assert json.loads(idle["data"]) == {"heartbeat_s": 0.2}
    resp.close()


def test_a_fresh_stream_given_the_last_id_as_a_parameter_gets_only_what_it_missed(tmp_path):
    """EventSource cannot set Last-Event-ID: a page reopening its stream itself (after a
    silent drop, or a tab shown again) gives it as ?last= and gets a delta, not the feed."""
    t = Tablet(make_app(tmp_path, stream_heartbeat_s=0.2))
    assert t.set_pin().status_code == 302
    game_id = t.new_game()
    for event in BOB_FINISHES[:3]:
        assert t.send(game_id, event).status_code == 201
    resp = t.client.get("/api/stream?delta=1")
    state = next(b for b in sse_blocks(resp) if "event" in b)
    resp.close()
    assert state["event"] == "state"
    assert t.send(game_id, BOB_FINISHES[3]).status_code == 201
    resp = t.client.get("/api/stream?delta=1&last=" + state["id"])
    caught = next(b for b in sse_blocks(resp) if "event" in b)
    resp.close()
    assert caught["event"] == "delta", caught["event"]
    data = json.loads(caught["data"])
    assert data["after"] == 3 and [f["seq"] for f in data["feed"]] == [4]
    # the header, when the browser sends one, is the newer word
    resp = t.client.get(
        "/api/stream?delta=1&last=" + state["id"], headers={"Last-Event-ID": caught["id"]}
    )
    again = next(b for b in sse_blocks(resp) if "event" in b)
    resp.close()
    assert again["event"] == "delta" and json.loads(again["data"])["feed"] == []


# -- 1. a silently dropped connection ----------------------------------------------------------


def reason(tablet: Tablet, game_id: int) -> str:
    """The newest verdict's words, which the scoreboard shows under the scores."""
    return str(tablet.snapshot(game_id)["feed"][-1]["verdicts"][-1]["reason"])


class SilentRelay:
    """A TCP relay to ``port`` whose connections can all go silent at once: no data, no FIN,
    no RST, as a tablet's do when the Wi-Fi drops (half-open). ``silence()`` mutes those open
    and those opened after (accepted, never answered); ``restore()`` lets new ones through."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.muted_new = False
        self.stopping = threading.Event()
        self.links: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                client, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            link: dict[str, Any] = {"socks": [client], "muted": self.muted_new}
            if not link["muted"]:
                try:
                    link["socks"].append(socket.create_connection(("127.0.0.1", self.target)))
                except OSError:
                    client.close()
                    continue
                pump = threading.Thread(target=self._pump, args=(link,), daemon=True)
                self.threads.append(pump)
                pump.start()
            with self.lock:
                self.links.append(link)

    def _pump(self, link: dict[str, Any]) -> None:
        a, b = link["socks"]
        while not self.stopping.is_set() and not link["muted"]:
            try:
                ready, _, _ = select.select([a, b], [], [], 0.1)
                if link["muted"]:
                    return  # keep both open, relay nothing more
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
            except OSError:
                return

    def silence(self) -> None:
        self.muted_new = True
        with self.lock:
            for link in self.links:
                link["muted"] = True

    def restore(self) -> None:
        self.muted_new = False

    def close(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(5)
        with self.lock:
            for link in self.links:
                for s in link["socks"]:
                    s.close()
        self.server.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_silently_dropped_connection_is_said_and_the_page_catches_up(browser, tmp_path):
    """Before: the scoreboard kept showing a stale turn with no notice for as long as the
    connection stayed half-open (the browser sees no error). Now the page hears a heartbeat
    every 0.5 s; after 2.5 of them (at least 3 s) of silence it says the connection is lost
    and opens a fresh stream, which resumes from the id it holds (?last=)."""
    from playwright.sync_api import expect

    app = make_app(tmp_path, stream_heartbeat_s=0.5, race_timer=False)
    tablet = Tablet(app)
    assert tablet.set_pin().status_code == 302
    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    server = ServedApp(app, threads=8)
    relay = SilentRelay(server.port)
    viewer = Screen(browser, f"http://127.0.0.1:{relay.port}", PHONE)
    streams: list[str] = []
    viewer.page.on("request", lambda r: streams.append(r.url) if "/api/stream" in r.url else None)
    try:
        board = viewer.go("/scoreboard")
        board.wait_for_selector("body[data-live='1']")
        last = board.locator("#sb-last")
        expect(last).to_contain_text(reason(tablet, game_id))
        board.evaluate(
            """() => { window.lost = 0; new MutationObserver(() => {
                if (document.body.dataset.lost) window.lost++;
              }).observe(document.body, { attributes: true }); }"""
        )
        board.wait_for_timeout(4000)  # idle longer than the watchdog: the heartbeats keep it
        assert board.evaluate("window.lost") == 0 and len(streams) == 1

        relay.silence()
        dealt = last.inner_text()
        assert tablet.send(game_id, BOB_FINISHES[1]).status_code == 201  # Bob draws
        expect(board.locator(".conn-lost")).to_be_visible(timeout=15000)
        assert last.inner_text() == dealt  # stale, and now said so

        # the network is back: the draw shows with no further event. (Each connection the
        # browser kept alive died too; a stream asked on one is given up after 5 s, in turn)
        relay.restore()
        expect(board.locator(".conn-lost")).to_be_hidden(timeout=60000)
        expect(last).to_contain_text(reason(tablet, game_id))
        assert any("last=" in url for url in streams[1:]), streams  # resumed, not reloaded
    finally:
        viewer.close()
        relay.close()
        app.extensions["tabletop"].end_streams()
        server.stop()


# -- 2. a hidden tab; a call with no answer ----------------------------------------------------

HIDE = """(hidden) => {
  for (const [name, value] of [["hidden", hidden], ["visibilityState", hidden ? "hidden" : "visible"]])
    Object.defineProperty(document, name, { value, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""  # noqa: E501
HIDDEN_AT_LOAD = """for (const [name, value] of [["hidden", true], ["visibilityState", "hidden"]])
  Object.defineProperty(document, name, { value, configurable: true });"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_hidden_tab_gives_its_stream_back_and_catches_up_when_shown(browser, tmp_path):
    """Six live tabs held all six connections a browser opens to one server, so a seventh
    page and the console's Send waited with no word. A hidden tab now closes its stream and,
    shown again, resumes from the id it holds: it shows what a page loaded now shows."""
    from playwright.sync_api import expect

    app = make_app(tmp_path, stream_heartbeat_s=0.5, race_timer=False)
    tablet = Tablet(app)
    assert tablet.set_pin().status_code == 302
    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    streams = app.extensions["tabletop"].streams
    server = ServedApp(app, threads=8)
    base = server.url
    viewer, fresh = Screen(browser, base, PHONE), Screen(browser, base, PHONE)
    urls: list[str] = []
    viewer.page.on("request", lambda r: urls.append(r.url) if "/api/stream" in r.url else None)
    try:
        board = viewer.go("/scoreboard")
        board.wait_for_selector("body[data-live='1']")
        expect(board.locator("#sb-status")).to_have_text("· Bob to play")
        assert streams.active == 1
        board.evaluate(HIDE, True)
        assert eventually(lambda: streams.active == 0), "the hidden tab kept its stream"
        for event in BOB_FINISHES[1:]:
            assert tablet.send(game_id, event).status_code == 201
        board.wait_for_timeout(300)
        assert len(urls) == 1  # nothing reopened while hidden
        board.evaluate(HIDE, False)
        board.wait_for_selector("body[data-live='1']")
        assert "last=" in urls[-1], urls
        again = fresh.go("/scoreboard")
        again.wait_for_selector("body[data-live='1']")
        for box in ("#sb-status", "#players", "#sb-last"):
            expect(board.locator(box)).to_have_text(again.locator(box).text_content() or "")
        # a tab loaded in the background (middle-click, a restored session) waits to be shown
        assert eventually(lambda: streams.active == 2)
        background = Screen(browser, base, PHONE)
        background.ctx.add_init_script(HIDDEN_AT_LOAD)
        hidden = background.go("/scoreboard")
        hidden.wait_for_timeout(500)
        assert streams.active == 2, "a tab loaded hidden opened its stream"
        hidden.evaluate(HIDE, False)
        hidden.wait_for_selector("body[data-live='1']")
        assert streams.active == 3
        background.close()
    finally:
        fresh.close()
        viewer.close()
        app.extensions["tabletop"].end_streams()
        server.stop()


@pytest.mark.browser
@pytest.mark.slow
def test_a_call_with_no_answer_says_the_referee_cannot_be_reached(served, browser):
    """A request the browser queues behind its six connections, or sends into a dead Wi-Fi,
    waited for minutes: Send showed nothing. TT.api now gives up (10 s unless told)."""
    screen = Screen(browser, served[0], PHONE)
    page = screen.go("/scoreboard")
    held: list[Any] = []
    page.route("**/api/never", lambda route: held.append(route))  # never answered
    got = page.evaluate(
        """async () => Promise.race([
          TT.api("POST", "/api/never", {}, { timeoutMs: 300 }),
          new Promise((done) => setTimeout(() => done("still waiting"), 5000))])"""
    )
    assert got != "still waiting", "no timeout"
    assert got["ok"] is False and got["status"] == 0
    assert got["data"]["error"].startswith("the referee cannot be reached"), got
    assert got["data"]["error"].endswith("it may have been recorded: check before sending it again")
    for route in held:
        route.abort()  # its handler ends with the test (else asyncio says it was left pending)
    page.unroute("**/api/never")
    screen.close()


# -- 3. the console's skip link --------------------------------------------------------------

SKIP = """(focus) => {
  const a = document.querySelector("#entry-panel a.skip");
  if (focus) a.focus(); else document.activeElement.blur();
  a.scrollIntoView({ block: "center" });
  const r = a.getBoundingClientRect(), panel = document.querySelector("#entry-panel").getBoundingClientRect();
  const points = [];
  /* inside its rounded corners */
  for (let x = r.left + 5; x < r.right - 5; x += 8) for (let y = r.top + 5; y < r.bottom - 5; y += 8) points.push([x, y]);
  const onTop = points.filter(([x, y]) => a.contains(document.elementFromPoint(x, y))).length;
  const covered = [...document.querySelectorAll("#table-panel dt, #table-panel dd, #c-score .player")]
    .filter((n) => { const q = n.getBoundingClientRect();
      return q.width && q.bottom > r.top && q.top < r.bottom && q.right > r.left && q.left < r.right; })
    .filter((n) => { const q = n.getBoundingClientRect();
      return !n.contains(document.elementFromPoint((q.left + q.right) / 2, (q.top + q.bottom) / 2)); })
    .map((n) => n.textContent.trim().slice(0, 30));
  return { onTop, points: points.length, covered, focused: document.activeElement === a,
    inPanel: r.top >= panel.top && r.bottom <= panel.bottom };
}"""  # noqa: E501


@pytest.mark.browser
@pytest.mark.slow
def test_the_skip_link_covers_nothing_until_focused_then_shows(served, tablet, browser):
    """Before: moved 10rem up out of its own panel, "Skip to the verdicts" sat over "On the
    table" at every width and hid the draw pile's count. Now it is clipped to nothing until
    focused, and then shows at the top of the event form."""
    game_id = tablet.new_game("dos", ("Ana", "Bob"))
    deal = {"kind": "deal", "payload": {"hands": [14, 14], "piles": ["R5", "B7"]}}
    assert tablet.send(game_id, deal).status_code == 201
    for viewport in (PHONE, TABLET, LANDSCAPE):
        screen = referee_screen(browser, served, viewport)
        page = console(screen, game_id)
        page.wait_for_selector("#c-table dd")
        hidden = page.evaluate(SKIP, False)
        assert hidden["onTop"] == 0 and not hidden["covered"], (viewport, hidden)
        shown = page.evaluate(SKIP, True)
        assert shown["focused"] and shown["inPanel"], (viewport, shown)
        assert shown["onTop"] == shown["points"], (viewport, shown)
        screen.close()


# -- 4. every payload key a description names is a field -------------------------------------

NAMED = re.compile(r"(?:^|[\s,{])['\"]?([A-Za-z_]\w*)['\"]?\??:")
NOT_PAYLOAD = {"seat", "t_ns", "payload"}  # the event's own: the form has controls for them


def named_keys(desc: str) -> set[str]:
    """The payload keys a description names, by the convention event_kinds() are written in:
    "name: what it is" (or "name?:", inside "{…}" where there are braces); words in brackets
    are asides ("(default: …)"), and "seat/dealer:" is another word for the seat."""
    braces = re.search(r"\{(.*)\}", desc, re.S)
    text = braces.group(1) if braces else desc
    text = re.sub(r"\([^()]*\)", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    return set(NAMED.findall(text)) - NOT_PAYLOAD


FIELDS = """() => Object.fromEntries([...document.querySelectorAll("#kinds button")].map((b) => {
  b.click();
  const fields = document.querySelectorAll("#fields input[data-field]");
  return [b.dataset.kind, [...fields].map((i) => i.dataset.field)];
}))"""


@pytest.mark.browser
@pytest.mark.slow
def test_every_payload_key_an_event_kind_names_becomes_a_field(served, tablet, browser):
    """The form took only the first "name:" of each ";"-part: Hit the Deck's cut had no box
    for the card, hand none for points, and forgot_yell a field "optional". Every game's
    every kind now gets exactly the fields its description names (the older test checks only
    that a field's name appears in the description)."""
    screen = referee_screen(browser, served, LANDSCAPE)
    catalogue = screen.api("GET", "/api/catalogue")["data"]["games"]
    for game in catalogue:
        players = tuple(f"P{i}" for i in range(max(2, game["min_players"])))
        page = console(screen, tablet.new_game(game["name"], players))
        got = page.evaluate(FIELDS)
        for kind, desc in game["event_kinds"].items():
            assert set(got[kind]) == named_keys(desc), (game["name"], kind, got[kind], desc)
    screen.close()


# The descriptions as round 33 found them: two fields in one part, an aside with a colon.
TERSE = {
    "cut": (
        "seat cuts the deck; at: cards lifted (optional), card: the card revealed",
        ["at", "card"],
    ),
    "hand": (
        "end of round, a hand the referee could not see; cards: list, or points: number",
        ["cards", "points"],
    ),
    "forgot_yell": (
        "the Hand card was played without the yell (seat optional: its player); "
        "until the next turn action",
        [],
    ),
    "reshuffle": (
        "order: the new draw pile top first (scripted; optional in table mode)",
        ["order"],
    ),
}


@pytest.mark.browser
@pytest.mark.slow
def test_the_form_reads_every_name_of_a_part_and_no_aside(served, tablet, browser):
    """However a description is written, a part with two "name:"s gives two fields (each
    with its own hint), and a "word:" in brackets gives none."""
    screen = referee_screen(browser, served, LANDSCAPE)
    page = screen.page

    def terse(route: Any) -> None:
        body = route.fetch().json()
        for game in body["games"]:
            if game["name"] == "hit-the-deck":
                game["event_kinds"] = {kind: desc for kind, (desc, _) in TERSE.items()}
        route.fulfill(json=body)

    page.route("**/api/catalogue", terse)
    page = console(screen, tablet.new_game("hit-the-deck"))
    got = page.evaluate(FIELDS)
    assert got == {kind: fields for kind, (_, fields) in TERSE.items()}, got
    page.click("#kinds button[data-kind='cut']")
    labels = page.locator("#fields label").all_inner_texts()
    assert labels == ["at (optional) — cards lifted (optional)", "card — the card revealed"]
    page.click("#kinds button[data-kind='reshuffle']")
    assert page.locator("#fields label").inner_text().startswith("order (optional)")
    page.click("#kinds button[data-kind='hand']")
    page.fill("#f-points", "14")
    assert json.loads(page.input_value("#payload")) == {"points": 14}
    screen.close()


# -- 5. Setup's End it: two taps ----------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_web12_setup_ends_a_running_game_in_two_taps_like_the_console(
    served, tablet, browser
):
    """Before: "End it", 6 px from "Open console", ended the game at one tap (the console's
    End game takes two, WEB-12). Now the first tap arms it and says what the second does."""
    from playwright.sync_api import expect

    _, app = served
    games = app.extensions["tabletop"].games
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    screen = referee_screen(browser, served, PHONE)
    page = screen.go("/setup")
    running, end = page.locator("#running"), page.locator("#end-running")
    expect(running).to_contain_text(f"game {game_id}")
    end.click()
    note = page.locator("#end-running-note")
    expect(note).to_contain_text(f"End game {game_id}?")
    expect(end).to_have_text("Tap again to end")
    page.wait_for_timeout(300)
    assert games.record(game_id).ended_at is None
    expect(note).to_be_hidden(timeout=6000)  # not confirmed: disarmed after 4 s
    expect(end).to_have_text("End it")
    end.click()
    end.click()
    expect(running).to_be_hidden()
    assert games.record(game_id).ended_at is not None
    screen.close()


# -- 6. Setup's name boxes; Enter sends ----------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_setup_fits_the_name_boxes_to_the_game_and_drops_a_stale_error(served, browser):
    """Before: eight boxes typed for Deck Dash stayed for Wash Dash (2-6), and an error
    about one game stayed under the next one chosen."""
    from playwright.sync_api import expect

    screen = referee_screen(browser, served, LANDSCAPE)
    page = screen.go("/setup")
    page.click("#game-choices button[data-game='deck-dash']")
    boxes = page.locator("#player-list input")
    names = ["A1", "", "C3", "D4", "E5", "F6", "G7", "H8"]
    while boxes.count() < len(names):
        page.click("#add-player")
    for i, name in enumerate(names):
        boxes.nth(i).fill(name)
    page.click("#game-choices button[data-game='wash-dash']")
    expect(page.locator("#player-range")).to_have_text("(2–6)")
    # the empty box goes first, then the last names: what was typed is kept where it fits
    assert [boxes.nth(i).input_value() for i in range(boxes.count())] == names[:1] + names[2:7]
    page.click("#add-player")
    assert boxes.count() == 6
    page.click("#game-choices button[data-game='dos']")
    page.fill("#opt-rounds", "0")
    page.click("#start")
    error = page.locator("#setup-error")
    expect(error).to_be_visible()
    page.click("#game-choices button[data-game='deck-dash']")
    expect(error).to_be_hidden()
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_enter_in_a_console_field_sends_but_not_in_the_payload_box(served, tablet, browser):
    from playwright.sync_api import expect

    game_id = tablet.new_game("dos", ("Ana", "Bob"))
    screen = referee_screen(browser, served, LANDSCAPE)
    page = console(screen, game_id)
    page.click("#kinds button[data-kind='deal']")
    page.fill("#f-hands", "7 7")
    page.fill("#f-piles", "R3 B5")
    page.click("#payload")
    page.keyboard.press("End")
    page.keyboard.press("Enter")  # a new line in the payload: nothing is sent
    page.wait_for_timeout(300)
    assert tablet.snapshot(game_id)["feed"] == []
    page.fill("#payload", json.dumps({"hands": [7, 7], "piles": ["R3", "B5"]}))
    page.focus("#f-piles")
    page.keyboard.press("Enter")
    expect(page.locator("#feed li[data-seq='1']")).to_be_visible()
    assert tablet.snapshot(game_id)["feed"][0]["event"]["payload"]["piles"] == ["R3", "B5"]
    screen.close()


def test_whole_numbers_typed_in_a_list_box_are_numbers(served, tablet, browser):
    """Hit the Deck's "cards lifted" (cut's at) and race_close's "[seats]" boxes sent ["30"]
    and ["0", "2"], which the referee refuses; card tokens stay text."""
    game_id = tablet.new_game("hit-the-deck", ("Ana", "Bob", "Cy"))
    screen = referee_screen(browser, served, LANDSCAPE)
    page = console(screen, game_id)
    typed = {}
    for kind, field, text in (("cut", "at", "30"), ("race_close", "last", "0 2")):
        page.click(f"#kinds button[data-kind='{kind}']")
        page.fill(f"#f-{field}", text)
        typed[kind] = json.loads(page.input_value("#payload"))
    page.fill("#f-last", "2")  # one seat named last is still a list of seats
    assert json.loads(page.input_value("#payload")) == {"last": [2]}
    page.click("#kinds button[data-kind='hand']")
    page.fill("#f-cards", "R3 HAND")
    typed["hand"] = json.loads(page.input_value("#payload"))
    assert typed == {
        "cut": {"at": 30},
        "race_close": {"last": [0, 2]},
        "hand": {"cards": ["R3", "HAND"]},
    }
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_count_typed_where_cards_or_a_count_go_is_the_count(served, tablet, browser):
    """DOS's stock box ("[cards, top first]|count") sent 60 as [60], which the referee
    refuses as a card (day 34); Hit the Deck's shuffle order reads a card list or a count."""
    screen = referee_screen(browser, served, LANDSCAPE)
    page = console(screen, tablet.new_game("dos", ("Ana", "Bob", "Cy")))
    typed = {}
    for kind, text in (("deal", "60"), ("reshuffle", "40")):
        page.click(f"#kinds button[data-kind='{kind}']")
        page.fill("#f-stock", text)
        typed[kind] = json.loads(page.input_value("#payload"))
    page.fill("#f-stock", "R5 G7")
    typed["cards"] = json.loads(page.input_value("#payload"))
    page = console(screen, tablet.new_game("hit-the-deck", ("Ana", "Bob", "Cy")))
    page.click("#kinds button[data-kind='shuffle']")
    for text in ("12", "G3 G4 HAND"):
        page.fill("#f-draw", text)
        typed[text] = json.loads(page.input_value("#payload"))
    assert typed == {
        "deal": {"stock": 60},
        "reshuffle": {"stock": 40},
        "cards": {"stock": ["R5", "G7"]},
        "12": {"draw": 12},
        "G3 G4 HAND": {"draw": ["G3", "G4", "HAND"]},
    }
    screen.close()


# -- a game with more players than the table has wired seats -----------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_hw1_the_console_names_players_with_no_pad_wired_at_the_table(browser, tmp_path):
    """A 4-player Hit the Deck game on a 3-seat pin map started without a word: Dee had no
    pad, and the race window judged her last in every slap race (HW-1). The console names
    her and says where her slaps go; a game whose players all have a pad says nothing, and
    a DOS game at this table of pads without call buttons names everyone."""
    from hardware.config import parse_hardware
    from hardware.service import PadsService
    from hardware.table import Table

    seats = {str(i): {"pad": pin} for i, pin in enumerate((4, 22, 11))}
    pads = PadsService(
        Table.open(parse_hardware({"mode": "gpio", "pin_factory": "mock", "seats": seats}))
    )
    app = make_app(tmp_path, pads=pads, race_timer=False)
    tablet = Tablet(app)
    tablet.set_pin()
    four = tablet.new_game("hit-the-deck", ("Ann", "Bea", "Cy", "Dee"))
    with ServedApp(app, threads=8) as server:
        try:
            screen = referee_screen(browser, (server.url, app), TABLET)
            page = console(screen, four)
            notice = page.locator("#c-unwired")
            expect_text = "No pad is wired for Dee (seat 3) at this table: enter their slaps"
            assert eventually(lambda: expect_text in notice.inner_text()), notice.inner_text()
            assert notice.is_visible()
            three = tablet.new_game("hit-the-deck", ("Ann", "Bea", "Cy"))
            page = console(screen, three)
            title = page.locator("#c-title")
            assert eventually(lambda: f"game {three}" in title.inner_text()), title.inner_text()
            page.wait_for_timeout(300)  # the pads' answer, asked at the page's start
            assert eventually(notice.is_hidden)
            dos = tablet.new_game("dos", ("Ann", "Bea"))
            page = console(screen, dos)
            notice = page.locator("#c-unwired")
            want = (
                "No button is wired for Ann (seat 0), Bea (seat 1) at this table: "
                "enter their DOS calls"
            )
            assert eventually(lambda: want in notice.inner_text()), notice.inner_text()
            screen.close()
        finally:
            app.extensions["tabletop"].end_streams()
            pads.close()
