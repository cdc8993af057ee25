"""Commands of the table, not of the rules: a deadline passing, a resignation, a claim.

Each is decided against the table state (games/table.py) and appended like a move, with a
command id that makes it happen once: a resignation or a claim of a seat once per game, a
timeout once per (game, version, seat) as the scheduler derives it.
"""

from __future__ import annotations

import uuid

from contracts.game import timestamp
from contracts.problems import ProblemError
from games import table as tables
from games.table import AnyTableEvent, TableState
from infra.eventstore.api import command_uuid
from services.game.commands import Accepted, fingerprint
from services.game.service import GameService


async def timeout(
    svc: GameService, game_id: str, seat: int, command_id: uuid.UUID
) -> Accepted | None:
    """The scheduler says `seat`'s deadline passed: apply the room's policy, once. None
    when nothing is due (it moved in time, or the timeout was applied already)."""
    record = await svc.record(game_id)
    request = fingerprint(seat, {"type": "clock_timeout"})
    if earlier := await svc.earlier(record, command_id, request):
        return earlier
    return await svc.table_command(
        record, command_id, request, None, lambda t: tables.timeout(t, seat, svc.now())
    )


async def resign(svc: GameService, game_id: str, seat: int) -> Accepted:
    """The seat goes to a bot for the rest of the game; its player is ranked last."""
    record = await svc.record(game_id)
    command_id = command_uuid("resign", record.id, str(seat))
    request = fingerprint(seat, {"type": "resign"})
    if earlier := await svc.earlier(record, command_id, request):
        return earlier

    def resign(table: TableState) -> list[AnyTableEvent]:
        svc.check_player(table, seat, by_bot=False)
        return [tables.Resigned(seat=seat, at=svc.now(), bot=table.fill_level)]

    accepted = await svc.table_command(record, command_id, request, seat, resign)
    assert accepted is not None
    return accepted


async def claim(svc: GameService, game_id: str, by: int, seat: int) -> Accepted:
    """`by` hands `seat`, whose deadline passed under policy `wait`, to a bot."""
    record = await svc.record(game_id)
    command_id = command_uuid("claim", record.id, str(seat))
    request = fingerprint(seat, {"type": "claim"})
    if earlier := await svc.earlier(record, command_id, request, same_request=False):
        return earlier

    def claim(table: TableState) -> list[AnyTableEvent]:
        svc.check_player(table, by, by_bot=False)
        if not 0 <= seat < len(table.seats):
            raise ProblemError(422, "no_such_seat", f"seats are 0 to {len(table.seats) - 1}")
        if seat == by:
            raise ProblemError(422, "own_seat", "resign to hand your own seat to a bot")
        target = table.seats[seat]
        if target.bot is not None:
            raise ProblemError(409, "seat_played_by_bot", f"a bot plays seat {seat} already")
        if not table.timing.clocked:
            raise ProblemError(409, "not_claimable", "this game has no clock: no seat times out")
        if table.timing.on_timeout != "wait":
            raise ProblemError(
                409,
                "not_claimable",
                f"this game's clock acts on timeouts itself ({table.timing.on_timeout})",
            )
        now = svc.now()
        if target.deadline is None or target.deadline > now:
            when = timestamp(target.deadline) if target.deadline else None
            raise ProblemError(
                409,
                "deadline_not_passed",
                f"seat {seat} has until {when}" if when else f"seat {seat} has no deadline",
                deadline=when,
            )
        return [tables.SeatClaimed(seat=seat, by=by, at=now, bot=table.fill_level)]

    accepted = await svc.table_command(record, command_id, request, by, claim)
    assert accepted is not None
    return accepted
