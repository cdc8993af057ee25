"""The assembled map as a client reads it (`views.AssembledMap`): every space with its
terrains, bonus, caves and neighbours, the houses and the cave sites, read off the engine's
own `MapBoard`, so a client's map cannot differ from the one moves are checked on."""

from __future__ import annotations

from collections.abc import Mapping

from games.footprints.board import MapBoard, entry
from games.footprints.content import TERRAINS, Content
from games.footprints.views import AssembledMap, MapCave, MapHouse, MapSpace, SpaceCave


def assembled_map(
    content: Content, board: MapBoard, tokens: Mapping[str, str], snake: bool
) -> AssembledMap:
    """`tokens`: the cave token on each cave site in play (all face up)."""
    caves = sorted(board.caves.values(), key=lambda cave: (cave.tile, cave.id))
    spaces = [
        MapSpace(
            at=pos,
            terrains=[t for t in TERRAINS if t in place.terrains],
            bonus=place.bonus,
            cairn=place.cairn,
            tile=place.tile,
            caves=[SpaceCave(site=c.id, token=tokens.get(c.id)) for c in caves if pos in c.touches],
            neighbours=sorted(board.adjacent(pos)),
        )
        for pos, place in sorted(board.places.items())
    ]
    houses = [
        MapHouse(
            at=pos,
            tile=tile,
            side=side,
            bonuses=list(content.house_tiles[tile].sides[side]),
            entry=entry(pos),
        )
        for pos, (tile, side) in sorted(board.houses.items())
    ]
    return AssembledMap(
        snake=snake,
        rows=max(r for r, _ in board.places) + 1,
        columns=board.columns,
        spaces=spaces,
        houses=houses,
        caves=[
            MapCave(
                site=c.id,
                tile=c.tile,
                touches=sorted(c.touches),
                spot=c.spot,
                token=tokens.get(c.id),
            )
            for c in caves
        ],
        cairn_track=list(content.cairn_tile.track),
    )
