"""Every different result of a walk over the map: where it ends and which bonuses it
collects (a bag: the collected bonuses' kinds, sorted). Two walks with the same end and the
same bag have the same result, however they wind; the lister offers one of them.

Bounded: the search stops after `MAX_STATES` search states (and says so), since a long
walk over many bonus spaces has very many bags. `decide` still accepts any legal walk.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

from games.footprints.board import MapBoard, Pos, TopMove
from games.footprints.content import Bonus, Move

MAX_STATES = 40_000  # search states of one walk listing (see RULES.md, "Legal actions")
MAX_FIRE_SPACES = 3

Bag = tuple[int, ...]  # sorted indices into `Kinds.bonuses`
Key = tuple[Pos, Bag]  # where the walk ends, what it collects


class Kinds(NamedTuple):
    """The distinct bonuses on a map, so that a bag is a sorted tuple of small ints; and the
    map's steps and terrains, looked up often."""

    bonuses: tuple[Bonus, ...]
    of: dict[Pos, int]  # bonus space -> its kind
    steps: dict[Pos, tuple[Pos, ...]]  # map space -> the map spaces next to it
    terrains: dict[str, frozenset[Pos]]  # terrain -> its spaces (a cairn's in two)

    def bag(self, spaces: Iterable[Pos], occupied: Iterable[Pos] = ()) -> Bag:
        taken = set(occupied)
        return tuple(sorted(self.of[p] for p in set(spaces) - taken if p in self.of))

    def unpack(self, bag: Bag) -> list[Bonus]:
        return [self.bonuses[i] for i in bag]

    def next_to(self, pos: Pos, board: MapBoard) -> tuple[Pos, ...]:
        found = self.steps.get(pos)
        return found if found is not None else tuple(board.adjacent(pos))


_kinds: dict[int, tuple[MapBoard, Kinds]] = {}


def kinds(board: MapBoard) -> Kinds:
    found = _kinds.get(id(board))
    if found is None or found[0] is not board:
        distinct: dict[Bonus, int] = {}
        of: dict[Pos, int] = {}
        terrains: dict[str, set[Pos]] = {}
        for pos, place in sorted(board.places.items()):
            if place.bonus is not None:
                of[pos] = distinct.setdefault(place.bonus, len(distinct))
            for terrain in place.terrains:
                terrains.setdefault(terrain, set()).add(pos)
        steps = {pos: tuple(board.adjacent(pos)) for pos in board.places}
        frozen = {t: frozenset(ps) for t, ps in terrains.items()}
        found = (board, Kinds(tuple(distinct), of, steps, frozen))
        _kinds[id(board)] = found
    return found[1]


class Walk(NamedTuple):
    """A top action's path split around the fire card's move: `first`, then `fire` (the
    card's own spaces), then `second`. Without a fire move, all of it is `first`."""

    first: tuple[Pos, ...]
    fire: tuple[Pos, ...] = ()
    second: tuple[Pos, ...] = ()

    @property
    def path(self) -> tuple[Pos, ...]:
        return self.first + self.second

    @property
    def spaces(self) -> tuple[Pos, ...]:
        return self.first + self.fire + self.second


class Walks(NamedTuple):
    found: dict[Key, Walk]  # the first (fewest steps) walk of each result
    long: dict[Key, Walk]  # the first of two or more action steps, for a fire card during it
    complete: bool  # False when the search stopped at MAX_STATES


def top_walks(
    board: MapBoard,
    start: Pos,
    move: TopMove,
    occupied: Iterable[Pos],
    fire: Move | None = None,
    limit: int | None = None,
) -> Walks:
    """Every (end, bag) a top action can reach (the extra space and a fire card's move
    anywhere in it, as `Table.move_top` accepts them), with one walk for each."""
    limit = MAX_STATES if limit is None else limit
    taken = set(occupied) - {start}
    k = kinds(board)
    bits = {p: 1 << i for i, p in enumerate(sorted(p for p in k.of if p not in taken))}
    none: frozenset[Pos] = frozenset()
    main = k.terrains.get(move.terrain, none)
    extra = k.terrains.get(move.extra, none) if move.extra is not None else none
    fire_land = k.terrains.get(fire.terrain, none) if fire is not None else none
    fire_spaces = min(fire.spaces, MAX_FIRE_SPACES) if fire is not None else 0
    level = move.level
    # a search state: position, normal steps used, extra used, fire phase (0 before, 1 in,
    # 2 done), fire steps used, collected bonus spaces (bit mask); and how it was reached:
    # the spaces entered, how many before the fire's, how many of the fire's. A state is
    # dropped when one as good was met (same place, phase and bonuses, no more used).
    best: dict[tuple[Pos, int, int, int, bool], list[tuple[int, bool]]] = {}
    Item = tuple[tuple[Pos, int, bool, int, int, int], tuple[Pos, ...], int, int]
    queue: deque[Item] = deque([((start, 0, False, 0, 0, 0), (), 0, 0)])
    best[(start, 0, 0, 0, False)] = [(0, False)]
    found: dict[Key, Walk] = {(start, ()): Walk(())}
    long: dict[Key, Walk] = {}
    bags: dict[int, Bag] = {0: ()}
    states = 1
    while queue:
        if states > limit:
            return Walks(found, long, complete=False)
        (pos, used, extra_used, phase, fired, mask), path, before, firing = queue.popleft()
        after = 2 if phase == 1 else phase
        for step in k.next_to(pos, board):
            grown = mask | bits.get(step, 0)
            moves = []
            if used < level and step in main:
                moves.append((step, used + 1, extra_used, after, fired, grown))
            if not extra_used and step in extra:
                moves.append((step, used, True, after, fired, grown))
            if phase < 2 and fired < fire_spaces and step in fire_land:
                moves.append((step, used, extra_used, 1, fired + 1, grown))
            for nxt in moves:
                _, n_used, n_extra, n_phase, n_fired, _ = nxt
                mark = (step, grown, n_phase, n_fired, n_used + n_extra >= 2)
                front = best.setdefault(mark, [])
                if any(u <= n_used and (n_extra or not e) for u, e in front):
                    continue
                front.append((n_used, n_extra))
                states += 1
                walked = (*path, step)
                n_before = before + (n_phase == 0)
                n_firing = firing + (n_phase == 1)
                queue.append((nxt, walked, n_before, n_firing))
                if step in taken:
                    continue
                bag = bags.get(grown)
                if bag is None:
                    bag = bags[grown] = k.bag(p for p, b in bits.items() if grown & b)
                key = (step, bag)
                if key in found and (key in long or len(walked) - n_firing < 2):
                    continue
                walk = Walk(
                    walked[:n_before],
                    walked[n_before : n_before + n_firing],
                    walked[n_before + n_firing :],
                )
                found.setdefault(key, walk)
                if len(walked) - n_firing >= 2:
                    long.setdefault(key, walk)
    return Walks(found, long, complete=True)


def fire_walks(
    board: MapBoard, start: Pos, fire: Move, occupied: Iterable[Pos], end_free: bool
) -> dict[tuple[Pos, frozenset[Pos]], tuple[Pos, ...]]:
    """A fire card's own move on its own (up to 3 spaces of its terrain): one path for each
    end and set of spaces passed; `end_free`: it may not end on another figure."""
    taken = set(occupied) - {start}
    out: dict[tuple[Pos, frozenset[Pos]], tuple[Pos, ...]] = {}
    seen: set[tuple[Pos, frozenset[Pos]]] = set()
    frontier: list[tuple[Pos, ...]] = [()]
    for _ in range(min(fire.spaces, MAX_FIRE_SPACES)):
        grown: list[tuple[Pos, ...]] = []
        for path in frontier:
            here = path[-1] if path else start
            for step in board.adjacent(here):
                new = (*path, step)
                mark = (step, frozenset(new))
                if not board.has(step, fire.terrain) or mark in seen:
                    continue
                seen.add(mark)
                grown.append(new)
                if not (end_free and step in taken):
                    out[mark] = new
        frontier = grown
    return out
