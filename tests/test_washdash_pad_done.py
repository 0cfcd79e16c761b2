"""WD-17: a "done" from a pad's button carries no card; the referee works out which task
it means, or asks the tablet while keeping the press time for the First bonus."""

from __future__ import annotations

from referee.events import Event, Source
from referee.registry import find_game
from referee.replay import replay

GAME = find_game("wash-dash")
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
S = 1_000_000_000


def reveal(*cards: str) -> list[Event]:
    return [
        Event("setup"),
        Event("reveal", seat=0, t_ns=0, payload={"cards": list(cards)}),
    ]


def pad_done(seat: int, t_ns: int, **payload) -> Event:
    return Event("done", seat=seat, t_ns=t_ns, source=Source.PAD, payload=payload)


def run(events: list[Event]):
    return replay(GAME, PLAYERS, {}, events)


def test_ruling_wd17_press_with_a_dryer_picks_the_task_it_satisfies():
    result = run(
        [
            *reveal("T01", "T02", "T03", "first-bonus-1", "first-bonus-2"),
            pad_done(2, 9 * S, dryer="dress:blue / - / -"),
        ]
    )
    claims = result.state.current.claims
    assert [(c.seat, c.card, c.t_ns) for c in claims] == [(2, "T02", 9 * S)]


def test_ruling_wd17_press_without_card_waits_for_the_tablet_and_keeps_its_time():
    events = [
        *reveal("T01", "T02", "T03", "first-bonus-1", "first-bonus-2"),
        pad_done(1, 8 * S),  # Bob presses first, no card, no dryer yet
        Event("done", seat=2, t_ns=9 * S, payload={"card": "T02", "dryer": "dress:blue / - / -"}),
    ]
    held = run(events[:3])
    (verdict,) = held.steps[-1].verdicts
    assert verdict.outcome.value == "prompt" and "which task card" in verdict.reason
    assert verdict.data["choices"] == ["T01", "T02", "T03"]
    assert held.state.current.presses == ((1, 8 * S),)
    assert held.state.current.claims == ()

    # The tablet names the card later (no time of its own): the press time counts.
    tablet = Event("done", seat=1, payload={"card": "T01", "dryer": "pants:red / - / -"})
    result = run([*events, tablet])
    claims = {c.seat: c for c in result.state.current.claims}
    assert claims[1].card == "T01" and claims[1].t_ns == 8 * S
    assert result.state.current.presses == ()


def test_ruling_wd17_only_open_task_needs_no_card_and_repeat_press_is_noted():
    events = [
        *reveal("T01", "T02", "T03", "first-bonus-1", "first-bonus-2"),
        Event("done", seat=0, t_ns=5 * S, payload={"card": "T01", "dryer": "pants:red / - / -"}),
        Event("done", seat=2, t_ns=6 * S, payload={"card": "T02", "dryer": "dress:blue / - / -"}),
        pad_done(1, 7 * S),  # T03 is the only task left: no question to ask
    ]
    result = run(events)
    legal = [v.reason for v in result.steps[-1].verdicts if v.outcome.value == "legal"]
    assert legal and legal[0].startswith("Bob takes T03")

    opening = reveal("T01", "T02", "T03", "first-bonus-1", "first-bonus-2")
    waiting = run([*opening, pad_done(3, 5 * S), pad_done(3, 6 * S)])
    assert waiting.state.current.presses == ((3, 5 * S),)  # the first press is the one kept
    assert "already pressed" in waiting.steps[-1].verdicts[0].reason
