"""Final scoring in every category of the rulebook, the tie-breaks, and the solo table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from games.footprints.content import (
    FOOTPRINT_COMPLETED,
    FOOTPRINT_INCOMPLETE,
    Board,
    CaveToken,
    Terrain,
)

SKILL_POINTS = {10: 3, 11: 7}
SOLO_PER_UNUSED_CARD = 8
SOLO_WIN = 80
SOLO_PER_VARIANT = 10
SOLO_ACHIEVEMENTS = (
    (120, "You're from another era"),
    (110, "Excellent"),
    (100, "Amazing"),
    (90, "Impressive"),
    (80, "Very good"),
    (70, "Good"),
    (60, "Pretty good"),
    (50, "Getting there"),
    (40, "You can do better"),
)
SOLO_LOWEST = "Try again"  # "39 or fewer": every total below 40, negative ones too


class Tally(msgspec.Struct, frozen=True, kw_only=True):
    """What a player ends the game with, as far as scoring is concerned."""

    skills: Mapping[Terrain, int]
    engravings: Sequence[Terrain]  # terrains of the engravings built
    icons_next_to_engravings: int  # bonus icons on spaces next to them (occupied or not)
    cave_token: CaveToken | None  # the token under this player's cave painting
    cairn_points: int | None  # from the cairn track, if the figure reached a cairn
    footprints_done: int
    footprints_open: int
    resources: int  # tokens worth 1 each, all kinds together
    fire_cards: int


class Score(msgspec.Struct, frozen=True, kw_only=True):
    cairn: int
    engravings: int
    skills: int
    footprints: int
    cave: int
    resources: int
    fire_cards: int
    total: int


def cave_points(token: CaveToken, t: Tally, engraving_points: int) -> int:
    match token.scoring:
        case "skill_x2":
            assert token.terrain is not None
            return 2 * t.skills[token.terrain]
        case "lowest_skill_x3":
            return 3 * min(t.skills.values())
        case "cairn_plus_10":
            return 10 + (t.cairn_points or 0)
        case "per_engraving_5":
            return 5 * len(t.engravings)
        case "bonus_icons_next_to_engravings_x3":
            return 3 * t.icons_next_to_engravings
        case "engraving_points_again":
            return engraving_points
        case "per_footprint_card_5":
            return 5 * t.footprints_done
    raise ValueError(f"no scoring for {token.scoring!r}")


def score(board: Board, t: Tally) -> Score:
    engravings = sum(board.engravings[terrain].points for terrain in t.engravings)
    parts = {
        "cairn": t.cairn_points or 0,
        "engravings": engravings,
        "skills": sum(SKILL_POINTS.get(level, 0) for level in t.skills.values()),
        "footprints": FOOTPRINT_COMPLETED * t.footprints_done
        + FOOTPRINT_INCOMPLETE * t.footprints_open,
        "cave": cave_points(t.cave_token, t, engravings) if t.cave_token else 0,
        "resources": t.resources // 2,
        "fire_cards": t.fire_cards,
    }
    return Score(**parts, total=sum(parts.values()))


def ranks(totals: Sequence[int], skill_totals: Sequence[int]) -> list[int]:
    """Most points wins; a tie goes to the higher combined skill total; then it is shared."""
    keys = list(zip(totals, skill_totals, strict=True))
    return [1 + sum(other > key for other in keys) for key in keys]


def tie_break(totals: Sequence[int], skill_totals: Sequence[int]) -> str | None:
    """How a tie on the most points was settled: "skill_total" when the higher combined
    skill total made one winner, "shared" when that was tied too; None without a tie."""
    best = max(totals)
    tied = [s for s, total in enumerate(totals) if total == best]
    if len(tied) < 2:
        return None
    top = max(skill_totals[s] for s in tied)
    return "skill_total" if sum(skill_totals[s] == top for s in tied) == 1 else "shared"


def solo(total: int, unused_clan_cards: int, variants: int = 0) -> tuple[int, bool, str]:
    """Solo mode: +8 per unused clan card, +10 per variant; 80 or more wins."""
    final = total + SOLO_PER_UNUSED_CARD * unused_clan_cards + SOLO_PER_VARIANT * variants
    title = next((name for floor, name in SOLO_ACHIEVEMENTS if final >= floor), SOLO_LOWEST)
    return final, final >= SOLO_WIN, title
