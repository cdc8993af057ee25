"""The Footprints content: the shipped data loads, fits the rulebook, and every check bites."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from importlib import resources
from itertools import product
from typing import Any

import pytest
from msgspec.structs import replace

from games.footprints.content import (
    CAIRN_TRACK,
    FILES,
    FOOTPRINT_COMPLETED,
    FOOTPRINT_INCOMPLETE,
    LEADER_ABILITIES,
    MAP_SHAPE_LEADERS,
    RESOURCE_OF,
    TERRAINS,
    BothActions,
    CavePaintingGoal,
    ContentError,
    EngravingGoal,
    Move,
    ResourceBonus,
    SkillBonus,
    SkillGoal,
    load,
    neighbours,
    parse,
    rotate,
    validate,
)

C = load()
GRID = list(product(range(6), range(4)))
Raw = dict[str, Any]


def _raw() -> Raw:
    data = resources.files("games.footprints").joinpath("data")
    return {name: json.loads(data.joinpath(f"{name}.json").read_text()) for name in FILES}


def _parse(raw: Raw) -> None:
    parse({name: json.dumps(value).encode() for name, value in raw.items()})


def _by_id(items: list[dict[str, Any]], id: str, key: str = "id") -> dict[str, Any]:
    return next(item for item in items if item[key] == id)


# -- the shipped content ------------------------------------------------------------------------


def test_the_shipped_content_loads_with_the_rulebooks_counts() -> None:
    assert load() is C  # loaded once
    assert len(C.map_tiles) == 6 and len(C.house_tiles) == 6
    assert all(len(t.rows) == 6 and {len(r) for r in t.rows} == {4} for t in C.map_tiles.values())
    assert len(C.cairn_tile.rows) == 6 and {len(r) for r in C.cairn_tile.rows} == {3}
    assert C.cairn_tile.track == CAIRN_TRACK == (15, 14, 13, 12, 11, 10)
    assert all(len(h.sides) == 2 for h in C.house_tiles.values())
    assert len(C.boards) == len(C.clans) == 6
    assert sum(len(c.followers) for c in C.clans.values()) == 78  # "78 followers"
    assert len(C.leaders()) == 12  # "12 leaders"
    assert (len(C.fire_cards), len(C.footprint_cards), len(C.cave_tokens)) == (20, 28, 10)
    assert (FOOTPRINT_COMPLETED, FOOTPRINT_INCOMPLETE) == (6, -3)


def test_the_shipped_content_passes_validate() -> None:
    validate(C)


def test_map_tiles_mix_their_terrains_and_carry_seven_to_nine_bonuses() -> None:
    for tile in C.map_tiles.values():
        terrains = Counter(s.terrain for row in tile.rows for s in row)
        assert set(terrains) == set(TERRAINS) and max(terrains.values()) <= 9, tile.id
        assert 7 <= sum(s.bonus is not None for row in tile.rows for s in row) <= 9, tile.id


def test_four_tiles_have_two_caves_and_two_have_one() -> None:
    # "6 to 8 cave tokens in play" on four tiles, "4 to 6" on three
    assert sorted(len(t.caves) for t in C.map_tiles.values()) == [1, 1, 2, 2, 2, 2]
    for tile in C.map_tiles.values():
        for site in tile.caves:
            # a painting built there pays a bonus from the space its builder does not stand on
            assert any(tile.space(r, c).bonus for r, c in site.spaces), site.id


def test_the_cairn_spaces_sit_on_the_right_edge_and_can_be_reached() -> None:
    tile = C.cairn_tile
    assert tile.cairns() == [(1, 2), (4, 2)]
    for r, c in tile.cairns():
        cairn = tile.rows[r][c]
        assert len(cairn.terrains) == 2 and cairn.bonus is None
        near = [tile.rows[a][b] for a, b in neighbours(r, c) if 0 <= a < 6 and 0 <= b < 3]
        for terrain in cairn.terrains:  # a top action of either terrain can end there
            assert any(terrain in s.terrains for s in near), (r, c, terrain)
    assert {t for r, c in tile.cairns() for t in tile.rows[r][c].terrains} == set(TERRAINS)


def test_the_rulebooks_examples_are_in_the_content() -> None:
    boards = list(C.boards.values())
    # "4 swamp cards, 4 ice cards, 3 forest cards, and 2 mountain cards"
    assert any(b.deck == {"swamp": 4, "ice": 4, "forest": 3, "mountain": 2} for b in boards)
    # Roman "advances his grey and light green skill markers one space"
    houses = [side for h in C.house_tiles.values() for side in h.sides]
    assert (SkillBonus(terrain="mountain"), SkillBonus(terrain="swamp")) in houses
    # "gives up 3 mammoth tokens to build an ice engraving"
    assert any(b.engravings["ice"].cost == {"mammoth": 3} for b in boards)
    # "Lera scores 5 points for this engraving"; "gives up 3 stone to advance her grey
    # skill marker ... she gets berries for her last advance"; "pays 1 of each resource"
    lera = C.boards["clan-1"]
    assert 5 in [e.points for e in lera.engravings.values()]
    assert lera.engravings["mountain"].power == "stone"
    assert lera.tracks["mountain"].past_11 == "berries"
    assert lera.cave_painting.cost == {"stone": 1, "mammoth": 1, "wood": 1, "berries": 1}
    # "built an engraving in the forest, and his dark green and light blue skill markers
    # are on level 6 or higher"
    assert C.footprint_cards["footprint-01"].goals == (
        EngravingGoal(terrain="forest"),
        SkillGoal(terrain="forest", level=6),
        SkillGoal(terrain="ice", level=6),
    )


def test_boards_are_asymmetric_but_balanced() -> None:
    def kinds(board: Any) -> Counter[str]:
        return Counter(type(b).__name__ for t in board.tracks.values() for b in t.bonuses.values())

    boards = list(C.boards.values())
    assert len({json.dumps(b.deck, sort_keys=True) for b in boards}) == 6
    assert all(kinds(b) == kinds(boards[0]) for b in boards)
    assert {sum(e.points for e in b.engravings.values()) for b in boards} == {18}
    assert {sum(sum(e.cost.values()) for e in b.engravings.values()) for b in boards} == {13}
    assert {sum(b.cave_painting.cost.values()) for b in boards} == {4}
    for board in boards:
        assert sorted(e.power for e in board.engravings.values()) == sorted(RESOURCE_OF.values())
        for terrain, track in board.tracks.items():  # a track never advances itself
            assert SkillBonus(terrain=terrain) not in track.bonuses.values()


def test_about_a_third_of_followers_have_an_extra_move_and_a_third_an_extra_advance() -> None:
    for clan in C.clans.values():
        moves = sum(f.extra_move is not None for f in clan.followers)
        advances = sum(f.extra_advance is not None for f in clan.followers)
        assert 4 <= moves <= 5 and 4 <= advances <= 5, clan.clan


def test_the_twelve_leaders_are_distinct_and_map_shape_leaders_are_leader_b() -> None:
    abilities = [x.ability for x in C.leaders()]
    assert sorted(abilities) == sorted(LEADER_ABILITIES)
    assert all(x.text and x.name for x in C.leaders())
    for clan in C.clans.values():
        # the first game uses leader A, and the Snake variant swaps Recluse and Scout out
        assert clan.leaders[0].ability not in MAP_SHAPE_LEADERS
        assert clan.leaders[0].id.endswith("-leader-a")


def test_the_fire_cards_have_the_proposed_mix() -> None:
    effects = [c.effects for c in C.fire_cards.values()]
    moves = [e[0] for e in effects if len(e) == 1 and isinstance(e[0], Move)]
    assert sorted(m.terrain for m in moves) == sorted(TERRAINS)
    assert sum(isinstance(e[0], BothActions) for e in effects) == 2
    assert sum(all(isinstance(x, ResourceBonus | SkillBonus) for x in e) for e in effects) >= 4


def test_footprint_cards_use_every_goal_kind() -> None:
    goals = [g for c in C.footprint_cards.values() for g in c.goals]
    assert {type(g).__name__ for g in goals} == {
        "EngravingGoal",
        "CavePaintingGoal",
        "ResourceGoal",
        "SkillGoal",
        "SkillsTotalGoal",
    }
    assert sum(isinstance(g, CavePaintingGoal) for g in goals) >= 3


def test_one_cave_token_of_each_rulebook_kind() -> None:
    tokens = list(C.cave_tokens.values())
    assert sorted(str(t.terrain) for t in tokens if t.scoring == "skill_x2") == sorted(TERRAINS)
    assert Counter(t.scoring for t in tokens)["skill_x2"] == 4
    assert len({t.scoring for t in tokens}) == 7


# -- the grid -----------------------------------------------------------------------------------


def test_neighbours_follow_the_odd_r_layout() -> None:
    assert sorted(neighbours(2, 1)) == [(1, 0), (1, 1), (2, 0), (2, 2), (3, 0), (3, 1)]
    assert sorted(neighbours(3, 1)) == [(2, 1), (2, 2), (3, 0), (3, 2), (4, 1), (4, 2)]
    for a in product(range(-2, 8), range(-2, 6)):
        assert len(set(neighbours(*a))) == 6 and a not in neighbours(*a)
        for b in neighbours(*a):
            assert a in neighbours(*b)  # adjacency is symmetric


def test_rotation_preserves_adjacency_for_all_24_spaces() -> None:
    assert sorted(rotate(*a) for a in GRID) == GRID
    for a in GRID:
        assert rotate(*rotate(*a)) == a
        for b in GRID:
            assert (b in neighbours(*a)) == (rotate(*b) in neighbours(*rotate(*a))), (a, b)


def test_a_rotated_tile_is_still_valid_and_keeps_its_caves_at_the_edge() -> None:
    tiles = {k: t.rotated() for k, t in C.map_tiles.items()}
    validate(replace(C, map_tiles=tiles))
    for key, tile in tiles.items():
        assert tile.rotated() == C.map_tiles[key]
        for old, new in zip(C.map_tiles[key].caves, tile.caves, strict=True):
            assert {old.edge, new.edge} == {"top", "bottom"}
            assert set(new.spaces) == {rotate(*p) for p in old.spaces}
        assert tile.space(0, 0) == C.map_tiles[key].space(5, 3)


# -- every check bites ----------------------------------------------------------------------------


def _tile(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["map_tiles"], f"tile-{n}")


def _cave(d: Raw, n: int, letter: str) -> dict[str, Any]:
    return _by_id(_tile(d, n)["caves"], f"tile-{n}-cave-{letter}")


def _board(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["boards"], f"clan-{n}", "clan")


def _clan(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["clans"], f"clan-{n}", "clan")


def _leader(d: Raw, ability: str) -> dict[str, Any]:
    return next(x for c in d["clans"] for x in c["leaders"] if x["ability"] == ability)


def _fire(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["fire_cards"], f"fire-{n:02d}")


def _foot(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["footprint_cards"], f"footprint-{n:02d}")


def _token(d: Raw, n: int) -> dict[str, Any]:
    return _by_id(d["cave_tokens"], f"cave-{n:02d}")


def _cairn(d: Raw, r: int, c: int) -> dict[str, Any]:
    space: dict[str, Any] = d["cairn_tile"]["rows"][r][c]
    return space


def _set_terrain(d: Raw, n: int, terrain: str, spaces: list[tuple[int, int]]) -> None:
    for r, c in spaces:
        _tile(d, n)["rows"][r][c]["terrain"] = terrain


def _no_swamp(d: Raw) -> None:
    swamps = [s for row in _tile(d, 1)["rows"] for s in row if s["terrain"] == "swamp"]
    for n, space in enumerate(swamps):
        space["terrain"] = ("ice", "forest")[n % 2]  # no other terrain goes past 9


def _move_recluse_next_to_scout(d: Raw) -> None:
    _leader(d, "recluse")["ability"] = "advance_two_skills"
    _clan(d, 1)["leaders"][0]["ability"] = "recluse"  # was advance_two_skills; Scout is B


def _other_terrain(terrain: str) -> str:
    return next(t for t in TERRAINS if t != terrain)


BAD_CONTENT: dict[str, tuple[Callable[[Raw], object], str]] = {
    # map tiles
    "six map tiles": (lambda d: d["map_tiles"].pop(), "6 map tiles"),
    "six rows": (lambda d: _tile(d, 2)["rows"].pop(), "6 rows of 4"),
    "four columns": (lambda d: _tile(d, 2)["rows"][3].pop(), "6 rows of 4"),
    "every terrain on a tile": (_no_swamp, "swamp on 0"),
    "at most nine of a terrain": (
        lambda d: _set_terrain(d, 3, "mountain", [(1, 0), (1, 1), (2, 0), (2, 1)]),
        "mountain on 10",
    ),
    "a tile has a cave": (lambda d: _tile(d, 2).update(caves=[]), "1 or 2 caves"),
    "at most two caves": (
        lambda d: _tile(d, 1)["caves"].append(
            {"id": "tile-1-cave-c", "edge": "bottom", "spaces": [[5, 2], [5, 3]]}
        ),
        "1 or 2 caves",
    ),
    "a cave at its edge": (lambda d: _cave(d, 1, "a").update(edge="bottom"), "touches row 5"),
    "a cave on the tile": (lambda d: _cave(d, 1, "a").update(spaces=[[0, 3], [0, 4]]), "row 0"),
    "two distinct cave spaces": (
        lambda d: _cave(d, 1, "a").update(spaces=[[0, 2], [0, 2]]),
        "two distinct neighbouring",
    ),
    "neighbouring cave spaces": (
        lambda d: _cave(d, 1, "a").update(spaces=[[0, 1], [0, 3]]),
        "two distinct neighbouring",
    ),
    "caves share no space": (
        lambda d: _cave(d, 1, "b").update(edge="top", spaces=[[0, 1], [0, 2]]),
        "share a space",
    ),
    "six to eight caves in play": (lambda d: _tile(d, 1)["caves"].pop(), "6 to 8 caves"),
    # the cairn tile
    "three columns on the cairn tile": (lambda d: d["cairn_tile"]["rows"][0].pop(), "6 rows of 3"),
    "two cairn spaces": (
        lambda d: _cairn(d, 0, 0).update(also="ice", bonus=None, cairn=True),
        "exactly 2 cairn spaces",
    ),
    "a cairn of two terrains": (
        lambda d: _cairn(d, 1, 2).update(also=_cairn(d, 1, 2)["terrain"]),
        "two different terrains",
    ),
    "a cairn's second terrain": (lambda d: _cairn(d, 4, 2).pop("also"), "two different terrains"),
    "no bonus on a cairn": (lambda d: _cairn(d, 1, 2).update(bonus={"kind": "fire"}), "no bonus"),
    "only cairns count twice": (lambda d: _cairn(d, 0, 0).update(also="ice"), "only a cairn"),
    "the cairn track": (lambda d: d["cairn_tile"].update(track=[15, 14, 13, 12, 11]), "15, 14"),
    # house tiles
    "six house tiles": (lambda d: d["house_tiles"].pop(), "6 house tiles"),
    "double-sided": (lambda d: d["house_tiles"][0]["sides"].pop(), "double-sided"),
    "at most two bonuses a side": (
        lambda d: d["house_tiles"][0]["sides"][0].append({"kind": "fire"}),
        "1 or 2 bonuses",
    ),
    "at least one bonus a side": (
        lambda d: d["house_tiles"][5]["sides"].__setitem__(1, []),
        "1 or 2 bonuses",
    ),
    # player boards
    "six boards": (lambda d: d["boards"].pop(), "6 player boards"),
    "one symbol a board": (
        lambda d: _board(d, 2).update(symbol=_board(d, 1)["symbol"]),
        "own cave-painting symbol",
    ),
    "thirteen in the deck": (
        lambda d: _board(d, 1)["deck"].update(swamp=5),
        "13 followers, the board 14",
    ),
    "a deck count per terrain": (
        lambda d: _board(d, 1)["deck"].pop("mountain"),
        "count for each terrain",
    ),
    "a bonus on space 9": (
        lambda d: _board(d, 3)["tracks"]["ice"]["bonuses"].pop("9"),
        "ice track: a bonus on each of spaces 3 to 9",
    ),
    "no bonus on space 10": (
        lambda d: _board(d, 3)["tracks"]["ice"]["bonuses"].update({"10": {"kind": "fire"}}),
        "spaces 3 to 9",
    ),
    "no bonus on space 2": (
        lambda d: _board(d, 3)["tracks"]["swamp"]["bonuses"].update({"2": {"kind": "fire"}}),
        "spaces 3 to 9",
    ),
    "a track per terrain": (
        lambda d: _board(d, 4)["tracks"].pop("forest"),
        "skill track for each terrain",
    ),
    "an engraving per terrain": (
        lambda d: _board(d, 4)["engravings"].pop("swamp"),
        "an engraving for each terrain",
    ),
    "engravings cost 3 or 4": (
        lambda d: _board(d, 1)["engravings"]["ice"].update(cost={"mammoth": 5}),
        "costs 3 or 4",
    ),
    "engravings score 3 to 7": (
        lambda d: _board(d, 1)["engravings"]["ice"].update(points=8),
        "3 to 7 points",
    ),
    "positive costs": (
        lambda d: _board(d, 1)["engravings"]["ice"].update(cost={"mammoth": 3, "stone": 0}),
        "positive count",
    ),
    "a cave painting costs something": (
        lambda d: _board(d, 2)["cave_painting"].update(cost={}),
        "cave painting: a cost",
    ),
    # clans
    "six clans": (lambda d: d["clans"].pop(), "6 clans"),
    "a board per clan": (lambda d: _clan(d, 6).update(clan="clan-9"), "every clan has a player"),
    "thirteen followers": (lambda d: _clan(d, 2)["followers"].pop(), "13 followers"),
    "two leaders": (lambda d: _clan(d, 2)["leaders"].pop(), "2 leaders"),
    "followers match the deck": (
        lambda d: _clan(d, 1)["followers"][0].update(
            terrain=_other_terrain(_clan(d, 1)["followers"][0]["terrain"])
        ),
        "do not match the board's deck",
    ),
    "an extra move of another terrain": (
        lambda d: _clan(d, 1)["followers"][0].update(
            extra_move=_clan(d, 1)["followers"][0]["terrain"]
        ),
        "another terrain",
    ),
    "an extra advance of another terrain": (
        lambda d: _clan(d, 1)["followers"][1].update(
            extra_advance=_clan(d, 1)["followers"][1]["terrain"]
        ),
        "another terrain",
    ),
    "distinct leader abilities": (
        lambda d: _leader(d, "trade_resources").update(ability="shaman"),
        "all distinct",
    ),
    "the Shaman": (lambda d: _leader(d, "shaman").update(ability="rain_dance"), "'shaman'"),
    "the Recluse": (lambda d: _leader(d, "recluse").update(ability="hermit"), "'recluse'"),
    "the Scout": (lambda d: _leader(d, "scout").update(ability="runner"), "'scout'"),
    "known leader abilities": (
        lambda d: _leader(d, "build_twice").update(ability="rain_dance"),
        "unknown leader ability 'rain_dance'",
    ),
    "map-shape leaders in different clans": (_move_recluse_next_to_scout, "at most one"),
    # fire cards
    "twenty fire cards": (lambda d: d["fire_cards"].pop(), "20 fire cards"),
    "a fire move is 3 spaces": (lambda d: _fire(d, 1)["effects"][0].update(spaces=4), "3 spaces"),
    "both actions of two terrains": (
        lambda d: _fire(d, 5)["effects"][0].update(terrains=["ice", "ice"]),
        "two different terrains",
    ),
    "both actions names a pair": (
        lambda d: _fire(d, 5)["effects"][0].update(terrains=["ice"]),
        "fire_cards.json",
    ),
    "a fire card gains something": (
        lambda d: _fire(d, 18).update(effects=[{"kind": "give", "resource": "stone"}]),
        "gains something",
    ),
    "a fire card has effects": (lambda d: _fire(d, 7).update(effects=[]), "gains something"),
    "a fire move does nothing else": (
        lambda d: _fire(d, 1)["effects"].append({"kind": "resource", "resource": "stone"}),
        "does nothing else",
    ),
    "both actions does nothing else": (
        lambda d: _fire(d, 5)["effects"].append({"kind": "fire"}),
        "does nothing else",
    ),
    # footprint cards
    "twenty-eight footprint cards": (lambda d: d["footprint_cards"].pop(), "28 footprint"),
    "at least two goals": (lambda d: _foot(d, 2)["goals"].pop(), "2 or 3 goals"),
    "at most three goals": (
        lambda d: _foot(d, 1)["goals"].append({"kind": "cave_painting"}),
        "2 or 3 goals",
    ),
    "different goals": (
        lambda d: _foot(d, 22).update(goals=[{"kind": "cave_painting"}] * 2),
        "all different",
    ),
    "a skill goal of level 6 or more": (
        lambda d: _foot(d, 2)["goals"][1].update(level=5),
        "level 6 to 9",
    ),
    "a skill goal of level 9 or less": (
        lambda d: _foot(d, 2)["goals"][1].update(level=10),
        "level 6 to 9",
    ),
    "skills total 15": (lambda d: _foot(d, 8)["goals"][0].update(total=14), "skills total"),
    "skills total of two skills": (
        lambda d: _foot(d, 8)["goals"][0].update(terrains=["ice", "ice"]),
        "skills total",
    ),
    "a resource goal asks for one": (
        lambda d: _foot(d, 3)["goals"][1].update(count=0),
        "at least 1",
    ),
    # cave tokens
    "ten cave tokens": (lambda d: d["cave_tokens"].pop(), "10 cave tokens"),
    "one skill token per terrain": (
        lambda d: _token(d, 2).update(terrain="mountain"),
        "one skill_x2 cave token for each terrain",
    ),
    "a skill token names its terrain": (lambda d: _token(d, 1).pop("terrain"), "names a terrain"),
    "only a skill token names a terrain": (
        lambda d: _token(d, 5).update(terrain="ice"),
        "names a terrain",
    ),
    "one token of each kind": (
        lambda d: _token(d, 6).update(scoring="per_engraving_5"),
        "one cave token of each kind",
    ),
    # ids and shapes
    "unique fire card ids": (lambda d: d["fire_cards"].append(dict(d["fire_cards"][0])), "unique"),
    "unique follower ids": (
        lambda d: _clan(d, 2)["followers"][0].update(id="clan-1-f01"),
        "unique: clan-1-f01",
    ),
    "unique cave site ids": (
        lambda d: _cave(d, 3, "a").update(id="tile-1-cave-a"),
        "unique: tile-1-cave-a",
    ),
    "unique ids across kinds": (lambda d: _token(d, 10).update(id="fire-01"), "unique: fire-01"),
    "a known terrain": (
        lambda d: _tile(d, 1)["rows"][0][0].update(terrain="desert"),
        "map_tiles.json",
    ),
    "a known bonus": (
        lambda d: _tile(d, 1)["rows"][0][0].update(bonus={"kind": "gold"}),
        "map_tiles.json",
    ),
    "no unknown fields": (lambda d: d["house_tiles"][0].update(colour="red"), "house_tiles.json"),
    "every file": (lambda d: d.pop("clans"), "clans.json is missing"),
}


@pytest.mark.parametrize("case", list(BAD_CONTENT))
def test_bad_content_raises_content_error(case: str) -> None:
    raw = _raw()
    _parse(raw)  # the shipped data is good
    mutate, message = BAD_CONTENT[case]
    mutate(raw)
    with pytest.raises(ContentError, match=message):
        _parse(raw)


def test_validate_checks_content_built_in_code() -> None:
    fewer = dict(list(C.fire_cards.items())[:-1])
    with pytest.raises(ContentError, match="20 fire cards"):
        validate(replace(C, fire_cards=fewer))
    tiles = dict(C.map_tiles)
    tiles["tile-1"] = replace(tiles["tile-1"], rows=tiles["tile-1"].rows[:5])
    with pytest.raises(ContentError, match="6 rows of 4"):
        validate(replace(C, map_tiles=tiles))


def test_content_md_counts_the_footprint_cards_it_lists() -> None:
    # CONTENT.md once said "the 27 cards below" above a list of 28
    text = (resources.files("games.footprints") / "CONTENT.md").read_text()
    listed = re.findall(r"^- `(footprint-\d+)`", text, re.M)
    assert sorted(listed) == sorted(C.footprint_cards) and len(listed) == 28
    row = next(line for line in text.splitlines() if line.startswith("| Footprint cards |"))
    counts = {int(n) for n in re.findall(r"\b(\d+) (?:cards|of ours)\b", row)}
    assert counts == {28, 27}  # the 28 cards listed: the rulebook's example and 27 of ours
    assert "the 28 cards below" in row
