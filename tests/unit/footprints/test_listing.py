"""`legal_actions` lists every move (RULES.md, "Legal actions"): the listing oracle
(games/testing.py: check_listing) on crafted positions that random games reach rarely:
every leader, every fire card with followers of each kind, building and engraving powers
next to "any skill" bonuses, placing figures on "any skill" houses; and the bounds, where
the list is cut short but `decide` accepts the rest.
"""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from msgspec.structs import replace

from games.footprints import legal, legal_leads, legal_moves, walks
from games.footprints.content import TERRAINS
from games.footprints.model import Bottom, Lead, Options, PlaceNext, Play, Top
from games.footprints.state import State
from games.footprints.table import Table
from games.testing import check_listing
from tests.unit.footprints.candidates import candidates
from tests.unit.footprints.rules_helpers import (
    HOUSES,
    REAL,
    C,
    follower,
    goods,
    leader,
    on_panel,
    play,
    played,
    refused,
    set_up,
    table,
    terrains,
)

FIRE = sorted(C.fire_cards)
FOOTPRINTS = sorted(C.footprint_cards)
HERE = (2, 10)  # ice, in the middle of the fixed map
OTHERS = [{"position": (2, 11)}, {"position": (3, 10)}, {"position": (1, 12)}]
RICH = {
    "position": HERE,
    "skills": terrains(mountain=5, ice=4, forest=6, swamp=3),
    "resources": goods(stone=2, mammoth=2, wood=1, berries=3),
}


def oracle(state: State, seat: int = 0, budget: int | None = 1_500, seed: int = 0) -> int:
    """check_listing with the brute-force candidates; the number of moves listed."""
    listing = legal.listing(Table(REAL.content, state, None), seat)
    assert listing.complete
    found = candidates(REAL, state, seat, Random(seed), budget)
    check_listing(REAL, state, seat, found, seed, lambda a, b: a == b)
    return len(listing.actions)


def leading(clan: str, ab: str, fire: str | None = None, **me: Any) -> State:
    """Seat 0 of `clan` (rich, mid-map, three followers played) has just played leader `ab`."""
    f = [follower(clan, n) for n in range(1, 14)]
    mine: dict[str, Any] = {
        **RICH,
        "panel": (leader(clan, ab), *f[:3]),
        "deck_top": tuple(f[3:10]),
        "deck_bottom": (),
        "played": tuple(f[10:]),
        "leader": leader(clan, ab),
        "fire_hand": ("fire-03", "fire-12", "fire-18"),
        "footprints": tuple(FOOTPRINTS[:3]),
        **me,
    }
    clans = [clan, *(c for c in ("clan-1", "clan-2", "clan-3", "clan-4") if c != clan)][:4]
    state = table(4, players=[mine, *OTHERS], clans=clans)
    return played(state, 0, leader(clan, ab), fire)


LEADERS = [(c.clan, "ab"[i]) for c in C.clans.values() for i in range(2)]


@pytest.mark.parametrize(("clan", "ab"), LEADERS, ids=[f"{c}-{ab}" for c, ab in LEADERS])
def test_every_leader_lists_every_use_of_its_ability(clan: str, ab: str) -> None:
    ability = next(x.ability for x in C.clans[clan].leaders if x.id == leader(clan, ab))
    fire = "fire-18" if ability == "shaman" else None
    assert oracle(leading(clan, ab, fire)) >= 1


def test_the_shaman_with_a_fire_move_and_the_chieftain_with_every_follower() -> None:
    assert oracle(leading("clan-3", "a", "fire-03")) > 50
    f = [follower("clan-6", n) for n in range(1, 14)]  # f12 and f13 are alike: one listed
    three = {"played": (f[4], f[8], f[11], f[12]), "deck_top": (*f[3:4], *f[5:8], *f[9:11])}
    chieftain = leading("clan-6", "b", **three)
    listed = REAL.legal_actions(chieftain, 0)
    replayed = {a.follower for a in listed if isinstance(a, Lead) and a.follower}
    assert replayed in ({f[4], f[8], f[11]}, {f[4], f[8], f[12]})  # every kind of follower
    oracle(chieftain)


def follower_with(fire: str, n: int, **me: Any) -> State:
    """Seat 0 (Horse) plays follower `n` with `fire` from the middle of the map."""
    mine = {**RICH, "fire_hand": (fire,), **me}
    return played(table(4, players=[mine, *OTHERS]), 0, follower("clan-1", n), fire)


@pytest.mark.parametrize("fire", FIRE)
def test_every_fire_card_with_a_top_or_a_bottom_action_of_any_follower(fire: str) -> None:
    # clan-1: f01 ice +1 mountain space, f08 swamp +1 ice advance, f12 mountain
    n = (1, 8, 12)[FIRE.index(fire) % 3]
    oracle(follower_with(fire, n), budget=800, seed=FIRE.index(fire))


def test_a_cost_only_the_actions_bonuses_pay_and_a_marker_moved_back() -> None:
    # fire-18 gives up a stone: with none, only after an action collecting one
    poor = follower_with("fire-18", 3, resources=goods())
    oracle(poor, budget=None)
    after = [a for a in REAL.legal_actions(poor, 0) if isinstance(a, Top | Bottom) and a.fire_at]
    assert after and all(a.fire_at == (len(a.path) if isinstance(a, Top) else 1) for a in after)
    # fire-16 moves the ice marker back: before, during and after an ice move all differ
    back = follower_with("fire-16", 3)
    oracle(back, budget=None)
    timings = {a.fire_at if not a.fire_at else "later" for a in REAL.legal_actions(back, 0)}
    assert timings == {None, 0, "later"}


def test_a_marker_moved_back_during_a_bottom_action_in_either_order() -> None:
    # fire-16 (ice back) with f02 (ice, + mountain advance) by an ice-advance space; fire-15
    # (swamp back, two "any skill") with f05 (swamp, + forest advance): the card between the
    # advance and the move, either first, is listed where it makes a difference
    sixteen = played(
        table(players=[{"position": (3, 14), "skills": (5, 5, 5, 5), "fire_hand": ("fire-16",)}]),
        0,
        follower("clan-1", 2),
        "fire-16",
    )
    fifteen = follower_with("fire-15", 5, skills=(3, 3, 3, 3))
    durings = []
    for state in (sixteen, fifteen):
        oracle(state, budget=None)
        listed = REAL.legal_actions(state, 0)
        durings.append({a.fire_during for a in listed if isinstance(a, Bottom)})
        old = replace(state, rules=1)  # a game of rules version 1: before or after only
        oracle(old, budget=None)
        assert not [a for a in REAL.legal_actions(old, 0) if getattr(a, "fire_during", None)]
    assert durings == [{None, "after_advance", "after_move"}, {None, "after_move"}]


def test_a_fire_cards_move_with_a_bottom_action_onto_a_figure_and_an_any_skill_space() -> None:
    # fire-04 moves 3 swamp spaces; (1, 14) is a swamp space with an "any skill" bonus, a
    # figure stands on the swamp space (1, 15): the card's move used before may end on it
    # (the bottom move then starts there), and either way its "any skill" is listed four ways
    me = {"position": (1, 13), "fire_hand": ("fire-04",)}
    state = played(table(players=[me, {"position": (1, 15)}]), 0, follower("clan-1", 6), "fire-04")
    oracle(state, budget=None)
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Bottom) and a.fire_path]
    assert any(a.fire_at == 0 and a.fire_path[-1] == (1, 15) for a in listed)
    assert {a.any_skill for a in listed if a.fire_path == ((1, 14),)} >= {(t,) for t in TERRAINS}
    # and used after the action, from where the bottom move ended, (1, 13), onto (1, 14)
    me = {"position": (1, 12), "fire_hand": ("fire-04",)}
    state = played(table(players=[me, {"position": (1, 15)}]), 0, follower("clan-1", 6), "fire-04")
    oracle(state, budget=None)
    after = {
        a.any_skill
        for a in REAL.legal_actions(state, 0)
        if isinstance(a, Bottom) and a.to == (1, 13) and a.fire_at == 1
        and a.fire_path == ((1, 14),)
    }  # fmt: skip
    assert after == {(t,) for t in TERRAINS}


def test_both_actions_list_each_first_action_and_then_the_other() -> None:
    state = follower_with("fire-05", 3)  # both actions of a mountain or ice follower
    oracle(state)
    top = next(a for a in REAL.legal_actions(state, 0) if isinstance(a, Top) and not a.path)
    then = play(state, 0, top)[1]
    assert all(isinstance(a, Bottom) for a in REAL.legal_actions(then, 0))
    oracle(then)


def test_building_and_powers_next_to_any_skill_bonuses() -> None:
    # (1, 14) swamp with an "any skill" bonus; (1, 13) mountain, (2, 14) ice next to it
    rich = goods(stone=4, mammoth=4, wood=4, berries=4)
    state = table(players=[{"position": (2, 14), "resources": rich}], turn={"phase": "build"})
    assert oracle(state) > 1
    powers = table(
        players=[{"resources": rich, "engravings": ("ice", "mountain"), "skills": terrains(ice=6)}],
        turn={"phase": "power"},
    )
    assert oracle(powers) > 4


def test_placing_a_figure_on_an_any_skill_house() -> None:
    state = replace(set_up(3, 0)[1], houses=HOUSES)  # house-3 and house-6 side A: any skill
    assert isinstance(state.pending, PlaceNext)
    seat = state.pending.order[0]
    listed = REAL.legal_actions(state, seat)
    assert {a.row for a in listed} == set(range(6))  # type: ignore[attr-defined]
    assert len(listed) == 4 + 4 + 4  # two houses with an any-skill bonus: 4 skills each
    oracle(state, seat, budget=None)


def test_the_fire_keepers_two_cards_in_either_order_and_none() -> None:
    # fire-17 moves the forest marker back, fire-09 advances it: the order tells
    state = leading("clan-6", "a", fire_hand=("fire-01", "fire-09", "fire-17"))
    listed = REAL.legal_actions(state, 0)
    assert Lead() in listed  # no card played: a fire card is still taken
    events, _ = play(state, 0, Lead())
    assert any(type(e).__name__ == "StepDone" for e in events)
    pairs = {a.cards for a in listed if isinstance(a, Lead) and len(a.cards) == 2}
    assert ("fire-09", "fire-17") in pairs and ("fire-17", "fire-09") in pairs
    oracle(state)


# -- the bounds: listed moves cut short, every move still accepted ----------------------------


def test_the_trader_lists_up_to_its_bound_and_accepts_any_trade() -> None:
    few = leading("clan-5", "b", resources=goods(stone=3, wood=2))
    listed = legal.listing(Table(REAL.content, few, None), 0)
    assert listed.complete and len(listed.actions) == 1 + 84  # Lead(), then C(6 + 3, 3)
    many = leading("clan-5", "b", resources=goods(stone=6, mammoth=6, wood=6, berries=6))
    cut = legal.listing(Table(REAL.content, many, None), 0)
    assert not cut.complete and len(cut.actions) == 1 + legal_leads.MAX_TRADES
    unlisted = Lead(give=("berries",) * 6, resources=("stone",) * 7)
    assert unlisted not in cut.actions
    assert play(many, 0, unlisted)[1].players[0].resources == goods(stone=13, mammoth=6, wood=6)


def test_the_dreamer_lists_up_to_its_bound_and_accepts_any_renewal() -> None:
    nine = tuple(FOOTPRINTS[:9])
    state = leading("clan-3", "b", footprints=nine)
    cut = legal.listing(Table(REAL.content, state, None), 0)
    assert not cut.complete and len(cut.actions) == legal_leads.MAX_RENEWALS
    assert Lead(cards=nine) not in cut.actions
    assert play(state, 0, Lead(cards=nine))[1].footprint_discard == nine


def test_a_long_walk_search_stops_at_its_bound_and_every_walk_is_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = follower_with("fire-07", 10, skills=terrains(forest=9))  # f10: forest, +mountain
    whole = legal.listing(Table(REAL.content, state, None), 0)
    assert whole.complete
    monkeypatch.setattr(walks, "MAX_STATES", 30)
    cut = legal.listing(Table(REAL.content, state, None), 0)
    assert not cut.complete and len(cut.actions) < len(whole.actions)
    for action in whole.actions:  # every move, listed or not, is accepted
        REAL.decide(state, 0, action, Random(0))


def test_any_skill_choices_are_listed_up_to_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    state = replace(set_up(3, 0)[1], houses=HOUSES)
    seat = state.pending.order[0]  # type: ignore[union-attr]
    monkeypatch.setattr(legal_moves, "MAX_PICKS", 0)
    cut = legal.listing(Table(REAL.content, state, None), seat)
    assert not cut.complete
    for terrain in TERRAINS:  # the choice not listed is accepted
        REAL.decide(state, seat, replace(cut.actions[0], row=2, any_skill=(terrain,)), Random(0))


def test_a_bottom_actions_list_stays_within_its_documented_size() -> None:
    # RULES.md, "The bounds": the largest bottom-action list found in 38,000 random positions
    # with a card moving a marker back (fire-15: swamp back, two "any skill"): 621 moves
    # under rules version 2, 618 under version 1 (the uses during the action add 3)
    me = {"position": (4, 2), "skills": (8, 4, 2, 6), "fire_hand": ("fire-15",)}
    spots = [{"position": at} for at in ((3, 24), (2, 23), (5, 24), (0, 5))]
    clans = ["clan-3", "clan-1", "clan-2", "clan-4", "clan-5"]
    state = played(table(5, players=[me, *spots], clans=clans), 0, follower("clan-3", 7), "fire-15")
    sizes = []
    for rules in (2, 1):
        listed = REAL.legal_actions(replace(state, rules=rules), 0)
        bottoms = [a for a in listed if isinstance(a, Bottom)]
        sizes.append(len(bottoms))
        assert len({a.to for a in bottoms}) <= 6
    assert sizes == [621, 618]


def test_the_bounds_hold_no_move_of_a_seat_not_to_act() -> None:
    state = follower_with("fire-07", 3)
    assert REAL.legal_actions(state, 1) == []
    assert refused(state, 1, Play(card=follower("clan-2", 1))) == "not_your_turn"


def test_both_actions_keep_a_top_and_a_bottom_that_end_on_the_same_space() -> None:
    # every skill at its top: the bottom action advances nothing, so a walk to the space the
    # bottom action moves to ends alike; what is left differs (the other action), so each
    # first action is listed, not one for both
    state = follower_with("fire-05", 1, position=(0, 12), skills=(11, 11, 11, 11))
    listed = REAL.legal_actions(state, 0)
    assert Bottom(to=(2, 13)) in listed
    walks_there = [a for a in listed if isinstance(a, Top) and a.path[-1:] == ((2, 13),)]
    assert walks_there
    after_top = REAL.legal_actions(play(state, 0, walks_there[0])[1], 0)
    after_bottom = REAL.legal_actions(play(state, 0, Bottom(to=(2, 13)))[1], 0)
    assert after_top and all(isinstance(a, Bottom) for a in after_top)
    assert after_bottom and all(isinstance(a, Top) for a in after_bottom)


def test_the_shaman_is_played_with_each_fire_card_and_other_leaders_alone() -> None:
    fire = ("fire-03", "fire-12")

    def plays(clan: str) -> list[Play]:
        base = table(clans=[clan, "clan-2"], players=[{"fire_hand": fire}])
        state = on_panel(base, 0, leader(clan, "a"))
        found = legal.plays(Table(REAL.content, state, None), 0)
        assert all(isinstance(a, Play) for a in found)
        first = state.players[0].panel[0]  # a follower: with every fire card, or none
        assert {a.fire for a in found if isinstance(a, Play) and a.card == first} == {
            None,
            *fire,
        }
        return [a for a in found if isinstance(a, Play) and a.card == leader(clan, "a")]

    assert plays("clan-3") == [Play(card=leader("clan-3", "a"), fire=f) for f in (None, *fire)]
    assert plays("clan-1") == [Play(card=leader("clan-1", "a"))]  # two skills: no fire card


def test_a_seat_answers_both_setup_questions_and_a_seat_not_on_turn_has_nothing() -> None:
    state = set_up(2, 0, Options(advanced=True))[1]
    listing = legal.listing(Table(REAL.content, state, None), 0)
    assert listing.complete is True
    kinds = {type(a).__name__ for a in listing.actions}
    assert kinds == {"ChooseLeader", "KeepStartingFootprint"}  # the two at once
    acting = follower_with("fire-05", 1)
    assert legal.listing(Table(REAL.content, acting, None), 0).actions
    assert legal.listing(Table(REAL.content, acting, None), 1) == legal.Listing([], True)
    # a step with no moves of its own (the turn's end, as the events name it): nothing
    over = table(turn={"phase": "over"})
    assert legal.listing(Table(REAL.content, over, None), 0) == legal.Listing([], True)
