"""Wash Dash rules engine: ``GAME`` (see docs/EVENTS.md for every event).

Flow: ``setup`` (shuffled order, or nothing in table mode) → per round ``reveal`` (the
active player's cards; more single-card reveals while only events show) → ``done`` claims
(seat, ``t_ns``, card, optional dryer state) and ``dryer`` readings → the round ends when
every revealed task is taken (2 players: at the first) → ``mistake`` / ``forfeit`` during
the end-of-round check → next ``reveal``. The game ends at the end of a round when the
draw pile is empty.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from referee.events import Event, EventError
from referee.frozen import evolve
from referee.game import (
    GameError,
    OptionSpec,
    Scoreboard,
    TableLine,
    check_players,
    resolve_options,
)
from referee.hands import Hidden
from referee.jsonlines import shown
from referee.summary import cards as cards_text
from referee.verdicts import Outcome, Verdict, illegal, info, legal, prompt, score
from referee.washdash.checker import EXTRA_FORBID, EXTRA_IGNORE, satisfies
from referee.washdash.deck import (
    Deck,
    DeckError,
    current_deck,
    default_deck,
    game_deck,
    refuse_oversized,
)
from referee.washdash.dryer import Dryer, DryerError
from referee.washdash.pieces import EventCard
from referee.washdash.state import (
    BOXED_FOR,
    CARDS_PER_ROUND,
    OK,
    UNCHECKED,
    WRONG,
    Allocation,
    Claim,
    Round,
    WashDashState,
    allocation,
    commit,
    earlier_tasks,
    game_over,
    holdings,
    needs_task,
    next_revealer,
    pressed_first,
    result_final,
    round_over,
    totals,
    unchecked,
    winners,
)
from referee.washdash.summary import table as table_lines
from referee.words import and_list, points

PENALTY = "penalty"
RETRY = "retry"
# WD-12, a dryer reading that cannot be real: ask for the dryer again (games set up from
# day 34), or judge the claim on it, failing (stored games set up before)
ASK = "ask"
JUDGE = "judge"
# WD-8, where a held press (WD-17) stands in the arrival order: where it was received
# (games set up from day 36), or where its card was named (stored games set up before)
PRESSED = "pressed"
NAMED = "named"


_EVENT_KINDS = {
    "setup": "{order?: [54 card ids, top first] (omit in table mode), first?: seat of the "
    "oldest player} — shuffled deck; 20 go back in the box for 2–4 players",
    "reveal": "seat? (active player), t_ns? ('go!'), {cards?: [card ids]} — the round's cards; "
    "omit cards when the deck order is known; one card at a time when only events show",
    "done": "seat, t_ns?, {card?: task id, dryer?: dryer state} — the seat took that task card "
    "(without card, e.g. a pad's done button: see WD-17)",
    "dryer": "seat, {dryer: dryer state} — a reading of the seat's dryer (camera or tablet)",
    "mistake": "seat, {reason?: text} — the table found the seat's task this round done wrong",
    "forfeit": "seat, {card: id} — after a mistake, the earlier task card the seat gives up",
}


def _seat(state: WashDashState, event: Event, required: bool = True) -> int | None:
    seat = event.seat
    if seat is None:
        if required:
            raise EventError(f"event {shown(event.kind)} needs a seat")
        return None
    if not 0 <= seat < state.n:  # a negative seat too (an Event built in Python)
        raise EventError(f"seat {seat} is not at this table (seats 0–{state.n - 1})")
    return seat


def _card_id(deck: Deck, value: Any) -> str:
    if not isinstance(value, str) or value not in deck:
        raise EventError(f"unknown Wash Dash card {shown(value)} (ids like T07 or opposite-1)")
    return value


def _card_list(deck: Deck, value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise EventError(f"{field!r} must be a list of card ids")
    return tuple(_card_id(deck, v) for v in value)


def _dryer(value: Any) -> Dryer:
    try:
        return Dryer.from_dict(value)
    except DryerError as exc:
        raise EventError(f"dryer state: {exc}") from None


def _list(items: Sequence[str]) -> str:
    return and_list(items)


class WashDash:
    name = "wash-dash"
    title = "Wash Dash"
    min_players = 2
    max_players = 6

    def __init__(self, deck: Deck | None = None) -> None:
        self._deck = deck  # None: the deck file's

    @property
    def deck(self) -> Deck:
        """The deck of a game without one recorded: these rules' own, else the deck file as
        read at first use. A game in play uses its own (``deck_of``)."""
        return self._deck if self._deck is not None else default_deck()

    def deck_of(self, state: WashDashState) -> Deck:
        """The deck ``state``'s game is played with: recorded with it, else these rules'."""
        return state.deck if state.deck is not None else self.deck

    def deck_record(self) -> dict[str, Any]:
        """The deck a game set up now plays with, as its log records it: the deck file read
        now (an edit reaches the games set up after it, never one begun), or the deck these
        rules were made with. ``DeckError`` naming the file when it is broken."""
        return (self._deck if self._deck is not None else current_deck()).to_data()

    def with_deck(self, data: Any) -> WashDash:
        """These rules playing with a game's recorded deck (``deck_record``'s); GameError
        naming the card that is wrong."""
        try:
            refuse_oversized(data)  # before a huge one is written out to be cached
        except DeckError as exc:
            raise GameError(f"the game's deck: {exc}") from None
        return _with_deck(json.dumps(data, sort_keys=True))

    # --- protocol ----------------------------------------------------------------
    def options(self) -> Sequence[OptionSpec]:
        return (
            OptionSpec(
                "wrong_done",
                PENALTY,
                "a 'done' whose dryer is wrong: 'penalty' (the rules' mistake: lose the card "
                "and an earlier one) or 'retry' (the referee refuses it; keep trying)",
                choices=(PENALTY, RETRY),
                ruling="WD-7",
            ),
            OptionSpec(
                "extra_items",
                EXTRA_IGNORE,
                "pieces and pins hanging apart from the task: 'ignore' or 'forbid'",
                choices=(EXTRA_IGNORE, EXTRA_FORBID),
                ruling="WD-4",
            ),
            OptionSpec(
                "impossible_reading",
                JUDGE,
                "a dryer reading that cannot be real (a piece twice, a pin on two bars): "
                "'ask' (judge nothing and ask for the dryer again) or 'judge' (judge the claim "
                "on it, a failed check, as games set up before this option existed do)",
                choices=(ASK, JUDGE),
                ruling="WD-12",
                new_default=ASK,
            ),
            OptionSpec(
                "held_press_order",
                NAMED,
                "where a pad's press held for its card stands in the order received, which "
                "gives the First bonus when a claim has no time: 'pressed' (when the press was "
                "received) or 'named' (when its card is named, as games set up before this "
                "option existed do)",
                choices=(PRESSED, NAMED),
                ruling="WD-8",
                new_default=PRESSED,
            ),
        )

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> WashDashState:
        names = check_players(self, players)
        opts = resolve_options(self.options(), options)
        n = len(names)
        return WashDashState(
            players=names,
            wrong_done=opts["wrong_done"],
            extra_items=opts["extra_items"],
            won=((),) * n,
            dryers=(None,) * n,
            impossible_reading=opts["impossible_reading"],
            held_press_order=opts["held_press_order"],
            deck=self.deck,
        )

    def event_kinds(self) -> Mapping[str, str]:
        return dict(_EVENT_KINDS)

    def apply(self, state: WashDashState, event: Event) -> tuple[WashDashState, list[Verdict]]:
        handler = getattr(self, f"_on_{event.kind}", None)
        if event.kind not in _EVENT_KINDS or handler is None:
            raise EventError(
                f"unknown Wash Dash event {shown(event.kind)}; known: {', '.join(_EVENT_KINDS)}"
            )
        return handler(state, event)

    # --- events ------------------------------------------------------------------
    def _on_setup(self, state: WashDashState, event: Event) -> tuple[WashDashState, list[Verdict]]:
        deck = self.deck_of(state)
        seat = _seat(state, event, required=False)  # WD-23: past the table is malformed
        first = event.get("first", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < state.n:
            raise EventError(f"'first' must be a seat 0–{state.n - 1}, got {shown(first)}")
        order = event.get("order")
        if order is not None:
            order = _card_list(deck, order, "order")
            if sorted(order) != sorted(deck.order):
                raise EventError(f"'order' must list each of the {len(deck)} cards exactly once")
        if state.started:
            return state, [illegal("The game is already set up.")]
        boxed_n = BOXED_FOR[state.n]
        if len(deck) < boxed_n:  # a deck made in Python: a file's or a log's holds enough
            raise EventError(
                f"the deck has {cards_text(len(deck))}, fewer than the {boxed_n} that go back "
                f"in the box for {state.n} players"
            )
        if order is not None:
            boxed: Hidden[str] = Hidden(order[:boxed_n])
            pile: Hidden[str] = Hidden(order[boxed_n:])
        else:
            boxed = Hidden(unknown=boxed_n)
            pile = Hidden(unknown=len(deck) - boxed_n)
        new = evolve(
            state,
            started=True,
            full_info=order is not None,
            first=first,
            pile=pile,
            boxed=boxed,
        )
        boxed_txt = f"{boxed_n} cards go back in the box; " if boxed_n else ""
        verdicts = [
            legal(
                f"Cards shuffled: {boxed_txt}{len(pile)} in the draw pile. "
                f"{state.players[first]} is the first active player.",
                first,
                pile=len(pile),
                boxed=boxed_n,
            )
        ]
        if seat is not None and seat != first:
            # WD-23: ``first`` counts (as it did for stored games); the seat is said, not dropped
            verdicts.append(
                info(
                    f"{state.players[first]} reveals first, not {state.players[seat]} whose "
                    "seat the setup was entered for: the setup's 'first' names the oldest "
                    "player (the first-named player when it is left out, WD-13).",
                    first,
                )
            )
        return new, verdicts

    def _on_reveal(self, state: WashDashState, event: Event) -> tuple[WashDashState, list[Verdict]]:
        deck = self.deck_of(state)
        seat = _seat(state, event, required=False)
        cards = event.get("cards")
        named = None if cards is None else _card_list(deck, cards, "cards")
        if not state.started:
            return state, [illegal("Set up the game first (shuffle and deal the dryers).")]
        if game_over(state, deck):
            return state, [illegal("The game is over: the draw pile is empty.")]
        rnd = state.current
        draw_on = rnd is not None and not round_over(state, deck) and needs_task(rnd)
        if rnd is not None and not draw_on and not round_over(state, deck):
            first = pressed_first(state)
            if first is not None:
                who = state.players[first]
                return state, [
                    illegal(
                        f"Finish this round first: which task card did {who} complete? "
                        "Tap it on the tablet.",
                        seat,
                    )
                ]
            open_n = sum(1 for c in rnd.tasks if rnd.claim_for(c) is None)
            return state, [
                illegal(f"Finish this round first: {_open_cards(open_n)} still open.", seat)
            ]
        if draw_on:
            active = rnd.active  # type: ignore[union-attr]
            count = 1
        else:
            owed = allocation(state, deck).owed
            if owed:
                who = _list([state.players[s] for s in owed])
                return state, [
                    illegal(
                        f"{who} made a mistake and must first choose an earlier task card to "
                        "give up.",
                        owed[0],
                    )
                ]
            active = next_revealer(state, deck)
            count = min(CARDS_PER_ROUND[state.n], len(state.pile))
        if seat is not None and seat != active:
            return state, [illegal(f"It is {state.players[active]}'s turn to reveal.", seat)]
        pile = state.pile
        if named is None:
            if not state.full_info:
                return state, [
                    illegal("Say which cards were revealed (the referee cannot see the pile).")
                ]
            named = pile.known[:count]
        if len(named) != count:
            what = "one more card" if draw_on else cards_text(count)
            return state, [illegal(f"Reveal {what}, not {len(named)}.", seat)]
        if len(set(named)) != len(named):
            return state, [illegal("The same card is named twice.", seat)]
        if state.full_info:
            if tuple(named) != pile.known[:count]:
                top = ", ".join(pile.known[:count])
                return state, [
                    illegal(f"Those are not the top cards of the draw pile (they are {top}).")
                ]
        else:
            seen = self._seen(state)
            already = [c for c in named if c in seen]
            if already:
                verb = "is" if len(already) == 1 else "are"
                return state, [illegal(f"{_list(already)} {verb} already out of the draw pile.")]
        try:
            pile = pile.remove_all(named)
        except KeyError:
            return state, [illegal("The draw pile does not have that many cards.")]
        if draw_on:
            new_round = rnd.with_revealed(deck, tuple(named))  # type: ignore[union-attr]
            new = evolve(state, pile=pile, current=new_round)
        else:
            new = commit(state, deck)
            number = len(new.rounds) + 1
            new = evolve(
                new,
                pile=pile,
                current=Round(number, active, (), start_ns=event.t_ns).with_revealed(
                    deck, tuple(named)
                ),
            )
        return new, self._reveal_verdicts(new, named, draw_on)

    def _reveal_verdicts(
        self, state: WashDashState, named: Sequence[str], draw_on: bool
    ) -> list[Verdict]:
        deck = self.deck_of(state)
        rnd = state.current
        assert rnd is not None
        tasks = [c for c in named if deck[c].is_task]
        events = [deck[c].event for c in named if deck[c].event is not None]
        label = "Drawn on" if draw_on else f"Round {rnd.number}"
        parts = [f"{c}: {deck[c].task.describe()}" for c in tasks]  # type: ignore[union-attr]
        parts += [f"event {e.title}" for e in events]  # type: ignore[union-attr]
        out = [legal(f"{label}: {'; '.join(parts)}.", rnd.active, cards=list(named))]
        for e in dict.fromkeys(events):
            if e is EventCard.ONE_HANDED:
                out.append(info("One handed: everyone uses only one hand this round."))
            elif e is EventCard.FIRST_BONUS:
                out.append(info(self._first_bonus_text(deck, rnd)))
            elif e is EventCard.OPPOSITE:
                out.append(info("Opposite: clothes mean pins and pins mean clothes this round."))
        if needs_task(rnd):
            if round_over(state, deck):
                out.extend(self._round_end(state))
            else:
                out.append(prompt("Only event cards so far: draw another card.", rnd.active))
        return out

    @staticmethod
    def _first_bonus_text(deck: Deck, rnd: Round) -> str:
        """Rules: two First bonus cards are "both … given to the fastest player", so the
        announcement gives what is at stake this round, not one card's points."""
        bonus = [c for c in rnd.revealed if deck[c].event is EventCard.FIRST_BONUS]
        pts = sum(deck[c].points for c in bonus)
        if len(bonus) == 1:
            return f"First bonus: the first to complete a task gets +{pts}."
        cards = "both" if len(bonus) == 2 else f"all {len(bonus)}"
        return f"First bonus: the first to complete a task gets {cards} First bonus cards: +{pts}."

    def _seen(self, state: WashDashState) -> set[str]:
        seen = set(state.discarded) | set(state.boxed.known) | set(state.pile.known)
        for cards in state.won:
            seen.update(cards)
        if state.current is not None:
            seen.update(state.current.revealed)
        return seen

    def _on_done(self, state: WashDashState, event: Event) -> tuple[WashDashState, list[Verdict]]:
        deck = self.deck_of(state)
        seat = _seat(state, event)
        assert seat is not None
        dryer = _dryer(event.get("dryer")) if event.get("dryer") is not None else None
        # read before any rule: a card the deck lacks is malformed in every phase
        named = None if event.get("card") is None else _card_id(deck, event.get("card"))
        who = state.players[seat]
        rnd = state.current
        if rnd is None:
            return state, [illegal("No cards have been revealed yet.", seat)]
        if round_over(state, deck):
            return state, [illegal("The round is over.", seat)]
        if needs_task(rnd):
            return state, [illegal("No task card has been revealed yet.", seat)]
        first = pressed_first(state, seat)
        if first is not None:
            return state, [
                illegal(
                    f"The round is over: {state.players[first]} pressed done first (with 2 "
                    "players only the first to finish scores).",
                    seat,
                )
            ]
        # WD-17: a press held for this seat is when it finished; the tablet's later "done"
        # (stamped when it was tapped, or not at all) only names the card.
        press = rnd.press_of(seat)
        t_ns = press[1] if press is not None and press[1] is not None else event.t_ns
        # WD-12 (``impossible_reading: ask``): a reading that cannot be real (a misread, a
        # typo) names and judges nothing; the done is taken as one without a reading, and
        # the dryer is asked for again
        why = _impossible(state, dryer)
        usable = None if why else dryer
        if named is None:
            resolved = self._card_for_press(state, seat, usable)
            if resolved is None:
                if self._completes_nothing(state, seat, usable):
                    return self._not_yet(state, seat)
                return self._hold_unreadable(state, seat, event.t_ns, dryer, why)
            card = resolved
        else:
            card = named
        # WD-12: a done is judged on the reading it carries, and the press's is this done's
        reading = usable if usable is not None else rnd.press_dryer(seat)
        # WD-8 (``held_press_order: pressed``): the press was numbered when received
        arrival = rnd.press_arrival(seat)
        rnd = rnd.without_press(seat)
        if card not in rnd.revealed:
            return state, [illegal(f"{card} is not on the table this round.", seat)]
        if not deck[card].is_task:
            return state, [illegal(f"{card} is an event card, not a task.", seat)]
        mine = rnd.claim_of(seat)
        if mine is not None:
            return state, [
                illegal(
                    f"{who} already completed {mine.card} this round: one task per round.", seat
                )
            ]
        taken = rnd.claim_for(card)
        if taken is not None:
            return state, [
                illegal(f"{card} was already taken by {state.players[taken.seat]}.", seat)
            ]
        task = deck[card].task
        assert task is not None
        verdicts: list[Verdict] = []
        if reading is None:
            status, reason = UNCHECKED, _waiting_reason(why)
            verdicts.append(legal(f"{who} takes {card}: {task.describe()}.", seat, card=card))
            if why is None:
                ask = prompt(f"Show {who}'s dryer to the camera or enter it on the tablet.", seat)
            else:
                ask = self._read_again(state, seat, why, card)
            verdicts.append(ask)
        else:
            check = satisfies(task, reading, rnd.events, extra_items=state.extra_items)
            if not check.ok and state.wrong_done == RETRY:
                if press is None:
                    return state, [illegal(f"{who}, not yet — {card}: {check.reason}", seat)]
                # WD-19: the player keeps trying, so the press that announced this wrong
                # finish is forgotten (its time must not win a First bonus, and with 2
                # players it must not hold the round, WD-18)
                return evolve(state, current=rnd), [
                    prompt(
                        f"{who}, not yet — {card}: {check.reason} Keep trying, and press done "
                        "again when it is finished.",
                        seat,
                        card=card,
                    )
                ]
            status, reason = (OK if check.ok else WRONG), check.reason
            if check.ok:
                verdicts.append(legal(f"{who} takes {card}. {check.reason}", seat, card=card))
            else:
                verdicts.append(self._mistake_verdict(state, seat, card, check.reason))
        new_round = _with_claim(rnd, seat, card, arrival, t_ns, status, reason)
        dryers = state.dryers if dryer is None else _set(state.dryers, seat, dryer)
        new = evolve(state, current=new_round, dryers=dryers)
        if round_over(new, deck):
            new, dropped = self._drop_presses(new)
            verdicts.extend(dropped)
            verdicts.extend(self._round_end(new))
        return new, verdicts

    def _hold_unreadable(
        self,
        state: WashDashState,
        seat: int,
        t_ns: int | None,
        dryer: Dryer | None,
        why: str | None,
    ) -> tuple[WashDashState, list[Verdict]]:
        """Hold a card-less "done" (WD-17); a reading that cannot be right is shown but not
        kept with the press, so it never judges the card named later (WD-12)."""
        if why is None or dryer is None:
            return self._hold_press(state, seat, t_ns, dryer)
        new, verdicts = self._hold_press(state, seat, t_ns, None)
        if new is state:  # refused, or a press already held: changes nothing (WD-17)
            return new, verdicts
        new = evolve(new, dryers=_set(new.dryers, seat, dryer))
        return new, [*verdicts, self._read_again(state, seat, why, None)]

    def _read_again(self, state: WashDashState, seat: int, why: str, card: str | None) -> Verdict:
        """WD-12: the table is asked for the dryer again, not told of a mistake: a reading
        that cannot be real says nothing about the task."""
        who = state.players[seat]
        judged = f"{card} is not judged on it" if card else "it names no card"
        return prompt(
            f"{who}'s dryer reading cannot be right: {why}. {judged}: show {who}'s dryer to "
            "the camera again or enter it again on the tablet.",
            seat,
            **({"card": card} if card else {}),
        )

    def _drop_presses(self, state: WashDashState) -> tuple[WashDashState, list[Verdict]]:
        """The round is over with presses still held (3+ players: the others took every task
        card): a press can name no card now, so it goes, said, and its tablet question with
        it; a card that ``retry`` puts back later is pressed for again."""
        rnd = state.current
        assert rnd is not None
        if not rnd.presses:
            return state, []
        takers = _list(list(dict.fromkeys(state.players[c.seat] for c in rnd.claims)))
        out = []
        for seat, _ in rnd.presses:
            who = state.players[seat]
            out.append(
                info(
                    f"{who} pressed done, but {takers} took every task card: {who}'s press "
                    f"names no card, and {who} ends round {rnd.number} without one.",
                    seat,
                )
            )
        return evolve(state, current=rnd.without_presses()), out

    def _card_for_press(self, state: WashDashState, seat: int, dryer: Dryer | None) -> str | None:
        """WD-17: the task a card-less "done" means — the only open task, or the only open
        task that the carried dryer satisfies; None when a person must say which."""
        rnd = state.current
        assert rnd is not None
        candidates = rnd.open_tasks()
        if dryer is not None and len(candidates) > 1:
            candidates = self.open_tasks_done_by(state, dryer)
        return candidates[0] if len(candidates) == 1 else None

    def _completes_nothing(self, state: WashDashState, seat: int, dryer: Dryer | None) -> bool:
        """WD-19: with ``retry``, a card-less "done" whose own reading completes none of the
        open task cards is refused at once: any card named for it would be refused, so it
        must not be held (with 2 players a held press wins the race, WD-18). A "done"
        without a reading is held as WD-17 says; a seat that already took a card is told so."""
        rnd = state.current
        assert rnd is not None
        return (
            state.wrong_done == RETRY
            and dryer is not None
            and rnd.claim_of(seat) is None
            and not self.open_tasks_done_by(state, dryer)
        )

    def _not_yet(self, state: WashDashState, seat: int) -> tuple[WashDashState, list[Verdict]]:
        """WD-19: the refusal of a card-less "done" that completes no open card. A press the
        seat has held is forgotten (a prompt: the state changes); without one nothing is
        held and nothing changes (refused, as a wrong "done" naming its card is, WD-7)."""
        rnd = state.current
        assert rnd is not None
        who = state.players[seat]
        cards = _list(list(rnd.open_tasks()))
        text = (
            f"{who}, not yet — the dryer completes none of the open task cards ({cards}). "
            "Keep trying, and press done again when it is finished."
        )
        if rnd.press_of(seat) is None:
            return state, [illegal(text, seat)]
        return evolve(state, current=rnd.without_press(seat)), [prompt(text, seat)]

    def open_tasks_done_by(self, state: WashDashState, dryer: Dryer) -> tuple[str, ...]:
        """The round's open task cards that ``dryer`` completes (this round's events and the
        ``extra_items`` option in force), in the order they were revealed: what a held press
        may mean (WD-17; the camera names its card when there is exactly one, WD-21)."""
        rnd, deck = state.current, self.deck_of(state)
        if rnd is None:
            return ()
        return tuple(
            c
            for c in rnd.open_tasks()
            if satisfies(deck[c].task, dryer, rnd.events, extra_items=state.extra_items).ok  # type: ignore[arg-type]
        )

    def _hold_press(
        self, state: WashDashState, seat: int, t_ns: int | None, dryer: Dryer | None
    ) -> tuple[WashDashState, list[Verdict]]:
        """WD-17: hold a card-less "done" for the tablet. A reading it carries is shown and
        kept with the press: it judges the card named later (WD-12), never a later one."""
        rnd = state.current
        assert rnd is not None
        who = state.players[seat]
        if rnd.claim_of(seat) is not None:
            return state, [illegal(f"{who} already completed a task this round.", seat)]
        if rnd.press_of(seat) is not None:
            return state, [info(f"{who} already pressed done: which task card?", seat)]
        dryers = state.dryers if dryer is None else _set(state.dryers, seat, dryer)
        numbered = state.held_press_order == PRESSED  # WD-8: its place when received
        new = evolve(state, current=rnd.with_press(seat, t_ns, dryer, numbered), dryers=dryers)
        ends = (
            f" With 2 players that ends the race: only {who} can score this round."
            if state.n == 2
            else ""
        )
        return new, [
            prompt(
                f"{who} pressed done: which task card did {who} complete? "
                "Tap the card on the tablet (the press time counts for the First bonus)." + ends,
                seat,
                choices=list(rnd.open_tasks()),
            )
        ]

    def _mistake_verdict(self, state: WashDashState, seat: int, card: str, why: str) -> Verdict:
        who = state.players[seat]
        lose = (
            " and one earlier task card of their choice"
            if earlier_tasks(state, self.deck_of(state), seat)
            else ""
        )
        return Verdict(
            Outcome.SCORE,
            f"Mistake: {who} took {card} — {why.rstrip('.')}. {who} loses {card}{lose}.",
            seat,
            {"card": card, "mistake": True},
        )

    def _on_dryer(self, state: WashDashState, event: Event) -> tuple[WashDashState, list[Verdict]]:
        deck = self.deck_of(state)
        seat = _seat(state, event)
        assert seat is not None
        dryer = _dryer(event.require("dryer"))
        who = state.players[seat]
        new = evolve(state, dryers=_set(state.dryers, seat, dryer))
        rnd = state.current
        claim = rnd.claim_of(seat) if rnd is not None else None
        if rnd is None or claim is None or claim.status != UNCHECKED:
            return new, [info(f"{who}'s dryer: {dryer.to_text()}.", seat)]
        why = _impossible(state, dryer)
        if why is not None:  # WD-12: judges nothing; the claim waits for a reading
            claims = _replace_claim(rnd, evolve(claim, reason=_waiting_reason(why)))
            new = evolve(new, current=evolve(rnd, claims=claims))
            return new, [self._read_again(state, seat, why, claim.card)]
        task = deck[claim.card].task
        assert task is not None
        was_over = round_over(state, deck)
        check = satisfies(task, dryer, rnd.events, extra_items=state.extra_items)
        if check.ok:
            claims = _replace_claim(rnd, evolve(claim, status=OK, reason=check.reason))
            verdicts = [legal(f"{who}'s {claim.card} is done. {check.reason}", seat)]
        elif state.wrong_done == RETRY:
            claims = tuple(c for c in rnd.claims if c.seat != seat)
            verdicts = [
                prompt(
                    f"{who}, not yet — {claim.card}: {check.reason} "
                    f"{claim.card} goes back on the table.",
                    seat,
                    card=claim.card,
                )
            ]
        else:
            claims = _replace_claim(rnd, evolve(claim, status=WRONG, reason=check.reason))
            verdicts = [self._mistake_verdict(state, seat, claim.card, check.reason)]
        new = evolve(new, current=evolve(rnd, claims=claims))
        if was_over and round_over(new, deck):
            before = allocation(state, deck).scores
            verdicts.extend(self._round_end(new, update=True, before=before))
        elif was_over:
            verdicts.append(info(f"Round {rnd.number} goes on: {claim.card} is open again."))
        return new, verdicts

    def _on_mistake(
        self, state: WashDashState, event: Event
    ) -> tuple[WashDashState, list[Verdict]]:
        seat = _seat(state, event)
        assert seat is not None
        why = event.get("reason") or "the table says it was not done correctly"
        if not isinstance(why, str):
            raise EventError("'reason' must be text")
        rnd = state.current
        claim = rnd.claim_of(seat) if rnd is not None else None
        who = state.players[seat]
        if rnd is None or claim is None:
            return state, [illegal(f"{who} has no task card from this round.", seat)]
        if claim.status == WRONG:
            return state, [illegal(f"{who}'s {claim.card} is already a mistake.", seat)]
        was_over = round_over(state, self.deck_of(state))
        claims = _replace_claim(rnd, evolve(claim, status=WRONG, reason=why))
        new = evolve(state, current=evolve(rnd, claims=claims))
        verdicts = [self._mistake_verdict(state, seat, claim.card, why)]
        if was_over:
            verdicts.extend(self._round_end(new, update=True))
        return new, verdicts

    def _on_forfeit(
        self, state: WashDashState, event: Event
    ) -> tuple[WashDashState, list[Verdict]]:
        deck = self.deck_of(state)
        seat = _seat(state, event)
        assert seat is not None
        card = _card_id(deck, event.require("card"))
        who = state.players[seat]
        if not round_over(state, deck):
            return state, [illegal("Mistakes are settled when the round is over.", seat)]
        if seat not in allocation(state, deck).owed:
            return state, [illegal(self._nothing_owed(state, seat), seat)]
        if card not in earlier_tasks(state, deck, seat):
            options = ", ".join(earlier_tasks(state, deck, seat))
            return state, [
                illegal(f"{card} is not one of {who}'s earlier task cards ({options}).", seat)
            ]
        rnd = state.current
        assert rnd is not None
        new = evolve(state, current=evolve(rnd, forfeits=(*rnd.forfeits, (seat, card))))
        verdicts = [
            score(
                f"{who} gives up {card} ({points(deck[card].points)}).",
                seat,
                card=card,
                points=-deck[card].points,
            )
        ]
        if game_over(new, deck):
            verdicts.append(self._game_end(new))
        return new, verdicts

    def _nothing_owed(self, state: WashDashState, seat: int) -> str:
        """Why a ``forfeit`` is refused for a seat that owes none (WD-11), said truly."""
        rnd = state.current
        assert rnd is not None
        who = state.players[seat]
        given = next((card for s, card in rnd.forfeits if s == seat), None)
        if given is not None:
            return f"{who} already gave up {given} for the mistake: one earlier card per mistake."
        claim = rnd.claim_of(seat)
        if claim is None or claim.status != WRONG:
            return f"{who} has no earlier card to give up: {who} made no mistake this round."
        return (
            f"{who} has no earlier task card to give up: losing {claim.card} is all the "
            "mistake costs."
        )

    # --- round end -----------------------------------------------------------------
    def _round_end(
        self,
        state: WashDashState,
        update: bool = False,
        before: tuple[int, ...] | None = None,
    ) -> list[Verdict]:
        """The round's result; ``update``: said again after a late reading or a mistake,
        "confirmed" when the scores are ``before``'s (a done that stood was read right)."""
        deck = self.deck_of(state)
        rnd = state.current
        assert rnd is not None
        alloc = allocation(state, deck)
        verb = "Round {n} is over"
        if update:
            same = before is not None and tuple(before) == tuple(alloc.scores)
            verb = "Round {n} result, confirmed" if same else "Round {n} result, corrected"
        parts = []
        for s, cards in enumerate(alloc.gained):
            if cards:
                pts = alloc.scores[s]
                parts.append(f"{state.players[s]} +{pts} ({', '.join(cards)})")
        summary = "; ".join(parts) if parts else "nobody scores"
        out = [
            Verdict(
                Outcome.ROUND_END,
                f"{verb.format(n=rnd.number)}: {summary}. Check each other's dryers, then "
                "empty them.",
                None,
                {"round": rnd.number, "scores": list(alloc.scores)},
            )
        ]
        if alloc.first_bonus_to is not None:  # a First bonus card was revealed (WD-8)
            out.append(
                score(
                    f"First bonus goes to {state.players[alloc.first_bonus_to]}, "
                    "the first to complete a task.",
                    alloc.first_bonus_to,
                )
            )
        for s in alloc.owed:
            out.append(
                prompt(
                    f"{state.players[s]} made a mistake: choose one earlier task card to give "
                    f"up ({', '.join(earlier_tasks(state, deck, s))}).",
                    s,
                )
            )
        if len(state.pile) == 0:
            out.append(self._game_end(state))
        else:
            nxt = next_revealer(state, deck)
            out.append(info(f"{state.players[nxt]} reveals the next round.", nxt))
        return out

    def _game_end(self, state: WashDashState) -> Verdict:
        deck = self.deck_of(state)
        alloc = allocation(state, deck)
        win = winners(state, deck, alloc)
        all_pts = totals(state, deck, alloc)
        names = _list([state.players[s] for s in win])
        text = f"{names} share the victory" if len(win) > 1 else f"{names} wins"
        pts = all_pts[win[0]]
        final = result_final(state, alloc)
        result = f"{text} with {points(pts)}."
        if not final:
            result = (
                f"For now {names} lead{'' if len(win) > 1 else 's'} with {points(pts)}: "
                f"{self._unsettled(state, alloc)}."
            )
        return Verdict(
            Outcome.GAME_END,
            f"The draw pile is empty: game over. {result}",
            None,
            {"winners": list(win), "totals": list(all_pts), "final": final},
        )

    @staticmethod
    def _unsettled(state: WashDashState, alloc: Allocation) -> str:
        """What still may change the last round's result: owed forfeits (WD-11) and dryer
        readings still to see (WD-12)."""
        parts = []
        if alloc.owed:
            who = _list([state.players[s] for s in alloc.owed])
            parts.append(f"{who} must still give up a card for the mistake")
        waiting = [f"{state.players[c.seat]}'s dryer ({c.card})" for c in unchecked(state)]
        if waiting:
            parts.append(f"waiting for {_list(waiting)}")
        return "; ".join(parts)

    # --- read-outs -----------------------------------------------------------------
    def scoreboard(self, state: WashDashState) -> Scoreboard:
        deck = self.deck_of(state)
        over = round_over(state, deck)
        alloc = allocation(state, deck)
        rounds = state.rounds + ((alloc.scores,) if over else ())
        last = game_over(state, deck)  # no round to reveal: the pile is empty
        # WD-11, WD-12: a mistake's earlier card still to give up, or a dryer reading still
        # to see, may change the totals, so the result is not final (the GAME_END verdict
        # says "final": False) and nobody has won yet; the rules' standing (WD-14) is only
        # who leads for now
        finished = last and result_final(state, alloc)
        standing = winners(state, deck, alloc)
        held = holdings(state, deck, alloc)
        return Scoreboard(
            game=self.name,
            players=state.players,
            totals=totals(state, deck, alloc),
            round=len(state.rounds) + (1 if state.current is not None else 0),
            turn=next_revealer(state, deck) if state.started and not last else None,
            rounds=rounds,
            finished=finished,
            winners=standing if finished else (),
            lower_is_better=False,
            extra={"cards": [len(h) for h in held], "owed_forfeit": list(alloc.owed)},
            leading=standing,  # most points, then fewest cards (WD-14), as ``winners``
        )

    def view(self, state: WashDashState) -> dict[str, Any]:
        deck = self.deck_of(state)
        rnd = state.current
        alloc = allocation(state, deck)
        table = []
        if rnd is not None:
            for c in rnd.revealed:
                claim = rnd.claim_for(c)
                table.append(
                    {
                        **deck[c].to_dict(),
                        "taken_by": None if claim is None else claim.seat,
                    }
                )
        return {
            "phase": self._phase(state),
            "active": None if rnd is None else rnd.active,
            "round": None if rnd is None else rnd.number,
            "draw_pile": len(state.pile),
            "boxed": len(state.boxed),
            "table": table,
            "events_in_force": sorted(e.value for e in rnd.events) if rnd is not None else [],
            "claims": [c.to_dict() for c in rnd.claims] if rnd is not None else [],
            # pads' "done" presses waiting for their card (WD-17), with the reading the
            # press carried when it did (it judges the card named, WD-12)
            "presses": self._presses_view(rnd),
            "cards": [list(h) for h in holdings(state, deck, alloc)],
            "discarded": list(state.discarded) + list(alloc.discarded),
            "dryers": [None if d is None else d.to_dict() for d in state.dryers],
            "owed_forfeit": list(alloc.owed),
            "first_bonus_to": alloc.first_bonus_to,
            "options": {
                "wrong_done": state.wrong_done,
                "extra_items": state.extra_items,
                "impossible_reading": state.impossible_reading,
                "held_press_order": state.held_press_order,
            },
        }

    @staticmethod
    def _presses_view(rnd: Round | None) -> list[dict[str, Any]]:
        """The held presses; ``dryer`` only for one that carried a reading, so that a tablet
        can say what it reads (a button's press never does)."""
        if rnd is None:
            return []
        out: list[dict[str, Any]] = []
        for seat, t_ns in rnd.presses:
            item: dict[str, Any] = {"seat": seat, "t_ns": t_ns}
            reading = rnd.press_dryer(seat)
            if reading is not None:
                item["dryer"] = reading.to_dict()
            out.append(item)
        return out

    def table(self, state: WashDashState) -> list[TableLine]:
        return table_lines(state, self.deck_of(state))

    def _phase(self, state: WashDashState) -> str:
        deck = self.deck_of(state)
        if not state.started:
            return "setup"
        if game_over(state, deck):
            return "over"
        if state.current is None or round_over(state, deck):
            return "between_rounds"
        if needs_task(state.current):
            return "draw_on"
        return "racing"


def _set(items: tuple[Dryer | None, ...], seat: int, value: Dryer) -> tuple[Dryer | None, ...]:
    return items[:seat] + (value,) + items[seat + 1 :]


def _impossible(state: WashDashState, dryer: Dryer | None) -> str | None:
    """Why a reading cannot be real (each player has one of each piece and pin), or None.
    Only with ``impossible_reading: ask`` (WD-12); with ``judge`` (stored games set up
    before day 34) the claim is judged on it and fails, so old logs replay as they did."""
    if state.impossible_reading != ASK:
        return None
    problems = [] if dryer is None else dryer.problems()
    return "; ".join(problems) if problems else None


def _waiting_reason(why: str | None) -> str:
    """An unchecked claim's reason: no reading yet, or none that can be right."""
    return "no dryer reading yet" if why is None else f"the dryer reading cannot be right: {why}"


def _with_claim(
    rnd: Round,
    seat: int,
    card: str,
    arrival: int | None,
    t_ns: int | None,
    status: str,
    reason: str,
) -> Round:
    """The round with the seat's claim added: at ``arrival``, the number its held press took
    when received (WD-8, ``held_press_order: pressed``), else at the next number."""
    if arrival is not None:
        return evolve(rnd, claims=(*rnd.claims, Claim(seat, card, arrival, t_ns, status, reason)))
    claim = Claim(seat, card, rnd.arrivals, t_ns, status, reason)
    return evolve(rnd, claims=(*rnd.claims, claim), arrivals=rnd.arrivals + 1)


def _replace_claim(rnd: Round, claim: Claim) -> tuple[Claim, ...]:
    return tuple(claim if c.seat == claim.seat else c for c in rnd.claims)


@lru_cache(maxsize=8)
def _with_deck(text: str) -> WashDash:
    """The rules for a recorded deck (its JSON text): read once, as a replay asks often (each
    card is checked to be possible, as in the deck file)."""
    try:
        return WashDash(game_deck(json.loads(text)))
    except DeckError as exc:
        raise GameError(f"the game's deck: {exc}") from None


GAME = WashDash()


def _open_cards(n: int) -> str:
    """ "1 task card is", "3 task cards are": the words for the cards still on the table."""
    return "1 task card is" if n == 1 else f"{n} task cards are"
