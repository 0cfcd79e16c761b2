"""``apply(state, event)``: every Hit the Deck event kind, checked and carried out.

Illegal events return the very same state with one ``illegal`` verdict; malformed ones
raise ``EventError``. After every accepted event ``flow.settle`` draws penalty cards,
asks for a reshuffle when the draw pile runs out, and ends the round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from referee.cards import CardParseError
from referee.events import Event, EventError
from referee.frozen import evolve
from referee.hands import Hidden
from referee.hitthedeck import known, slaps
from referee.hitthedeck.cards import HtdCard, Type, format_card, parse_card
from referee.hitthedeck.flow import finish_round, settle
from referee.hitthedeck.rules import can_play, hand_points, play_problem, playable
from referee.hitthedeck.state import (
    HtdState,
    Need,
    Phase,
    Pile,
    Race,
    Requirement,
    ShuffleWhy,
)
from referee.jsonlines import shown
from referee.summary import cards as cards_text
from referee.verdicts import Verdict, illegal, info, legal, prompt

Result = tuple[HtdState, list[Verdict]]

# Events that move the game on; they may not happen while a slap race is open (HTD-13).
# HTD-15, option ``late_fake_out``: a fake-out reported after the round's last card is paid
# (games set up from day 37), or ignored (stored games: their logs replay as they did)
PAID, IGNORED = "paid", "ignored"
TURN_KINDS = frozenset({"deal", "turn_up", "shuffle", "play", "draw", "pass", "cut", "flip"})
# After these a forgotten yell can no longer be reported (HTD-18), even in an ended round.
NEXT_ACTIONS = TURN_KINDS | {"hand"}


class Illegal(Exception):
    """A rule was broken: the event is refused with this sentence."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat


class NotNow(Illegal):
    """Refused because of where the game stands (no round being played, a chore to do
    first), not because of the move itself. After a late race close (HTD-13) such a refusal
    is about the judged race, which the refused event may not keep, so ``apply`` words it."""


# -- payload helpers (malformed → EventError) -------------------------------------------------
def _card(token: Any, what: str = "card") -> HtdCard:
    try:
        return parse_card(token)
    except CardParseError as exc:
        raise EventError(f"{what}: {exc}") from None


def _opt_card(event: Event, key: str = "card") -> HtdCard | None:
    token = event.get(key)
    return None if token is None else _card(token, key)


def _seat(state: HtdState, event: Event) -> int:
    if event.seat is None:
        raise EventError(f"event {shown(event.kind)} needs a seat")
    if not 0 <= event.seat < state.n:  # a negative seat too (an Event built in Python)
        raise EventError(f"seat {event.seat} is not at this table ({state.n} players)")
    return event.seat


def _int(event: Event, key: str, minimum: int = 0) -> int | None:
    value = event.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise EventError(f"{key!r} must be an integer ≥ {minimum}, got {shown(value)}")
    return value


def _pile(state: HtdState, value: Any, what: str) -> Pile:
    """A pile given as a list of card tokens (top first) or as a count of unseen cards."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        size = state.deck_size
        if value > size:  # and a count of 10**12 would fill the memory
            raise EventError(f"{what} cannot hold {shown(value)} cards: the deck has {size}")
        return (None,) * value
    if isinstance(value, list):
        return tuple(None if t in (None, "?") else _card(t, what) for t in value)
    raise EventError(f"{what} must be a list of cards or a number of cards, got {shown(value)}")


def _name(state: HtdState, seat: int) -> str:
    return state.players[seat]


# -- guards -----------------------------------------------------------------------------------
def _in_play(state: HtdState) -> None:
    if state.phase is Phase.DEAL or state.phase is Phase.ROUND_OVER:
        raise NotNow("No round is being played: deal the cards first.")
    if state.phase is Phase.SCORING:
        raise NotNow("The round is over: enter the remaining hands to score it.")
    if state.phase is Phase.GAME_OVER:
        raise NotNow("The game is over.")


def _no_chore(state: HtdState) -> None:
    if state.need is Need.TURN_UP:
        raise NotNow("First turn up the top card of the draw pile onto the discard pile.")
    if state.need is Need.SHUFFLE:
        raise NotNow("First shuffle the draw pile (see the last prompt).")


def _their_turn(state: HtdState, seat: int) -> None:
    _in_play(state)
    _no_chore(state)
    if seat != state.turn:
        raise Illegal(f"It is {_name(state, state.turn)}'s turn, not {_name(state, seat)}'s.", seat)


def _not_forced(state: HtdState, seat: int) -> None:
    if state.forced == "cut":
        raise Illegal("You must cut the deck: your turn ends after it, with no card played.", seat)
    if state.forced == "flip":
        raise Illegal("You must flip the deck: your turn ends after it, with no card played.", seat)


# -- moving on --------------------------------------------------------------------------------
def _advance(state: HtdState) -> HtdState:
    """The turn passes to the next player in the current direction."""
    return evolve(state, turn=state.next_seat(state.turn), drawn=(), forced=None)


def _take_effect(
    state: HtdState, card: HtdCard, by: int, t_ns: int | None, yelled: bool = True
) -> Result:
    """``card`` just landed on the discard pile as ``by``'s play; ``state.turn`` already
    names the next player. Word and Hit the Deck cards act on that player (HTD-3, HTD-6)."""
    nxt = _name(state, state.turn)
    if card.type is Type.NUMBER:
        return evolve(state, require=None), []
    if card.type is Type.CUT:
        state = evolve(state, require=None, forced="cut")
        return state, [prompt(f"{nxt} must cut the deck and may not play a card.", state.turn)]
    if card.type is Type.FLIP:
        state = evolve(state, require=None, forced="flip")
        return state, [prompt(f"{nxt} must flip the deck and may not play a card.", state.turn)]
    if card.type is Type.HIT_NUMBER:
        req = Requirement(number=card.number)
        return evolve(state, require=req), [
            prompt(f"{nxt} must play {req.describe()}, or draw a card.", state.turn)
        ]
    if card.type is Type.HIT_COLOR:
        req = Requirement(color=card.color)
        return evolve(state, require=req), [
            prompt(f"{nxt} must play {req.describe()}, or draw a card.", state.turn)
        ]
    return slaps.open_race(evolve(state, require=None), by, t_ns, yelled)


def _without(hand: Hidden[HtdCard], card: HtdCard) -> Hidden[HtdCard]:
    """``hand.remove(card)`` without ``dataclasses.replace`` (hot path of every play)."""
    known = hand.known
    if card in known:
        i = known.index(card)
        return Hidden(known[:i] + known[i + 1 :], hand.unknown)
    return Hidden(known, hand.unknown - 1)


def _set_hand(state: HtdState, seat: int, hand: Hidden[HtdCard]) -> HtdState:
    return evolve(state, hands=state.hands[:seat] + (hand,) + state.hands[seat + 1 :])


# -- handlers ---------------------------------------------------------------------------------
def _deal_input(state: HtdState, event: Event) -> tuple[list[Pile], Pile | None, int | None]:
    """A deal's hands, draw pile (None: not given) and dealer (None: HTD-2's), or EventError."""
    if event.seat is not None:
        _seat(state, event)  # HTD-27: past the table is malformed, as for every other event
    hands_in = event.require("hands")
    if not isinstance(hands_in, list) or len(hands_in) != state.n:
        raise EventError(f"'hands' must list {state.n} hands (card lists or counts)")
    hands = [_pile(state, h, f"hand {i}") for i, h in enumerate(hands_in)]
    draw_in = event.get("draw")
    draw_given = _pile(state, draw_in, "draw") if draw_in is not None else None
    dealer = _int(event, "dealer")
    if dealer is not None and dealer >= state.n:
        raise EventError(f"dealer {dealer} is not at this table")
    return hands, draw_given, dealer


def _check_input(state: HtdState, event: Event) -> None:
    """Raise ``EventError`` for a malformed event, whatever the game's state.

    Handlers read their payload before judging the move, but a turn event during a slap race
    (refused: "Wait", HTD-13), a shuffle nothing needs or a card turned up too soon was
    refused before its payload was read. Such a refusal is stored in the log, and an undo of
    an earlier event then re-judged it as the input error it is: the log no longer replayed.
    So every event's shape is checked first.
    """
    kind = event.kind
    # a kind that needs no seat ignores one not at the table, as stored games were judged
    # (the dashboard refuses such a seat before storing: web/services/games.py)
    if kind in ("play", "draw", "pass", "cut", "flip", "hand"):
        _seat(state, event)
    if kind == "play":
        _card(event.require("card"))
        if not isinstance(event.get("yelled", True), bool):
            raise EventError("'yelled' must be true or false")
    elif kind in ("turn_up", "draw", "cut", "flip"):
        _opt_card(event)
        if kind == "cut":
            _int(event, "at")
    elif kind == "shuffle" and event.get("draw") is not None:
        _pile(state, event.get("draw"), "draw")
    elif kind == "deal":
        _deal_input(state, event)


def _deal(state: HtdState, event: Event) -> Result:
    hands, draw_given, dealer = _deal_input(state, event)
    if state.phase not in (Phase.DEAL, Phase.ROUND_OVER):
        if state.phase is Phase.GAME_OVER:
            raise NotNow("The game is over.")
        raise Illegal("A round is still being played; finish it before dealing again.")
    size = state.option("hand_size")
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise Illegal(
                f"{_name(state, seat)} was dealt {cards_text(len(hand))}; deal {size} each."
            )
    dealt = sum(len(h) for h in hands)
    draw = draw_given if draw_given is not None else (None,) * max(0, state.deck_size - dealt)
    if not draw:
        raise Illegal("The draw pile is empty: there is no card to turn up.")
    named = dealer is not None
    first_round = state.round == 0
    if dealer is None:
        dealer = state.dealer
    if state.option("strict_deck"):
        _check_deck(state, hands, draw)
    n = state.n
    state = evolve(
        state,
        phase=Phase.PLAY,
        round=state.round + 1,
        dealer=dealer,
        hands=tuple(
            Hidden(tuple(c for c in h if c is not None), sum(c is None for c in h)) for h in hands
        ),
        draw=draw,
        discard=(),
        turn=(dealer + 1) % n,
        direction=1,
        forced=None,
        require=None,
        drawn=(),
        need=Need.TURN_UP,
        shuffle_why=None,
        reveal_by=dealer,
        reveal_ctx="start",
        race=None,
        closed_race=None,
        judged=None,
        held=(),
        action_ns=None,
        paid=(),
        owed=(0,) * n,
        out_seat=None,
        round_points=(),
    )
    verdicts = [
        legal(
            f"Round {state.round}: {_name(state, dealer)} dealt {size} "
            f"card{'s' if size != 1 else ''} each. "
            "Turn up the top card of the draw pile.",
            dealer,
        )
    ]
    if event.seat is not None and event.seat != dealer:
        verdicts.append(
            info(_not_the_dealer(state, event.seat, dealer, named, first_round), dealer)
        )
    return state, verdicts


def _not_the_dealer(state: HtdState, seat: int, dealer: int, named: bool, first: bool) -> str:
    """HTD-27: a deal entered for a seat that is not its dealer. The dealer is the deal's
    ``dealer`` or HTD-2's (as stored games were dealt); the seat is said, not dropped."""
    if named:
        why = f"the deal names {_name(state, dealer)} as its dealer."
    elif first:
        why = (
            "the first-named player deals the first round unless the deal names its dealer (HTD-2)."
        )
    else:
        why = "the deal passes to the left each round unless it names its dealer (HTD-2)."
    return (
        f"{_name(state, dealer)} deals, not {_name(state, seat)} whose seat the deal was "
        f"entered for: {why}"
    )


def _check_deck(state: HtdState, hands: list[Pile], draw: Pile) -> None:
    cards = [c for h in [*hands, draw] for c in h]
    if len(cards) != state.deck_size:
        raise Illegal(
            f"The deck has {state.deck_size} cards but {len(cards)} were dealt and piled."
        )
    seen = Counter(c for c in cards if c is not None)
    extra = seen - state.composition
    if extra:  # with the total right, no card over its count means exactly the deck
        what = ", ".join(f"{n} × {format_card(c)}" for c, n in sorted(extra.items(), key=str))
        raise Illegal(f"The deal names more of these cards than the deck holds: {what}.")


def _turn_up(state: HtdState, event: Event) -> Result:
    _in_play(state)
    if state.need is not Need.TURN_UP:
        raise Illegal("There is no card to turn up now.")
    card = _reveal_top(state, state.draw[0], _opt_card(event), "turned up")
    by = state.reveal_by if state.reveal_by is not None else state.dealer
    state = evolve(state, draw=state.draw[1:], discard=(card, *state.discard), need=None)
    said = f"{card.cap_name} was turned up."
    if state.reveal_ctx == "start" and card.type is Type.HAND:
        return _shuffle_back(state, card, ShuffleWhy.START_HAND), [
            prompt(
                f"{said} A Hand card can't start the pile: shuffle it back into the draw pile "
                "and turn up a new card. It was turned up, not played, so nobody slaps for it.",
                None,
                need="shuffle",
            )
        ]
    if state.reveal_ctx == "flip" and card.type is Type.FLIP:
        return _flip_on_flip(state, card, said)
    state, verdicts = _take_effect(state, card, by, event.t_ns)
    return state, [legal(said, None, card=format_card(card)), *verdicts]


def _reveal_top(state: HtdState, top: HtdCard | None, named: HtdCard | None, how: str) -> HtdCard:
    if top is None:
        if named is None:
            raise Illegal(f"Say which card was {how}: the referee could not see it.")
        return named
    if named is not None and named != top:
        raise Illegal(f"The card {how} is {top.name}, not {named.name}.")
    return top


def _shuffle_back(state: HtdState, card: HtdCard, why: ShuffleWhy) -> HtdState:
    """The card just turned up goes back into the draw pile, which must be shuffled."""
    return evolve(
        state,
        draw=(card, *state.draw),
        discard=state.discard[1:],
        need=Need.SHUFFLE,
        shuffle_why=why,
    )


def _flip_on_flip(state: HtdState, card: HtdCard, said: str) -> Result:
    """A Flip revealed by a flip is shuffled back and a new card turned up (rules; HTD-6)."""
    if all(c is not None and c.type is Type.FLIP for c in state.draw):  # also when empty
        return state, [
            legal(f"{said} Only Flip cards are left to turn up, so it stays (HTD-6).", None)
        ]
    return _shuffle_back(state, card, ShuffleWhy.FLIP_FLIP), [
        prompt(
            f"{said} A Flip revealed by a flip is shuffled back into the draw pile: shuffle it "
            "and turn up a new card.",
            None,
            need="shuffle",
        )
    ]


def _shuffle(state: HtdState, event: Event) -> Result:
    _in_play(state)
    if state.need is not Need.SHUFFLE:
        raise Illegal("Nothing needs shuffling now.")
    why = state.shuffle_why
    top: Pile = ()
    if why is ShuffleWhy.EMPTY:
        pool, top = state.discard[1:], state.discard[:1]
    else:
        pool = state.draw
    order_in = event.get("draw")
    if order_in is None:
        order: Pile = (None,) * len(pool)
    else:
        order = _pile(state, order_in, "draw")
        _check_same_cards(pool, order)
    if why is ShuffleWhy.EMPTY:
        state = evolve(state, draw=order, discard=top, need=None, shuffle_why=None)
        return state, [
            legal(
                "The discard pile (all but its top card) is the new draw pile: "
                f"{cards_text(len(order))}.",
                None,
            )
        ]
    state = evolve(state, draw=order, need=Need.TURN_UP, shuffle_why=None)
    return state, [legal("Shuffled. Turn up the top card of the draw pile.", None)]


def _check_same_cards(pool: Pile, order: Pile) -> None:
    """The named order must be the cards shuffled. A card nobody saw (``"?"``, or an order
    given as a count) may be any of them: a known card left unnamed is one of those, and a
    card named that the referee did not know was one of the pool's unseen cards."""
    if len(order) != len(pool):
        raise Illegal(f"The shuffled pile must have {cards_text(len(pool))}, not {len(order)}.")
    have = Counter(c for c in pool if c is not None)
    named = Counter(c for c in order if c is not None)
    missing = have - named
    if sum(missing.values()) > sum(c is None for c in order):
        what = ", ".join(c.name for c in sorted(missing.elements(), key=str))
        raise Illegal(f"The shuffled pile is missing {what}.")
    unknown = sum(c is None for c in pool)
    if sum((named - have).values()) > unknown:
        raise Illegal("The shuffled pile names cards that were not in the cards shuffled.")


def _play(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    card = _card(event.require("card"))
    yelled = event.get("yelled", True)
    if not isinstance(yelled, bool):
        raise EventError("'yelled' must be true or false")
    _their_turn(state, seat)
    _not_forced(state, seat)
    if state.drawn and state.drawn[0] is not None and state.drawn[0] != card:
        raise Illegal(
            f"After drawing you may only play the card you drew ({state.drawn[0].name}).", seat
        )
    hand = state.hands[seat]
    if not hand.can_remove(card):
        raise Illegal(f"{_name(state, seat)} has no {card.name} in hand.", seat)
    problem = play_problem(card, state.top, state.require)
    if problem:
        raise Illegal(problem, seat)
    answered = state.require is not None
    state = _set_hand(state, seat, _without(hand, card))
    state = evolve(state, discard=(card, *state.discard))
    state = _advance(state)
    said = f"{_name(state, seat)} played {card.name}."
    if answered:
        said += " That answers the Hit the Deck card; play is back to normal."
    # HTD-20: a last card ends the round and its action is void, unless the player pays a
    # fake-out (HTD-15) for a slap seen so far — held, or reported just after a judged race
    # and timed after this play — at this play or before the hands are scored: then they
    # draw 2 and do not run out.
    if (
        len(state.hands[seat]) == 0
        and card.type is not Type.HAND
        and not slaps.owes_fake_out(state, seat, event.t_ns)
    ):
        return evolve(state, require=None), [legal(said, seat, card=format_card(card))]
    state, verdicts = _take_effect(state, card, seat, event.t_ns, yelled)
    return state, [legal(said, seat, card=format_card(card)), *verdicts]


def _draw(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    named = _opt_card(event)
    _their_turn(state, seat)
    _not_forced(state, seat)
    if state.drawn:
        raise Illegal("You already drew this turn: play the card you drew, or pass.", seat)
    hand = state.hands[seat]
    if state.option("must_play_if_able") and hand.unknown == 0:
        could = playable(hand.known, state.top, state.require)
        if could:
            raise Illegal(f"You can play {could[0].name}, so you may not draw (HTD-10).", seat)
    if not state.draw:
        state = _advance(state)
        return state, [
            legal(
                "The draw pile is empty and there is nothing to reshuffle: the turn passes "
                f"to {_name(state, state.turn)} (HTD-22).",
                seat,
            )
        ]
    card = (
        _reveal_top(state, state.draw[0], named, "drawn")
        if state.draw[0] is not None or named is not None
        else None
    )
    state = _set_hand(state, seat, hand.add([card]) if card else hand.add(unknown=1))
    state = evolve(state, draw=state.draw[1:], drawn=(card,))
    if card is None:
        return state, [
            legal(f"{_name(state, seat)} drew a card.", seat),
            prompt("Play the card you drew if it matches, or pass.", seat),
        ]
    problem = play_problem(card, state.top, state.require)
    drew = f"{_name(state, seat)} drew {card.name}."
    if problem:
        state = _advance(state)
        return state, [
            legal(
                f"{drew} It can't be played, so the turn passes to {_name(state, state.turn)}.",
                seat,
                card=format_card(card),
            )
        ]
    if state.require is not None:
        return state, [
            legal(drew, seat, card=format_card(card)),
            prompt(f"Play {card.name}: it answers the Hit the Deck card (HTD-11).", seat),
        ]
    return state, [
        legal(drew, seat, card=format_card(card)),
        prompt(f"You may play {card.name}, or pass.", seat),
    ]


def _pass(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    _their_turn(state, seat)
    _not_forced(state, seat)
    if not state.drawn:
        raise Illegal("Play a card, or draw one, before passing.", seat)
    card = state.drawn[0]
    if card is not None and state.require is not None and can_play(card, state.top, state.require):
        raise Illegal(
            f"{card.cap_name} answers the Hit the Deck card, so you must play it (HTD-11).", seat
        )
    state = _advance(state)
    return state, [legal(f"{_name(state, seat)} passed; {_name(state, state.turn)}'s turn.", seat)]


def _cut(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    named = _opt_card(event)
    at = _int(event, "at")
    _their_turn(state, seat)
    if state.forced != "cut":
        raise Illegal("Nobody played Cut the Deck on you: there is nothing to cut.", seat)
    pile = state.draw
    if not pile:
        state = _advance(state)
        return state, [legal("The draw pile is empty: there is nothing to cut (HTD-22).", seat)]
    if at is None:
        at = _cut_position(pile, named)
    if at >= len(pile):
        raise Illegal(
            f"The draw pile has only {cards_text(len(pile))}; cut above one of them.", seat
        )
    card = _reveal_top(state, pile[at], named, f"revealed by cutting {cards_text(at)}")
    state = evolve(state, draw=pile[:at] + pile[at + 1 :], discard=(card, *state.discard))
    state = _advance(state)
    said = f"{_name(state, seat)} cut the deck and revealed {card.name}; turn over."
    state, verdicts = _take_effect(state, card, seat, event.t_ns)
    return state, [legal(said, seat, card=format_card(card), at=at), *verdicts]


def _cut_position(pile: Pile, named: HtdCard | None) -> int:
    """Where the cut was, when the event does not say: about half (HTD-7)."""
    middle = len(pile) // 2
    if named is None:
        return middle
    spots = [i for i, c in enumerate(pile) if c == named] or [
        i for i, c in enumerate(pile) if c is None
    ]
    if not spots:
        raise Illegal(f"{named.cap_name} is not in the draw pile.")
    return min(spots, key=lambda i: (abs(i - middle), i))


def _flip(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    named = _opt_card(event)
    _their_turn(state, seat)
    if state.forced != "flip":
        raise Illegal("Nobody played Flip the Deck on you: there is nothing to flip.", seat)
    state = evolve(state, direction=-state.direction, forced=None, require=None)
    if not state.draw:
        state = _advance(state)
        return state, [
            legal(
                "The draw pile is empty: only the direction of play reverses (HTD-22); "
                f"{_name(state, state.turn)}'s turn.",
                seat,
            )
        ]
    new_discard = tuple(reversed(state.draw))
    new_draw = tuple(reversed(state.discard))
    card = _reveal_top(state, new_discard[0], named, "revealed by the flip")
    state = evolve(state, draw=new_draw, discard=(card, *new_discard[1:]))
    state = _advance(state)
    said = (
        f"{_name(state, seat)} flipped the deck and revealed {card.name}. Play reverses: "
        f"{_name(state, state.turn)}'s turn."
    )
    if card.type is Type.FLIP:
        state = evolve(state, reveal_by=seat, reveal_ctx="flip")
        state, verdicts = _flip_on_flip(state, card, said)
        return state, verdicts
    state, verdicts = _take_effect(state, card, seat, event.t_ns)
    return state, [legal(said, seat, card=format_card(card)), *verdicts]


def _slap(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    if event.t_ns is None:
        raise EventError("a slap needs t_ns (monotonic nanoseconds from its pad, camera or tablet)")
    if state.phase is not Phase.PLAY:
        return _slap_after_the_round(state, seat, event.t_ns)
    return slaps.slap(state, seat, event.t_ns)


def _slap_after_the_round(state: HtdState, seat: int, t_ns: int) -> Result:
    """A slap reported after the round ended is judged against the round as it ended
    (``state.ended``): one that would cost a fake-out there at once (timed before the last
    turn action, or before the Hand card whose race ended the round) is paid as it would be
    mid-round, so an echo or a lagging pad report costs the same either side of the last
    card (HTD-15: the times decide). Paid by the player who went out, they did not go out
    after all (HTD-20): the round goes on, their last card acting as usual; paid by another,
    the round is scored again with their penalty cards. Any other slap is ignored."""
    ended = state.ended if state.option("late_fake_out") == PAID else None
    judged, verdicts = slaps.slap(ended, seat, t_ns) if ended is not None else (state, [])
    if ended is None or judged.owed[seat] <= ended.owed[seat]:
        return state, [info("No round is being played: the slap is ignored.", seat)]
    what = "game" if state.phase is Phase.GAME_OVER else "round"
    name = _name(state, seat)
    if seat != state.out_seat:
        note = f"{name}'s slap came before the {what} ended: the round is scored again with "
        return judged, [*verdicts, info(f"{note}{name}'s penalty cards (HTD-15).", seat)]
    judged, more = _last_card_acts(judged, seat)
    note = (
        f"So {name} has not gone out: the {what} is not over after all and play goes on "
        f"with {_name(judged, judged.turn)} (HTD-20)."
    )
    return judged, [*verdicts, *more, info(note, seat, resumed=what)]


def _last_card_acts(state: HtdState, seat: int) -> Result:
    """A Cut, Flip or Hit card that was to end the round acts after all (HTD-20); a Hand
    card's race was run when it was played."""
    card = state.top
    if card is None or card.type is Type.HAND:
        return state, []
    return _take_effect(state, card, seat, None)


def _race_close(state: HtdState, event: Event) -> Result:
    last = event.get("last")
    seats_ok = isinstance(last, list) and all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s < state.n for s in last
    )
    if last is not None and not seats_ok:
        raise EventError(f"'last' must be a list of seats 0..{state.n - 1}")
    if state.race is not None:
        return slaps.close_race(state, last)
    if state.held:
        return slaps.resolve_held(state)
    if state.closed_race is not None or state.reopen is not None:
        # e.g. the pads' window timer after everyone slapped (or after the round ended)
        return state, [info("The slap race was already judged.")]
    raise Illegal("There is no slap race to close.")


def _forgot_yell(state: HtdState, event: Event) -> Result:
    if event.seat is not None:
        _seat(state, event)
    if state.race is None and state.closed_race is None and state.reopen is not None:
        return _resume_round(state, event)
    race = state.race or state.closed_race
    if race is None:
        raise Illegal("No Hit the Deck with a Hand card is waiting for its yell.")
    if event.seat is not None and event.seat != race.by:
        raise Illegal(
            f"{_name(state, race.by)} played the Hand card, so only they had to yell.", event.seat
        )
    if race.yell_penalised:
        raise Illegal(f"{_name(state, race.by)} already drew for not yelling.", race.by)
    return slaps.forgot_yell(state, race.by)


def _resume_round(state: HtdState, event: Event) -> Result:
    """A forgotten yell reported after its player went out on the Hand card.

    HTD-20: a player who forgot to yell draws and play goes on, so they did not go out after
    all: the round (and the game, HTD-21) resumes from just before it ended, the four cards
    owed. Allowed until the next action (HTD-18), i.e. while ``state.reopen`` is kept.
    """
    before = state.reopen
    assert before is not None and before.closed_race is not None
    by = before.closed_race.by
    if event.seat is not None and event.seat != by:
        raise Illegal(
            f"{_name(state, by)} played the Hand card, so only they had to yell.", event.seat
        )
    ended = "game" if state.phase is Phase.GAME_OVER else "round"
    resumed, verdicts = slaps.forgot_yell(before, by)
    note = info(
        f"So {_name(state, by)} has not gone out: the {ended} is not over after all and play "
        f"goes on with {_name(state, resumed.turn)} (HTD-20).",
        by,
        resumed=ended,
    )
    return resumed, [*verdicts, note]


def _hand(state: HtdState, event: Event) -> Result:
    seat = _seat(state, event)
    cards_in, points = event.get("cards"), _int(event, "points")
    if (cards_in is None) == (points is None):
        raise EventError("a hand needs either 'cards' (a list) or 'points' (a number)")
    cards = _pile(state, cards_in, "cards") if cards_in is not None else ()
    if any(c is None for c in cards):
        raise EventError("name every card of the hand, or give its points")
    if state.phase is not Phase.SCORING:
        raise Illegal("Hands are entered when a round is over.", seat)
    if state.round_points[seat] is not None:
        raise Illegal(f"{_name(state, seat)}'s hand is already scored.", seat)
    hand = state.hands[seat]
    if cards_in is not None:
        if len(cards) != len(hand):
            raise Illegal(
                f"{_name(state, seat)} holds {cards_text(len(hand))}, not {len(cards)}.", seat
            )
        missing = Counter(hand.known) - Counter(cards)
        if missing:
            what = ", ".join(c.name for c in missing.elements())
            raise Illegal(f"{_name(state, seat)} also holds {what}.", seat)
        shown = tuple(c for c in cards if c is not None)
        points = hand_points(shown)
        state = _set_hand(state, seat, Hidden(shown, 0))  # now seen: counts for HTD-1 checks
    assert points is not None
    problem = known.points_problem(state, seat, points)
    if problem:
        raise Illegal(problem, seat)
    pts = list(state.round_points)
    pts[seat] = points
    state = evolve(state, round_points=tuple(pts))
    verdicts: list[Verdict] = [legal(f"{_name(state, seat)} scores {points}.", seat, points=points)]
    if all(p is not None for p in pts):
        state, more = finish_round(state)
        verdicts += more
    return state, verdicts


HANDLERS: Mapping[str, Callable[[HtdState, Event], Result]] = {
    "deal": _deal,
    "turn_up": _turn_up,
    "shuffle": _shuffle,
    "play": _play,
    "draw": _draw,
    "pass": _pass,
    "cut": _cut,
    "flip": _flip,
    "slap": _slap,
    "race_close": _race_close,
    "forgot_yell": _forgot_yell,
    "hand": _hand,
}


def _named(event: Event) -> list[HtdCard]:
    """The cards an event shows face up (turned up, played, drawn, revealed, a hand)."""
    return [_card(t, event.kind) for t in known.named_by(event.kind, event.payload)]


def _in_the_deck(state: HtdState, cards: list[HtdCard]) -> None:
    """HTD-1: a card named face up must be one of the game's deck (checked before the rules,
    so a misread card is named as such rather than as a bad play)."""
    for card in cards:
        problem = known.missing_from_deck(card, state)
        if problem:
            raise Illegal(problem)


def _not_too_many(state: HtdState, cards: list[HtdCard]) -> None:
    """HTD-1: after the event, no card is placed more often than the deck holds it."""
    problem = known.too_many(state, cards)
    if problem:
        raise Illegal(problem)


def _wait(state: HtdState, race: Race) -> str:
    """Why a turn event must wait for the open slap race, and how that race will end."""
    waiting = sorted(set(range(state.n)) - slaps.slapped_seats(state, race))
    who = ", ".join(_name(state, s) for s in waiting)
    head = f"Wait: the slap race is still open ({who} still to slap)."
    if slaps.deadline(state, race) is not None:
        # the referee reads no clock: a race the pads' timer left open (its close undone)
        # is ended by race_close, which the family sends
        return (
            f"{head} It ends when everyone has slapped, when its time is up, or at a race_close "
            "naming who slapped last (HTD-13)."
        )
    # no slap has a time yet, so no clock will end it: a table without pads judges (HTD-14)
    seats = ", ".join(f"{_name(state, s)} {s}" for s in range(state.n))
    return (
        f"{head} No slap has a time, so the table judges it: once everyone has slapped, send "
        f"race_close with last: [the seat of whoever slapped last] — {seats} (HTD-14)."
    )


def _race_first(before: HtdState, judged: HtdState) -> str | None:
    """Why an event timed after the slap race's window must wait for the race to be ended.

    The event's time closed the race (HTD-13), and judging it ended the round or emptied the
    draw pile, so the event was refused. A refused event changes nothing, so the race is
    still open on the table's screen: a reason such as "No round is being played" would
    make no sense there. None when the judging changed neither.
    """
    if judged.phase is not before.phase:
        ends = "the game" if judged.phase is Phase.GAME_OVER else "the round"
        return (
            f"The slap race's time is up, and judging it ends {ends}: "
            "end the slap race first (race_close, HTD-13)."
        )
    if judged.need is Need.SHUFFLE and before.need is None:
        return (
            "The slap race's time is up, and its penalty cards empty the draw pile: "
            "end the slap race first (race_close), then reshuffle (HTD-13, HTD-19)."
        )
    return None


def apply(state: HtdState, event: Event) -> Result:
    """The next state and the verdicts (see module docstring)."""
    handler = HANDLERS.get(event.kind)
    if handler is None:
        raise EventError(
            f"unknown event kind {shown(event.kind)} for Hit the Deck; known: {', '.join(HANDLERS)}"
        )
    _check_input(state, event)
    start = state
    verdicts: list[Verdict] = []
    named = _named(event) if state.option("strict_deck") else []
    judged: HtdState | None = None  # the state after a race this event's time closed
    try:
        _in_the_deck(state, named)
        late_closers = event.kind not in ("slap", "race_close")
        if late_closers and state.race is not None and event.t_ns is not None:
            end = slaps.deadline(state, state.race)
            if end is not None and event.t_ns > end:
                state, verdicts = slaps.close_race(state)  # the window has passed (HTD-13)
                state, more = settle(state)
                verdicts += more
                judged = state
        if event.kind in TURN_KINDS:
            if state.race is not None:
                raise Illegal(_wait(state, state.race))
            state = slaps.end_claim(state, event.t_ns)
        if event.kind in NEXT_ACTIONS and (state.reopen or state.ended) is not None:
            # too late to report the yell (HTD-18), or a slap before the round's end, now
            state = evolve(state, reopen=None, ended=None)
        state, more = handler(state, event)
        verdicts += more
        opened = state.race is not None or state.closed_race is not None  # a Hand card's
        if event.kind in TURN_KINDS and state.after_race and not opened:
            state = slaps.release_after_race(state, event.t_ns)  # no Hand card claimed them
        _not_too_many(state, named)
        if event.kind in TURN_KINDS and event.kind != "deal":
            state, more = slaps.at_action(state, event.t_ns)  # fake-outs before it (HTD-15)
            verdicts += more
    except Illegal as exc:
        seat = exc.seat if exc.seat is not None else event.seat
        reason = exc.reason
        if judged is not None and isinstance(exc, NotNow):
            reason = _race_first(start, judged) or reason
        return start, [illegal(reason, seat)]
    state, more = settle(state)
    return state, verdicts + more
