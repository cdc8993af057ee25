"""Draw a Footprints map as SVG: terrains (both of a cairn), bonus icons, the houses and
their bonuses, cave sites (those in play with their token's kind, apart from those out of
play), figures, engravings, the cairn track, and a legend for all of it.

What is drawn comes from the caller (one seat's view): nothing here knows a hidden card.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from xml.sax.saxutils import escape

from games.footprints.board import MapBoard, Pos
from games.footprints.content import (
    AnySkillBonus,
    Bonus,
    CaveToken,
    FireBonus,
    FootprintBonus,
    ResourceBonus,
    SkillBonus,
)

SIZE = 22.0  # hex radius, px
TERRAIN_FILL = {"mountain": "#9e9e9e", "ice": "#bfe3f5", "forest": "#2e7d32", "swamp": "#9ccc65"}
HOUSE_FILL = "#8d6e63"
RESOURCE_MARK = {"stone": "St", "mammoth": "Ma", "wood": "Wo", "berries": "Be"}
SKILL_MARK = {"mountain": "+M", "ice": "+I", "forest": "+F", "swamp": "+S"}
TOKEN_MARK = {
    "skill_x2": "2x",  # then the terrain's letter
    "lowest_skill_x3": "3xlow",
    "cairn_plus_10": "10+C",
    "per_engraving_5": "5/En",
    "bonus_icons_next_to_engravings_x3": "3/ic",
    "engraving_points_again": "Enx2",
    "per_footprint_card_5": "5/Fp",
}
LEGEND = (
    ("St Ma Wo Be", "a stone, mammoth, wood, berries token"),
    ("+M +I +F +S", "advance that skill marker (mountain, ice, forest, swamp)"),
    ("+?", "advance any skill marker"),
    ("Fi / Fp", "take a fire card / a footprint card"),
    ("2xM 3xlow", "cave: 2 x that skill / 3 x your lowest skill"),
    ("10+C 5/En", "cave: 10 + your cairn points / 5 per engraving"),
    ("3/ic Enx2 5/Fp", "cave: 3 per icon by your engravings / engravings again / 5 per card"),
    ("dashed cave", "a cave site out of play"),
)


class CaveMark(NamedTuple):
    """A cave token in play: its kind, and the colour of whoever painted over it."""

    label: str
    painter: str | None = None


def token_mark(token: CaveToken) -> str:
    """A token's kind in a few letters (the legend says what each means)."""
    mark = TOKEN_MARK[token.scoring]
    return mark + (token.terrain[0].upper() if token.terrain else "")


def centre(pos: Pos) -> tuple[float, float]:
    """Where a space is drawn; a row of margin above the map for the top edge's caves."""
    r, c = pos
    w = math.sqrt(3) * SIZE
    return w * (c + 1.5 + 0.5 * (r & 1)), SIZE * (1.5 * r + 3)


def ink(fill: str) -> str:
    """Black or white text, whichever reads better on `fill` (#rrggbb)."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    light = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    return "#000" if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "#fff"


def _corners(x: float, y: float) -> list[tuple[float, float]]:
    return [
        (
            x + SIZE * math.cos(math.radians(60 * i - 30)),
            y + SIZE * math.sin(math.radians(60 * i - 30)),
        )
        for i in range(6)
    ]


def _points(corners: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in corners)


def mark(bonus: Bonus) -> str:
    match bonus:
        case ResourceBonus(resource=resource):
            return RESOURCE_MARK[resource]
        case SkillBonus(terrain=terrain):
            return SKILL_MARK[terrain]
        case AnySkillBonus():
            return "+?"
        case FireBonus():
            return "Fi"
        case FootprintBonus():
            return "Fp"
    return "?"


def _text(x: float, y: float, text: str, cls: str, fill: str, size: int = 10) -> str:
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" '
        f'text-anchor="middle">{escape(text)}</text>'
    )


def render(
    board: MapBoard,
    figures: Mapping[Pos, str] | None = None,  # position -> player colour
    engravings: Mapping[Pos, str] | None = None,  # position -> builder's colour
    caves: Mapping[str, CaveMark] | None = None,  # the sites in play
    houses: Mapping[Pos, Sequence[Bonus]] | None = None,  # each house's bonuses, face up
    cairn_track: Sequence[str] = (),  # the colours of the figures there, in arrival order
    track_points: Sequence[int] = (15, 14, 13, 12, 11, 10),
    title: str = "Footprints",
) -> str:
    """The map with what is on it. Every cave circle carries its `data-site` and every slot of
    the cairn track its `data-slot`, so that a client may draw the pieces itself over the map
    drawn without them (fixed for the whole game, fetched once)."""
    caves = caves or {}
    figures = figures or {}
    engravings = engravings or {}
    houses = houses or {}
    rows = max(r for r, _ in board.places) + 1
    width = max(math.sqrt(3) * SIZE * (board.columns + 3), 620.0)
    top = SIZE * (1.5 * rows + 4.5)
    height = top + 40 + 52 + 16 * len(LEGEND)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
    ]
    for pos, (house, side) in sorted(board.houses.items()):
        x, y = centre(pos)
        out.append(
            f'<polygon class="house" points="{_points(_corners(x, y))}" fill="{HOUSE_FILL}" '
            f'stroke="#3e2723"><title>{escape(house)} side {"AB"[side]}</title></polygon>'
        )
        label = " ".join(mark(b) for b in houses.get(pos, ()))
        out.append(_text(x, y + 4, label, "house-bonus", ink(HOUSE_FILL), 9))
    for pos, place in sorted(board.places.items()):
        out += _space(pos, place.terrains, place.bonus, place.cairn)
        if pos in engravings:
            x, y = centre(pos)
            out.append(
                f'<rect class="engraving" x="{x - 7:.1f}" y="{y - 13:.1f}" width="14" '
                f'height="9" fill="{escape(engravings[pos])}" stroke="#000"/>'
            )
    for site, cave in sorted(board.caves.items()):
        x, y = centre(cave.spot)
        found = caves.get(site)
        if found is None:
            out.append(
                f'<circle class="cave out" data-site="{escape(site)}" cx="{x:.1f}" cy="{y:.1f}" '
                f'r="7" fill="none" '
                f'stroke="#8d8d8d" stroke-dasharray="2,2"><title>{escape(site)}: out of play'
                "</title></circle>"
            )
            continue
        fill = escape(found.painter) if found.painter else "#5d4037"
        out.append(
            f'<circle class="cave" data-site="{escape(site)}" cx="{x:.1f}" cy="{y:.1f}" r="13" '
            f'fill="{fill}" '
            f'stroke="#000"><title>{escape(site)}: {escape(found.label)}</title></circle>'
        )
        out.append(_text(x, y + 3, found.label, "cave-label", "#fff", 8))
    for pos, colour in sorted(figures.items()):
        x, y = centre(pos)
        out.append(
            f'<circle class="figure" cx="{x:.1f}" cy="{y + 8:.1f}" r="7" '
            f'fill="{escape(colour)}" stroke="#000" stroke-width="2"/>'
        )
    out += _track(top, cairn_track, track_points)
    out += _legend(top + 40)
    out.append("</svg>")
    return "\n".join(out)


def _space(pos: Pos, terrains: frozenset[str], bonus: Bonus | None, cairn: bool) -> list[str]:
    x, y = centre(pos)
    corners = _corners(x, y)
    kinds = sorted(terrains)
    stroke = ' stroke="#000" stroke-width="3"' if cairn else ' stroke="#fff"'
    label = "/".join(kinds) + (" cairn" if cairn else "")
    out = [
        f'<polygon class="space" data-pos="{pos[0]},{pos[1]}" points="{_points(corners)}" '
        f'fill="{TERRAIN_FILL[kinds[0]]}"{stroke}><title>{escape(label)} {pos}</title></polygon>'
    ]
    if len(kinds) > 1:  # a cairn counts as both terrains: its right half in the second
        half = [corners[5], corners[0], corners[1], corners[2]]
        out.append(
            f'<polygon class="cairn-half" points="{_points(half)}" '
            f'fill="{TERRAIN_FILL[kinds[1]]}" stroke="none"/>'
        )
    if cairn:
        out.append(_text(x, y + 4, "cairn", "cairn-mark", "#000", 9))
    if bonus is not None:
        out.append(_text(x, y + 4, mark(bonus), "bonus", ink(TERRAIN_FILL[kinds[0]])))
    return out


def _track(top: float, arrivals: Sequence[str], points: Sequence[int]) -> list[str]:
    out = [_text(40, top + 14, "cairn track", "track-name", "#000", 10)]
    for i, value in enumerate(points):
        x = 80 + 34 * i
        fill = arrivals[i] if i < len(arrivals) else "#eeeeee"
        out.append(
            f'<rect class="track" data-slot="{i}" x="{x:.1f}" y="{top:.1f}" width="30" height="20" '
            f'fill="{escape(fill)}" stroke="#000"><title>{value} points</title></rect>'
        )
        out.append(_text(x + 15, top + 14, str(value), "track-points", ink(_hex(fill)), 10))
    return out


def _hex(colour: str) -> str:
    return colour if colour.startswith("#") and len(colour) == 7 else "#ffffff"


def _legend(top: float) -> list[str]:
    out = ['<g class="legend">']
    for i, (terrain, fill) in enumerate(TERRAIN_FILL.items()):
        x = 20 + 110 * i
        out.append(f'<rect x="{x}" y="{top:.1f}" width="14" height="14" fill="{fill}"/>')
        out.append(f'<text x="{x + 18}" y="{top + 11:.1f}" font-size="10">{escape(terrain)}</text>')
    y = top + 20
    out.append(
        f'<text x="20" y="{y + 11:.1f}" font-size="10">circle on a space: a figure; '
        "square: an engraving (the builder's colour); brown disc: a cave token in play "
        "(a player's colour once painted)</text>"
    )
    for i, (code, meaning) in enumerate(LEGEND):
        y = top + 52 + 16 * i
        out.append(
            f'<text x="20" y="{y:.1f}" font-size="10" font-weight="bold">{escape(code)}</text>'
        )
        out.append(f'<text x="120" y="{y:.1f}" font-size="10">{escape(meaning)}</text>')
    out.append("</g>")
    return out
