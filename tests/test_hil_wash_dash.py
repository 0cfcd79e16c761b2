"""Hardware in the loop: a Wash Dash round with pads and the camera, through the server.

The table is recorded as one time line. The camera's half is rendered on the fly with
fixed seeds (``vision.dryer.render``): two dryers side by side, seat 0 (Ana) left, seat 1
(Bea) right, read by the real ``DryerReader``. The pads' half is a recorded pad log
(``tests/data/hil-washdash/pads.jsonl``, made by ``make_pads.py`` there): Ana's and Bea's
bouncy "done" buttons, whose edges drive mock pins behind the hardware package's
``PadsService`` — debounce, event bus, the server's pad bridge, the SQLite event log. Both
run through ``create_app``: the camera referee's own thread reads the frames, and each
frame is read only after the edges due before it were driven.

Three task cards are open when both press done (WD-17 holds each press for its card); the
camera's settled dryers name the cards (WD-21), each at its press's time, so the First
bonus goes to the earlier press although its card was named later. The game's log then
replays to the same result without a camera.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hardware.mockpins import NsMockFactory
from hardware.padlog import read_pad_log
from hardware.service import PadsService
from hardware.table import Table as PadTable
from referee.registry import find_game
from referee.replay import replay
from referee.replay_cli import read_jsonl
from referee.washdash.dryer import Dryer
from tests.test_web_camera_dryer import CLOTH, Table, _no_cards, camera_events
from tests.test_web_routes import Tablet, make_app
from vision.dryer.read import DryerReader
from vision.dryer.render import render_dryer
from vision.table.frames import Frame

PADS = Path(__file__).parent / "data" / "hil-washdash" / "pads.jsonl"
MS = 1_000_000
PLAYERS = ("Ana", "Bea", "Cy", "Di", "Ed")  # 5 players: 4 cards a round
REVEAL = {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T02", "T03", "first-bonus-1"]}}
ANA = Dryer.parse("dress:blue / - / -")  # T02 (the red dress on the blue pin), nothing else
BEA = Dryer.parse("- / shirt:yellow / -")  # T03 (the yellow shirt on the yellow pin)
ANA_PRESS, BEA_PRESS = 3_050 * MS, 3_250 * MS  # the recording's accepted first edges


class Dryers(Table):
    """``Table`` (two dryers side by side) with Ana's and Bea's finished dryers rendered
    with fixed seeds, and Ana's dryer under her hand held still ("covered", TBL-12)."""

    def __init__(self) -> None:
        self.truth, self.t_ns, self.index = {}, 0, 0
        self.samples = [
            render_dryer(np.random.default_rng(seed), state, table_rgb=CLOTH)
            for seed, state in ((7, ANA), (8, BEA))
        ]
        hand = render_dryer(np.random.default_rng(7), ANA, table_rgb=CLOTH, hand="bare")
        self.covered = hand.image

    def picture(self, seat: int, what: Any, confidence: float = 1.0) -> np.ndarray:
        if what == "covered":
            return self.covered
        return super().picture(seat, what, confidence)


# The camera's time line: (frames, Ana's dryer, Bea's dryer), 100 ms a frame from 0.1 s.
SCRIPT = (
    (8, "empty", "empty"),  # 0.1-0.8 s: the empty dryers before the first round
    (2, "empty", "empty"),  # 0.9-1.0 s: Ana reveals at 1.0 s ("go!")
    (10, "hand", "hand"),  # 1.1-2.0 s: both hang their clothes
    (10, "full", "full"),  # 2.1-3.0 s: both dryers finished and still
    (2, "hand", "full"),  # 3.1-3.2 s: Ana pressed done (3.05 s), her hand goes back…
    (6, "covered", "full"),  # 3.3-3.8 s: …and stays over her dryer; Bea pressed at 3.25 s
    (7, "full", "full"),  # 3.9-4.5 s: Ana's hand is gone
)


class TimeLine:
    """The recorded table as a ``FrameSource``: before a frame is read, every action due
    by its time (a pad edge, a tap on the tablet) runs, in time order."""

    def __init__(self, frames: list[Frame], actions: list[tuple[int, Callable[[], Any]]]):
        self.frames = frames
        self.actions = sorted(actions, key=lambda a: a[0])

    def read(self) -> Frame | None:
        if not self.frames:
            return None
        frame = self.frames.pop(0)
        while self.actions and self.actions[0][0] <= frame.t_ns:
            self.actions.pop(0)[1]()
        return frame

    def close(self) -> None:
        pass


def frames(dryers: Dryers, stamp: Callable[[int], int]) -> list[Frame]:
    out = []
    for n, left, right in SCRIPT:
        for _ in range(n):
            f = dryers.frame(left, right)
            out.append(Frame(f.image, stamp(f.t_ns), f.index))
    return out


def test_pads_and_camera_name_the_held_presses_cards_and_the_first_bonus_goes_by_the_button(
    tmp_path,
):
    recording = read_pad_log(PADS)
    dryers = Dryers()
    # the real reader reads these renders right (else this would test the reader, not HIL)
    for seat, state in ((0, ANA), (1, BEA)):
        reader = DryerReader(dryers.layout(), seat)
        reader.set_reference(dryers.frame("empty", "empty").image)
        got = reader.read(dryers.frame("full", "full").image)
        assert got.dryer.canonical() == state.canonical() and got.confidence == 1.0
        assert reader.read(dryers.frame("covered", "full").image).occluded is (seat == 0)
    dryers.t_ns = dryers.index = 0

    pads = PadsService(PadTable(recording.config, NsMockFactory()))
    timeline: list[TimeLine] = []
    app = make_app(
        tmp_path, pads=pads, referee_source=lambda: timeline[0], referee_detector=_no_cards
    )
    services = app.extensions["tabletop"]
    try:
        tablet = Tablet(app)
        tablet.set_pin()
        services.zones.save(dryers.zones_doc())
        game_id = tablet.new_game("wash-dash", PLAYERS)
        assert tablet.send(game_id, {"kind": "setup"}).status_code == 201

        def reveal() -> None:
            assert tablet.send(game_id, {**REVEAL, "t_ns": stamp(1_000 * MS)}).status_code == 201

        def edge(e: Any) -> Callable[[], None]:
            return lambda: pads.table.drive(e.seat, e.device, e.active, e.t_ns)

        stamp = services.clock.from_monotonic  # frames and pads on the log's time line
        actions = [(stamp(1_000 * MS), reveal)]
        actions += [(stamp(e.t_ns), edge(e)) for e in recording.replay_order]
        timeline.append(TimeLine(frames(dryers, stamp), actions))
        referee = services.referee
        referee.start()
        referee.join(timeout=60)
        assert not referee.running and referee.status()["state"] == "ended"

        # The pads: each bouncy button is one press, logged as a card-less done (WD-17).
        notes = [n for n in services.pad_log if n.get("accepted") is not None]
        assert [(n["seat"], n["t_ns"], n["accepted"]) for n in notes] == [
            (0, stamp(ANA_PRESS), True),
            (1, stamp(BEA_PRESS), True),
        ]
        feed = tablet.snapshot(game_id)["feed"]
        presses = [i for i in feed if i["event"].get("source") == "pad"]
        assert [(i["event"]["seat"], "payload" in i["event"]) for i in presses] == [
            (0, False),
            (1, False),
        ]
        assert all("which task card" in i["verdicts"][0]["reason"] for i in presses)

        # The camera: both dryers settled as `dryer` events, then each held press is named
        # by the dryer it completes, at the press's time. Bea's first: Ana's hand was
        # still over her dryer (not a reading).
        got = [i["event"] for i in camera_events(tablet, game_id)]
        assert [(e["kind"], e["seat"]) for e in got] == [
            ("dryer", 0),
            ("dryer", 1),
            ("done", 1),
            ("done", 0),
        ]
        bea_done, ana_done = got[2], got[3]
        assert bea_done["payload"] == {"card": "T03", "dryer": BEA.to_dict()}
        assert bea_done["t_ns"] == stamp(BEA_PRESS)
        assert ana_done["payload"] == {"card": "T02", "dryer": ANA.to_dict()}
        assert ana_done["t_ns"] == stamp(ANA_PRESS)
        view = tablet.snapshot(game_id)["view"]
        assert view["presses"] == []
        assert [(c["seat"], c["card"], c["t_ns"], c["status"]) for c in view["claims"]] == [
            (1, "T03", stamp(BEA_PRESS), "ok"),
            (0, "T02", stamp(ANA_PRESS), "ok"),
        ]
        assert services.prompts.open(game_id) == []  # nobody had to tap the tablet

        # Cy takes the last card on the tablet: the round ends, and the First bonus goes
        # to Ana, who pressed first, although the camera named Bea's card first.
        cy = {"kind": "done", "seat": 2, "t_ns": stamp(5_000 * MS)}
        cy["payload"] = {"card": "T01", "dryer": "pants:red / - / -"}
        assert tablet.send(game_id, cy).status_code == 201
        snap = tablet.snapshot(game_id)
        assert snap["view"]["first_bonus_to"] == 0
        assert snap["view"]["cards"][:3] == [["T02", "first-bonus-1"], ["T03"], ["T01"]]
        assert snap["scoreboard"]["totals"] == [4, 1, 1, 0, 0]

        # The log replays to the same result without a camera or pads (WD-21).
        log = tmp_path / "round.jsonl"
        log.write_text(tablet.client.get(f"/api/games/{game_id}/log.jsonl").data.decode())
        game, players, options, events = read_jsonl(log, None)
        result = replay(find_game(game), players, options, events)
        again = find_game(game).view(result.state)
        assert again["claims"] == snap["view"]["claims"] and again["first_bonus_to"] == 0
        assert list(find_game(game).scoreboard(result.state).totals) == [4, 1, 1, 0, 0]
    finally:
        services.referee.stop()
        pads.close()
