"""Generic checks every engine passes (DESIGN.md): run them over many seeded random games."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
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
    # nor on the order of what the seat cannot see: with a sequence of strings (a hand, a
    # pile) reversed, a state the seat is shown alike gives the same guess, or the same with
    # that sequence reversed where the guess carries it as it was (a seat's own cards)
    shown = _shown(rules, state, seat)
    for path in _sequences(state):
        alike = _reverse_at(state, path)
        if _shown(rules, alike, seat) == shown:
            got = rules.sample(alike, seat, Random(1))
            assert got == again or got == _reverse_at(again, path), (
                f"seat {seat}: the guess depends on the hidden order of state{_where(path)}"
            )
    return guess


def _shown(rules: Rules[Any, Any, Any, Any], state: Any, seat: int) -> tuple[Any, ...]:
    """All a seat is shown of a state: its view, who acts, its moves and refused answers."""
    legal = list(rules.legal_actions(state, seat))
    return rules.view(state, seat), rules.to_act(state), legal, rules.unavailable(state, seat)


Path = tuple[str | int, ...]


def _sequences(value: Any, at: Path = ()) -> Iterator[Path]:
    """Where `value` holds a sequence of two or more different strings: a Struct's field, an
    item of a tuple, at any depth."""
    if isinstance(value, tuple) and _strings(value):
        yield at
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from _sequences(item, (*at, i))
    elif isinstance(value, msgspec.Struct):
        for field in value.__struct_fields__:
            yield from _sequences(getattr(value, field), (*at, field))


def _reverse_at(value: Any, path: Path) -> Any:
    """`value` with the sequence at `path` reversed (unchanged if it has no such place)."""
    if not path:
        return value[::-1] if isinstance(value, tuple) else value
    step, rest = path[0], path[1:]
    if isinstance(step, int) and isinstance(value, tuple) and step < len(value):
        return (*value[:step], _reverse_at(value[step], rest), *value[step + 1 :])
    if isinstance(step, str) and isinstance(value, msgspec.Struct) and hasattr(value, step):
        return msgspec.structs.replace(value, **{step: _reverse_at(getattr(value, step), rest)})
    return value


def _where(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _strings(value: tuple[Any, ...]) -> bool:
    return len(value) > 1 and len(set(value)) > 1 and all(isinstance(v, str) for v in value)


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


# -- non-interference: what a seat cannot see changes nothing it is shown ---------------------


class Step(msgspec.Struct, kw_only=True):
    """One decided move of a recorded game: who, what, and the seed of the draws it had."""

    seat: int
    action: Any
    draws: int  # `decide` was given Random(draws)
    events: list[Any]


class Recorded(msgspec.Struct, kw_only=True):
    """A whole game as moves: its setup's events, then every move with its draws."""

    seed: int
    seats: int
    setup: list[Any]
    steps: list[Step]


Chooser = Callable[[Any, int, list[Any], Random], Any]


def random_options(options_type: Any, rng: Random) -> Any:
    """Room options drawn at random: each bool and each Literal option any of its values."""
    import typing

    hints = typing.get_type_hints(options_type)
    chosen: dict[str, Any] = {}
    for name in options_type.__struct_fields__:
        hint = hints[name]
        if hint is bool:
            chosen[name] = rng.random() < 0.5
        elif typing.get_origin(hint) is typing.Literal:
            chosen[name] = rng.choice(typing.get_args(hint))
    return options_type(**chosen)


def recorded_game(
    rules: Rules[Any, Any, Any, Any],
    seed: int,
    seats: int,
    options: Any = None,
    choose: Chooser | None = None,
    max_steps: int = 20_000,
) -> Recorded:
    """Play one game, `choose` picking each move among the listed ones (else at random), and
    keep every move with the seed of its draws, so that it can be played again elsewhere."""
    rng = Random(seed)
    opts = options if options is not None else rules.options_type()
    setup = list(rules.setup(opts, seats, rng))
    state = fold(rules, setup)
    steps: list[Step] = []
    while rules.to_act(state):
        assert len(steps) < max_steps, f"seed {seed}: no end after {max_steps} moves"
        seat = rng.choice(sorted(rules.to_act(state)))
        actions = list(rules.legal_actions(state, seat))
        action = choose(state, seat, actions, rng) if choose else rng.choice(actions)
        draws = rng.randrange(2**32)
        events = list(rules.decide(state, seat, action, Random(draws)))
        state = fold(rules, events, state)
        steps.append(Step(seat=seat, action=action, draws=draws, events=events))
    return Recorded(seed=seed, seats=seats, setup=setup, steps=steps)


class Diverged(Exception):
    """The twin world asked chance for something the real one never drew."""


class _Taped:
    """Random(seed) that writes down every draw (`tape`)."""

    def __init__(self, seed: int) -> None:
        self._random = Random(seed)
        self.tape: list[tuple[str, Any]] = []

    def random(self) -> float:
        value = self._random.random()
        self.tape.append(("random", value))
        return value

    def randrange(self, stop: int, /) -> int:
        value = self._random.randrange(stop)
        self.tape.append(("randrange", value))
        return value

    def choice(self, seq: Any, /) -> Any:
        value = self._random.choice(seq)
        self.tape.append(("choice", value))
        return value

    def sample(self, population: Any, k: int) -> list[Any]:
        value = self._random.sample(population, k)
        self.tape.append(("sample", list(value)))
        return value

    def shuffle(self, x: list[Any], /) -> None:
        self._random.shuffle(x)
        self.tape.append(("shuffle", list(x)))


class _Mirrored:
    """The same luck in the twin world: every draw is the tape's, each card in it renamed as
    the twin names it (a card drawn there is the twin of the card drawn here)."""

    def __init__(self, tape: list[tuple[str, Any]], rename: Callable[[Any], Any]) -> None:
        self._tape, self._rename, self._at = tape, rename, 0

    def _next(self, kind: str) -> Any:
        if self._at >= len(self._tape) or self._tape[self._at][0] != kind:
            raise Diverged(f"the twin drew by {kind} where the real game did not")
        self._at += 1
        return self._tape[self._at - 1][1]

    def random(self) -> float:
        value: float = self._next("random")
        return value

    def randrange(self, stop: int, /) -> int:
        value: int = self._next("randrange")
        if value >= stop:
            raise Diverged("the twin drew from a shorter range")
        return value

    def choice(self, seq: Any, /) -> Any:
        value = self._rename(self._next("choice"))
        if value not in seq:
            raise Diverged(f"the twin could not draw {value!r}")
        return value

    def sample(self, population: Any, k: int) -> list[Any]:
        values = [self._rename(v) for v in self._next("sample")]
        if len(values) != k or any(v not in population for v in values):
            raise Diverged("the twin could not draw the same sample")
        return values

    def shuffle(self, x: list[Any], /) -> None:
        order = [self._rename(v) for v in self._next("shuffle")]
        if Counter(map(repr, order)) != Counter(map(repr, x)):
            raise Diverged("the twin shuffled other things")
        x[:] = order


def _renamer(names: dict[str, str]) -> Callable[[Any], Any]:
    def rename(value: Any) -> Any:
        return names.get(value, value) if isinstance(value, str) else value

    return rename


def _renamed(value: Any, names: dict[str, str], type_: Any, question: bool = True) -> Any:
    """`value` (a Struct of `type_`) with every card id in it renamed (but in the question
    an answer names, unless `question`)."""
    if not names:
        return value

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return names.get(item, item)
        if isinstance(item, dict):
            return {k: v if k == "question" and not question else walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        return item

    return msgspec.convert(walk(msgspec.to_builtins(value)), type_)


def _named(action: Any, cards: frozenset[str]) -> set[str]:
    """The cards of `cards` an action names (in the question it answers aside)."""
    whole = msgspec.to_builtins(action)
    return card_ids_in({k: v for k, v in whole.items() if k != "question"}, cards)


Seen = tuple[Any, str | None, Any]  # an event's copy, its text, the view after it


class _Observer:
    """What one seat (None: a spectator) is shown of a game: each event's copy with its text
    and the view after it, and at each of its turns the moves listed with their texts."""

    def __init__(
        self, rules: Rules[Any, Any, Any, Any], seat: int | None, words: Any, names: list[str]
    ) -> None:
        self.rules, self.seat, self.words, self.names = rules, seat, words, names

    def events(self, state: Any, events: list[Any]) -> tuple[list[Seen], Any]:
        seen: list[Seen] = []
        for event in events:
            state = self.rules.evolve(state, event)
            copy = self.rules.redact(event, self.seat)
            text = None
            if copy is not None and self.words is not None:
                text = self.words.narrate(copy, self.names)
            seen.append((copy, text, self.rules.view(state, self.seat)))
        return seen, state

    def moves(self, state: Any) -> Any:
        """Its listed moves and the answers refused it (a move's text is made from the move
        alone: the same moves have the same texts)."""
        seat = self.seat
        if seat is None or seat not in self.rules.to_act(state):
            return None
        return list(self.rules.legal_actions(state, seat)), list(
            self.rules.unavailable(state, seat)
        )


def _first_difference(real: list[Seen], twin: list[Seen], stop_at_view: bool) -> str | None:
    """Where two runs of copies differ for the seat; None if they do not (or, with
    `stop_at_view`, if they part only once the views part: the twin then saw other cards by
    the rules, and what comes after says nothing)."""
    for i in range(max(len(real), len(twin))):
        if i >= len(real) or i >= len(twin):
            return f"{len(real)} events against {len(twin)} in the twin world"
        (copy, text, view), (copy2, text2, view2) = real[i], twin[i]
        if view != view2 and stop_at_view:
            return None
        if copy != copy2:
            return f"its copy of an event differs: {copy} against {copy2}"
        if text != text2:
            return f"its text of {_name(copy)} differs: {text!r} against {text2!r}"
        if view != view2:
            return f"the view after {_name(copy)} differs: {_view_difference(view, view2)}"
    return None


def _view_difference(view: Any, view2: Any) -> str:
    """The parts of two views that differ, as `part.key: one != other`."""
    one, other = msgspec.to_builtins(view), msgspec.to_builtins(view2)
    found = []
    for part in ("public", "private"):
        a, b = one.get(part) or {}, other.get(part) or {}
        found += [
            f"{part}.{k}: {a.get(k)} != {b.get(k)}" for k in sorted(a | b) if a.get(k) != b.get(k)
        ]
    return "; ".join(found)


def _name(event: Any) -> str:
    return type(event).__name__ if event is not None else "a hidden event"


class _Game:
    """A recorded game with its states and the draws of every move, for its twins."""

    def __init__(self, rules: Rules[Any, Any, Any, Any], game: Recorded) -> None:
        self.rules, self.game = rules, game
        state = fold(rules, game.setup)
        self.states = [state]  # states[k]: before move k (the last: the final state)
        self.tapes: list[list[tuple[str, Any]]] = []
        self._moves: dict[tuple[int, int | None], Any] = {}
        for step in game.steps:
            taped = _Taped(step.draws)
            events = list(rules.decide(state, step.seat, step.action, taped))
            assert events == step.events, f"seed {game.seed}: a move decided again differs"
            state = fold(rules, events, state)
            self.states.append(state)
            self.tapes.append(taped.tape)

    def moves(self, observer: _Observer, k: int) -> Any:
        """The seat's moves before move `k` of the real game (once for all its twins)."""
        if (k, observer.seat) not in self._moves:
            self._moves[k, observer.seat] = observer.moves(self.states[k])
        return self._moves[k, observer.seat]

    def follow(
        self,
        observer: _Observer,
        twin: Any,
        names: dict[str, str],
        start: int,
        strict: bool,
    ) -> str | None:
        """Play the game's moves from move `start` on in the twin world `twin` (each card in
        a move renamed by `names`, chance drawing the same cards renamed), and return where
        the seat is shown something else there, if anywhere. Strict: the twins must agree to
        the end; else they may part where the seat's view parts (then the rules showed it
        other cards: the check ends there)."""
        rules = self.rules
        rename = _renamer(names)
        for k in range(start, len(self.game.steps)):
            step, real = self.game.steps[k], self.states[k]
            if (moves := self.moves(observer, k)) != observer.moves(twin):
                return f"before move {k} its moves differ: {moves}"
            seat = observer.seat
            if strict and moves is not None and seat is not None and k % 4 == 0:  # a bot's
                guess = rules.sample(real, seat, Random(0))  # guess, now and then
                if guess != rules.sample(twin, seat, Random(0)):
                    return f"before move {k} its guess of the hidden cards (sample) differs"
            action = _renamed(step.action, names, rules.action_type)
            try:
                events = list(
                    rules.decide(twin, step.seat, action, _Mirrored(self.tapes[k], rename))
                )
            except (IllegalAction, Diverged) as exc:
                if strict:
                    return f"the twin world cannot play move {k} ({step.action}): {exc}"
                return None
            mine, _ = observer.events(real, step.events)
            theirs, twin = observer.events(twin, events)
            if (found := _first_difference(mine, theirs, not strict)) is not None:
                return f"at move {k} ({tag(step.action)} by seat {step.seat}) {found}"
            if not strict and mine and mine[-1][2] != theirs[-1][2]:
                return None
        return None


def _guess(
    rules: Rules[Any, Any, Any, Any], state: Any, seat: int | None, seats: int, rng: Random
) -> Any:
    """A state `seat` cannot tell from `state` (a spectator: dealt again for two seats, so
    that no hand is kept)."""
    if seat is not None:
        return rules.sample(state, seat, rng)
    guess = state
    for s in range(min(2, seats)):
        guess = rules.sample(guess, s, rng)
    return guess


def _pairing(rules: Rules[Any, Any, Any, Any], state: Any, guess: Any) -> dict[str, str] | None:
    """Each card of `state` to the card in its place in `guess` (None where the places do not
    pair one to one)."""
    names: dict[str, str] = {}
    there = rules.inventory(guess)
    for place, cards in rules.inventory(state).items():
        if len(there.get(place, ())) != len(cards):
            return None
        names.update(zip(cards, there[place], strict=True))
    if len(set(names.values())) != len(names):
        return None
    return {a: b for a, b in names.items() if a != b}


def check_non_interference(
    rules: Rules[Any, Any, Any, Any],
    game: Recorded,
    words: Any = None,
    names: list[str] | None = None,
    positions: int = 2,
    seats: Sequence[int | None] | None = None,
) -> None:
    """What a seat cannot see changes nothing it is shown: not its view, not its copy of any
    event, not any text, not its listed moves. For each seat and a spectator (or those of
    `seats`, None the spectator):

    - **dealt again**: right after the setup and at `positions` moves at random, what the
      seat cannot see is dealt again (`sample`; a spectator: for two seats), each card of the
      real deal paired with the card in its place in the other, and the moves played on in
      both worlds (a card a move names renamed, chance drawing the same cards renamed): the
      setup's events as the seat gets them, and every move's, must be alike in both until
      its view parts (the rules then showed it other cards).
    - **copies**: where the rules cannot tell some cards apart (`copy_class`, a game's
      identical cards), a twin world where the copies the seat never held are swapped
      among their places from the start must show the seat exactly what the real one does,
      to the end; and two moves of another seat that differ only in which copy they name
      must show the seat the same events, texts and views.
    """
    played = _Game(rules, game)
    names = names or [f"Seat {s}" for s in range(game.seats)]
    rng = Random(game.seed)
    picked = sorted(rng.sample(range(len(game.steps)), min(positions, len(game.steps))))
    copy_class = getattr(rules, "copy_class", None)
    for seat in [None, *range(game.seats)] if seats is None else seats:
        observer = _Observer(rules, seat, words, names)
        where = f"seed {game.seed}, {game.seats} seats, seat {seat}"
        # dealt again, right after the setup: its events too
        guess = _guess(rules, played.states[0], seat, game.seats, Random(rng.random()))
        pairs = _pairing(rules, played.states[0], guess)
        if pairs is not None:
            twin_setup = [_renamed(e, pairs, rules.event_type) for e in game.setup]
            mine, _ = observer.events(None, game.setup)
            theirs, _ = observer.events(None, twin_setup)
            found = _first_difference(mine, theirs, stop_at_view=True)
            assert found is None, f"{where}: dealt again, in the setup {found}"
            found = played.follow(observer, guess, pairs, 0, strict=False)
            assert found is None, f"{where}: dealt again after the setup, {found}"
        for k in picked:
            guess = _guess(rules, played.states[k], seat, game.seats, Random(rng.random()))
            if (pairs := _pairing(rules, played.states[k], guess)) is not None:
                found = played.follow(observer, guess, pairs, k, strict=False)
                assert found is None, f"{where}: dealt again before move {k}, {found}"
        if copy_class is None:
            continue
        swapped = _copies_swapped(rules, played, seat, copy_class, Random(rng.random()))
        if swapped:
            twin_setup = [_renamed(e, swapped, rules.event_type) for e in game.setup]
            mine, _ = observer.events(None, game.setup)
            theirs, twin = observer.events(None, twin_setup)
            found = _first_difference(mine, theirs, stop_at_view=False)
            assert found is None, f"{where}: copies swapped, in the setup {found}"
            found = played.follow(observer, twin, swapped, 0, strict=True)
            assert found is None, f"{where}: copies swapped, {found}"
    if copy_class is not None:
        for k in picked:
            _check_copies_alike(rules, played, k, copy_class, words, names, seats)


def _copies_swapped(
    rules: Rules[Any, Any, Any, Any],
    played: _Game,
    seat: int | None,
    copy_class: Callable[[str], str],
    rng: Random,
) -> dict[str, str]:
    """Copies the seat never held, swapped at random within each class of identical cards."""
    held: set[str] = set()
    if seat is not None:  # at any moment, within a move too
        state = None
        for event in [*played.game.setup, *(e for step in played.game.steps for e in step.events)]:
            state = rules.evolve(state, event)
            held |= rules.holdings(state, seat)
    classes: dict[str, list[str]] = {}
    for card in sorted(rules.all_cards() - held):  # type: ignore[attr-defined]
        classes.setdefault(copy_class(card), []).append(card)
    swapped: dict[str, str] = {}
    for cards in classes.values():
        others = list(cards)
        rng.shuffle(others)
        swapped.update((a, b) for a, b in zip(cards, others, strict=True) if a != b)
    return swapped


def _check_copies_alike(
    rules: Rules[Any, Any, Any, Any],
    played: _Game,
    k: int,
    copy_class: Callable[[str], str],
    words: Any,
    names: list[str],
    seats: Sequence[int | None] | None = None,
) -> None:
    """Before move `k`: every listed move of each seat to act, and the same move naming
    another copy of a card it names (one the seat holds too), show every other seat and a
    spectator (or those of `seats`) the same events, texts and views."""
    state, draws = played.states[k], played.game.steps[k].draws
    for seat in sorted(rules.to_act(state)):
        held = rules.holdings(state, seat)
        for action in rules.legal_actions(state, seat):
            named = _named(action, held)
            for card in sorted(named):
                other = next(
                    (c for c in sorted(held - named) if copy_class(c) == copy_class(card)), None
                )
                if other is None:
                    continue
                swap = {card: other, other: card}
                variant = _renamed(action, {card: other}, rules.action_type, question=False)
                taped = _Taped(draws)
                events = list(rules.decide(state, seat, action, taped))
                try:
                    events2 = list(
                        rules.decide(state, seat, variant, _Mirrored(taped.tape, _renamer(swap)))
                    )
                except (IllegalAction, Diverged):
                    continue  # not a move of the seat: only legal moves are told apart
                for observer in [None, *range(played.game.seats)] if seats is None else seats:
                    if observer == seat:
                        continue
                    see = _Observer(rules, observer, words, names)
                    found = _first_difference(
                        see.events(state, events)[0], see.events(state, events2)[0], False
                    )
                    assert found is None, (
                        f"seed {played.game.seed}, move {k}: seat {observer} tells seat {seat}'s"
                        f" {tag(action)} with {card} from the same with {other}: {found}"
                    )
