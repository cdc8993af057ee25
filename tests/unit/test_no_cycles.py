"""No reference cycle per move in the engines: what a game's setup, listing, decision and fold
make is freed when its last reference goes. Views, the service's request path and the bots
are not played here (a debug run of a game service under the move-cycle load, gc.DEBUG_SAVEALL,
found no cycle garbage left on its request path).

A nested function that calls itself holds itself in its closure (function -> cell ->
function): every call of its outer function leaves a cycle, with whatever the closure
holds, that only the garbage collector frees. Two of them in itty bitty's payments were
nearly all the game service's cycle garbage under the move-cycle load (some 15,000 objects
a second), and one in Itchy Feet's card choices. Recursion is by module-level functions.
"""

from __future__ import annotations

import ast
import gc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from games import registry
from games.testing import random_playout

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("contracts", "games", "infra", "services")
GAMES = str(ROOT / "games")


def _self_calling_nested(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, name) of each function nested in a function whose body names it."""

    def visit(node: ast.AST, nested: bool) -> Iterator[tuple[int, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                loads = {
                    n.id
                    for n in ast.walk(child)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                }
                if nested and child.name in loads:
                    yield child.lineno, child.name
                yield from visit(child, True)
            else:  # a class's methods are not nested in a function (its own nested ones are)
                yield from visit(child, nested and not isinstance(child, ast.ClassDef))

    return visit(tree, False)


def test_the_lint_finds_a_nested_function_that_calls_itself() -> None:
    source = """
def outer(xs):
    def walk(i):
        return walk(i - 1) if i else 0
    class K:
        def method(self):
            return self.method
    return walk(len(xs))
"""
    assert list(_self_calling_nested(ast.parse(source))) == [(3, "walk")]


def test_no_nested_function_calls_itself() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in _self_calling_nested(ast.parse(path.read_text(), str(path)))
    ]
    assert not found, f"recursive closures (a reference cycle per call): {found}"


@pytest.mark.parametrize("key", registry.keys())
def test_a_game_played_through_leaves_no_cycle_garbage(key: str) -> None:
    """Random games of each registered game (setup, every listing of the legal actions,
    every decision and fold) with the collector off: nothing is left for it to free."""
    rules: Any = registry.get(key)
    gc.collect()
    gc.garbage.clear()  # what another test left there is not this game's
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what it finds is kept in gc.garbage, to be named
    try:
        for seed in range(3):
            seats = list(rules.seats)[seed % len(rules.seats)]
            random_playout(rules, seed, seats, keep_states=False)
        gc.collect()
        kinds = Counter(type(o).__qualname__ for o in gc.garbage)
        engines = Counter(name for o in gc.garbage if (name := _of_the_games(o)))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    # Only what the games' code made counts: pytest-xdist's channel runs a thread of its own
    # that may leave a cycle now and then. A cycle of the engines holds at least one of these
    # (a closure's function, a generator's or a traceback's frame, a game's own object).
    assert not engines, f"{key}: cycles left by its moves: {engines} (all: {kinds.most_common(8)})"


def _of_the_games(o: object) -> str | None:
    """What `o` is when games/ made it (a function, generator or frame of its code, an
    instance of one of its classes), else None."""
    code = getattr(o, "__code__", None) or getattr(o, "gi_code", None) or getattr(o, "f_code", None)
    if isinstance(code, CodeType) and code.co_filename.startswith(GAMES):
        return f"{type(o).__name__} {code.co_qualname} ({Path(code.co_filename).name})"
    if type(o).__module__.startswith("games."):
        return f"{type(o).__module__}.{type(o).__qualname__}"
    return None
