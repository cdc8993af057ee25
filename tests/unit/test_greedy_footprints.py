"""Footprints greedy (services/bots/policies/footprints.py) on its blind spots (issue 10):
the leader played by what it gives, movement fire cards, footprint cards kept when they can
be done, houses and builds chosen by value. Each position is a real engine state (set up by
the engine, crafted with msgspec.structs.replace) seen through the worker's `observation`."""

from __future__ import annotations

from random import Random
from typing import Any

from msgspec.structs import replace

from games.footprints.content import ResourceBonus, SkillBonus
from games.footprints.model import (
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    ChooseLeader,
    DecideFootprint,
    FootprintChoice,
    KeepStartingFootprint,
    Lead,
    Options,
    PlaceFigure,
    Play,
    SetupChoices,
    Top,
)
from games.footprints.state import State
from services.bots.observe import Observation, observation
from services.bots.policies.footprints import _map, greedy
from tests.unit.footprints.rules_helpers import (
    HOUSES,
    REAL,
    TILES,
    TURNED,
    C,
    board,
    follower,
    goods,
    leader,
    on_panel,
    play,
    played,
    set_up,
    table,
    terrains,
)


def seen(state: State, seat: int = 0) -> Observation:
    obs = observation(REAL, state, seat, 0, world=False)
    assert obs.legal, "the seat has a move to make"
    return obs


def choose(state: State, seat: int = 0) -> Any:
    obs = seen(state, seat)
    action = greedy(obs, Random(0))
    assert action in obs.legal
    return action


def distance(pos: Any) -> int:
    return _map(TILES, TURNED, HOUSES, False)[1][tuple(pos)]


def with_player(state: State, seat: int, **fields: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **fields)
    return replace(state, players=tuple(players))


# -- the leader ---------------------------------------------------------------------------


def shaman_on_panel(**fields: Any) -> State:
    """Deer clan (leader A: the Shaman, the top action of any terrain at its skill level)
    early on, its leader on the panel with three followers."""
    state = table(2, clans=["clan-3", "clan-1"], players=[{"position": (0, 1), **fields}])
    return on_panel(state, 0, leader("clan-3"))


def test_a_leader_whose_gift_is_not_at_hand_is_held_back() -> None:
    """Every skill at 2: the Shaman's move is no longer than a follower's, and it grows with
    the skills (the old greedy played the leader first, whatever it gave)."""
    state = shaman_on_panel()
    assert leader("clan-3") in state.players[0].panel
    action = choose(state)
    assert isinstance(action, Play) and action.card != leader("clan-3")


def test_a_leader_is_played_once_its_gift_is_at_hand() -> None:
    state = shaman_on_panel(skills=terrains(ice=7))
    action = choose(state)
    assert isinstance(action, Play) and action.card == leader("clan-3")


def test_a_held_leader_is_played_before_the_turns_run_out() -> None:
    """The deck is empty and two cards are left: the leader goes now or gives nothing."""
    p = shaman_on_panel().players[0]
    keep = (leader("clan-3"), p.panel[0])
    state = with_player(
        shaman_on_panel(),
        0,
        panel=keep,
        deck_top=(),
        deck_bottom=(),
        played=tuple(c for c in (*p.panel, *p.deck_top, *p.deck_bottom) if c not in keep),
    )
    action = choose(state)
    assert isinstance(action, Play) and action.card == leader("clan-3")


def test_the_leader_chosen_in_secret_is_the_one_that_gives_more() -> None:
    """Ibex clan: the Fire Keeper (leader A: two fire cards from hand) or the Chieftain
    (leader B: a follower's action again, at the skills reached by then)."""
    _, state = set_up(2, 0, Options(advanced=True))
    state = with_player(state, 0, clan="clan-6")
    choices = [a for a in seen(state).legal if isinstance(a, ChooseLeader)]
    assert [a.leader for a in choices] == [leader("clan-6", "a"), leader("clan-6", "b")]
    assert choose(state) == choices[1]


def test_the_gatherer_takes_what_a_creation_lacks() -> None:
    """Mammoth clan (leader A: take 3 resources) with a stone and a wood: a mammoth buys
    the mountain engraving (stone, wood, mammoth); the old greedy took three stones."""
    state = table(
        2,
        clans=["clan-2", "clan-1"],
        players=[{"position": (0, 1), "resources": goods(stone=1, wood=1)}],
    )
    assert C.boards["clan-2"].engravings["mountain"].cost == {"stone": 1, "wood": 1, "mammoth": 1}
    action = choose(played(state, 0, leader("clan-2")))
    assert isinstance(action, Lead) and len(action.resources) == 3
    assert "mammoth" in action.resources


# -- movement fire cards ------------------------------------------------------------------


def end_of(a: Top | Bottom, start: tuple[int, int] = (0, 1)) -> tuple[int, int]:
    """Where a follower's action leaves the figure (RULES: the fire card's move comes after
    `fire_at` of a top action's steps, before or after a bottom action's)."""
    if isinstance(a, Top):
        steps = [*a.path[: a.fire_at or 0], *a.fire_path, *a.path[a.fire_at or 0 :]]
        return steps[-1] if steps else start
    if a.fire_at == 1 and a.fire_path:
        return a.fire_path[-1]
    return a.to or start


def at_the_ice(fire: str) -> State:
    """Horse clan on (0, 1), mountain, with three ice spaces to its right toward the cairn
    ((0, 2) to (0, 4)) and no swamp next to it."""
    return table(2, players=[{"position": (0, 1), "fire_hand": (fire,)}])


def test_a_movement_fire_card_is_played_when_its_move_gains_ground() -> None:
    b = board(at_the_ice("fire-02"))
    assert all(b.has((0, c), "ice") for c in (2, 3, 4))
    assert distance((0, 4)) < distance((0, 1)) - 2
    state = at_the_ice("fire-02")  # move 3 ice
    action = choose(state)
    assert isinstance(action, Play) and action.fire == "fire-02"
    # and its move is used: the figure ends nearer the cairn than any move without it
    after = play(state, 0, action)[1]
    obs = seen(after)
    move = greedy(obs, Random(0))
    assert move.fire_path, move
    unfired = [a for a in obs.legal if not a.fire_path]
    assert distance(end_of(move)) < min(distance(end_of(a)) for a in unfired)


def test_a_movement_fire_card_with_nowhere_to_go_is_kept() -> None:
    state = at_the_ice("fire-04")  # move 3 swamp: no swamp next to (0, 1)
    assert not any(board(state).has(q, "swamp") for q in board(state).adjacent((0, 1)))
    action = choose(state)
    assert isinstance(action, Play) and action.fire is None


# -- footprint cards ----------------------------------------------------------------------


def drawn(state: State, card: str) -> State:
    """`card` just drawn by seat 0 as a bonus: keep it or discard it."""
    return replace(
        state,
        footprint_deck=tuple(c for c in state.footprint_deck if c != card),
        pending=FootprintChoice(seat=0, cards=(card,)),
    )


def test_a_footprint_card_that_cannot_be_done_in_the_turns_left_is_discarded() -> None:
    """Two turns left (two cards, an empty deck) and footprint-18 asks mountain 9 and two
    berries of a seat at mountain 2 with none: the old greedy kept it (fewer than two open)."""
    p = table(2).players[0]
    state = table(
        2,
        players=[
            {
                "position": (0, 1),
                "panel": p.panel[:2],
                "deck_top": (),
                "deck_bottom": (),
                "played": (*p.panel[2:], *p.deck_top, *p.deck_bottom),
            }
        ],
    )
    action = choose(drawn(state, "footprint-18"))
    assert isinstance(action, DecideFootprint) and not action.keep


def test_a_footprint_card_nearly_done_is_kept_beside_others() -> None:
    """Two cards open, each a step from done, and a third as close: keep it (the old greedy
    discarded any card beyond two open)."""
    state = table(
        2,
        players=[
            {
                "position": (0, 1),
                "footprints": ("footprint-14", "footprint-17"),
                "skills": terrains(ice=8, mountain=8, forest=5, swamp=9),
                "resources": goods(stone=1, mammoth=1),
            }
        ],
    )
    action = choose(drawn(state, "footprint-21"))
    assert isinstance(action, DecideFootprint) and action.keep


def test_the_starting_footprint_card_kept_is_the_nearest_to_done() -> None:
    """Advanced setup, three cards dealt: footprint-12 (mountain and swamp 15 in all, ice 6)
    and footprint-08 (mountain and ice 15, three wood) are far off; footprint-14 (ice 8,
    two stone) is nearest. The old greedy kept the first dealt."""
    _, state = set_up(2, 0, Options(advanced=True))
    assert isinstance(state.pending, SetupChoices)
    dealt = dict(state.pending.footprints)
    mine = ("footprint-12", "footprint-08", "footprint-14")
    others = tuple(c for c in dealt[1] if c not in mine)
    spare = [c for c in state.footprint_deck if c not in mine]
    others = (*others, *spare[: 3 - len(others)])
    deck = set(state.footprint_deck) | set(dealt[0]) | set(dealt[1])
    state = replace(
        state,
        footprint_deck=tuple(sorted(deck - set(mine) - set(others))),
        pending=replace(state.pending, footprints=((0, mine), (1, others))),
    )
    first = choose(state)  # the leader (asked at once with the footprint card)
    assert isinstance(first, ChooseLeader)
    action = choose(play(state, 0, first)[1])
    assert isinstance(action, KeepStartingFootprint) and action.card == "footprint-14"


# -- houses and builds --------------------------------------------------------------------


def test_the_house_taken_is_the_best_not_the_first() -> None:
    """Row 0's house gives a fire card and a stone; rows 1 and 2 each advance two skills
    (row 1 one space nearer the cairn): the old greedy took row 0, the first listed."""
    houses = list(HOUSES)
    houses[0], houses[4] = houses[4], houses[0]  # house-5 (fire, stone) to row 0
    _, state = set_up(2, 0)
    state = replace(state, tiles=TILES, turned=TURNED, houses=tuple(houses))
    seat = state.pending.order[0]  # type: ignore[union-attr]
    got = {r: C.house_tiles[h].sides[side] for r, (h, side) in enumerate(houses)}
    assert not any(isinstance(b, SkillBonus) for b in got[0])
    assert all(isinstance(b, SkillBonus) for b in got[1]) and len(got[1]) == 2
    assert any(isinstance(b, ResourceBonus) for b in got[0])
    action = choose(state, seat)
    assert isinstance(action, PlaceFigure) and action.row != 0
    twos = [r for r, bonuses in got.items() if all(isinstance(b, SkillBonus) for b in bonuses)]
    assert action.row in twos
    assert distance((action.row, 0)) == min(distance((r, 0)) for r in twos)


def test_the_build_chosen_scores_the_most() -> None:
    """Bison clan on (0, 1) with resources for its mountain engraving (3 stone: 3 points)
    and its swamp engraving (2 berries, a stone, a mammoth: 6 points)."""
    state = table(
        2,
        clans=["clan-4", "clan-1"],
        players=[{"position": (4, 22), "resources": goods(stone=4, berries=2, mammoth=1)}],
        turn={"phase": "build", "card": follower("clan-4", 1)},
    )
    p = state.players[0]
    state = with_player(
        state,
        0,
        panel=p.panel[1:],
        played=(follower("clan-4", 1),),
    )
    obs = seen(state)
    builds = [a for a in obs.legal if isinstance(a, BuildEngraving | BuildCavePainting)]
    terrains_offered = {a.terrain for a in builds if isinstance(a, BuildEngraving)}
    assert {"mountain", "swamp"} <= terrains_offered, terrains_offered
    assert isinstance(builds[0], BuildEngraving) and builds[0].terrain == "mountain"
    action = choose(state)
    assert isinstance(action, BuildEngraving) and action.terrain == "swamp"


def beside_a_cave(**resources: int) -> State:
    """Horse clan on (1, 20), a follower played: a step from (0, 20), which touches the
    cave site tile-6-cave-a (token cave-06: 10 points plus the cairn's), and from (1, 21),
    one space nearer the cairn."""
    state = table(2, players=[{"position": (1, 20), "resources": goods(**resources)}])
    return played(state, 0, follower("clan-1", 1))


def test_a_cave_worth_painting_draws_the_figure_and_is_painted() -> None:
    """With the painting's price in hand (one of each resource), the figure stops by the
    cave rather than a space nearer the cairn, and paints it this very turn (10 points
    against a 5-point forest engraving): the old greedy walked past."""
    state = beside_a_cave(stone=1, mammoth=1, wood=1, berries=1)
    assert (0, 20) in board(state).caves["tile-6-cave-a"].touches
    assert dict(state.caves)["tile-6-cave-a"] == "cave-06"
    assert distance((1, 21)) < distance((0, 20))
    move = choose(state)
    assert end_of(move, (1, 20)) in board(state).caves["tile-6-cave-a"].touches
    after = play(state, 0, move)[1]
    build = choose(after)
    assert isinstance(build, BuildCavePainting) and build.site == "tile-6-cave-a"


def test_a_cave_the_seat_cannot_pay_for_is_passed_by() -> None:
    state = beside_a_cave()
    move = choose(state)
    assert end_of(move, (1, 20)) not in board(state).caves["tile-6-cave-a"].touches
