"""Helpers of games/testing.py:check_sample: what a seat is shown of a state, and where a
state holds an order of strings (a hand, a pile) the seat may not see, to reverse it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from games.api import Rules


def shown_to(rules: Rules[Any, Any, Any, Any], state: Any, seat: int) -> tuple[Any, ...]:
    """All a seat is shown of a state: its view, who acts, its moves and refused answers."""
    legal = list(rules.legal_actions(state, seat))
    return rules.view(state, seat), rules.to_act(state), legal, rules.unavailable(state, seat)


Path = tuple[str | int, ...]


def sequences(value: Any, at: Path = ()) -> Iterator[Path]:
    """Where `value` holds a sequence of two or more different strings: a Struct's field, an
    item of a tuple, at any depth."""
    if isinstance(value, tuple) and _strings(value):
        yield at
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from sequences(item, (*at, i))
    elif isinstance(value, msgspec.Struct):
        for field in value.__struct_fields__:
            yield from sequences(getattr(value, field), (*at, field))


def reverse_at(value: Any, path: Path) -> Any:
    """`value` with the sequence at `path` reversed (unchanged if it has no such place)."""
    if not path:
        return value[::-1] if isinstance(value, tuple) else value
    step, rest = path[0], path[1:]
    if isinstance(step, int) and isinstance(value, tuple) and step < len(value):
        return (*value[:step], reverse_at(value[step], rest), *value[step + 1 :])
    if isinstance(step, str) and isinstance(value, msgspec.Struct) and hasattr(value, step):
        return msgspec.structs.replace(value, **{step: reverse_at(getattr(value, step), rest)})
    return value


def path_name(path: Path) -> str:
    """`path` as code reads it after `state`: `.hands[2]`."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _strings(value: tuple[Any, ...]) -> bool:
    return len(value) > 1 and len(set(value)) > 1 and all(isinstance(v, str) for v in value)
