"""Tiles, boards, clans and cards loaded from data/ and checked against the rulebook's counts.

The map is a hex grid of rows in "odd-r offset" layout: space (r, c) is row r, column c;
odd rows are shifted right by half a space. A map tile is 6 rows of 4 spaces and is laid
either way round (rotated 180 degrees: `rotate`); the cairn tile is 6 rows of 3 spaces and
is always laid with its straight edge to the right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Literal, TypeVar

import msgspec

Terrain = Literal["mountain", "ice", "forest", "swamp"]
Resource = Literal["stone", "mammoth", "wood", "berries"]
TERRAINS: tuple[Terrain, ...] = ("mountain", "ice", "forest", "swamp")
RESOURCES: tuple[Resource, ...] = ("stone", "mammoth", "wood", "berries")
RESOURCE_OF: dict[Terrain, Resource] = {
    "mountain": "stone",  # grey skill marker
    "ice": "mammoth",  # light blue
    "forest": "wood",  # dark green
    "swamp": "berries",  # light green
}

# -- the rulebook's numbers ------------------------------------------------------------------
MAP_TILES = 6
ROWS = 6  # one per house tile
COLUMNS = 4
CAIRN_COLUMNS = 3
MAX_TERRAIN_PER_TILE = 9  # our design: terrains stay mixed
CAIRN_SPACES = 2
CAIRN_TRACK = (15, 14, 13, 12, 11, 10)
HOUSE_TILES = 6
HOUSE_SIDE_BONUSES = (1, 2)  # our design: one or two bonuses a side
CLANS = 6  # = player boards
FOLLOWERS = 13
LEADERS = 2
SKILL_START = 2
SKILL_MAX = 11
TRACK_BONUS_LEVELS = tuple(range(3, 10))  # spaces 10 and 11 pay points instead
ENGRAVING_COST = (3, 4)  # our design: resources per engraving
ENGRAVING_POINTS = (3, 7)  # our design: inclusive range
FIRE_CARDS = 20
FIRE_MOVE_SPACES = 3
FOOTPRINT_CARDS = 28
FOOTPRINT_GOALS = (2, 3)  # "two or more goals"; ours: at most three
FOOTPRINT_COMPLETED = 6
FOOTPRINT_INCOMPLETE = -3
GOAL_SKILL_LEVELS = (6, 9)  # inclusive range
SKILLS_TOTAL = 15
CAVE_TOKENS = 10
CAVE_TOKENS_IN_PLAY = (6, 8)  # on the four map tiles nearest the cairn

CaveScoring = Literal[
    "skill_x2",
    "lowest_skill_x3",
    "cairn_plus_10",
    "per_engraving_5",
    "bonus_icons_next_to_engravings_x3",
    "engraving_points_again",
    "per_footprint_card_5",
]
ONE_OF_EACH: tuple[CaveScoring, ...] = (
    "lowest_skill_x3",
    "cairn_plus_10",
    "per_engraving_5",
    "bonus_icons_next_to_engravings_x3",
    "engraving_points_again",
    "per_footprint_card_5",
)

REQUIRED_LEADERS = ("shaman", "recluse", "scout")  # named by the rulebook
MAP_SHAPE_LEADERS = ("recluse", "scout")  # not used with the "Snake" variant
LEADER_ABILITIES = (
    *REQUIRED_LEADERS,
    "advance_two_skills",
    "take_three_resources",
    "top_action_plus_two",
    "build_twice",
    "fire_and_footprint",
    "two_fire_cards",
    "trade_resources",
    "renew_footprints",
    "replay_follower",
)


# -- the grid --------------------------------------------------------------------------------


def neighbours(r: int, c: int) -> list[tuple[int, int]]:
    """The six spaces next to (r, c) in the odd-r layout, with no bounds: left, right, the
    two above, the two below."""
    if r % 2 == 0:
        return [(r, c - 1), (r, c + 1), (r - 1, c - 1), (r - 1, c), (r + 1, c - 1), (r + 1, c)]
    return [(r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c), (r + 1, c + 1)]


def rotate(r: int, c: int) -> tuple[int, int]:
    """Where (r, c) of a map tile lies once the tile is turned 180 degrees."""
    return ROWS - 1 - r, COLUMNS - 1 - c


# -- bonuses, fire card effects, footprint goals (tagged by "kind") ----------------------------


class _Struct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class _Tagged(_Struct, frozen=True, kw_only=True, tag_field="kind"):
    pass


class ResourceBonus(_Tagged, tag="resource", frozen=True, kw_only=True):
    """Take 1 resource token of this type."""

    resource: Resource


class SkillBonus(_Tagged, tag="skill", frozen=True, kw_only=True):
    """Advance this terrain's skill marker 1 space."""

    terrain: Terrain


class AnySkillBonus(_Tagged, tag="skill_any", frozen=True, kw_only=True):
    """Advance any one skill marker 1 space."""


class FireBonus(_Tagged, tag="fire", frozen=True, kw_only=True):
    """Take the top fire card."""


class FootprintBonus(_Tagged, tag="footprint", frozen=True, kw_only=True):
    """Take the top footprint card: keep it or discard it."""


Bonus = ResourceBonus | SkillBonus | AnySkillBonus | FireBonus | FootprintBonus


class Move(_Tagged, tag="move", frozen=True, kw_only=True):
    """Move up to `spaces` spaces of this terrain."""

    terrain: Terrain
    spaces: int


class SkillBack(_Tagged, tag="skill_back", frozen=True, kw_only=True):
    """A cost: move this skill marker back 1 space, without bonuses."""

    terrain: Terrain


class Give(_Tagged, tag="give", frozen=True, kw_only=True):
    """A cost: give up 1 resource token of this type."""

    resource: Resource


class BothActions(_Tagged, tag="both_actions", frozen=True, kw_only=True):
    """A follower of either terrain played this turn performs its top and bottom action."""

    terrains: tuple[Terrain, Terrain]


Effect = (
    ResourceBonus
    | SkillBonus
    | AnySkillBonus
    | FireBonus
    | FootprintBonus
    | Move
    | SkillBack
    | Give
    | BothActions
)
COSTS = (SkillBack, Give)


class EngravingGoal(_Tagged, tag="engraving", frozen=True, kw_only=True):
    terrain: Terrain


class CavePaintingGoal(_Tagged, tag="cave_painting", frozen=True, kw_only=True):
    pass


class ResourceGoal(_Tagged, tag="resource", frozen=True, kw_only=True):
    resource: Resource
    count: int


class SkillGoal(_Tagged, tag="skill", frozen=True, kw_only=True):
    terrain: Terrain
    level: int


class SkillsTotalGoal(_Tagged, tag="skills_total", frozen=True, kw_only=True):
    terrains: tuple[Terrain, Terrain]
    total: int


Goal = EngravingGoal | CavePaintingGoal | ResourceGoal | SkillGoal | SkillsTotalGoal


# -- tiles ---------------------------------------------------------------------------------------


class Space(_Struct, frozen=True, kw_only=True):
    terrain: Terrain
    bonus: Bonus | None


class CaveSite(_Struct, frozen=True, kw_only=True):
    id: str
    edge: Literal["top", "bottom"]
    spaces: tuple[tuple[int, int], tuple[int, int]]  # the two edge spaces touching the site


class MapTile(_Struct, frozen=True, kw_only=True):
    id: str
    rows: tuple[tuple[Space, ...], ...]
    caves: tuple[CaveSite, ...]

    def space(self, r: int, c: int) -> Space:
        return self.rows[r][c]

    def rotated(self) -> MapTile:
        """The tile turned 180 degrees: (r, c) -> rotate(r, c); top caves become bottom."""
        rows = tuple(tuple(reversed(row)) for row in reversed(self.rows))
        caves = []
        for site in self.caves:
            a, b = sorted(rotate(r, c) for r, c in site.spaces)
            edge: Literal["top", "bottom"] = "bottom" if site.edge == "top" else "top"
            caves.append(msgspec.structs.replace(site, edge=edge, spaces=(a, b)))
        return MapTile(id=self.id, rows=rows, caves=tuple(caves))


class CairnSpace(_Struct, frozen=True, kw_only=True):
    terrain: Terrain
    also: Terrain | None = None  # a cairn space "counts as both types"
    bonus: Bonus | None
    cairn: bool

    @property
    def terrains(self) -> frozenset[Terrain]:
        return frozenset({self.terrain} if self.also is None else {self.terrain, self.also})


class CairnTile(_Struct, frozen=True, kw_only=True):
    rows: tuple[tuple[CairnSpace, ...], ...]
    track: tuple[int, ...]  # cairn points, in order of arrival

    def cairns(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, s in enumerate(row) if s.cairn]


class HouseTile(_Struct, frozen=True, kw_only=True):
    id: str
    sides: tuple[tuple[Bonus, ...], ...]


# -- player boards and clans -------------------------------------------------------------------


class Track(_Struct, frozen=True, kw_only=True):
    bonuses: dict[int, Bonus]  # on spaces 3..9
    past_11: Resource  # taken for each advance a marker on 11 would make


class Engraving(_Struct, frozen=True, kw_only=True):
    cost: dict[Resource, int]
    points: int
    power: Resource  # advance this engraving's skill once per `power` resource paid


class CavePainting(_Struct, frozen=True, kw_only=True):
    cost: dict[Resource, int]


class Board(_Struct, frozen=True, kw_only=True):
    clan: str
    symbol: str  # the cave-painting symbol
    tracks: dict[Terrain, Track]
    engravings: dict[Terrain, Engraving]
    cave_painting: CavePainting
    deck: dict[Terrain, int]  # followers of each terrain in the clan deck


class Follower(_Struct, frozen=True, kw_only=True):
    id: str
    terrain: Terrain  # dominant terrain: top action moves, bottom action advances
    extra_move: Terrain | None  # top action: 1 more space of this terrain
    extra_advance: Terrain | None  # bottom action: also advance this skill 1


class Leader(_Struct, frozen=True, kw_only=True):
    id: str
    name: str
    ability: str  # one of LEADER_ABILITIES
    text: str


class Clan(_Struct, frozen=True, kw_only=True):
    clan: str
    name: str
    followers: tuple[Follower, ...]
    leaders: tuple[Leader, ...]  # leader A first


class FireCard(_Struct, frozen=True, kw_only=True):
    id: str
    effects: tuple[Effect, ...]


class FootprintCard(_Struct, frozen=True, kw_only=True):
    id: str
    goals: tuple[Goal, ...]


class CaveToken(_Struct, frozen=True, kw_only=True):
    id: str
    scoring: CaveScoring
    terrain: Terrain | None = None  # only for "skill_x2"


class Content(msgspec.Struct, frozen=True, kw_only=True):
    map_tiles: dict[str, MapTile]
    cairn_tile: CairnTile
    house_tiles: dict[str, HouseTile]
    boards: dict[str, Board]  # by clan
    clans: dict[str, Clan]
    fire_cards: dict[str, FireCard]
    footprint_cards: dict[str, FootprintCard]
    cave_tokens: dict[str, CaveToken]

    def leaders(self) -> list[Leader]:
        return [leader for clan in self.clans.values() for leader in clan.leaders]


class ContentError(ValueError):
    pass


# -- parse and validate --------------------------------------------------------------------------

FILES = (
    "map_tiles",
    "cairn_tile",
    "house_tiles",
    "boards",
    "clans",
    "fire_cards",
    "footprint_cards",
    "cave_tokens",
)
_T = TypeVar("_T")


def _decode(raw: Mapping[str, bytes], name: str, kind: type[_T]) -> _T:
    if name not in raw:
        raise ContentError(f"{name}.json is missing")
    try:
        return msgspec.json.decode(raw[name], type=kind)
    except msgspec.DecodeError as e:
        raise ContentError(f"{name}.json: {e}") from e


def _index(items: Iterable[_T], key: Callable[[_T], str], what: str) -> dict[str, _T]:
    index: dict[str, _T] = {}
    for item in items:
        k = key(item)
        if k in index:
            raise ContentError(f"{what} ids must be unique: {k} appears twice")
        index[k] = item
    return index


def parse(raw: Mapping[str, bytes]) -> Content:
    """Decode the data files (by name without .json, as in FILES) and validate them."""
    content = Content(
        map_tiles=_index(_decode(raw, "map_tiles", list[MapTile]), lambda t: t.id, "map tile"),
        cairn_tile=_decode(raw, "cairn_tile", CairnTile),
        house_tiles=_index(
            _decode(raw, "house_tiles", list[HouseTile]), lambda t: t.id, "house tile"
        ),
        boards=_index(_decode(raw, "boards", list[Board]), lambda b: b.clan, "board clan"),
        clans=_index(_decode(raw, "clans", list[Clan]), lambda c: c.clan, "clan"),
        fire_cards=_index(_decode(raw, "fire_cards", list[FireCard]), lambda c: c.id, "fire card"),
        footprint_cards=_index(
            _decode(raw, "footprint_cards", list[FootprintCard]), lambda c: c.id, "footprint card"
        ),
        cave_tokens=_index(
            _decode(raw, "cave_tokens", list[CaveToken]), lambda t: t.id, "cave token"
        ),
    )
    validate(content)
    return content


def validate(content: Content) -> None:
    _validate_map(content.map_tiles)
    _validate_cairn(content.cairn_tile)
    _validate_houses(content.house_tiles)
    _validate_boards(content.boards)
    _validate_clans(content.clans, content.boards)
    _validate_fire(content.fire_cards)
    _validate_footprints(content.footprint_cards)
    _validate_caves(content.cave_tokens)
    _validate_ids(content)


def _count(what: str, found: int, expected: int) -> None:
    if found != expected:
        raise ContentError(f"the rulebook has {expected} {what}, the data {found}")


def _validate_map(tiles: Mapping[str, MapTile]) -> None:
    _count("map tiles", len(tiles), MAP_TILES)
    for tile in tiles.values():
        if len(tile.rows) != ROWS or any(len(row) != COLUMNS for row in tile.rows):
            raise ContentError(f"{tile.id}: a map tile has {ROWS} rows of {COLUMNS} spaces")
        terrains = Counter(space.terrain for row in tile.rows for space in row)
        for terrain in TERRAINS:
            if not 1 <= terrains[terrain] <= MAX_TERRAIN_PER_TILE:
                raise ContentError(
                    f"{tile.id}: every terrain on 1 to {MAX_TERRAIN_PER_TILE} spaces,"
                    f" {terrain} on {terrains[terrain]}"
                )
        if not 1 <= len(tile.caves) <= 2:
            raise ContentError(f"{tile.id}: a map tile has 1 or 2 caves, not {len(tile.caves)}")
        used: set[tuple[int, int]] = set()
        for site in tile.caves:
            row = 0 if site.edge == "top" else ROWS - 1
            a, b = site.spaces
            if any(r != row or not 0 <= c < COLUMNS for r, c in site.spaces):
                raise ContentError(f"{site.id}: a cave at the {site.edge} edge touches row {row}")
            if a == b or b not in neighbours(*a):
                raise ContentError(f"{site.id}: a cave touches two distinct neighbouring spaces")
            if used & {a, b}:
                raise ContentError(f"{site.id}: the caves of {tile.id} share a space")
            used |= {a, b}
    # "each map tile has 1 or 2 caves ... there will be 6 to 8 cave tokens in play" on the four
    # tiles nearest the cairn, so at most two tiles have a single cave.
    low, high = CAVE_TOKENS_IN_PLAY
    fewest = sum(sorted(len(t.caves) for t in tiles.values())[:4])
    most = sum(sorted((len(t.caves) for t in tiles.values()), reverse=True)[:4])
    if fewest < low or most > high:
        raise ContentError(f"any four map tiles must hold {low} to {high} caves")


def _validate_cairn(tile: CairnTile) -> None:
    if len(tile.rows) != ROWS or any(len(row) != CAIRN_COLUMNS for row in tile.rows):
        raise ContentError(f"the cairn tile has {ROWS} rows of {CAIRN_COLUMNS} spaces")
    spaces = [space for row in tile.rows for space in row]
    if sum(space.cairn for space in spaces) != CAIRN_SPACES:
        raise ContentError(f"the cairn tile has exactly {CAIRN_SPACES} cairn spaces")
    for space in spaces:
        if space.cairn and (space.also is None or space.also == space.terrain):
            raise ContentError("a cairn space counts as two different terrains")
        if space.cairn and space.bonus is not None:
            raise ContentError("a cairn space has no bonus")
        if not space.cairn and space.also is not None:
            raise ContentError("only a cairn space counts as a second terrain")
    if tile.track != CAIRN_TRACK:
        raise ContentError(f"the cairn track pays {', '.join(map(str, CAIRN_TRACK))}")


def _validate_houses(houses: Mapping[str, HouseTile]) -> None:
    _count("house tiles", len(houses), HOUSE_TILES)
    low, high = HOUSE_SIDE_BONUSES
    for house in houses.values():
        if len(house.sides) != 2:
            raise ContentError(f"{house.id}: a house tile is double-sided")
        if any(not low <= len(side) <= high for side in house.sides):
            raise ContentError(f"{house.id}: each side has {low} or {high} bonuses")


def _validate_cost(owner: str, cost: Mapping[Resource, int]) -> None:
    if not cost or any(n < 1 for n in cost.values()):
        raise ContentError(f"{owner}: a cost names each resource with a positive count")


def _validate_boards(boards: Mapping[str, Board]) -> None:
    _count("player boards", len(boards), CLANS)
    if len({b.symbol for b in boards.values()}) != len(boards):
        raise ContentError("each player board has its own cave-painting symbol")
    levels = set(TRACK_BONUS_LEVELS)
    for board in boards.values():
        name = board.clan
        if set(board.deck) != set(TERRAINS) or any(n < 0 for n in board.deck.values()):
            raise ContentError(f"{name}: the deck gives a count for each terrain")
        if sum(board.deck.values()) != FOLLOWERS:
            raise ContentError(
                f"{name}: the clan deck has {FOLLOWERS} followers, the board {sum(board.deck.values())}"
            )
        if set(board.tracks) != set(TERRAINS):
            raise ContentError(f"{name}: a skill track for each terrain")
        for terrain, track in board.tracks.items():
            if set(track.bonuses) != levels:
                raise ContentError(
                    f"{name} {terrain} track: a bonus on each of spaces 3 to 9, none on 2, 10 or 11"
                )
        if set(board.engravings) != set(TERRAINS):
            raise ContentError(f"{name}: an engraving for each terrain")
        for terrain, engraving in board.engravings.items():
            _validate_cost(f"{name} {terrain} engraving", engraving.cost)
            low, high = ENGRAVING_COST
            if not low <= sum(engraving.cost.values()) <= high:
                raise ContentError(f"{name} {terrain} engraving: costs {low} or {high} resources")
            low, high = ENGRAVING_POINTS
            if not low <= engraving.points <= high:
                raise ContentError(f"{name} {terrain} engraving: scores {low} to {high} points")
        _validate_cost(f"{name} cave painting", board.cave_painting.cost)


def _validate_clans(clans: Mapping[str, Clan], boards: Mapping[str, Board]) -> None:
    _count("clans", len(clans), CLANS)
    if set(clans) != set(boards):
        raise ContentError("every clan has a player board and every board a clan")
    for clan in clans.values():
        if len(clan.followers) != FOLLOWERS:
            raise ContentError(f"{clan.clan}: a clan has {FOLLOWERS} followers")
        if len(clan.leaders) != LEADERS:
            raise ContentError(f"{clan.clan}: a clan has {LEADERS} leaders")
        terrains = Counter(f.terrain for f in clan.followers)
        deck = Counter({t: n for t, n in boards[clan.clan].deck.items() if n})
        if terrains != deck:
            raise ContentError(
                f"{clan.clan}: the followers' terrains {dict(terrains)} do not match"
                f" the board's deck {dict(deck)}"
            )
        for f in clan.followers:
            if f.terrain in (f.extra_move, f.extra_advance):
                raise ContentError(f"{f.id}: an extra move or advance is of another terrain")
        shaped = [x.ability for x in clan.leaders if x.ability in MAP_SHAPE_LEADERS]
        if len(shaped) > 1:
            raise ContentError(
                f"{clan.clan}: the Snake variant swaps out {' and '.join(shaped)},"
                " so a clan has at most one of them"
            )
    abilities = [x.ability for clan in clans.values() for x in clan.leaders]
    if len(set(abilities)) != len(abilities):
        raise ContentError("the leader abilities are all distinct")
    for ability in REQUIRED_LEADERS:
        if ability not in abilities:
            raise ContentError(f"the rulebook's leader {ability!r} is missing")
    for ability in abilities:
        if ability not in LEADER_ABILITIES:
            raise ContentError(f"unknown leader ability {ability!r}")


def _validate_fire(cards: Mapping[str, FireCard]) -> None:
    _count("fire cards", len(cards), FIRE_CARDS)
    for card in cards.values():
        if not any(not isinstance(e, COSTS) for e in card.effects):
            raise ContentError(f"{card.id}: a fire card gains something")
        # ours: the timing of a card's move or both actions is the action's; gains and costs
        # on such a card would need a timing of their own (the lister relies on it)
        if any(isinstance(e, Move | BothActions) for e in card.effects) and len(card.effects) > 1:
            raise ContentError(
                f"{card.id}: a fire card that moves or gives both actions does nothing else"
            )
        for effect in card.effects:
            if isinstance(effect, Move) and effect.spaces != FIRE_MOVE_SPACES:
                raise ContentError(f"{card.id}: a fire card moves {FIRE_MOVE_SPACES} spaces")
            if isinstance(effect, BothActions) and len(set(effect.terrains)) != 2:
                raise ContentError(f"{card.id}: both actions names two different terrains")


def _validate_footprints(cards: Mapping[str, FootprintCard]) -> None:
    _count("footprint cards", len(cards), FOOTPRINT_CARDS)
    low, high = FOOTPRINT_GOALS
    for card in cards.values():
        if not low <= len(card.goals) <= high:
            raise ContentError(f"{card.id}: a footprint card has {low} or {high} goals")
        if len(set(card.goals)) != len(card.goals):
            raise ContentError(f"{card.id}: a footprint card's goals are all different")
        for goal in card.goals:
            if isinstance(goal, ResourceGoal) and goal.count < 1:
                raise ContentError(f"{card.id}: a resource goal asks for at least 1")
            if isinstance(goal, SkillGoal) and not (
                GOAL_SKILL_LEVELS[0] <= goal.level <= GOAL_SKILL_LEVELS[1]
            ):
                raise ContentError(
                    f"{card.id}: a skill goal asks for level"
                    f" {GOAL_SKILL_LEVELS[0]} to {GOAL_SKILL_LEVELS[1]}"
                )
            if isinstance(goal, SkillsTotalGoal) and (
                len(set(goal.terrains)) != 2 or goal.total != SKILLS_TOTAL
            ):
                raise ContentError(
                    f"{card.id}: a skills total is of two different skills, {SKILLS_TOTAL}"
                )


def _validate_caves(tokens: Mapping[str, CaveToken]) -> None:
    _count("cave tokens", len(tokens), CAVE_TOKENS)
    for token in tokens.values():
        if (token.scoring == "skill_x2") != (token.terrain is not None):
            raise ContentError(f"{token.id}: only a skill_x2 token names a terrain, and it must")
    per_terrain = Counter(t.terrain for t in tokens.values() if t.scoring == "skill_x2")
    if per_terrain != Counter(TERRAINS):
        raise ContentError("one skill_x2 cave token for each terrain")
    kinds = Counter(t.scoring for t in tokens.values() if t.scoring != "skill_x2")
    if kinds != Counter(ONE_OF_EACH):
        raise ContentError(f"one cave token of each kind: {', '.join(ONE_OF_EACH)}")


def _validate_ids(content: Content) -> None:
    ids = [
        *content.map_tiles,
        *(site.id for tile in content.map_tiles.values() for site in tile.caves),
        *content.house_tiles,
        *content.clans,
        *(f.id for clan in content.clans.values() for f in clan.followers),
        *(x.id for x in content.leaders()),
        *content.fire_cards,
        *content.footprint_cards,
        *content.cave_tokens,
    ]
    twice = sorted(i for i, n in Counter(ids).items() if n > 1)
    if twice:
        raise ContentError(f"ids must be unique: {', '.join(twice)}")


def _read(name: str) -> bytes:
    return resources.files("games.footprints").joinpath("data", f"{name}.json").read_bytes()


@cache
def load() -> Content:
    return parse({name: _read(name) for name in FILES})


_clan_cards: dict[int, dict[str, Follower | Leader]] = {}


def clan_card(content: Content, card: str) -> Follower | Leader:
    """A follower or leader by id (indexed once per loaded content)."""
    index = _clan_cards.get(id(content))
    if index is None:
        index = {}
        for clan in content.clans.values():
            index.update({f.id: f for f in clan.followers})
            index.update({leader.id: leader for leader in clan.leaders})
        _clan_cards[id(content)] = index
    return index[card]
