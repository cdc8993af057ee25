"""Rematches: the one new room of a finished room, the same game, settings, bots and people."""

from __future__ import annotations

import uuid

from contracts.lobby import Room
from contracts.problems import ProblemError
from services.lobby.rooms import Lobby


async def rematch(lobby: Lobby, room_id: str, player_id: str) -> tuple[Room, bool]:
    """The rematch of a finished room, made on the first call; whether this call made it.

    Same game, seats, options and timing; the same bots (new bot players, same levels) and
    the same people in the same seats, who may leave if they do not want to play again.
    """
    async with lobby.pool.acquire() as conn, conn.transaction():
        # The old room's row lock queues concurrent calls; the unique rematch_of is what
        # keeps it to one room even without it.
        old = await lobby.locked(conn, room_id)
        people = {s.player_id for s in old.seats if s.player_id and not s.bot}
        if player_id not in people:
            raise ProblemError(403, "not_seated", "only the room's players may ask a rematch")
        if old.status != "finished":
            raise ProblemError(409, "room_not_finished", f"the room is {old.status}")
        if old.rematch_id is not None:
            return await lobby.room_in(conn, old.rematch_id, player_id), False
        host = old.host if old.host in people else player_id
        new_id = await conn.fetchval(
            """INSERT INTO rooms (id, game, status, host, seat_count, options, timing,
                                  rematch_of, fill_with_bots_after_s, auto_start,
                                  fill_level, fill_due_at, rated, visibility, invite_code)
               SELECT $1, game, 'open', $2, seat_count, options, timing, id,
                      fill_with_bots_after_s, auto_start,
                      CASE WHEN fill_with_bots_after_s IS NOT NULL THEN fill_level END,
                      now() + make_interval(secs => fill_with_bots_after_s), rated,
                      visibility, invite_code
               FROM rooms WHERE id = $3
               ON CONFLICT (rematch_of) DO NOTHING RETURNING id""",
            f"r-{uuid.uuid4()}",
            host,
            room_id,
        )
        if new_id is None:
            made = await conn.fetchval("SELECT id FROM rooms WHERE rematch_of = $1", room_id)
            return await lobby.room_in(conn, made, player_id), False
        for seat in old.seats:
            if seat.bot is not None:
                await lobby.seat_bot(conn, new_id, seat.seat, seat.bot)
            elif seat.player_id is not None:
                await conn.execute(
                    "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
                    new_id,
                    seat.seat,
                    seat.player_id,
                )
        return await lobby.room_in(conn, new_id, player_id), True
