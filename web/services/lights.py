"""The table's LEDs and buzzer follow the running game.

``hardware.feedback.Feedback`` knows how to light a seat and flash a penalty; this is the
game loop's half: a ``GameService`` listener that, for the current game, lights the seat
whose turn it is and hands each *new* entry's verdicts to ``Feedback.show``, so the seat a
verdict penalises flashes and the buzzer sounds as the referee rules (HW-11). What the log
held before the server started, or before the game became the current one, is history: it
sets the turn light and flashes nothing. A game that has ended turns every light off.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.verdicts import Outcome, Verdict

if TYPE_CHECKING:  # gpiozero is imported with the hardware pads, not with the dashboard
    from hardware.feedback import Feedback

log = logging.getLogger(__name__)


class TableLights:
    def __init__(self, games: Any, feedback: Feedback) -> None:
        self._games = games
        self._feedback = feedback
        self._lock = threading.Lock()  # listeners of two writers may overlap
        self._shown: tuple[int, int] | None = None  # (game, newest feed seq shown)

    def changed(self, game_id: int, snap: Mapping[str, Any]) -> None:
        """A ``GameService`` listener: the current game's turn light and new penalties."""
        if game_id != self._games.current_id():
            return  # the lights are the running game's; an older game's change is not news
        with self._lock:
            if (snap.get("game") or {}).get("ended_at"):
                self._feedback.off()
                self._shown = (game_id, _head(snap))
                return
            if snap.get("error") or not isinstance(snap.get("view"), Mapping):
                return  # the game does not replay now: keep the lights as they were
            after = self._shown[1] if self._shown and self._shown[0] == game_id else None
            verdicts = [] if after is None else new_verdicts(snap.get("feed") or [], after)
            self._shown = (game_id, _head(snap))
            self._feedback.show(verdicts, turn=_turn(snap["view"]))

    def off(self) -> None:
        with self._lock:
            self._feedback.off()


def new_verdicts(feed: Sequence[Mapping[str, Any]], after: int) -> list[Verdict]:
    """The verdicts of the feed's entries logged after seq ``after``, as the referee gave
    them (an entry undone or overruled since shows nothing)."""
    out: list[Verdict] = []
    for item in feed:
        if item.get("seq", 0) > after and item.get("status") == "ok":
            out.extend(_verdict(v) for v in item.get("verdicts") or [])
    return out


def _verdict(data: Mapping[str, Any]) -> Verdict:
    return Verdict(
        Outcome(data["outcome"]), data.get("reason", ""), data.get("seat"), data.get("data") or {}
    )


def _turn(view: Mapping[str, Any]) -> int | None:
    turn = view.get("turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else None


def _head(snap: Mapping[str, Any]) -> int:
    head = snap.get("head")
    return head if isinstance(head, int) else 0


def table_lights(games: Any, pads: Any) -> TableLights | None:
    """Lights for the pads' table when it has LEDs or a buzzer (the hardware package's
    ``PadsService``); None for the dashboard's virtual pads, which have neither."""
    table = getattr(pads, "table", None)
    if table is None or not (getattr(table, "leds", None) or getattr(table, "buzzer", None)):
        return None
    from hardware.feedback import Feedback

    return TableLights(games, Feedback(table))
