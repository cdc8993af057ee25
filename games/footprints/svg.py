"""Draw a Footprints map as SVG: terrains, bonus icons, caves, houses, figures, creations.

What is drawn comes from the caller (one seat's view): nothing here knows a hidden card.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from xml.sax.saxutils import escape

from games.footprints.board import MapBoard, Pos
from games.footprints.content import (
    AnySkillBonus,
    Bonus,
    FireBonus,
    FootprintBonus,
    ResourceBonus,
    SkillBonus,
)

SIZE = 22.0  # hex radius, px
TERRAIN_FILL = {"mountain": "#9e9e9e", "ice": "#bfe3f5", "forest": "#2e7d32", "swamp": "#9ccc65"}
RESOURCE_MARK = {"stone": "St", "mammoth": "Ma", "wood": "Wo", "berries": "Be"}
SKILL_MARK = {"mountain": "+M", "ice": "+I", "forest": "+F", "swamp": "+S"}


def centre(pos: Pos) -> tuple[float, float]:
    r, c = pos
    w = math.sqrt(3) * SIZE
    return w * (c + 1.5 + 0.5 * (r & 1)), SIZE * (1.5 * r + 1.5)


def _hexagon(x: float, y: float) -> str:
    corners = (
        (
            x + SIZE * math.cos(math.radians(60 * i - 30)),
            y + SIZE * math.sin(math.radians(60 * i - 30)),
        )
        for i in range(6)
    )
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in corners)


def _mark(bonus: Bonus) -> str:
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


def render(
    board: MapBoard,
    figures: Mapping[Pos, str] | None = None,  # position -> player colour
    engravings: Mapping[Pos, str] | None = None,  # position -> builder's colour
    cave_tokens: Mapping[str, tuple[str, str | None]]
    | None = None,  # site -> (label, painter colour)
    title: str = "Footprints",
) -> str:
    figures = figures or {}
    engravings = engravings or {}
    cave_tokens = cave_tokens or {}
    rows = max(r for r, _ in board.places) + 1
    width = math.sqrt(3) * SIZE * (board.columns + 3)
    height = SIZE * (1.5 * rows + 2.5)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
    ]
    for pos, (house, side) in sorted(board.houses.items()):
        x, y = centre(pos)
        out.append(
            f'<polygon class="house" points="{_hexagon(x, y)}" fill="#8d6e63" stroke="#3e2723">'
            f"<title>{escape(house)} side {'AB'[side]}</title></polygon>"
        )
    for pos, place in sorted(board.places.items()):
        x, y = centre(pos)
        terrains = sorted(place.terrains)
        fill = TERRAIN_FILL[terrains[0]]
        stroke = ' stroke="#000" stroke-width="3"' if place.cairn else ' stroke="#fff"'
        label = "/".join(terrains) + (" cairn" if place.cairn else "")
        out.append(
            f'<polygon class="space" data-pos="{pos[0]},{pos[1]}" points="{_hexagon(x, y)}" '
            f'fill="{fill}"{stroke}><title>{escape(label)} {pos}</title></polygon>'
        )
        if place.bonus is not None:
            out.append(
                f'<text class="bonus" x="{x:.1f}" y="{y + 4:.1f}" font-size="10" '
                f'text-anchor="middle">{escape(_mark(place.bonus))}</text>'
            )
        if pos in engravings:
            out.append(
                f'<rect class="engraving" x="{x - 7:.1f}" y="{y - 7:.1f}" width="14" height="14" '
                f'fill="{escape(engravings[pos])}" stroke="#000"/>'
            )
    for site, cave in sorted(board.caves.items()):
        xs, ys = zip(*(centre(p) for p in cave.touches), strict=True)
        x, y = sum(xs) / len(xs), sum(ys) / len(ys)
        top = min(r for r, _ in cave.touches)
        above_free = all((top - 1, c) not in board.places for r, c in cave.touches if r == top)
        y += -SIZE if above_free else SIZE  # on the open edge of its tile
        label, painter = cave_tokens.get(site, ("", None))
        fill = escape(painter) if painter else "#5d4037"
        out.append(
            f'<circle class="cave" cx="{x:.1f}" cy="{y:.1f}" r="7" fill="{fill}" stroke="#000">'
            f"<title>{escape(site)} {escape(label)}</title></circle>"
        )
    for pos, colour in sorted(figures.items()):
        x, y = centre(pos)
        out.append(
            f'<circle class="figure" cx="{x:.1f}" cy="{y:.1f}" r="9" fill="{escape(colour)}" '
            f'stroke="#000" stroke-width="2"/>'
        )
    out.append("</svg>")
    return "\n".join(out)
