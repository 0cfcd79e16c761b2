"""The Hit the Deck With A Hand slap race, fake-outs and the forgotten yell.

The referee reads no clock: a race closes when every seat has slapped, when a
``race_close`` event arrives, or when any later event carries a ``t_ns`` past the
window (HTD-13). Who slapped last is decided by ``referee.races.last_slapper`` from
the slaps' source timestamps; its evidence goes into the verdict for the dashboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.frozen import evolve
from referee.hitthedeck.state import ClosedRace, HtdState, Race
from referee.races import PRESSED, Press, RaceDecision, fake_outs, last_slapper
from referee.verdicts import Verdict, info, prompt

RACE_PENALTY = 4  # the last to slap draws four
YELL_PENALTY = 4  # forgetting to yell "Hit the Deck With A Hand" draws four
FAKE_OUT_PENALTY = 2  # slapping when no Hand card was played draws two

Result = tuple[HtdState, list[Verdict]]


@dataclass(frozen=True)
class SeenBefore(Press):
    """A slap seen before its Hand card, in the race of a card with no time: it stands in
    for the card, unless a later slap shows it came before the card (``isolated``, HTD-14).
    A slap reported after the card came after it (pads and the tablet report at once)."""


@dataclass(frozen=True)
class AfterJudged(SeenBefore):
    """A slap reported after the race judged just before an untimed Hand card, which that
    card claims (``after_judged_window``). Set aside (``isolated``), it was a late slap at
    the judged card, which HTD-17 ignores: not a fake-out."""


def owe(state: HtdState, seat: int, cards: int) -> HtdState:
    owed = list(state.owed)
    owed[seat] += cards
    return evolve(state, owed=tuple(owed))


def deadline(state: HtdState, race: Race) -> int | None:
    if race.trigger_ns is None:
        return None
    return race.trigger_ns + state.race_rules().window_ns


def slapped_seats(state: HtdState, race: Race) -> set[int]:
    """Seats with a slap that counts (inside the window) so far."""
    end = deadline(state, race)
    if race.trigger_ns is None or end is None:
        return {p.seat for p in race.presses}
    return {p.seat for p in race.presses if race.trigger_ns <= p.t_ns <= end}


def open_race(state: HtdState, by: int, t_ns: int | None, yelled: bool = True) -> Result:
    """A Hand card hit the pile: everybody slaps, and slaps already seen may belong (HTD-15)."""
    rules = state.race_rules()
    held = state.held
    verdicts: list[Verdict] = [
        prompt(
            f"Hit the Deck with a Hand! {state.players[by]} yells it and everyone slaps the "
            f"pile — the last to slap draws {RACE_PENALTY}.",
            by,
            race="open",
        )
    ]
    if t_ns is None:
        claimed = tuple(AfterJudged(p.seat, p.t_ns) for p in after_judged_window(state))
        held = (*(SeenBefore(p.seat, p.t_ns) for p in held), *claimed)
    trigger = t_ns
    if trigger is None and held:
        trigger = start_of(held, rules.window_ns)  # HTD-14: a slap stands in for the card
        alone = isolated(held, rules.window_ns)
        verdicts += not_at_card(state, alone)
        held = tuple(p for p in held if p not in late_at_judged(alone))
    joined: tuple[Press, ...] = held
    faked: tuple[int, ...] = ()
    late: tuple[Press, ...] = ()
    if trigger is not None:
        # Slaps after the window were late slaps at this card, not fake-outs (HTD-17): kept
        # as if reported after the race, which they show is over (HTD-13).
        late = tuple(p for p in held if p.t_ns > trigger + rules.window_ns)
        early = tuple(p for p in fake_outs(held, [trigger], rules) if p not in late)
        joined = tuple(p for p in held if p not in early and p not in late)
        # a seat that already paid for a slap since the last turn action pays once (HTD-15)
        already = paid_since_action(state, trigger - (rules.early_lockout_ns or 0))
        faked = tuple(sorted({p.seat for p in early} | already))
        state, more = charge(state, early, already)
        verdicts += more
    if t_ns is not None and state.after_race:
        # Slaps seen after the race before this card, timed in this card's window (or its
        # early-lockout span), were slapped at this card (HTD-15); the others stay ignored.
        lo, hi = t_ns - (rules.early_lockout_ns or 0), t_ns + rules.window_ns
        joined += tuple(p for p in state.after_race if lo <= p.t_ns <= hi)
        late += tuple(p for p in state.after_race if p.t_ns > hi)  # late at this card
    race = Race(by, trigger, joined, timed=t_ns is not None, faked=faked)
    state = evolve(state, held=(), after_race=late, race=race, closed_race=None)
    if not yelled:
        state, more = forgot_yell(state, by)
        verdicts += more
    state, more = close_if_everyone_slapped(state)
    verdicts += more
    if state.race is not None and late:
        state, more = close_race(state)
        verdicts += more
    return state, verdicts


def close_if_everyone_slapped(state: HtdState) -> Result:
    race = state.race
    if race is not None and len(slapped_seats(state, race)) == state.n:
        return close_race(state)
    return state, []


def slap(state: HtdState, seat: int, t_ns: int) -> Result:
    """One slap, from a pad, the camera or the tablet."""
    press = Press(seat, t_ns)
    verdicts: list[Verdict] = []
    race = state.race
    joining: Press = press
    if race is not None and joins_untimed(state, race, t_ns):
        if alone_before_start(state, race, press):
            return slap_alone_before_start(state, race, press)
        joining = echo_of_seen_before(state, race, press)
        state, verdicts = reanchor(state, joining)
        race = state.race
    if race is not None:
        end = deadline(state, race)
        if end is not None and t_ns > end:
            state, more = close_race(state)  # the window is over: judge first
            verdicts += more
        elif race.timed and before_card(state, race.trigger_ns, t_ns):
            return judged_slap(state, press) if earlier(state, t_ns) else early_slap(state, press)
        elif not race.timed and earlier(state, t_ns):
            return judged_slap(state, press)
        elif not race.timed and before_action(state, t_ns):
            return batch_slap(state, press)  # not at a Hand card played after that action
        else:
            state, more = join_race(state, race, joining)
            return state, [*verdicts, *more]
    closed = state.closed_race
    if closed is not None and came_before(state, closed, t_ns):
        state, more = (
            judged_slap(state, press) if earlier(state, t_ns) else early_slap(state, press)
        )
        return state, [*verdicts, *more]
    if closed is None and earlier(state, t_ns):
        state, more = judged_slap(state, press)
        return state, [*verdicts, *more]
    if (closed is None or not closed.timed) and before_action(state, t_ns):
        state, more = batch_slap(state, press)
        return state, [*verdicts, *more]
    if closed is not None:
        # a pad may report a slap for a Hand card the camera has not reported yet: kept for
        # the next turn action to claim (HTD-15, HTD-17)
        state = evolve(state, after_race=(*state.after_race, press))
        return state, [
            *verdicts,
            info(
                f"{state.players[seat]}'s slap counts with the Hand card just judged, "
                "not as a fake-out (HTD-17).",
                seat,
                t_ns=t_ns,
            ),
        ]
    state = evolve(state, held=(*state.held, press))
    return state, [
        *verdicts,
        info(
            f"{state.players[seat]} slapped, and no Hit the Deck with a Hand card has been seen. "
            f"Unless one was just played, that is a fake-out: draw {FAKE_OUT_PENALTY}.",
            seat,
            t_ns=t_ns,
            pending="fake_out",
        ),
    ]


def joins_untimed(state: HtdState, race: Race, t_ns: int) -> bool:
    """Whether a slap goes to an untimed Hand card's open race: not to the race judged
    before it (HTD-17), nor to the batch of the last timed turn action (HTD-15)."""
    return not race.timed and not earlier(state, t_ns) and not before_action(state, t_ns)


def join_race(state: HtdState, race: Race, press: Press) -> Result:
    """A slap in the open race's window (or, untimed, one that may stand in for its card)."""
    seat = press.seat
    if seat in slapped_seats(state, race):
        note = f"{state.players[seat]} slapped again; only the first slap counts."
    else:
        note = f"{state.players[seat]} slapped."
    trigger = stand_in(race, press.t_ns)
    state = evolve(state, race=evolve(race, trigger_ns=trigger, presses=(*race.presses, press)))
    state, more = close_if_everyone_slapped(state)
    return state, [info(note, seat, t_ns=press.t_ns), *more]


def before_card(state: HtdState, trigger_ns: int | None, t_ns: int) -> bool:
    """Whether a slap is timed before the Hand card (and before any early-lockout span).

    Such a slap is a fake-out whenever its event arrives, before or after the card's: the
    slaps' own times decide, not the order the camera, pads and tablet deliver them (HTD-15).
    """
    if trigger_ns is None:
        return False
    lockout = state.race_rules().early_lockout_ns or 0
    return t_ns < trigger_ns - lockout


def isolated(presses: Sequence[Press], window_ns: int) -> tuple[Press, ...]:
    """The slaps seen before an untimed Hand card that start its race on their own: no other
    seat slapped within the window after them, and a later slap came after that window.
    Everyone slaps at a Hand card, so such a slap came before the card: a fake-out (or, one
    reported after the race judged before, a late slap at that card), not the card's
    stand-in (HTD-14). A slap reported after the card never is: it came after the card
    (unless it echoes a slap of its seat seen before, ``echo_of_seen_before``)."""
    ordered = sorted(presses, key=lambda p: (p.t_ns, p.seat))
    out: list[Press] = []
    for i, press in enumerate(ordered):
        end = press.t_ns + window_ns
        rest = ordered[i + 1 :]
        company = any(q.seat != press.seat and q.t_ns <= end for q in rest)
        if not isinstance(press, SeenBefore) or company or all(q.t_ns <= end for q in rest):
            break
        out.append(press)
    return tuple(out)


def late_at_judged(alone: Sequence[Press]) -> tuple[Press, ...]:
    """Of the slaps set aside before an untimed Hand card, those reported after the race
    judged before it: late slaps at that card, ignored (HTD-17), not fake-outs."""
    return tuple(p for p in alone if isinstance(p, AfterJudged))


def start_of(presses: Sequence[Press], window_ns: int) -> int:
    """An untimed race's start: its first slap by time (not by arrival) that is not an
    isolated early one (HTD-14)."""
    alone = isolated(presses, window_ns)
    return min(p.t_ns for p in presses if p not in alone)


def not_at_card(state: HtdState, alone: Sequence[Press]) -> list[Verdict]:
    """Why isolated slaps do not stand in for the card: early ones (their fake-outs follow),
    and late ones at the Hand card judged before it (ignored, HTD-17)."""
    verdicts = []
    late = late_at_judged(alone)
    early = [p for p in alone if p not in late]
    window = state.race_rules().window_ns / 1e9
    for presses, why in (
        (early, "so not at this Hand card: the slaps at it stand in for its time (HTD-14)."),
        (late, "so late slaps at the Hand card judged before (HTD-17), not at this one."),
    ):
        seats = sorted({p.seat for p in presses})
        if seats:
            who = " and ".join(state.players[s] for s in seats)
            text = f"{who} slapped more than {window:.2f} s before anyone else, {why}"
            verdicts.append(info(text, None, t_ns=sorted(p.t_ns for p in presses)))
    return verdicts


def reanchor(state: HtdState, press: Press) -> Result:
    """A slap after an untimed race's window that leaves the slaps seen before the card on
    their own (``isolated``): those were fake-outs (or late slaps at the race judged before,
    ignored), and the first slap left stands in for the card (HTD-14). A seat already
    paying at this card pays once (HTD-15); a slap inside the early-lockout span of the new
    start locks its seat out instead, as at a timed card."""
    race = state.race
    assert race is not None
    end = deadline(state, race)
    if end is None or press.t_ns <= end:
        return state, []
    rules = state.race_rules()
    every = (*race.presses, press)
    alone = isolated(every, rules.window_ns)
    if not alone:
        return state, []
    start = start_of(every, rules.window_ns)
    ignored = late_at_judged(alone)  # the judged race's, not this card's (HTD-17)
    early = fake_outs([p for p in alone if p not in ignored], [start], rules)
    already = set(race.faked)
    race = evolve(
        race,
        trigger_ns=start,
        presses=tuple(p for p in race.presses if p not in early and p not in ignored),
        faked=tuple(sorted(already | {p.seat for p in early})),
    )
    state, verdicts = charge(evolve(state, race=race), early, already)
    return state, not_at_card(state, alone) + verdicts


def alone_before_start(state: HtdState, race: Race, press: Press) -> bool:
    """Whether a slap reported during an untimed race, timed before its start, is a lone
    one long before the others (``isolated``): a report that late (the camera's) came from
    before the card, as one seen before it would, so it does not drag the start back to it
    (HTD-14, HTD-15: the times decide; a camera echoing a fake-out already paid costs nothing
    more). A slap reported after the card and timed after the start is the card's."""
    start = race.trigger_ns
    if start is None or press.t_ns >= start:
        return False
    seen = SeenBefore(press.seat, press.t_ns)
    return seen in isolated((*race.presses, seen), state.race_rules().window_ns)


def slap_alone_before_start(state: HtdState, race: Race, press: Press) -> Result:
    """A lone slap before an untimed race's start: a fake-out, or inside the early-lockout
    span of the start, a slap that locks its seat out of the race (HTD-15)."""
    assert race.trigger_ns is not None
    if before_card(state, race.trigger_ns, press.t_ns):
        return early_slap(state, press)
    race = evolve(race, presses=(*race.presses, press))
    note = f"{state.players[press.seat]} slapped just before the others: locked out (HTD-15)."
    return evolve(state, race=race), [info(note, press.seat, t_ns=press.t_ns)]


def echo_of_seen_before(state: HtdState, race: Race, press: Press) -> Press:
    """A slap reported after an untimed Hand card, timed within the window of a slap of the
    same seat seen before the card, is of that slap's cluster (the camera echoing a pad, a
    bounce): it is taken as seen before too, so it is isolated with it, costs nothing more
    and does not stand in for the card when that slap does not (HTD-14; HTD-15: the times
    decide, not the arrival order). Another seat's slap between them gives that slap company
    within its window, so it is never isolated then."""
    window = state.race_rules().window_ns
    for p in race.presses:
        near = p.seat == press.seat and abs(press.t_ns - p.t_ns) <= window
        if near and isinstance(p, SeenBefore):
            return type(p)(press.seat, press.t_ns)
    return press


def came_before(state: HtdState, race: ClosedRace, t_ns: int) -> bool:
    """Whether a slap reported after a race was judged was timed before its Hand card: a
    timed card's own time decides; an untimed card's start is its first slap, so a slap more
    than a window (and any early-lockout span) before that came before the card (HTD-14)."""
    if race.timed:
        return before_card(state, race.trigger_ns, t_ns)
    rules = state.race_rules()
    return t_ns < race.trigger_ns - rules.window_ns - (rules.early_lockout_ns or 0)


def stand_in(race: Race, t_ns: int) -> int:
    """The race's trigger after a slap at ``t_ns``: the card's own time, or else the
    earliest slap's (HTD-14) — by time, not by arrival."""
    if race.trigger_ns is None:
        return t_ns
    if not race.timed:
        return min(race.trigger_ns, t_ns)
    return race.trigger_ns


def early_slap(state: HtdState, press: Press, which: str | None = None) -> Result:
    """A slap timed before the Hand card, seen after it: a fake-out that does not count in
    the race (HTD-15), as if it had arrived first. A seat pays once for the slaps before one
    card, so a camera echoing a pad (or a bounce) is not a second fake-out. ``which`` names
    the state's race of that card: by default the open race, or else the one just judged."""
    if which is None:
        which = "race" if state.race is not None else "closed_race"
    race = getattr(state, which)
    assert race is not None
    if press.seat in race.faked:
        return state, [
            info(
                f"{state.players[press.seat]}'s slap before the Hand card is already counted "
                "as a fake-out.",
                press.seat,
                t_ns=press.t_ns,
            )
        ]
    faked = tuple(sorted({*race.faked, press.seat}))
    state = evolve(state, **{which: evolve(race, faked=faked)})
    return penalise_fake_outs(state, [press])


def earlier(state: HtdState, t_ns: int) -> bool:
    """Whether a slap is timed before the turn action that ended the judged race's claim.

    Until that action the slaps belong to the judged race (HTD-17); a pad's report that
    reaches the referee after the camera's report of the action is judged by its time,
    as if it had arrived first (HTD-15: the times decide, not the arrival order).
    """
    judged = state.judged
    return judged is not None and judged.until_ns is not None and t_ns < judged.until_ns


def judged_slap(state: HtdState, press: Press) -> Result:
    """A slap timed before the action that followed the judged race, reported after it:
    before that race's card a fake-out (HTD-15), otherwise the race's and ignored (HTD-17)."""
    judged = state.judged
    assert judged is not None
    if came_before(state, judged, press.t_ns):
        return early_slap(state, press, "judged")
    return state, [
        info(
            f"{state.players[press.seat]}'s slap was before the last turn action: it counts "
            "with the Hand card judged before it, not as a fake-out (HTD-17).",
            press.seat,
            t_ns=press.t_ns,
        )
    ]


def end_claim(state: HtdState, t_ns: int | None) -> HtdState:
    """A turn action ends the judged race's claim on new slaps (HTD-17). Timed, it keeps
    the race as ``judged`` up to its time; untimed, arrival is all the referee has (the
    race is kept with no end, for an untimed Hand card to tell its window, HTD-14)."""
    closed = state.closed_race
    if closed is None:
        return state
    return evolve(state, closed_race=None, judged=evolve(closed, until_ns=t_ns))


def after_judged_window(state: HtdState) -> tuple[Press, ...]:
    """For an untimed Hand card played right after a judged race: the slaps reported since
    that race and timed after its window were slapped at this card (pads report before the
    tablet's entry), so they join its race as held slaps do (HTD-14); slaps inside the judged
    window stay that race's (HTD-17: a second or late slap)."""
    judged = state.judged
    if judged is None or judged.until_ns is not None or not state.after_race:
        return ()
    end = judged.trigger_ns + state.race_rules().window_ns
    return tuple(p for p in state.after_race if p.t_ns > end)


def release_after_race(state: HtdState, t_ns: int | None) -> HtdState:
    """After a turn action that played no Hand card to claim them: slaps reported after the
    judged race but timed at or after the action were slapped at it (pads report before the
    camera), so they are held like any slap with no race (HTD-15); the rest were the judged
    race's (HTD-17)."""
    later = () if t_ns is None else tuple(p for p in state.after_race if p.t_ns >= t_ns)
    return evolve(state, after_race=(), held=(*state.held, *later))


def before_action(state: HtdState, t_ns: int) -> bool:
    """Whether a slap is timed before the last timed turn action (HTD-15)."""
    return state.action_ns is not None and t_ns < state.action_ns


def paid_since_action(state: HtdState, until_ns: int | None = None) -> set[int]:
    """Seats already paid for a fake-out slap timed from the last timed turn action on (and
    before ``until_ns``): the batch that action's slaps start (HTD-15)."""
    start = state.action_ns
    return {
        p.seat
        for p in state.paid
        if (start is None or p.t_ns >= start) and (until_ns is None or p.t_ns < until_ns)
    }


def batch_slap(state: HtdState, press: Press) -> Result:
    """A slap with no race, timed before the last timed turn action but reported after it (a
    pad's or the camera's report lagged): it belongs with the slaps paid at that action, by
    its time (HTD-15). Once per seat: the echo of a slap paid there costs nothing more, and a
    slap nobody paid for there is a fake-out of its own."""
    seat = press.seat
    start = state.action_ns
    if any(p.seat == seat and start is not None and p.t_ns < start for p in state.paid):
        name = state.players[seat]
        return state, [
            info(
                f"{name}'s slap was before the last turn action, where {name} already drew "
                "for a fake-out: a seat pays once for its slaps between two turn actions "
                "(HTD-15).",
                seat,
                t_ns=press.t_ns,
            )
        ]
    return charge(state, [press], set())


def charge(state: HtdState, presses: Sequence[Press], already: set[int]) -> Result:
    """Fake-outs for ``presses`` (slaps outside every race), once per seat; a seat in
    ``already`` paid for its slaps of this batch before (HTD-15). The slaps charged are kept
    in ``paid``, so that a late report of one of them is not charged again."""
    due = [p for p in presses if p.seat not in already]
    paid = (*state.paid, *(Press(p.seat, p.t_ns) for p in due))  # as seen, not as judged
    state, verdicts = penalise_fake_outs(evolve(state, paid=paid), due)
    for seat in sorted({p.seat for p in presses} & already):
        verdicts.append(
            info(
                f"{state.players[seat]}'s slap is already counted as a fake-out (HTD-15).",
                seat,
                t_ns=sorted(p.t_ns for p in presses if p.seat == seat),
            )
        )
    return state, verdicts


def penalise_fake_outs(state: HtdState, presses: Sequence[Press]) -> Result:
    """Each seat with a slap outside every race draws two, once per batch (HTD-15)."""
    verdicts = []
    for seat in sorted({p.seat for p in presses}):
        times = sorted(p.t_ns for p in presses if p.seat == seat)
        state = owe(state, seat, FAKE_OUT_PENALTY)
        verdicts.append(
            prompt(
                f"Faked out! {state.players[seat]} slapped when no Hit the Deck with a Hand "
                f"card was played: draw {FAKE_OUT_PENALTY} cards.",
                seat,
                penalty="fake_out",
                draw=FAKE_OUT_PENALTY,
                t_ns=times,
            )
        )
    return state, verdicts


def resolve_held(state: HtdState, before_ns: int | None = None) -> Result:
    """Held slaps that no Hand card claimed are fake-outs. At a turn action timed
    ``before_ns``, slaps timed at or after it stay held: they were slapped after it, and the
    next Hand card may still claim them (HTD-15: the times decide, not the arrival order).
    A seat that already paid for a slap since the last timed turn action (at ``race_close``,
    or before the hands were scored) pays no more for this batch."""
    due = tuple(p for p in state.held if before_ns is None or p.t_ns < before_ns)
    if not due:
        return state, []
    later = tuple(p for p in state.held if before_ns is not None and p.t_ns >= before_ns)
    return charge(evolve(state, held=later), due, paid_since_action(state, before_ns))


def at_action(state: HtdState, t_ns: int | None) -> Result:
    """A turn action (not the deal) was taken: held slaps timed before it are fake-outs, once
    per seat (HTD-15), and its time starts the next batch. A later report of a slap timed
    before it is judged with this batch (``batch_slap``); only the last timed action's batch
    is kept, so a slap reported after two timed actions is judged with the later one's.
    An untimed action ends the batch when it arrives: slaps reported after it came after it.
    """
    state, verdicts = resolve_held(state, t_ns)
    start = state.action_ns
    if t_ns is None:
        kept = tuple(p for p in state.paid if start is not None and p.t_ns < start)
        return evolve(state, paid=kept), verdicts
    kept = tuple(p for p in state.paid if start is None or p.t_ns >= start)
    return evolve(state, action_ns=t_ns, paid=kept), verdicts


def owes_fake_out(state: HtdState, seat: int, t_ns: int | None) -> bool:
    """Whether ``seat`` pays a fake-out for a slap seen so far, at the turn action timed
    ``t_ns`` that is being taken or before the hands are scored (HTD-15, HTD-20): then a
    last card does not empty their hand. The same steps as ``engine.apply`` and
    ``flow.settle`` take, on a copy."""
    trial = release_after_race(state, t_ns) if state.after_race else state
    trial, _ = at_action(trial, t_ns)
    trial, _ = resolve_held(trial)
    return trial.owed[seat] > state.owed[seat]


def close_race(state: HtdState, decided: Sequence[int] | None = None) -> Result:
    """Judge the open race: the last slapper (or every seat that missed) draws four.

    ``decided`` is the table's own verdict (the tablet names the loser(s)) when no pad or
    camera timed the slaps.
    """
    race = state.race
    assert race is not None
    rules = state.race_rules()
    trigger = race.trigger_ns if race.trigger_ns is not None else 0
    decision: RaceDecision | None = None
    if decided is not None:
        losers = tuple(sorted(set(decided)))
        names = ", ".join(state.players[s] for s in losers) or "nobody"
        reason = f"The table says the last to slap was {names}."
    else:
        decision = last_slapper(
            trigger, range(state.n), race.presses, rules, state.players, timed=race.timed
        )
        losers = decision.seats
        reason = decision.reason
        genuine_tie = decision.tie and all(
            decision.timing(s).status == PRESSED for s in decision.seats
        )
        if genuine_tie and state.option("race_tie") == "none":
            losers = ()
            reason += " Nobody draws on a tie (option race_tie = none, HTD-16)."
    data = {"race": decision.to_dict() if decision else {"seats": list(losers), "by": "table"}}
    verdicts = [info(reason, None, **data)]
    for seat in losers:
        state = owe(state, seat, RACE_PENALTY)
        verdicts.append(
            prompt(
                f"{state.players[seat]} was the last to slap: draw {RACE_PENALTY} cards.",
                seat,
                penalty="last_slap",
                draw=RACE_PENALTY,
                **data,
            )
        )
    closed = ClosedRace(
        race.by,
        trigger,
        trigger + rules.window_ns,
        race.yell_penalised,
        timed=race.timed,
        faked=race.faked,
    )
    return evolve(state, race=None, closed_race=closed), verdicts


def forgot_yell(state: HtdState, seat: int | None) -> Result:
    """Whoever played (or revealed) the Hand card without yelling draws four (HTD-18)."""
    race = state.race or state.closed_race
    if race is None:
        return state, []
    by = race.by if seat is None else seat
    if by != race.by:
        return state, []
    if race.yell_penalised:
        return state, []
    state = owe(state, by, YELL_PENALTY)
    if state.race is not None:
        state = evolve(state, race=evolve(state.race, yell_penalised=True))
    else:
        assert state.closed_race is not None
        state = evolve(state, closed_race=evolve(state.closed_race, yell_penalised=True))
    return state, [
        prompt(
            f'{state.players[by]} forgot to yell "Hit the Deck with a Hand": draw '
            f"{YELL_PENALTY} cards.",
            by,
            penalty="no_yell",
            draw=YELL_PENALTY,
        )
    ]
