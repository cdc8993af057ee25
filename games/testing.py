"""Generic checks every engine passes (DESIGN.md): run them over many seeded random games."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from random import Random
from typing import Any

import msgspec

from games.api import IllegalAction, Rules, fold


class Playout(msgspec.Struct, kw_only=True):
    seed: int
    seats: int
    events: list[Any]
    states: list[Any]  # state after each decided batch, the set-up state first
    steps: int


def random_playout(
    rules: Rules[Any, Any, Any, Any],
    seed: int,
    seats: int,
    options: Any = None,
    max_steps: int = 20_000,
    keep_states: bool = True,
) -> Playout:
    """Play one game with uniformly random legal actions; every seat in `to_act` is served."""
    rng = Random(seed)
    opts = options if options is not None else rules.options_type()
    events = list(rules.setup(opts, seats, rng))
    state = fold(rules, events)
    states = [state]
    steps = 0
    while rules.to_act(state):
        if steps >= max_steps:
            raise AssertionError(f"seed {seed}: no end after {max_steps} actions")
        seat = rng.choice(sorted(rules.to_act(state)))
        actions = rules.legal_actions(state, seat)
        assert actions, f"seed {seed}: seat {seat} is to act but has no legal action"
        new = rules.decide(state, seat, rng.choice(list(actions)), rng)
        assert new, f"seed {seed}: an accepted action produced no event"
        events.extend(new)
        state = fold(rules, new, state)
        if keep_states:
            states.append(state)
        steps += 1
    return Playout(seed=seed, seats=seats, events=events, states=states, steps=steps)


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


def tag(action: Any) -> str:
    """An action's `type`, as the wire has it."""
    return str(type(action).__struct_config__.tag)


def check_questions(
    rules: Rules[Any, Any, Any, Any], state: Any, seat: int, actions: list[Any]
) -> None:
    """The seat's questions (games/questions.py) are in its view, and only there: every
    listed answer names one of them, and an answer the rules refuse now (`unavailable`) is
    not listed, with a code and a reason to show."""
    asked = (rules.view(state, seat).private or {})["questions"]
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


def playouts(
    rules: Rules[Any, Any, Any, Any], games: int, options: Any = None
) -> Iterator[Playout]:
    for seed in range(games):
        seats = list(rules.seats)[seed % len(rules.seats)]
        yield random_playout(rules, seed, seats, options)


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


def check_sample(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    seat: int,
    rng: Random,
    invariants: Callable[[Any], None] | None = None,
) -> Any:
    """`sample` guesses only states the rules can reach, which `seat` cannot tell from the
    real one: every card is somewhere, once; the seat's view, the seats to act, the seat's
    legal actions and the answers refused it are the same; and `invariants`, the game's own
    checks of a reachable state (raising AssertionError), pass on the guess as they do on the
    real state. And a guess depends on nothing but what the seat sees: from a state the seat
    cannot tell from the real one (the guess itself), the same draws guess the same state, so
    a bot that searches from guesses cannot learn where the hidden cards really lie. Returns
    the guess.
    """
    guess = rules.sample(state, seat, rng)
    check_conservation(rules, guess, seed=0)
    assert rules.view(guess, seat) == rules.view(state, seat), f"seat {seat}: the view differs"
    assert rules.to_act(guess) == rules.to_act(state), f"seat {seat}: another seat is to act"
    assert list(rules.legal_actions(guess, seat)) == list(rules.legal_actions(state, seat)), (
        f"seat {seat}: the sampled state offers other moves"
    )
    assert rules.unavailable(guess, seat) == rules.unavailable(state, seat), (
        f"seat {seat}: the sampled state refuses other answers"
    )
    if invariants is not None:
        invariants(state)
        invariants(guess)
    again, from_guess = (rules.sample(s, seat, Random(1)) for s in (state, guess))
    assert again == from_guess, f"seat {seat}: the guess depends on where hidden cards lie"
    return guess


# -- words (games/text.py) ------------------------------------------------------------------


def example_of(type_: Any, card: str = "") -> Any:
    """Some value of `type_`: a Struct with every field filled the plainest way (the first of
    a Literal, the first member of a union, `card` for a string), so that a narrator can be
    asked about every action and event type, even those no random game reaches."""
    import types
    import typing

    origin, args = typing.get_origin(type_), typing.get_args(type_)
    if type_ is type(None):
        return None
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        return example_of(args[0], card)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return (example_of(args[0], card),)
        return tuple(example_of(a, card) for a in args)
    if origin in (list, dict) or type_ in (list, dict):
        return origin() if origin else type_()
    if isinstance(type_, type) and issubclass(type_, msgspec.Struct):
        hints = typing.get_type_hints(type_)
        return type_(**{f: example_of(hints[f], card) for f in type_.__struct_fields__})
    if type_ is bool:
        return False
    if type_ in (int, float):
        return type_(0)
    if type_ is str:
        return card
    if type_ is datetime:
        return datetime(2026, 1, 1, tzinfo=UTC)
    raise TypeError(f"no example of {type_!r}")


def union_members(union: Any) -> list[Any]:
    import typing

    return list(typing.get_args(union)) or [union]


def check_every_type_has_words(
    rules: Rules[Any, Any, Any, Any], words: Any, names: list[str], card: str
) -> None:
    """Every action type and every event type (its whole copy and its blanked one) has a text:
    a type added without one fails here, whether or not a random game reaches it."""
    for member in union_members(rules.action_type):
        text = words.describe(example_of(member, card), names)
        assert isinstance(text, str) and text.strip(), f"{member.__name__}: no text"
    for member in union_members(rules.event_type):
        whole = example_of(member, card)
        for copy in (whole, rules.redact(whole, None), rules.redact(whole, 1)):
            if copy is None:
                continue
            text = words.narrate(copy, names)
            assert isinstance(text, str) and text.strip(), f"{member.__name__}: no text"


class _Narrated:
    """`rules` whose redacted events carry their text: check_secrecy then reads both."""

    def __init__(self, rules: Rules[Any, Any, Any, Any], words: Any, names: list[str]) -> None:
        self._rules, self._words, self._names = rules, words, names

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def redact(self, event: Any, seat: int | None) -> Any:
        copy = self._rules.redact(event, seat)
        if copy is None:
            return None
        return {"copy": copy, "text": _words_of(self._words.narrate(copy, self._names))}


def check_words(
    rules: Rules[Any, Any, Any, Any], words: Any, playout: Playout, names: list[str]
) -> None:
    """The texts of one playout: each event's text, as each seat and a spectator get it, names
    no card its copy does not (so a text says no more than what the caller may see), and no
    seat's texts name a card another holds in secret (check_secrecy, over copy and text);
    every legal action has a text naming only cards the action names."""
    known = rules.all_cards()  # type: ignore[attr-defined]
    for event in playout.events:
        for seat in [None, *range(playout.seats)]:
            copy = rules.redact(event, seat)
            if copy is None:
                continue
            text = words.narrate(copy, names)
            assert text.strip(), f"seed {playout.seed}: {type(event).__name__} has no text"
            extra = card_ids_in(_words_of(text), known) - card_ids_in(copy, known)
            assert not extra, f"seed {playout.seed}: {seat}'s text of {event} names {extra}"
    check_secrecy(_Narrated(rules, words, names), playout)
    for state in playout.states[::5]:
        for seat in sorted(rules.to_act(state)):
            for action in rules.legal_actions(state, seat):
                text = words.describe(action, names)
                assert text.strip(), f"seed {playout.seed}: {action} has no text"
                named = card_ids_in(_words_of(text), known)
                assert named <= card_ids_in(action, known), f"{text!r} names more than {action}"


def _words_of(text: str) -> list[str]:
    for mark in "(),:;":
        text = text.replace(mark, " ")
    return text.split()
