"""A seat's guess at what it cannot see: a state the rules could reach, with the same view."""

from __future__ import annotations

from msgspec.structs import replace

from games.api import Rng
from games.itchy_feet.content import Content
from games.itchy_feet.flow import POSTCARDS_TO_WIN
from games.itchy_feet.model import KeepOne, State, TradeOffer


def sample(content: Content, state: State, seat: int, rng: Rng) -> State:
    """Deal the cards `seat` cannot see at random, keeping each hand's size.

    Only cards a hand can hold are dealt (an event is played when drawn, never held);
    cards everyone knows the place of (offered in an open trade) stay where they are; and
    no seat is left holding the four postcards it would already have won with."""
    others = [s for s in range(state.seats) if s != seat]
    shown = set(state.pending.give) if isinstance(state.pending, TradeOffer) else set()
    events = [c for c in state.draw_pile if content.type(c) == "event"]
    pool = [c for c in state.draw_pile if content.type(c) != "event"]
    pool += [c for s in others for c in state.hands[s] if c not in shown]
    rng.shuffle(pool)
    hands = [list(h) for h in state.hands]
    for s in others:
        for i, card in enumerate(hands[s]):
            if card not in shown:
                hands[s][i] = pool.pop()
    pending = state.pending
    undecided: dict[int, int] = {}  # seat: how many of its last cards are still undecided
    if isinstance(pending, KeepOne) and pending.seat != seat:
        undecided[pending.seat] = len(pending.cards)
    if state.options.postcards:
        _spread_postcards(content, hands, pool, others, shown, undecided, rng)
    if isinstance(pending, KeepOne) and pending.seat != seat:  # its cards, re-dealt
        pending = KeepOne(
            seat=pending.seat, cards=tuple(hands[pending.seat][-len(pending.cards) :])
        )
    return replace(
        state,
        hands=tuple(tuple(h) for h in hands),
        draw_pile=tuple(sorted(events + pool)),
        pending=pending,
    )


def _spread_postcards(
    content: Content,
    hands: list[list[str]],
    pile: list[str],
    others: list[int],
    shown: set[str],
    undecided: dict[int, int],
    rng: Rng,
) -> None:
    """Swap postcards out of any hand dealt four (the real deal shows a swap always exists:
    with five postcards in all, every other hand then holds at most one)."""

    def counted(s: int) -> list[int]:  # positions of the postcards that count for a win
        end = len(hands[s]) - undecided.get(s, 0)
        return [i for i in range(end) if content.type(hands[s][i]) == "postcard"]

    for s in others:
        while len(over := counted(s)) >= POSTCARDS_TO_WIN:
            i = rng.choice([i for i in over if hands[s][i] not in shown])
            slots: list[tuple[list[str], int]] = [
                (pile, j) for j, c in enumerate(pile) if content.type(c) != "postcard"
            ]
            slots += [
                (hands[t], j)
                for t in others
                if t != s
                for j, c in enumerate(hands[t])
                if c not in shown and content.type(c) != "postcard"
            ]
            place, j = rng.choice(slots)
            hands[s][i], place[j] = place[j], hands[s][i]
