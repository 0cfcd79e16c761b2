"""Wash Dash rules engine: setup, rounds, game end, tie-breaks, errors, deck, replay CLI."""

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from referee.cli import main
from referee.events import Event, EventError
from referee.game import GameError
from referee.registry import find_game
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.checker import example_dryer
from referee.washdash.deck import DeckError, default_deck, parse_deck
from referee.washdash.game import GAME
from referee.washdash.pieces import EventCard
from referee.washdash.state import CARDS_PER_ROUND, WashDashState, totals, winners

DECK = default_deck()
EXAMPLE = Path(__file__).parent / "data" / "wash-dash-example.jsonl"
TASKS = list(DECK.task_ids)
EVENTS = list(DECK.event_ids)


def names(n):
    return [f"P{i}" for i in range(n)]


def play(n, events, options=None):
    return replay(GAME, names(n), options or {}, events)


def solved(card, events=()):
    return example_dryer(DECK[card].task, events).to_dict()


def test_registered_under_its_name():
    assert find_game("wash-dash") is GAME
    assert (GAME.min_players, GAME.max_players) == (2, 6)


def test_shipped_deck_has_48_tasks_and_two_of_each_event():
    assert len(DECK.task_ids) == 48
    kinds = [DECK[c].event for c in DECK.event_ids]
    assert sorted(k.value for k in kinds) == sorted([e.value for e in EventCard] * 2)
    assert all(
        DECK[c].points == 3 for c in DECK.event_ids if DECK[c].event is EventCard.FIRST_BONUS
    )


def test_ruling_wd5_point_values_follow_the_documented_formula():
    for card in DECK.task_ids:
        g = DECK[card].task.graph()
        wild = "any" in g.pieces + g.pins
        expected = max(1, len(g.pieces) + len(g.pins) - 1 - (1 if wild else 0))
        assert DECK[card].points == expected, card


def test_bad_deck_files_are_refused():
    with pytest.raises(DeckError, match="appears twice"):
        parse_deck({"tasks": [{"id": "A", "points": 1, "task": "pants:red"}] * 2})
    with pytest.raises(DeckError, match="card B"):
        parse_deck(
            {"tasks": [{"id": "B", "points": 1, "task": "pants:red+yellow; dress:yellow+blue"}]}
        )
    with pytest.raises(DeckError, match="points"):
        parse_deck({"tasks": [{"id": "C", "points": -1, "task": "pants:red"}]})
    with pytest.raises(DeckError, match="unknown event card"):
        parse_deck(
            {
                "tasks": [{"id": "D", "points": 1, "task": "pants:red"}],
                "events": [{"id": "E", "points": 0, "event": "double"}],
            }
        )


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_setup_and_cards_per_round_by_player_count(n):
    order = list(DECK.order)
    result = play(n, [Event("setup", payload={"order": order}), Event("reveal")])
    view = GAME.view(result.state)
    boxed = 20 if n <= 4 else 0
    assert view["boxed"] == boxed
    assert len(view["table"]) == CARDS_PER_ROUND[n] == {2: 2, 3: 2, 4: 3, 5: 4, 6: 5}[n]
    assert [c["id"] for c in view["table"]] == order[boxed : boxed + CARDS_PER_ROUND[n]]
    assert view["draw_pile"] == 54 - boxed - CARDS_PER_ROUND[n]


def _events_boxed_order(tail_events=()):
    """A full deck order: the events go in the box (or at the very bottom of the pile)."""
    boxed_events = [e for e in EVENTS if e not in tail_events]
    boxed = boxed_events + TASKS[: 20 - len(boxed_events)]
    pile = TASKS[20 - len(boxed_events) :] + list(tail_events)
    return boxed + pile


def test_ruling_wd16_last_round_has_fewer_cards_and_game_ends_on_empty_pile():
    # 4 players: 34 task cards in the pile, 3 per round: 11 rounds and a last one with 1 card
    order = _events_boxed_order()
    events = [Event("setup", payload={"order": order})]
    pile = order[20:]
    expected = [0, 0, 0, 0]
    rounds = 0
    while pile:
        cards, pile = pile[:3], pile[3:]
        events.append(Event("reveal", seat=rounds % 4, payload={"cards": cards}))
        for i, card in enumerate(cards):
            seat = (rounds + i) % 4
            events.append(Event("done", seat=seat, payload={"card": card, "dryer": solved(card)}))
            expected[seat] += DECK[card].points
        rounds += 1
    result = play(4, events)
    assert rounds == 12 and len(order[20:]) % 3 == 1
    board = GAME.scoreboard(result.state)
    assert board.finished and list(board.totals) == expected
    assert [tuple(sum(r[s] for r in board.rounds) for s in range(4))] == [board.totals]
    last = result.steps[-1].verdicts
    assert [v.outcome for v in last][-1] is Outcome.GAME_END
    assert result.steps[-2].event.payload["cards"] == [order[-1]]  # the short last round
    before_last = play(4, events[:-2]).state
    short = Event("reveal", seat=11 % 4, payload={"cards": [order[-1], *TASKS[:2]]})
    state, verdicts = GAME.apply(before_last, short)
    assert state is before_last and verdicts[0].reason == "Reveal 1 card, not 3."
    # nothing more can be revealed
    state, verdicts = GAME.apply(result.state, Event("reveal"))
    assert state is result.state and "game is over" in verdicts[0].reason


def test_ruling_wd9_pile_runs_out_while_drawing_on():
    # 3 players, 32 tasks then two events at the bottom: round 17 reveals only events
    order = _events_boxed_order(tail_events=("opposite-1", "one-handed-1"))
    events = [Event("setup", payload={"order": order})]
    pile = order[20:]
    for r in range(16):
        cards = pile[2 * r : 2 * r + 2]
        events.append(Event("reveal"))
        events.append(
            Event("done", seat=r % 3, payload={"card": cards[0], "dryer": solved(cards[0])})
        )
        events.append(
            Event("done", seat=(r + 1) % 3, payload={"card": cards[1], "dryer": solved(cards[1])})
        )
    events.append(Event("reveal"))
    result = play(3, events)
    outcomes = [v.outcome for v in result.steps[-1].verdicts]
    assert Outcome.ROUND_END in outcomes and outcomes[-1] is Outcome.GAME_END
    assert "nobody scores" in result.steps[-1].verdicts[outcomes.index(Outcome.ROUND_END)].reason
    assert GAME.scoreboard(result.state).finished


def _state(won):
    n = len(won)
    return WashDashState(
        players=tuple(names(n)),
        wrong_done="penalty",
        extra_items="ignore",
        won=tuple(won),
        dryers=(None,) * n,
    )


def test_ruling_wd14_tie_break_fewest_cards_then_shared():
    # T07 = 3 points in one card; T01+T02+T03 = 3 points in three cards; T08 = 3 in one
    state = _state([("T07",), ("T01", "T02", "T03"), ("T08",)])
    assert totals(state, DECK) == (3, 3, 3)
    assert winners(state, DECK) == (0, 2)  # fewest cards, then shared
    # a First bonus card counts as a card: T01 + first-bonus = 4 points in 2 cards
    state = _state([("T01", "first-bonus-1"), ("T32",)])
    assert totals(state, DECK) == (4, 4)
    assert winners(state, DECK) == (1,)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (Event("shuffle"), "unknown Wash Dash event"),
        (Event("done", payload={"card": "T01"}), "needs a seat"),
        (Event("done", seat=9, payload={"card": "T01"}), "not at this table"),
        (Event("done", seat=0, payload={"card": "T99"}), "unknown Wash Dash card"),
        (Event("done", seat=0, payload={"card": "T01", "dryer": {"bars": []}}), "dryer state"),
        (Event("dryer", seat=0, payload={"dryer": "pants:red"}), "dryer state"),
        (Event("setup", payload={"order": ["T01"]}), "each of the 54 cards"),
        (Event("setup", payload={"first": 7}), "'first' must be a seat"),
        (Event("reveal", payload={"cards": "T01"}), "must be a list"),
        (Event("forfeit", seat=0, payload={"card": 5}), "unknown Wash Dash card"),
        (Event("mistake", seat=0, payload={"reason": 5}), "must be text"),
    ],
)
def test_malformed_events_raise_event_error(event, message):
    state = GAME.new_state(names(3), {})
    state, _ = GAME.apply(state, Event("setup"))
    state, _ = GAME.apply(state, Event("reveal", payload={"cards": ["T01", "T02"]}))
    state, _ = GAME.apply(state, Event("done", seat=0, payload={"card": "T01"}))
    with pytest.raises(EventError, match=message):
        GAME.apply(state, event)


def test_events_before_setup_and_round_are_refused():
    state = GAME.new_state(names(3), {})
    _, v = GAME.apply(state, Event("reveal", payload={"cards": ["T01", "T02"]}))
    assert v[0].outcome is Outcome.ILLEGAL and "Set up" in v[0].reason
    state, _ = GAME.apply(state, Event("setup"))
    _, v = GAME.apply(state, Event("done", seat=0, payload={"card": "T01"}))
    assert v[0].outcome is Outcome.ILLEGAL and "No cards" in v[0].reason
    _, v = GAME.apply(state, Event("forfeit", seat=0, payload={"card": "T01"}))
    assert v[0].outcome is Outcome.ILLEGAL


def test_table_mode_needs_named_cards_and_refuses_a_card_seen_twice():
    state = GAME.new_state(names(3), {})
    state, _ = GAME.apply(state, Event("setup"))
    same, v = GAME.apply(state, Event("reveal"))
    assert same is state and "Say which cards" in v[0].reason
    state, _ = GAME.apply(state, Event("reveal", payload={"cards": ["T01", "T02"]}))
    state, _ = GAME.apply(state, Event("done", seat=0, payload={"card": "T01"}))
    state, _ = GAME.apply(state, Event("done", seat=1, payload={"card": "T02"}))
    same, v = GAME.apply(state, Event("reveal", payload={"cards": ["T02", "T03"]}))
    assert same is state and "T02 is already out of the draw pile" in v[0].reason
    same, v = GAME.apply(state, Event("reveal", payload={"cards": ["T03", "T03"]}))
    assert "named twice" in v[0].reason


def test_full_information_reveal_must_match_the_top_of_the_pile():
    order = list(DECK.order)
    state = GAME.new_state(names(3), {})
    state, _ = GAME.apply(state, Event("setup", payload={"order": order}))
    same, v = GAME.apply(state, Event("reveal", payload={"cards": [order[30], order[31]]}))
    assert same is state and "not the top cards" in v[0].reason
    state, v = GAME.apply(state, Event("reveal", payload={"cards": order[20:22]}))
    assert v[0].outcome is Outcome.LEGAL


def test_options_are_validated():
    with pytest.raises(GameError):
        GAME.new_state(names(3), {"wrong_done": "shrug"})
    with pytest.raises(GameError):
        GAME.new_state(names(1), {})


def test_every_event_kind_has_a_manual_form():
    kinds = GAME.event_kinds()
    assert set(kinds) == {"setup", "reveal", "done", "dryer", "mistake", "forfeit"}
    for kind in kinds:
        assert hasattr(GAME, f"_on_{kind}") and kinds[kind]


def test_view_and_scoreboard_are_json():
    result = replay(GAME, ["Ann", "Bob", "Cy"], {}, _example_events())
    view = GAME.view(result.state)
    board = GAME.scoreboard(result.state).to_dict()
    assert json.loads(json.dumps(view)) == view
    assert json.loads(json.dumps(board)) == board
    # the two read-outs agree: the cards each seat holds add up to its total
    assert [sum(DECK[c].points for c in cards) for cards in view["cards"]] == board["totals"]
    assert board["extra"]["cards"] == [len(cards) for cards in view["cards"]]


def _example_events():
    lines = [ln for ln in EXAMPLE.read_text().splitlines()[1:] if ln and not ln.startswith("#")]
    return [Event.from_json(ln) for ln in lines]


def test_example_log_replays_through_the_cli():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["replay", str(EXAMPLE), "--compact"]) == 0
    data = json.loads(out.getvalue())
    board = data["scoreboard"]
    assert data["game"] == "wash-dash" and board["finished"]
    assert board["totals"] == [sum(r[s] for r in board["rounds"]) for s in range(3)]
    assert board["winners"] == [board["totals"].index(max(board["totals"]))]
    assert data["verdicts"][-1]["outcome"] == "game_end"
    assert data["state"]["draw_pile"] == 0 and data["state"]["owed_forfeit"] == []
    # an example game holds no entry the referee refuses (a second mistake for one claim)
    assert [v for v in data["verdicts"] if v["outcome"] == Outcome.ILLEGAL.value] == []


def test_ruling_wd13_between_rounds_the_board_waits_for_the_next_revealer():
    """Once a round is over the table waits for the player to the active player's left;
    the scoreboard's turn (the tablet's "… to play") must name them, not the last revealer."""
    order = _events_boxed_order()
    pile = order[20:]
    events = [Event("setup", payload={"order": order})]
    assert GAME.scoreboard(play(4, events).state).turn == 0  # the oldest reveals first
    events.append(Event("reveal", seat=0, payload={"cards": pile[:3]}))
    assert GAME.scoreboard(play(4, events).state).turn == 0  # round 1 runs: seat 0 is active
    for seat, card in enumerate(pile[:3]):
        events.append(Event("done", seat=seat, payload={"card": card, "dryer": solved(card)}))
    result = play(4, events)
    said = [v.reason for v in result.steps[-1].verdicts if v.outcome is Outcome.INFO]
    assert "P1 reveals the next round." in said
    assert GAME.scoreboard(result.state).turn == 1
    state, verdicts = GAME.apply(
        result.state, Event("reveal", seat=0, payload={"cards": pile[3:6]})
    )
    assert state is result.state and verdicts[0].reason == "It is P1's turn to reveal."
