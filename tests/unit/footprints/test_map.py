"""The assembled map a game serves (`Footprints.board_map`, GET /v1/games/{id}/map): the
engine's own board in the coordinates actions and events use, for both layouts."""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

import msgspec
import pytest

from games.api import fold
from games.footprints.board import Layout, assemble, cave_sites_in_play
from games.footprints.model import Options
from games.footprints.state import State
from games.footprints.table import board_of
from games.footprints.views import AssembledMap
from tests.unit.footprints.playouts import quick_playout
from tests.unit.footprints.rules_helpers import REAL

LAYOUTS = {"rows": Options(), "snake": Options(snake=True, advanced=True)}
POSITIONS = {"path", "fire_path", "to", "at"}  # the fields of actions and events naming one


def set_up(options: Options, seats: int = 3, seed: int = 5) -> State:
    return fold(REAL, REAL.setup(options, seats, Random(seed)))


def wire(value: Any) -> Any:
    """As a client reads it: JSON."""
    return msgspec.json.decode(msgspec.json.encode(value))


def served(state: State) -> AssembledMap:
    """The map as a client decodes it with its schema's type."""
    return msgspec.convert(wire(REAL.board_map(state)), AssembledMap)


def positions(node: Any, key: str | None = None) -> Iterator[tuple[int, int]]:
    """Every position a listed action or an event names (`path`, `to`, `at`, nested too)."""
    if isinstance(node, dict):
        for k, value in node.items():
            yield from positions(value, k)
    elif isinstance(node, list) and key in POSITIONS:
        if len(node) == 2 and all(isinstance(x, int) for x in node):
            yield (node[0], node[1])
        else:
            for step in node:
                yield (step[0], step[1])
    elif isinstance(node, list):
        for item in node:
            yield from positions(item)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_space_of_the_board_is_served_with_its_terrains_bonus_and_tile(layout: str) -> None:
    state = set_up(LAYOUTS[layout])
    board = assemble(
        REAL.content,
        Layout(tiles=state.tiles, turned=state.turned, houses=state.houses),
        snake=layout == "snake",
    )
    m = served(state)
    spaces = {s.at: s for s in m.spaces}
    assert len(m.spaces) == len(spaces) == len(board.places) == 162
    assert spaces.keys() == board.places.keys()
    assert [s.at for s in m.spaces] == sorted(spaces)  # by row, then column
    for pos, s in spaces.items():
        place = board.places[pos]
        assert set(s.terrains) == place.terrains and len(s.terrains) == len(place.terrains)
        assert (s.bonus, s.cairn, s.tile) == (place.bonus, place.cairn, place.tile)
    cairns = [s for s in m.spaces if s.cairn]
    assert len(cairns) == 2 and all(len(s.terrains) == 2 for s in cairns)
    assert m.snake is (layout == "snake")
    assert all(0 <= r < m.rows and 0 <= c < m.columns for r, c in spaces)
    assert max(r for r, _ in spaces) == m.rows - 1 and max(c for _, c in spaces) == m.columns - 1
    assert m.cairn_track == list(REAL.content.cairn_tile.track)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_neighbour_list_is_the_board_s_and_a_house_touches_its_entry_alone(
    layout: str,
) -> None:
    state = set_up(LAYOUTS[layout])
    board = board_of(REAL.content, state)
    m = served(state)
    for s in m.spaces:
        assert sorted(s.neighbours) == sorted(board.adjacent(s.at)), s.at
        assert all(q in board.places for q in s.neighbours)  # never a house
    assert [h.at for h in m.houses] == [(r, -1) for r in range(6)]
    for h in m.houses:
        assert [h.entry] == board.adjacent(h.at) and h.entry == (h.at[0], 0)
        assert (h.tile, h.side) == board.houses[h.at] == state.houses[h.at[0]]
        assert h.bonuses == list(REAL.content.house_tiles[h.tile].sides[h.side])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_caves_are_the_board_s_with_the_tokens_laid_at_setup(layout: str) -> None:
    state = set_up(LAYOUTS[layout])
    board = board_of(REAL.content, state)
    m = served(state)
    tokens = dict(state.caves)
    assert {c.site for c in m.caves} == board.caves.keys()
    for c in m.caves:
        cave = board.caves[c.site]
        assert (set(c.touches), c.spot, c.tile) == (cave.touches, cave.spot, cave.tile)
        assert c.token == tokens.get(c.site)
    in_play = {c.site for c in m.caves if c.token is not None}
    assert in_play == {c.id for c in cave_sites_in_play(board, state.seats)} == tokens.keys()
    for s in m.spaces:
        near = {c.id for c in board.caves_next_to(s.at)}
        assert {c.site for c in s.caves} == near, s.at
        assert all(c.token == tokens.get(c.site) for c in s.caves)
    if layout == "snake":  # every cave is open at the edge: its token lies off the map
        assert all(c.spot not in {s.at for s in m.spaces} for c in m.caves)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_position_a_listed_move_or_an_event_names_is_on_the_served_map(
    layout: str,
) -> None:
    playout = quick_playout(REAL, 13, 3, LAYOUTS[layout])
    m = served(playout.states[0])
    spaces = {s.at for s in m.spaces}
    houses = {h.at for h in m.houses}
    sites = {c.site for c in m.caves if c.token is not None}
    kinds = set()
    for state in playout.states:
        for seat in sorted(REAL.to_act(state)):
            for action in wire(REAL.legal_actions(state, seat)):
                for pos in positions(action):
                    assert pos in spaces, (action, pos)
                    kinds.add(action["type"])
                if action["type"] == "build_cave_painting":
                    assert action["site"] in sites
    assert {"top", "bottom", "lead", "build_engraving"} <= kinds
    placed = [e for e in wire(playout.events) if e["type"] == "figure_placed"]
    assert placed and all(tuple(e["at"]) in houses for e in placed)
    for event in wire(playout.events):
        if event["type"] != "figure_placed":
            assert all(pos in spaces for pos in positions(event)), event


def test_the_map_is_fixed_public_and_names_no_card() -> None:
    playout = quick_playout(REAL, 3, 3, Options())
    first, last = playout.states[0], playout.states[-1]
    assert last.result is not None and REAL.board_map(last) == REAL.board_map(first)
    text = msgspec.json.encode(REAL.board_map(first)).decode()
    assert not [card for card in REAL.all_cards() if f'"{card}"' in text]


def test_the_assembled_maps_schema_says_what_its_fields_mean() -> None:
    """A client author reads the board map's JSON Schema: the fields that need a word have one."""
    defs = msgspec.json.schema(AssembledMap)["$defs"]
    space = defs["MapSpace"]["properties"]
    assert space["at"]["description"].startswith("[row, column], as actions name it")
    assert space["terrains"]["description"] == "One; two on a cairn space (it counts as both)"
    token = defs["SpaceCave"]["properties"]["token"]["description"]
    assert token == "The cave token there (content `cave_tokens`); null: none"
