"""Shared helpers for the Footprints rule tests (tests/unit/footprints/test_rules_*.py).

Positions are built by folding `setup` with a seeded Random, then crafted with
`msgspec.structs.replace` (`table` checks every crafted position conserves the cards).
Crafted positions use one fixed map: the six tiles in id order, none turned, house tile
`house-(r+1)` on side A in row r. Its spaces are named below (row, column); odd rows are
shifted right by half a space (games/footprints/board.py). Draws are made in `decide` from
the Random it is given: `Picks` scripts which card comes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from random import Random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from games.api import IllegalAction, fold
from games.footprints.content import RESOURCES, TERRAINS
from games.footprints.events import Event
from games.footprints.model import Options, Play
from games.footprints.rules import Footprints
from games.footprints.state import Player, State, Turn
from games.footprints.table import board_of
from games.testing import check_conservation

REAL = Footprints()
C = REAL.content
NONE = Options()
TILES = tuple(sorted(C.map_tiles))
TURNED = (False,) * 6
HOUSES = tuple((house, 0) for house in sorted(C.house_tiles))
# the cave sites of the four tiles nearest the cairn, each with a token in id order
CAVES = (
    ("tile-3-cave-a", "cave-01"),
    ("tile-3-cave-b", "cave-02"),
    ("tile-4-cave-a", "cave-03"),
    ("tile-5-cave-a", "cave-04"),
    ("tile-5-cave-b", "cave-05"),
    ("tile-6-cave-a", "cave-06"),
    ("tile-6-cave-b", "cave-07"),
)
CAIRN_MI, CAIRN_FS = (1, 26), (4, 26)  # mountain+ice, forest+swamp


class Picks(Random):
    """A seeded Random whose `choice` returns the scripted values in order, when offered;
    otherwise the first choice (so crafted positions play out exactly)."""

    def __init__(self, *picks: Any) -> None:
        super().__init__(0)
        self.picks = list(picks)

    def choice(self, seq: Any) -> Any:
        if self.picks and self.picks[0] in seq:
            return self.picks.pop(0)
        return seq[0]


def set_up(seats: int = 2, seed: int = 0, options: Options = NONE) -> tuple[list[Event], State]:
    events = REAL.setup(options, seats, Random(seed))
    return events, fold(REAL, events)


def play(
    state: State, seat: int, action: Any, rng: Random | None = None
) -> tuple[list[Event], State]:
    events = REAL.decide(state, seat, action, rng or Picks())
    return events, fold(REAL, events, state)


def run(state: State, seat: int, *actions: Any) -> tuple[list[Event], State]:
    """Several actions of one seat in a row; all their events."""
    out: list[Event] = []
    for action in actions:
        events, state = play(state, seat, action)
        out += events
    return out, state


def refusal(state: State, seat: int, action: Any) -> tuple[str, str]:
    """The refusal's code and the reason a player reads (never empty)."""
    with pytest.raises(IllegalAction) as err:
        REAL.decide(state, seat, action, Picks())
    assert isinstance(err.value.message, str) and err.value.message.strip(), err.value.code
    return err.value.code, err.value.message


def refused(state: State, seat: int, action: Any) -> str:
    """The refusal's code (and it has a reason to show)."""
    return refusal(state, seat, action)[0]


def of(kind: type, events: Sequence[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def follower(clan: str, n: int) -> str:
    return f"{clan}-f{n:02d}"


def leader(clan: str, ab: str = "a") -> str:
    return f"{clan}-leader-{ab}"


def terrains(**levels: int) -> tuple[int, int, int, int]:
    """Skill levels by terrain name; 2 for the others."""
    return tuple(levels.get(t, 2) for t in TERRAINS)  # type: ignore[return-value]


def goods(**counts: int) -> tuple[int, int, int, int]:
    """Resources by name; 0 for the others."""
    return tuple(counts.get(r, 0) for r in RESOURCES)  # type: ignore[return-value]


def player(clan: str, **fields: Any) -> Player:
    """A player of `clan` with followers 1-4 on the panel, 5-11 and leader A on top of the
    deck, 12-13 below, and anything in `fields` instead."""
    f = [follower(clan, n) for n in range(1, 14)]
    base: dict[str, Any] = {
        "clan": clan,
        "panel": tuple(f[:4]),
        "deck_top": (*f[4:11], leader(clan)),
        "deck_bottom": tuple(f[11:]),
        "leader": leader(clan),
    }
    return Player(**{**base, **fields})


def table(
    seats: int = 2,
    *,
    players: Sequence[Mapping[str, Any]] = (),
    clans: Sequence[str] | None = None,
    current: int = 0,
    options: Options = NONE,
    fire_discard: Iterable[str] = (),
    footprint_discard: Iterable[str] = (),
    turn: Mapping[str, Any] | None = None,
    **fields: Any,
) -> State:
    """A crafted position on the fixed map, at the start of `current`'s turn. Seat s plays
    clan `clans[s]` (clan-1, clan-2, ... by default) from house row s unless `players[s]`
    says otherwise. Fire and footprint cards not placed lie in their decks."""
    base = set_up(seats, 0, options)[1]
    clans = clans or [f"clan-{s + 1}" for s in range(seats)]
    made = []
    for s in range(seats):
        given = dict(players[s]) if s < len(players) else {}
        given.setdefault("position", (s, -1))
        made.append(player(clans[s], **given))
    turn_fields = dict(turn or {})
    fire = turn_fields.get("fire")
    in_hands = {c for p in made for c in p.fire_hand} | set(fire_discard) | {fire}
    on_boards = {c for p in made for c in (*p.footprints, *p.completed)} | set(footprint_discard)
    state = replace(
        base,
        tiles=TILES,
        turned=TURNED,
        houses=HOUSES,
        caves=fields.pop("caves", CAVES),
        first_seat=fields.pop("first_seat", 0),
        players=tuple(made),
        fire_deck=tuple(sorted(set(C.fire_cards) - in_hands)),
        fire_discard=tuple(fire_discard),
        footprint_deck=tuple(sorted(set(C.footprint_cards) - on_boards)),
        footprint_discard=tuple(footprint_discard),
        pending=None,
        turn=Turn(seat=current, **turn_fields),
        **fields,
    )
    check_conservation(REAL, state, 0)
    return state


def on_panel(state: State, seat: int, card: str) -> State:
    """`card` swapped onto `seat`'s panel (for the last panel card) from its deck."""
    p = state.players[seat]
    if card in p.panel:
        return state
    out = p.panel[-1]

    def swap(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(out if c == card else c for c in cards)

    assert card in p.deck_top + p.deck_bottom, f"{card} is not in the deck"
    p = replace(
        p,
        panel=(*p.panel[:-1], card),
        deck_top=swap(p.deck_top),
        deck_bottom=swap(p.deck_bottom),
    )
    return replace(state, players=tuple(p if s == seat else q for s, q in enumerate(state.players)))


def played(state: State, seat: int, card: str, fire: str | None = None) -> State:
    """`state` after `seat` plays `card` (and `fire`) in step 1; the card is put on the
    panel first if it is in the deck."""
    return play(on_panel(state, seat, card), seat, Play(card=card, fire=fire))[1]


def board(state: State) -> Any:
    return board_of(C, state)


def bonus(state: State, pos: tuple[int, int]) -> Any:
    """The bonus on a map space as plain data (e.g. {'kind': 'resource', ...}) or None."""
    found = board(state).places[pos].bonus
    return None if found is None else msgspec.to_builtins(found)


def skills(state: State, seat: int) -> dict[str, int]:
    return dict(zip(TERRAINS, state.players[seat].skills, strict=True))


def owned(state: State, seat: int) -> dict[str, int]:
    return dict(zip(RESOURCES, state.players[seat].resources, strict=True))
