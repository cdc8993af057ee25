"""A seat's guess (`sample`) is a state it cannot tell from the real one, made from nothing
it cannot see."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from random import Random
from typing import Any

import msgspec

from games.api import Rules
from games.testing.checks import check_conservation


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
