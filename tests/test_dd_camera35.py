"""Review 35: the camera is told when the game empties a discard pile (a start card taken,
DD-18; a reshuffle, DD-7; the end of a Dash; Hit the Deck's turned-up Hand card shuffled
back), so the next card laid there is a play even with the face last seen on top (TBL-14
amended); between Dashes nothing is proposed on the pile (TBL-3 amended)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.cards import format_cards, full_deck
from referee.events import Event
from tests.test_camera_questions_followup import ask_r9_misread
from tests.test_table_events import layout, obs
from tests.test_web_camera_referee import (
    PaintedPile,
    camera_events,
    g7_r7_g7_watched,
    watch_to_the_end,
    zones_doc,
)
from tests.test_web_routes import Tablet, make_app
from vision.table.to_events import EventMapper
from vision.table.watcher import Sighting

Family = Callable[[Tablet, int], None]  # what the family does on the tablet


class Pile(PaintedPile):
    """``PaintedPile`` with an empty pile ("EMPTY": nothing read) and these cards."""

    LEVELS = {"G7": 100, "R7": 180, "KEEP2": 140, "HAND": 210, "R3": 120, "EMPTY": 40}

    def detect(self, image: Any) -> list[Sighting]:
        (card,) = [c for c, level in self.LEVELS.items() if level == self._level(image)]
        confidence = self.confidence.get(card, 0.95)
        return [] if card == "EMPTY" else [Sighting(card, confidence, self.box)]

    def _level(self, image: Any) -> int:
        return int(image[60, int(self.box[0] * 160) + 5, 0])


def watched(
    tmp_path: Path,
    game: str,
    setup: list[dict[str, Any]],
    tops: list[str],
    family: dict[int, Family] | None = None,
    confidence: dict[str, float] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[Tablet, int]:
    """A ``game`` with ``setup`` typed, then the camera sees ``tops`` (8 frames each);
    ``family``: frame index -> what the family types before the camera sees that frame."""
    ids: list[Any] = []
    hooks = {i: (lambda act=act: act(*ids)) for i, act in (family or {}).items()}
    pile = Pile(tops, before=hooks, confidence=confidence)
    app = make_app(tmp_path, referee_source=lambda: pile, referee_detector=lambda g: pile.detect)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    players = ["Ana", "Bea", "Cal"] if game == "hit-the-deck" else ["Ana", "Bea"]
    made = tablet.post("/api/games", {"game": game, "players": players, "options": options or {}})
    game_id = made.json["id"]
    for event in setup:
        assert tablet.send(game_id, event).status_code == 201
    ids += [tablet, game_id]
    watch_to_the_end(tablet)
    return tablet, game_id


def typed(event: dict[str, Any]) -> Family:
    def act(tablet: Tablet, game_id: int) -> None:
        verdicts = tablet.send(game_id, event).json["verdicts"]
        assert all(v["outcome"] != "illegal" for v in verdicts), verdicts

    return act


def plays(tablet: Tablet, game_id: int) -> list[tuple[str, Any, Any, bool]]:
    """The camera's events: kind, seat, card, and whether the rules took it (not illegal)."""
    return [
        (
            item["event"]["kind"],
            item["event"].get("seat"),
            (item["event"].get("payload") or {}).get("card"),
            all(v["outcome"] != "illegal" for v in item["verdicts"]),
        )
        for item in camera_events(tablet, game_id)
    ]


def questions(tablet: Tablet, game_id: int) -> list[str]:
    return [
        q["message"] for q in tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    ]


KEEP2_START = [{"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "KEEP2"}}]
TAKES_KEEP2 = typed({"kind": "draw", "seat": 0, "payload": {"from": "discard", "card": "KEEP2"}})


def test_ruling_tbl14_the_start_card_taken_and_played_back_is_a_play(tmp_path: Path) -> None:
    """DD-18: Ana takes the Keep Two start card and plays it. The camera remembered KEEP2 on
    top and took it for "the top seen again after a missed detection": nothing was logged."""
    tops = ["KEEP2", "EMPTY", "EMPTY", "KEEP2", "KEEP2", "EMPTY", "KEEP2", "KEEP2"]
    tablet, game_id = watched(tmp_path, "deck-dash", KEEP2_START, tops, {8: TAKES_KEEP2})
    # once: the same card lost for a moment and seen again where it lay is still no new play
    assert plays(tablet, game_id) == [("play", 0, "KEEP2", True)]
    assert questions(tablet, game_id) == []


def test_a_start_card_still_lying_there_when_its_draw_is_typed_is_not_played(
    tmp_path: Path,
) -> None:
    """The draw typed before Ana picks the card up: the camera still sees it, proposes
    nothing, and logs the play once it is picked up and laid again."""
    tops = ["KEEP2", "KEEP2", "KEEP2", "EMPTY", "KEEP2", "KEEP2"]
    tablet, game_id = watched(tmp_path, "deck-dash", KEEP2_START, tops, {8: TAKES_KEEP2})
    assert plays(tablet, game_id) == [("play", 0, "KEEP2", True)]


def _turns_to_an_empty_draw_pile(tablet: Tablet, game_id: int) -> None:
    """103 turns typed (draw, discard) empty the draw pile; the last discard is an R7."""
    left = Counter(format_cards(full_deck()))
    left["G7"] -= 1
    left["R7"] -= 2
    for special in ("KEEP2", "D2D1", "D4D3", "SKIP", "SKIP2", "BLOCK"):
        left[special] = 0
    for i, card in enumerate([*list(left.elements())[:102], "R7"]):
        typed({"kind": "draw", "seat": i % 2})(tablet, game_id)
        typed({"kind": "discard", "seat": i % 2, "payload": {"card": card}})(tablet, game_id)


def test_ruling_tbl14_the_first_discard_after_a_reshuffle_may_have_the_old_tops_face(
    tmp_path: Path,
) -> None:
    """DD-7: the discard pile becomes the draw pile; Bea's R7, laid where the last R7 lay,
    was taken for the old top seen again and not logged."""
    start = [{"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}}]
    family = {
        8: _turns_to_an_empty_draw_pile,
        16: typed({"kind": "reshuffle"}),
        24: typed({"kind": "draw", "seat": 1}),
    }
    tops = ["G7", "R7", "EMPTY", "R7", "R7"]
    tablet, game_id = watched(tmp_path, "deck-dash", start, tops, family)
    assert plays(tablet, game_id) == [("discard", 1, "R7", True)]
    assert tablet.snapshot(game_id)["view"]["round"]["discard"] == ["R7"]


def test_ruling_tbl3_nothing_is_proposed_on_the_deck_dash_pile_between_dashes(
    tmp_path: Path,
) -> None:
    """The next Dash's start card turned up before its deal was typed was "Who played R7?",
    whose accepted answer was stored as an illegal discard. The deal names it; the next
    card is a play as usual."""
    setup = [
        {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}},
        {"kind": "end_dash"},
    ]
    family = {
        32: typed({"kind": "deal", "payload": {"hands": [12, 12], "start": "R7"}}),
        40: typed({"kind": "draw", "seat": 1}),
    }
    tops = ["G7", "EMPTY", "R7", "R7", "R7", "G7", "G7"]
    tablet, game_id = watched(tmp_path, "deck-dash", setup, tops, family, options={"dash_count": 2})
    assert questions(tablet, game_id) == []
    assert plays(tablet, game_id) == [("discard", 1, "G7", True)]


def test_ruling_tbl21_a_pile_question_open_when_the_dash_ends_leaves_the_tablets(
    tmp_path: Path,
) -> None:
    """A question about the pile asked during the Dash, answered after it ended, was refused
    and stored as an illegal event: the game's pile is empty now, the question is closed."""
    setup = [
        {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}},
        {"kind": "draw", "seat": 0},
    ]
    asked: list[list[str]] = []

    def ends(tablet: Tablet, game_id: int) -> None:
        asked.append(questions(tablet, game_id))
        typed({"kind": "end_dash"})(tablet, game_id)

    tablet, game_id = watched(
        tmp_path,
        "deck-dash",
        setup,
        ["G7", "R7", "R7"],
        {16: ends},
        confidence={"R7": 0.4},
        options={"dash_count": 2},
    )
    assert asked == [["Is the card on the pile R7?"]]
    assert questions(tablet, game_id) == []


def test_ruling_tbl21_a_misread_question_on_a_pile_the_game_emptied_keeps_only_its_correction(
    tmp_path: Path,
) -> None:
    """Its one-tap overrule still corrects the logged play in place; its "R9 was played on
    R7" answer would land on the emptied pile, so only that answer goes."""
    tablet, game_id = g7_r7_g7_watched(tmp_path, tops=("G7", "R7"))
    referee = tablet.services.referee
    overrule = ask_r9_misread(referee)  # the one-tap correction it offers
    typed({"kind": "end_dash"})(tablet, game_id)
    (left,) = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    assert left["suggestion"] == overrule and left["choices"] == ["overrule", "keep"]
    assert left["message"].endswith("(The pile is empty now.)")


HTD_DEAL = [{"kind": "deal", "payload": {"hands": [7, 7, 7]}}]


def test_ruling_tbl3_hit_the_decks_first_card_is_turned_up_not_played(tmp_path: Path) -> None:
    """The game waits for the deal's card turned up while its view has Bea on turn: the card
    was logged as Bea's play, refused."""
    tablet, game_id = watched(tmp_path, "hit-the-deck", HTD_DEAL, ["EMPTY", "R3", "R3"])
    assert plays(tablet, game_id) == [("turn_up", None, "R3", True)]


def test_ruling_tbl3_a_hand_card_turned_up_again_after_its_shuffle_is_turned_up(
    tmp_path: Path,
) -> None:
    """A Hand card can't start the pile: it goes back and the draw pile is shuffled, leaving
    the pile empty although the game's top never showed the Hand card. The next Hand card
    turned up was taken for it seen again."""
    shuffles = typed({"kind": "shuffle"})
    tops = ["EMPTY", "HAND", "EMPTY", "EMPTY", "HAND", "HAND"]
    tablet, game_id = watched(tmp_path, "hit-the-deck", HTD_DEAL, tops, {24: shuffles})
    assert plays(tablet, game_id) == [
        ("turn_up", None, "HAND", True),
        ("turn_up", None, "HAND", True),
    ]
    assert tablet.snapshot(game_id)["view"]["need"] == "shuffle"


def test_note_empty_forgets_the_top_and_only_then() -> None:
    """The mapper alone: the top seen again after the pile read empty is no play (TBL-14),
    unless the game said the pile is empty."""
    mapper = EventMapper("deck-dash", layout())
    mapper.note_top("discard_1", "R7")
    assert mapper.propose(obs("discard_1", ["R7"], []), seat=0) == []
    assert mapper.propose(obs("discard_1", [], ["R7"]), seat=0) == []
    mapper.note_empty("discard_1")
    (event,) = mapper.propose(obs("discard_1", [], ["R7"]), seat=0)
    assert isinstance(event, Event) and (event.kind, event.seat) == ("discard", 0)


def test_ruling_tbl17_cards_put_in_a_seat_area_between_dashes_are_no_lay() -> None:
    """The Dash is over: Bea puts her hand down in front of her to count its points. No Dash
    is being played, so that is no lay (its answer would be refused and stored as illegal);
    once a Dash is dealt, cards there are a lay again."""
    m = EventMapper("deck-dash", layout())
    m.note_view({"round": None, "players": ["Ana", "Bea"]})
    assert m.propose(obs("seat_1_area", [], ["R7", "G7", "B7"]), seat=None) == []
    m.note_view(
        {"round": {"dash": 1, "turn": 1, "laid": [False, False]}, "players": ["Ana", "Bea"]}
    )
    (event,) = m.propose(obs("seat_1_area", [], ["R7", "G7", "B7"]), seat=1)
    assert event.kind == "lay"
