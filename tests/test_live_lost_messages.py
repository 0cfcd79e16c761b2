"""A tablet's live stream never stays wrong after the hub dropped messages for it, and the
question lists reach the tablets in the order of the board's changes.

1. A stalled stream (its queue of ``QUEUE_SIZE`` messages full) loses the oldest. Before, a
   follower that lost the new game's one ``created`` message stayed on the old game (every
   later message was of another game), and a lost list of questions was never sent again.
   Now a stream that lost messages is sent the whole state and list again.
2. ``PromptBoard`` read its list under its lock but handed it to the hub after releasing it:
   a dismissal and a camera's new question on two threads could publish in reverse order,
   leaving the tablets with an empty list while a question was open.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_web_routes import Tablet, make_app
from web.errors import BadInput
from web.services.hub import QUEUE_SIZE, Hub, Subscription
from web.services.prompts import PromptBoard

WAIT_S = 10.0  # only against a hang: every wait below is for an event that must come


def question(message: str) -> dict[str, Any]:
    return {
        "prompt": "who_slapped",
        "message": message,
        "zone": None,
        "t_ns": 1,
        "confidence": 0.5,
        "suggestion": {"kind": "slap", "seat": 0},
        "choices": [],
    }


def referee(tmp_path: Path) -> Tablet:
    tablet = Tablet(make_app(tmp_path, race_timer=False, stream_heartbeat_s=0.2))
    assert tablet.set_pin().status_code == 302
    return tablet


class Stream:
    """An open ``/api/stream``, read chunk by chunk: the generator runs only while it is
    read, so between reads the tablet is stalled and its queue in the hub fills."""

    def __init__(self, tablet: Tablet, query: str) -> None:
        self.resp = tablet.client.get("/api/stream" + query)
        assert self.resp.status_code == 200
        self._chunks = iter(self.resp.response)

    def opening(self) -> list[tuple[str, Any]]:
        """What the stream opens with, read until it waits in its loop for the hub (the
        first chunk is a heartbeat too: the page learns its interval first)."""
        first = [m for m in parse(next(self._chunks)) if m[0] != "heartbeat"]
        return first + self.until_idle()

    def until_idle(self) -> list[tuple[str, Any]]:
        """Every message up to the next heartbeat: one comes only once the queue is empty,
        so this is everything the stream had to send."""
        out: list[tuple[str, Any]] = []
        while True:
            got = list(parse(next(self._chunks)))
            out += [m for m in got if m[0] != "heartbeat"]
            if any(m[0] == "heartbeat" for m in got):
                return out

    def close(self) -> None:
        self.resp.close()


def parse(chunk: bytes) -> Iterator[tuple[str, Any]]:
    """The SSE messages in one chunk: (event name, data); a nameless one is a heartbeat."""
    for block in chunk.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            yield fields["event"], json.loads(fields["data"])
        elif "data" in fields:
            yield "heartbeat", None


def the_stream(tablet: Tablet) -> Subscription:
    subs = tablet.services.hub._subs
    assert len(subs) == 1
    return subs[0]


def press(tablet: Tablet, seat: int) -> None:
    assert tablet.post("/api/pads/press", {"seat": seat, "device": "pad"}).status_code < 300


def games_shown(messages: list[tuple[str, Any]]) -> list[int]:
    return [d["game"]["id"] for e, d in messages if e in ("state", "delta")]


# -- 1. a stream that lost messages --------------------------------------------------------


def test_a_stalled_follower_that_lost_the_new_games_message_switches_to_it(tmp_path):
    tablet = referee(tmp_path)
    old = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    stream = Stream(tablet, "?game=current&delta=1")
    assert games_shown(stream.opening()) == [old]
    # the tablet stalls while the family ends the game, starts a rematch and slaps away
    assert tablet.post(f"/api/games/{old}/end").status_code == 200
    new = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    for i in range(QUEUE_SIZE):
        press(tablet, i % 3)
    assert the_stream(tablet).queue.full()  # 65 messages: "created" was dropped
    got = stream.until_idle()
    assert games_shown(got) == [new]
    assert got[0] == ("state", tablet.snapshot(new))  # the whole state, read afresh
    assert ("prompts", {"game_id": new, "prompts": []}) in got  # as on a reopened stream
    press(tablet, 0)  # and it goes on following the new game
    assert games_shown(stream.until_idle()) == [new]
    stream.close()


def test_a_stalled_live_page_still_gets_the_question_asked_meanwhile(tmp_path):
    tablet = referee(tmp_path)
    game_id = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    board = tablet.services.prompts
    stream = Stream(tablet, "?game=current&pads=1&delta=1")
    stream.opening()  # then the tablet stalls
    asked = board.add(game_id, question("Who slapped first?"))
    for i in range(QUEUE_SIZE // 2):  # each sends pad and game messages: more than fit
        press(tablet, i % 3)
    sub = the_stream(tablet)
    assert sub.queue.full()  # the question's list, the oldest, was dropped
    queued_pads = [data for topic, data in list(sub.queue.queue) if topic == "pads"]
    got = stream.until_idle()
    lists = [d for e, d in got if e == "prompts"]
    assert lists and lists[-1] == board.payload(game_id)
    assert [p["id"] for p in lists[-1]["prompts"]] == [asked.id]
    # the presses still queued are sent, in order, after the state: they carry no state
    assert [d for e, d in got if e == "pad"] == queued_pads
    stream.close()


def test_a_stream_that_lost_nothing_is_not_sent_the_state_again(tmp_path):
    tablet = referee(tmp_path)
    game_id = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    stream = Stream(tablet, "?game=current&delta=1")
    stream.opening()
    press(tablet, 0)
    got = stream.until_idle()
    assert [e for e, _ in got] == ["delta"] and games_shown(got) == [game_id]
    stream.close()


def test_a_subscription_that_overflowed_is_marked_and_hands_back_what_is_queued():
    hub = Hub()
    sub = hub.subscribe("game")
    hub.publish("game", 0)
    assert sub.take_lost() is None  # nothing dropped
    for n in range(1, QUEUE_SIZE + 3):
        hub.publish("game", n)
    assert sub.take_lost() == [("game", n) for n in range(3, QUEUE_SIZE + 3)]
    assert sub.take_lost() is None and sub.get(timeout=0) is None
    for n in range(QUEUE_SIZE + 1):
        hub.publish("game", n)
    sub.end()
    assert sub.take_lost() is None  # an ending stream just ends


# -- 2. the board's lists in order ---------------------------------------------------------


class WatchedLock:
    """A lock that calls ``waited`` when a thread finds it held and has to wait."""

    def __init__(self, waited: Callable[[], None]) -> None:
        self._lock = threading.Lock()
        self._waited = waited

    def __enter__(self) -> WatchedLock:
        if not self._lock.acquire(blocking=False):
            self._waited()
            assert self._lock.acquire(timeout=WAIT_S)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._lock.release()


class PausingHub(Hub):
    """A hub whose publish, on the thread named ``slow``, waits for ``go`` the first time:
    that thread is pre-empted on its way to the tablets."""

    def __init__(self) -> None:
        super().__init__()
        self.paused, self.go = threading.Event(), threading.Event()

    def publish(self, topic: str, data: Any) -> None:
        if threading.current_thread().name == "slow" and not self.paused.is_set():
            self.paused.set()
            assert self.go.wait(WAIT_S)
        super().publish(topic, data)


def lists_heard(sub: Subscription) -> list[list[str]]:
    out = []
    while (item := sub.get(timeout=0)) is not None:
        out.append([p["message"] for p in item[1]["prompts"]])
    return out


def test_lists_reach_the_tablets_in_the_order_of_the_boards_changes():
    hub = PausingHub()
    board = PromptBoard(hub)
    tablet = hub.subscribe("prompts")
    first = board.add(1, question("first"))
    settled = threading.Event()  # the camera's add has waited for the board, or is done
    board._lock = WatchedLock(settled.set)  # type: ignore[assignment]

    def camera_asks() -> None:
        try:
            board.add(1, question("who played the Draw Two?"))
        finally:
            settled.set()

    dismissal = threading.Thread(target=board.dismiss, args=(1, first.id), name="slow")
    dismissal.start()
    assert hub.paused.wait(WAIT_S)  # the dismissal is on its way to the hub
    camera = threading.Thread(target=camera_asks)
    camera.start()
    assert settled.wait(WAIT_S)
    hub.go.set()
    dismissal.join(WAIT_S)
    camera.join(WAIT_S)
    assert not dismissal.is_alive() and not camera.is_alive()
    heard = lists_heard(tablet)
    assert heard[-1] == [p["message"] for p in board.open(1)] == ["who played the Draw Two?"]


class RefusingGames:
    """A game service whose rules refuse the answer, while the camera asks another
    question meanwhile (between the question taken off and put back)."""

    def __init__(self, board: PromptBoard) -> None:
        self.board = board

    def append(self, game_id: int, event: Any) -> dict[str, Any]:
        self.board.add(game_id, question("second"))
        raise BadInput("the rules refuse it")

    def record(self, game_id: int) -> Any:
        return type("Record", (), {"ended_at": None})()


def test_a_refused_answer_puts_its_question_back_on_the_tablets_too():
    board = PromptBoard(Hub())
    tablet = board.hub.subscribe("prompts")
    first = board.add(1, question("first"))
    with pytest.raises(BadInput):
        board.accept(RefusingGames(board), 1, first.id, {})  # type: ignore[arg-type]
    assert lists_heard(tablet)[-1] == [p["message"] for p in board.open(1)] == ["first", "second"]


def test_a_resync_the_database_cannot_name_the_current_game_for_stays_on_its_game(
    tmp_path, monkeypatch
):
    """A follower that lost messages while the database is busy: it goes on with the game it
    shows. Before, the 503 ``current_id`` raises (``storage_guarded``) ended the stream with
    a traceback."""
    import sqlite3

    tablet = referee(tmp_path)
    old = tablet.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
    stream = Stream(tablet, "?game=current&delta=1")
    stream.opening()
    for i in range(QUEUE_SIZE + 2):
        press(tablet, i % 3)
    assert the_stream(tablet).lost.is_set()

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(tablet.services.games.log, "game_ids", locked)
    assert games_shown(stream.until_idle()) == [old]
    stream.close()
