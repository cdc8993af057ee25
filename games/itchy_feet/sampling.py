"""A seat's guess at what it cannot see: a state the rules could reach, with the same view."""

from __future__ import annotations

from msgspec.structs import replace

from games.api import Rng
from games.itchy_feet.content import Content
from games.itchy_feet.flow import POSTCARDS_TO_WIN
from games.itchy_feet.model import (
    KeepOne,
    State,
    TradeOffer,
)

TRIES = 1000  # a reachable state is one of the deals, and far likelier than 1 in 1000


def sample(content: Content, state: State, seat: int, rng: Rng) -> State:
    """Deal the cards `seat` cannot see at random, keeping each hand's size.

    Only cards a hand can hold are dealt (an event is played when drawn, never held);
    cards everyone knows the place of (offered in an open trade) stay where they are; and
    a deal that leaves a seat holding the four postcards it would already have won with is
    dealt again, so every deal the rules allow is as likely as any other."""
    others = [s for s in range(state.seats) if s != seat]
    offered = state.pending.give if isinstance(state.pending, TradeOffer) else ()
    shown = set(offered)
    events = [c for c in state.draw_pile if content.type(c) == "event"]
    hidden = [c for c in state.draw_pile if content.type(c) != "event"]
    hidden += [c for s in others for c in state.hands[s] if c not in shown]
    hidden.sort()  # the guess depends on which cards are hidden, not on where they lie
    pending = state.pending
    # another seat's Planner holds its cards to choose from last: they count for no win yet
    planner = pending.seat if isinstance(pending, KeepOne) and pending.seat != seat else None
    undecided = pending.cards if isinstance(pending, KeepOne) else ()

    def counted(hand: list[str], s: int) -> list[str]:
        return hand[: len(hand) - len(undecided)] if s == planner else hand

    for _ in range(TRIES):
        pool = list(hidden)
        rng.shuffle(pool)
        # the cards everyone has seen offered lead their hand, in the offer's order: where
        # they lie in it is as hidden as the rest (their place said where, in the real hand)
        hands = [
            list(hand)
            if s == seat
            else [c for c in offered if c in hand] + [pool.pop() for c in hand if c not in shown]
            for s, hand in enumerate(state.hands)
        ]
        if not state.options.postcards or all(
            _postcards(content, counted(hands[s], s)) < POSTCARDS_TO_WIN for s in others
        ):
            break
    else:
        raise ValueError("no deal of the hidden cards is a state the rules can reach")
    if planner is not None:  # its cards to choose from, re-dealt
        pending = KeepOne(seat=planner, cards=tuple(hands[planner][-len(undecided) :]))
    guess = replace(
        state,
        hands=tuple(tuple(h) for h in hands),
        draw_pile=tuple(sorted(events + pool)),
        pending=pending,
    )
    return _copies_in_order(content, guess, seat)


def _copies_in_order(content: Content, state: State, seat: int) -> State:
    """The guess with the copies `seat` cannot tell apart (every copy but its own hand's:
    the table sees the others by their kind) named in one fixed order, place by place: so
    the guess says nothing of which copy lies where in the real game."""
    own = set(state.hands[seat])
    free: dict[str, list[str]] = {}
    for card in sorted(content.alike):
        if card not in own and card != content.alike[card]:
            free.setdefault(content.kind(card), []).append(card)
    for copies in free.values():
        copies.reverse()  # popped from the end: the lowest first
    names: dict[str, str] = {}

    def name(cards: tuple[str, ...] | list[str]) -> None:
        for card in cards:
            if card not in own and card in content.alike and card != content.alike[card]:
                names[card] = free[content.kind(card)].pop()

    name(state.discard)
    name(state.box)
    for s in range(state.seats):
        if s != seat:
            name(state.hands[s])
    name(state.draw_pile)

    def renamed(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(names.get(c, c) for c in cards)

    pending = state.pending
    if isinstance(pending, TradeOffer):
        pending = replace(pending, give=renamed(pending.give))
    elif isinstance(pending, KeepOne):
        pending = replace(pending, cards=renamed(pending.cards))
    return replace(
        state,
        hands=tuple(h if s == seat else renamed(h) for s, h in enumerate(state.hands)),
        draw_pile=tuple(sorted(renamed(state.draw_pile))),
        discard=renamed(state.discard),
        box=tuple(sorted(renamed(state.box))),
        pending=pending,
    )


def _postcards(content: Content, cards: list[str]) -> int:
    return sum(1 for c in cards if content.type(c) == "postcard")
