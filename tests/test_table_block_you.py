"""TBL-11: a Block You put in front of a player is a discard aimed at them, not a lay.

Deck Dash: "place the Block You card … in front of the player you've chosen to block
instead of placing it on the discard pile". In front of a player is that seat's area, which
the camera reads for Dashes and handoffs (TBL-4).
"""

from __future__ import annotations

from referee.deckdash.game import GAME
from tests.test_deckdash_game import Table
from tests.test_table_events import WEB_DOC, obs
from vision.table.to_events import EventMapper, Prompt
from vision.table.zones import TableLayout
from web.services.referee_camera import seat_areas


def layout() -> TableLayout:
    """The test table with an area in front of each of three seats."""
    areas = [
        {
            "name": f"seat_{seat}_area",
            "kind": "seat_area",
            "seat": seat,
            "index": None,
            "bar": None,
            "points": [
                [0.3 * seat, 0.7],
                [0.3 * seat + 0.25, 0.7],
                [0.3 * seat + 0.25, 1.0],
                [0.3 * seat, 1.0],
            ],
        }
        for seat in (0, 2)
    ]
    return TableLayout.from_dict({**WEB_DOC, "zones": [*WEB_DOC["zones"], *areas]})


def _blocked_by_the_camera() -> tuple[Table, EventMapper]:
    """Ann (seat 0) puts her Block You in front of Cy (seat 2); the camera's event is sent."""
    table = Table(3)
    table.deal({0: "BLOCK"}, dealer=2)
    table.ok("draw", 0)
    mapper = EventMapper("deck-dash", layout())
    (event,) = mapper.propose(obs("seat_2_area", [], ["BLOCK"], t=77), seat=0)
    assert (event.kind, event.seat, dict(event.payload), event.t_ns) == (
        "discard",
        0,
        {"card": "BLOCK", "target": 2},
        77,
    )
    table.ok(event.kind, event.seat, **event.payload)
    return table, mapper


def test_ruling_tbl11_a_block_you_in_front_of_a_player_blocks_them():
    """Before, the card in Cy's empty area was read as Cy laying a Dash of one card (refused
    by the rules: not Cy's turn), and the block was never recorded."""
    table, _ = _blocked_by_the_camera()
    assert table.rnd.blocks == {2}


def test_ruling_tbl11_the_block_returned_to_the_pile_ends_it():
    table, mapper = _blocked_by_the_camera()
    table.pass_turn(1)
    # Cy takes the card from in front of them (nothing to referee) and puts it on the pile
    assert mapper.propose(obs("seat_2_area", ["BLOCK"], []), seat=2) == []
    (event,) = mapper.propose(obs("discard_1", ["R12"], ["BLOCK"]), seat=2)
    table.ok(event.kind, event.seat, **event.payload)
    assert table.rnd.blocks == set() and table.rnd.turn == 0


def test_ruling_tbl11_a_block_beside_a_laid_dash_is_not_a_handoff():
    """Before, a Block You put beside Cy's laid Dash became "handed off BLOCK: onto which
    group?"."""
    mapper = EventMapper("deck-dash", layout())
    mapper.note_area("seat_2_area", ["R1", "Y1"])
    (event,) = mapper.propose(obs("seat_2_area", ["R1", "Y1"], ["BLOCK", "R1", "Y1"]), seat=1)
    assert (event.kind, event.seat, dict(event.payload)) == (
        "discard",
        1,
        {"card": "BLOCK", "target": 2},
    )


def test_ruling_tbl11_unsure_or_self_blocking_is_asked():
    mapper = EventMapper("deck-dash", layout())
    (low,) = mapper.propose(obs("seat_2_area", [], ["BLOCK"], conf=0.4), seat=0)
    (own,) = mapper.propose(obs("seat_1_area", [], ["BLOCK"]), seat=1)
    (nobody,) = mapper.propose(obs("seat_0_area", [], ["BLOCK"]), seat=None)
    for prompt in (low, own, nobody):
        assert isinstance(prompt, Prompt) and prompt.kind == "confirm_card"
        assert prompt.suggestion.kind == "discard"
    assert low.message == "Did seat 0 put a Block You in front of seat 2?"
    assert nobody.message == "Did someone put a Block You in front of seat 0?"


def test_ruling_tbl11_a_block_the_game_knows_is_not_played_again():
    """After a restart (or the block typed on the tablet) the Block You lying in front of
    Cy is the game's: seeing it proposes nothing."""
    table, _ = _blocked_by_the_camera()
    areas = [("seat_0_area", 0), ("seat_2_area", 2)]
    known = seat_areas("deck-dash", GAME.view(table.state), areas)
    assert known == {"seat_0_area": (), "seat_2_area": ("BLOCK",)}
    fresh = EventMapper("deck-dash", layout())
    fresh.note_area("seat_2_area", known["seat_2_area"])
    assert fresh.propose(obs("seat_2_area", [], ["BLOCK"]), seat=1) == []
