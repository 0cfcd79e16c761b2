"""The camera referees Wash Dash dryers in the dashboard (issue 6: dryer readings → events).

The table is two rendered dryers side by side (``vision.dryer.render``, seat 0 left, seat 1
right) on a plain cloth. Most tests use a reader double that knows what each picture shows
(``Truth``), so they check the wiring — reference, stability, what is sent when, prompts —
and not the reader's accuracy (measured by ``bench.table dryers``). One test runs the real
``DryerReader`` and checks the event carries exactly what that reader reads.
"""

from __future__ import annotations

import functools
import hashlib
import queue
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.washdash.dryer import Dryer
from tests.serving import ServedApp
from tests.test_web_routes import Tablet, make_app, write_images
from vision.dryer.read import DryerReader, DryerReading
from vision.dryer.render import DryerSample, render_dryer
from vision.table.frames import CameraError, Frame
from vision.table.zones import TableLayout
from web.services.zones import validate

MS = 1_000_000
CLOTH = (96, 120, 104)  # a plain green-grey cloth: no piece or pin colour in it
SETUP = {"kind": "setup"}
REVEAL = {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T03"]}}
T01 = Dryer.parse("pants:red / - / -")  # T01: the blue pants held by the red pin
TWO_BARS = Dryer.parse("pants:red / dress:red / -")  # impossible: one red pin on two bars
SHIRT = Dryer.parse("- / shirt:yellow / -")


class Table:
    """Two rendered dryers side by side; pictures per seat: the empty dryer, the rendered
    state, or a synthetic state (the empty dryer with a coloured patch in it)."""

    def __init__(self, seeds: tuple[int, int] = (7, 8)) -> None:
        self.samples = [_sample(s) for s in seeds]
        self.truth: dict[tuple[int, str], tuple[Dryer, float]] = {}
        self.t_ns = 0
        self.index = 0

    def zones_doc(self) -> dict[str, Any]:
        zones = []
        for seat, sample in enumerate(self.samples):
            for z in sample.layout.zones:
                name = z.name.replace("seat_0", f"seat_{seat}")
                points = [[(x + seat) / 2, y] for x, y in z.points]
                zones.append({"name": name, "points": points})
        return {"frame": {"width": 1280, "height": 480}, "zones": zones}

    def layout(self) -> TableLayout:
        return TableLayout.from_dict(validate(self.zones_doc()))  # as the dashboard saves it

    def picture(self, seat: int, what: Any, confidence: float = 1.0) -> np.ndarray:
        """``"empty"``, ``"full"`` (the rendered state), ``"hand"`` (a hand-sized blob over
        the dryer) or a ``Dryer`` (a synthetic picture the double reads as that state)."""
        sample = self.samples[seat]
        if what == "empty":
            img, state = sample.empty, Dryer()
        elif what == "full":
            img, state = sample.image, sample.dryer
        else:
            img = sample.empty.copy()
            x1, y1, x2, y2 = (
                v * s
                for v, s in zip(sample.layout.box("seat_0_dryer"), (640, 480) * 2, strict=True)
            )
            cx, cy = int((x1 + x2) / 2), int((y1 + y2) / 2)
            if what == "hand":
                cv2.circle(img, (cx, cy), int((x2 - x1) / 3) + self.index % 7, (150, 170, 210), -1)
                state = Dryer.parse("dress:red / - / -")  # whatever: a moving zone is not read
            else:
                state = what
                digest = hashlib.sha1(state.to_text().encode()).digest()
                colour = tuple(int(b) for b in digest[:3])
                cv2.rectangle(img, (cx - 30, cy - 20), (cx + 30, cy + 20), colour, -1)
        self.truth[(seat, _key(img))] = (state, confidence)
        return img

    def frame(self, left: Any = "empty", right: Any = "empty", confidence: float = 1.0) -> Frame:
        image = np.hstack([self.picture(0, left, confidence), self.picture(1, right, confidence)])
        self.t_ns += 100 * MS
        self.index += 1
        return Frame(image, self.t_ns, self.index)


@functools.cache
def _sample(seed: int) -> DryerSample:
    """Rendered once per run (read-only: pictures are copied before drawing on them)."""
    return render_dryer(np.random.default_rng(seed), table_rgb=CLOTH)


def _key(img: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(img).tobytes()).hexdigest()


class TruthReader:
    """A stand-in for ``DryerReader``: the real geometry (``canonical``), and a reading that
    is whatever the test says the seat's half of the picture shows."""

    def __init__(self, table: Table, layout: TableLayout, seat: int) -> None:
        self.table, self.seat = table, seat
        self.real = DryerReader(layout, seat)
        self.reference: np.ndarray | None = None
        self.reads = 0

    def canonical(self, image: np.ndarray) -> np.ndarray:
        return self.real.canonical(image)

    def set_reference(self, image: np.ndarray | None) -> None:
        self.reference = image

    def read(self, image: np.ndarray) -> DryerReading:
        self.reads += 1
        half = image[:, self.seat * 640 : (self.seat + 1) * 640]
        state, confidence = self.table.truth[(self.seat, _key(half))]
        return DryerReading(state, confidence)


def dryer_app(tmp_path: Path, table: Table, fake: bool = True, source: Any = None):
    app = make_app(tmp_path, referee_source=source or (lambda: None), referee_detector=_no_cards)
    tablet = Tablet(app)
    tablet.set_pin()
    referee = tablet.services.referee
    if fake:
        readers: dict[int, TruthReader] = {}

        def reader_for(layout: TableLayout, seat: int) -> TruthReader:
            readers[seat] = TruthReader(table, layout, seat)
            return readers[seat]

        referee.dryers.reader_for = reader_for
        referee.readers = readers  # for the tests
    tablet.services.zones.save(table.zones_doc())
    game_id = tablet.new_game("wash-dash", ("Ana", "Bea"))
    return tablet, referee, game_id


def _no_cards(game: str) -> Any:
    raise AssertionError(f"the card models are not needed for Wash Dash ({game})")


def show(referee: Any, frame: Frame, times: int = 1) -> None:
    for _ in range(times):
        referee.step(frame)


def hold(referee: Any, table: Table, left: Any, right: Any = "empty", n: int = 6, **kw) -> None:
    """The same picture for ``n`` frames (100 ms apart): long enough to settle."""
    for _ in range(n):
        referee.step(table.frame(left, right, **kw))


def camera_events(tablet: Tablet, game_id: int) -> list[dict[str, Any]]:
    feed = tablet.snapshot(game_id)["feed"]
    return [i for i in feed if i["event"].get("source") == "camera"]


def start_round(tablet: Tablet, game_id: int) -> None:
    for event in (SETUP, REVEAL):
        assert tablet.send(game_id, event).status_code == 201


def test_a_settled_dryer_is_the_games_dryer_event_read_by_the_real_reader(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # before the first round: the reference
    status = referee.status()["dryers"]
    assert [s["reference"] for s in status["seats"]] == ["before the first round"] * 2
    assert camera_events(tablet, game_id) == []  # empty dryers: nothing to say
    start_round(tablet, game_id)
    hold(referee, table, "full", "empty", n=6)

    # What the real reader makes of this very picture, against the same empty picture.
    reader = DryerReader(table.layout(), 0)
    reader.set_reference(table.frame("empty", "empty").image)
    expected = reader.read(table.frame("full", "empty").image).dryer
    got = camera_events(tablet, game_id)
    if not expected.problems() and any(expected.bars):  # a reading the reader is sure of
        assert len(got) == 1
        event = got[0]["event"]
        assert (event["kind"], event["seat"], event["source"]) == ("dryer", 0, "camera")
        assert Dryer.from_dict(event["payload"]["dryer"]) == expected
        assert got[0]["verdicts"][0]["reason"] == f"Ana's dryer: {expected.to_text()}."
        assert tablet.snapshot(game_id)["view"]["dryers"][0] == expected.to_dict()
    else:  # a doubtful reading is a question instead
        assert got == [] and tablet.services.prompts.open(game_id)
    assert referee.status()["events"] == len(got)


def test_settled_changes_are_sent_while_racing_and_half_hung_pieces_never_settle(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start_round(tablet, game_id)
    # Ana's hand hangs the pants: the zone moves every frame, then holds still
    for _ in range(10):
        show(referee, table.frame("hand", "empty"))
    assert camera_events(tablet, game_id) == []
    hold(referee, table, T01, SHIRT, n=5)
    got = camera_events(tablet, game_id)
    assert sorted((i["event"]["seat"], i["event"]["payload"]["dryer"]) for i in got) == [
        (0, T01.to_dict()),
        (1, SHIRT.to_dict()),
    ]
    first = next(i for i in got if i["event"]["seat"] == 0)["event"]
    # the time it was first seen still (the frame the hand left is moving: not read)
    assert first["t_ns"] == table.t_ns - 3 * 100 * MS
    # a still dryer is read once, not on every frame; nothing is sent twice
    reads = referee.readers[0].reads
    hold(referee, table, T01, SHIRT, n=5)
    assert referee.readers[0].reads == reads
    assert len(camera_events(tablet, game_id)) == 2


def test_ruling_tbl8_a_done_without_a_dryer_is_checked_with_the_settled_reading(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start_round(tablet, game_id)
    hold(referee, table, T01, n=5)  # Ana's dryer settles: sent (no claim yet)
    assert len(camera_events(tablet, game_id)) == 1
    # Ana takes T01 on the tablet without a dryer: the claim waits for a reading
    assert (
        tablet.send(game_id, {"kind": "done", "seat": 0, "payload": {"card": "T01"}}).status_code
        == 201
    )
    claims = tablet.snapshot(game_id)["view"]["claims"]
    assert [c["status"] for c in claims] == ["unchecked"]
    hold(referee, table, T01, n=2)  # the dryer did not change: its reading is sent anyway
    got = camera_events(tablet, game_id)
    assert len(got) == 2 and got[1]["event"]["payload"]["dryer"] == T01.to_dict()
    assert "Ana's T01 is done" in got[1]["verdicts"][0]["reason"]
    assert tablet.snapshot(game_id)["view"]["claims"][0]["status"] == "ok"
    # the round is over (2 players): the family empties the dryers — not logged; the
    # empty, still dryer becomes the new reference
    for _ in range(4):
        show(referee, table.frame("hand", "hand"))
    hold(referee, table, "empty", "empty", n=8)
    assert len(camera_events(tablet, game_id)) == 2
    assert [s["reference"] for s in referee.status()["dryers"]["seats"]] == ["emptied"] * 2


def test_ruling_tbl8_an_empty_dryer_answering_a_done_is_asked_never_ruled_a_mistake(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start_round(tablet, game_id)
    assert (
        tablet.send(game_id, {"kind": "done", "seat": 1, "payload": {"card": "T03"}}).status_code
        == 201
    )
    hold(referee, table, "empty", n=3)
    assert camera_events(tablet, game_id) == []
    (question,) = tablet.services.prompts.open(game_id)
    assert question["prompt"] == "confirm_dryer" and question["suggestion"]["seat"] == 1
    assert question["message"].startswith("Bea's dryer reads - / - / -")
    hold(referee, table, "empty", n=3)
    assert len(tablet.services.prompts.open(game_id)) == 1  # asked once per done


def test_doubtful_readings_are_questions_a_newer_reading_replaces_accept_sends(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start_round(tablet, game_id)
    hold(referee, table, TWO_BARS, n=5)  # impossible (one pin on two bars)…
    hold(referee, table, SHIRT, n=5, confidence=0.4)  # …then a reading it is unsure of
    assert camera_events(tablet, game_id) == []
    (question,) = tablet.services.prompts.open(game_id)  # the first one was cleared
    assert question["message"].startswith(f"Ana's dryer reads {SHIRT.to_text()}")
    assert question["suggestion"]["payload"]["dryer"] == SHIRT.to_dict()
    assert question["confidence"] == pytest.approx(0.4)
    r = tablet.post(f"/api/games/{game_id}/prompts/{question['id']}/accept")
    assert r.status_code == 201, r.json
    (got,) = camera_events(tablet, game_id)
    assert got["event"] == question["suggestion"]  # its t_ns and source kept
    assert tablet.services.prompts.open(game_id) == []


def test_the_empty_dryers_button_takes_the_next_still_picture(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    start_round(tablet, game_id)  # a round is running: no automatic "before the game"
    hold(referee, table, SHIRT, SHIRT, n=8)  # not plainly empty: no reference, no reading
    status = referee.status()
    assert [s["reference"] for s in status["dryers"]["seats"]] == [None, None]
    assert "Dryers are empty now" in status["message"]
    assert camera_events(tablet, game_id) == []

    viewer = Tablet(tablet.app)
    assert viewer.post("/api/camera/dryers/empty").status_code == 401
    r = tablet.post("/api/camera/dryers/empty")
    assert r.status_code == 200 and r.json["dryers"]["waiting_for_empty"]
    for _ in range(3):
        show(referee, table.frame("hand", "hand"))
    hold(referee, table, "empty", "empty", n=8)
    status = referee.status()
    assert [s["reference"] for s in status["dryers"]["seats"]] == ["button", "button"]
    assert not status["dryers"]["waiting_for_empty"]
    assert referee.readers[0].reference is not None
    hold(referee, table, T01, n=5)
    assert [i["event"]["payload"]["dryer"] for i in camera_events(tablet, game_id)] == [
        T01.to_dict()
    ]


def test_a_plainly_empty_dryer_is_not_taken_as_reference_mid_game(tmp_path):
    """A server restarted mid-round: a still dryer the reader sees empty without a reference
    is not taken as the reference while the round runs (day 31, TBL-5: a look without one
    misses hung pieces now and then); the seat waits for the family's button."""
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    start_round(tablet, game_id)
    hold(referee, table, "empty", SHIRT, n=8)
    seats = referee.status()["dryers"]["seats"]
    assert [s["reference"] for s in seats] == [None, None]


def test_no_dryer_zones_a_wrong_game_and_the_button_without_dryers(tmp_path):
    table = Table()
    tablet, referee, _ = dryer_app(tmp_path, table)
    tablet.services.zones.save({"zones": []})
    show(referee, table.frame())
    assert referee.status()["state"] == "waiting"
    assert "no dryer is calibrated" in referee.status()["message"]
    r = tablet.post("/api/camera/dryers/empty")
    assert r.status_code == 409 and "no dryer" in r.json["error"]
    # a dryer drawn without its bars: said, not crashed
    doc = table.zones_doc()
    doc["zones"] = [z for z in doc["zones"] if z["name"] != "seat_1_dryer_bar_3"]
    tablet.services.zones.save(doc)
    show(referee, table.frame())
    assert referee.dryers.seats == [0]
    assert "seat 1" in referee.status()["dryers"]["problems"][0]


class DroppingSource:
    """A camera that is lost once (``CameraError``), then comes back; ends after its frames
    (shared between the openings)."""

    def __init__(self, frames: list[Frame], opened: list[int]) -> None:
        opened.append(1)
        self.frames, self.first = frames, len(opened) == 1

    def read(self) -> Frame | None:
        if self.first and len(self.frames) == 6:
            raise CameraError("unplugged")
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        pass


def test_the_thread_referees_dryers_and_survives_a_dropped_camera(tmp_path):
    table = Table()
    frames = [table.frame("empty", "empty") for _ in range(8)]
    frames += [table.frame(T01, "empty") for _ in range(6)]
    opened: list[int] = []
    tablet, referee, game_id = dryer_app(
        tmp_path, table, source=lambda: DroppingSource(frames, opened)
    )
    start_round(tablet, game_id)
    referee.dryers.empty_now()  # mid-round the family says the dryers are empty (TBL-5)
    referee.start()
    referee.join(timeout=20)
    assert not referee.running
    status = tablet.client.get("/api/camera/status").json["referee"]
    assert status["state"] == "ended" and status["reconnects"] == 1 and len(opened) == 2
    assert [s["reference"] for s in status["dryers"]["seats"]] == ["button"] * 2
    (got,) = camera_events(tablet, game_id)
    assert got["event"]["payload"]["dryer"] == T01.to_dict()
    assert status["dryers"]["seats"][0]["dryer"] == T01.to_text()
    assert status["game_id"] == game_id and status["last"]["event"]["kind"] == "dryer"


def test_the_live_page_offers_the_empty_dryers_button(tmp_path):
    table = Table()
    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames", 3)))
    try:
        tablet = Tablet(app)
        tablet.set_pin()
        page = tablet.client.get("/live").data.decode()
        assert 'id="dryers-empty"' in page and "Dryers are empty now" in page
        referee = tablet.services.referee
        assert referee.status()["dryers"] is None  # nothing calibrated: the page hides it
        tablet.services.zones.save(table.zones_doc())
        tablet.new_game("wash-dash", ("Ana", "Bea"))
        referee.dryers.reader_for = lambda layout, seat: TruthReader(table, layout, seat)
        show(referee, table.frame())
        assert [s["seat"] for s in referee.status()["dryers"]["seats"]] == [0, 1]
    finally:
        tablet.services.camera.close()


class QueueSource:
    """A camera the test feeds frame by frame (None ends it)."""

    def __init__(self, frames: queue.Queue[Frame | None]) -> None:
        self.frames = frames

    def read(self) -> Frame | None:
        return self.frames.get(timeout=30)

    def close(self) -> None:
        pass


@pytest.mark.browser
@pytest.mark.slow
def test_live_page_dryer_status_button_and_question_in_a_browser(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from tests.test_web_browser import ARGS, CHROMIUM, LANDSCAPE, Screen, shot, unlock
    from web import create_app
    from web.config import WebConfig

    table = Table()
    frames: queue.Queue[Frame | None] = queue.Queue()
    cfg = WebConfig(
        db_path=tmp_path / "tabletop.db",
        camera=str(write_images(tmp_path / "frames", 3)),  # what the tablet shows
        referee_source=lambda: QueueSource(frames),
        referee_detector=_no_cards,
    )
    app = create_app(cfg)
    services = app.extensions["tabletop"]
    services.zones.save(table.zones_doc())
    services.referee.dryers.reader_for = lambda layout, seat: TruthReader(table, layout, seat)
    served = ServedApp(app, threads=8)

    def feed(left: Any, right: Any, n: int = 8, **kw: Any) -> None:
        for _ in range(n):
            frames.put(table.frame(left, right, **kw))

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            screen = Screen(browser, served.url, LANDSCAPE)
            unlock(screen, app)
            made = screen.api(
                "POST", "/api/games", {"game": "wash-dash", "players": ["Ana", "Bea"]}
            )
            game_id = made["data"]["id"]
            for event in (SETUP, REVEAL):
                assert screen.api("POST", f"/api/games/{game_id}/events", event)["ok"]
            live = screen.go("/live")
            live.wait_for_selector("body[data-live='1']")
            services.referee.start()
            feed(SHIRT, SHIRT)  # mid-round, nothing plainly empty: no empty picture
            status = live.locator("#dryer-status")
            expect(status).to_contain_text("seat 0: no empty picture yet", timeout=10000)
            live.locator("#dryers-empty").click()
            expect(live.locator("#toast")).to_contain_text("empty dryers", timeout=5000)
            feed("hand", "hand", n=2)
            feed("empty", "empty")
            expect(status).to_contain_text("seat 1: empty (empty picture: button)", timeout=10000)
            feed("hand", "empty", n=2)
            feed(SHIRT, "empty", confidence=0.4)
            question = live.locator("#prompts li.prompt")
            expect(question).to_contain_text(
                "Ana's dryer reads - / shirt:yellow / -", timeout=10000
            )
            expect(question).to_contain_text("dryer · Ana · dryer - / shirt:yellow / -")
            shot(live, "live-dryer-question")
            question.locator("button[data-action='accept']").click()
            expect(live.locator("#prompt-panel")).to_be_hidden(timeout=5000)
            screen.close()
            browser.close()
        (got,) = camera_events(Tablet(app), game_id)
        assert got["event"]["payload"]["dryer"] == SHIRT.to_dict()
    finally:
        frames.put(None)
        services.end_streams()
        services.referee.stop()
        served.stop()
        services.camera.close()
