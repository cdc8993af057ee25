"""The Footprints rulebook, rule by rule: the six steps of a turn, the top and bottom
actions, the skill tracks and the fire cards.

Seat 0 plays the Horse Clan (clan-1), whose board holds the rulebook's examples; the map
is the fixed one of rules_helpers.py. Horse followers: f01 ice (+1 mountain space), f02 ice
(+ mountain advance), f03 ice, f04 ice (+1 forest space), f05 swamp (+ forest advance),
f06 swamp, f07 swamp (+1 ice space), f08 swamp (+ ice advance), f09 forest, f12 mountain.
Horse tracks at level 3: mountain a stone, ice a mountain advance, forest berries, swamp a
fire card; ice 4 and 5 a mammoth; past 11: mountain berries, swamp mammoth.
"""

from __future__ import annotations

from random import Random

import pytest
from msgspec.structs import replace

from games.footprints.events import (
    CardPlayed,
    FigureMoved,
    FireDiscarded,
    FireDrawn,
    PanelFilled,
    ResourcesChanged,
    SkillAdvanced,
    SkillMovedBack,
    StepDone,
    TurnBegan,
)
from games.footprints.model import Bottom, DiscardFire, Lead, Play, Top
from games.footprints.state import State
from tests.unit.footprints.rules_helpers import (
    REAL,
    bonus,
    follower,
    goods,
    leader,
    of,
    owned,
    play,
    played,
    refusal,
    refused,
    set_up,
    skills,
    table,
    terrains,
)

H = "clan-1"
F01, F02, F03, F04 = (follower(H, n) for n in (1, 2, 3, 4))
F05, F06, F07, F08, F09, F12 = (follower(H, n) for n in (5, 6, 7, 8, 9, 12))
ICE_ROW = ((0, 3), (0, 4), (0, 5))  # ice; a fire card on (0, 3)
STONE, FIRE = (
    ResourcesChanged(seat=0, resource="stone", change=1),
    ResourcesChanged(seat=0, resource="mammoth", change=1),
)


def horse(**fields: object) -> State:
    """Seat 0 (Horse) at the start of its turn, seat 1 on its house; `fields` for seat 0."""
    return table(players=[{"position": (0, 2), "skills": terrains(ice=3), **fields}])


# -- steps 1 to 6 ------------------------------------------------------------------------------


def test_a_turn_runs_the_six_steps_in_order() -> None:
    state = horse(fire_hand=("fire-07",))
    events, state = play(state, 0, Play(card=F03, fire="fire-07"))
    assert events == [CardPlayed(seat=0, card=F03, fire="fire-07")]
    p = state.players[0]
    assert F03 not in p.panel and p.played == (F03,) and p.fire_hand == ()
    assert state.turn is not None and state.turn.phase == "act"
    events, state = play(state, 0, Top(path=ICE_ROW, fire_at=3))
    assert [type(e).__name__ for e in events] == [
        "FigureMoved",  # 2. the action (its fire card space pays last, as a card drawn)
        "ResourcesChanged",  # then the fire card, used after the action: a stone and a wood
        "ResourcesChanged",
        "StepDone",  # the action is done: 3. build
        "FireDrawn",  # the card the space passed gives, drawn as the action's last gain
        "StepDone",  # 3. build: nothing affordable, passed; 4. no engraving power, passed
        "StepDone",  # 5. discard
        "FireDiscarded",
        "PanelFilled",  # 6. draw a clan card
        "StepDone",
        "TurnBegan",
    ]
    assert [e.phase for e in of(StepDone, events)] == ["build", "power", "discard", "over"]
    assert of(FireDiscarded, events) == [FireDiscarded(seat=0, cards=("fire-07",))]
    assert of(PanelFilled, events) == [PanelFilled(seat=0, card=F05)]
    assert events[-1] == TurnBegan(seat=1) and state.players[0].turns == 1
    assert len(state.players[0].panel) == 4 and state.fire_discard == ("fire-07",)


def test_step_1_a_clan_card_from_the_panel_and_a_fire_card_but_never_with_a_leader() -> None:
    state = horse(fire_hand=("fire-07",), panel=(F03, F06, leader(H), F12), deck_top=(F05,))
    assert refused(state, 1, Play(card=follower("clan-2", 1))) == "not_your_turn"
    assert refused(state, 0, Play(card=F05)) == "not_on_panel"  # still in the deck
    assert refused(state, 0, Play(card=F03, fire="fire-08")) == "fire_not_in_hand"
    assert refusal(state, 0, Play(card=leader(H), fire="fire-07")) == (
        "no_fire_with_leader",
        "a fire card is not played with your leader",
    )
    assert refused(state, 0, Top(path=())) == "not_now"
    legal = REAL.legal_actions(state, 0)
    assert Play(card=leader(H)) in legal and Play(card=leader(H), fire="fire-07") not in legal
    assert Play(card=F03, fire="fire-07") in legal and Play(card=F03) in legal
    after = played(state, 0, F03)
    assert refused(after, 0, Play(card=F06)) == "not_now"
    assert refusal(after, 0, Lead()) == (
        "not_a_leader",
        "this is a follower: play its top or bottom action",
    )
    assert refusal(played(state, 0, leader(H)), 0, Top(path=())) == (
        "lead_with_leader",
        "a leader's turn is a `lead` action",
    )
    # each clan card is used once: the played card never comes back
    done = play(after, 0, Top(path=()))[1]
    assert F03 in done.players[0].played and F03 not in done.players[0].panel


def test_step_5_the_played_fire_card_is_discarded_and_the_hand_cut_to_three() -> None:
    hand = ("fire-07", "fire-08", "fire-09", "fire-11", "fire-12")
    state = played(horse(fire_hand=hand), 0, F03, "fire-07")
    events, state = play(state, 0, Top(path=()))  # the fire card is not used
    assert FireDiscarded(seat=0, cards=("fire-07",)) in events
    assert state.turn is not None and state.turn.phase == "discard" and REAL.to_act(state) == {0}
    assert len(REAL.legal_actions(state, 0)) == 4  # one of four to let go
    assert refused(state, 0, DiscardFire(cards=("fire-08", "fire-09"))) == "wrong_discard_count"
    assert refusal(state, 0, DiscardFire(cards=("fire-07",))) == (
        "fire_not_in_hand",
        "discard fire cards from your hand, once each",
    )
    assert refusal(state, 0, Top(path=())) == ("not_now", "Top is not for step 'discard'")
    assert refused(state, 0, DiscardFire(cards=())) == "wrong_discard_count"
    events, state = play(state, 0, DiscardFire(cards=("fire-09",)))
    assert events[0] == FireDiscarded(seat=0, cards=("fire-09",))
    assert state.players[0].fire_hand == ("fire-08", "fire-11", "fire-12")
    assert state.fire_discard == ("fire-07", "fire-09") and events[-1] == TurnBegan(seat=1)


def test_step_6_draws_the_top_card_and_nothing_once_the_deck_is_empty() -> None:
    # the leader is among the top cards: they come before the bottom six
    state = horse(deck_top=(leader(H),), deck_bottom=(F12,))
    events, state = play(played(state, 0, F03), 0, Top(path=()))
    assert PanelFilled(seat=0, card=leader(H)) in events
    state = table(players=[{"deck_top": (), "deck_bottom": (F12,)}])
    events, state = play(played(state, 0, F03), 0, Top(path=()))
    assert PanelFilled(seat=0, card=F12) in events and state.players[0].deck_bottom == ()
    state = table(players=[{"deck_top": (), "deck_bottom": ()}])
    events, state = play(played(state, 0, F03), 0, Top(path=()))
    assert not of(PanelFilled, events) and len(state.players[0].panel) == 3


# -- the top action ----------------------------------------------------------------------------


def test_top_moves_up_to_the_skill_level_of_the_cards_terrain_or_fewer() -> None:
    state = played(horse(), 0, F03)
    events, after = play(state, 0, Top(path=ICE_ROW))
    assert of(FigureMoved, events) == [FigureMoved(seat=0, path=ICE_ROW)]
    assert after.players[0].position == (0, 5)
    assert play(state, 0, Top(path=ICE_ROW[:1]))[1].players[0].position == (0, 3)
    events, after = play(state, 0, Top(path=()))  # "(or fewer)": zero spaces too
    assert not of(FigureMoved, events) and after.players[0].position == (0, 2)
    assert refused(state, 0, Top(path=(*ICE_ROW, (1, 5)))) == "too_far"
    assert refused(state, 0, Top(path=((0, 1),))) == "wrong_terrain"  # a mountain
    assert refused(state, 0, Top(path=((0, 4),))) == "not_adjacent"
    house = played(table(players=[{"position": (1, 0)}]), 0, F12)  # a mountain follower
    assert refused(house, 0, Top(path=((1, -1),))) == "off_map"  # never onto a house


def test_top_starts_from_a_house_tile() -> None:
    state = played(table(players=[{"position": (0, -1)}]), 0, F12)  # mountain, level 2
    events, state = play(state, 0, Top(path=((0, 0), (0, 1))))
    assert STONE in events and state.players[0].position == (0, 1)


def test_every_house_is_left_by_the_first_space_of_its_row_alone() -> None:
    # our ruling: the house of row 1 touches (1, 0) only, not the mountains (0, 0) and
    # (2, 1)... of the rows above and below, as every other house touches one space
    state = played(table(players=[{"position": (1, -1)}]), 0, F12)  # mountain, level 2
    assert refused(state, 0, Top(path=((0, 0),))) == "not_adjacent"
    assert refused(state, 0, Top(path=((0, 0), (0, 1)))) == "not_adjacent"
    assert play(state, 0, Top(path=((1, 0), (0, 0))))[1].players[0].position == (0, 0)
    tops = {a.path[0] for a in REAL.legal_actions(state, 0) if isinstance(a, Top) and a.path}
    assert tops == {(1, 0)}
    bottom = played(table(players=[{"position": (1, -1)}]), 0, F06)
    ends = {a.to for a in REAL.legal_actions(bottom, 0) if isinstance(a, Bottom)}
    assert ends == {(1, 0)} and refused(bottom, 0, Bottom(to=(2, 0))) == "not_next_space"


def test_figures_are_passed_through_never_ended_on_and_their_spaces_pay_nothing() -> None:
    state = table(players=[{"position": (0, 2), "skills": terrains(ice=3)}, {"position": (0, 3)}])
    state = played(state, 0, F03)
    events, after = play(state, 0, Top(path=((0, 3), (0, 4))))
    assert after.players[0].position == (0, 4) and not of(FireDrawn, events)
    assert refused(state, 0, Top(path=((0, 3),))) == "occupied"


def test_each_bonus_once_in_path_order_after_all_movement() -> None:
    state = played(horse(), 0, F03)
    events, after = play(state, 0, Top(path=((0, 3), (0, 4), (0, 3))))  # back and forth
    assert len(of(FireDrawn, events)) == 1 and len(after.players[0].fire_hand) == 1
    assert isinstance(events[0], FigureMoved)  # the bonuses come after the movement
    # path order (our ruling), and the cards drawn last, once the action is done
    there = play(state, 0, Top(path=((1, 2), (0, 3), (0, 4))))[0]
    assert [type(e) for e in there[1:4]] == [ResourcesChanged, StepDone, FireDrawn]
    back = played(table(players=[{"position": (0, 4), "skills": terrains(ice=3)}]), 0, F03)
    back_events = play(back, 0, Top(path=((0, 3), (0, 2), (1, 2))))[0]
    assert [type(e) for e in back_events[1:4]] == [ResourcesChanged, StepDone, FireDrawn]


@pytest.mark.parametrize(
    ("start", "path"),
    [
        ((0, 0), ((0, 1), (0, 2), (0, 3), (0, 4))),  # before: the mountain first
        ((0, 3), ((0, 2), (0, 1), (0, 2), (1, 2))),  # during
        ((0, 5), ((0, 4), (0, 3), (0, 2), (0, 1))),  # after
        ((0, 2), ((0, 1),)),  # instead
    ],
    ids=["before", "during", "after", "instead"],
)
def test_the_extra_space_of_another_terrain_before_during_after_or_instead(
    start: tuple[int, int], path: tuple[tuple[int, int], ...]
) -> None:
    state = played(horse(position=start), 0, F01)  # ice 3, +1 mountain space
    assert play(state, 0, Top(path=path))[1].players[0].position == path[-1]


def test_the_extra_space_is_a_single_space() -> None:
    state = played(horse(), 0, F01)
    assert refused(state, 0, Top(path=((0, 1), (0, 0)))) == "one_extra_space"
    four_ice = played(horse(position=(1, 5)), 0, F01)
    path = ((0, 5), (0, 4), (0, 3), (0, 2), (0, 1))  # 4 ice and the mountain
    assert refused(four_ice, 0, Top(path=path)) == "too_far"


# -- the bottom action and the skill tracks --------------------------------------------------


def test_bottom_advances_the_skill_and_the_extra_one_with_their_bonuses_and_moves_on() -> None:
    state = played(table(players=[{"position": (2, 5)}]), 0, F08)  # swamp, + ice advance
    events, state = play(state, 0, Bottom(to=(2, 4)))
    assert skills(state, 0) == {"mountain": 3, "ice": 3, "forest": 2, "swamp": 3}
    assert owned(state, 0)["stone"] == 1 and len(state.players[0].fire_hand) == 1
    moved = events.index(FigureMoved(seat=0, path=((2, 4),)))
    assert moved > events.index(SkillAdvanced(seat=0, terrain="ice", level=3))  # advance, move
    assert state.players[0].position == (2, 4)
    assert refused(played(table(players=[{"position": (2, 5)}]), 0, F08), 0, Bottom(to=(2, 3))) == (
        "not_next_space"
    )


def test_bottom_jumps_a_straight_line_of_figures_to_the_next_unoccupied_space() -> None:
    spots = [{"position": (2, 5)}, {"position": (2, 6)}, {"position": (2, 7)}]
    state = played(table(3, players=spots), 0, F06)
    assert refused(state, 0, Bottom(to=(2, 6))) == "not_next_space"  # occupied
    state = play(state, 0, Bottom(to=(2, 8)))[1]
    assert state.players[0].position == (2, 8)


def test_bottom_never_onto_a_house_nor_over_a_figure_standing_on_one() -> None:
    state = played(table(players=[{"position": (1, 0)}]), 0, F06)
    assert refused(state, 0, Bottom(to=(1, -1))) == "not_next_space"
    spots = [{"position": (0, -1)}, {"position": (1, -1)}, {"position": (0, 0)}]
    state = played(table(3, players=spots), 0, F06)
    ends = {a.to for a in REAL.legal_actions(state, 0) if isinstance(a, Bottom)}
    assert ends == {(0, 1)}  # over the figure on (0, 0), not over the one on (1, -1)
    assert refused(state, 0, Bottom(to=(2, 0))) == "not_next_space"  # over (1, -1)
    assert play(state, 0, Bottom(to=(0, 1)))[1].players[0].position == (0, 1)


def test_a_marker_collects_no_bonus_on_10_or_11_and_takes_the_resource_past_11() -> None:
    state = played(table(players=[{"position": (2, 5), "skills": terrains(swamp=9)}]), 0, F06)
    events, state = play(state, 0, Bottom(to=(2, 4)))
    assert of(SkillAdvanced, events) == [SkillAdvanced(seat=0, terrain="swamp", level=10)]
    assert state.players[0].resources == goods()
    state = played(table(players=[{"position": (2, 5), "skills": terrains(swamp=11)}]), 0, F06)
    events, state = play(state, 0, Bottom(to=(2, 4)))
    assert not of(SkillAdvanced, events) and owned(state, 0)["mammoth"] == 1


# -- fire cards --------------------------------------------------------------------------------


def test_romans_example_one_ice_then_three_mountains_by_fire_then_two_ice() -> None:
    # "Roman's skill level in ice is 3. First he moves 1 space across ice. Then he uses his
    # fire card to move 3 spaces in the mountains ... the remaining 2 spaces across ice.
    # ... Roman collects 1 stone as a bonus from the unoccupied mountain space."
    state = played(horse(position=(0, 5), fire_hand=("fire-01",)), 0, F03, "fire-01")
    mountains = ((2, 6), (3, 6), (4, 6))
    roman = Top(path=((1, 5), (5, 5), (5, 6)), fire_at=1, fire_path=mountains)
    events, after = play(state, 0, roman)
    assert events[:2] == [
        FigureMoved(seat=0, path=((1, 5), *mountains, (5, 5), (5, 6))),
        STONE,
    ]
    assert after.players[0].position == (5, 6) and after.players[0].resources == goods(stone=1)
    assert refused(state, 0, Top(path=((1, 5),), fire_path=mountains)) == "fire_not_used"
    assert refused(state, 0, Top(path=((1, 5),), fire_at=2)) == "bad_fire_timing"
    too_long = ((2, 6), (2, 7), (3, 6), (4, 6))
    assert refused(state, 0, Top(path=((1, 5),), fire_at=1, fire_path=too_long)) == "too_far"
    wrong = Top(path=(), fire_at=0, fire_path=((1, 5),))
    assert refused(state, 0, wrong) == "wrong_terrain"


def test_a_fire_cards_move_may_end_on_a_figure_only_if_the_whole_movement_does_not() -> None:
    spots = [{"position": (0, 5), "skills": terrains(ice=3), "fire_hand": ("fire-01",)}]
    mountains = ((2, 6), (3, 6), (4, 6))
    state = played(table(players=[*spots, {"position": (4, 6)}]), 0, F03, "fire-01")
    roman = Top(path=((1, 5), (5, 5)), fire_at=1, fire_path=mountains)
    assert play(state, 0, roman)[1].players[0].position == (5, 5)
    assert refused(state, 0, Top(path=((1, 5),), fire_at=1, fire_path=mountains)) == "occupied"


def test_the_allowance_is_fixed_when_moving_starts_a_fire_card_before_can_raise_it() -> None:
    state = played(horse(fire_hand=("fire-10",)), 0, F03, "fire-10")  # advance ice, swamp
    four = (*ICE_ROW, (1, 5))
    events, after = play(state, 0, Top(path=four, fire_at=0))
    assert events[0] == SkillAdvanced(seat=0, terrain="ice", level=4)
    assert after.players[0].position == (1, 5)
    assert refused(state, 0, Top(path=four, fire_at=2)) == "too_far"
    assert refused(state, 0, Top(path=four, fire_at=4)) == "too_far"


def test_fire_card_gains_and_costs_a_marker_back_without_bonus() -> None:
    # fire-16: ice back 1 (no bonus), then a stone, a wood and berries
    state = horse(skills=terrains(ice=5), fire_hand=("fire-16",))
    state = played(state, 0, F03, "fire-16")
    events, state = play(state, 0, Bottom(to=(1, 1), fire_at=0))
    assert events[:5] == [
        SkillMovedBack(seat=0, terrain="ice", level=4),
        STONE,
        ResourcesChanged(seat=0, resource="wood", change=1),
        ResourcesChanged(seat=0, resource="berries", change=1),
        SkillAdvanced(seat=0, terrain="ice", level=5),  # the bottom action
    ]
    assert events[5] == FIRE  # ice 5's mammoth, collected again
    assert state.players[0].resources == goods(stone=1, mammoth=1, wood=1, berries=1)


def test_fire_card_costs_give_up_a_resource_you_own() -> None:
    # fire-18: give 1 stone, advance ice and forest
    state = played(horse(fire_hand=("fire-18",)), 0, F03, "fire-18")
    assert refused(state, 0, Top(path=(), fire_at=0)) == "cannot_afford"
    assert Top(path=(), fire_at=None) in REAL.legal_actions(state, 0)  # listed unused
    rich = played(horse(fire_hand=("fire-18",), resources=goods(stone=1)), 0, F03, "fire-18")
    events, rich = play(rich, 0, Top(path=(), fire_at=0))
    assert events[0] == ResourcesChanged(seat=0, resource="stone", change=-1)
    assert skills(rich, 0)["forest"] == 3 and skills(rich, 0)["ice"] == 4  # ice 3: ice +1 more


def test_a_fire_card_used_after_an_action_comes_after_its_bonuses_and_is_listed() -> None:
    # fire-18: give 1 stone (then advance ice and forest). A bottom action to the stone space
    # (0, 1) pays for it, as the top action's path does: the destination's bonus first.
    state = played(horse(fire_hand=("fire-18",)), 0, F06, "fire-18")
    events, _ = play(state, 0, Bottom(to=(0, 1), fire_at=1))
    stone = [e.change for e in of(ResourcesChanged, events) if e.resource == "stone"]
    assert stone == [1, -1]
    assert refused(state, 0, Bottom(to=(0, 1), fire_at=0)) == "cannot_afford"
    assert refused(state, 0, Bottom(to=(1, 1), fire_at=1)) == "cannot_afford"
    listed = REAL.legal_actions(state, 0)
    after = [a for a in listed if isinstance(a, Bottom) and a.fire_at is not None]
    assert [a.to for a in after] == [(0, 1)]
    # fire-19: give 1 mammoth; the ice space (1, 2) gives one to a top action
    ice = played(horse(fire_hand=("fire-19",)), 0, F03, "fire-19")
    listed = REAL.legal_actions(ice, 0)
    used = [a for a in listed if isinstance(a, Top) and a.fire_at is not None]
    assert used and all(a.fire_at == len(a.path) and (1, 2) in a.path for a in used)


def test_a_fire_card_moves_3_spaces_of_its_terrain_before_or_after_a_bottom_action() -> None:
    state = played(horse(position=(1, 5), fire_hand=("fire-01",)), 0, F06, "fire-01")
    mountains = ((2, 6), (3, 6), (4, 6))
    events, after = play(state, 0, Bottom(to=(5, 5), fire_at=0, fire_path=mountains))
    assert after.players[0].position == (5, 5) and STONE in events
    events, after = play(state, 0, Bottom(to=(2, 6), fire_at=1, fire_path=((3, 6), (4, 6))))
    assert after.players[0].position == (4, 6)
    seven = played(horse(fire_hand=("fire-07",)), 0, F06, "fire-07")
    assert refused(seven, 0, Bottom(to=(1, 1), fire_at=1, fire_path=((0, 1),))) == (
        "fire_has_no_move"
    )
    assert refused(played(horse(), 0, F06), 0, Bottom(to=(1, 1), fire_at=0)) == "no_fire_card"


def audit_position(rules: int | None = None) -> State:
    """The audit's position (rules version 2 unless `rules`): on seed 0's map, seat 0
    (Mammoth: ice 4 a fire card, ice 5 berries, ice 6 a swamp advance) on (2, 14) with its
    ice marker on 4 plays clan-2-f09 (ice) with fire-16 (ice back 1; stone, wood, berries);
    (2, 15) next to it advances ice."""
    seed0 = set_up(2, 0)[1]
    me = {"position": (2, 14), "skills": terrains(ice=4), "fire_hand": ("fire-16",)}
    state = table(players=[me], clans=["clan-2", "clan-5"])
    state = replace(state, tiles=seed0.tiles, turned=seed0.turned, houses=seed0.houses)
    if rules is not None:
        state = replace(state, rules=rules)
    assert bonus(state, (2, 15)) == {"kind": "skill", "terrain": "ice"}
    return played(state, 0, follower("clan-2", 9), "fire-16")


def test_a_fire_card_during_a_bottom_action_between_the_advance_and_the_move() -> None:
    # "before, during, or after your main action"; the bottom action: "In any order, perform
    # these actions: advance ... and move". During: advance (ice 5, berries), the card (ice
    # back to 4), move: (2, 15) advances ice to 5 again, and its berries come again.
    state = audit_position()
    during = Bottom(to=(2, 15), fire_during="after_advance")
    events, after = play(state, 0, during)
    assert events[:9] == [
        SkillAdvanced(seat=0, terrain="ice", level=5),
        ResourcesChanged(seat=0, resource="berries", change=1),
        SkillMovedBack(seat=0, terrain="ice", level=4),
        STONE,
        ResourcesChanged(seat=0, resource="wood", change=1),
        ResourcesChanged(seat=0, resource="berries", change=1),
        FigureMoved(seat=0, path=((2, 15),)),
        SkillAdvanced(seat=0, terrain="ice", level=5),
        ResourcesChanged(seat=0, resource="berries", change=1),
    ]
    assert owned(after, 0) == {"stone": 1, "mammoth": 0, "wood": 1, "berries": 3}
    # neither before nor after gives that: ice 4's fire card, or ice 6's swamp advance
    before = play(state, 0, Bottom(to=(2, 15), fire_at=0))[1]
    later = play(state, 0, Bottom(to=(2, 15), fire_at=1))[1]
    assert owned(before, 0)["berries"] == owned(later, 0)["berries"] == 2
    assert len(before.players[0].fire_hand) == 1 and skills(later, 0)["swamp"] == 3
    # moving first, then the card, then the advance, ends alike here: listed once
    moved_first = Bottom(to=(2, 15), fire_during="after_move")
    assert play(state, 0, moved_first)[1] == after
    listed = REAL.legal_actions(state, 0)
    assert during in listed and moved_first not in listed
    assert [a.to for a in listed if isinstance(a, Bottom) and a.fire_during] == [(2, 15)]
    assert refused(state, 0, replace(during, fire_at=0)) == "bad_fire_timing"
    plain = played(horse(), 0, F06)
    assert refused(plain, 0, Bottom(to=(1, 1), fire_during="after_move")) == "no_fire_card"


def test_a_fire_card_during_a_bottom_action_with_the_move_first() -> None:
    # clan-1-f02: ice, + a mountain advance; fire-16: ice back 1. On (3, 14) with every skill
    # on 5, the move to (4, 14) advances ice (ice 6: a fire card), the card moves it back,
    # and the action's own advance reaches ice 6 again: two fire cards, as no other order.
    me = {"position": (3, 14), "skills": (5, 5, 5, 5), "fire_hand": ("fire-16",)}
    state = played(table(players=[me]), 0, F02, "fire-16")
    uses = [
        Bottom(to=(4, 14), fire_at=0),
        Bottom(to=(4, 14), fire_at=1),
        Bottom(to=(4, 14), fire_during="after_advance"),
        Bottom(to=(4, 14), fire_during="after_move"),
    ]
    drawn = [len(of(FireDrawn, play(state, 0, use)[0])) for use in uses]
    assert drawn == [1, 1, 1, 2]
    events = play(state, 0, uses[3])[0]
    assert events[:2] == [
        FigureMoved(seat=0, path=((4, 14),)),
        SkillAdvanced(seat=0, terrain="ice", level=6),
    ]
    assert events.index(SkillMovedBack(seat=0, terrain="ice", level=5)) < events.index(
        SkillAdvanced(seat=0, terrain="mountain", level=6)
    )
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Bottom) and a.to == (4, 14)]
    assert {a.fire_during for a in listed} == {None, "after_advance", "after_move"}


def test_a_fire_cards_move_during_a_bottom_action_goes_with_the_card() -> None:
    # fire-01 moves 3 mountain spaces: during the action, after the advance, its move comes
    # before the bottom move (as used before); after the move, it starts where the bottom
    # move ended (as used after) and may end on the space the figure left, not on a figure
    me = {"position": (2, 6), "fire_hand": ("fire-01",)}
    state = played(table(players=[me, {"position": (3, 5)}]), 0, F06, "fire-01")
    walk = ((3, 6), (4, 6))
    before = play(state, 0, Bottom(to=(5, 5), fire_at=0, fire_path=walk))[1]
    during = play(state, 0, Bottom(to=(5, 5), fire_during="after_advance", fire_path=walk))[1]
    assert during == before and during.players[0].position == (5, 5)
    after = play(state, 0, Bottom(to=(3, 6), fire_at=1, fire_path=((4, 6),)))[1]
    moved = Bottom(to=(3, 6), fire_during="after_move", fire_path=((4, 6),))
    assert play(state, 0, moved)[1] == after
    events, back = play(state, 0, Bottom(to=(3, 6), fire_during="after_move", fire_path=((2, 6),)))
    assert back.players[0].position == (2, 6) and STONE in events  # (3, 6): a stone
    onto = Bottom(to=(3, 6), fire_during="after_move", fire_path=((3, 5),))
    assert refusal(state, 0, onto) == (
        "occupied",
        "you may move through figures but not end on one",
    )
    assert refusal(state, 0, Bottom(to=(0, 0), fire_during="after_move")) == (
        "not_next_space",
        "(0, 0) is not the next unoccupied space from (2, 6)",
    )
    # used after the action (fire_at=1) alike: the card's move may not end on a figure
    assert refusal(state, 0, Bottom(to=(3, 6), fire_at=1, fire_path=((3, 5),))) == refusal(
        state, 0, onto
    )
    assert refusal(state, 0, Bottom(to=(0, 0))) == refusal(
        state, 0, Bottom(to=(0, 0), fire_during="after_advance")
    )
    assert refusal(state, 0, Bottom(to=(3, 6), fire_at=0, fire_during="after_move")) == (
        "bad_fire_timing",
        "give fire_at or fire_during, not both",
    )
    assert refusal(state, 0, Bottom(to=(3, 6), fire_at=2))[0] == "bad_fire_timing"  # 0 or 1
    assert refusal(state, 0, Bottom(to=(3, 6), fire_path=((4, 6),)))[0] == "fire_not_used"
    plain = played(horse(position=(2, 6)), 0, F06)
    assert refusal(plain, 0, Bottom(to=(3, 6), fire_during="after_move")) == (
        "no_fire_card",
        "no fire card was played with this card",
    )
    old = replace(state, rules=1)
    assert refusal(old, 0, Bottom(to=(3, 6), fire_during="after_move")) == (
        "bad_fire_timing",
        "under rules version 1 a fire card is used before or after a bottom action",
    )
    track = played(
        table(players=[{"position": None, "fire_hand": ("fire-01",)}]), 0, F06, "fire-01"
    )
    assert refusal(track, 0, Bottom(to=(0, 3), fire_during="after_advance")) == (
        "on_cairn_track",
        "your figure is on the cairn track",
    )
    assert refusal(track, 0, Bottom(to=(0, 3))) == refusal(track, 0, Bottom(to=(0, 3), fire_at=0))
    assert refusal(track, 0, Bottom(to=(0, 3)))[1] == "your figure is on the cairn track"
    events = play(track, 0, Bottom(to=None, fire_during="after_move"))[0]
    assert SkillAdvanced(seat=0, terrain="swamp", level=3) in events


def test_any_skill_choices_during_a_bottom_action_come_in_its_order() -> None:
    # (1, 14) is a swamp space with an "any skill" bonus. Moving onto it first, then fire-15
    # (swamp back; two "any skill"), then the advance: the space's bonus takes the first
    # choice, the card the next two.
    me = {"position": (1, 13), "skills": terrains(swamp=4), "fire_hand": ("fire-15",)}
    state = played(table(players=[me]), 0, F06, "fire-15")
    events = play(state, 0, Bottom(to=(1, 14), fire_during="after_move", any_skill=("forest",)))[0]
    assert of(SkillAdvanced, events)[0] == SkillAdvanced(seat=0, terrain="forest", level=3)
    advance_first = Bottom(to=(1, 14), fire_during="after_advance", any_skill=("ice", "forest"))
    events = play(state, 0, advance_first)[0]
    back = events.index(SkillMovedBack(seat=0, terrain="swamp", level=4))
    assert [e.terrain for e in of(SkillAdvanced, events[back:])][:2] == ["ice", "forest"]
    # fire-04 moves 3 swamp spaces: after the move, its own move's new space pays too
    four = played(
        table(players=[{"position": (1, 13), "fire_hand": ("fire-04",)}]), 0, F06, "fire-04"
    )
    walked = Bottom(
        to=(0, 14), fire_during="after_move", fire_path=((1, 14),), any_skill=("forest",)
    )
    events = play(four, 0, walked)[0]
    assert of(SkillAdvanced, events)[0] == SkillAdvanced(seat=0, terrain="forest", level=3)
    after = Bottom(to=(0, 14), fire_at=1, fire_path=((1, 14),), any_skill=("ice",))
    events = play(four, 0, after)[0]  # used after: the advance, then the card's move
    assert of(SkillAdvanced, events)[:2] == [
        SkillAdvanced(seat=0, terrain="swamp", level=3),
        SkillAdvanced(seat=0, terrain="ice", level=3),
    ]


def test_a_game_of_rules_version_1_uses_a_fire_card_before_or_after_a_bottom_action_only() -> None:
    # a game keeps the rules it began under: version 1 had no use during a bottom action
    old, new = audit_position(rules=1), audit_position()
    during = Bottom(to=(2, 15), fire_during="after_advance")
    assert refused(old, 0, during) == "bad_fire_timing"
    assert not [a for a in REAL.legal_actions(old, 0) if isinstance(a, Bottom) and a.fire_during]
    for use in (Bottom(to=(2, 15), fire_at=0), Bottom(to=(2, 15), fire_at=1)):
        assert play(old, 0, use)[0] == play(new, 0, use)[0]
    assert {a for a in REAL.legal_actions(new, 0) if not getattr(a, "fire_during", None)} == set(
        REAL.legal_actions(old, 0)
    )


def test_both_actions_of_a_follower_of_either_terrain_top_then_bottom() -> None:
    state = played(horse(fire_hand=("fire-05",)), 0, F03, "fire-05")  # mountain or ice
    events, state = play(state, 0, Top(path=((0, 3),)))
    assert StepDone(seat=0, phase="act_again", did="top") in events
    assert state.turn is not None and state.turn.phase == "act"
    assert refused(state, 0, Top(path=((0, 4),))) == "action_done"
    assert all(isinstance(a, Bottom) for a in REAL.legal_actions(state, 0))
    events, state = play(state, 0, Bottom(to=(0, 4)))
    assert skills(state, 0)["ice"] == 4 and state.players[0].position == (0, 4)
    assert FireDiscarded(seat=0, cards=("fire-05",)) in events
    # a follower of another terrain does one action only
    swamp = played(horse(fire_hand=("fire-05",)), 0, F06, "fire-05")
    events, swamp = play(swamp, 0, Bottom(to=(1, 1)))
    assert StepDone(seat=0, phase="act_again", did="bottom") not in events
    assert swamp.turn is not None and swamp.turn.seat == 1


def test_both_actions_in_either_order_bottom_then_top() -> None:
    state = played(horse(fire_hand=("fire-05",)), 0, F03, "fire-05")
    events, state = play(state, 0, Bottom(to=(1, 1)))
    assert events[-1] == StepDone(seat=0, phase="act_again", did="bottom")
    assert refused(state, 0, Bottom(to=(0, 2))) == "action_done"
    state = play(state, 0, Top(path=((1, 2),)))[1]
    assert state.players[0].position == (1, 2)


def test_any_skill_bonuses_take_the_named_skills_in_order_else_the_lowest() -> None:
    # fire-15: swamp back 1, then advance any skill twice
    base = horse(skills=terrains(ice=3, swamp=4), fire_hand=("fire-15",))
    state = played(base, 0, F03, "fire-15")
    events = play(state, 0, Top(path=(), fire_at=0, any_skill=("forest", "ice")))[0]
    assert [e.terrain for e in of(SkillAdvanced, events)][:2] == ["forest", "ice"]
    events = play(state, 0, Top(path=(), fire_at=0, any_skill=("forest",)))[0]
    assert [e.terrain for e in of(SkillAdvanced, events)][:2] == ["forest", "mountain"]
    events = play(state, 0, Top(path=(), fire_at=0))[0]
    assert of(SkillAdvanced, events)[0] == SkillAdvanced(seat=0, terrain="mountain", level=3)


def test_a_move_back_cost_cannot_be_paid_by_a_marker_on_2() -> None:
    # fire-15: swamp back 1, then advance any skill twice; the swamp marker is on 2
    state = played(horse(fire_hand=("fire-15",)), 0, F03, "fire-15")
    assert refused(state, 0, Top(path=(), fire_at=0)) == "cannot_afford"


def test_every_step_done_names_the_seat_whose_move_ended_the_step() -> None:
    """Over random games of 1 to 4 seats: each StepDone a move emits is that seat's (the
    views and the clocks read whose step ended from it)."""
    checked = 0
    for seats in range(1, 5):
        rng = Random(seats)
        state = set_up(seats, seed=seats)[1]
        for _ in range(400):
            if not REAL.to_act(state):  # the game is over
                break
            seat = min(REAL.to_act(state))
            action = rng.choice(REAL.legal_actions(state, seat))
            events, state = play(state, seat, action, Random(rng.random()))
            for step in of(StepDone, events):
                assert step.seat == seat, (step, action)
                checked += 1
    assert checked > 200
