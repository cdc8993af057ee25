"""What bonuses, skill advances and fire card costs do to one player's skills and resources,
as plain arithmetic: the table emits an event per change, the legal-action lister only
compares the results.

Cards earned (fire, footprint) are counted, not drawn: the table draws them once the move
is done (`Table.settle`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, NamedTuple

from games.footprints.content import (
    RESOURCES,
    SKILL_START,
    TERRAINS,
    AnySkillBonus,
    Bonus,
    Effect,
    FireBonus,
    FootprintBonus,
    Give,
    ResourceBonus,
    SkillBack,
    SkillBonus,
    Terrain,
    Track,
)
from games.footprints.skills import advance as climb

Four = tuple[int, int, int, int]
# one change, in order: ("skill", terrain, new level), ("back", terrain, new level),
# ("resource", resource, change)
Change = tuple[Literal["skill", "back", "resource"], str, int]


class Ledger(NamedTuple):
    skills: Four
    resources: Four
    fire: int = 0  # fire cards earned, to draw
    footprints: int = 0  # footprint cards earned, to draw


class Unaffordable(ValueError):
    """A fire card's cost that cannot be paid."""


class Undecided(LookupError):
    """An "any skill" bonus with no choice left, when the default is not wanted."""


def _set(values: Four, index: int, value: int) -> Four:
    a, b, c, d = values
    if index == 0:
        return (value, b, c, d)
    if index == 1:
        return (a, value, c, d)
    return (a, b, value, d) if index == 2 else (a, b, c, value)


def lowest(skills: Four) -> Terrain:
    """The default of an "any skill" bonus: the lowest skill, mountain first on a tie."""
    return TERRAINS[skills.index(min(skills))]


def advance(
    tracks: Mapping[Terrain, Track],
    led: Ledger,
    terrain: Terrain,
    steps: int,
    log: list[Change] | None = None,
) -> tuple[Ledger, list[Bonus]]:
    """A marker moved `steps` spaces on: the new ledger and the bonuses it passed."""
    i = TERRAINS.index(terrain)
    moved = climb(tracks[terrain], led.skills[i], steps)
    if moved.level != led.skills[i]:
        led = Ledger(_set(led.skills, i, moved.level), led.resources, led.fire, led.footprints)
        if log is not None:
            log.append(("skill", terrain, moved.level))
    return led, list(moved.bonuses)


def gain(
    tracks: Mapping[Terrain, Track],
    led: Ledger,
    bonuses: Iterable[Bonus],
    any_skill: list[Terrain],
    log: list[Change] | None = None,
    strict: bool = False,
) -> Ledger:
    """Collect in order; a skill advance's own bonuses come right after it. An "any skill"
    bonus takes the next of `any_skill` (consumed), else the lowest skill (or, `strict`,
    raises Undecided)."""
    queue = list(bonuses)
    while queue:
        bonus = queue.pop(0)
        match bonus:
            case ResourceBonus(resource=resource):
                i = RESOURCES.index(resource)
                stock = _set(led.resources, i, led.resources[i] + 1)
                led = Ledger(led.skills, stock, led.fire, led.footprints)
                if log is not None:
                    log.append(("resource", resource, 1))
            case SkillBonus(terrain=terrain):
                led, more = advance(tracks, led, terrain, 1, log)
                queue[0:0] = more
            case AnySkillBonus():
                if not any_skill and strict:
                    raise Undecided("an any-skill bonus needs a choice")
                terrain = any_skill.pop(0) if any_skill else lowest(led.skills)
                led, more = advance(tracks, led, terrain, 1, log)
                queue[0:0] = more
            case FireBonus():
                led = Ledger(led.skills, led.resources, led.fire + 1, led.footprints)
            case FootprintBonus():
                led = Ledger(led.skills, led.resources, led.fire, led.footprints + 1)
    return led


def pay_costs(led: Ledger, effects: Iterable[Effect], log: list[Change] | None = None) -> Ledger:
    """A fire card's costs: give up a resource, move a marker back (never below 2)."""
    for effect in effects:
        match effect:
            case Give(resource=resource):
                i = RESOURCES.index(resource)
                if led.resources[i] < 1:
                    raise Unaffordable(f"this fire card costs 1 {resource}")
                led = led._replace(resources=_set(led.resources, i, led.resources[i] - 1))
                if log is not None:
                    log.append(("resource", resource, -1))
            case SkillBack(terrain=terrain):
                i = TERRAINS.index(terrain)
                if led.skills[i] <= SKILL_START:
                    raise Unaffordable(f"your {terrain} marker cannot move back")
                led = led._replace(skills=_set(led.skills, i, led.skills[i] - 1))
                if log is not None:
                    log.append(("back", terrain, led.skills[i]))
    return led


def fire_gains(effects: Iterable[Effect]) -> list[Bonus]:
    """A fire card's gains, in the card's order (its move and its both-actions are not)."""
    return [
        e
        for e in effects
        if isinstance(e, ResourceBonus | SkillBonus | AnySkillBonus | FireBonus | FootprintBonus)
    ]


def use_fire(
    tracks: Mapping[Terrain, Track],
    led: Ledger,
    effects: Iterable[Effect],
    any_skill: list[Terrain],
    log: list[Change] | None = None,
    strict: bool = False,
) -> Ledger:
    """A fire card activated: its costs, then its gains."""
    effects = list(effects)
    led = pay_costs(led, effects, log)
    return gain(tracks, led, fire_gains(effects), any_skill, log, strict)
