"""The Footprints rulebook, rule by rule: the twelve leaders ("Using a Leader Card"), the
footprint cards (completing them, the footprint bonus), the fire and footprint decks, and
every illegal-action code.

The leaders' abilities are ours except what the rulebook says of the Shaman, the Recluse and
the Scout (games/footprints/CONTENT.md). The map is the fixed one of rules_helpers.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from random import Random
from typing import Any

import msgspec
import pytest

from games.api import IllegalAction
from games.footprints import leaders as leaders_module
from games.footprints.events import (
    BonusLost,
    CardPlayed,
    EngravingBuilt,
    FigureMoved,
    FireDiscarded,
    FireDrawn,
    FireReshuffled,
    FootprintCompleted,
    FootprintDiscarded,
    FootprintDrawn,
    FootprintKept,
    FootprintsRenewed,
    FootprintsReshuffled,
    ResourcesChanged,
    SkillAdvanced,
    StepDone,
)
from games.footprints.model import (
    Bottom,
    BuildEngraving,
    CompleteFootprint,
    DecideFootprint,
    FootprintChoice,
    FootprintQuestion,
    Lead,
    Options,
    Play,
    SetupChoices,
    Skip,
    Top,
    UsePower,
)
from games.footprints.rules import Footprints
from games.footprints.svg import TERRAIN_FILL
from games.footprints.table import Table
from tests.unit.footprints.rules_helpers import (
    REAL,
    C,
    Picks,
    follower,
    goods,
    leader,
    of,
    owned,
    play,
    played,
    refusal,
    refused,
    run,
    set_up,
    skills,
    table,
    terrains,
)

ICE_ROW = ((0, 3), (0, 4), (0, 5))  # ice; a fire card on (0, 3)
F03 = follower("clan-1", 3)  # a Horse ice follower
ALL_FOOTPRINTS = sorted(C.footprint_cards)


def chief(clan: str, ab: str = "a", others: Any = (), **me: Any) -> Any:
    """Seat 0 of `clan` with leader `ab` in its deck, having just played it (step 2 next)."""
    f = [follower(clan, n) for n in range(1, 14)]
    mine = {
        "panel": (leader(clan, ab), *f[:3]),
        "deck_top": tuple(f[3:10]),
        "deck_bottom": tuple(f[10:]),
        "leader": leader(clan, ab),
        **me,
    }
    fire = me.get("fire")
    mine.pop("fire", None)
    state = table(players=[mine, *others], clans=[clan, "clan-6" if clan != "clan-6" else "clan-1"])
    return played(state, 0, leader(clan, ab), fire)


def test_a_leader_may_be_played_for_nothing_and_always_offers_an_empty_lead() -> None:
    state = chief("clan-1")
    assert Lead() in REAL.legal_actions(state, 0)
    events, after = play(state, 0, Lead())
    assert events[0] == StepDone(seat=0, phase="build") and after.players[0].skills == (2,) * 4


def test_elder_advances_two_different_skills_two_spaces_each() -> None:
    state = chief("clan-1")  # Horse: mountain 3 stone, 4 fire; swamp 3 fire, 4 berries
    after = play(state, 0, Lead(terrains=("mountain", "swamp")))[1]
    assert skills(after, 0) == {"mountain": 4, "ice": 2, "forest": 2, "swamp": 4}
    assert owned(after, 0)["stone"] == 1 and owned(after, 0)["berries"] == 1
    assert len(after.players[0].fire_hand) == 2
    assert refused(state, 0, Lead(terrains=("ice", "ice"))) == "two_skills"
    assert refused(state, 0, Lead(terrains=("ice",))) == "two_skills"


def test_scout_moves_up_to_six_spaces_in_a_straight_line_whatever_the_terrain() -> None:
    line = ((0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8))  # fire card, wood, fire card
    state = chief("clan-1", "b", others=[{"position": (0, 4)}], position=(0, 2))
    events, after = play(state, 0, Lead(path=line))
    assert of(FigureMoved, events) == [FigureMoved(seat=0, path=line)]
    assert len(of(FireDrawn, events)) == 2 and owned(after, 0)["wood"] == 1
    assert refused(state, 0, Lead(path=line[:2])) == "occupied"  # through, not onto, a figure
    assert refused(state, 0, Lead(path=((0, 3), (1, 3)))) == "scout_line"  # bent
    assert refused(state, 0, Lead(path=(*line, (0, 9)))) == "scout_line"  # seven
    home = chief("clan-1", "b", position=(0, 0))
    assert refused(home, 0, Lead(path=((0, -1),))) == "scout_line"  # never onto a house


def test_gatherer_takes_three_resources_of_any_mix() -> None:
    state = chief("clan-2")
    after = play(state, 0, Lead(resources=("stone", "stone", "berries")))[1]
    assert after.players[0].resources == goods(stone=2, berries=1)
    assert refused(state, 0, Lead(resources=("stone", "wood"))) == "three_resources"


def test_recluse_moves_within_four_columns_either_side_where_no_figure_is_within_two() -> None:
    state = chief("clan-2", "b", others=[{"position": (2, 9)}], position=(2, 5))
    events, after = play(state, 0, Lead(to=(3, 3)))  # 2 columns left; berries there
    assert FigureMoved(seat=0, path=((3, 3),)) in events and owned(after, 0)["berries"] == 1
    assert play(state, 0, Lead(to=(5, 9)))[1].players[0].position == (5, 9)  # 4 right, 3 away
    assert refused(state, 0, Lead(to=(2, 0))) == "not_secluded"  # 5 columns
    assert refused(state, 0, Lead(to=(2, 7))) == "not_secluded"  # 2 from the other figure
    assert refused(state, 0, Lead(to=(2, 9))) == "not_secluded"  # occupied


def test_shaman_plays_a_fire_card_and_the_top_action_of_any_terrain() -> None:
    state = chief("clan-3", fire_hand=("fire-07",), fire="fire-07", position=(0, 2))
    assert state.turn is not None and state.turn.fire == "fire-07"
    top = Top(path=((0, 3), (0, 4)), fire_at=2)  # ice at level 2
    events, after = play(state, 0, Lead(terrains=("ice",), top=top))
    assert after.players[0].position == (0, 4) and len(of(FireDrawn, events)) == 1
    assert after.players[0].resources == goods(stone=1, wood=1)
    assert refused(state, 0, Lead(terrains=("ice",), top=Top(path=ICE_ROW))) == "too_far"
    assert refused(state, 0, Lead(top=top)) == "top_of_a_terrain"
    assert refused(state, 0, Lead(terrains=("ice",))) == "top_of_a_terrain"


def test_dreamer_discards_footprint_cards_without_penalty_then_takes_two() -> None:
    state = chief("clan-3", "b", footprints=("footprint-02", "footprint-03"))
    events, after = play(state, 0, Lead(cards=("footprint-02",)))
    assert events[0] == FootprintsRenewed(seat=0, discarded=("footprint-02",))
    # "Immediately decide": the first card is decided before the second is drawn
    [first] = [e.card for e in of(FootprintDrawn, events)]
    waiting = FootprintChoice(seat=0, cards=(first,), then=None, footprints=1)
    assert after.pending == waiting
    assert after.footprint_discard == ("footprint-02",)
    assert after.players[0].footprints == ("footprint-03",)
    events, after = play(after, 0, DecideFootprint(keep=False))
    [second] = [e.card for e in of(FootprintDrawn, events)]
    assert after.pending == FootprintChoice(seat=0, cards=(second,), then=None)
    assert after.footprint_discard == ("footprint-02", first)
    assert refused(state, 0, Lead(cards=("footprint-04",))) == "not_on_board"
    assert len(of(FootprintDrawn, play(state, 0, Lead())[0])) == 1  # nothing discarded


def test_the_inventory_names_every_place_a_card_can_be() -> None:
    """The places the conservation check counts cards in (and names when one is lost): the
    piles, each seat's hand, board and completed cards, a fire card in play, a footprint
    card drawn and waiting for its decision, the cards dealt in the advanced setup."""
    piles = {"fire_deck", "fire_discard", "footprint_deck", "footprint_discard"}
    seats = {f"player.{s}.{k}" for s in (0, 1) for k in ("fire_hand", "footprints", "completed")}
    state = table(turn={"fire": "fire-05"}, players=[{"fire_hand": ("fire-02",)}])
    places = REAL.inventory(state)
    assert set(places) == piles | seats | {"fire_in_play"}
    assert places["fire_in_play"] == ("fire-05",) and places["player.0.fire_hand"] == ("fire-02",)
    assert "fire_in_play" not in REAL.inventory(
        table(fire_discard=("fire-05",), turn={"fire": "fire-05"})
    )
    after = play(chief("clan-3", "b", footprints=("footprint-02",)), 0, Lead(cards=()))[1]
    assert isinstance(after.pending, FootprintChoice)
    drawn = REAL.inventory(after)
    assert set(drawn) == piles | seats | {"footprints_drawn"}
    assert drawn["footprints_drawn"] == after.pending.cards
    dealing = set_up(2, 5, Options(advanced=True))[1]
    assert isinstance(dealing.pending, SetupChoices)
    dealt = REAL.inventory(dealing)
    assert set(dealt) == piles | seats | {"footprints_dealt"}
    assert sorted(dealt["footprints_dealt"]) == sorted(
        c for _, cards in dealing.pending.footprints for c in cards
    )


def test_the_catalog_describes_the_content_and_the_terrains() -> None:
    """`describe` (the catalog's content): every card and tile as the content holds them,
    and each terrain with its resource and its colour on the map."""
    described = REAL.describe()
    assert described["terrains"] == [
        {"terrain": "mountain", "resource": "stone", "colour": TERRAIN_FILL["mountain"]},
        {"terrain": "ice", "resource": "mammoth", "colour": TERRAIN_FILL["ice"]},
        {"terrain": "forest", "resource": "wood", "colour": TERRAIN_FILL["forest"]},
        {"terrain": "swamp", "resource": "berries", "colour": TERRAIN_FILL["swamp"]},
    ]
    rest = {k: v for k, v in described.items() if k != "terrains"}
    assert rest == msgspec.to_builtins(REAL.content) and "fire_cards" in rest
    assert Footprints().content == REAL.content  # the content loaded when none is given


def test_storyteller_takes_two_fire_cards_and_a_footprint_card() -> None:
    events, after = play(chief("clan-4"), 0, Lead())
    # the footprint card first, decided at once; then the two fire cards
    assert len(of(FireDrawn, events)) == 0 and len(of(FootprintDrawn, events)) == 1
    assert after.pending == FootprintChoice(
        seat=0, cards=(of(FootprintDrawn, events)[0].card,), fire=2
    )
    events, after = play(after, 0, DecideFootprint(keep=True))
    assert len(of(FireDrawn, events)) == 2 and len(after.players[0].fire_hand) == 2
    assert after.pending is None


def test_carver_moves_to_the_next_space_then_builds_two_creations_one_power() -> None:
    # Bison: mountain engraving 3 stone (power: mammoth), ice 1 mammoth, 1 stone, 1 berries
    rich = goods(stone=4, mammoth=2, berries=1)
    state = chief("clan-4", "b", position=(0, 13), resources=rich)
    assert refused(state, 0, Lead(to=(0, 11))) == "not_next_space"
    idle = play(state, 0, Lead())[1]  # played for nothing: no move, still two builds
    assert idle.players[0].position == (0, 13) and idle.turn is not None
    assert idle.turn.builds_allowed == 2
    state = play(state, 0, Lead(to=(0, 12)))[1]
    assert state.players[0].position == (0, 12) and state.turn is not None
    assert state.turn.builds_allowed == 2
    events, state = run(
        state,
        0,
        BuildEngraving(terrain="mountain", at=(0, 11)),
        BuildEngraving(terrain="ice", at=(1, 11)),
    )
    assert len(of(EngravingBuilt, events)) == 2 and state.turn is not None
    assert state.turn.phase == "power"
    events, state = play(state, 0, UsePower(terrain="mountain", pay=1))  # one power only
    assert StepDone(seat=0, phase="discard") in events


def test_pathfinder_the_top_action_of_any_terrain_two_spaces_further() -> None:
    state = chief("clan-5", position=(0, 2))
    four = (*ICE_ROW, (1, 5))  # ice level 2 + 2
    assert play(state, 0, Lead(terrains=("ice",), top=Top(path=four)))[1].players[0].position == (
        1,
        5,
    )
    five = (*four, (2, 5))
    assert refused(state, 0, Lead(terrains=("ice",), top=Top(path=five))) == "wrong_terrain"
    longer = (*four, (0, 5))
    assert refused(state, 0, Lead(terrains=("ice",), top=Top(path=longer))) == "too_far"


def test_trader_gives_any_resources_and_takes_as_many_plus_one() -> None:
    state = chief("clan-5", "b", resources=goods(stone=2))
    trade = Lead(give=("stone", "stone"), resources=("wood", "wood", "berries"))
    assert play(state, 0, trade)[1].players[0].resources == goods(wood=2, berries=1)
    assert play(state, 0, Lead(resources=("wood",)))[1].players[0].resources == goods(
        stone=2, wood=1
    )
    assert refused(state, 0, Lead(give=("stone",), resources=("wood",))) == "trade_count"
    assert refused(state, 0, Lead(give=("wood",), resources=("stone", "stone"))) == (
        "cannot_afford"
    )


def test_fire_keeper_plays_two_fire_cards_from_hand_then_takes_one() -> None:
    hand = ("fire-01", "fire-07", "fire-08")
    state = chief("clan-6", fire_hand=hand, position=(1, 5))
    mountains = ((2, 6), (3, 6), (4, 6))
    events, after = play(state, 0, Lead(cards=("fire-01", "fire-07"), path=mountains))
    assert events[0] == FireDiscarded(seat=0, cards=("fire-01", "fire-07"))
    assert after.players[0].position == (4, 6)
    assert after.players[0].resources == goods(stone=2, wood=1)  # (3, 6) and fire-07
    assert len(of(FireDrawn, events)) == 1 and len(after.players[0].fire_hand) == 2
    assert refused(state, 0, Lead(cards=hand)) == "fire_not_in_hand"  # at most two
    assert refused(state, 0, Lead(cards=("fire-09",))) == "fire_not_in_hand"
    assert refused(state, 0, Lead(cards=("fire-07",), path=mountains)) == "fire_has_no_move"
    # the Fire Keeper's cards come from the hand in step 2, never with the card in step 1
    raw = table(
        players=[{"fire_hand": hand, "panel": (leader("clan-6"),)}], clans=["clan-6", "clan-1"]
    )
    assert refused(raw, 0, Play(card=leader("clan-6"), fire="fire-01")) == "no_fire_with_leader"


def test_chieftain_repeats_the_top_or_bottom_action_of_a_played_follower() -> None:
    ice = follower("clan-6", 9)  # Ibex: f09 ice, plain
    state = chief("clan-6", "b", played=(ice,), position=(0, 2), skills=terrains(ice=3))
    after = play(state, 0, Lead(follower=ice, top=Top(path=ICE_ROW)))[1]
    assert after.players[0].position == (0, 5)
    events = play(state, 0, Lead(follower=ice, bottom=Bottom(to=(1, 1))))[0]
    assert SkillAdvanced(seat=0, terrain="ice", level=4) in events
    assert refused(state, 0, Lead(follower=follower("clan-6", 8), top=Top(path=()))) == "not_played"
    assert refused(state, 0, Lead(follower=leader("clan-6", "b"), top=Top(path=()))) == (
        "not_a_follower"
    )
    assert refused(state, 0, Lead(follower=ice)) == "top_or_bottom"
    both = Lead(follower=ice, top=Top(path=()), bottom=Bottom(to=(1, 1)))
    assert refused(state, 0, both) == "top_or_bottom"
    assert refused(state, 0, Lead(follower=ice, top=Top(path=(), fire_at=0))) == "no_fire_card"


def test_an_unknown_leader_ability_is_refused() -> None:
    state = chief("clan-1")
    with pytest.raises(IllegalAction) as err:
        leaders_module.lead(
            Table(REAL.content, state, Random(0)), 0, "juggler", Lead(cards=("x",)), None, []
        )
    assert (err.value.code, err.value.message) == ("unknown_leader", "no leader ability 'juggler'")


# -- footprint cards ---------------------------------------------------------------------------


def test_footprint_cards_are_completed_at_any_point_of_your_own_turn() -> None:
    # footprint-14: ice 8+, own 2 stone; footprint-01 (Roman's): forest engraving, forest and
    # ice 6+; footprint-24: own 2 stone, 2 wood, swamp 6+
    me = {
        "skills": terrains(ice=8, forest=6),
        "resources": goods(stone=2),
        "engravings": ("forest",),
        "footprints": ("footprint-14", "footprint-01", "footprint-24"),
    }
    state = table(players=[me])
    assert refused(state, 1, CompleteFootprint(card="footprint-14")) == "not_your_turn"
    assert refusal(state, 0, CompleteFootprint(card="footprint-24")) == (
        "goals_not_met",
        "not every goal of this card is met",
    )
    assert refused(state, 0, CompleteFootprint(card="footprint-02")) == "not_on_board"
    events, state = play(state, 0, CompleteFootprint(card="footprint-14"))  # before playing
    assert events == [FootprintCompleted(seat=0, card="footprint-14")]
    state = played(state, 0, F03)
    state = play(state, 0, CompleteFootprint(card="footprint-01"))[1]  # mid-turn: several
    p = state.players[0]
    assert p.completed == ("footprint-14", "footprint-01") and p.footprints == ("footprint-24",)
    assert p.resources == goods(stone=2)  # what was counted stays to pay with


def test_a_cave_painting_goal_is_met_by_the_seats_own_cave_painting_only() -> None:
    # footprint-06: a cave painting, own 3 stone
    me = {"resources": goods(stone=3), "footprints": ("footprint-06",)}
    bare = table(players=[me, {"cave_site": "tile-3-cave-a"}])  # the other seat's painting
    assert refused(bare, 0, CompleteFootprint(card="footprint-06")) == "goals_not_met"
    assert CompleteFootprint(card="footprint-06") not in REAL.legal_actions(bare, 0)
    painted = table(players=[{**me, "cave_site": "tile-3-cave-a"}])
    assert CompleteFootprint(card="footprint-06") in REAL.legal_actions(painted, 0)
    events = play(painted, 0, CompleteFootprint(card="footprint-06"))[0]
    assert events == [FootprintCompleted(seat=0, card="footprint-06")]


def test_a_footprint_bonus_is_kept_or_discarded_at_once() -> None:
    # fire-13: take a footprint card, and berries
    state = played(table(players=[{"fire_hand": ("fire-13",)}]), 0, F03, "fire-13")
    events, state = play(state, 0, Top(path=(), fire_at=0))
    drawn = of(FootprintDrawn, events)[0]
    assert state.pending == FootprintChoice(seat=0, cards=(drawn.card,), then=None)
    assert REAL.to_act(state) == {0}
    assert refused(state, 0, Skip()) == "answer_first"
    assert refused(state, 0, CompleteFootprint(card=drawn.card)) == "answer_first"
    kept, after = play(state, 0, DecideFootprint(keep=True))
    assert kept[0] == FootprintKept(seat=0, card=drawn.card)
    assert after.players[0].footprints == (drawn.card,) and after.pending is None
    gone, after = play(state, 0, DecideFootprint(keep=False))
    assert gone[0] == FootprintDiscarded(seat=0, card=drawn.card)
    assert after.footprint_discard == (drawn.card,) and after.players[0].footprints == ()


def test_each_footprint_card_is_decided_at_once_before_anything_else() -> None:
    # "Immediately decide": the next card is drawn only once this one is kept or discarded,
    # and nothing else may be done meanwhile, not even completing a footprint card
    me = {"skills": terrains(ice=8), "resources": goods(stone=2), "footprints": ("footprint-14",)}
    state = chief("clan-3", "b", **me)
    _, state = play(state, 0, Lead())
    assert isinstance(state.pending, FootprintChoice) and state.pending.footprints == 1
    card = state.pending.cards[0]
    asked = FootprintQuestion(seat=0, cards=(card,))
    assert REAL.legal_actions(state, 0) == [
        DecideFootprint(keep=keep, card=card, question=asked) for keep in (True, False)
    ]
    assert refused(state, 0, CompleteFootprint(card="footprint-14")) == "answer_first"
    # the last card of the deck, discarded at once, comes back with the next draw
    last = ALL_FOOTPRINTS[0]
    dry = chief(
        "clan-3",
        "b",
        footprints=ALL_FOOTPRINTS[1:16],
        others=[{"footprints": ALL_FOOTPRINTS[16:]}],
    )
    events, dry = play(dry, 0, Lead())
    assert of(FootprintDrawn, events) == [FootprintDrawn(seat=0, card=last)]
    assert dry.footprint_deck == ()
    events, dry = play(dry, 0, DecideFootprint(keep=False))
    assert of(FootprintsReshuffled, events) == [FootprintsReshuffled(count=1)]
    assert of(FootprintDrawn, events) == [FootprintDrawn(seat=0, card=last)]
    assert dry.pending == FootprintChoice(seat=0, cards=(last,))


def test_an_empty_footprint_deck_reshuffles_the_discard() -> None:
    rest = ALL_FOOTPRINTS[1:]
    state = table(
        players=[
            {"fire_hand": ("fire-13",), "footprints": tuple(rest[:14])},
            {"footprints": tuple(rest[14:])},
        ],
        footprint_discard=ALL_FOOTPRINTS[:1],
    )
    assert state.footprint_deck == ()
    events = play(played(state, 0, F03, "fire-13"), 0, Top(path=(), fire_at=0))[0]
    assert of(FootprintsReshuffled, events) == [FootprintsReshuffled(count=1)]
    assert of(FootprintDrawn, events)[0].card == ALL_FOOTPRINTS[0]


def test_with_no_footprint_card_left_anywhere_the_bonus_is_cancelled() -> None:
    half = len(ALL_FOOTPRINTS) // 2
    none = table(
        players=[
            {"fire_hand": ("fire-13",), "footprints": tuple(ALL_FOOTPRINTS[:half])},
            {"footprints": tuple(ALL_FOOTPRINTS[half:])},
        ]
    )
    events = play(played(none, 0, F03, "fire-13"), 0, Top(path=(), fire_at=0))[0]
    assert BonusLost(seat=0) in events and not of(FootprintDrawn, events)


def test_an_empty_fire_deck_reshuffles_the_discard() -> None:
    hands = sorted(C.fire_cards)
    state = table(
        players=[
            {"fire_hand": tuple(hands[13:16]), "position": (0, 2), "skills": terrains(ice=3)},
            {"fire_hand": tuple(hands[16:])},
        ],
        fire_discard=hands[:13],
    )
    assert state.fire_deck == ()
    events = play(played(state, 0, F03), 0, Top(path=((0, 3),)))[0]  # a fire card on (0, 3)
    assert of(FireReshuffled, events) == [FireReshuffled(count=13)]
    assert of(FireDrawn, events)[0].card in hands[:13]
    # no fire card left anywhere: the bonus gives nothing (our ruling)
    state = table(
        players=[
            {"fire_hand": tuple(hands[:3]), "position": (0, 2), "skills": terrains(ice=3)},
            {"fire_hand": tuple(hands[3:])},
        ]
    )
    events, state = play(played(state, 0, F03), 0, Top(path=((0, 3),)))
    assert not of(FireDrawn, events) and not of(FireReshuffled, events)
    assert state.players[0].fire_hand == tuple(hands[:3])


def test_every_illegal_action_code_is_tested() -> None:
    source = "".join(p.read_text() for p in Path(leaders_module.__file__).parent.glob("*.py"))
    # lower case only: under `make mutate` the source also holds mutmut's copies of each
    # code ("XXnot_your_turnXX", "NOT_YOUR_TURN"), which no test names
    codes = set(re.findall(r'(?:illegal|IllegalAction|IllegalMove)\(\s*"([a-z0-9_]+)"', source))
    assert len(codes) > 40
    here = Path(__file__).parent
    tests = "".join(p.read_text() for p in here.glob("test_rules*.py"))
    assert sorted(c for c in codes if f'"{c}"' not in tests) == []


def test_picks_scripts_the_draws() -> None:
    state = played(table(players=[{"position": (0, 2)}]), 0, follower("clan-1", 3))
    events = REAL.decide(state, 0, Top(path=((0, 3),)), Picks("fire-09"))
    assert of(FireDrawn, events) == [FireDrawn(seat=0, card="fire-09")]
    assert of(CardPlayed, events) == [] and of(ResourcesChanged, events) == []
    assert Skip() not in REAL.legal_actions(state, 0)


def test_a_waiting_footprint_card_may_be_named_when_decided() -> None:
    state = played(table(players=[{"fire_hand": ("fire-13",)}]), 0, F03, "fire-13")
    _, state = play(state, 0, Top(path=(), fire_at=0))
    [card] = state.pending.cards  # type: ignore[union-attr]
    assert refused(state, 0, DecideFootprint(keep=True, card="footprint-99")) == "not_drawn"
    kept, _ = play(state, 0, DecideFootprint(keep=True, card=card))
    assert kept[0] == FootprintKept(seat=0, card=card)


def test_a_card_met_by_the_end_of_a_turn_is_flipped_before_it_ends() -> None:
    # footprint-14: ice 8+ and 2 stone; an ice follower's bottom action takes ice from 7 to 8
    me = {"skills": terrains(ice=7), "resources": goods(stone=2), "footprints": ("footprint-14",)}
    state = played(table(players=[me]), 0, F03)
    bottom = next(a for a in REAL.legal_actions(state, 0) if isinstance(a, Bottom))
    events, after = play(state, 0, bottom)
    names = [type(e).__name__ for e in events]
    assert "FootprintCompleted" in names and names.index("FootprintCompleted") < names.index(
        "PanelFilled"
    )
    assert after.players[0].completed == ("footprint-14",) and after.players[0].footprints == ()


def test_the_recluse_is_described_alike_in_the_rules_and_the_content() -> None:
    # RULES.md once noted CONTENT.md as stale ("4 columns to your right"); both now say the
    # code's reading: at most 4 columns either way
    docs = Path(leaders_module.__file__).parent
    rules, content = ((docs / name).read_text() for name in ("RULES.md", "CONTENT.md"))
    assert "still describes the Recluse" not in rules and "to your right" not in content
    assert "4 columns from yours, either way" in content and "either side" in rules
    assert leaders_module.RECLUSE_COLUMNS == 4


@pytest.mark.parametrize(
    ("who", "action"),
    [
        ("scout", Lead(path=tuple((1, c) for c in range(9, 15)))),
        ("recluse", Lead(to=(1, 14))),
        ("fire keeper", Lead(cards=("fire-04",), path=((1, 14),))),
        ("chieftain", Lead(follower=follower("clan-6", 3), top=Top(path=((1, 14),)))),
        ("pathfinder", Lead(terrains=("swamp",), top=Top(path=((1, 14),)))),
        ("carver", Lead(to=(1, 14))),
    ],
)
def test_a_leader_moving_onto_an_any_skill_space_advances_the_skill_named(
    who: str, action: Lead
) -> None:
    # (1, 14): a swamp space with an "any skill" bonus; the Scout along row 1, the Recluse
    # four columns, the Fire Keeper's swamp move one space, the Chieftain a swamp follower's
    # top action again, the Pathfinder a swamp top action, the Carver to the next space
    state = {
        "scout": chief("clan-1", "b", position=(1, 8)),
        "recluse": chief("clan-2", "b", position=(1, 10)),
        "fire keeper": chief("clan-6", fire_hand=("fire-04",), position=(1, 13)),
        "chieftain": chief("clan-6", "b", played=(follower("clan-6", 3),), position=(1, 13)),
        "pathfinder": chief("clan-5", position=(1, 13)),
        "carver": chief("clan-4", "b", position=(1, 13)),
    }[who]
    ice = skills(play(state, 0, msgspec.structs.replace(action, any_skill=("ice",)))[1], 0)
    forest = skills(play(state, 0, msgspec.structs.replace(action, any_skill=("forest",)))[1], 0)
    assert ice["ice"] > forest["ice"] and forest["forest"] > ice["forest"]


def test_fire_keeper_takes_its_card_besides_a_fire_cards_own() -> None:
    state = chief("clan-6", fire_hand=("fire-01", "fire-14"), position=(1, 5))
    events, after = play(state, 0, Lead(cards=("fire-14",)))  # fire-14: a fire card, wood
    assert len(of(FireDrawn, events)) == 2 and len(after.players[0].fire_hand) == 3


def test_the_fire_keepers_move_may_end_where_it_began_as_a_top_action_may() -> None:
    # (2, 6) and (3, 6): mountains; out to (3, 6) (a stone) and back
    state = chief("clan-6", fire_hand=("fire-01",), position=(2, 6))
    after = play(state, 0, Lead(cards=("fire-01",), path=((3, 6), (2, 6))))[1]
    assert after.players[0].position == (2, 6)
    assert after.players[0].resources == goods(stone=1)


def test_the_leaders_refusals_say_why() -> None:
    keeper = chief("clan-6", fire_hand=("fire-01", "fire-07"), position=(1, 5))
    crowded = chief(
        "clan-6", others=[{"position": (4, 6)}], fire_hand=("fire-01",), position=(1, 5)
    )
    cairn = chief("clan-6", fire_hand=("fire-01",), position=None)
    scout = chief("clan-1", "b", others=[{"position": (1, 10)}], position=(1, 8))
    recluse = chief("clan-2", "b", position=(1, 10))
    mountains = ((2, 6), (3, 6), (4, 6))
    ice = follower("clan-6", 9)
    chieftain = chief("clan-6", "b", played=(ice,), position=(0, 2))
    cases = [
        (chief("clan-5"), Lead(terrains=("ice",)), "top_of_a_terrain", "name one terrain and give its top action"),
        (chief("clan-3", "b"), Lead(cards=("footprint-09",)), "not_on_board", "discard footprint cards of your board, once each"),
        (chief("clan-5", "b"), Lead(resources=("wood", "wood")), "trade_count", "take one more resource than you give"),
        (chief("clan-1"), Lead(terrains=("ice",)), "two_skills", "name two different skills to advance 2 each"),
        (chief("clan-2"), Lead(resources=("wood",)), "three_resources", "name the 3 resources you take"),
        (chieftain, Lead(follower=follower("clan-6", 8), top=Top(path=())), "not_played", "choose a follower from your clan discard pile"),
        (chieftain, Lead(follower=leader("clan-6", "b"), top=Top(path=())), "not_a_follower", "only a follower's action can be replayed"),
        (chieftain, Lead(follower=ice), "top_or_bottom", "give the follower's top or its bottom action"),
        (chieftain, Lead(follower=ice, top=Top(path=(), fire_path=((0, 3),))), "no_fire_card", "no fire card was played with this card"),
        (scout, Lead(path=((1, 9), (2, 9))), "scout_line", "the Scout moves along one row or diagonal, on the map"),
        (scout, Lead(path=((1, 9), (1, 10))), "occupied", "you may move through figures but not end on one"),
        (recluse, Lead(to=(1, 15)), "not_secluded", "the Recluse goes where no figure is within 2 spaces"),
        (keeper, Lead(cards=("fire-09",)), "fire_not_in_hand", "play up to 2 different fire cards from your hand"),
        (keeper, Lead(cards=("fire-07",), path=mountains), "fire_has_no_move", "none of these fire cards moves you"),
        (cairn, Lead(cards=("fire-01",), path=((2, 6),)), "on_cairn_track", "your figure is on the cairn track"),
        (keeper, Lead(cards=("fire-01",), path=((3, 6),)), "not_adjacent", "(3, 6) is not next to (1, 5)"),
        (keeper, Lead(cards=("fire-01",), path=(*mountains, (5, 6))), "too_far", "the fire card moves 3 spaces or fewer"),
        (keeper, Lead(cards=("fire-01",), path=((1, 6),)), "wrong_terrain", "the fire card moves over mountain only"),
        (crowded, Lead(cards=("fire-01",), path=mountains), "occupied", "you may move through figures but not end on one"),
    ]  # fmt: skip
    for state, action, code, text in cases:
        assert refusal(state, 0, action) == (code, text), action
