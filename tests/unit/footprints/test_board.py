"""The assembled Footprints map and the movement rules on it."""

from __future__ import annotations

from itertools import product

import pytest

from games.footprints.board import (
    HOUSE_COLUMN,
    IllegalMove,
    Layout,
    MapBoard,
    Place,
    TopMove,
    _from_axial,
    _to_axial,
    assemble,
    bottom_destinations,
    check_path,
    check_top_move,
    collected,
    top_destinations,
)
from games.footprints.content import FireBonus, load, neighbours, rotate

CONTENT = load()
TILES = tuple(CONTENT.map_tiles)
HOUSES = tuple((h, 0) for h in CONTENT.house_tiles)


def board_of(rows: list[str], bonus_at: set[tuple[int, int]] = frozenset()) -> MapBoard:
    """A small map from letters: m(ountain) i(ce) f(orest) s(wamp); houses in column -1."""
    names = {"m": "mountain", "i": "ice", "f": "forest", "s": "swamp"}
    places = {
        (r, c): Place(
            terrains=frozenset({names[ch]}), bonus=FireBonus() if (r, c) in bonus_at else None
        )
        for r, row in enumerate(rows)
        for c, ch in enumerate(row)
    }
    houses = {(r, HOUSE_COLUMN): (f"house-{r}", 0) for r in range(len(rows))}
    return MapBoard(places=places, caves={}, houses=houses, columns=len(rows[0]))


def test_the_map_is_six_tiles_then_the_cairn_tile_with_a_house_per_row() -> None:
    board = assemble(CONTENT, Layout(tiles=TILES, turned=(False,) * 6, houses=HOUSES))
    assert len(board.places) == 6 * 24 + 18 and board.columns == 27
    assert sorted(board.houses) == [(r, HOUSE_COLUMN) for r in range(6)]
    cairns = [p for p, place in board.places.items() if place.cairn]
    assert len(cairns) == 2 and all(len(board.places[p].terrains) == 2 for p in cairns)
    assert all(c >= 24 for _, c in cairns)


def test_a_turned_tile_is_the_same_tile_end_to_end() -> None:
    straight = assemble(CONTENT, Layout(tiles=TILES, turned=(False,) * 6, houses=HOUSES))
    turned = assemble(CONTENT, Layout(tiles=TILES, turned=(True,) + (False,) * 5, houses=HOUSES))
    for r, c in product(range(6), range(4)):
        assert turned.places[rotate(r, c)] == straight.places[(r, c)]
    tile = CONTENT.map_tiles[TILES[0]]
    for site in tile.caves:
        assert turned.caves[site.id].touches == {rotate(*p) for p in site.spaces}
    assert straight.places[(0, 4)] == turned.places[(0, 4)]  # the other tiles stay


def test_adjacency_is_symmetric_across_tile_edges() -> None:
    board = assemble(CONTENT, Layout(tiles=TILES, turned=(True, False) * 3, houses=HOUSES))
    for pos in board.places:
        for other in board.adjacent(pos):
            assert pos in board.adjacent(other)
        assert 2 <= len(board.adjacent(pos)) <= 6


def test_axial_coordinates_round_trip() -> None:
    for pos in product(range(-1, 7), range(-1, 28)):
        assert _from_axial(*_to_axial(pos)) == pos
        assert set(neighbours(*pos)) == {
            q
            for q in product(range(pos[0] - 1, pos[0] + 2), range(pos[1] - 1, pos[1] + 2))
            if MapBoard({}, {}).distance(pos, q) == 1
        }


# -- top action ----------------------------------------------------------------------------

ROWS = ["iiiiif", "ffffff", "mmmmmm"]


def test_a_top_action_moves_up_to_the_skill_level_of_its_terrain() -> None:
    board = board_of(ROWS)
    ice4 = TopMove(terrain="ice", level=4)
    check_top_move(board, (0, 0), [(0, 1), (0, 2), (0, 3), (0, 4)], ice4, [])
    check_top_move(board, (0, 0), [(0, 1)], ice4, [])  # or fewer
    with pytest.raises(IllegalMove, match="skill") as err:
        check_top_move(board, (0, 0), [(0, 1), (0, 2), (0, 3), (0, 4), (0, 3)], ice4, [])
    assert err.value.code == "too_far"
    with pytest.raises(IllegalMove) as err:
        check_top_move(board, (0, 0), [(0, 1), (1, 1)], ice4, [])
    assert err.value.code == "wrong_terrain"
    with pytest.raises(IllegalMove) as err:
        check_top_move(board, (0, 0), [(0, 2)], ice4, [])
    assert err.value.code == "not_adjacent"


def test_the_extra_space_of_another_terrain_comes_before_during_after_or_instead() -> None:
    # Roman: ice 4 and one forest space, five spaces in all
    board = board_of(ROWS)
    move = TopMove(terrain="ice", level=4, extra="forest")
    check_top_move(board, (0, 0), [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)], move, [])  # after
    check_top_move(board, (2, 0), [(1, 0), (0, 0), (0, 1), (0, 2), (0, 3)], move, [])  # before
    check_top_move(board, (1, 0), [(1, 1)], move, [])  # instead
    with pytest.raises(IllegalMove) as err:
        check_top_move(board, (1, 0), [(1, 1), (1, 2)], move, [])
    assert err.value.code == "one_extra_space"


def test_figures_are_passed_through_but_never_ended_on_and_give_no_bonus() -> None:
    board = board_of(ROWS, bonus_at={(0, 1), (0, 2)})
    ice4 = TopMove(terrain="ice", level=4)
    others = [(0, 1), (0, 3)]
    check_top_move(board, (0, 0), [(0, 1), (0, 2)], ice4, others)
    with pytest.raises(IllegalMove) as err:
        check_top_move(board, (0, 0), [(0, 1), (0, 2), (0, 3)], ice4, others)
    assert err.value.code == "occupied"
    assert collected(board, [(0, 1), (0, 2), (0, 1), (0, 2)], others) == [(0, 2)]  # once


def test_every_house_touches_one_space_the_first_of_its_row() -> None:
    # the rows are shifted by half a space in turn: in column -1 of the grid a house would
    # touch one space in an even row and three in an odd one (two in the last); each house
    # is the start of its row instead, so no starting position has an advantage
    for snake in (False, True):
        board = assemble(CONTENT, Layout(tiles=TILES, turned=(False,) * 6, houses=HOUSES), snake)
        for house in board.houses:
            assert board.adjacent(house) == [(house[0], 0)]
            assert [list(board.line(house, d))[:1] for d in range(6)].count([]) == 5
    grid = [sum(p in board.places for p in neighbours(*house)) for house in sorted(board.houses)]
    assert grid == [1, 3, 1, 3, 1, 2]  # what column -1 of the grid alone would give
    with pytest.raises(IllegalMove) as err:
        check_path(board, (1, HOUSE_COLUMN), [(0, 0)])
    assert err.value.code == "not_adjacent"
    assert set(bottom_destinations(board, (1, HOUSE_COLUMN), [])) == {(1, 0)}
    assert set(bottom_destinations(board, (1, HOUSE_COLUMN), [(1, 0), (1, 1)])) == {(1, 2)}
    # distances count the step off the house
    assert board.distance((1, HOUSE_COLUMN), (0, 0)) == 2 == board.distance((0, 0), (1, -1))
    assert board.distance((3, HOUSE_COLUMN), (3, 0)) == 1
    assert board.distance((2, HOUSE_COLUMN), (3, HOUSE_COLUMN)) == 3
    assert board.distance((2, HOUSE_COLUMN), (2, HOUSE_COLUMN)) == 0


def test_houses_are_never_entered() -> None:
    board = board_of(ROWS)
    with pytest.raises(IllegalMove) as err:
        check_top_move(board, (0, 0), [(0, HOUSE_COLUMN)], TopMove(terrain="ice", level=3), [])
    assert err.value.code == "off_map"


def test_every_listed_destination_has_a_legal_path_and_none_is_missed() -> None:
    board = board_of(["iifsii", "fifsif", "iiiiii"])
    move = TopMove(terrain="ice", level=3, extra="forest")
    others = [(1, 1), (2, 2)]
    ends = top_destinations(board, (0, 0), move, others)
    for end, path in ends.items():
        assert path[-1] == end and end not in others
        check_top_move(board, (0, 0), path, move, others)
    # brute force: every path of up to 4 steps
    reachable = set()
    frontier = [[]]
    for _ in range(4):
        frontier = [[*p, q] for p in frontier for q in board.adjacent(p[-1] if p else (0, 0))]
        for p in frontier:
            try:
                check_top_move(board, (0, 0), p, move, others)
                reachable.add(p[-1])
            except IllegalMove:
                pass
    assert set(ends) == reachable


# -- bottom action -------------------------------------------------------------------------


def test_a_bottom_action_moves_to_an_adjacent_free_space_or_jumps_a_line_of_figures() -> None:
    board = board_of(["iiiiii", "ffffff", "mmmmmm"])
    alone = bottom_destinations(board, (1, 2), [])
    assert set(alone) == set(board.adjacent((1, 2)))
    ends = bottom_destinations(board, (1, 0), [(1, 1), (1, 2)])
    assert ends[(1, 3)] == [(1, 1), (1, 2), (1, 3)]  # over two figures in a row
    assert (1, 1) not in ends and (1, 2) not in ends


def test_no_jump_onto_a_house_or_over_a_figure_on_one() -> None:
    board = board_of(["iiiiii", "ffffff", "mmmmmm"])
    ends = bottom_destinations(board, (1, 0), [])
    assert all(c != HOUSE_COLUMN for _, c in ends)
    # a figure on the house of row 1: no jump over it towards the left edge
    blocked = bottom_destinations(board, (1, 0), [(1, HOUSE_COLUMN)])
    assert all(c != HOUSE_COLUMN for _, c in blocked) and (1, -2) not in blocked
    from_house = bottom_destinations(board, (1, HOUSE_COLUMN), [(1, 0)])
    assert (1, 1) in from_house  # a figure leaving its house may jump onto the map


# -- setup and building ----------------------------------------------------------------------


def test_setup_draws_a_random_order_turns_and_one_house_side_per_row() -> None:
    from random import Random

    from games.footprints.board import draw_layout

    layouts = [draw_layout(CONTENT, Random(seed)) for seed in range(30)]
    for layout in layouts:
        assert sorted(layout.tiles) == sorted(CONTENT.map_tiles)
        assert len(layout.houses) == 6 and len({h for h, _ in layout.houses}) == 6
    assert len({layout.tiles for layout in layouts}) > 20
    assert {turned for layout in layouts for turned in layout.turned} == {True, False}
    assert {side for layout in layouts for _, side in layout.houses} == {0, 1}


@pytest.mark.parametrize(("players", "tiles"), [(1, 3), (3, 3), (4, 4), (6, 4)])
def test_cave_tokens_go_on_the_tiles_nearest_the_cairn(players: int, tiles: int) -> None:
    from random import Random

    from games.footprints.board import cave_sites_in_play, draw_layout

    for seed in range(20):
        board = assemble(CONTENT, draw_layout(CONTENT, Random(seed)))
        sites = cave_sites_in_play(board, players)
        assert {c.tile for c in sites} == set(range(6 - tiles, 6))
        low, high = (4, 6) if players <= 3 else (6, 8)
        assert low <= len(sites) <= high  # "6 to 8 cave tokens in play" (4 to 6)


def test_an_engraving_goes_next_to_the_figure_on_a_plain_free_space_of_its_terrain() -> None:
    from games.footprints.board import engraving_spaces

    board = board_of(["iiii", "ifii", "iiii"], bonus_at={(0, 1)})
    spaces = engraving_spaces(board, (1, 1), "ice", blocked=[(1, 2)])
    # next to (1, 1): (0,1) has a bonus, (1,2) is taken, the figure's own space is not next to it
    assert set(spaces) == set(board.adjacent((1, 1))) - {(0, 1), (1, 2)}
    assert engraving_spaces(board, (1, 1), "forest", blocked=[]) == []


def test_building_collects_the_free_bonus_spaces_around_the_creation() -> None:
    from games.footprints.board import creation_bonuses

    board = board_of(["iiii", "iiii", "iiii"], bonus_at={(0, 1), (0, 2), (2, 3)})
    assert creation_bonuses(board, [(1, 1)], occupied=[(0, 2)]) == [(0, 1)]
    assert creation_bonuses(board, [(1, 2)], occupied=[]) == [(0, 2), (2, 3)]


def test_the_snake_joins_each_tile_to_the_next_along_an_edge_and_leaves_every_cave_open() -> None:
    # "cave markings ... open at the edge"; tiles joined side by side, none by a corner only
    for turned in list(product([False, True], repeat=6))[::5]:
        board = assemble(CONTENT, Layout(tiles=TILES, turned=turned, houses=HOUSES), snake=True)
        tile = {p: place.tile for p, place in board.places.items()}
        joins: dict[tuple[int, int], int] = {}
        for p, t in tile.items():
            for q in neighbours(*p):
                if q in tile and tile[q] > t:
                    joins[t, tile[q]] = joins.get((t, tile[q]), 0) + 1
        assert set(joins) == {(t, t + 1) for t in range(6)}  # the next tile, and no other
        assert min(joins.values()) >= 3  # two rows of a side at least, never a corner
        for cave in board.caves.values():
            assert cave.spot not in board.places and cave.spot in neighbours(*min(cave.touches))
            assert all(cave.spot in neighbours(*p) for p in cave.touches)


def test_the_snake_keeps_every_cairn_at_least_30_spaces_from_any_house() -> None:
    from collections import deque
    from itertools import product as turns

    for turned in list(turns([False, True], repeat=6))[::7]:
        board = assemble(CONTENT, Layout(tiles=TILES, turned=turned, houses=HOUSES), snake=True)
        assert len(board.places) == 162  # no tile overlaps another
        starts = [p for house in board.houses for p in board.adjacent(house)]
        distance = dict.fromkeys(starts, 1)  # the step off the house counts
        queue = deque(starts)
        while queue:
            here = queue.popleft()
            for nxt in board.adjacent(here):
                if nxt not in distance:
                    distance[nxt] = distance[here] + 1
                    queue.append(nxt)
        assert len(distance) == len(board.places)  # every space reachable
        cairns = [p for p, place in board.places.items() if place.cairn]
        assert min(distance[p] for p in cairns) >= 30
