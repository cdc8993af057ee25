"""The assembled map: spaces, terrains, bonuses, caves, houses, and how figures move on it.

Coordinates are (row, column) over the whole map in the odd-r hex layout of content.py:
six rows; map tiles take four columns each from the left, the cairn tile the last three;
house tiles sit in column -1, one per row. Pure: no I/O, no randomness (the layout, drawn
at setup, is an argument).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import msgspec

from games.api import Rng
from games.footprints.content import (
    Bonus,
    Content,
    Terrain,
    neighbours,
    rotate,
)

Pos = tuple[int, int]
ROWS = 6
TILE_COLUMNS = 4
HOUSE_COLUMN = -1


class Layout(msgspec.Struct, frozen=True, kw_only=True):
    """What setup draws: tiles left to right, which are turned, and the house sides."""

    tiles: tuple[str, ...]  # map tile ids, leftmost first; the cairn tile follows
    turned: tuple[bool, ...]  # each tile turned end to end (180 degrees)
    houses: tuple[tuple[str, int], ...]  # per row, top first: (house tile id, side)


@dataclass(frozen=True)
class Place:
    terrains: frozenset[str]  # a cairn space counts as both of its terrains
    bonus: Bonus | None
    cairn: bool = False
    tile: int = -1  # index of the map tile from the left; 6 for the cairn tile


@dataclass(frozen=True)
class Cave:
    id: str
    tile: int
    touches: frozenset[Pos]
    spot: Pos  # where its token lies: across the tile's edge, next to both spaces


@dataclass
class MapBoard:
    places: dict[Pos, Place]
    caves: dict[str, Cave]
    houses: dict[Pos, tuple[str, int]] = field(default_factory=dict)
    columns: int = 0

    # -- geometry ------------------------------------------------------------------------

    def on_map(self, pos: Pos) -> bool:
        return pos in self.places

    def adjacent(self, pos: Pos) -> list[Pos]:
        """Map spaces next to `pos` (houses are never entered). A house touches only the
        first space of its row (see `entry`)."""
        if pos in self.houses:
            return [q for q in (entry(pos),) if q in self.places]
        return [p for p in neighbours(*pos) if p in self.places]

    def has(self, pos: Pos, terrain: str) -> bool:
        return terrain in self.places[pos].terrains

    def line(self, start: Pos, direction: int) -> Iterator[Pos]:
        """Positions in a straight line from `start` (excluded), along one of 6 directions,
        over map and house spaces alike."""
        if start in self.houses and _AXIAL_DIRECTIONS[direction] != _INTO_THE_MAP:
            return  # from a house, the only line into the map is its row
        x, z = _to_axial(start)
        dx, dz = _AXIAL_DIRECTIONS[direction]
        while True:
            x, z = x + dx, z + dz
            pos = _from_axial(x, z)
            if pos not in self.places and pos not in self.houses:
                return
            yield pos

    def caves_next_to(self, pos: Pos) -> list[Cave]:
        return [cave for cave in self.caves.values() if pos in cave.touches]

    def distance(self, a: Pos, b: Pos) -> int:
        """Steps between two places; a house is one step before its row's first space."""
        if a in self.houses and b in self.houses:
            return 0 if a == b else 2 + self.distance(entry(a), entry(b))
        if a in self.houses or b in self.houses:
            house, other = (a, b) if a in self.houses else (b, a)
            return 1 + self.distance(entry(house), other)
        (ax, az), (bx, bz) = _to_axial(a), _to_axial(b)
        return (abs(ax - bx) + abs(az - bz) + abs((ax + az) - (bx + bz))) // 2


# Where each map tile's (0, 0) lies, leftmost (house side) first; then the cairn tile's.
ROW_OFFSETS = [(0, 0), (0, 4), (0, 8), (0, 12), (0, 16), (0, 20)], (0, 24)
# "Snake" (our shape): three tiles along the top, then each tile four rows down and to the
# right, then left, then left again, and the cairn tile (turned) at the far end. Each tile
# joins the one before along two rows of its side, and no other; no tile lies across
# another's top or bottom edge, so every cave is open at the edge; from any house to a
# cairn is at least 30 spaces, as the solo variant asks. Row offsets stay even so the hex
# rows keep their shift.
SNAKE_OFFSETS = [(0, 0), (0, 4), (0, 8), (4, 12), (8, 8), (12, 4)], (16, 1)


def assemble(content: Content, layout: Layout, snake: bool = False) -> MapBoard:
    tiles = content.map_tiles
    offsets, (cairn_row, cairn_col) = SNAKE_OFFSETS if snake else ROW_OFFSETS
    places: dict[Pos, Place] = {}
    caves: dict[str, Cave] = {}
    for index, (tile_id, turned) in enumerate(zip(layout.tiles, layout.turned, strict=True)):
        tile = tiles[tile_id]
        dr, dc = offsets[index]
        for r, row in enumerate(tile.rows):
            for c, space in enumerate(row):
                gr, gc = rotate(r, c) if turned else (r, c)
                places[(dr + gr, dc + gc)] = Place(
                    terrains=frozenset({space.terrain}), bonus=space.bonus, tile=index
                )
        for site in tile.caves:
            a, b = sorted(
                (dr + gr, dc + gc)
                for gr, gc in ((rotate(*p) if turned else p) for p in site.spaces)
            )
            beyond = -1 if (site.edge == "top") != turned else 1  # the edge's outer side
            spot = next(q for q in neighbours(*a) if q in neighbours(*b) and q[0] == a[0] + beyond)
            caves[site.id] = Cave(id=site.id, tile=index, touches=frozenset({a, b}), spot=spot)
    width = len(content.cairn_tile.rows[0])
    for r, cairn_row_cells in enumerate(content.cairn_tile.rows):
        for c, cell in enumerate(cairn_row_cells):
            # turned end to end on the snake, so its cairns lie at the far end
            gr, gc = (ROWS - 1 - r, width - 1 - c) if snake else (r, c)
            terrains = {cell.terrain} | ({cell.also} if cell.also else set())
            places[(cairn_row + gr, cairn_col + gc)] = Place(
                terrains=frozenset(terrains),
                bonus=cell.bonus,
                cairn=cell.cairn,
                tile=len(layout.tiles),
            )
    houses = {(r, HOUSE_COLUMN): house for r, house in enumerate(layout.houses)}
    columns = max(c for _, c in places) + 1
    return MapBoard(places=places, caves=caves, houses=houses, columns=columns)


# -- moving ------------------------------------------------------------------------------


class IllegalMove(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TopMove:
    """Up to `level` spaces of `terrain`, and (if `extra`) one space of that terrain,
    before, during, after or instead of the normal move."""

    terrain: Terrain
    level: int
    extra: Terrain | None = None


def check_path(board: MapBoard, start: Pos, path: Sequence[Pos]) -> None:
    """Each space entered is a map space next to the one before."""
    here = start
    for step in path:
        if step not in board.places:
            raise IllegalMove("off_map", f"{step} is not a map space (houses are never entered)")
        if step not in board.adjacent(here):
            raise IllegalMove("not_adjacent", f"{step} is not next to {here}")
        here = step


def check_top_move(
    board: MapBoard, start: Pos, path: Sequence[Pos], move: TopMove, occupied: Iterable[Pos]
) -> None:
    """Raise IllegalMove unless `path` (the spaces entered, in order) is such a move."""
    check_path(board, start, path)
    check_top_steps(board, path, move)
    if path and path[-1] in set(occupied) - {start}:
        raise IllegalMove("occupied", "you may move through figures but not end on one")


def check_top_steps(board: MapBoard, steps: Sequence[Pos], move: TopMove) -> None:
    """The spaces a top action enters (in one or more stretches): its terrain, at most
    `level` of them, and at most one of the extra terrain."""
    forced = 0  # steps only the extra space can pay for
    eligible = False  # a step the extra space could pay for instead of a normal one
    for step in steps:
        main = board.has(step, move.terrain)
        extra = move.extra is not None and board.has(step, move.extra)
        if not main and not extra:
            raise IllegalMove("wrong_terrain", f"{step} is not {move.terrain}")
        forced += not main
        eligible = eligible or (main and extra)
    if forced > 1:
        raise IllegalMove("one_extra_space", "the extra move is a single space")
    normal = len(steps) - (1 if forced or eligible else 0)
    if normal > move.level:
        raise IllegalMove("too_far", f"your skill lets you move {move.level} {move.terrain} spaces")


def collected(board: MapBoard, path: Sequence[Pos], occupied: Iterable[Pos]) -> list[Pos]:
    """The spaces whose bonus a move collects: unoccupied ones passed or stopped on, once."""
    taken = set(occupied)
    seen: dict[Pos, None] = {}
    for step in path:
        if step not in taken and board.places[step].bonus is not None:
            seen.setdefault(step)
    return list(seen)


def top_destinations(
    board: MapBoard, start: Pos, move: TopMove, occupied: Iterable[Pos]
) -> dict[Pos, list[Pos]]:
    """Every space a top action can end on, with one shortest legal path to it."""
    taken = set(occupied) - {start}
    # state: (position, normal steps used, extra used)
    first = (start, 0, False)
    paths: dict[tuple[Pos, int, bool], list[Pos]] = {first: []}
    queue = deque([first])
    ends: dict[Pos, list[Pos]] = {}
    while queue:
        pos, used, extra_used = state = queue.popleft()
        for step in board.adjacent(pos):
            options = []
            if board.has(step, move.terrain) and used < move.level:
                options.append((step, used + 1, extra_used))
            if move.extra is not None and not extra_used and board.has(step, move.extra):
                options.append((step, used, True))
            for nxt in options:
                if nxt not in paths:
                    paths[nxt] = [*paths[state], step]
                    queue.append(nxt)
                    if step not in taken and step not in ends:  # back home counts too
                        ends[step] = paths[nxt]
    return ends


def bottom_destinations(
    board: MapBoard, start: Pos, occupied: Iterable[Pos]
) -> dict[Pos, list[Pos]]:
    """An adjacent unoccupied space, or the first one past a line of figures (jumped)."""
    taken = set(occupied) - {start}
    ends: dict[Pos, list[Pos]] = {}
    for direction in range(6):
        jumped: list[Pos] = []
        for pos in board.line(start, direction):
            if pos in board.houses or pos not in board.places:
                break  # never onto a house, nor over a figure standing on one
            if pos in taken:
                jumped.append(pos)
                continue
            ends.setdefault(pos, [*jumped, pos])
            break
    return ends


# odd-r offset <-> axial (x, z): straight lines and distances are easy in axial.
_AXIAL_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
_INTO_THE_MAP = (1, 0)  # along the row, to the right


def entry(house: Pos) -> Pos:
    """The one map space a house touches: the first of its row. (The rows are shifted by
    half a space in turn, so a house in column -1 of the grid would touch one space in an
    even row and three in an odd one: a clear advantage, which the rulebook warns against.)"""
    return house[0], HOUSE_COLUMN + 1


def _to_axial(pos: Pos) -> tuple[int, int]:
    r, c = pos
    return c - (r - (r & 1)) // 2, r


def _from_axial(x: int, z: int) -> Pos:
    return z, x + (z - (z & 1)) // 2


# -- setup and building ------------------------------------------------------------------

CAVE_TILES = {
    True: 3,
    False: 4,
}  # tiles nearest the cairn that get cave tokens: 1-3 players or more


def draw_layout(content: Content, rng: Rng) -> Layout:
    """General setup: tiles in random order, each turned at random; a random house tile on
    each row, each on a random side."""
    tiles = sorted(content.map_tiles)
    rng.shuffle(tiles)
    houses = sorted(content.house_tiles)
    rng.shuffle(houses)
    return Layout(
        tiles=tuple(tiles),
        turned=tuple(rng.random() < 0.5 for _ in tiles),
        houses=tuple((house, rng.randrange(2)) for house in houses[:ROWS]),
    )


def cave_sites_in_play(board: MapBoard, players: int) -> list[Cave]:
    """The cave sites of the four map tiles closest to the cairn (three with 1-3 players)."""
    nearest = CAVE_TILES[players <= 3]
    last = max(cave.tile for cave in board.caves.values())
    return sorted(
        (cave for cave in board.caves.values() if cave.tile > last - nearest),
        key=lambda cave: (cave.tile, cave.id),
    )


def engraving_spaces(
    board: MapBoard, figure: Pos, terrain: str, blocked: Iterable[Pos]
) -> list[Pos]:
    """Where an engraving of `terrain` may go: a space of that terrain next to the figure
    with no bonus icon, figure, creation or cairn on it."""
    taken = set(blocked)
    return [
        p
        for p in board.adjacent(figure)
        if board.has(p, terrain)
        and board.places[p].bonus is None
        and not board.places[p].cairn
        and p not in taken
    ]


def creation_bonuses(board: MapBoard, where: Iterable[Pos], occupied: Iterable[Pos]) -> list[Pos]:
    """After building: the unoccupied bonus spaces next to the creation (never a house)."""
    taken = set(occupied)
    near = {q for p in where for q in board.adjacent(p)} - set(where)
    return sorted(q for q in near if q not in taken and board.places[q].bonus is not None)
