"""The generic checks of one playout's states, events and views (DESIGN.md): where every card
lies, what each seat is shown, what the wire carries. Pure: no randomness of its own, so the
seeded driving of the checks stays in games/testing.py."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from games.api import Rules


class Playout(msgspec.Struct, kw_only=True):
    seed: int
    seats: int
    events: list[Any]
    states: list[Any]  # state after each decided batch, the set-up state first
    steps: int


def card_ids_in(value: Any, known: frozenset[str]) -> set[str]:
    """Every known card id found anywhere in a (JSON-able) value."""
    found: set[str] = set()
    stack = [msgspec.to_builtins(value)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in known:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def tag(action: Any) -> str:
    """An action's `type`, as the wire has it."""
    return str(type(action).__struct_config__.tag)


def check_questions(
    rules: Rules[Any, Any, Any, Any], state: Any, seat: int, actions: list[Any]
) -> None:
    """The seat's questions (games/questions.py) are in its view, and only there: every
    listed answer names one of them, and an answer the rules refuse now (`unavailable`) is
    not listed, with a code and a reason to show."""
    asked = (rules.view(state, seat).private or {}).get("questions", [])  # none: no questions
    for action in actions:
        named = getattr(action, "question", None)
        if named is not None:
            assert msgspec.to_builtins(named) in asked, f"{action} answers no question of {seat}"
    listed = {tag(a) for a in actions}
    for refused in rules.unavailable(state, seat):
        assert asked, f"seat {seat}: {refused.type} is unavailable, but no question is open"
        assert refused.type not in listed, f"seat {seat}: {refused.type} listed and unavailable"
        assert refused.code and refused.message, f"seat {seat}: no reason for {refused.type}"


def check_shapes(rules: Rules[Any, Any, Any, Any], playout: Playout, stride: int = 3) -> None:
    """Views and redacted events are what the JSON Schemas say (games/schemas.py): every
    `stride`-th state's view and event, as each seat and a spectator see it, is exactly a
    `view_type` / an `event_type` (a redaction may not blank a field its type requires)."""
    seats: list[int | None] = [None, *range(playout.seats)]

    def same(value: Any, type_: Any, what: str) -> None:
        wire = msgspec.json.decode(msgspec.json.encode(value))
        typed = msgspec.convert(wire, type_)  # raises on a missing or mistyped field
        again = msgspec.json.decode(msgspec.json.encode(typed))
        assert again == wire, f"seed {playout.seed}: {what} has fields its type does not name"

    for state in playout.states[::stride]:
        for seat in seats:
            same(rules.view(state, seat), rules.view_type, f"seat {seat}'s view")
    for event in playout.events[::stride]:
        for seat in seats:
            if (seen := rules.redact(event, seat)) is not None:
                same(seen, rules.event_type, f"seat {seat}'s copy of {type(event).__name__}")


def check_conservation(rules: Rules[Any, Any, Any, Any], state: Any, seed: int) -> None:
    counts = Counter(c for cards in rules.inventory(state).values() for c in cards)
    doubled = [c for c, n in counts.items() if n > 1]
    assert not doubled, f"seed {seed}: cards in two places: {doubled[:5]}"
    expected = rules.all_cards()  # type: ignore[attr-defined]
    assert set(counts) == expected, f"seed {seed}: cards lost or invented"


def check_secrecy(rules: Rules[Any, Any, Any, Any], playout: Playout) -> None:
    """No view or redacted event of seat B names a card seat A holds in secret.

    A card in A's hand is public once a spectator's copy of an event names it while it is
    there or as it enters (a card taken from a marketplace, offered in a trade); it is known
    to B alone if B held it just before (B was robbed of it, or passed it on). Either lasts
    until the card leaves A's hand. Anything else B's copies name in A's hand is a leak.
    """
    known_ids = rules.all_cards()  # type: ignore[attr-defined]
    seats = range(playout.seats)
    state: Any = None
    held: dict[int, frozenset[str]] = {s: frozenset() for s in seats}
    openly: dict[int, set[str]] = {s: set() for s in seats}
    knows: dict[tuple[int, int], set[str]] = {(b, a): set() for b in seats for a in seats}
    for event in playout.events:
        state = rules.evolve(state, event)
        now = {s: rules.holdings(state, s) for s in seats}
        public = card_ids_in(rules.redact(event, None), known_ids)
        for s in seats:
            openly[s] = (openly[s] & now[s]) | (now[s] & public)
        for seat in [None, *seats]:
            seen = card_ids_in(rules.redact(event, seat), known_ids)
            seen |= card_ids_in(rules.view(state, seat), known_ids)
            for owner in seats:
                if owner == seat:
                    continue
                allowed = set(openly[owner])
                if seat is not None:
                    learned = knows[seat, owner] & now[owner]
                    learned |= now[owner] & held[seat] & seen  # it was mine a moment ago
                    knows[seat, owner] = learned
                    allowed |= learned
                leak = (seen & now[owner]) - allowed
                assert not leak, f"seed {playout.seed}: seat {seat} sees {owner}'s {leak}"
        held = now
