"""DOS notation, deck, set-up, scripted deals and the Game interface."""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from pathlib import Path

import pytest

from referee.dos.cards import (
    CardParseError,
    Color,
    DosCard,
    Symbol,
    action,
    format_card,
    matches,
    number,
    parse_card,
    parse_cards,
)
from referee.dos.deck import ACTIONS_PER_COLOR, COPIES_PER_NUMBER, full_deck
from referee.dos.game import GAME
from referee.events import Event, EventError
from referee.game import GameError
from referee.registry import find_game
from referee.verdicts import Outcome

PLAYERS = ["Ann", "Bea", "Cal"]
EXAMPLE = Path(__file__).parent / "data" / "dos-example.jsonl"


def _scripted_deal(seed: int, players: int = 3, size: int = 14) -> tuple[Event, list[str]]:
    cards = [format_card(c) for c in full_deck()]
    random.Random(seed).shuffle(cards)
    hands = [cards[i * size : (i + 1) * size] for i in range(players)]
    rest = cards[players * size :]
    payload = {"hands": hands, "piles": rest[:2], "stock": rest[2:]}
    return Event("deal", payload=payload), rest[2:]


def test_notation_round_trips_and_aliases() -> None:
    assert parse_card("r7") is number(Color.RED, 7)
    assert parse_card(" gskip ") is action(Color.GREEN, Symbol.SKIP)
    assert parse_card("B+4") is parse_card("BD4") is parse_card("b-draw4")
    assert parse_card("YS") is parse_card("YSKIP")
    assert parse_card("RREVERSE") is parse_card("RREV")
    assert parse_cards("R0, G10 BD2") == [
        number(Color.RED, 0),
        number(Color.GREEN, 10),
        action(Color.BLUE, Symbol.DRAW_TWO),
    ]
    for card in full_deck("1-10") + full_deck("0-9"):
        assert parse_card(format_card(card)) is card
    assert parse_card("BD4").words == "blue Draw Four"


@pytest.mark.parametrize("token", ["", "7", "X7", "R", "R11", "R07", "RSKIPPY", "W", 7, None])
def test_bad_tokens_are_event_errors(token: object) -> None:
    with pytest.raises(EventError):
        parse_card(token)
    with pytest.raises(CardParseError):
        parse_card(token)


def test_cards_are_shared_values() -> None:
    card = DosCard(Color.YELLOW, number=3)
    assert card is number(Color.YELLOW, 3) == parse_card("Y3")
    assert pickle.loads(pickle.dumps(card)) is card
    assert sorted([parse_card("Y3"), parse_card("R9"), parse_card("RSKIP")])[0] is parse_card(
        "RSKIP"
    )
    with pytest.raises(ValueError):
        DosCard(Color.RED)
    with pytest.raises(ValueError):
        DosCard(Color.RED, number=1, symbol=Symbol.SKIP)


def test_matching_colour_face_and_draw_four() -> None:
    top = parse_card("R7")
    assert matches(parse_card("R1"), top)
    assert matches(parse_card("G7"), top)
    assert not matches(parse_card("G1"), top)
    assert matches(parse_card("GD4"), top)
    assert matches(parse_card("GSKIP"), parse_card("BSKIP"))
    assert not matches(parse_card("GSKIP"), parse_card("BREV"))
    assert matches(parse_card("YD4"), parse_card("BD4"))


def test_ruling_dos2_deck_composition_is_data() -> None:
    deck = full_deck()
    assert len(deck) == 300  # 4 colours x (3 + 4 + 4 + 4 action cards + 10 numbers x 6)
    counts = Counter(deck)
    for color in Color:
        for symbol, copies in ACTIONS_PER_COLOR.items():
            assert counts[action(color, symbol)] == copies
        numbers = {c.number for c in counts if c.color is color and c.is_number}
        assert numbers == set(range(1, 11))
        assert all(counts[number(color, n)] == COPIES_PER_NUMBER for n in numbers)
    assert len(full_deck("1-9")) == 4 * (15 + 54)
    assert len(full_deck("0-9")) == 300
    assert GAME.new_state(PLAYERS, {}).options["numbers"] == "1-10"
    deal = Event("deal", payload={"hands": [14] * 3, "piles": ["R10", "G2"]})
    state = GAME.new_state(PLAYERS, {"numbers": "0-9"})
    _, verdicts = GAME.apply(state, deal)
    assert verdicts[0].outcome is Outcome.ILLEGAL and "no red 10" in verdicts[0].reason


def test_ruling_dos18_two_to_eight_players_and_options() -> None:
    assert (GAME.min_players, GAME.max_players) == (2, 8)
    GAME.new_state(["A", "B"], {})
    GAME.new_state([f"P{i}" for i in range(8)], {})
    with pytest.raises(GameError):
        GAME.new_state(["A"], {})
    with pytest.raises(GameError):
        GAME.new_state([f"P{i}" for i in range(9)], {})
    with pytest.raises(GameError):
        GAME.new_state(PLAYERS, {"hand_size": 0})
    with pytest.raises(GameError):
        GAME.new_state(PLAYERS, {"numbers": "2-12"})
    with pytest.raises(GameError):
        GAME.new_state(PLAYERS, {"rounds": 0})
    with pytest.raises(GameError):
        GAME.new_state([f"P{i}" for i in range(8)], {"hand_size": 40})
    assert all(spec.ruling and spec.ruling.startswith("DOS-") for spec in GAME.options())


def test_registry_finds_dos() -> None:
    assert find_game("dos") is GAME
    assert GAME.name == "dos" and GAME.title == "DOS"


def test_every_event_kind_has_a_manual_form() -> None:
    kinds = GAME.event_kinds()
    assert set(kinds) == {
        "deal",
        "play",
        "draw",
        "end_turn",
        "counter",
        "take_four",
        "call",
        "callout",
        "reshuffle",
    }
    assert all(isinstance(text, str) and len(text) > 20 for text in kinds.values())
    state = GAME.new_state(PLAYERS, {})
    for kind in kinds:  # every kind is understood (never "no event")
        try:
            GAME.apply(state, Event(kind, 0))
        except EventError as exc:
            assert "has no event" not in str(exc)


def test_scripted_deal_must_be_the_whole_deck() -> None:
    state = GAME.new_state(PLAYERS, {})
    deal, _ = _scripted_deal(1)
    short = dict(deal.payload, stock=deal.payload["stock"][:-1])
    _, verdicts = GAME.apply(state, Event("deal", payload=short))
    assert verdicts[0].outcome is Outcome.ILLEGAL and "whole deck of 300" in verdicts[0].reason
    extra = dict(deal.payload, stock=[*deal.payload["stock"][:-1], "R7"])
    _, verdicts = GAME.apply(state, Event("deal", payload=extra))
    assert verdicts[0].outcome is Outcome.ILLEGAL
    new, verdicts = GAME.apply(state, deal)
    assert verdicts[0].outcome is Outcome.LEGAL
    assert GAME.view(new)["draw_pile"] == 300 - 44


def _arranged_deal(
    chosen: list[list[str]], piles: list[str], stock_top: list[str], size: int = 14
) -> Event:
    """A whole-deck deal with some cards placed; the rest fill hands and stock in order."""
    pool = Counter(format_card(c) for c in full_deck())
    for token in [*(t for hand in chosen for t in hand), *piles, *stock_top]:
        pool[token] -= 1
        assert pool[token] >= 0
    rest = sorted(pool.elements())
    hands = []
    for hand in chosen:
        need = size - len(hand)
        hands.append(hand + rest[:need])
        rest = rest[need:]
    return Event("deal", payload={"hands": hands, "piles": piles, "stock": stock_top + rest})


def test_ruling_dos21_penalty_draws_come_off_the_top_of_the_draw_pile() -> None:
    """In scripted mode the referee knows exactly which cards a penalty hands out."""
    deal = _arranged_deal([["RD2", "Y2"], [], []], ["R7", "G2"], ["B5", "G9", "Y1"])
    state, _ = GAME.apply(GAME.new_state(PLAYERS, {}), deal)
    state, _ = GAME.apply(state, Event("play", 0, {"card": "RD2", "pile": "left"}))
    state, verdicts = GAME.apply(state, Event("play", 0, {"card": "Y2", "pile": "right"}))
    penalty = [v for v in verdicts if v.reason.startswith("Bea draws 2")]
    assert penalty and penalty[0].data["cards"] == ["B5", "G9"]
    assert state.hands[1].known[-2:] == (parse_card("B5"), parse_card("G9"))
    assert state.stock.known[0] is parse_card("Y1")
    assert GAME.view(state)["draw_pile"] == 300 - 44 - 2


def test_scripted_draw_must_name_the_top_card() -> None:
    deal = _arranged_deal([["Y2"], [], []], ["R7", "G2"], ["B5"])
    state, _ = GAME.apply(GAME.new_state(PLAYERS, {}), deal)
    same, verdicts = GAME.apply(state, Event("draw", 0, {"pile": "left", "card": "G9"}))
    assert same is state and "top card of the draw pile is blue 5" in verdicts[0].reason
    state, verdicts = GAME.apply(state, Event("draw", 0, {"pile": "left", "card": "B5"}))
    assert verdicts[0].outcome is Outcome.LEGAL


def test_view_and_scoreboard_are_json() -> None:
    state = GAME.new_state(PLAYERS, {})
    json.dumps(GAME.view(state))
    deal, _ = _scripted_deal(3)
    state, _ = GAME.apply(state, deal)
    view = GAME.view(state)
    json.dumps(view)
    json.dumps(GAME.scoreboard(state).to_dict())
    assert view["turn"] == 0 and [p["cards"] for p in view["players"]] == [14, 14, 14]
    assert GAME.scoreboard(state).lower_is_better


def test_tabletop_replay_prints_the_example_game(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    assert main(["replay", str(EXAMPLE), "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "dos"
    assert out["scoreboard"]["finished"] and out["scoreboard"]["winners"] == [0]
    assert out["scoreboard"]["totals"] == [0, 4, 4]
    assert [v["outcome"] for v in out["verdicts"]][-2:] == ["round_end", "game_end"]
    assert not [v for v in out["verdicts"] if v["outcome"] == "illegal"]


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (Event("deal", payload={"piles": ["R7", "G2"]}), "needs field 'hands'"),
        (Event("deal", payload={"hands": [5, 5], "piles": ["R7", "G2"]}), "must list 3 hands"),
        (Event("deal", payload={"hands": [5, 5, -1], "piles": ["R7", "G2"]}), "negative"),
        (Event("deal", payload={"hands": [5, 5, {}], "piles": ["R7", "G2"]}), "list of cards"),
        # a count beyond any deck: 2**70 used to end in OverflowError when the pile was counted
        (Event("deal", payload={"hands": [5, 5, 301], "piles": ["R7", "G2"]}), "more than a DOS"),
        (
            Event("deal", payload={"hands": [5, 5, 5], "piles": ["R7", "G2"], "stock": 2**70}),
            "stock: 1180591620717411303424 cards is more than a DOS deck has",
        ),
        (Event("deal", payload={"hands": [5, 5, 5], "piles": ["R7"]}), "two face-up cards"),
        (Event("deal", payload={"hands": [5] * 3, "piles": ["R7", "G2"], "dealer": 3}), "dealer"),
        (Event("play", payload={"card": "R7", "pile": "left"}), "needs the seat"),
        (Event("draw", 0, {"pile": 2}), "'pile' must be"),
        (Event("draw", 0, {"pile": True}), "'pile' must be"),
        (Event("callout", 0, {"target": "Bea"}), "'target' must be a seat"),
        (Event("counter", 0, {"card": "BSKP"}), "bad DOS card"),
    ],
)
def test_malformed_events_raise_event_errors(event: Event, words: str) -> None:
    state = GAME.new_state(PLAYERS, {"hand_size": 5})
    with pytest.raises(EventError, match=words):
        GAME.apply(state, event)


def test_table_mode_reshuffle_without_naming_the_cards() -> None:
    state = GAME.new_state(PLAYERS, {"hand_size": 3})
    deal = Event("deal", payload={"hands": [3, 3, 3], "piles": ["R7", "G2"], "stock": 1})
    state, _ = GAME.apply(state, deal)
    state, _ = GAME.apply(state, Event("play", 0, {"card": "R1", "pile": "left"}))
    state, verdicts = GAME.apply(state, Event("draw", 0, {"pile": "right"}))
    assert any("draw pile is empty" in v.reason for v in verdicts)
    state, _ = GAME.apply(state, Event("end_turn", 0))
    same, verdicts = GAME.apply(state, Event("reshuffle", payload={"stock": 2}))
    assert same is state and "the 1 card under the top cards" in verdicts[0].reason
    state, verdicts = GAME.apply(state, Event("reshuffle"))
    assert verdicts[0].outcome is Outcome.LEGAL
    view = GAME.view(state)
    assert view["draw_pile"] == 1 and [p["cards"] for p in view["piles"]] == [1, 1]
    state, verdicts = GAME.apply(state, Event("draw", 1, {"pile": "left"}))
    assert verdicts[0].reason == "Bea draws a card for the left pile."


def test_undo_and_overrule_through_the_generic_replay() -> None:
    from referee.replay import replay

    hands = [["R1", "G5", "B9"], ["B1", "B2", "Y7"], 3]
    deal = Event("deal", payload={"hands": hands, "piles": ["R7", "G2"]})
    fixed = Event("play", 0, {"card": "G5", "pile": "right"}).to_dict()
    log = [
        (1, deal),
        (2, Event("play", 0, {"card": "B9", "pile": "right"})),  # a misread: B9 is refused
        (3, Event("overrule", payload={"target": 2, "event": fixed})),
        (4, Event("play", 0, {"card": "R1", "pile": "left"})),
        (5, Event("undo", payload={"target": 4})),
    ]
    result = replay(GAME, PLAYERS, {"hand_size": 3}, log)
    view = GAME.view(result.state)
    assert [p["top"] for p in view["piles"]] == ["R7", "G5"]
    assert view["players"][0]["cards"] == 2 and view["turn"] == 0
    assert result.disregarded == {4}
