"""Footprint card goals: which are met by what a player has built, owns and reached."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from games.footprints.content import (
    CavePaintingGoal,
    EngravingGoal,
    FootprintCard,
    Goal,
    ResourceGoal,
    SkillGoal,
    SkillsTotalGoal,
    Terrain,
)


class Facts(msgspec.Struct, frozen=True, kw_only=True):
    skills: Mapping[Terrain, int]
    resources: Mapping[str, int]  # units of each kind (a token worth 3 is 3)
    engravings: Sequence[Terrain]  # terrains of the engravings built
    cave_painting: bool


def met(goal: Goal, facts: Facts) -> bool:
    match goal:
        case EngravingGoal(terrain=terrain):
            return terrain in facts.engravings
        case CavePaintingGoal():
            return facts.cave_painting
        case ResourceGoal(resource=resource, count=count):
            return facts.resources.get(resource, 0) >= count
        case SkillGoal(terrain=terrain, level=level):
            return facts.skills[terrain] >= level
        case SkillsTotalGoal(terrains=(a, b), total=total):
            return facts.skills[a] + facts.skills[b] >= total
    raise ValueError(f"unknown goal {goal!r}")


def complete(card: FootprintCard, facts: Facts) -> bool:
    """All goals met at once: the card may be flipped (at any point of its owner's turn).
    What was counted stays usable afterwards: resources may be paid, markers moved back."""
    return all(met(goal, facts) for goal in card.goals)
