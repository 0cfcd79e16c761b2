"""Accessibility and usability of every dashboard page, checked in real headless Chromium:
labels, real buttons, keyboard order and a visible focus ring, WCAG AA colour contrast
(computed in the page from the computed styles), announcements of what matters (a new
verdict, a refused event, a camera question, a lost connection) without reading the whole
page out again, one h1, tap targets on a phone, nothing said by colour alone, and 200 % zoom.

The checks are plain JavaScript (no axe): ``AUDIT`` returns every problem it finds on the
page it runs in, by kind, each named by its element (``tag#id.class «text»``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import HTD_RACE, HTD_RACE_GAME, PHONE, Screen, unlock
from tests.test_web_routes import BOB_FINISHES, DEAL, write_images
from web import create_app
from web.config import WebConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLET = {"width": 1024, "height": 768}
SHOTS = Path(__file__).resolve().parents[1] / "runs" / "r28" / "a11y"

# Every element that gets a click (or pointer) listener is marked, so that a clickable
# <div> or <span> is found however its handler was attached.
MARK_CLICKS = """(() => {
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    if (this instanceof Element && /^(click|pointerdown|mousedown|touchstart|keydown)$/.test(type))
      this.__clicky = true;
    return add.call(this, type, fn, opts);
  };
})();"""

# Shared helpers: what an element is called, whether it shows, and the colour a pixel of it
# (or of its text) has once every background and opacity above it is painted.
HELPERS = r"""
  const shown = (e) => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && !e.closest("[aria-hidden=true]"); };
  const desc = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (typeof e.className === "string" && e.className.trim() ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    " «" + (e.textContent || e.value || e.placeholder || "").trim().replace(/\s+/g, " ").slice(0, 40) + "»";
  const rgba = (s) => { const m = /rgba?\(([^)]*)\)/.exec(s || ""); if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (a, b) => { const al = a[3] + b[3] * (1 - a[3]); if (!al) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (a[i] * a[3] + b[i] * b[3] * (1 - a[3])) / al).concat([al]); };
  /* the element chain[i] painted alone (its background, then what is inside it, then its
     opacity): nested opacities compose as they do on screen */
  const group = (chain, i, top) => { const s = getComputedStyle(chain[i]);
    let c = rgba(s.backgroundColor) || [0, 0, 0, 0];
    const inner = i + 1 < chain.length ? group(chain, i + 1, top) : top;
    if (inner) c = over(inner, c);
    return [c[0], c[1], c[2], c[3] * Number(s.opacity)]; };
  const chainOf = (e) => { const c = []; for (let n = e; n; n = n.parentElement) c.unshift(n); return c; };
  const rendered = (e, top) => over(group(chainOf(e), 0, top), [255, 255, 255, 1]);
  const imaged = (e) => chainOf(e).some((n) => getComputedStyle(n).backgroundImage !== "none");
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
"""  # noqa: E501 (JavaScript)

AUDIT = (
    """(phone) => {"""
    + HELPERS
    + r"""
  const out = {};
  out.lang = document.documentElement.lang ? [] : ["<html> has no lang"];
  const hs = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].filter(shown);
  out.headings = [];
  if (hs.filter((h) => h.tagName === "H1").length !== 1) out.headings.push("h1 count " + hs.filter((h) => h.tagName === "H1").length);
  let level = 0;
  for (const h of hs) { const l = Number(h.tagName[1]); if (l > level + 1) out.headings.push("skips to " + desc(h)); level = l; }

  const controls = [...document.querySelectorAll("input:not([type=hidden]), select, textarea")].filter(shown);
  out.unlabelled = controls.filter((c) => !([...c.labels].some((l) => l.textContent.trim()) ||
    c.getAttribute("aria-label") || c.getAttribute("aria-labelledby") || c.title)).map(desc);
  out.orphanLabels = [...document.querySelectorAll("label")].filter(shown).filter((l) => !l.control).map(desc);
  const name = (e) => (e.getAttribute("aria-label") || e.textContent || e.title || "").trim();
  out.nameless = [...document.querySelectorAll("button, a[href], [role=button]")].filter(shown).filter((e) => !name(e)).map(desc);
  const ACTIVE = "a[href], button, input, select, textarea, summary, label, canvas, [role=slider][tabindex]";
  out.clickableNonButtons = [...document.querySelectorAll("body *")].filter(shown).filter((e) =>
    (e.__clicky || e.hasAttribute("onclick") || getComputedStyle(e).cursor === "pointer") &&
    !e.matches(ACTIVE) && !e.closest("a[href], button, summary, label") &&
    !(e.__clicky && e.querySelector("button"))).map(desc);  // a list's own buttons, delegated
  out.positiveTabindex = [...document.querySelectorAll("[tabindex]")].filter((e) => e.tabIndex > 0).map(desc);
  /* a live region is read out whenever it changes: one that holds a list or buttons is read
     out whole at every update */
  out.noisyLive = [...document.querySelectorAll("[aria-live], [role=status], [role=alert], [role=log]")]
    .filter((e) => e.getAttribute("aria-live") !== "off")
    .filter((e) => e.querySelector("button, input, li, .player") || e.textContent.length > 300).map(desc);

  /* colour contrast of every piece of text that shows (WCAG AA); disabled controls are exempt */
  out.contrast = [];
  let lowest = null;
  const check = (e, color, what) => {
    if (imaged(e)) return;
    const s = getComputedStyle(e), px = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = px >= 24 || (px >= 18.66 && bold) ? 3 : 4.5;
    const fg = rendered(e, rgba(color)), bg = rendered(e, null), r = ratio(fg, bg);
    const row = { el: what + desc(e), ratio: Math.round(r * 100) / 100, need, fg: hex(fg), bg: hex(bg) };
    if (!lowest || r / need < lowest.ratio / lowest.need) lowest = row;
    if (r < need - 0.005) out.contrast.push(row);
  };
  for (const e of document.querySelectorAll("body *")) {
    if (!shown(e) || e.closest(":disabled, [aria-disabled=true], script, style")) continue;
    const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (text) check(e, getComputedStyle(e).color, "");
    if (e.matches("input:not([type=checkbox]), select, textarea")) {
      if (e.value) check(e, getComputedStyle(e).color, "value of ");
      else if (e.placeholder) check(e, getComputedStyle(e, "::placeholder").color, "placeholder of ");
    }
  }
  out.lowestContrast = lowest;

  /* nothing said by colour alone */
  out.colourAlone = [];
  for (const v of document.querySelectorAll(".verdict.legal, .verdict.illegal")) {
    const word = v.classList.contains("illegal") ? /\b(illegal|refused)\b/i : /\blegal\b/i;
    if (shown(v) && !word.test(v.textContent)) out.colourAlone.push("verdict says no outcome: " + desc(v));
  }
  for (const p of document.querySelectorAll(".player.winner"))
    if (!/winner|won/i.test(p.textContent)) out.colourAlone.push("winner only by colour: " + desc(p));
  for (const row of document.querySelectorAll(".tl-row.loser"))
    if (!row.querySelector(".tag")) out.colourAlone.push("race seat marked only by colour: " + desc(row));
  for (const b of document.querySelectorAll("#kinds button, #seats button, #game-choices button"))
    if (b.getAttribute("aria-pressed") !== String(b.classList.contains("selected")))
      out.colourAlone.push("choice without aria-pressed: " + desc(b));
  for (const a of document.querySelectorAll("nav.main a.active"))
    if (a.getAttribute("aria-current") !== "page") out.colourAlone.push("current page only by colour: " + desc(a));

  /* a phone: the main actions are at least 44 x 44 px (a checkbox counts with its label) */
  out.smallTargets = [];
  if (phone) {
    const targets = document.querySelectorAll("button, a.btn, nav a, td a, select, summary, " +
      "input:not([type=hidden]):not([type=checkbox]), input[type=checkbox]");
    for (const t of targets) {
      if (!shown(t) || t.disabled) continue;
      const boxes = [t, ...(t.labels || [])].map((n) => n.getBoundingClientRect());
      if (!boxes.some((b) => b.width >= 43.5 && b.height >= 43.5))
        out.smallTargets.push(desc(t) + " " + Math.round(boxes[0].width) + "x" + Math.round(boxes[0].height));
    }
  }
  return out;
}"""  # noqa: E501
)

# Tab through the page: every control is reached in document order, and the one focused
# has a solid ring of 2 px or more that stands out (3:1) from what is around it.
TAB_STEP = (
    """() => {"""
    + HELPERS
    + r"""
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const s = getComputedStyle(e);
  const ring = rgba(s.outlineColor);
  const around = rendered(e.parentElement, null);
  const width = parseFloat(s.outlineWidth) || 0;
  const shows = s.outlineStyle !== "none" && s.outlineStyle !== "auto" && width >= 2 && ring &&
    ratio(over(ring, around), around) >= 3;
  return { el: desc(e), shows, ring: s.outlineStyle + " " + s.outlineWidth + " " + s.outlineColor,
    index: [...document.querySelectorAll("*")].indexOf(e) };
}"""
)

START = """() => { const s = document.createElement("span"); s.tabIndex = -1;
  document.body.prepend(s); s.focus(); window.scrollTo(0, 0); }"""

FOCUSABLE = """() => [...document.querySelectorAll(
  "a[href], button:not(:disabled), input:not(:disabled):not([type=hidden]), select:not(:disabled), " +
  "textarea:not(:disabled), summary, [tabindex]:not([tabindex='-1'])")].filter((e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; })
  .map((e) => [...document.querySelectorAll("*")].indexOf(e))"""  # noqa: E501

# What the live regions present when the page loaded say from now on (a region added later is
# often not announced by a screen reader at all).
LISTEN = """() => { window.said = [];
  document.querySelectorAll("[aria-live], [role=status], [role=alert], [role=log]").forEach((r) => {
    if (r.getAttribute("aria-live") === "off") return;
    new MutationObserver(() => { const t = r.textContent.trim(); if (t) window.said.push(t); })
      .observe(r, { childList: true, subtree: true, characterData: true });
  }); }"""


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Iterator[dict[str, Any]]:
    """A dashboard with a camera and two games: a Deck Dash that Bob won, with an illegal
    play and an undone event in its feed and a camera question waiting, then a Hit the Deck
    race (the current game) whose timeline the Live page draws."""
    from tests.test_web_routes import Tablet

    tmp = tmp_path_factory.mktemp("a11y")
    cfg = WebConfig(db_path=tmp / "tabletop.db", camera=str(write_images(tmp / "frames", 4)))
    app = create_app(cfg)
    served = ServedApp(app, threads=16)
    tablet = Tablet(app)
    tablet.set_pin()
    dd = tablet.new_game("deck-dash", ("Ann", "Bob"))
    tablet.send(dd, DEAL)
    tablet.send(dd, {"kind": "discard", "seat": 0, "payload": {"card": "G7"}})  # out of turn
    for event in BOB_FINISHES[1:]:
        tablet.send(dd, event)
    seq = tablet.send(dd, {"kind": "tally", "payload": {"hands": [["R9"], []]}}).json["seq"]
    tablet.post(f"/api/games/{dd}/undo", {"target": seq})
    ask = {"prompt": "who_played", "message": "Who played Y9?", "confidence": 0.9}
    app.extensions["tabletop"].prompts.add(dd, ask)
    # a saved zone, so the Calibrate page's corner handles (WEB-5) are audited too
    square = [[0.2, 0.2], [0.4, 0.2], [0.4, 0.4], [0.2, 0.4]]
    zones = {
        "frame": {"width": 640, "height": 480},
        "zones": [{"name": "discard_1", "points": square}],
    }
    app.extensions["tabletop"].zones.save(zones)
    htd = tablet.post("/api/games", HTD_RACE_GAME).json["id"]
    for event in HTD_RACE:
        assert tablet.send(htd, event).status_code == 201
    yield {"base": served.url, "app": app, "dd": dd, "htd": htd}
    app.extensions["tabletop"].end_streams()
    served.stop()
    app.extensions["tabletop"].camera.close()


def pages(t: dict[str, Any]) -> list[str]:
    dd = t["dd"]
    return [
        "/scoreboard",
        f"/scoreboard?game={dd}",
        f"/console?game={dd}",
        "/console",
        "/live",
        "/setup",
        "/history",
        f"/history/{dd}",
        "/calibration",
        "/hardware",
        "/login",
        "/pin/change",
        "/history/999999",  # the error page
    ]


def opened(screen: Screen, path: str) -> Any:
    """A page with its live content drawn (the stream's first state, the catalogue)."""
    page = screen.go(path)
    page.wait_for_load_state("load")
    if path.startswith(("/scoreboard", "/console", "/live", "/hardware")):
        page.wait_for_selector("body[data-live='1']")
    if path.startswith("/console"):
        page.wait_for_selector("#seats button")
    if path.startswith("/scoreboard"):
        page.wait_for_selector("#players .player")
    if path == "/live":
        page.wait_for_selector("#timeline .tl-row")
    if path == "/setup":
        page.wait_for_selector("#options .panel")
    page.wait_for_timeout(150)
    return page


def screen_for(browser: Any, base: str, viewport: dict[str, int], scale: float = 1) -> Screen:
    screen = Screen(browser, base, viewport)
    if scale != 1:  # 200 % zoom: half the CSS pixels, each drawn twice as large
        screen.ctx.close()
        screen.ctx = browser.new_context(viewport=viewport, device_scale_factor=scale)
        screen.page = screen.ctx.new_page()
        screen.page.on("pageerror", lambda e: screen.errors.append(str(e)))
    screen.page.add_init_script(MARK_CLICKS)
    return screen


def slug(path: str) -> str:
    return path.strip("/").replace("/", "-").replace("?game=", "-game") or "root"


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def audit(page: Any, phone: bool) -> dict[str, Any]:
    return page.evaluate(AUDIT, phone)


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_every_page_is_labelled_readable_and_big_enough(table, browser, viewport):
    """Every page, for the referee and for a viewer: lang, one h1, no skipped heading level,
    a label for every control, no nameless button, no clickable div, no positive tabindex,
    no live region that reads a whole list out at every update, AA contrast of every text
    (muted text, chips, tags, verdicts, placeholders), outcomes and choices said in words or
    states as well as colours, and (on a phone) tap targets of 44 x 44 px."""
    phone = viewport is PHONE
    problems: dict[str, Any] = {}
    lowest: list[Any] = []
    referee = screen_for(browser, table["base"], viewport)
    unlock(referee, table["app"])
    viewer = screen_for(browser, table["base"], viewport)
    for who, screen in (("referee", referee), ("viewer", viewer)):
        for path in pages(table):
            if who == "viewer" and path in ("/login", "/pin/change"):
                continue
            page = opened(screen, path)
            if path.startswith("/console") and who == "referee":
                page.click("#c-raw summary")  # the raw engine state: its chips and muted keys
                page.wait_for_selector("#c-view .kv")
            found = audit(page, phone)
            lowest.append((path, who, found.pop("lowestContrast")))
            found = {k: v for k, v in found.items() if v}
            if found:
                problems[f"{who} {path}"] = found
            shot(page, f"{'phone' if phone else 'tablet'}-{who}-{slug(path)}")
    referee.close()
    viewer.close()
    worst = min(lowest, key=lambda x: x[2]["ratio"] / x[2]["need"] if x[2] else 99)
    report = {"lowest contrast": worst, "problems": problems}
    (SHOTS / f"audit-{'phone' if phone else 'tablet'}.json").write_text(
        json.dumps(report, indent=1)
    )
    assert not problems, problems


def test_the_pin_setup_page_and_the_no_pin_banner(browser, tmp_path):
    """A dashboard without a PIN yet: its set-up page and the banner every page shows."""
    app = create_app(WebConfig(db_path=tmp_path / "fresh.db"))
    with ServedApp(app, threads=4) as served:
        problems = {}
        for viewport in (TABLET, PHONE):
            screen = screen_for(browser, served.url, viewport)
            for path in ("/pin/setup", "/setup"):
                page = screen.go(path)
                page.wait_for_load_state("load")
                page.fill("#pin", "12") if path == "/pin/setup" else None
                found = {
                    k: v
                    for k, v in audit(page, viewport is PHONE).items()
                    if v and k != "lowestContrast"
                }
                if found:
                    problems[f"{viewport['width']} {path}"] = found
            screen.close()
        app.extensions["tabletop"].hub.close()
    assert not problems, problems


@pytest.mark.parametrize(
    "viewport",
    [{"width": 512, "height": 384}, {"width": 320, "height": 480}],
    ids=["tablet-200pc", "reflow-320"],
)
def test_zoom_to_200_percent_cuts_nothing_off(table, browser, viewport):
    """A 1024 x 768 tablet zoomed to 200 % lays the page out in 512 x 384 CSS px (and WCAG's
    reflow asks for 320 px): no page scrolls sideways, and no box clips its text (tables
    scroll in their own panel)."""
    screen = screen_for(browser, table["base"], viewport, scale=2)
    unlock(screen, table["app"])
    problems = {}
    for path in pages(table):
        page = opened(screen, path)
        cut = page.evaluate(
            """() => {
              const out = [], doc = document.documentElement;
              if (doc.scrollWidth > innerWidth + 1) out.push("page " + doc.scrollWidth + " > " + innerWidth);
              for (const e of document.querySelectorAll("body *")) {
                const s = getComputedStyle(e);
                if (!/hidden|clip/.test(s.overflowX + s.overflowY) || !e.textContent.trim()) continue;
                if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
                  out.push("clipped " + e.tagName + "#" + e.id + "." + e.className);
              }
              return out; }""",  # noqa: E501
        )
        if cut:
            problems[path] = cut
        shot(page, f"zoom-{viewport['width']}-{slug(path)}")
    screen.close()
    assert not problems, problems


def test_the_keyboard_reaches_everything_in_order_with_a_visible_ring(table, browser):
    """Tab from the top of each page: the first stop skips the menu to the page itself, every
    control is reached in document order, and each shows a solid focus ring (2 px or more,
    3:1 against what is around it), also a game or player choice that is selected."""
    screen = screen_for(browser, table["base"], TABLET)
    unlock(screen, table["app"])
    problems: dict[str, Any] = {}
    for path in [*pages(table), "/pin/change"]:
        page = opened(screen, path)
        page.evaluate(START)  # Tab from the top, also where a field has autofocus (login)
        want = page.evaluate(FOCUSABLE)
        page.keyboard.press("Tab")
        first = page.evaluate(TAB_STEP)
        if not (first and "skip" in first["el"].lower()):
            problems.setdefault(path, []).append(f"first Tab stop is {first}, not a skip link")
        seen = []
        for _ in range(len(want) + 3):
            step = page.evaluate(TAB_STEP)
            if step is None or (seen and step["index"] == seen[0]["index"]):
                break
            seen.append(step)
            page.keyboard.press("Tab")
        got = [s["index"] for s in seen]
        missed = [i for i in want if i not in got]
        if missed:
            problems.setdefault(path, []).append(f"{len(missed)} controls never reached by Tab")
        ordered = [i for i in got if i in want]
        if ordered != sorted(ordered):
            problems.setdefault(path, []).append("Tab order is not the page order")
        dull = [s["el"] + " " + s["ring"] for s in seen if not s["shows"]]
        if dull:
            problems.setdefault(path, []).append(dull[:4])
    # the skip link takes the keyboard past the menu
    page = opened(screen, "/scoreboard")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.tagName") == "MAIN"
    # a selected choice still shows where the focus is
    page = opened(screen, f"/console?game={table['dd']}")
    page.focus("#kinds button.selected")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    step = page.evaluate(TAB_STEP)
    assert "selected" in step["el"] and step["shows"], step
    shot(page, "keyboard-focus-selected")
    screen.close()
    assert not problems, problems


def test_what_matters_is_announced_once(browser, tmp_path):
    """A screen reader hears a new verdict on the scoreboard, a refused event on the
    console, a camera question on the Live page, and a lost connection, once each; a state
    update with nothing new (a verdict accepted) says nothing, and the scores are not read
    out again at every update."""
    from tests.test_web_routes import Tablet

    app = create_app(WebConfig(db_path=tmp_path / "live.db"))
    served = ServedApp(app, threads=8)
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    ref = screen_for(browser, served.url, TABLET)
    unlock(ref, app)
    viewer = screen_for(browser, served.url, PHONE)
    watcher = screen_for(browser, served.url, PHONE)
    try:
        console = opened(ref, "/console")
        board = viewer.go("/scoreboard")
        board.wait_for_selector("body[data-live='1']")
        live = watcher.go("/live")
        live.wait_for_selector("body[data-live='1']")
        for page in (console, board, live):
            page.wait_for_timeout(200)
            page.evaluate(LISTEN)

        def said(page: Any) -> list[str]:
            return page.evaluate("() => window.said.slice()")

        def hear(page: Any, pattern: str) -> list[str]:
            for _ in range(50):  # wait_for_function would eval: the page's CSP forbids it
                if any(re.search(pattern, s, re.I) for s in said(page)):
                    return said(page)
                page.wait_for_timeout(100)
            raise AssertionError(f"never said /{pattern}/: {said(page)}")

        seq = tablet.send(game_id, DEAL).json["seq"]
        hear(board, "dealt")
        assert any(f"#{seq}" in s and "dealt" in s for s in said(board)), said(board)
        # a refused event, sent on the console: said once, as refused (the toast and the feed
        # both have it)
        console.click("#kinds button[data-kind='discard']")
        console.click("#seats button[data-seat='0']")
        console.fill("#f-card", "G7")
        console.click("#send")
        hear(console, "refused")
        hear(board, "illegal")
        console.wait_for_timeout(600)
        refused = [s for s in said(console) if s.startswith(f"#{seq + 1} ")]
        assert len(refused) == 1 and "refused" in refused[0], said(console)
        heard = said(board)
        assert len(heard) == 2 and "illegal" in heard[1].lower(), heard
        # nothing new (the verdict is only accepted): nothing said
        assert tablet.post(f"/api/games/{game_id}/accept", {"seq": seq}).status_code in (200, 201)
        board.wait_for_timeout(800)
        assert said(board) == heard
        assert not any("Ann" in s and "Bob" in s and "points" in s for s in heard), heard
        # a camera question on the Live page
        ask = {"prompt": "who_played", "message": "Who played Y9?", "confidence": 0.9}
        app.extensions["tabletop"].prompts.add(game_id, ask)
        hear(live, "Y9")
        live.wait_for_timeout(400)
        assert len([s for s in said(live) if "Y9" in s]) == 1, said(live)
        # the referee goes away: the lost connection is said
        app.extensions["tabletop"].hub.close()
        served.stop()
        hear(board, "connection")
    finally:
        viewer.close()
        watcher.close()
        ref.close()


def test_the_console_lets_the_keyboard_skip_the_event_form(table, browser):
    """A keyboard referee passed every event-kind and seat button on the way to the
    verdicts; the form now starts with a link past it."""
    screen = screen_for(browser, table["base"], TABLET)
    unlock(screen, table["app"])
    page = opened(screen, f"/console?game={table['dd']}")
    page.focus("#entry-panel a.skip")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "verdicts"
    screen.close()
