"""Rebuild a game's state from its event log.

Undo and overrule are events too. They are resolved here, before the game sees the
log, so every game gets them for free and the log is never edited:

* ``undo``     payload ``{"target": SEQ}`` — the event with that sequence number is disregarded.
* ``overrule`` payload ``{"target": SEQ, "event": {...}}`` — the target is replaced, at its
  own position, by the given event (the referee misjudged; a person says what happened).

Undoing an undo or an overrule restores what it removed. An overrule of an undo or an
overrule is refused (it would switch its target off and replace nothing): undo it instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.events import Event, EventError
from referee.game import Game
from referee.jsonlines import clipped
from referee.verdicts import Verdict

META_KINDS = frozenset({"undo", "overrule"})


class ReplayError(ValueError):
    """The log cannot be replayed; the message names the sequence number."""


@dataclass(frozen=True)
class Step:
    seq: int
    event: Event
    verdicts: tuple[Verdict, ...]


@dataclass
class ReplayResult:
    state: Any
    steps: list[Step] = field(default_factory=list)
    disregarded: set[int] = field(default_factory=set)

    @property
    def verdicts(self) -> list[tuple[int, Verdict]]:
        return [(s.seq, v) for s in self.steps for v in s.verdicts]


def _target(seq: int, event: Event, known: set[int]) -> int:
    target = event.get("target")
    if not isinstance(target, int) or isinstance(target, bool):
        raise ReplayError(f"event {seq} ({event.kind}): 'target' must be a sequence number")
    if target not in known or target >= seq:
        raise ReplayError(f"event {seq} ({event.kind}): no earlier event {target} to target")
    return target


def overrule_target_refusal(target: int, target_event: Event) -> str | None:
    """Why an overrule may not replace ``target_event`` (None: it may). Only a game event can
    be replaced; the dashboard refuses with the same words, so a log and a tablet agree."""
    if target_event.kind in META_KINDS:
        return f"event {target} is an {target_event.kind}, not a game event; undo it instead"
    return None


def _refuse_overrules_of_meta(meta: dict[int, tuple[Event, int]], inactive: set[int]) -> None:
    """An overrule in force whose target is an undo or overrule: its replacement would be
    dropped, so neither correction would happen and nothing would say so. One undone is
    let be: it changes nothing, and undoing it is how such a log is mended."""
    for seq in sorted(meta):
        event, target = meta[seq]
        if seq in inactive or event.kind != "overrule" or target not in meta:
            continue
        why = overrule_target_refusal(target, meta[target][0])
        if why is not None:
            raise ReplayError(f"event {seq} (overrule): {why}")


def effective_events(log: Sequence[tuple[int, Event]]) -> list[tuple[int, Event]]:
    """The events the game should see, after undo/overrule are resolved."""
    known: set[int] = set()
    meta: dict[int, tuple[Event, int]] = {}
    for seq, event in log:
        if event.kind in META_KINDS:
            meta[seq] = (event, _target(seq, event, known))
        known.add(seq)
    # Latest meta-events win: walk backwards so an undone undo is itself inactive.
    inactive: set[int] = set()
    for seq in sorted(meta, reverse=True):
        if seq in inactive:
            continue
        inactive.add(meta[seq][1])
    _refuse_overrules_of_meta(meta, inactive)
    replaced: dict[int, Event] = {}
    for seq, (event, target) in meta.items():
        if seq not in inactive and event.kind == "overrule":
            try:
                replaced[target] = Event.from_dict(event.require("event"))
            except EventError as exc:
                raise ReplayError(f"event {seq} (overrule): {exc}") from None
    out: list[tuple[int, Event]] = []
    for seq, event in log:
        if event.kind in META_KINDS:
            continue
        if seq in replaced:
            out.append((seq, replaced[seq]))
        elif seq not in inactive:
            out.append((seq, event))
    return out


def replay(
    game: Game[Any],
    players: Sequence[str],
    options: Mapping[str, Any] | None,
    log: Iterable[tuple[int, Event]] | Iterable[Event],
) -> ReplayResult:
    """Apply the effective events in order. ``log`` may be bare events (numbered from 1)."""
    numbered: list[tuple[int, Event]] = []
    for i, item in enumerate(log, start=1):
        numbered.append(item if isinstance(item, tuple) else (i, item))
    state = game.new_state(players, options or {})
    result = ReplayResult(state)
    effective = effective_events(numbered)
    kept = {seq for seq, _ in effective}
    result.disregarded = {
        seq for seq, e in numbered if seq not in kept and e.kind not in META_KINDS
    }
    for seq, event in effective:
        try:
            state, verdicts = game.apply(state, event)
        except EventError as exc:
            raise ReplayError(f"event {seq} ({clipped(event.kind)}): {exc}") from None
        result.steps.append(Step(seq, event, tuple(verdicts)))
    result.state = state
    return result
