"""The SVG drawing of a map: one hexagon per space, and what lies on it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from games.footprints.board import Layout, assemble
from games.footprints.content import load
from games.footprints.svg import render

CONTENT = load()
NS = "{http://www.w3.org/2000/svg}"


def test_the_map_is_drawn_space_by_space_with_figures_creations_and_caves() -> None:
    layout = Layout(
        tiles=tuple(CONTENT.map_tiles),
        turned=(True, False, True, False, True, False),
        houses=tuple((h, 1) for h in CONTENT.house_tiles),
    )
    board = assemble(CONTENT, layout)
    site = sorted(board.caves)[0]
    svg = render(
        board,
        figures={(0, -1): "red", (3, 5): "blue"},
        engravings={(2, 2): "red"},
        cave_tokens={site: ("5 per engraving", "blue")},
        title="game <1>",
    )
    root = ET.fromstring(svg)  # well-formed, with the title escaped
    assert root.tag == f"{NS}svg" and root.find(f"{NS}title").text == "game <1>"
    by_class: dict[str, int] = {}
    for element in root:
        cls = element.get("class")
        if cls:
            by_class[cls] = by_class.get(cls, 0) + 1
    assert by_class["space"] == len(board.places) == 162
    assert by_class["house"] == 6 and by_class["figure"] == 2 and by_class["engraving"] == 1
    assert by_class["cave"] == len(board.caves)
    assert by_class["bonus"] == sum(1 for p in board.places.values() if p.bonus is not None)
    painted = [e for e in root if e.get("class") == "cave" and e.get("fill") == "blue"]
    assert len(painted) == 1
