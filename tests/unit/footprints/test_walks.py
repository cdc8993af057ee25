"""The walk enumerator (games/footprints/walks.py) against a plain search of every path:
the same results (end, bonuses collected), each with a walk the engine accepts."""

from __future__ import annotations

from collections.abc import Iterator
from random import Random

import pytest

from games.footprints import walks
from games.footprints.board import IllegalMove, MapBoard, Pos, TopMove, check_path, check_top_steps
from games.footprints.content import TERRAINS, Move
from tests.unit.footprints.rules_helpers import board, table

STATE = table()
BOARD = board(STATE)


def every_path(board: MapBoard, start: Pos, longest: int) -> Iterator[tuple[Pos, ...]]:
    stack: list[tuple[Pos, ...]] = [()]
    while stack:
        path = stack.pop()
        yield path
        if len(path) < longest:
            here = path[-1] if path else start
            stack.extend((*path, q) for q in board.adjacent(here))


def plain(board: MapBoard, start: Pos, move: TopMove, taken: set[Pos]) -> set[walks.Key]:
    k = walks.kinds(board)
    out = set()
    for path in every_path(board, start, move.level + (move.extra is not None)):
        try:
            check_top_steps(board, path, move)
        except IllegalMove:
            continue
        end = path[-1] if path else start
        if end not in taken - {start}:
            out.add((end, k.bag(path, taken - {start})))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_every_result_of_a_top_action_and_one_legal_walk_for_each(seed: int) -> None:
    rng = Random(seed)
    start = rng.choice(sorted(BOARD.places))
    terrain, extra = rng.sample(TERRAINS, 2)
    move = TopMove(terrain=terrain, level=rng.randint(2, 4), extra=extra if seed % 2 else None)
    taken = set(rng.sample(sorted(BOARD.places), 5))
    found = walks.top_walks(BOARD, start, move, taken)
    assert found.complete and set(found.found) == plain(BOARD, start, move, taken)
    k = walks.kinds(BOARD)
    for (end, bag), walk in found.found.items():
        check_path(BOARD, start, walk.path)
        check_top_steps(BOARD, walk.path, move)
        assert (walk.path[-1] if walk.path else start) == end
        assert k.bag(walk.path, taken - {start}) == bag
    for key, walk in found.long.items():
        assert len(walk.path) >= 2 and key in found.found
    longer = {
        key for key in plain(BOARD, start, move, taken) if _long(BOARD, start, move, taken, key)
    }
    assert set(found.long) == longer


def _long(board: MapBoard, start: Pos, move: TopMove, taken: set[Pos], key: walks.Key) -> bool:
    k = walks.kinds(board)
    for path in every_path(board, start, move.level + (move.extra is not None)):
        if len(path) < 2:
            continue
        try:
            check_top_steps(board, path, move)
        except IllegalMove:
            continue
        if (path[-1], k.bag(path, taken - {start})) == key:
            return True
    return False


@pytest.mark.parametrize("seed", range(4))
def test_a_fire_move_anywhere_in_the_walk(seed: int) -> None:
    rng = Random(100 + seed)
    start = rng.choice(sorted(BOARD.places))
    terrain, fire_terrain = rng.sample(TERRAINS, 2)
    move = TopMove(terrain=terrain, level=2)
    fire = Move(terrain=fire_terrain, spaces=3)
    found = walks.top_walks(BOARD, start, move, set(), fire)
    k = walks.kinds(BOARD)
    expected = set()
    for path in every_path(BOARD, start, 5):
        for a in range(len(path) + 1):
            for b in range(a, min(a + 3, len(path)) + 1):
                main = path[:a] + path[b:]
                if all(BOARD.has(q, fire_terrain) for q in path[a:b]):
                    try:
                        check_top_steps(BOARD, main, move)
                    except IllegalMove:
                        continue
                    expected.add(((path[-1] if path else start), k.bag(path)))
    assert set(found.found) == expected
    for walk in found.found.values():
        check_path(BOARD, start, walk.spaces)
        check_top_steps(BOARD, walk.path, move)
        assert len(walk.fire) <= 3 and all(BOARD.has(q, fire_terrain) for q in walk.fire)


def test_the_search_stops_at_its_bound_and_says_so() -> None:
    move = TopMove(terrain="ice", level=9, extra="forest")
    cut = walks.top_walks(BOARD, (2, 10), move, set(), limit=50)
    whole = walks.top_walks(BOARD, (2, 10), move, set())
    assert not cut.complete and whole.complete
    assert set(cut.found) < set(whole.found)
