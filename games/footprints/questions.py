"""What each seat is asked (games/questions.py): the advanced setup's secret leader and kept
footprint card, where to place a figure, a footprint card drawn as a bonus, the fire cards to
discard at the end of a turn. In Footprints every answer is always possible.

Each question is the seat's own part of what the game waits for: in the advanced setup every
seat chooses at once, and another seat's choice never makes a question stale.
"""

from __future__ import annotations

from games.footprints.content import MAP_SHAPE_LEADERS
from games.footprints.model import (
    AnyQuestion,
    DiscardFireQuestion,
    FootprintChoice,
    FootprintQuestion,
    LeaderQuestion,
    PlaceNext,
    PlaceQuestion,
    SetupChoices,
    StartingFootprintQuestion,
)
from games.footprints.state import State
from games.footprints.table import FIRE_HAND_LIMIT, Table


def allowed_leaders(t: Table, seat: int) -> list[str]:
    """The leaders `seat` may choose (the Snake bars those that need the usual map)."""
    clan = t.content.clans[t.player(seat).clan]
    snake = t.state.options.snake
    return [x.id for x in clan.leaders if not (snake and x.ability in MAP_SHAPE_LEADERS)]


def asked(t: Table, seat: int) -> tuple[AnyQuestion, ...]:
    """The questions `seat` must answer now: none, one, or in the advanced setup two (its
    leader and its footprint card, in either order)."""
    state: State = t.state
    if state.result is not None or not 0 <= seat < state.seats:
        return ()
    match state.pending:
        case SetupChoices(leaders=leaders, footprints=footprints):
            out: list[AnyQuestion] = []
            if seat in leaders:
                out.append(LeaderQuestion(seat=seat, leaders=tuple(allowed_leaders(t, seat))))
            if cards := dict(footprints).get(seat):
                out.append(StartingFootprintQuestion(seat=seat, cards=cards))
            return tuple(out)
        case PlaceNext(order=order) if order[:1] == (seat,):
            taken = {p.position for p in state.players}
            rows = tuple(r for r in range(len(state.houses)) if (r, -1) not in taken)
            return (PlaceQuestion(seat=seat, rows=rows),)
        case FootprintChoice(seat=chooser, cards=cards) if chooser == seat:
            return (FootprintQuestion(seat=seat, cards=cards),)
        case None if state.turn is not None and state.turn.seat == seat:
            excess = len(state.players[seat].fire_hand) - FIRE_HAND_LIMIT
            if state.turn.phase == "discard" and excess > 0:
                return (DiscardFireQuestion(seat=seat, count=excess),)
    return ()
