"""Randomized conformance: ≥ 1,000 random Wash Dash games from setup to the end through
``apply``, checking invariants after every event (tests/washdash_driver.py)."""

from collections import Counter

from referee.replay import replay
from referee.washdash.game import GAME
from referee.washdash.state import allocation
from tests.washdash_driver import DECK, play_random_game

GAMES = 1000


def test_random_games_keep_invariants_and_always_end():
    seen: Counter[str] = Counter()
    sizes: Counter[int] = Counter()
    for seed in range(GAMES):
        state, _log, counts = play_random_game(seed)
        seen.update(counts)
        sizes[state.n] += 1
        board = GAME.scoreboard(state)
        assert board.finished, seed
        assert len(state.pile) == 0
        # scores equal the sum of the round scores
        sums = tuple(sum(r[s] for r in board.rounds) for s in range(state.n))
        assert sums == board.totals, seed
        assert board.totals == tuple(
            sum(DECK[c].points for c in cards) for cards in GAME.view(state)["cards"]
        )
        assert board.winners, seed
        best = max(board.totals)
        assert all(board.totals[w] == best for w in board.winners)
        assert allocation(state, DECK).owed == () or board.extra["owed_forfeit"]
    # the random play really exercised the rules
    assert set(sizes) == {2, 3, 4, 5, 6}
    for what in ("illegal", "score", "round_end", "game_end", "prompt", "forfeit", "draw_on"):
        assert seen[what] > 0, what
    assert seen["game_end"] == GAMES


def test_a_random_game_replays_to_the_same_state():
    state, log, _ = play_random_game(12345)
    players = list(state.players)
    options = {"wrong_done": state.wrong_done, "extra_items": state.extra_items}
    again = replay(GAME, players, options, log).state
    assert again == state
