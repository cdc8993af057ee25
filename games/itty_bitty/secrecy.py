"""What each seat may know: its view, its copy of each event, and a guess at the rest.

Hands are private; so is a completed collector, flipped face down: the others see the
ittybits laid down for it as they go to the discard and the coins taken, never which
collector it was. The view shows how many ittybits each face-down card took, not which:
those cards may since have been reshuffled and drawn into a hidden hand.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from games.api import Rng, View
from games.itty_bitty.model import (
    CollectorChoice,
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    Event,
    IttybitsDealt,
    IttybitTaken,
    State,
)


def view(state: State, seat: int | None, asked: tuple[CollectorChoice, ...] = ()) -> View:
    """What `seat` sees; `asked`: the questions it must answer (rules.py:IttyBitty.asked)."""
    public: dict[str, Any] = {
        "seats": state.seats,
        "first_seat": state.first_seat,
        "current": state.current,
        "turn": state.turn,
        "market": list(state.market),
        "supply": {
            "ittybits": len(state.ittybit_supply),
            "collectors": len(state.collector_supply),
        },
        "discard": {
            "ittybits": list(state.ittybit_discard),
            "collectors": list(state.collector_discard),
        },
        "players": [
            {
                "seat": s,
                "ittybits": len(h.ittybits),
                "collectors": len(h.collectors),
                "completed": [{"ittybits": len(d.ittybits), "coins": d.coins} for d in h.completed],
                "coins": h.coins,
                "choosing": len(h.choice),
            }
            for s, h in enumerate(state.hands)
        ],
        "end_triggered_by": state.end_triggered_by,
        "result": msgspec.to_builtins(state.result),
    }
    if seat is None or not 0 <= seat < state.seats:
        return View(public=public)
    hand = state.hands[seat]
    private = {
        "ittybits": list(hand.ittybits),
        "collectors": list(hand.collectors),
        "choice": list(hand.choice),
        "completed": [d.collector for d in hand.completed],
        "questions": [msgspec.to_builtins(q) for q in asked],
    }
    return View(public=public, private=private)


def redact(event: Event, seat: int | None) -> Event:
    match event:
        case IttybitsDealt(seat=owner) | CollectorsOffered(seat=owner) if owner != seat:
            return replace(event, cards=None)
        case CollectorKept(seat=owner) if owner != seat:
            return replace(event, kept=None)
        case IttybitTaken(seat=owner, from_market=False) if owner != seat:
            return replace(event, card=None)
        case CollectorCompleted(seat=owner) if owner != seat:
            return replace(event, collector=None, payments=None)
    return event


def sample(state: State, seat: int, rng: Rng) -> State:
    """Deal every card `seat` cannot see at random, keeping each pile's size and what the
    table saw of each face-down collector (its ittybits and coins)."""
    others = [s for s in range(state.seats) if s != seat]
    # sorted first: the guess depends on which cards are hidden, not on where they lie
    bits = sorted([*state.ittybit_supply, *(c for s in others for c in state.hands[s].ittybits)])
    cols = list(state.collector_supply)
    for s in others:
        h = state.hands[s]
        cols += [*h.collectors, *h.choice, *(d.collector for d in h.completed)]
    cols.sort()
    rng.shuffle(bits)
    rng.shuffle(cols)
    deal_bit, deal_col = iter(bits), iter(cols)
    hands = list(state.hands)
    for s in others:
        h = hands[s]
        hands[s] = replace(
            h,
            ittybits=tuple(next(deal_bit) for _ in h.ittybits),
            collectors=tuple(next(deal_col) for _ in h.collectors),
            choice=tuple(next(deal_col) for _ in h.choice),
            completed=tuple(replace(d, collector=next(deal_col)) for d in h.completed),
        )
    return replace(
        state,
        hands=tuple(hands),
        ittybit_supply=tuple(sorted(deal_bit)),  # what is left
        collector_supply=tuple(sorted(deal_col)),
    )
