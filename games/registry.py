"""The games served: the one place a game is registered.

A game is one package with a `game.py` whose `ENTRY` (a `GameEntry`) names everything of it
the platform uses: its rules (games/api.py, `Rules`), its words (games/text.py, `Narrator`)
and the module of its bot policies (services/bots/policies/__init__.py reads it). `PACKAGES`
lists the packages served; `TURNPOST_GAMES` (comma-separated package names) adds others, such
as the example game of the test tree (tests/example_game). Everything else (the services, the
bots, the catalog, the OpenAPI document, the tests and benchmarks) takes the list from here.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.api import Rules
from games.text import Narrator

PACKAGES = ("games.itty_bitty", "games.itchy_feet", "games.footprints")


@dataclass(frozen=True)
class GameEntry:
    """What a game gives the platform (its package's `game.py`, `ENTRY`)."""

    rules: Rules[Any, Any, Any, Any]
    text: Narrator  # its words: a module with `cards`, `describe` and `narrate`
    bots: str | None = None  # the module of its policies: `greedy`, and for search `estimate`...


def packages() -> tuple[str, ...]:
    """The packages served: ours, then those `TURNPOST_GAMES` adds."""
    extra = [p.strip() for p in os.environ.get("TURNPOST_GAMES", "").split(",") if p.strip()]
    return (*PACKAGES, *(p for p in extra if p not in PACKAGES))


@cache
def entries() -> dict[str, GameEntry]:
    """Game key -> its entry, in the order of `packages()`."""
    found: dict[str, GameEntry] = {}
    for package in packages():
        entry = importlib.import_module(f"{package}.game").ENTRY
        if not isinstance(entry, GameEntry):
            raise TypeError(f"{package}.game.ENTRY is no GameEntry")
        if entry.rules.key in found:
            raise ValueError(f"two games have the key {entry.rules.key!r}")
        found[entry.rules.key] = entry
    return found


@cache
def package_of() -> dict[str, str]:
    """Game key -> its package (where its files lie: HOW_TO_PLAY.md, RULES.md...)."""
    return {importlib.import_module(f"{p}.game").ENTRY.rules.key: p for p in packages()}


@cache
def registry() -> dict[str, Rules[Any, Any, Any, Any]]:
    """Game key -> Rules."""
    return {key: entry.rules for key, entry in entries().items()}


def get(key: str) -> Rules[Any, Any, Any, Any] | None:
    return registry().get(key)


def keys() -> list[str]:
    """The keys of the games served, in registration order."""
    return list(entries())


def narrators() -> dict[str, Narrator]:
    """Game key -> its words (games/<game>/text.py): beside the engines, never inside them."""
    return {key: entry.text for key, entry in entries().items()}


def narrator(key: str) -> Narrator:
    """The words of a game the registry lists (every one has them: tests/unit/test_text.py)."""
    return entries()[key].text
