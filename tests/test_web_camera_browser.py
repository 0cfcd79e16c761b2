"""The camera's questions on real tablets (headless Chromium via Playwright, the app served
by waitress): a low-confidence reading appears as a prompt on the Referee and Live pages,
Accept on one tablet sends the event and clears the question on the other."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, PORTRAIT, Screen, shot, unlock
from tests.test_web_camera_referee import DATA, DEAL, Oracle, PileVideo, zones_doc
from vision.table.sequences import table_layout
from vision.table.stability import Observation
from vision.table.to_events import EventMapper
from web import create_app
from web.config import WebConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class LowCamera:
    """The oracle's detectors, from a camera whose card scale was measured (VIS-11): the
    status line says it."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self.status = {"measuring": False, "fixed": False, "scale": 0.45, "cards": 6, "drifts": 0}

    def __call__(self, game: str) -> Any:
        return self.oracle.detector_for(game)

    def scale_status(self) -> dict[str, Any]:
        return dict(self.status)


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, Any, threading.Event, LowCamera]]:
    """A dashboard whose camera is pile.avi, held back until the test opens ``gate``; the
    oracle reads G7 and Y9 with low confidence, so both become questions; ``LowCamera``'s
    ``status`` is the card scale the Live page says."""
    gate = threading.Event()
    oracle = Oracle({"G7": 0.45, "Y9": 0.45})
    camera = LowCamera(oracle)
    cfg = WebConfig(
        db_path=tmp_path / "tabletop.db",
        camera=str(DATA / "pile.avi"),  # what the tablets show; the referee reads PileVideo
        referee_source=lambda: PileVideo(oracle, gate),
        referee_detector=camera,
    )
    app = create_app(cfg)
    app.extensions["tabletop"].zones.save(zones_doc())
    served = ServedApp(app, threads=16)
    yield served.url, app, gate, camera
    gate.set()
    app.extensions["tabletop"].end_streams()
    app.extensions["tabletop"].referee.stop()
    served.stop()
    app.extensions["tabletop"].camera.close()


def test_a_camera_question_appears_on_every_tablet_and_accept_sends_the_play(served, browser):
    from playwright.sync_api import expect

    base, app, gate, camera = served
    referee = Screen(browser, base, LANDSCAPE)
    unlock(referee, app)
    game_id = referee.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ana", "Bea"]})[
        "data"
    ]["id"]
    for event in (DEAL, {"kind": "draw", "seat": 0}):
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]
    console = referee.go("/console")
    expect(console.locator("#feed li")).to_have_count(2)
    viewer = Screen(browser, base, PORTRAIT)
    live = viewer.go("/live")
    live.wait_for_selector("body[data-live='1']")
    console.wait_for_selector("body[data-live='1']")
    expect(console.locator("#prompt-panel")).to_be_hidden()

    app.extensions["tabletop"].referee.start()
    gate.set()  # the camera starts delivering frames: a hand plays G7, later Y9
    ask_console = console.locator("#prompts li.prompt")
    ask_live = live.locator("#prompts li.prompt")
    expect(ask_console).to_have_count(2, timeout=15000)
    expect(ask_live).to_have_count(2, timeout=5000)
    g7 = console.locator("#prompts li.prompt", has_text="Is the card on the pile G7?")
    expect(g7).to_contain_text("45% sure")
    expect(g7).to_contain_text("discard · Ana · card G7")
    # a viewer sees the question but cannot answer it
    expect(live.locator("#prompts button[data-action='accept']").first).to_be_disabled()
    expect(live.locator("#ref-status")).to_contain_text("2 questions", timeout=5000)
    expect(live.locator("#ref-status")).to_contain_text("card scale 0.45 (measured on 6 cards)")
    camera.status = {"measuring": True, "fixed": False, "scale": None, "drifts": 1}  # bumped
    expect(live.locator("#ref-status")).to_contain_text(
        "the cards changed size (camera moved?): measuring the card size again", timeout=8000
    )
    shot(console, "console-camera-prompt")
    shot(live, "live-camera-prompt")

    g7.locator("button[data-action='accept']").click()
    expect(console.locator("#feed")).to_contain_text("Ana discarded green 7.", timeout=5000)
    expect(console.locator("#feed li").first).to_contain_text("[camera]")
    expect(ask_live).to_have_count(1, timeout=5000)  # gone on the other tablet too
    expect(ask_live).to_contain_text("Y9")

    console.locator("#prompts li.prompt button[data-action='dismiss']").click()
    expect(live.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    expect(console.locator("#prompt-panel")).to_be_hidden()
    expect(console.locator("#feed li")).to_have_count(3)  # dismissing sent nothing

    # "Who played it?" (nobody on turn): one button per player sends it with that seat
    ask = {"prompt": "who_played", "message": "Who played Y9?", "confidence": 0.9}
    ask["suggestion"] = {"kind": "discard", "payload": {"card": "Y9"}, "source": "camera"}
    app.extensions["tabletop"].prompts.add(game_id, ask)
    expect(live.locator("#prompts li.prompt")).to_contain_text("Who played Y9?", timeout=5000)
    console.locator("#prompts button[data-seat='1']").click()
    expect(console.locator("#feed li").first).to_contain_text("discard · Bea", timeout=5000)
    expect(live.locator("#prompt-panel")).to_be_hidden(timeout=5000)

    # a take-back question (TBL-6): its third button sends the other copy's play instead
    def take_back(seat: int | None) -> None:
        mapper = EventMapper("deck-dash", table_layout())
        for before, after in (((), ("Y9",)), (("Y9",), ("G9",))):
            mapper.propose(Observation("discard_1", before, after, 1, 2, 0.9), seat=0)
        (back,) = mapper.propose(Observation("discard_1", ("G9",), ("Y9",), 3, 4, 0.9), seat)
        app.extensions["tabletop"].prompts.add(game_id, back.to_dict())

    take_back(seat=0)
    twin = console.locator("#prompts button[data-answer='another']")
    expect(twin).to_have_text("Another Y9 was played", timeout=5000)
    expect(live.locator("#prompts button[data-answer='another']")).to_be_disabled()
    shot(console, "console-camera-take-back")
    console.locator("#prompts li.prompt button[data-action='dismiss']").click()
    expect(console.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    # … seen while nobody was on turn, the play names no player: one button per player
    take_back(seat=None)
    expect(twin).to_have_text(
        ["Another Y9 was played: Ana", "Another Y9 was played: Bea"], timeout=5000
    )
    expect(live.locator("#prompts button[data-answer='another']").first).to_be_disabled()
    twin.and_(console.locator("[data-seat='0']")).click()
    expect(console.locator("#feed li").first).to_contain_text("discard · Ana", timeout=5000)
    expect(console.locator("#feed li").first).to_contain_text('card="Y9" [camera]')
    expect(live.locator("#prompt-panel")).to_be_hidden(timeout=5000)
    viewer.close()
    referee.close()
