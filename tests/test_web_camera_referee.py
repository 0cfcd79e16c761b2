"""The camera referees the running game in the dashboard (issue 6, item 5 end to end).

The frames are the stored table video ``tests/data/table/pile.avi`` (hands passing, blur);
the detector is a deterministic double that knows each frame's truth (``pile.json``) and,
like ``bench.table.oracle_detector``, reads a confident *wrong* card whenever a hand covers
the pile — so these tests check the wiring (zones, seat on turn, event log, verdicts,
prompts, SSE), not the card models' accuracy (measured in ``bench/table.py``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event
from tests.test_web_routes import Tablet, make_app, write_images
from vision.table.frames import CameraError, Frame, ReconnectingSource, VideoFileSource
from vision.table.sequences import table_layout
from vision.table.watcher import Sighting
from web.commands import add_commands
from web.services.referee_camera import pile_tops, seat_on_turn

DATA = Path(__file__).parent / "data" / "table"
TRUTH = json.loads((DATA / "pile.json").read_text())
# pile.avi shows SKIP (the starting card), then BLOCK and Y6 played; we call them G5, G7
# and Y9 so the Deck Dash game below has an easy legal play and an illegal one. Y12 is put
# down and taken back within two clear frames (too short to settle).
CARDS = {"SKIP": "G5", "BLOCK": "G7", "Y6": "Y9", "Y12": "Y12"}
DEAL = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G5"}}
FPS = 30


def zones_doc() -> dict[str, Any]:
    """The calibration the Calibrate page would save for pile.avi's table."""
    layout = table_layout()
    out = []
    for name in ("draw_pile", "discard_1"):
        x1, y1, x2, y2 = layout.box(name)
        out.append({"name": name, "points": [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]})
    return {"frame": {"width": 160, "height": 120}, "zones": out}


class Oracle:
    """Knows which frame of pile.avi is being read; reads the truth when the pile is clear
    and a confident wrong card (G12) when a hand covers it."""

    def __init__(self, confidence: dict[str, float] | None = None) -> None:
        self.current = 0
        self.confidence = confidence or {}
        layout = table_layout()
        x1, y1, x2, y2 = layout.box("discard_1")
        self.box = (x1 + 0.03, y1 + 0.05, x2 - 0.03, y2 - 0.05)
        self.games: list[str] = []

    def detector_for(self, game: str) -> Any:
        self.games.append(game)
        return self.detect

    def detect(self, image: Any) -> list[Sighting]:
        i = self.current
        if TRUTH["covered"][i]:
            return [Sighting("G12", 0.9, self.box)]
        card = CARDS[TRUTH["tops"][i]]
        return [Sighting(card, self.confidence.get(card, 0.95), self.box)]


class PileVideo:
    """pile.avi as the camera: tells the oracle which frame it delivers. ``gate``: wait for
    it before the first frame (a browser test opens its pages first)."""

    def __init__(self, oracle: Oracle, gate: threading.Event | None = None) -> None:
        self.oracle = oracle
        self.gate = gate
        self.video = VideoFileSource(DATA / "pile.avi", fps=FPS)

    def read(self) -> Frame | None:
        if self.gate is not None:
            self.gate.wait(30)
        frame = self.video.read()
        if frame is not None:
            self.oracle.current = frame.index
        return frame

    def close(self) -> None:
        if self.gate is not None:
            self.gate.set()
        self.video.close()


def play_time(card: str) -> tuple[int, int]:
    """t_ns range in which ``card`` was laid on the pile in pile.avi: from the first frame
    showing the hand that brought it (the pile departs as that hand nears it, TBL-20) to 6
    frames after the card first lay clear."""
    name = {v: k for k, v in CARDS.items()}[card]
    frame = next(i for i, c in TRUTH["plays"] if c == name)
    first = frame
    while first > 0 and TRUTH["kinds"][first - 1] == "hand":
        first -= 1
    return round(first * 1e9 / FPS), round((frame + 6) * 1e9 / FPS)


def referee_app(tmp_path: Path, oracle: Oracle, **extra: Any) -> tuple[Any, Tablet, int]:
    app = make_app(
        tmp_path,
        referee_source=lambda: PileVideo(oracle),
        referee_detector=oracle.detector_for,
        **extra,
    )
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    assert tablet.send(game_id, DEAL).status_code == 201
    assert tablet.send(game_id, {"kind": "draw", "seat": 0}).status_code == 201
    return app, tablet, game_id


def watch_to_the_end(tablet: Tablet) -> dict[str, Any]:
    referee = tablet.services.referee
    referee.start()
    referee.join(timeout=30)
    assert not referee.running
    status = tablet.client.get("/api/camera/status").json["referee"]
    assert status["state"] == "ended", status
    return status


def camera_events(tablet: Tablet, game_id: int) -> list[dict[str, Any]]:
    feed = tablet.snapshot(game_id)["feed"]
    return [item for item in feed if item["event"].get("source") == "camera"]


def test_a_card_settled_on_the_pile_becomes_the_games_event_with_its_verdict(tmp_path):
    oracle = Oracle()
    _, tablet, game_id = referee_app(tmp_path, oracle)
    updates = tablet.services.hub.subscribe("game")
    status = watch_to_the_end(tablet)

    got = camera_events(tablet, game_id)
    # G7 by Ana (on turn, has drawn): legal. Then Bea is on turn and plays Y9 without
    # drawing first: stored with its illegal verdict, like a play typed on the console.
    assert [(i["event"]["kind"], i["event"]["seat"], i["event"]["payload"]) for i in got] == [
        ("discard", 0, {"card": "G7"}),
        ("discard", 1, {"card": "Y9"}),
    ]
    assert [v["outcome"] for v in got[0]["verdicts"]] == ["legal", "info"]
    assert got[0]["verdicts"][0]["reason"] == "Ana discarded green 7."
    assert [v["outcome"] for v in got[1]["verdicts"]] == ["illegal"]
    assert "Draw a card first" in got[1]["verdicts"][0]["reason"]
    # the time the card first lay clear on the pile, on the frames' clock (not arrival)
    for item, card in zip(got, ("G7", "Y9"), strict=True):
        lo, hi = play_time(card)
        assert lo <= item["event"]["t_ns"] <= hi
    # the starting card (already the game's top) and the hand-covered G12 were not played
    assert status["events"] == 2 and status["prompts"] == 0
    assert oracle.games == ["deck-dash"]
    # the scoreboard's live stream heard the camera's events
    snaps = []
    while (item := updates.get(timeout=0.01)) is not None:
        snaps.append(item[1])
    assert [s["head"] for s in snaps if s["game"]["id"] == game_id][-2:] == [3, 4]
    # the illegal play is not proposed again on every frame (the game's top did not move)
    assert tablet.snapshot(game_id)["head"] == 4


def test_the_camera_loop_reads_the_database_only_after_a_change(tmp_path):
    """A frame of an unchanged game costs no query: the referee looks at the running game
    and its state again only when the game service has published a change."""
    oracle = Oracle()
    _, tablet, _ = referee_app(tmp_path, oracle)
    games = tablet.services.games
    calls = {"current_id": 0, "result": 0}
    for name in calls:
        real = getattr(games, name)

        def counted(*args, _real=real, _name=name):
            calls[_name] += 1
            return _real(*args)

        setattr(games, name, counted)
    changes_before = games.changes
    status = watch_to_the_end(tablet)
    changes = games.changes - changes_before  # the camera's own two plays
    assert status["events"] == 2 and changes == 2
    assert status["frames"] > 50
    assert calls["current_id"] <= changes + 1
    # each append itself replays and publishes; the loop adds one sync per change
    assert calls["result"] <= 4 * (changes + 1) < status["frames"]


def test_a_low_confidence_reading_is_a_prompt_accept_sends_it_dismiss_does_not(tmp_path):
    oracle = Oracle({"G7": 0.45, "Y9": 0.45})
    _, tablet, game_id = referee_app(tmp_path, oracle)
    prompts_heard = tablet.services.hub.subscribe("prompts")
    watch_to_the_end(tablet)

    assert camera_events(tablet, game_id) == []  # nothing was decided without the family
    open_ = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert [(p["prompt"], p["suggestion"]["payload"]["card"]) for p in open_] == [
        ("confirm_card", "G7"),
        ("confirm_card", "Y9"),
    ]
    assert open_[0]["message"] == "Is the card on the pile G7?"
    assert open_[0]["confidence"] == pytest.approx(0.45)
    # every tablet's stream heard the questions
    heard = []
    while (item := prompts_heard.get(timeout=0.01)) is not None:
        heard.append(item[1])
    assert len(heard[-1]["prompts"]) == 2 and heard[-1]["game_id"] == game_id

    first, second = open_
    r = tablet.post(f"/api/games/{game_id}/prompts/{first['id']}/accept")
    assert r.status_code == 201, r.json
    assert r.json["verdicts"][0]["reason"] == "Ana discarded green 7."
    r = tablet.post(f"/api/games/{game_id}/prompts/{second['id']}/dismiss")
    assert r.status_code == 200
    got = camera_events(tablet, game_id)
    assert len(got) == 1
    event = got[0]["event"]
    assert event == first["suggestion"]  # its original t_ns and source kept
    assert event["source"] == "camera" and event["seat"] == 0
    lo, hi = play_time("G7")
    assert lo <= event["t_ns"] <= hi
    assert tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"] == []
    # the other tablets were told the list is now empty
    last = None
    while (item := prompts_heard.get(timeout=0.01)) is not None:
        last = item[1]
    assert last == {"game_id": game_id, "prompts": []}
    # answered already (e.g. on another tablet): a 404 with a message, nothing sent twice
    r = tablet.post(f"/api/games/{game_id}/prompts/{first['id']}/accept")
    assert r.status_code == 404 and "another tablet" in r.json["error"]
    assert len(camera_events(tablet, game_id)) == 1


def dealt_game(tmp_path: Path) -> tuple[Tablet, int]:
    """A Deck Dash game for Ana and Bea, dealt, Ana on turn having drawn."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    for event in (DEAL, {"kind": "draw", "seat": 0}):
        assert tablet.send(game_id, event).status_code == 201
    return tablet, game_id


def test_who_played_and_refused_answers_keep_the_question(tmp_path):
    tablet, game_id = dealt_game(tmp_path)
    board = tablet.services.prompts
    suggestion = Event("discard", None, {"card": "G7"}, 123, source=_camera())
    item = board.add(
        game_id,
        {"prompt": "who_played", "message": "Who played G7?", "suggestion": suggestion.to_dict()},
    )
    url = f"/api/games/{game_id}/prompts/{item.id}/accept"
    # The tablet names the player (and may correct a field); a card the rules cannot
    # read is refused with a message and the question stays open.
    r = tablet.post(url, {"seat": 0, "payload": {"card": "Q77"}})
    assert r.status_code == 400 and "Q77" in r.json["error"]
    assert len(board.open(game_id)) == 1
    r = tablet.post(url, {"seat": 0})
    assert r.status_code == 201 and r.json["event"]["seat"] == 0
    assert r.json["event"]["t_ns"] == 123 and r.json["event"]["source"] == "camera"
    assert board.open(game_id) == []


def _camera() -> Any:
    from referee.events import Source

    return Source.CAMERA


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"seat": "two"}, 400, "'seat'"),
        ({"seat": -1}, 400, "'seat'"),
        ({"payload": [1, 2]}, 400, "'payload'"),
        ({"colour": "red"}, 400, "unknown field"),
        ("not an object", 400, "JSON object"),
    ],
)
def test_malformed_accept_requests_are_4xx_with_a_message(tmp_path, body, status, words):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    item = tablet.services.prompts.add(
        game_id, {"prompt": "confirm_card", "message": "?", "suggestion": {"kind": "discard"}}
    )
    r = tablet.post(f"/api/games/{game_id}/prompts/{item.id}/accept", body)
    assert r.status_code == status and words in r.json["error"], r.json
    assert len(tablet.services.prompts.open(game_id)) == 1  # still open for a real answer


def test_an_answer_seen_while_nobody_was_on_turn_is_sent_with_the_seat_the_tablet_names(
    tmp_path,
):
    """A take-back's "another" answer from a moment when nobody was on turn names no player
    (``EventMapper`` gives it the seat on turn, None then): the tablet's seat button sends
    the answer's event with that seat."""
    tablet, game_id = dealt_game(tmp_path)
    play = {"kind": "discard", "payload": {"card": "G5"}, "t_ns": 5, "source": "camera"}
    question = {"prompt": "taken_back", "message": "?", "answers": [{"name": "another"}]}
    question["answers"][0].update(label="Another G5 was played", event=play)
    item = tablet.services.prompts.add(game_id, question)
    r = tablet.post(
        f"/api/games/{game_id}/prompts/{item.id}/accept", {"answer": "another", "seat": 0}
    )
    assert r.status_code == 201, r.json
    assert r.json["event"]["seat"] == 0 and r.json["event"]["payload"] == {"card": "G5"}
    assert tablet.snapshot(game_id)["feed"][-1]["verdicts"][0]["outcome"] == "legal"


def test_accept_of_unknown_questions_games_and_suggestionless_prompts(tmp_path):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    board = tablet.services.prompts
    bare = board.add(game_id, {"prompt": "unknown_card", "message": "Which card?"})
    r = tablet.post(f"/api/games/{game_id}/prompts/{bare.id}/accept")
    assert r.status_code == 409 and "no suggested event" in r.json["error"]
    r = tablet.post(f"/api/games/{game_id}/prompts/{bare.id}/accept", {"answer": "another"})
    assert r.status_code == 400 and "its answers: none besides its suggestion" in r.json["error"]
    odd = {"prompt": "taken_back", "message": "?", "answers": [{"name": "another"}]}
    eventless = board.add(game_id, odd)
    r = tablet.post(f"/api/games/{game_id}/prompts/{eventless.id}/accept", {"answer": "another"})
    assert r.status_code == 409 and "answer 'another' sends no event" in r.json["error"]
    assert tablet.post(f"/api/games/{game_id}/prompts/{eventless.id}/dismiss").status_code == 200
    assert tablet.post(f"/api/games/{game_id}/prompts/999/accept").status_code == 404
    assert tablet.post(f"/api/games/{game_id}/prompts/x/accept").status_code == 404
    assert tablet.post(f"/api/games/{game_id + 7}/prompts/{bare.id}/accept").status_code == 404
    assert tablet.client.get(f"/api/games/{game_id + 7}/prompts").status_code == 404
    # a viewer (no PIN) cannot answer; the referee can dismiss
    viewer = Tablet(app)
    assert viewer.post(f"/api/games/{game_id}/prompts/{bare.id}/dismiss").status_code == 401
    assert tablet.post(f"/api/games/{game_id}/prompts/{bare.id}/dismiss").status_code == 200
    assert board.open(game_id) == []


def test_missing_models_are_reported_and_the_dashboard_keeps_serving(tmp_path, caplog):
    empty = tmp_path / "no-models"
    empty.mkdir()
    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames", 6)), models_dir=empty)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    assert tablet.send(game_id, DEAL).status_code == 201
    referee = tablet.services.referee
    referee.start()
    for _ in range(100):  # the models are looked for once the game needs them
        if referee.status()["models_error"]:
            break
        time.sleep(0.05)
    status = tablet.client.get("/api/camera/status").json
    assert status["configured"] and status["referee"]["models_error"]
    assert "card models cannot be loaded" in status["referee"]["models_error"]
    assert "card models cannot be loaded" in caplog.text
    assert tablet.client.get("/live").status_code == 200
    assert tablet.send(game_id, {"kind": "draw", "seat": 0}).status_code == 201
    referee.stop()
    assert not referee.running
    tablet.services.camera.close()


def test_dashboard_feed_frames_reach_the_referee(tmp_path):
    """Default wiring: the referee reads the dashboard's own camera feed (an image folder
    here, paced at 10 FPS, watched once) through ``FeedSource``."""
    seen = []

    def detector_for(game: str) -> Any:
        box = table_layout().box("discard_1")

        def detect(image: Any) -> list[Sighting]:
            seen.append(image.shape)
            return [Sighting("G7", 0.9, box)]

        return detect

    frames = write_images(tmp_path / "frames", 6)
    for p in frames.iterdir():  # one still picture: nothing moves on the pile
        p.write_bytes((frames / "f000.jpg").read_bytes())
    app = make_app(tmp_path, camera=str(frames), referee_detector=detector_for)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    for event in (DEAL, {"kind": "draw", "seat": 0}):
        assert tablet.send(game_id, event).status_code == 201
    watch_to_the_end(tablet)
    assert seen and seen[0] == (120, 160, 3)
    got = camera_events(tablet, game_id)
    assert [(i["event"]["payload"]["card"], i["verdicts"][0]["outcome"]) for i in got] == [
        ("G7", "legal")
    ]
    tablet.services.camera.close()


class FlakyPile(PileVideo):
    """pile.avi, but the cable is pulled at frame 30 (the first connection only)."""

    drops = 0

    def read(self) -> Frame | None:
        if FlakyPile.drops == 0 and self.video._index == 30:
            FlakyPile.drops += 1
            raise CameraError("cable pulled")
        return super().read()


def test_a_dropped_camera_pauses_refereeing_and_it_resumes(tmp_path):
    oracle = Oracle()
    FlakyPile.drops = 0
    resumed_at = []

    def reopen() -> FlakyPile:
        src = FlakyPile(oracle)
        if FlakyPile.drops:  # the reopened camera carries on where the table is now
            for _ in range(31):
                src.video.read()
            resumed_at.append(31)
        return src

    _, tablet, game_id = referee_app(tmp_path, oracle)
    tablet.services.referee._open_source = lambda: ReconnectingSource(reopen, retry_s=0.01)
    watch_to_the_end(tablet)
    assert resumed_at == [31]
    got = camera_events(tablet, game_id)
    assert [i["event"]["payload"]["card"] for i in got] == ["G7", "Y9"]


def test_camera_refereeing_can_be_turned_off(tmp_path):
    oracle = Oracle()
    _, tablet, game_id = referee_app(tmp_path, oracle, camera_referee=False)
    referee = tablet.services.referee
    referee.start()  # off: start does nothing
    assert not referee.running and referee.status()["state"] == "off"
    r = tablet.post("/api/camera/referee", {"enabled": "yes"})
    assert r.status_code == 400 and "'enabled'" in r.json["error"]
    r = tablet.post("/api/camera/referee", {"enabled": True})
    assert r.status_code == 200 and r.json["enabled"]
    referee.join(timeout=30)
    assert [i["event"]["payload"]["card"] for i in camera_events(tablet, game_id)] == ["G7", "Y9"]
    r = tablet.post("/api/camera/referee", {"enabled": False})
    assert r.json["state"] == "off" and not r.json["running"]
    no_camera = Tablet(make_app(tmp_path / "other"))
    no_camera.set_pin()
    assert no_camera.post("/api/camera/referee", {"enabled": True}).status_code == 409
    assert no_camera.client.get("/api/camera/status").json["referee"] is None


def test_serve_has_a_no_camera_referee_flag():
    import argparse

    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(["serve", "--camera", "x.avi", "--no-camera-referee"])
    assert args.no_camera_referee is True
    assert parser.parse_args(["serve"]).no_camera_referee is False


def test_seat_on_turn_and_pile_tops_from_each_games_view():
    assert seat_on_turn({"turn": 2}) == 2
    assert seat_on_turn({"turn": None, "round": {"turn": 1}}) is None
    assert seat_on_turn({"round": {"turn": 1}}) == 1
    assert seat_on_turn({"round": None}) is None
    piles = ["discard_1", "discard_2"]
    assert pile_tops("deck-dash", {"round": {"discard": ["G5", "G7"]}}, piles) == {
        "discard_1": "G7"
    }
    dos = {"piles": [{"pile": "left", "top": "R3"}, {"pile": "right", "top": None}]}
    assert pile_tops("dos", dos, piles) == {"discard_1": "R3", "discard_2": None}
    assert pile_tops("hit-the-deck", {"top": "GCUT"}, piles) == {"discard_1": "GCUT"}


class StubFeed:
    """The two things ``FeedSource`` uses of a dashboard feed: subscribe, position."""

    def __init__(self) -> None:
        self.position: int | None = None
        self.listener: Any = None

    def subscribe(self, listener: Any) -> Any:
        self.listener = listener
        return lambda: None

    def show(self, position: int | None, image: str) -> None:
        self.position = position
        self.listener(image, 1000 + len(image))


def test_a_recording_is_refereed_once_from_its_start_after_a_game_is_ready():
    from web.services.referee_camera import FeedSource

    feed = StubFeed()
    source = FeedSource(feed, frames=3, wait_s=0.01)
    feed.show(1, "setup")
    assert source.read().image == "setup"  # no game yet: frames flow, nothing counted
    assert source.arm() is True and source.arm() is False
    feed.show(2, "mid-pass")  # dropped: the pass starts at the recording's first frame
    seen = []
    for position, image in ((0, "first"), (1, "second"), (2, "third"), (0, "again")):
        feed.show(position, image)
        frame = source.read()
        seen.append(None if frame is None else frame.image)
    assert seen == ["first", "second", "third", None]

    live = FeedSource(StubFeed(), frames=None, wait_s=0.01)
    assert live.arm() is False  # a live camera is refereed as it comes
    live.close()
    assert live.read() is None


class PaintedPile:
    """Rendered frames: the discard pile's zone painted one grey level per card, each
    held for 8 frames at 30 FPS; ``detect`` reads the level back (a deterministic reader)."""

    LEVELS = {"G7": 100, "R7": 180, "W": 230}

    def __init__(
        self,
        tops: list[str],
        before: dict[int, Callable[[], None]] | None = None,
        confidence: dict[str, float] | None = None,
    ):
        import numpy as np

        x1, y1, x2, y2 = table_layout().box("discard_1")
        self.box = (x1 + 0.02, y1 + 0.02, x2 - 0.02, y2 - 0.02)
        self.frames = []
        for top in tops:
            img = np.full((120, 160, 3), 40, np.uint8)
            img[int(y1 * 120) : int(y2 * 120), int(x1 * 160) : int(x2 * 160)] = self.LEVELS[top]
            self.frames += [img] * 8
        self.i = 0
        self.before = before or {}  # frame index -> what the family does before it is seen
        self.confidence = confidence or {}  # card -> how sure the reader is (default 0.95)

    def read(self) -> Frame | None:
        if self.i >= len(self.frames):
            return None
        if self.i in self.before:
            self.before[self.i]()
        frame = Frame(self.frames[self.i], round(self.i * 1e9 / FPS), self.i)
        self.i += 1
        return frame

    def close(self) -> None:
        self.i = len(self.frames)

    def detect(self, image: Any) -> list[Sighting]:
        level = int(image[60, int(self.box[0] * 160) + 5, 0])
        card = {v: k for k, v in self.LEVELS.items()}[level]
        return [Sighting(card, self.confidence.get(card, 0.95), self.box)]


def g7_r7_g7_watched(
    tmp_path,
    family: dict[int, Callable[[Tablet, int], None]] | None = None,
    confidence: dict[str, float] | None = None,
    tops: tuple[str, ...] = ("G7", "R7", "G7"),
) -> tuple[Tablet, int]:
    """Deck Dash, G7 starting the pile, Ana has drawn; the camera then sees R7 played on it
    and G7 on top again where it lay (``tops``: each card on top for 8 frames). ``family``:
    frame index -> what the family does on the tablet before the camera sees that frame;
    ``confidence``: how sure the reader is."""
    game: list[Any] = []  # (tablet, game id) once they exist
    hooks = {i: (lambda act=act: act(*game)) for i, act in (family or {}).items()}
    pile = PaintedPile(list(tops), before=hooks, confidence=confidence)
    app = make_app(tmp_path, referee_source=lambda: pile, referee_detector=lambda g: pile.detect)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    deal = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}}
    for event in (deal, {"kind": "draw", "seat": 0}):
        assert tablet.send(game_id, event).status_code == 201
    game += [tablet, game_id]
    watch_to_the_end(tablet)
    return tablet, game_id


# A Wild played on G7, then G7 on top again: Bea, on turn to draw, may not draw a discarded
# Wild (``wild_from_discard`` is off by default), so the Wild was taken back. R7 taken off in
# her draw step is her draw from the discard pile (TBL-15), not a take-back.
G7_W_G7 = ("G7", "W", "G7")


def bea_drew_r7(tablet: Tablet, game_id: int) -> None:
    """The camera logged Ana's R7 and then Bea's draw of it from the discard pile, and asked
    nothing: no "taken back: undo that play?" that would reverse a legal discard (TBL-15)."""
    got = camera_events(tablet, game_id)[-1]
    assert got["seq"] == 4
    assert (got["event"]["kind"], got["event"]["seat"]) == ("draw", 1)
    assert got["event"]["payload"] == {"from": "discard", "card": "R7"}
    assert [v["outcome"] for v in got["verdicts"]] == ["legal"]
    assert tablet.snapshot(game_id)["view"]["round"]["discard"] == ["G7"]
    assert tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"] == []


def test_a_card_taken_back_after_the_cameras_play_offers_to_undo_it(tmp_path):
    tablet, game_id = g7_r7_g7_watched(tmp_path / "r7")
    played = camera_events(tablet, game_id)
    assert [(i["seq"], i["event"]["payload"]["card"]) for i in played] == [(3, "R7"), (4, "R7")]
    bea_drew_r7(tablet, game_id)

    tablet, game_id = g7_r7_g7_watched(tmp_path, tops=G7_W_G7)
    played = camera_events(tablet, game_id)
    assert [(i["seq"], i["event"]["payload"]["card"]) for i in played] == [(3, "W")]
    (question,) = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert question["prompt"] == "taken_back"
    assert question["message"].endswith("undo that play (#3)?")
    assert question["suggestion"]["kind"] == "undo"
    assert question["suggestion"]["payload"] == {"target": 3}
    r = tablet.post(f"/api/games/{game_id}/prompts/{question['id']}/accept")
    assert r.status_code == 201, r.json
    snap = tablet.snapshot(game_id)
    assert [i["status"] for i in snap["feed"]] == ["ok", "ok", "undone", "meta"]
    assert snap["view"]["round"]["discard"] == ["G7"]


def test_a_take_back_with_no_play_left_to_undo_does_not_ask_to_undo(tmp_path):
    """R7 read too doubtfully to be logged (a question nobody answered), then taken back:
    there is no play to undo, so the take-back question does not ask "undo that play?";
    it still offers the twin."""
    tablet, game_id = g7_r7_g7_watched(tmp_path, confidence={"R7": 0.5})
    assert camera_events(tablet, game_id) == []
    prompts = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert [p["prompt"] for p in prompts] == ["confirm_card", "taken_back"]
    question = prompts[1]
    assert question["suggestion"] is None
    assert question["message"] == (
        "R7 was taken back off the pile and G7 is on top again: there is no play of R7 to"
        " undo. Or was another G7 played?"
    )
    assert [a["label"] for a in question["answers"]] == ["Another G7 was played"]


def test_a_play_typed_on_the_tablet_is_not_logged_again_and_its_take_back_offers_undo(tmp_path):
    """Ana types her Wild on the tablet as she lays it: the camera, seeing it arrive, logs
    nothing more; when G7 shows again the question offers to undo the typed play. (Her R7
    typed, then taken off in Bea's draw step, is Bea's draw: logged, nothing asked.)"""
    typed: list[int] = []

    def typing(card: str) -> Callable[[Tablet, int], None]:
        def type_it(tablet: Tablet, game_id: int) -> None:
            r = tablet.send(game_id, {"kind": "discard", "seat": 0, "payload": {"card": card}})
            typed.append(r.json["seq"])

        return type_it

    tablet, game_id = g7_r7_g7_watched(tmp_path / "r7", {8: typing("R7")})
    assert typed == [3] and [i["seq"] for i in camera_events(tablet, game_id)] == [4]
    bea_drew_r7(tablet, game_id)

    typed.clear()
    tablet, game_id = g7_r7_g7_watched(tmp_path, {8: typing("W")}, tops=G7_W_G7)
    assert typed == [3] and camera_events(tablet, game_id) == []
    (question,) = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert question["prompt"] == "taken_back"
    assert question["suggestion"]["payload"] == {"target": 3}
    assert question["message"].endswith("undo that play (#3)?")


def test_ruling_tbl6_a_take_back_question_answered_another_copy_sends_the_twins_play(tmp_path):
    """G7, a Wild on it, G7 again where it lay: the other G7 played on the Wild looks the
    same. The family's third answer sends Bea's G7 (she is on turn); a name the question does
    not offer is a 400 that leaves the question open. (With R7, which Bea may draw from the
    discard pile, G7 again is her draw: see the take-back tests above.)"""
    tablet, game_id = g7_r7_g7_watched(tmp_path, tops=G7_W_G7)
    (question,) = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert question["choices"] == ["undo", "keep", "another"]
    (another,) = question["answers"]
    assert another["label"] == "Another G7 was played"
    url = f"/api/games/{game_id}/prompts/{question['id']}/accept"
    r = tablet.post(url, {"answer": "twin"})
    assert r.status_code == 400 and "no answer 'twin'; its answers: 'another'" in r.json["error"]
    r = tablet.post(url, {"answer": ["another"]})
    assert r.status_code == 400 and "no answer ['another']" in r.json["error"]
    assert len(tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]) == 1
    assert tablet.send(game_id, {"kind": "draw", "seat": 1}).status_code == 201  # typed
    r = tablet.post(url, {"answer": "another"})
    assert r.status_code == 201, r.json
    assert r.json["event"]["seat"] == 1 and r.json["event"]["source"] == "camera"
    assert r.json["event"]["t_ns"] == question["t_ns"]
    snap = tablet.snapshot(game_id)
    assert snap["view"]["round"]["discard"] == ["G7", "W", "G7"]
    twin = snap["feed"][-1]
    assert (twin["event"]["payload"], twin["verdicts"][0]["outcome"]) == ({"card": "G7"}, "legal")
    assert tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"] == []


# R7 played on G7 and left there from frame 8 to 39 (the family rules at frame 24), then
# taken off: G7 on top again from frame 40
R7_LEFT_THERE = ("G7", "R7", "R7", "R7", "R7", "G7", "G7")


def rules_on_the_cameras_play(action: str, card: str = "G9") -> Callable[[Tablet, int], None]:
    """The family's ruling on the camera's R7 (#3): undo it, or overrule it as ``card``."""

    def rule(tablet: Tablet, game_id: int) -> None:
        (played,) = camera_events(tablet, game_id)
        url = f"/api/games/{game_id}/{action}"
        body: dict[str, Any] = {"target": played["seq"]}
        if action == "overrule":
            body["event"] = {"kind": "discard", "seat": 0, "payload": {"card": card}}
        assert tablet.post(url, body).status_code == 201

    return rule


def test_ruling_tbl2_a_play_the_family_undid_is_not_asked_about_while_it_lies_there(tmp_path):
    """The family undoes the camera's R7 while it still lies on G7: the camera neither
    proposes R7 again nor asks whether G7 "was taken back" (it never moved); when R7 is
    taken off, the pile shows what the game says and nothing is asked either."""
    tablet, game_id = g7_r7_g7_watched(
        tmp_path, {24: rules_on_the_cameras_play("undo")}, tops=R7_LEFT_THERE
    )
    snap = tablet.snapshot(game_id)
    assert [i["status"] for i in snap["feed"]] == ["ok", "ok", "undone", "meta"]
    assert snap["view"]["round"]["discard"] == ["G7"]
    assert tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"] == []


def test_ruling_tbl2_a_play_the_family_overruled_is_not_asked_about_as_taken_back(tmp_path):
    """The camera read a Wild as R7; the family overrules #3 to W. While the card lies there
    nothing is asked (no "W was taken back … undo #3?", which would undo their own
    correction); taken off (Bea may not draw a discarded Wild), it is asked about as W, with
    no one-tap undo: an undo of an overruled play would leave the overrule's card on the
    pile. Overruled to G9 instead, taken off in Bea's draw step it is her draw of G9."""
    tablet, game_id = g7_r7_g7_watched(
        tmp_path / "g9", {24: rules_on_the_cameras_play("overrule")}, tops=R7_LEFT_THERE
    )
    snap = tablet.snapshot(game_id)
    assert [i["status"] for i in snap["feed"]] == ["ok", "ok", "overruled", "meta", "ok"]
    drew = snap["feed"][-1]
    assert (drew["event"]["kind"], drew["event"]["seat"], drew["event"]["source"]) == (
        "draw",
        1,
        "camera",
    )
    assert drew["event"]["payload"] == {"from": "discard", "card": "G9"}  # the family's card
    assert [v["outcome"] for v in drew["verdicts"]] == ["legal"]
    assert snap["view"]["round"]["discard"] == ["G7"]
    assert tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"] == []

    tablet, game_id = g7_r7_g7_watched(
        tmp_path, {24: rules_on_the_cameras_play("overrule", "W")}, tops=R7_LEFT_THERE
    )
    snap = tablet.snapshot(game_id)
    assert [i["status"] for i in snap["feed"]] == ["ok", "ok", "overruled", "meta"]
    assert snap["view"]["round"]["discard"] == ["G7", "W"]
    (question,) = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert question["prompt"] == "taken_back" and question["suggestion"] is None
    assert question["message"] == (
        "W was taken back off the pile and G7 is on top again: #3 was corrected on the"
        " tablet, so correct it there again. Or was another G7 played?"
    )
