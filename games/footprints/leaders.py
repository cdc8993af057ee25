"""The twelve leaders' abilities (games/footprints/CONTENT.md: which are the rulebook's)."""

from __future__ import annotations

from games.footprints.board import IllegalMove, bottom_destinations, check_path
from games.footprints.content import RESOURCES, Follower, Move, Terrain, clan_card
from games.footprints.events import FigureMoved, FireDiscarded, FootprintsRenewed, ResourcesChanged
from games.footprints.follower import follower_action
from games.footprints.model import Lead, Top
from games.footprints.table import Table, illegal

SCOUT_SPACES = 6
RECLUSE_COLUMNS = 4
RECLUSE_ALONE = 2  # no other figure within this many spaces
PATHFINDER_PLUS = 2
GATHER = 3


# an empty `lead` uses these: they need no choice (the Fire Keeper's "up to 2" cards may be
# none: it still takes a fire card)
NO_CHOICES = ("fire_and_footprint", "renew_footprints", "two_fire_cards")


def lead(
    t: Table, seat: int, ability: str, a: Lead, fire: str | None, any_skill: list[Terrain]
) -> None:
    if a == Lead() and ability not in NO_CHOICES:
        return  # our ruling: a leader may be played without using an ability that needs choices
    match ability:
        case "advance_two_skills":
            if len(a.terrains) != 2 or a.terrains[0] == a.terrains[1]:
                raise illegal("two_skills", "name two different skills to advance 2 each")
            bonuses = t.advance(seat, a.terrains[0], 2)
            bonuses += t.advance(seat, a.terrains[1], 2)
            t.collect(seat, bonuses, any_skill)
        case "take_three_resources":
            if len(a.resources) != GATHER:
                raise illegal("three_resources", "name the 3 resources you take")
            for resource in a.resources:
                t.emit(ResourcesChanged(seat=seat, resource=resource, change=1))
        case "scout":
            scout(t, seat, a, any_skill)
        case "recluse":
            recluse(t, seat, a, any_skill)
        case "shaman" | "top_action_plus_two":
            if len(a.terrains) != 1 or a.top is None:
                raise illegal("top_of_a_terrain", "name one terrain and give its top action")
            plus = PATHFINDER_PLUS if ability == "top_action_plus_two" else 0
            top = a.top
            used = fire if ability == "shaman" else None
            t.move_top(
                seat,
                a.terrains[0],
                plus,
                None,
                top.path,
                used,
                top.fire_at,
                top.fire_path,
                any_skill,
            )
        case "renew_footprints":
            mine = t.player(seat).footprints
            if not set(a.cards) <= set(mine) or len(set(a.cards)) != len(a.cards):
                raise illegal("not_on_board", "discard footprint cards of your board, once each")
            if a.cards:  # the discard pile keeps no order
                t.emit(FootprintsRenewed(seat=seat, discarded=tuple(sorted(a.cards))))
            t.owed_footprints += 2
        case "fire_and_footprint":
            t.owed_fire += 2
            t.owed_footprints += 1
        case "build_twice":
            start = t.player(seat).position
            if start is not None:
                ends = bottom_destinations(t.board, start, t.figures(but=seat))
                if a.to not in ends:
                    raise illegal("not_next_space", f"{a.to} is not the next unoccupied space")
                t.emit(FigureMoved(seat=seat, path=(a.to,)))
                t.collect(seat, t._space_bonuses([a.to], t.figures(but=seat)), any_skill)
        case "trade_resources":
            for resource in RESOURCES:
                n = a.give.count(resource)
                if n > t.owned(seat, resource):
                    raise illegal("cannot_afford", f"you have {t.owned(seat, resource)} {resource}")
            if len(a.resources) != len(a.give) + 1:
                raise illegal("trade_count", "take one more resource than you give")
            for resource in a.give:
                t.emit(ResourcesChanged(seat=seat, resource=resource, change=-1))
            for resource in a.resources:
                t.emit(ResourcesChanged(seat=seat, resource=resource, change=1))
        case "two_fire_cards":
            two_fire_cards(t, seat, a, any_skill)
        case "replay_follower":
            replay(t, seat, a, any_skill)
        case _:
            raise illegal("unknown_leader", f"no leader ability {ability!r}")


def scout(t: Table, seat: int, a: Lead, any_skill: list[Terrain]) -> None:
    """Up to six spaces in one straight line, whatever the terrain."""
    start = t.player(seat).position
    if start is None or not 1 <= len(a.path) <= SCOUT_SPACES:
        raise illegal("scout_line", f"move 1 to {SCOUT_SPACES} spaces in a straight line")
    lines = [list(t.board.line(start, d))[: len(a.path)] for d in range(6)]
    if list(a.path) not in lines or any(p not in t.board.places for p in a.path):
        raise illegal("scout_line", "the Scout moves along one row or diagonal, on the map")
    others = t.figures(but=seat)
    if a.path[-1] in others:
        raise illegal("occupied", "you may move through figures but not end on one")
    t.emit(FigureMoved(seat=seat, path=a.path))
    t.collect(seat, t._space_bonuses(a.path, others), any_skill)


def recluse_targets(t: Table, seat: int) -> list[tuple[int, int]]:
    start = t.player(seat).position
    if start is None:
        return []
    others = t.figures(but=seat)
    return sorted(
        p
        for p in t.board.places
        if p not in others
        and p != start
        and abs(p[1] - start[1]) <= RECLUSE_COLUMNS
        and all(t.board.distance(p, q) > RECLUSE_ALONE for q in others)
    )


def recluse(t: Table, seat: int, a: Lead, any_skill: list[Terrain]) -> None:
    """To any unoccupied space at most 4 columns away with no figure within 2 spaces."""
    if a.to not in recluse_targets(t, seat):
        raise illegal("not_secluded", "the Recluse goes where no figure is within 2 spaces")
    t.emit(FigureMoved(seat=seat, path=(a.to,)))
    t.collect(seat, t._space_bonuses([a.to], t.figures(but=seat)), any_skill)


def two_fire_cards(t: Table, seat: int, a: Lead, any_skill: list[Terrain]) -> None:
    """Play up to two fire cards from hand and use both (one fire move at most), then take 1."""
    hand = t.player(seat).fire_hand
    if len(a.cards) > 2 or not set(a.cards) <= set(hand) or len(set(a.cards)) != len(a.cards):
        raise illegal("fire_not_in_hand", "play up to 2 different fire cards from your hand")
    if a.cards:  # the discard pile keeps no order: either order of two cards is one move
        t.emit(FireDiscarded(seat=seat, cards=tuple(sorted(a.cards))))
    moved = False
    for card in a.cards:
        move = t.fire_move(card)
        if move is not None and a.path and not moved:
            walk_fire(t, seat, move, a.path, any_skill)
            moved = True
        t.fire_effects(seat, card, any_skill)
    if a.path and not moved:
        raise illegal("fire_has_no_move", "none of these fire cards moves you")
    t.owed_fire += 1


def walk_fire(
    t: Table, seat: int, move: Move, path: tuple[tuple[int, int], ...], any_skill: list[Terrain]
) -> None:
    start = t.player(seat).position
    if start is None:
        raise illegal("on_cairn_track", "your figure is on the cairn track")
    try:
        check_path(t.board, start, path)
    except IllegalMove as exc:
        raise illegal(exc.code, str(exc)) from exc
    if len(path) > move.spaces:
        raise illegal("too_far", f"the fire card moves {move.spaces} spaces or fewer")
    if any(not t.board.has(p, move.terrain) for p in path):
        raise illegal("wrong_terrain", f"the fire card moves over {move.terrain} only")
    others = t.figures(but=seat)
    if path[-1] in others:
        raise illegal("occupied", "you may move through figures but not end on one")
    t.emit(FigureMoved(seat=seat, path=path))
    t.collect(seat, t._space_bonuses(path, others), any_skill)


def replay(t: Table, seat: int, a: Lead, any_skill: list[Terrain]) -> None:
    """A follower from your clan discard pile does its top or bottom action again."""
    played = t.player(seat).played
    if a.follower not in played:
        raise illegal("not_played", "choose a follower from your clan discard pile")
    card = clan_card(t.content, a.follower)
    if not isinstance(card, Follower):
        raise illegal("not_a_follower", "only a follower's action can be replayed")
    action = a.top or a.bottom
    if action is None or (a.top is not None and a.bottom is not None):
        raise illegal("top_or_bottom", "give the follower's top or its bottom action")
    if isinstance(action, Top) and (action.fire_at is not None or action.fire_path):
        raise illegal("no_fire_card", "no fire card was played with this card")
    follower_action(t, seat, card, action, None, any_skill)
