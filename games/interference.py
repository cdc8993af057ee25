"""The machinery of games/testing.py:check_non_interference: recorded games, twin worlds with
the same luck (every draw taped, then played back with each card renamed), and what one seat
is shown in each. Pure: it makes no randomness of its own, the seeded rngs are handed in."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from games.api import IllegalAction, Rng, Rules, fold
from games.checks import card_ids_in, tag


class Step(msgspec.Struct, kw_only=True):
    """One decided move of a recorded game: who, what, and the seed of the draws it had."""

    seat: int
    action: Any
    draws: int  # `decide` was given the rng seeded with `draws`
    events: list[Any]


class Recorded(msgspec.Struct, kw_only=True):
    """A whole game as moves: its setup's events, then every move with its draws."""

    seed: int
    seats: int
    setup: list[Any]
    steps: list[Step]


class Diverged(Exception):
    """The twin world asked chance for something the real one never drew."""


class _Taped:
    """An rng that writes down every draw it makes (`tape`)."""

    def __init__(self, rng: Rng) -> None:
        self._rng = rng
        self.tape: list[tuple[str, Any]] = []

    def random(self) -> float:
        value = self._rng.random()
        self.tape.append(("random", value))
        return value

    def randrange(self, stop: int, /) -> int:
        value = self._rng.randrange(stop)
        self.tape.append(("randrange", value))
        return value

    def choice(self, seq: Any, /) -> Any:
        value = self._rng.choice(seq)
        self.tape.append(("choice", value))
        return value

    def sample(self, population: Any, k: int) -> list[Any]:
        value = self._rng.sample(population, k)
        self.tape.append(("sample", list(value)))
        return value

    def shuffle(self, x: list[Any], /) -> None:
        self._rng.shuffle(x)
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


def renamed(value: Any, names: dict[str, str], type_: Any, question: bool = True) -> Any:
    """`value` (a Struct of `type_`) with every card id in it renamed (but in the question
    an answer names, unless `question`)."""
    if not names:
        return value
    return msgspec.convert(_walk(msgspec.to_builtins(value), names, question), type_)


def _walk(item: Any, names: dict[str, str], question: bool) -> Any:
    if isinstance(item, str):
        return names.get(item, item)
    if isinstance(item, dict):
        return {
            k: v if k == "question" and not question else _walk(v, names, question)
            for k, v in item.items()
        }
    if isinstance(item, list | tuple):
        return [_walk(v, names, question) for v in item]
    return item


def _named(action: Any, cards: frozenset[str]) -> set[str]:
    """The cards of `cards` an action names (in the question it answers aside)."""
    whole = msgspec.to_builtins(action)
    return card_ids_in({k: v for k, v in whole.items() if k != "question"}, cards)


Seen = tuple[Any, str | None, Any]  # an event's copy, its text, the view after it


class Observer:
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


def first_difference(real: list[Seen], twin: list[Seen], stop_at_view: bool) -> str | None:
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


class Played:
    """A recorded game with its states and the draws of every move, for its twins; `seeded`
    makes the rng a move's seed of draws stands for (games/testing.py hands it in)."""

    def __init__(
        self, rules: Rules[Any, Any, Any, Any], game: Recorded, seeded: Callable[[int], Rng]
    ) -> None:
        self.rules, self.game, self.seeded = rules, game, seeded
        state = fold(rules, game.setup)
        self.states = [state]  # states[k]: before move k (the last: the final state)
        self.tapes: list[list[tuple[str, Any]]] = []
        self._moves: dict[tuple[int, int | None], Any] = {}
        for step in game.steps:
            taped = _Taped(seeded(step.draws))
            events = list(rules.decide(state, step.seat, step.action, taped))
            assert events == step.events, f"seed {game.seed}: a move decided again differs"
            state = fold(rules, events, state)
            self.states.append(state)
            self.tapes.append(taped.tape)

    def moves(self, observer: Observer, k: int) -> Any:
        """The seat's moves before move `k` of the real game (once for all its twins)."""
        if (k, observer.seat) not in self._moves:
            self._moves[k, observer.seat] = observer.moves(self.states[k])
        return self._moves[k, observer.seat]

    def follow(
        self,
        observer: Observer,
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
                guess = rules.sample(real, seat, self.seeded(0))  # guess, now and then
                if guess != rules.sample(twin, seat, self.seeded(0)):
                    return f"before move {k} its guess of the hidden cards (sample) differs"
            action = renamed(step.action, names, rules.action_type)
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
            if (found := first_difference(mine, theirs, not strict)) is not None:
                return f"at move {k} ({tag(step.action)} by seat {step.seat}) {found}"
            if not strict and mine and mine[-1][2] != theirs[-1][2]:
                return None
        return None


def dealt_again(
    rules: Rules[Any, Any, Any, Any], state: Any, seat: int | None, seats: int, rng: Rng
) -> Any:
    """A state `seat` cannot tell from `state` (a spectator: dealt again for two seats, so
    that no hand is kept)."""
    if seat is not None:
        return rules.sample(state, seat, rng)
    guess = state
    for s in range(min(2, seats)):
        guess = rules.sample(guess, s, rng)
    return guess


def pairing(rules: Rules[Any, Any, Any, Any], state: Any, guess: Any) -> dict[str, str] | None:
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


def copies_swapped(
    rules: Rules[Any, Any, Any, Any],
    played: Played,
    seat: int | None,
    copy_class: Callable[[str], str],
    rng: Rng,
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


def check_copies_alike(
    rules: Rules[Any, Any, Any, Any],
    played: Played,
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
                variant = renamed(action, {card: other}, rules.action_type, question=False)
                taped = _Taped(played.seeded(draws))
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
                    see = Observer(rules, observer, words, names)
                    found = first_difference(
                        see.events(state, events)[0], see.events(state, events2)[0], False
                    )
                    assert found is None, (
                        f"seed {played.game.seed}, move {k}: seat {observer} tells seat {seat}'s"
                        f" {tag(action)} with {card} from the same with {other}: {found}"
                    )
