"""Checks of the games' words (games/text.py): every action and event type has a text, and a
text names no card its copy does not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from games.api import Rules
from games.checks import Playout, card_ids_in, check_secrecy


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
