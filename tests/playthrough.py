"""What every whole-game playthrough (``tests/test_<game>_playthrough.py``) checks whatever
the game: each event judged as the family expects (``judge``), and of a finished game's log
(``LoggedGame``): it replays through JSON to the same state and
verdicts, an undo gives back the state before the event exactly and undoing that undo the
state after it, and an overrule is the same as entering its event in the first place."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from referee.events import Event, EventError
from referee.game import Game
from referee.replay import ReplayError, replay
from referee.verdicts import Outcome, Verdict

Numbered = list[tuple[int, Event]]


class LoggedGame:
    """One finished game: its rules, table, log and the states and verdicts seen live."""

    def __init__(
        self,
        game: Game[Any],
        players: Sequence[str],
        options: dict[str, Any],
        log: Sequence[Event],
        states: Sequence[Any],
        verdicts: Sequence[Any],
        state: Any,
        label: object,
    ) -> None:
        self.game, self.players, self.options = game, players, options
        self.states, self.label = states, label
        lines = [Event.from_json(e.to_json()) for e in log]
        result = replay(game, players, options, lines)
        assert result.state == state, f"{label}: replay differs"
        assert [list(step.verdicts) for step in result.steps] == list(verdicts)
        self.numbered: Numbered = list(enumerate(lines, start=1))

    @classmethod
    def of(cls, game: Game[Any], run: Any) -> LoggedGame:
        """A family's finished game: ``run`` has the table (``cfg.players``/``cfg.options``,
        ``cfg`` its label), the ``log`` and the ``states``/``verdicts``/``state`` seen live."""
        cfg = run.cfg
        return cls(
            game, cfg.players, cfg.options, run.log, run.states, run.verdicts, run.state, cfg
        )

    def replay(self, log: Numbered) -> Any:
        return replay(self.game, self.players, self.options, log)

    def before(self, k: int) -> Any:
        """The state before event ``k``."""
        return self.states[k - 2] if k > 1 else self.game.new_state(self.players, self.options)

    def check_undo_twice(self, k: int) -> None:
        """Undoing event ``k`` gives back the state before it; undoing the undo, after it."""
        head = self.numbered[:k]
        undo = (k + 1, Event("undo", None, {"target": k}))
        got = self.replay([*head, undo]).state
        assert got == self.before(k), f"{self.label}: undo of event {k} is not the state before"
        again = (k + 2, Event("undo", None, {"target": k + 1}))
        got = self.replay([*head, undo, again]).state
        assert got == self.states[k - 1], f"{self.label}: undoing the undo of {k}"

    def check_overrule(self, k: int, other: Event) -> Event:
        """Overruling event ``k`` by ``other`` is as if ``other`` had been entered (an input
        error then too); returns the overrule."""
        overrule = Event("overrule", None, {"target": k, "event": other.to_dict()})
        log = [*self.numbered[:k], (k + 1, overrule)]
        try:
            want, _ = self.game.apply(self.before(k), other)
        except EventError:
            with pytest.raises(ReplayError):
                self.replay(log)
        else:
            got = self.replay(log).state
            assert got == want, f"{self.label}: overrule of {k} by {other.to_dict()}"
        return overrule

    def rejudged(self, late: Event) -> Any | None:
        """The game's state with ``late`` (an undo or overrule of an earlier event) appended,
        everything after it judged again; None when that leaves an input error."""
        try:
            return self.replay([*self.numbered, (len(self.numbered) + 1, late)]).state
        except ReplayError:
            return None


def first_move(
    rng: random.Random,
    moves: Sequence[Any],
    tries: int,
    stats: Counter[str],
    send: Callable[[Any, Any], None],
) -> bool:
    """A child's mistake: ``tries`` of ``moves`` in a random order until one has something
    to send (not None); ``send(move, what_it_made)`` sends it. False when none had."""
    for move in rng.sample(list(moves), tries):
        made = move()
        if made is not None:
            stats[f"child: {move.__name__}"] += 1
            send(move, made)
            return True
    return False


def judge(
    game: Game[Any],
    before: Any,
    event: Event,
    expect: str,
    where: str,
    seats: int,
    stats: Counter[str],
) -> tuple[Any, list[Verdict]] | None:
    """Apply ``event`` to ``before`` as the family expects it judged: "legal" (no illegal
    verdict), "illegal" (one illegal verdict and the very same state), "noop" (one info and
    the very same state: a second press) or "error" (an input error, and None). Every
    verdict's seat is at the table; ``stats`` counts what happened."""
    try:
        after, verdicts = game.apply(before, event)
    except EventError as exc:
        assert expect == "error", f"{where}: unexpected input error {exc}"
        stats["input errors"] += 1
        return None
    assert expect != "error", f"{where}: a malformed event was judged: {verdicts}"
    assert verdicts, f"{where}: no verdict"
    assert all(v.seat is None or 0 <= v.seat < seats for v in verdicts), where
    refused = [v for v in verdicts if v.outcome is Outcome.ILLEGAL]
    if expect == "illegal":
        assert refused, f"{where}: illegal move accepted: {verdicts}"
        assert len(verdicts) == 1 and after is before, f"{where}: a refusal changed things"
        stats["refused"] += 1
    elif expect == "noop":
        assert [v.outcome for v in verdicts] == [Outcome.INFO], f"{where}: {verdicts}"
        assert after is before, where
    else:
        assert not refused, f"{where}: legal move refused: {refused[0].reason}"
        stats["accepted"] += 1
        stats[event.kind] += 1
    return after, verdicts


def play_games(
    seed: int,
    games: int,
    random_config: Callable[[random.Random], Any],
    family: Callable[[random.Random, Any], Any],
    check_replays: Callable[[Any], None],
) -> Counter[str]:
    """``games`` whole games from ``seed``: each a random table (``random_config``) played
    by a fresh family with its own seed, then its log checked (``check_replays``); the
    families' statistics added up, with the games, events, modes and table sizes."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    for _ in range(games):
        config = random_config(rng)
        played = family(random.Random(rng.randrange(2**32)), config)
        played.play_game()
        check_replays(played)
        stats.update(played.stats)
        stats["games"] += 1
        stats["events"] += len(played.log)
        stats[f"mode {config.mode}"] += 1
        stats[f"{len(config.players)} players"] += 1
    return stats


def main(play: Callable[[int, int], Counter[str]], base_seed: int) -> None:
    """``python -m tests.test_<game>_playthrough [GAMES [FIRST]]``: more games than the
    tests play, in chunks of 50 seeded ``base_seed + FIRST`` on; prints the progress, the
    time and the statistics (the same seeds print the same statistics)."""
    import sys
    import time

    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    start = time.perf_counter()
    stats: Counter[str] = Counter()
    chunk = 50
    for seed in range(first, first + max(1, games // chunk)):
        stats.update(play(base_seed + seed, min(chunk, games)))
        print(seed, stats["games"], stats["events"], flush=True)
    print(f"{time.perf_counter() - start:.1f} s")
    for key, value in sorted(stats.items()):
        print(f"{value:9d}  {key}")
