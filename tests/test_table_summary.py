"""The "On the table" summary: each game's lines at each phase, replayed from the example
logs, the snapshot that carries them, and the console and scoreboard that show them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.game import TableLine
from referee.registry import find_game, register_game
from referee.replay import replay
from referee.replay_cli import read_jsonl
from tests.serving import ServedApp
from tests.test_web_routes import Tablet, make_app
from web import create_app
from web.config import WebConfig

DATA = Path(__file__).parent / "data"
SHOTS = Path(__file__).parent.parent / "runs" / "r28" / "summary"


def lines_after(log: str, count: int) -> list[tuple[str, str]]:
    """The summary after the first ``count`` events of a log in tests/data."""
    name, players, options, events = read_jsonl(DATA / log, None)
    rules = find_game(name)
    state = replay(rules, players, options, events[:count]).state
    return [(line.label, line.text) for line in rules.table(state)]


def test_a_table_line_is_a_label_and_a_text():
    line = TableLine("Turn", "Bea (clockwise)")
    assert line.to_dict() == {"label": "Turn", "text": "Bea (clockwise)"}


# -- DOS ---------------------------------------------------------------------------------
def test_dos_before_the_deal():
    assert lines_after("dos-example.jsonl", 0) == [("Now", "Waiting for the deal")]


def test_dos_a_pending_draw_four():
    assert lines_after("dos-example.jsonl", 6) == [
        ("Turn", "Cal (clockwise)"),
        (
            "Draw Four",
            "Cal must draw 4 for the blue Draw Four, or counter it with a blue Skip on the "
            "right pile",
        ),
        ("Piles", "left red Skip (2 cards) · right blue Draw Four (3 cards)"),
        ("Draw pile", "99 cards"),
        ("Hands", "Ann 2 · Bea 4 · Cal 4"),
        ("DOS", "Ann called DOS"),
    ]


def test_dos_mid_turn_and_a_closed_pile():
    assert lines_after("dos-example.jsonl", 9) == [
        ("Turn", "Cal (clockwise)"),
        ("Piles", "left red 4 (3 cards) · right blue Skip (4 cards)"),
        ("This turn", "left: played a red 4 · right: drew blue 7"),
        ("Draw pile", "98 cards"),
        ("Hands", "Ann 2 · Bea 4 · Cal 3"),
        ("DOS", "Ann called DOS"),
    ]
    closed = dict(lines_after("dos-example.jsonl", 4))
    assert closed["Piles"] == "left red Skip (2 cards, closed by a Skip) · right green 5 (2 cards)"


def test_dos_cards_owed_wait_for_the_reshuffle():
    assert lines_after("dos/dos13_last_card_order.jsonl", 3) == [
        ("Turn", "Bea (clockwise)"),
        ("Owed", "Bea 1 — waiting for the reshuffle"),
        ("Piles", "left red Draw Two (2 cards) · right green 5 (2 cards)"),
        (
            "Draw pile",
            "empty — shuffle the discard piles (keep both top cards) and enter the reshuffle",
        ),
        ("Hands", "Ann 4 · Bea 4 · Cal 3"),
    ]


def test_dos_between_the_deals_of_a_match():
    assert lines_after("dos/dos15_rounds.jsonl", 4) == [
        ("Round", "2 of 2"),
        ("Now", "Waiting for the deal"),
        ("Round 1", "Ann wins (Ann played their last card)"),
    ]


def test_dos_game_over():
    assert lines_after("dos-example.jsonl", 13) == [
        ("Game over", "Ann wins (Ann played their last card)")
    ]


# -- Hit the Deck --------------------------------------------------------------------------
HTD = "hit-the-deck-example.jsonl"


def test_hit_the_deck_before_the_deal_and_the_turn_up():
    assert lines_after(HTD, 0) == [("Now", "Waiting for the deal")]
    assert lines_after(HTD, 1) == [
        ("Table", "turn up the top card of the draw pile"),
        ("Turn", "Bob (to the left)"),
        ("Discard pile", "empty"),
        ("Draw pile", "89 cards"),
        ("Hands", "Ann 7 · Bob 7 · Cat 7"),
    ]


def test_hit_the_deck_what_the_next_player_must_do():
    assert lines_after(HTD, 11) == [
        ("Turn", "Ann (to the left)"),
        ("Next", "Ann must cut the deck and may not play a card"),
        ("Discard pile", "green Cut the Deck on top (9 cards)"),
        ("Draw pile", "87 cards"),
        ("Hands", "Ann 5 · Bob 4 · Cat 5"),
    ]
    assert dict(lines_after(HTD, 10))["Next"] == "Cat must play the green Cut the Deck just drawn"
    assert dict(lines_after(HTD, 5))["Next"] == "Bob must play a 2, or draw a card"


def test_hit_the_deck_an_open_slap_race():
    assert lines_after(HTD, 45) == [
        ("Turn", "Bob (to the left)"),
        (
            "Slap race",
            "Hit the Deck with a Hand from Ann · slapped: Cat and Bob · still to slap: Ann",
        ),
        ("Discard pile", "Hit the Deck with a Hand on top (6 cards)"),
        ("Draw pile", "84 cards"),
        ("Hands", "Ann 9 · Bob 6 · Cat 5"),
    ]
    slaps = dict(lines_after(HTD, 48))["Slaps"]
    assert slaps == "Ann slapped with no Hand card seen: a fake-out unless one was just played"


def test_hit_the_deck_penalty_cards_wait_for_the_shuffle():
    assert lines_after(HTD, 82) == [
        (
            "Table",
            "keep the top card of the discard pile and shuffle the rest into a new draw pile",
        ),
        ("Turn", "Ann (to the right)"),
        ("Owed", "Cat 1 — waiting for the reshuffle"),
        ("Discard pile", "Hit the Deck with a Hand on top (97 cards)"),
        ("Draw pile", "empty"),
        ("Hands", "Ann 8 · Bob 1 · Cat 4"),
    ]


def test_hit_the_deck_between_rounds_scoring_and_game_over():
    assert lines_after(HTD, 35) == [("Now", "Waiting for the deal of round 2 (Bob deals)")]
    assert lines_after("htd/ruling_htd24_table_mode_scoring.jsonl", 9) == [
        ("Round 1 over", "Bob went out — enter the cards (or points) of Ann and Cat")
    ]
    assert lines_after(HTD, 170) == [("Game over", "Ann wins")]


# -- Deck Dash --------------------------------------------------------------------------------
def test_deck_dash_before_the_deal():
    assert lines_after("deck-dash-table.jsonl", 0) == [
        ("Now", "Waiting for the deal"),
        ("Next Dash", "Easy Dash 1: 3 pairs"),
    ]


def test_deck_dash_a_laid_dash_with_its_group_numbers():
    assert lines_after("deck-dash-table.jsonl", 3) == [
        ("Dash", "Easy Dash 1: 3 pairs"),
        ("Turn", "Ana (clockwise)"),
        ("Next", "Ana hands off cards, plays an action card or discards"),
        ("Discard pile", "green 5 on top (1 card)"),
        ("Draw pile", "102 cards"),
        ("Hands", "Ana 7 · Bea 12"),
        ("Laid", "Ana: #0 pair of 1s, #1 pair of 2s, #2 pair of 3s"),
    ]


def test_deck_dash_blocked_and_owed_draws():
    assert lines_after("deck-dash-12.jsonl", 243) == [
        ("Dash", "Advanced Dash 3: Run of 10"),
        ("Turn", "Ana (clockwise)"),
        ("Next", "Ana is blocked: put the Block You card on the discard pile"),
        ("Discard pile", "green 12 on top (16 cards)"),
        ("Draw pile", "75 cards"),
        ("Hands", "Ana 12 · Bea 2 · Cy 12"),
        ("Laid", "Bea: #0 run 1 to 10"),
        ("Blocked", "Ana (Block You card in front)"),
    ]
    assert dict(lines_after("deck-dash-12.jsonl", 33))["Next"] == (
        "Ana draws 2 more cards for Keep Two"
    )


def test_deck_dash_between_dashes_and_game_over():
    assert lines_after("deck-dash-12.jsonl", 40) == [
        ("Now", "Waiting for the deal (Cy deals)"),
        ("Last Dash", "Bea finished and won Dash 1"),
        ("Next Dash", "Advanced Dash 2: Run of 5 same color"),
    ]
    assert lines_after("deck-dash-table.jsonl", 14) == [("Game over", "Ana wins")]


# -- Wash Dash ---------------------------------------------------------------------------------
WD = "wash-dash-example.jsonl"


def test_wash_dash_before_the_set_up_and_the_first_reveal():
    assert lines_after(WD, 0) == [("Now", "Waiting for the set-up: shuffle and deal the dryers")]
    assert lines_after(WD, 1) == [
        ("Now", "Waiting for Cy to reveal round 1"),
        ("Draw pile", "34 cards"),
    ]


def test_wash_dash_a_claim_waiting_for_its_dryer():
    assert lines_after(WD, 6) == [
        ("Round", "2 (revealed by Ann)"),
        ("Task cards", "T01 open · T23 taken by Cy (dryer not checked yet)"),
        ("Dryer check", "waiting for Cy's dryer (T23): camera or tablet"),
        ("Cards won", "Ann 1 · Bob 0 · Cy 1"),
        ("Draw pile", "30 cards"),
    ]


def test_wash_dash_only_events_so_far():
    assert lines_after(WD, 8) == [
        ("Round", "3 (revealed by Bob)"),
        ("Now", "Only event cards so far: Bob draws another card"),
        ("Events", "First bonus and Opposite"),
        ("Cards won", "Ann 1 · Bob 1 · Cy 1"),
        ("Draw pile", "28 cards"),
    ]


def test_wash_dash_a_forfeit_owed_after_a_mistake():
    assert lines_after(WD, 10) == [
        ("Round", "3 (revealed by Bob)"),
        ("Now", "Round 3 is over: check each other's dryers; Cy reveals next"),
        ("Task cards", "T32 taken by Bob (mistake)"),
        ("Events", "First bonus and Opposite"),
        ("Forfeit", "Bob must give up one earlier task card (T01)"),
        ("Cards won", "Ann 1 · Bob 1 · Cy 1"),
        ("Draw pile", "27 cards"),
    ]


def test_wash_dash_game_over_waits_for_the_last_forfeit():
    assert lines_after(WD, 63) == [
        ("Game over", "Bob leads for now"),
        ("Forfeit", "Bob must give up one earlier task card (T41, T12, T05, T13)"),
        ("Cards won", "Ann 3 · Bob 5 · Cy 5"),
    ]
    assert lines_after(WD, 64) == [("Game over", "Cy wins")]


# -- the snapshot ------------------------------------------------------------------------------
def events_of(log: str) -> list[dict[str, Any]]:
    lines = (DATA / log).read_text().splitlines()
    rows = [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]
    return [r for r in rows if "kind" in r]


def dos_game(tablet: Tablet, players: tuple[str, ...]) -> int:
    """A DOS game dealt as dos-example.jsonl deals it (4 cards each), and its first turns."""
    body = {"game": "dos", "players": list(players), "options": {"hand_size": 4}}
    r = tablet.post("/api/games", body)
    assert r.status_code == 201, r.json
    return int(r.json["id"])


def test_the_snapshot_carries_the_table_lines(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = dos_game(tablet, ("Ann", "Bea", "Cal"))
    assert tablet.snapshot(game_id)["table"] == [{"label": "Now", "text": "Waiting for the deal"}]
    for event in events_of("dos-example.jsonl")[:6]:
        assert tablet.send(game_id, event).json["verdicts"][0]["outcome"] != "illegal"
    table = tablet.snapshot(game_id)["table"]
    assert table[0] == {"label": "Turn", "text": "Cal (clockwise)"}
    assert table[1]["label"] == "Draw Four"


def test_a_game_without_table_lines_gets_none(tmp_path):
    """A game registered before the summary layer (a house variant) still has its snapshot."""
    register_game("tally", "tests.tally_game")
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game("tally", ("Ann", "Bea"))
    snap = tablet.snapshot(game_id)
    assert snap["table"] == [] and snap["scoreboard"]["totals"] == [0, 0]


# -- the pages ---------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_the_console_shows_the_table_above_the_raw_state(browser, tmp_path):
    """Mid-game (a Draw Four pending) the console reads the summary; the raw engine state is
    still there, folded away in a closed details element. A player's name is shown as text."""
    from playwright.sync_api import expect

    app = create_app(WebConfig(db_path=tmp_path / "tabletop.db"))
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = dos_game(tablet, ("Ann", "Bea", "<i>Cal</i>"))
    for event in events_of("dos-example.jsonl")[:6]:
        assert tablet.send(game_id, event).status_code == 201
    SHOTS.mkdir(parents=True, exist_ok=True)
    with ServedApp(app, threads=8) as served:
        for size in ({"width": 1024, "height": 768}, {"width": 390, "height": 844}):
            ctx = browser.new_context(viewport=size)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(f"{served.url}/console?game={game_id}", wait_until="domcontentloaded")
            summary = page.locator("#c-table")
            expect(summary).to_contain_text("<i>Cal</i> must draw 4 for the blue Draw Four")
            expect(summary).to_be_visible()
            expect(summary.locator("dt").first).to_have_text("Turn")
            assert summary.locator("i").count() == 0  # the name is text, not markup
            raw = page.locator("details#c-raw")
            assert raw.evaluate("(d) => d.open") is False
            assert raw.locator("#c-view").count() == 1
            expect(page.locator("#c-view")).to_be_hidden()
            expect(page.locator("#c-view")).to_contain_text("pending draw fours")
            name = f"console-{size['width']}x{size['height']}"
            page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
            page.locator("details#c-raw > summary").click()  # opened, it still fits the screen
            expect(page.locator("#c-view")).to_be_visible()
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= size["width"], width
            board = ctx.new_page()
            board.goto(f"{served.url}/scoreboard?game={game_id}", wait_until="domcontentloaded")
            expect(board.locator("#sb-table")).to_contain_text("Piles")
            board.screenshot(path=str(SHOTS / f"scoreboard-{size['width']}.png"), full_page=True)
            assert not errors, errors
            ctx.close()
        app.extensions["tabletop"].end_streams()
