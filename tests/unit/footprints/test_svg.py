"""The SVG drawing of a map: one hexagon per space and what lies on it, readable without
hovering: the token kinds, both terrains of a cairn, the house bonuses, the cairn track and
a legend."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from games.footprints.board import Layout, assemble
from games.footprints.content import AnySkillBonus, ResourceBonus, load
from games.footprints.svg import TERRAIN_FILL, CaveMark, ink, render, token_mark
from tests.unit.footprints.rules_helpers import REAL, table

CONTENT = load()
NS = "{http://www.w3.org/2000/svg}"


def classes(root: ET.Element) -> dict[str, list[ET.Element]]:
    by: dict[str, list[ET.Element]] = {}
    for element in root.iter():
        for cls in (element.get("class") or "").split():
            by.setdefault(cls, []).append(element)
    return by


def test_the_map_is_drawn_space_by_space_with_figures_creations_and_caves() -> None:
    layout = Layout(
        tiles=tuple(CONTENT.map_tiles),
        turned=(True, False, True, False, True, False),
        houses=tuple((h, 1) for h in CONTENT.house_tiles),
    )
    board = assemble(CONTENT, layout)
    site, other = sorted(board.caves)[:2]
    svg = render(
        board,
        figures={(0, -1): "red", (3, 5): "blue"},
        engravings={(2, 2): "red"},
        caves={site: CaveMark("5/En", "blue")},
        houses={(0, -1): (AnySkillBonus(), ResourceBonus(resource="stone"))},
        cairn_track=["#1e88e5"],
        title="game <1>",
    )
    root = ET.fromstring(svg)  # well-formed, with the title escaped
    assert root.tag == f"{NS}svg" and root.find(f"{NS}title").text == "game <1>"  # type: ignore[union-attr]
    by = classes(root)
    assert len(by["space"]) == len(board.places) == 162
    assert len(by["house"]) == 6 and len(by["figure"]) == 2 and len(by["engraving"]) == 1
    # the cave in play shows its kind in text; the others are drawn apart, as out of play
    assert len(by["cave"]) == len(board.caves) and len(by["out"]) == len(board.caves) - 1
    assert [e.text for e in by["cave-label"]] == ["5/En"]
    assert [e.get("fill") for e in by["cave"] if "out" not in (e.get("class") or "")] == ["blue"]
    assert other in {(e.find(f"{NS}title").text or "").split(":")[0] for e in by["out"]}  # type: ignore[union-attr]
    assert len(by["bonus"]) == sum(1 for p in board.places.values() if p.bonus is not None)
    assert by["house-bonus"][0].text == "+? St"  # a house's bonuses, face up
    assert len(by["legend"]) == 1 and len(by["track"]) == 6
    assert by["track"][0].get("fill") == "#1e88e5" and by["track"][1].get("fill") == "#eeeeee"


def test_a_cairn_shows_both_its_terrains_and_text_reads_on_dark_terrain() -> None:
    board = assemble(
        CONTENT,
        Layout(
            tiles=tuple(sorted(CONTENT.map_tiles)),
            turned=(False,) * 6,
            houses=tuple((h, 0) for h in sorted(CONTENT.house_tiles)),
        ),
    )
    root = ET.fromstring(render(board))
    by = classes(root)
    halves = by["cairn-half"]
    assert len(halves) == 2 and len(by["cairn-mark"]) == 2
    firsts = {e.get("fill") for e in by["space"] if "cairn" in (e.find(f"{NS}title").text or "")}  # type: ignore[union-attr]
    assert {e.get("fill") for e in halves} | firsts == set(TERRAIN_FILL.values())
    assert ink(TERRAIN_FILL["forest"]) == "#fff" and ink(TERRAIN_FILL["ice"]) == "#000"
    forest = [e for e in by["bonus"] if e.get("fill") == "#fff"]
    assert forest  # bonuses on forest spaces are written in white
    assert all(e.get("fill") == "#000" for e in by["bonus"] if e not in forest)


def test_the_board_of_a_game_marks_its_caves_tokens_houses_and_track() -> None:
    state = table(3, players=[{"cave_site": "tile-5-cave-a"}, {}, {}], cairn_track=(2,))
    root = ET.fromstring(REAL.board_svg(state, 0))
    by = classes(root)
    tokens = {t: CONTENT.cave_tokens[t] for _, t in state.caves}
    assert sorted(e.text or "" for e in by["cave-label"]) == sorted(
        token_mark(t) for t in tokens.values()
    )
    assert len(by["out"]) == sum(len(t.caves) for t in CONTENT.map_tiles.values()) - len(
        state.caves
    )
    painted = [e for e in by["cave"] if e.get("fill") == "#e53935"]
    assert len(painted) == 1  # seat 0's colour on the token it painted
    assert len(by["house-bonus"]) == 6 and all(e.text for e in by["house-bonus"])
    assert by["track"][0].get("fill") == "#fdd835"  # seat 2 first on the cairn track
    assert token_mark(CONTENT.cave_tokens["cave-01"]) == "2xM"


def test_a_games_board_draws_each_seats_figure_and_engravings_in_its_own_colour() -> None:
    """Six seats, each with its figure on the map and seat 1 with an engraving: each figure
    in its seat's colour (six distinct), the engraving in its builder's, the track's points
    the content's; the title names the seat the drawing is for."""
    colours = ["#e53935", "#1e88e5", "#fdd835", "#8e24aa", "#fb8c00", "#00897b"]
    at = [(s, 3 + s) for s in range(6)]
    state = table(6, players=[{"position": p} for p in at], engraved=(((4, 9), 1, "ice"),))
    root = ET.fromstring(REAL.board_svg(state, 2))
    by = classes(root)
    assert root.find(f"{NS}title").text == "Footprints, seat 2"  # type: ignore[union-attr]
    drawn = sorted((float(e.get("cx") or 0), e.get("fill")) for e in by["figure"])
    assert [fill for _, fill in drawn] == colours  # left to right, seat by seat
    assert [e.get("fill") for e in by["engraving"]] == ["#1e88e5"]
    points = [e.text for e in by["track-points"]]
    assert points == [str(p) for p in REAL.content.cairn_tile.track]
    shown = ET.fromstring(REAL.board_svg(state, None)).find(f"{NS}title")
    assert shown is not None and shown.text == "Footprints"


def test_the_map_without_its_pieces_is_the_map_as_set_up() -> None:
    """`pieces=False` draws the map as set up, whatever stands on it (a client fetches it once
    a game and draws the pieces itself): no figure, engraving, painting or arrival, every cave
    token still marked, and each cave and track slot named for the client's pieces."""
    moved = table(
        3,
        players=[{"position": (2, 3), "cave_site": "tile-5-cave-a"}, {"position": (4, 5)}, {}],
        engraved=(((4, 9), 1, "ice"),),
        cairn_track=(2, 0),
    )
    bare = REAL.board_svg(moved, 0, pieces=False)
    assert bare == REAL.board_svg(table(3), 0, pieces=False)  # the same at any point of a game
    by = classes(ET.fromstring(bare))
    assert "figure" not in by and "engraving" not in by
    in_play = [e for e in by["cave"] if e.get("class") == "cave"]
    assert {e.get("fill") for e in in_play} == {"#5d4037"}  # nobody's colour
    assert {e.get("fill") for e in by["track"]} == {"#eeeeee"}
    assert sorted(e.text or "" for e in by["cave-label"]) == sorted(
        token_mark(CONTENT.cave_tokens[t]) for _, t in moved.caves
    )
    assert [e.get("data-slot") for e in by["track"]] == [str(i) for i in range(len(by["track"]))]
    sites = {e.get("data-site") for e in by["cave"]}
    assert sites == {site.id for t in CONTENT.map_tiles.values() for site in t.caves}
    # with the pieces, the same map and what stands on it
    full = classes(ET.fromstring(REAL.board_svg(moved, 0)))
    assert len(full["figure"]) == sum(1 for p in moved.players if p.position) >= 2
    assert len(full["engraving"]) == 1
    assert [e.get("fill") for e in full["track"]][:2] == ["#fdd835", "#e53935"]
