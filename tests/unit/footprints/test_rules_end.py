"""The Footprints rulebook, rule by rule: building, engraving powers, the end of the game,
the cairns, scoring in every category and the solo mode.

Seat 0 plays the Horse Clan (clan-1): ice engraving 3 mammoth (3 points, power: mammoth),
mountain engraving 2 stone + berries + wood (6 points, power: stone, berries past 11),
cave painting 1 of each resource. The map is the fixed one of rules_helpers.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from games.footprints.events import (
    CavePaintingBuilt,
    EndTriggered,
    EngravingBuilt,
    FigureMoved,
    FireDrawn,
    GameEnded,
    PowerUsed,
    ReachedCairn,
    ResourcesChanged,
    SkillAdvanced,
    StepDone,
    TurnBegan,
)
from games.footprints.model import (
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    Lead,
    Options,
    Play,
    Skip,
    Top,
    UsePower,
)
from tests.unit.footprints.playouts import quick_playout
from tests.unit.footprints.rules_helpers import (
    CAIRN_FS,
    CAIRN_MI,
    NONE,
    REAL,
    follower,
    goods,
    leader,
    of,
    play,
    played,
    refusal,
    refused,
    run,
    table,
    terrains,
)

H = "clan-1"
F03, F06, F09, F12 = (follower(H, n) for n in (3, 6, 9, 12))


def gained(seat: int, resource: str, n: int = 1) -> ResourcesChanged:
    return ResourcesChanged(seat=seat, resource=resource, change=n)  # type: ignore[arg-type]


def roman(**fields: Any) -> Any:
    """Seat 0 at (0, 12) by the ice space (1, 11) (stone, mammoth, wood around it); seat 1 on
    the mammoth space (2, 11)."""
    me = {"position": (0, 12), "resources": goods(mammoth=3), **fields}
    return table(players=[me, {"position": (2, 11)}])


# -- 3. build ----------------------------------------------------------------------------------


def test_romans_example_an_ice_engraving_for_3_mammoth_and_the_unoccupied_bonuses() -> None:
    # "Roman gives up 3 mammoth tokens to build an ice engraving (clothing) on an ice space.
    # He gets 1 stone and 1 wood from the unoccupied bonus spaces adjacent to this engraving."
    state = play(played(roman(), 0, F03), 0, Top(path=()))[1]
    assert state.turn is not None and state.turn.phase == "build"
    events, state = play(state, 0, BuildEngraving(terrain="ice", at=(1, 11)))
    assert events[:4] == [
        gained(0, "mammoth", -3),
        EngravingBuilt(seat=0, terrain="ice", at=(1, 11)),
        gained(0, "stone"),  # (1, 10); (2, 11) is occupied
        gained(0, "wood"),  # (2, 12)
    ]
    assert state.players[0].engravings == ("ice",) and state.engraved == (((1, 11), 0, "ice"),)
    assert state.players[0].resources == goods(stone=1, wood=1)


def test_an_engraving_goes_next_to_you_on_its_terrain_with_no_icon_figure_creation_or_cairn() -> (
    None
):
    rich = goods(stone=9, mammoth=9, wood=9, berries=9)
    state = table(
        players=[{"position": (0, 12), "resources": rich}, {"position": (1, 12)}],
        engraved=(((0, 11), 1, "mountain"),),
    )
    state = play(played(state, 0, F03), 0, Top(path=()))[1]
    for terrain, at in [
        ("forest", (0, 13)),  # a bonus icon
        ("mountain", (1, 12)),  # a figure
        ("mountain", (0, 11)),  # a creation
        ("mountain", (1, 11)),  # another terrain
        ("ice", (2, 10)),  # not next to the figure
    ]:
        assert refused(state, 0, BuildEngraving(terrain=terrain, at=at)) == "not_eligible"  # type: ignore[arg-type]
    built = table(players=[{"position": (0, 12), "engravings": ("ice",), "resources": rich}])
    built = play(played(built, 0, F03), 0, Top(path=()))[1]
    assert refused(built, 0, BuildEngraving(terrain="ice", at=(1, 11))) == "already_built"
    # the mountain engraving on (1, 12) is affordable, the ice one not
    poor = roman(resources=goods(mammoth=2, stone=2, berries=1, wood=1))
    poor = play(played(poor, 0, F03), 0, Top(path=()))[1]
    assert refused(poor, 0, BuildEngraving(terrain="ice", at=(1, 11))) == "cannot_afford"


def test_no_bonus_from_a_house_tile_next_to_a_creation() -> None:
    # the mountain space (0, 0) touches the house tiles of rows 0 and 1, and (0, 1): a stone
    cost = goods(stone=2, berries=1, wood=1)
    state = table(players=[{"position": (1, 0), "resources": cost}], clans=[H, "clan-2"])
    state = play(played(state, 0, F03), 0, Top(path=()))[1]
    events = play(state, 0, BuildEngraving(terrain="mountain", at=(0, 0)))[0]
    i = events.index(EngravingBuilt(seat=0, terrain="mountain", at=(0, 0)))
    assert events[i + 1] == gained(0, "stone") and not isinstance(events[i + 2], ResourcesChanged)


def test_building_is_optional_and_one_creation_a_turn() -> None:
    state = play(
        played(roman(resources=goods(mammoth=6, stone=2, berries=1, wood=1)), 0, F03),
        0,
        Top(path=()),
    )[1]
    assert Skip() in REAL.legal_actions(state, 0)
    events = play(state, 0, Skip())[0]
    assert [e.phase for e in of(StepDone, events)][:2] == ["power", "discard"]
    state = play(state, 0, BuildEngraving(terrain="ice", at=(1, 11)))[1]
    assert state.turn is not None and state.turn.phase == "power"
    assert refusal(state, 0, BuildEngraving(terrain="mountain", at=(1, 12))) == (
        "not_now",
        "BuildEngraving is not for step 'power'",
    )


def test_an_engraved_space_counts_as_a_normal_space_of_its_terrain_when_moving() -> None:
    state = table(
        players=[{"position": (0, 2), "skills": terrains(ice=3)}],
        engraved=(((0, 4), 1, "ice"),),
    )
    state = played(state, 0, F03)
    assert play(state, 0, Top(path=((0, 3), (0, 4))))[1].players[0].position == (0, 4)
    assert play(state, 0, Top(path=((0, 3), (0, 4), (0, 5))))[1].players[0].position == (0, 5)


def test_leras_cave_painting_for_one_of_each_resource_and_the_bonus_next_to_it() -> None:
    # "Lera pays 1 of each resource type to build a cave painting on an adjacent cave token.
    # She gets a fire card from the unoccupied bonus space adjacent to her cave painting."
    one_each = goods(stone=1, mammoth=1, wood=1, berries=1)
    state = table(players=[{"position": (0, 9), "resources": one_each}])  # by tile-3-cave-a
    state = play(played(state, 0, F06), 0, Top(path=()))[1]
    assert BuildCavePainting(site="tile-3-cave-a") in REAL.legal_actions(state, 0)
    events, after = play(state, 0, BuildCavePainting(site="tile-3-cave-a"))
    # the step ends, and the fire card earned is drawn as the build's last gain
    kinds = [ResourcesChanged] * 4 + [CavePaintingBuilt, StepDone, FireDrawn]
    assert [type(e) for e in events[:7]] == kinds
    assert after.players[0].resources == goods() and after.players[0].cave_site == "tile-3-cave-a"
    not_in_play = BuildCavePainting(site="tile-1-cave-a")
    assert refused(state, 0, not_in_play) == "no_cave_token"
    assert refusal(state, 0, BuildCavePainting(site="tile-3-cave-b")) == (
        "not_adjacent",
        "the cave token must be next to your figure",
    )
    assert refusal(state, 0, Top(path=())) == ("not_now", "Top is not for step 'build'")
    # with enough for the mountain engraving on (0, 10) too, the build step stays open
    more = goods(stone=2, mammoth=1, wood=1, berries=1)
    taken = table(players=[{"position": (0, 9), "resources": more}, {"cave_site": "tile-3-cave-a"}])
    taken = play(played(taken, 0, F06), 0, Top(path=()))[1]
    assert refused(taken, 0, BuildCavePainting(site="tile-3-cave-a")) == "no_cave_token"
    again = table(players=[{"position": (0, 9), "resources": more, "cave_site": "tile-3-cave-b"}])
    again = play(played(again, 0, F06), 0, Top(path=()))[1]
    assert refusal(again, 0, BuildCavePainting(site="tile-3-cave-a")) == (
        "already_built",
        "your cave painting is built",
    )


def test_a_figure_on_the_bonus_space_next_to_a_cave_painting_keeps_its_bonus() -> None:
    """The cave painting's bonus comes from an *unoccupied* bonus space: with another figure
    on (0, 8), tile-3-cave-a's one bonus space, Lera draws no fire card."""
    one_each = goods(stone=1, mammoth=1, wood=1, berries=1)
    state = table(players=[{"position": (0, 9), "resources": one_each}, {"position": (0, 8)}])
    state = play(played(state, 0, F06), 0, Top(path=()))[1]
    events, after = play(state, 0, BuildCavePainting(site="tile-3-cave-a"))
    assert CavePaintingBuilt(seat=0, site="tile-3-cave-a") in events
    assert not of(FireDrawn, events) and after.players[0].fire_hand == ()


# -- 4. engraving power ------------------------------------------------------------------------


def test_leras_power_3_stone_for_3_grey_advances_berries_past_11() -> None:
    # "Lera gives up 3 stone to advance her grey skill marker 3 spaces. Since she cannot go
    # past level 11, she gets berries for her last advance."
    state = roman(
        resources=goods(mammoth=3, stone=3),
        skills=terrains(mountain=9),
        engravings=("mountain",),
        position=(0, 12),
    )
    state = play(played(state, 0, F03), 0, Top(path=()))[1]
    state = play(state, 0, BuildEngraving(terrain="ice", at=(1, 11)))[1]  # +1 stone, +1 wood
    assert state.turn is not None and state.turn.phase == "power"
    assert refused(state, 0, UsePower(terrain="forest", pay=1)) == "power_not_revealed"
    assert refused(state, 0, UsePower(terrain="mountain", pay=5)) == "cannot_afford"
    assert refused(state, 0, UsePower(terrain="mountain", pay=0)) == "cannot_afford"
    events, state = play(state, 0, UsePower(terrain="mountain", pay=3))
    assert events[:5] == [
        gained(0, "stone", -3),
        PowerUsed(seat=0, terrain="mountain", paid=3),
        SkillAdvanced(seat=0, terrain="mountain", level=11),
        gained(0, "berries"),  # no bonus on 10 and 11, berries past 11
        StepDone(seat=0, phase="discard"),
    ]


def test_the_engraving_power_every_turn_even_without_building() -> None:
    # "to activate engraving powers as many times as possible": step 4 comes every turn
    state = roman(resources=goods(mammoth=3, stone=3), engravings=("mountain",))
    state = play(played(state, 0, F03), 0, Top(path=()))[1]
    events, state = play(state, 0, Skip())  # not building: the power step still comes
    assert [e.phase for e in of(StepDone, events)] == ["power"]
    assert state.turn is not None and state.turn.phase == "power"
    assert UsePower(terrain="mountain", pay=3) in REAL.legal_actions(state, 0)
    events, state = play(state, 0, UsePower(terrain="mountain", pay=2))
    assert PowerUsed(seat=0, terrain="mountain", paid=2) in events
    assert (
        gained(0, "stone", -2) in events
        and SkillAdvanced(seat=0, terrain="mountain", level=4) in events
    )
    # with nothing to pay for a revealed power, the step passes by itself
    poor = roman(resources=goods(mammoth=3), engravings=("mountain",))
    poor = play(played(poor, 0, F03), 0, Top(path=()))[1]
    events, poor = play(poor, 0, Skip())
    assert [e.phase for e in of(StepDone, events)][:2] == ["power", "discard"]
    assert poor.turn is not None and poor.turn.seat == 1


# -- the end of the game and the cairns -------------------------------------------------------


def at_cairn_door(seats: int = 2, seat: int = 0, me: Any = None, **fields: Any) -> Any:
    """`seat` (Horse, ice 3, and `me`) on the ice space (1, 25), next to the mountain+ice
    cairn; the others on the bottom row."""
    spots: list[dict[str, Any]] = [{"position": (5, s)} for s in range(seats)]
    spots[seat] = {"position": (1, 25), "skills": terrains(ice=3), **(me or {})}
    clans = [f"clan-{s + 2}" for s in range(seats)]
    clans[seat] = H
    return table(seats, players=spots, clans=clans, current=seat, **fields)


def test_ending_a_turn_on_a_cairn_moves_the_figure_to_the_cairn_track_and_ends_the_game() -> None:
    state = played(at_cairn_door(3), 0, F03)
    events, state = play(state, 0, Top(path=(CAIRN_MI,)))
    assert (
        ReachedCairn(seat=0, points=15) in events and EndTriggered(seat=0, reason="cairn") in events
    )
    assert state.players[0].position is None and state.cairn_track == (0,)
    assert state.players[0].cairn_points == 15 and state.end_triggered
    for seat in (1, 2):  # the others take their turns: all have taken the same number
        assert state.result is None and state.turn is not None and state.turn.seat == seat
        events, state = run(state, seat, Play(card=state.players[seat].panel[0]), Top(path=()))
    assert isinstance(events[-1], GameEnded) and REAL.to_act(state) == frozenset()
    assert refusal(state, 0, Play(card=F06)) == ("game_over", "the game has ended")


def test_the_last_seat_ends_the_game_at_once_and_the_next_cairn_arrival_scores_14() -> None:
    state = table(
        2,
        players=[
            {"position": None, "cairn_points": 15, "turns": 1},
            {"position": (1, 25), "skills": terrains(ice=3)},
        ],
        clans=["clan-2", H],
        current=1,
        cairn_track=(0,),
        end_triggered=True,
    )
    events, state = play(played(state, 1, F03), 1, Top(path=(CAIRN_MI,)))
    assert ReachedCairn(seat=1, points=14) in events and not of(EndTriggered, events)
    assert isinstance(events[-1], GameEnded) and state.result is not None


def test_the_sixth_figure_on_the_cairn_track_scores_its_last_space() -> None:
    """Six seats, five figures on the track: the last to arrive takes the track's sixth and
    last space, 10 points."""
    done = {"position": None, "cairn_points": 15, "turns": 1}
    state = table(
        6,
        players=[*([done] * 5), {"position": (1, 25), "skills": terrains(ice=3)}],
        clans=["clan-2", "clan-3", "clan-4", "clan-5", "clan-6", H],
        current=5,
        cairn_track=(0, 1, 2, 3, 4),
        end_triggered=True,
    )
    events, state = play(played(state, 5, F03), 5, Top(path=(CAIRN_MI,)))
    assert ReachedCairn(seat=5, points=10) in events and state.cairn_track == (0, 1, 2, 3, 4, 5)
    assert REAL.content.cairn_tile.track[-1] == 10 and len(REAL.content.cairn_tile.track) == 6


def test_cairn_spaces_count_as_both_terrains_and_can_be_passed_through() -> None:
    mountain = played(
        table(players=[{"position": (0, 26), "skills": terrains(mountain=3)}]), 0, F12
    )
    assert play(mountain, 0, Top(path=(CAIRN_MI,)))[1].players[0].cairn_points == 15
    events, through = play(mountain, 0, Top(path=(CAIRN_MI, (2, 26))))
    assert not of(ReachedCairn, events) and not through.end_triggered
    assert through.players[0].position == (2, 26)
    forest = played(table(players=[{"position": (4, 25), "skills": terrains(forest=3)}]), 0, F09)
    events = play(forest, 0, Top(path=(CAIRN_FS,)))[0]
    assert ReachedCairn(seat=0, points=15) in events


def test_build_from_a_cairn_space_but_never_on_one() -> None:
    cost = goods(stone=2, berries=1, wood=1, mammoth=3)
    state = played(at_cairn_door(me={"resources": cost}), 0, F03)
    still = play(state, 0, Top(path=()))[1]  # on (1, 25), next to the cairn
    assert refused(still, 0, BuildEngraving(terrain="ice", at=CAIRN_MI)) == "not_eligible"
    build = BuildEngraving(terrain="mountain", at=(0, 26))
    events, state = run(state, 0, Top(path=(CAIRN_MI,)), build, Skip())  # Skip the power
    assert EngravingBuilt(seat=0, terrain="mountain", at=(0, 26)) in events
    assert ReachedCairn(seat=0, points=15) in events


def test_a_figure_on_the_cairn_track_still_takes_turns_without_moving() -> None:
    state = table(players=[{"position": None, "cairn_points": 15}], cairn_track=(0,))
    state = played(state, 0, F03)
    assert set(REAL.legal_actions(state, 0)) == {Top(path=()), Bottom(to=None)}
    assert refusal(state, 0, Top(path=((0, 3),))) == (
        "on_cairn_track",
        "your figure is on the cairn track",
    )
    assert refused(state, 0, Bottom(to=(0, 3))) == "on_cairn_track"
    events, state = play(state, 0, Bottom(to=None))
    assert SkillAdvanced(seat=0, terrain="ice", level=3) in events and not of(FigureMoved, events)


def test_an_empty_clan_panel_ends_the_game_and_a_player_with_no_card_passes() -> None:
    state = table(players=[{"panel": (F03,), "deck_top": (), "deck_bottom": ()}])
    events, state = play(played(state, 0, F03), 0, Top(path=()))
    assert EndTriggered(seat=0, reason="empty_panel") in events
    events = run(state, 1, Play(card=state.players[1].panel[0]), Top(path=()))[0]
    assert isinstance(events[-1], GameEnded)
    # a seat with no clan card left: its turn passes at once (our ruling)
    state = table(players=[{}, {"panel": (), "deck_top": (), "deck_bottom": ()}])
    events = play(played(state, 0, F03), 0, Top(path=()))[0]
    assert events[-3:] == [TurnBegan(seat=1), StepDone(seat=1, phase="over"), TurnBegan(seat=0)]


SNAKE_TWO = Options(snake=True, two_leaders=True)


def last_cards(rules: int | None = None) -> Any:
    """ "Snake" and "2 Leaders", 13 turns taken: seat 0 (Horse, whose Scout the Snake bars: 13
    followers and leader A, 14 cards) has its last card, f13, on the panel; seat 1 (Deer,
    both leaders, 15 cards) its last two, f12 and f13. Rules version 2 unless `rules`."""

    def seat(clan: str, leaders: tuple[str, ...]) -> dict[str, Any]:
        own = [*leaders, *(follower(clan, n) for n in range(1, 14))]
        return {
            "panel": tuple(own[13:]),
            "played": tuple(own[:13]),
            "deck_top": (),
            "deck_bottom": (),
            "leader": leaders[0],
            "turns": 13,
        }

    state = table(
        players=[
            seat("clan-1", (leader("clan-1"),)),
            seat("clan-3", (leader("clan-3"), leader("clan-3", "b"))),
        ],
        clans=["clan-1", "clan-3"],
        options=SNAKE_TWO,
    )
    return state if rules is None else replace(state, rules=rules)


def test_snake_and_two_leaders_a_clan_left_one_leader_passes_its_15th_turn_then_the_end() -> None:
    # "2 LEADERS ... your clan deck will have 15 cards, and the game may last one more turn";
    # the Snake bars the Scout: the Horse Clan has 14. Its empty panel does not end the game
    # at its 14th turn; it passes its 15th (as any seat with no card), which ends the game,
    # and every seat has had its 15 turns.
    state = last_cards()
    events, state = play(played(state, 0, follower("clan-1", 13)), 0, Top(path=()))
    assert not of(EndTriggered, events) and not state.end_triggered
    events, state = run(state, 1, Play(card=follower("clan-3", 12)), Top(path=()))
    assert events[-4:] == [
        TurnBegan(seat=0),
        EndTriggered(seat=0, reason="empty_panel"),
        StepDone(seat=0, phase="over"),
        TurnBegan(seat=1),
    ]
    events, state = run(state, 1, Play(card=follower("clan-3", 13)), Top(path=()))
    assert isinstance(events[-1], GameEnded)
    assert [p.turns for p in state.players] == [15, 15]


def test_only_snake_and_two_leaders_together_leave_a_clan_short() -> None:
    # the Snake alone: every clan has 14 cards; 2 Leaders alone: 15; the empty panel of a
    # Horse seat ends the game at once
    for options in (Options(snake=True), Options(two_leaders=True)):
        last = {"panel": (F03,), "deck_top": (), "deck_bottom": ()}
        state = table(players=[last], options=options)
        events = play(played(state, 0, F03), 0, Top(path=()))[0]
        assert EndTriggered(seat=0, reason="empty_panel") in events


def test_a_game_of_rules_version_1_ends_at_the_short_clans_empty_panel() -> None:
    state = last_cards(rules=1)
    events, state = play(played(state, 0, follower("clan-1", 13)), 0, Top(path=()))
    assert EndTriggered(seat=0, reason="empty_panel") in events
    events, state = run(state, 1, Play(card=follower("clan-3", 12)), Top(path=()))
    assert isinstance(events[-1], GameEnded)
    assert [p.turns for p in state.players] == [14, 14]


def test_snake_and_two_leaders_games_last_15_turns_when_the_cards_run_out() -> None:
    # whole games: whoever's panel empties first, a game that ends for lack of cards gives
    # every seat 15 turns; two short clans alone end too (at their 15th turns, both passes)
    ended = set()
    for seed in range(12):
        game = quick_playout(REAL, seed, 2, SNAKE_TWO)
        last = game.states[-1]
        clans = tuple(sorted(p.clan for p in last.players))
        reason = next(e.reason for e in game.events if isinstance(e, EndTriggered))
        if reason == "empty_panel":
            assert {p.turns for p in last.players} == {15}, (seed, clans)
            ended.add(clans)
    assert any({"clan-1", "clan-2"} & set(c) for c in ended)
    short = table(
        players=[
            {"panel": (leader("clan-1"),), "deck_top": (), "deck_bottom": ()},
            {"panel": (), "deck_top": (), "deck_bottom": ()},
        ],
        clans=["clan-1", "clan-2"],
        options=SNAKE_TWO,
    )
    events = play(played(short, 0, leader("clan-1")), 0, Lead())[0]
    assert of(EndTriggered, events) == [EndTriggered(seat=1, reason="empty_panel")]
    assert isinstance(events[-1], GameEnded)


# -- scoring -----------------------------------------------------------------------------------


def final(
    caves: tuple[tuple[str, str], ...] = (("tile-3-cave-a", "cave-01"),), **seat0: Any
) -> Any:
    """Seat 1's last turn (an empty top action); the game ends after it. Seat 0 (Horse):
    cairn 13; ice engraving on (1, 11), mountain on (1, 12); skills 10, 11, 3, 2; two
    footprint cards completed, one not; a cave painting; 5 resources; 3 fire cards."""
    me = {
        "position": None,
        "cairn_points": 13,
        "engravings": ("ice", "mountain"),
        "skills": (10, 11, 3, 2),
        "completed": ("footprint-01", "footprint-02"),
        "footprints": ("footprint-03",),
        "cave_site": "tile-3-cave-a",
        "resources": goods(stone=3, mammoth=2),
        "fire_hand": ("fire-01", "fire-02", "fire-03"),
        "turns": 1,
        **seat0,
    }
    state = table(
        players=[me, {"position": (5, 20)}],
        current=1,
        end_triggered=True,
        cairn_track=(0,),
        engraved=(((1, 11), 0, "ice"), ((1, 12), 0, "mountain")),
        caves=caves,
    )
    events = run(state, 1, Play(card=state.players[1].panel[0]), Top(path=()))[0]
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    return ended


def test_every_scoring_category() -> None:
    ended = final()
    assert ended.parts[0] == {
        "cairn": 13,
        "engravings": 3 + 6,
        "skills": 3 + 7,  # levels 10 and 11
        "footprints": 2 * 6 - 3,
        "cave": 2 * 10,  # cave-01: 2 x the mountain level
        "resources": 5 // 2,
        "fire_cards": 3,
    }
    assert ended.scores[0] == 13 + 9 + 10 + 9 + 20 + 2 + 3
    assert ended.winners == (0,) and ended.ranks == (1, 2)
    # the outcome carries the same, and each seat's points by category in its detail
    outcome = REAL.outcome(REAL.evolve(table(), ended))
    assert outcome is not None and outcome.detail == {"parts": list(ended.parts)}
    assert outcome.scores == list(ended.scores) and outcome.ranks == [1, 2]
    assert outcome.winners == [0] and outcome.tie_break is None


@pytest.mark.parametrize(
    ("token", "points"),
    [
        ("cave-01", 2 * 10),  # 2 x matching skill
        ("cave-02", 2 * 11),
        ("cave-03", 2 * 3),
        ("cave-04", 2 * 2),
        ("cave-05", 3 * 2),  # 3 x lowest skill
        ("cave-06", 10 + 13),  # 10 + cairn
        ("cave-07", 5 * 2),  # 5 per engraving
        # bonus icons next to the engravings, each space once: (1,10) (2,11) (2,12) (0,13)
        ("cave-08", 3 * 4),
        ("cave-09", 3 + 6),  # engraving points again
        ("cave-10", 5 * 2),  # 5 per completed footprint card
    ],
)
def test_cave_token_scoring(token: str, points: int) -> None:
    assert final(caves=(("tile-3-cave-a", token),)).parts[0]["cave"] == points


def test_a_tie_goes_to_the_higher_skill_total_then_the_win_is_shared() -> None:
    plain = {"position": (5, 0), "turns": 1, "resources": goods(), "fire_hand": ()}
    for seat0, ranks, winners, tie_break in [
        ({}, (1, 1), (0, 1), "shared"),
        ({"skills": terrains(ice=3)}, (1, 2), (0,), "skill_total"),
    ]:
        state = table(
            players=[{**plain, **seat0}, {"position": (5, 20)}], current=1, end_triggered=True
        )
        ended = run(state, 1, Play(card=state.players[1].panel[0]), Top(path=()))[0][-1]
        assert isinstance(ended, GameEnded)
        assert ended.scores == (0, 0) and ended.ranks == ranks and ended.winners == winners
        outcome = REAL.outcome(REAL.evolve(state, ended))
        assert outcome is not None and outcome.tie_break == tie_break


def solo(options: Options = NONE, **me: Any) -> GameEnded:
    state = table(1, players=[{"position": (5, 20), **me}], options=options)
    events = run(state, 0, Play(card=state.players[0].panel[0]), Top(path=()))[0]
    assert isinstance(events[-1], GameEnded)
    return events[-1]


def test_solo_mode_8_points_per_unused_clan_card_and_80_to_win() -> None:
    last = {"panel": (F03,), "deck_top": (), "deck_bottom": ()}
    assert solo(**last, resources=goods(stone=160)).solo == (80, True, "Very good")
    assert solo(**last, resources=goods(stone=158)).solo == (79, False, "Good")
    lost = solo(**last)
    assert lost.solo == (0, False, "Try again") and lost.winners == () and lost.ranks == (1,)
    # the outcome's detail names the solo table's figures, won or lost
    for ended, figures in [
        (lost, {"points": 0, "won": False, "achievement": "Try again"}),
        (
            solo(**last, resources=goods(stone=160)),
            {"points": 80, "won": True, "achievement": "Very good"},
        ),
    ]:
        outcome = REAL.outcome(REAL.evolve(table(1), ended))
        assert outcome is not None and outcome.winners == list(ended.winners)
        assert outcome.detail == {"parts": list(ended.parts), "solo": figures}
    # a cairn reached with 13 cards unused: 15 + 8 x 13
    state = at_cairn_door(1)
    events = run(played(state, 0, F03), 0, Top(path=(CAIRN_MI,)))[0]
    assert isinstance(events[-1], GameEnded) and events[-1].solo == (15 + 8 * 13, True, "Excellent")
    assert events[-1].winners == (0,)
    # a negative total (four open footprint cards, nothing else) still ends the game, lost
    open_cards = ("footprint-01", "footprint-02", "footprint-03", "footprint-04")
    below = solo(**last, footprints=open_cards)
    assert below.solo == (-12, False, "Try again") and below.scores == (-12,)
    assert below.winners == () and below.ranks == (1,)
    # each solo variant adds 10 points
    two = solo(Options(two_leaders=True), **last, resources=goods(stone=140))
    assert two.solo == (80, True, "Very good")
