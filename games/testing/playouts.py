"""Playouts: seeded random games played to their end, recorded move by move, with their
states, for the checks to run over."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from random import Random
from typing import Any

import msgspec

from games.api import Rules, fold


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


def playouts(
    rules: Rules[Any, Any, Any, Any], games: int, options: Any = None
) -> Iterator[Playout]:
    for seed in range(games):
        seats = list(rules.seats)[seed % len(rules.seats)]
        yield random_playout(rules, seed, seats, options)


def tag(action: Any) -> str:
    """An action's `type`, as the wire has it."""
    return str(type(action).__struct_config__.tag)


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
