"""Skill tracks and final scoring, category by category, with the rulebook's examples."""

from __future__ import annotations

from typing import Any

import pytest

from games.footprints.content import CaveToken, FireBonus, ResourceBonus, SkillBonus, Track, load
from games.footprints.scoring import Tally, cave_points, ranks, score, solo, tie_break
from games.footprints.skills import advance, back

CONTENT = load()
BOARD = next(iter(CONTENT.boards.values()))
TRACK = Track(
    bonuses={
        3: ResourceBonus(resource="wood"),
        4: FireBonus(),
        5: SkillBonus(terrain="ice"),
        6: ResourceBonus(resource="stone"),
        7: FireBonus(),
        8: ResourceBonus(resource="wood"),
        9: FireBonus(),
    },
    past_11="berries",
)


def tally(**kw: Any) -> Tally:
    base: dict[str, Any] = dict(
        skills={"mountain": 2, "ice": 2, "forest": 2, "swamp": 2},
        engravings=(),
        icons_next_to_engravings=0,
        cave_token=None,
        cairn_points=None,
        footprints_done=0,
        footprints_open=0,
        resources=0,
        fire_cards=0,
    )
    return Tally(**{**base, **kw})


def test_advancing_collects_every_space_passed_and_none_on_10_or_11() -> None:
    moved = advance(TRACK, 2, 3)
    assert moved.level == 5 and moved.bonuses == (
        ResourceBonus(resource="wood"),
        FireBonus(),
        SkillBonus(terrain="ice"),
    )
    assert advance(TRACK, 9, 2).bonuses == () and advance(TRACK, 9, 2).level == 11


def test_a_marker_on_11_takes_the_resource_past_11_for_each_advance() -> None:
    # Lera: grey at 9, pays 3 stone for 3 advances: 10, 11, then berries
    lera = advance(TRACK, 9, 3)
    assert lera.level == 11 and lera.bonuses == (ResourceBonus(resource="berries"),)
    assert advance(TRACK, 11, 2).bonuses == (ResourceBonus(resource="berries"),) * 2


def test_moving_back_collects_nothing_and_stops_at_2() -> None:
    assert back(5) == 4 and back(2) == 2 and back(4, 3) == 2
    assert advance(TRACK, back(5), 1).bonuses == (SkillBonus(terrain="ice"),)  # again
    with pytest.raises(ValueError):
        advance(TRACK, 12, 1)


def test_each_category_scores_as_the_rulebook_says() -> None:
    terrain = next(iter(BOARD.engravings))
    t = tally(
        skills={"mountain": 11, "ice": 10, "forest": 6, "swamp": 9},
        engravings=(terrain,),
        cairn_points=13,
        footprints_done=2,
        footprints_open=1,
        resources=7,
        fire_cards=2,
    )
    s = score(BOARD, t)
    assert s.cairn == 13
    assert s.engravings == BOARD.engravings[terrain].points
    assert s.skills == 7 + 3  # 11 and 10
    assert s.footprints == 2 * 6 - 3
    assert s.resources == 3  # 1 point per 2 tokens, rounded down
    assert s.fire_cards == 2 and s.cave == 0
    assert s.total == 13 + s.engravings + 10 + 9 + 3 + 2


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (CaveToken(id="c", scoring="skill_x2", terrain="forest"), 16),  # level 8 -> 16
        (CaveToken(id="c", scoring="lowest_skill_x3"), 15),  # lowest 5 -> 15
        (CaveToken(id="c", scoring="cairn_plus_10"), 24),
        (CaveToken(id="c", scoring="per_engraving_5"), 10),
        (CaveToken(id="c", scoring="bonus_icons_next_to_engravings_x3"), 9),
        (CaveToken(id="c", scoring="engraving_points_again"), 11),
        (CaveToken(id="c", scoring="per_footprint_card_5"), 15),
    ],
)
def test_every_cave_token_kind(token: CaveToken, expected: int) -> None:
    t = tally(
        skills={"mountain": 7, "ice": 6, "forest": 8, "swamp": 5},
        engravings=("ice", "forest"),
        icons_next_to_engravings=3,
        cairn_points=14,
        footprints_done=3,
    )
    assert cave_points(token, t, engraving_points=11) == expected


def test_without_a_cairn_the_cairn_token_still_gives_ten() -> None:
    assert cave_points(CaveToken(id="c", scoring="cairn_plus_10"), tally(), 0) == 10


def test_ties_go_to_the_higher_skill_total_then_are_shared() -> None:
    assert ranks([50, 50, 40], [30, 28, 40]) == [1, 2, 3]
    assert ranks([50, 50, 40], [30, 30, 40]) == [1, 1, 3]


def test_the_tie_break_names_how_a_tie_on_the_most_points_was_settled() -> None:
    assert tie_break([50, 48, 40], [30, 31, 40]) is None
    assert tie_break([50, 50, 40], [30, 28, 40]) == "skill_total"
    assert tie_break([50, 50, 40], [30, 30, 40]) == "shared"
    assert tie_break([40, 50, 50], [99, 30, 30]) == "shared"  # only the tied players count
    assert tie_break([50, 40, 40], [30, 28, 20]) is None  # a tie below the top is no tie-break


def test_solo_adds_eight_per_unused_clan_card_and_wins_at_80() -> None:
    assert solo(60, 2) == (76, False, "Good")
    assert solo(60, 3) == (84, True, "Very good")
    assert solo(39, 0) == (39, False, "Try again")
    assert solo(100, 0, variants=2) == (120, True, "You're from another era")


def test_a_negative_solo_total_is_a_lost_game_to_try_again() -> None:
    # "39 or fewer: Try again" covers every total below 40: -3 per open footprint card can
    # take a solo total below zero, and the game must still end with a result
    assert solo(-12, 0) == (-12, False, "Try again")
    assert solo(-8, 1) == (0, False, "Try again")
