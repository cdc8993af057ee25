"""Where a player travels next and what it takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from games.itchy_feet.content import Content
from games.itchy_feet.model import (
    State,
)

MAP = "poorly-drawn-map"


def destination(state: State, seat: int) -> tuple[Literal["home", "centre"], str]:
    """("home", country) until home is visited, then ("centre", country)."""
    if state.visited_home[seat]:
        return "centre", state.centre
    return "home", state.homes[seat]


def needed_items(content: Content, state: State, seat: int) -> tuple[str, ...]:
    return content.countries[destination(state, seat)[1]].items


def payment(content: Content, hand: Sequence[str], needed: Sequence[str]) -> tuple[str, ...] | None:
    """One card per needed item held, a Poorly Drawn Map for each one missing; None if short.

    The only payment there is, up to copies of a kind: a map stands only for an item the
    hand lacks ("counts as any one item you are missing")."""
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
