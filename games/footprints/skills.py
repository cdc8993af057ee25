"""Skill tracks: advancing a marker collects the bonus of every space it passes or stops on
(none on 10 and 11); a marker on 11 takes the track's resource for each advance instead."""

from __future__ import annotations

import msgspec

from games.footprints.content import SKILL_MAX, SKILL_START, Bonus, ResourceBonus, Track


class Advance(msgspec.Struct, frozen=True, kw_only=True):
    level: int
    bonuses: tuple[Bonus, ...]  # collected in order; skill bonuses among them chain on


def advance(track: Track, level: int, steps: int) -> Advance:
    if not SKILL_START <= level <= SKILL_MAX or steps < 0:
        raise ValueError(f"a marker sits on {SKILL_START}..{SKILL_MAX} and moves forward")
    bonuses: list[Bonus] = []
    for _ in range(steps):
        if level == SKILL_MAX:
            bonuses.append(ResourceBonus(resource=track.past_11))
            continue
        level += 1
        if level in track.bonuses:
            bonuses.append(track.bonuses[level])
    return Advance(level=level, bonuses=tuple(bonuses))


def back(level: int, steps: int = 1) -> int:
    """A fire card's cost: the marker moves back, collecting nothing (bonuses come again
    when it advances over those spaces later)."""
    return max(SKILL_START, level - steps)
