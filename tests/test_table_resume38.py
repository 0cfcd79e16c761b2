"""Review 38: a camera watcher started on a game under way (a server restart, zones saved
again) rebuilds what each discard pile holds from the game's log, not only its top card: a
draw or a take-back of the top shows the card under it (TBL-16, TBL-2), also after a hand
hid the pile a moment, and the camera's own play the rules refused, still lying there, is
not logged a second time (laid again once legal, it is a new play). A deal typed while the
last game's card still lies on the pile does not log its start card when the dealer lays
it; a play typed before its card is laid is neither asked about as taken back nor read as
drawn when the card under it is seen again; and ``vision watch`` refuses zones without a
discard pile.

Frames are painted and read back by ``PaintedTable`` (``tests/test_table_resume.py``): these
tests check the wiring from the game's log to the watcher, not the card models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tests.test_table_resume import DEAL, PaintedTable, questions, typed, watched, zones_doc
from tests.test_web_camera_referee import camera_events, watch_to_the_end
from tests.test_web_routes import Tablet, make_app

DOS_DEAL = {"kind": "deal", "seat": 2, "payload": {"hands": [14, 14, 14], "piles": ["R7", "B9"]}}
HTD_DEAL = {"kind": "deal", "payload": {"hands": [7, 7, 7]}}
ANA_DISCARDS_G7 = [
    DEAL,
    {"kind": "draw", "seat": 0},
    {"kind": "discard", "seat": 0, "payload": {"card": "G7"}},
]


def camera_app(tmp_path: Path, table: PaintedTable | list[str], first: bool = True) -> Tablet:
    """A dashboard whose camera watches ``table`` (or sees these tops on the discard pile, 8
    frames each); ``first``: a new database (its PIN set, the zones saved), else a server
    restarted on it."""
    if isinstance(table, list):
        table = PaintedTable([(top, {}) for top in table])
    painted = table
    app = make_app(
        tmp_path,
        referee_source=lambda: painted,
        referee_detector=lambda game: painted.detect,
        race_timer=False,
    )
    tablet = Tablet(app)
    if first:
        tablet.set_pin()
        tablet.services.zones.save(zones_doc())
    else:
        tablet.login()
    return tablet


def new_game(tablet: Tablet, game: str, players: tuple[str, ...], events: list[Any]) -> int:
    game_id = tablet.new_game(game, players)
    typed(tablet, game_id, events)
    return game_id


def plays(tablet: Tablet, game_id: int) -> list[tuple[str, Any, Any, list[str]]]:
    """The camera's events: kind, seat, payload, verdict outcomes."""
    return [
        (
            item["event"]["kind"],
            item["event"].get("seat"),
            item["event"].get("payload"),
            [v["outcome"] for v in item["verdicts"]],
        )
        for item in camera_events(tablet, game_id)
    ]


BEA_Y9 = ("discard", 1, {"card": "Y9"}, ["illegal"])  # Bea discards before drawing


def bea_discards_y9_unlawfully(tmp_path: Path) -> tuple[Tablet, int]:
    """Ana discarded G7 (typed); the camera sees Bea's Y9 land in her draw step: refused."""
    tablet = camera_app(tmp_path, ["G7", "Y9"])
    game_id = new_game(tablet, "deck-dash", ("Ana", "Bea"), ANA_DISCARDS_G7)
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == [BEA_Y9]
    return tablet, game_id


def test_ruling_tbl2_a_restart_does_not_log_the_cameras_refused_play_again(tmp_path):
    """The camera logged Bea's Y9, refused: it still lies on G7. The server restarts and the
    new watcher sees it: it used to log Bea's Y9 again (refused again); nothing more now."""
    _, game_id = bea_discards_y9_unlawfully(tmp_path)
    tablet = camera_app(tmp_path, ["Y9", "Y9"], first=False)
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == [BEA_Y9]
    assert tablet.snapshot(game_id)["head"] == 4
    assert questions(tablet, game_id) == []


def test_ruling_tbl2_a_refused_camera_play_laid_again_once_legal_is_logged(tmp_path):
    """Bea lays Y9 in her draw step (refused), takes it back, her draw is typed, and she
    lays Y9 again: now a legal discard. It was dropped as "refused already" (a log line
    only), leaving the game's pile without the card on the table."""
    game: list[Any] = []

    def bea_draws() -> None:
        typed(*game, [{"kind": "draw", "seat": 1}])

    table = PaintedTable([("G7", {}), ("Y9", {}), ("G7", {}), ("Y9", {})], {24: bea_draws})
    tablet = camera_app(tmp_path, table)
    game += [tablet, new_game(tablet, "deck-dash", ("Ana", "Bea"), ANA_DISCARDS_G7)]
    watch_to_the_end(tablet)
    kind, seat, payload, outcomes = plays(tablet, game[1])[-1]
    assert (kind, seat, payload) == ("discard", 1, {"card": "Y9"})
    assert "legal" in outcomes and "illegal" not in outcomes, outcomes
    assert tablet.snapshot(game[1])["view"]["round"]["discard"] == ["G5", "G7", "Y9"]


class HandOverPile(PaintedTable):
    """A scene whose top is None shows no card on the pile (a hand over it)."""

    def detect(self, image: Any) -> list[Any]:
        top, _ = self.scenes[self.frames[self.i - 1][0]]
        return [] if top is None else super().detect(image)


def test_ruling_tbl2_a_watcher_started_mid_round_reads_the_top_discard_taken_as_the_draw(tmp_path):
    """TBL-16 after a restart: Bea's B9 lay on G7 before the watcher started; Ana takes it
    in her draw step. The watcher knew only B9, so G7 showing was Ana's discard of G7
    (refused); it is her draw of B9, as when the camera saw B9 laid."""
    bea_b9 = [
        *ANA_DISCARDS_G7,
        {"kind": "draw", "seat": 1},
        {"kind": "discard", "seat": 1, "payload": {"card": "B9"}},
    ]
    tablet, game_id = watched(tmp_path, bea_b9, [("B9", {}), ("G7", {})])
    assert plays(tablet, game_id) == [("draw", 0, {"from": "discard", "card": "B9"}, ["legal"])]
    assert questions(tablet, game_id) == []


def test_ruling_tbl2_a_hand_over_the_pile_after_a_restart_keeps_the_pile_rebuilt(tmp_path):
    """As above, but a hand hides the pile a moment before Ana takes B9: B9 settling again
    threw the rebuilt pile away (only B9 was remembered), so G7 showing was Ana's discard
    of G7 (refused) instead of her draw of B9."""
    bea_b9 = [
        *ANA_DISCARDS_G7,
        {"kind": "draw", "seat": 1},
        {"kind": "discard", "seat": 1, "payload": {"card": "B9"}},
    ]
    scenes: list[Any] = [("B9", {}), (None, {}), ("B9", {}), ("G7", {})]
    tablet = camera_app(tmp_path, HandOverPile(scenes))
    game_id = new_game(tablet, "deck-dash", ("Ana", "Bea"), bea_b9)
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == [("draw", 0, {"from": "discard", "card": "B9"}, ["legal"])]
    assert questions(tablet, game_id) == []


def test_a_dos_play_taken_back_after_a_restart_is_asked_about(tmp_path):
    """The camera logged Ana's R3 on the left pile (R7); the server restarts; Ana takes R3
    back. The watcher knew only R3, so R7 showing was logged as Ana's play of R7 (refused);
    now it asks to undo R3, as without the restart."""
    tablet = camera_app(tmp_path, ["R7", "R3"])
    game_id = new_game(tablet, "dos", ("Ana", "Bea", "Cal"), [DOS_DEAL])
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == [("play", 0, {"card": "R3", "pile": "left"}, ["legal"])]
    tablet = camera_app(tmp_path, ["R3", "R7"], first=False)
    watch_to_the_end(tablet)
    assert len(plays(tablet, game_id)) == 1
    assert questions(tablet, game_id) == [
        (
            "taken_back",
            "R3 was taken back off the pile and R7 is on top again: undo that play (#2)?",
        )
    ]


def test_a_hit_the_deck_play_taken_back_after_a_restart_is_asked_about(tmp_path):
    """Hit the Deck's pile as its view has it (top first): Bea's R5, typed on R3 before the
    watcher started, taken back. It was logged as Cal's play of R3."""
    events = [
        HTD_DEAL,
        {"kind": "turn_up", "payload": {"card": "R3"}},
        {"kind": "play", "seat": 1, "payload": {"card": "R5"}},
    ]
    tablet = camera_app(tmp_path, ["R5", "R3"])
    game_id = new_game(tablet, "hit-the-deck", ("Ana", "Bea", "Cal"), events)
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == []
    assert questions(tablet, game_id) == [
        (
            "taken_back",
            "R5 was taken back off the pile and R3 is on top again: undo that play (#3)?",
        )
    ]


def test_ruling_tbl2_the_deals_start_card_laid_on_the_last_games_card_is_not_logged(tmp_path):
    """The deal (start G5) is typed while the last game's R12 still lies on the pile; the
    dealer then lays G5 there. G5 is the game's already: it was logged as Ana's discard
    (refused: she had not drawn)."""
    game: list[Any] = []

    def deal() -> None:
        typed(*game, [DEAL])

    table = PaintedTable([("R12", {}), ("G5", {})], {16: deal})
    table.frames = [table.frames[0]] * 24 + [table.frames[8]] * 16  # R12 untouched, then G5
    tablet = camera_app(tmp_path, table)
    game += [tablet, tablet.new_game("deck-dash", ("Ana", "Bea"))]
    watch_to_the_end(tablet)
    assert plays(tablet, game[1]) == []
    assert tablet.snapshot(game[1])["view"]["round"]["discard"] == ["G5"]


def test_ruling_tbl2_a_dos_play_typed_before_its_card_is_laid_is_not_asked_about_again(tmp_path):
    """Ana types her R3 on the left pile while R7 still lies there, then lays it. Once R3
    lands it is the game's top already: it used to be asked about as R7 taken back (or
    another R3 played) as well; and R7 read again before R3 lands was asked about as R3
    taken back, with a one-tap undo of Ana's correct play (#2)."""
    game: list[Any] = []
    ana_r3 = {"kind": "play", "seat": 0, "payload": {"card": "R3", "pile": "left"}}
    table = PaintedTable([("R7", {}), ("R7", {}), ("R3", {})], {8: lambda: typed(*game, [ana_r3])})
    tablet = camera_app(tmp_path, table)
    game += [tablet, new_game(tablet, "dos", ("Ana", "Bea", "Cal"), [DOS_DEAL])]
    watch_to_the_end(tablet)
    assert plays(tablet, game[1]) == []
    assert questions(tablet, game[1]) == []


def test_the_card_under_a_typed_discard_seen_again_before_it_lands_is_no_draw(tmp_path):
    """Ana types her R7 while G7 lies there; a hand passes over the pile (G7 read again),
    then R7 lands and Bea takes it. G7 read again was Bea's draw of R7, which was not even
    laid yet, and the rest followed from it (Bea's discard of R7, Ana's draw of it)."""
    game: list[Any] = []
    ana_r7 = {"kind": "discard", "seat": 0, "payload": {"card": "R7"}}
    scenes: list[Any] = [("G7", {}), ("G7", {}), ("R7", {}), ("G7", {})]
    table = PaintedTable(scenes, {8: lambda: typed(*game, [ana_r7])})
    tablet = camera_app(tmp_path, table)
    deal = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}}
    game_id = new_game(tablet, "deck-dash", ("Ana", "Bea"), [deal, {"kind": "draw", "seat": 0}])
    game += [tablet, game_id]
    watch_to_the_end(tablet)
    assert plays(tablet, game_id) == [("draw", 1, {"card": "R7", "from": "discard"}, ["legal"])]
    assert questions(tablet, game_id) == []


def test_ruling_tbl2_a_typed_play_undone_before_its_card_is_laid_leaves_the_pile_as_it_was(
    tmp_path,
):
    """Ana types R3 on the left pile (R7), the family undoes it, then she lays R3 after all:
    her play, logged. It was asked about as R7 taken back (no play of R7 to undo)."""
    game: list[Any] = []
    ana_r3 = {"kind": "play", "seat": 0, "payload": {"card": "R3", "pile": "left"}}

    def undo() -> None:
        tablet, game_id = game
        r = tablet.send(game_id, {"kind": "undo", "payload": {"target": 2}})
        assert r.status_code == 201, r.json

    scenes: list[Any] = [("R7", {}), ("R7", {}), ("R7", {}), ("R3", {})]
    table = PaintedTable(scenes, {8: lambda: typed(*game, [ana_r3]), 16: undo})
    tablet = camera_app(tmp_path, table)
    game += [tablet, new_game(tablet, "dos", ("Ana", "Bea", "Cal"), [DOS_DEAL])]
    watch_to_the_end(tablet)
    assert plays(tablet, game[1]) == [("play", 0, {"card": "R3", "pile": "left"}, ["legal"])]
    assert questions(tablet, game[1]) == []


def test_vision_watch_refuses_zones_without_a_discard_pile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the whole video played through, nothing printed, exit 0."""
    zones = tmp_path / "zones.json"
    square = [[0.12, 0.3], [0.34, 0.3], [0.34, 0.7], [0.12, 0.7]]
    zones.write_text(
        json.dumps({"zones": [{"name": "draw_pile", "kind": "draw_pile", "points": square}]})
    )
    argv = ["vision", "watch", str(tmp_path / "table.avi"), "--game", "dos", "--zones", str(zones)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"tabletop vision watch: {zones} has no discard pile zone: draw discard_1 on the "
        "dashboard's Calibrate page (or add a zone of kind discard to the file)\n"
    )


def test_a_take_back_showing_a_card_the_camera_cannot_name_asks_about_no_other_copy(tmp_path):
    """Hit the Deck: a "with a number" card (no token, ``?``) lies on the pile, R5 is laid on
    it and taken back. The question must not ask "was another ? played?" (TBL-6: an unnamed
    card has no face to repeat)."""
    events = [HTD_DEAL, {"kind": "turn_up", "payload": {"card": "R3"}}]
    tablet = camera_app(tmp_path, ["R3", "?", "R5", "?"])
    game_id = new_game(tablet, "hit-the-deck", ("Ana", "Bea", "Cal"), events)
    watch_to_the_end(tablet)
    taken_back = [m for kind, m in questions(tablet, game_id) if kind == "taken_back"]
    assert taken_back == [
        "R5 was taken back off the pile and ? is on top again: there is no play of R5 to undo."
    ]
