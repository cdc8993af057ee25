"""The checks of one game's rules over a playout: replay, listing, conservation, secrecy,
shapes and questions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from random import Random
from typing import Any

import msgspec

from games.api import IllegalAction, Rules, fold
from games.testing.playouts import Playout, card_ids_in, tag


def check_playout(rules: Rules[Any, Any, Any, Any], playout: Playout) -> None:
    """All the generic checks on one finished playout."""
    final = playout.states[-1]
    assert rules.outcome(final) is not None, f"seed {playout.seed}: finished without an outcome"
    assert fold(rules, playout.events) == final, f"seed {playout.seed}: replay differs"
    rng = Random(playout.seed)
    for state in playout.states:
        check_conservation(rules, state, playout.seed)
        for seat in sorted(rules.to_act(state)):
            actions = list(rules.legal_actions(state, seat))
            assert actions, f"seed {playout.seed}: seat {seat} to act with no legal action"
            for action in actions:  # every listed action is accepted as-is
                rules.decide(state, seat, action, Random(rng.random()))
            wire = msgspec.json.encode(actions)  # and survives the wire
            assert (
                msgspec.json.decode(wire, type=list.__class_getitem__(rules.action_type)) == actions
            )
            check_questions(rules, state, seat, actions)
    check_secrecy(rules, playout)


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


def check_listing(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    seat: int,
    candidates: Iterable[Any],
    seed: int = 0,
    same: Callable[[Any, Any], bool] | None = None,
) -> None:
    """`legal_actions` lists every move: each candidate `decide` accepts has a listed action
    with the same result (the same state after it, given the same random draws), and no two
    listed actions have the same result (under three draws: chance may merge two under one). An answer `unavailable` says is refused is refused
    for every candidate of its type, and for one at least with the code it gives. `same` compares two resulting states where the rules
    ignore a difference (which of two identical copies pays); plain equality by default.

    The candidates are a brute-force oracle each game's suite generates for a position."""
    same = same or (lambda a, b: bool(a == b))

    def attempt(action: Any, draws: int = seed) -> tuple[Any | None, str | None]:
        """The state after `action`, or the code it is refused with."""
        try:
            events = rules.decide(state, seat, action, Random(draws))
        except IllegalAction as exc:
            return None, exc.code
        return fold(rules, events, state), None

    def twins(a: Any, b: Any) -> bool:
        """The same result under other draws too: chance events after a move (a reshuffle, an
        event card) may make two different moves end alike under one draw, never under all."""
        return all(same(attempt(a, d)[0], attempt(b, d)[0]) for d in (seed + 1, seed + 2))

    def result(action: Any) -> Any | None:
        return attempt(action)[0]

    listed = list(rules.legal_actions(state, seat))
    outcomes = [result(a) for a in listed]
    for action, outcome in zip(listed, outcomes, strict=True):
        assert outcome is not None, f"seat {seat}: listed but refused: {action}"
    for i, outcome in enumerate(outcomes):
        twin = next(
            (
                listed[j]
                for j in range(i)
                if same(outcomes[j], outcome) and twins(listed[j], listed[i])
            ),
            None,
        )
        assert twin is None, f"seat {seat}: {listed[i]} and {twin} have the same result"
    unavailable = {u.type: u.code for u in rules.unavailable(state, seat)}
    codes: dict[str, set[str]] = {t: set() for t in unavailable}  # what refused each of them
    for candidate in candidates:
        outcome, refused = attempt(candidate)
        if refused is not None:
            if tag(candidate) in codes:
                codes[tag(candidate)].add(refused)
            continue
        assert tag(candidate) not in unavailable, f"seat {seat}: unavailable, yet {candidate}"
        assert any(same(outcome, o) for o in outcomes), (
            f"seat {seat}: accepted but not listed (nor any move with its result): {candidate}"
        )
    for type_, code in unavailable.items():  # the reason given is what decide says
        assert not codes[type_] or code in codes[type_], f"seat {seat}: {type_} is not {code}"
