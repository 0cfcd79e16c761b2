"""The interface every game implements, and the scoreboard it reports.

A game is a set of pure functions over an immutable state: ``apply(state, event)``
returns the next state and the verdicts. No I/O, no clock, no randomness: a shuffle
or a deal is an event that carries its cards, so a game replays from its log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from referee.events import Event, shown_number
from referee.jsonlines import shown
from referee.verdicts import Verdict

State = TypeVar("State")


class GameError(ValueError):
    """Bad set-up (players, options) for a game; the message says what."""


# a whole-number option is a 64-bit number, as an event's ``t_ns`` is: past it, a time worked
# out from it (a race's deadline) could grow too long to write back as JSON
OPTION_INT_LIMIT = 2**63


@dataclass(frozen=True)
class OptionSpec:
    """One configurable rule. ``ruling`` names the entry in docs/RULINGS.md that it tunes.

    ``minimum`` / ``maximum`` bound a whole-number option (both included). The minimum and
    64 bits hold for every set-up, a log replayed included; the maximum, the largest number
    a table could use (a race window of a minute, not of a thousand years), is checked when
    a game is set up (``check_new_options``), so a game stored before it still replays.

    ``default`` is what a stored game whose options lack the key gets: the rule as it was
    before the option existed, so its log replays as it did. ``new_default``, when set, is
    what a game being set up gets instead (``new_game_options``): a new reading of a rule
    reaches new games only."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    ruling: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    new_default: Any = None

    @property
    def setup_default(self) -> Any:
        """What a game set up now gets when the option is not given."""
        return self.default if self.new_default is None else self.new_default

    def validate(self, value: Any) -> Any:
        if self.choices and value not in self.choices:
            raise GameError(
                f"option {self.name!r} must be one of {list(self.choices)}, got {shown(value)}"
            )
        expected = type(self.default)
        if self.default is not None and not self.choices:
            if expected is int and (not isinstance(value, int) or isinstance(value, bool)):
                raise GameError(f"option {self.name!r} must be an integer, got {shown(value)}")
            if expected is int and not -OPTION_INT_LIMIT <= value < OPTION_INT_LIMIT:
                raise GameError(
                    f"option {self.name!r} must be a 64-bit whole number (within ±2**63), "
                    f"got {shown_number(value)}"
                )
            if expected is int and self.minimum is not None and value < self.minimum:
                raise GameError(self.out_of_range(value))
            if expected is bool and not isinstance(value, bool):
                raise GameError(f"option {self.name!r} must be true or false, got {shown(value)}")
            if expected in (list, tuple) and not isinstance(value, list | tuple):
                raise GameError(f"option {self.name!r} must be a list, got {shown(value)}")
        return value

    def out_of_range(self, value: int) -> str:
        if self.maximum is None:
            bounds = f"at least {self.minimum}"
        elif self.minimum is None:
            bounds = f"at most {self.maximum}"
        else:
            bounds = f"from {self.minimum} to {self.maximum}"
        return f"option {self.name!r} must be {bounds}, got {shown_number(value)}"


def check_new_options(specs: Sequence[OptionSpec], given: Mapping[str, Any] | None) -> None:
    """A game being set up: each whole number given within its option's range, maximum
    included (GameError naming the option and its range). The rules' ``new_state`` checks
    the rest, as it does on every replay."""
    known = {s.name: s for s in specs}
    for name, value in (given or {}).items():
        spec = known.get(name)
        if spec is None or spec.choices or type(spec.default) is not int:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            continue  # the type's message is ``validate``'s
        low_ok = spec.minimum is None or value >= spec.minimum
        if not low_ok or (spec.maximum is not None and value > spec.maximum):
            raise GameError(spec.out_of_range(value))


def new_game_options(
    specs: Sequence[OptionSpec], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``given`` plus each option's ``new_default`` that it lacks, for a game being set up:
    stored with the game, so its replays keep the reading it was set up with."""
    out = dict(given or {})
    for spec in specs:
        if spec.new_default is not None and spec.name not in out:
            out[spec.name] = spec.new_default
    return out


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with ``given``; unknown or ill-typed options are a GameError."""
    given = dict(given or {})
    known = {s.name: s for s in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise GameError(f"unknown option(s) {shown(unknown)}; known: {sorted(known)}")
    return {name: spec.validate(given.get(name, spec.default)) for name, spec in known.items()}


@dataclass(frozen=True)
class Scoreboard:
    """What the tablet's scoreboard shows, the same for every game."""

    game: str
    players: tuple[str, ...]
    totals: tuple[int, ...]
    round: int
    turn: int | None = None  # seat whose turn it is, when the game has turns
    rounds: tuple[tuple[int, ...], ...] = ()  # per finished round, each seat's score
    finished: bool = False
    winners: tuple[int, ...] = ()
    lower_is_better: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. dashes won per seat
    # The seats leading now when the game ranks by more than its totals (Deck Dash: most
    # Dashes won first, DD-1); None: the best total leads, as ``lower_is_better`` says.
    leading: tuple[int, ...] | None = None

    @property
    def leaders(self) -> tuple[int, ...]:
        """Who leads now; WEB-1 makes them the winners of a game ended early."""
        if self.leading is not None:
            return self.leading
        if not self.totals:
            return ()
        best = min(self.totals) if self.lower_is_better else max(self.totals)
        return tuple(i for i, t in enumerate(self.totals) if t == best)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": list(self.players),
            "totals": list(self.totals),
            "round": self.round,
            "turn": self.turn,
            "rounds": [list(r) for r in self.rounds],
            "finished": self.finished,
            "winners": list(self.winners),
            "leaders": list(self.leaders),
            "lower_is_better": self.lower_is_better,
            "extra": dict(self.extra),
        }


@dataclass(frozen=True)
class TableLine:
    """One labelled line of a game's "On the table" summary ("Turn", "Bea (clockwise)").

    ``view`` is the whole state for machines and for checking; these lines are its notation
    for people: the few facts a referee reads at a glance mid-game, in the card names the
    game's verdicts use.
    """

    label: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"label": self.label, "text": self.text}


class Game(Protocol[State]):
    """A game's rules. Implementations are stateless singletons (see registry)."""

    name: str  # registry key, e.g. "deck-dash"
    title: str  # shown to people, e.g. "Deck Dash"
    min_players: int
    max_players: int

    def options(self) -> Sequence[OptionSpec]: ...

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> State:
        """A game before its first event. Raises GameError on bad players/options."""
        ...

    def apply(self, state: State, event: Event) -> tuple[State, list[Verdict]]:
        """The next state and the verdicts. An illegal event returns ``state`` unchanged."""
        ...

    def scoreboard(self, state: State) -> Scoreboard: ...

    def view(self, state: State) -> dict[str, Any]:
        """The whole public state as JSON-compatible data (piles, laid cards, hands' sizes)."""
        ...

    def table(self, state: State) -> list[TableLine]:
        """The "On the table" summary: only the lines that mean something in this phase."""
        ...

    def event_kinds(self) -> Mapping[str, str]:
        """Every event kind the game accepts, with a one-line description of its payload."""
        ...


def check_players(game: Game[Any], players: Sequence[str]) -> tuple[str, ...]:
    names = tuple(str(p).strip() for p in players)
    if not game.min_players <= len(names) <= game.max_players:
        raise GameError(
            f"{game.title} needs {game.min_players}–{game.max_players} players, got {len(names)}"
        )
    if any(not n for n in names):
        raise GameError("every player needs a name")
    if len(set(names)) != len(names):
        raise GameError("player names must be different")
    return names
