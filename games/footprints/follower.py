"""A follower's top or bottom action: step 2 of a turn (turn.py:act), and the Chieftain's
replay of a played follower (leaders.py:replay)."""

from __future__ import annotations

from games.footprints.content import Follower, Terrain
from games.footprints.model import Action, Bottom, Top
from games.footprints.table import Table, illegal


def follower_action(
    t: Table, seat: int, card: Follower, action: Action, fire: str | None, any_skill: list[Terrain]
) -> None:
    match action:
        case Top(path=path, fire_at=fire_at, fire_path=fire_path):
            t.move_top(
                seat, card.terrain, 0, card.extra_move, path, fire, fire_at, fire_path, any_skill
            )
        case Bottom(to=to, fire_at=fire_at, fire_path=fire_path, fire_during=during):
            if during is not None and t.state.rules < 2:
                raise illegal(
                    "bad_fire_timing",
                    "under rules version 1 a fire card is used before or after a bottom action",
                )
            t.move_bottom(
                seat,
                card.terrain,
                card.extra_advance,
                to,
                fire,
                fire_at,
                fire_path,
                any_skill,
                during,
            )
        case _:
            raise illegal("not_now", f"{type(action).__name__} is not step 2")
