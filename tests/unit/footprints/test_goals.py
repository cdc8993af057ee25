"""Footprint card goals, one per kind, and whole cards."""

from __future__ import annotations

from typing import Any

from games.footprints.content import (
    CavePaintingGoal,
    EngravingGoal,
    FootprintCard,
    ResourceGoal,
    SkillGoal,
    SkillsTotalGoal,
    load,
)
from games.footprints.goals import Facts, complete, met


def facts(**kw: Any) -> Facts:
    base: dict[str, Any] = dict(
        skills={"mountain": 2, "ice": 2, "forest": 2, "swamp": 2},
        resources={},
        engravings=(),
        cave_painting=False,
    )
    return Facts(**{**base, **kw})


def test_each_goal_kind() -> None:
    assert met(EngravingGoal(terrain="forest"), facts(engravings=("forest",)))
    assert not met(EngravingGoal(terrain="forest"), facts(engravings=("ice",)))
    assert met(CavePaintingGoal(), facts(cave_painting=True))
    assert not met(CavePaintingGoal(), facts())
    assert met(ResourceGoal(resource="wood", count=2), facts(resources={"wood": 3}))
    assert not met(ResourceGoal(resource="wood", count=2), facts(resources={"stone": 5}))
    six = {"mountain": 2, "ice": 6, "forest": 9, "swamp": 2}
    assert met(SkillGoal(terrain="ice", level=6), facts(skills=six))
    assert not met(SkillGoal(terrain="ice", level=7), facts(skills=six))
    assert met(SkillsTotalGoal(terrains=("ice", "forest"), total=15), facts(skills=six))
    assert not met(SkillsTotalGoal(terrains=("ice", "swamp"), total=15), facts(skills=six))


def test_romans_card_needs_every_goal_at_once() -> None:
    # "built an engraving in the forest, and his dark green and light blue markers on 6+"
    roman = load().footprint_cards["footprint-01"]
    done = facts(skills={"mountain": 2, "ice": 6, "forest": 6, "swamp": 2}, engravings=("forest",))
    assert complete(roman, done)
    assert not complete(roman, facts(skills=done.skills))
    assert not complete(FootprintCard(id="x", goals=(CavePaintingGoal(), *roman.goals)), done)
