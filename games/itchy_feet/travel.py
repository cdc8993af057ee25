"""Where a player travels next, what it takes, and which cards they can best spare."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from games.itchy_feet.content import Content
from games.itchy_feet.model import State

MAP = "poorly-drawn-map"


def destination(state: State, seat: int) -> tuple[Literal["home", "centre"], str]:
    """("home", country) until home is visited, then ("centre", country)."""
    if state.visited_home[seat]:
        return "centre", state.centre
    return "home", state.homes[seat]


def needed_items(content: Content, state: State, seat: int) -> tuple[str, ...]:
    return content.countries[destination(state, seat)[1]].items


def payment(content: Content, hand: Sequence[str], needed: Sequence[str]) -> tuple[str, ...] | None:
    """One card per needed item, a Poorly Drawn Map standing in for any one; None if short."""
    chosen: list[str] = []
    missing = 0
    for kind in needed:
        copies = sorted(c for c in hand if content.kind(c) == kind)
        if copies:
            chosen.append(copies[0])
        else:
            missing += 1
    maps = sorted(c for c in hand if content.kind(c) == MAP)
    if missing > len(maps):
        return None
    return (*chosen, *maps[:missing])


def missing_kinds(content: Content, state: State, seat: int) -> list[str]:
    """What the seat still lacks to travel: items (maps count), a passport."""
    hand = state.hands[seat]
    kinds = [
        k for k in needed_items(content, state, seat) if not any(content.kind(c) == k for c in hand)
    ]
    maps = sum(1 for c in hand if content.kind(c) == MAP)
    kinds = kinds[maps:]
    if not any(content.kind(c) == "passport" for c in hand):
        kinds.append("passport")
    return kinds


def value(content: Content, state: State, seat: int, card: str) -> int:
    """How much the seat would miss a card: the lowest are spent first."""
    hand = state.hands[seat]
    kind, type_ = content.kind(card), content.type(card)
    if type_ == "passport":
        return 90 if sum(1 for c in hand if content.kind(c) == "passport") == 1 else 5
    if kind in needed_items(content, state, seat):
        first = min(c for c in hand if content.kind(c) == kind)
        return 80 if card == first else 6
    if type_ == "postcard":
        return 30 + 10 * sum(1 for c in hand if content.type(c) == "postcard")
    if type_ == "special":
        return 40 if kind == MAP else 25
    if type_ == "forbidden":
        return -10
    return 0


def spare(
    content: Content, state: State, seat: int, count: int, usable: bool = True
) -> tuple[str, ...] | None:
    """The `count` cards the seat can best spare (forbidden items excluded when paying)."""
    hand = [c for c in state.hands[seat] if not (usable and content.type(c) == "forbidden")]
    if len(hand) < count:
        return None
    ranked = sorted(hand, key=lambda c: (value(content, state, seat, c), c))
    return tuple(ranked[:count])
