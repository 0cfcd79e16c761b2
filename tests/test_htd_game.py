"""Hit the Deck: card notation, the deck (HTD-1), the Game protocol and malformed events."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.cards import CardParseError
from referee.cli import main as tabletop
from referee.events import Event, EventError
from referee.game import GameError
from referee.hitthedeck.cards import HtdCard, Type, format_card, parse_card, parse_cards
from referee.hitthedeck.deck import composition, composition_from, deck_size, full_deck
from referee.hitthedeck.engine import HANDLERS
from referee.hitthedeck.game import GAME
from referee.hitthedeck.rules import hand_points
from referee.registry import find_game
from referee.replay_cli import replay_file
from referee.verdicts import Outcome
from tests.test_htd_scenarios import DATA

EXAMPLE = DATA.parent / "hit-the-deck-example.jsonl"


def _scripted_deal(seed: int, players: int = 3) -> tuple[list[list[str]], list[str]]:
    deck = [format_card(c) for c in full_deck()]
    random.Random(seed).shuffle(deck)
    hands = [deck[i * 7 : (i + 1) * 7] for i in range(players)]
    return hands, deck[players * 7 :]


# -- notation ---------------------------------------------------------------------------------
def test_every_card_of_the_deck_round_trips_through_its_token() -> None:
    for card in set(full_deck()):
        assert parse_card(format_card(card)) is card


def test_tokens_are_case_and_dash_insensitive() -> None:
    assert parse_card("r-cut") is parse_card("RCUT")
    assert parse_card(" hit_3 ") is HtdCard(Type.HIT_NUMBER, number=3)
    assert parse_card("hitb").type is Type.HIT_COLOR
    assert parse_cards("R1, g2 HAND") == [parse_card("R1"), parse_card("G2"), parse_card("HAND")]


@pytest.mark.parametrize("token", ["", "X1", "R0", "R10", "HIT", "HITX", "HIT0", "RSKIP", "W"])
def test_bad_tokens_are_refused_with_the_token_named(token: str) -> None:
    with pytest.raises(CardParseError) as err:
        parse_card(token)
    assert repr(token) in str(err.value)


def test_card_points_numbers_face_value_others_ten() -> None:
    assert hand_points(parse_cards("R1 Y5 B3")) == 9
    assert hand_points(parse_cards("RCUT GFLIP HIT2 HITY HAND")) == 50


# -- the deck (HTD-1) -------------------------------------------------------------------------
def test_ruling_htd1_deck_composition() -> None:
    deck = composition()
    assert deck_size() == len(full_deck()) == 110
    by_type = Counter()
    for card, n in deck.items():
        by_type[card.type] += n
    assert by_type == {
        Type.NUMBER: 80,  # 4 colours × numbers 1–5 × 4 copies
        Type.CUT: 8,
        Type.FLIP: 4,
        Type.HIT_NUMBER: 10,
        Type.HIT_COLOR: 4,
        Type.HAND: 4,
    }
    assert deck[parse_card("G3")] == 4
    assert all(deck[HtdCard(Type.HIT_NUMBER, number=n)] == 2 for n in range(1, 6))


def test_ruling_htd1_deck_file_is_editable_data() -> None:
    data = {
        "colors": ["R", "B"],
        "per_color": {"numbers": [1, 2], "copies_of_each_number": 1, "CUT": 1, "FLIP": 0},
        "extra": {"HAND": 2},
    }
    deck = composition_from(data)
    assert sum(deck.values()) == 8
    assert parse_card("RFLIP") not in deck


def test_ruling_htd1_strict_deal_must_be_the_deck() -> None:
    hands, draw = _scripted_deal(1)
    state = GAME.new_state(["A", "B", "C"], {})
    ok, verdicts = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": draw}))
    assert verdicts[0].outcome is Outcome.LEGAL
    assert ok.draw[0] is parse_card(draw[0]) and len(ok.draw) == 89
    bad_draw = ["R7", *draw[1:]]  # a 7 is not in the deck (numbers 1–5)
    same, verdicts = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": bad_draw}))
    assert same is state
    assert verdicts[0].outcome is Outcome.ILLEGAL
    assert "more of these cards than the deck holds: 1 × R7" in verdicts[0].reason
    short, verdicts = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": draw[1:]}))
    assert short is state and "110 cards but 109" in verdicts[0].reason
    five = ["HAND"] * 5 + draw[5:]
    _, verdicts = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": five}))
    assert "than the deck holds" in verdicts[0].reason and "HAND" in verdicts[0].reason


# -- the Game protocol ------------------------------------------------------------------------
def test_registry_finds_hit_the_deck() -> None:
    assert find_game("hit-the-deck") is GAME
    assert find_game("Hit the Deck") is GAME


def test_every_event_kind_has_a_manual_form() -> None:
    assert set(GAME.event_kinds()) == set(HANDLERS)
    assert all(text for text in GAME.event_kinds().values())


def test_every_option_names_a_ruling() -> None:
    assert all(spec.ruling and spec.ruling.startswith("HTD-") for spec in GAME.options())


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (["A"], {}, "2–6 players"),
        (["A", "B", "C", "D", "E", "F", "G"], {}, "2–6 players"),
        (["A", "B"], {"race_tie": "coin"}, "race_tie"),
        (["A", "B"], {"target_score": 0}, "target_score"),
        (["A", "B"], {"early_lockout_ms": -1}, "early_lockout_ms"),
        (["A", "B"], {"must_play_if_able": "yes"}, "must_play_if_able"),
        (["A", "B"], {"deck": "big"}, "unknown option"),
    ],
)
def test_bad_set_up_is_a_game_error(players: list[str], options: dict, message: str) -> None:
    with pytest.raises(GameError, match=message):
        GAME.new_state(players, options)


def test_view_and_scoreboard_are_json() -> None:
    hands, draw = _scripted_deal(2)
    state = GAME.new_state(["A", "B", "C"], {})
    state, _ = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": draw}))
    state, _ = GAME.apply(state, Event("turn_up"))
    view = json.loads(json.dumps(GAME.view(state)))
    assert view["hand_sizes"] == [7, 7, 7] and view["draw_count"] == 88
    assert view["top"] == draw[0] or view["need"] == "shuffle"
    board = json.loads(json.dumps(GAME.scoreboard(state).to_dict()))
    assert board["game"] == "hit-the-deck" and board["lower_is_better"] is True


# -- malformed events → EventError (nothing stored, the state is untouched) --------------------
@pytest.mark.parametrize(
    ("event", "message"),
    [
        (Event("wash"), "unknown event kind 'wash'"),
        (Event("play", seat=1), "needs field 'card'"),
        (Event("play", seat=1, payload={"card": "R9X"}), "bad card 'R9X'"),
        (Event("play", payload={"card": "R1"}), "needs a seat"),
        (Event("play", seat=5, payload={"card": "R1"}), "seat 5 is not at this table"),
        (Event("play", seat=1, payload={"card": "HAND", "yelled": "no"}), "'yelled'"),
        (Event("slap", seat=0), "a slap needs t_ns"),
        (Event("cut", seat=1, payload={"at": -2}), "'at' must be an integer"),
        (Event("race_close", payload={"last": [9]}), "'last' must be a list of seats"),
        (Event("hand", seat=0, payload={"cards": ["R1"], "points": 1}), "either 'cards'"),
        (Event("deal", payload={"hands": [[], []]}), "'hands' must list 3 hands"),
        (Event("deal", payload={"hands": ["R1", 7, 7]}), "hand 0 must be a list"),
        (Event("shuffle", payload={"draw": "R1"}), "draw must be a list"),
    ],
)
def test_malformed_events_raise_event_error(event: Event, message: str) -> None:
    hands, draw = _scripted_deal(3)
    state = GAME.new_state(["A", "B", "C"], {})
    state, _ = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": draw}))
    if event.kind == "shuffle":  # only reached when a shuffle is due: use a Hand start card
        start = GAME.new_state(["A", "B", "C"], {})
        i = draw.index("HAND")
        lead = [draw[i], *draw[:i], *draw[i + 1 :]]
        state, _ = GAME.apply(start, Event("deal", payload={"hands": hands, "draw": lead}))
        state, verdicts = GAME.apply(state, Event("turn_up"))
        assert state.need is not None and state.need.value == "shuffle", verdicts
    with pytest.raises(EventError, match=message):
        GAME.apply(state, event)


@pytest.mark.parametrize("count", [deck_size() + 1, 10**9, 2**70])
def test_a_pile_counted_beyond_the_deck_is_malformed_not_built(count: int) -> None:
    """A count of unseen cards becomes that many placeholders: one larger than the deck is
    refused before a 10**9-card pile fills the memory (2**70 used to raise OverflowError)."""
    state = GAME.new_state(["A", "B", "C"], {})
    for payload in ({"hands": [7, 7, 7], "draw": count}, {"hands": [7, count, 7]}):
        with pytest.raises(EventError, match=f"cannot hold {count} cards: the deck has"):
            GAME.apply(state, Event("deal", payload=payload))


def test_an_illegal_event_returns_the_very_same_state() -> None:
    hands, draw = _scripted_deal(4)
    state = GAME.new_state(["A", "B", "C"], {})
    state, _ = GAME.apply(state, Event("deal", payload={"hands": hands, "draw": draw}))
    same, verdicts = GAME.apply(state, Event("play", seat=2, payload={"card": hands[2][0]}))
    assert same is state
    assert [v.outcome for v in verdicts] == [Outcome.ILLEGAL]
    assert "turn up the top card" in verdicts[0].reason


# -- replay -----------------------------------------------------------------------------------
def test_example_log_replays_to_a_finished_game() -> None:
    out = replay_file(EXAMPLE)
    board = out["scoreboard"]
    assert board["finished"] and board["winners"] == board["leaders"]
    assert board["totals"] == [sum(r[i] for r in board["rounds"]) for i in range(3)]
    outcomes = Counter(v["outcome"] for v in out["verdicts"])
    assert outcomes["illegal"] == 0 and outcomes["round_end"] == len(board["rounds"])
    assert any(v.get("data", {}).get("penalty") == "last_slap" for v in out["verdicts"])


def test_tabletop_replay_command_prints_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert tabletop(["replay", str(EXAMPLE), "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "hit-the-deck" and out["scoreboard"]["finished"] is True
