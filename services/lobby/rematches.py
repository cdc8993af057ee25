"""Rematch offers: the one new room of a finished room, with the same game, settings, bots and
people, made by the first of its people to ask, and offered to the others.

The first call makes the room: its caller sits where they sat, new bots of the same levels
sit where the bots sat, and every other person's old seat is held for them (an invitation,
services/lobby/invitations.py) while they are told `rematch_offered`. Each accepts by asking
the rematch too (or by joining the room), or declines (`…/invitations/decline` on the new
room); a seat whose offer runs out (`REMATCH_OFFER_S`) is free. The room starts by itself once
every seat is taken (`start_when_full`); with `bots_for_declined` (the first caller's choice),
a bot of the room's fill level takes each declined seat, so the others play on without them.
No timed fill: the held seats wait for their answers (a day at most); the host may start.
The host is the first caller, who offered it.
"""

from __future__ import annotations

import uuid

import asyncpg

from contracts.lobby import Room
from contracts.notifications import RoomNews
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from services.lobby.invitations import RoomInvitations, invitation_of, room_news
from services.lobby.rooms import Lobby

REMATCH_OFFER_S = 86400  # a day: a correspondence player answers within it


class Rematches:
    def __init__(self, invitations: RoomInvitations) -> None:
        self.invitations = invitations
        self.lobby: Lobby = invitations.lobby
        self.pool: asyncpg.Pool = self.lobby.pool

    async def rematch(
        self, room_id: str, player_id: str, bots_for_declined: bool = False
    ) -> tuple[Room, bool, RoomStarted | None]:
        """The rematch of a finished room: made and offered on the first call (True), else
        accepted by this call (the caller's held seat taken); the RoomStarted when the
        caller's seat was the last one empty."""
        async with self.pool.acquire() as conn, conn.transaction():
            # The old room's row lock queues concurrent calls; the unique rematch_of is what
            # keeps it to one room even without it.
            old = await self.lobby.locked(conn, room_id)
            people = {s.player_id for s in old.seats if s.player_id and not s.bot}
            if player_id not in people:
                raise ProblemError(403, "not_seated", "only the room's players may ask a rematch")
            if old.status != "finished":
                raise ProblemError(409, "room_not_finished", f"the room is {old.status}")
            made, offers, code = old.rematch_id, None, None
            if made is not None:  # a player of the old room needs no code for the new one
                code = await conn.fetchval("SELECT invite_code FROM rooms WHERE id = $1", made)
            else:
                made = await self._make(conn, old, player_id, bots_for_declined)
                offers = await self._offers(conn, made, player_id)
                room, started = await self.lobby.start_if_full(conn, made, player_id)
        if offers is None:  # made before: this call accepts
            room, started = await self.accept(made, player_id, code)
            return room, False, started
        for news in offers:
            await self.invitations.tell(news)
        return room, True, started

    async def accept(
        self, room_id: str, player_id: str, invite_code: str | None
    ) -> tuple[Room, RoomStarted | None]:
        """The caller takes their seat in the rematch (nothing when they sit there already,
        or the room has started: they see it as it is)."""
        room = await self.lobby.get(room_id, player_id)
        if room.status != "open" or any(s.player_id == player_id for s in room.seats):
            return room, None
        return await self.lobby.join(room_id, player_id, None, invite_code)

    async def _make(
        self, conn: asyncpg.Connection, old: Room, caller: str, bots_for_declined: bool
    ) -> str:
        await self.lobby.may_sit(conn, caller)
        new_id = await conn.fetchval(
            """INSERT INTO rooms (id, game, status, host, seat_count, options, timing,
                                  rematch_of, fill_with_bots_after_s, auto_start,
                                  fill_level, fill_due_at, rated, visibility, invite_code,
                                  start_when_full, bots_for_declined)
               SELECT $1, game, 'open', $2, seat_count, options, timing, id,
                      fill_with_bots_after_s, auto_start, fill_level,
                      NULL, rated, visibility, invite_code, true, $4
               FROM rooms WHERE id = $3
               ON CONFLICT (rematch_of) DO NOTHING RETURNING id""",
            f"r-{uuid.uuid4()}",
            caller,  # who offers hosts: the others may decline
            old.id,
            bots_for_declined,
        )
        if new_id is None:  # made meanwhile (the lock makes this the rarest of races)
            raise ProblemError(409, "stale_version", "the rematch was made meanwhile: ask again")
        for seat in old.seats:
            if seat.bot is not None:
                await self.lobby.seat_bot(conn, new_id, seat.seat, seat.bot)
            elif seat.player_id == caller:
                await conn.execute(
                    "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
                    new_id,
                    seat.seat,
                    seat.player_id,
                )
            elif seat.player_id is not None:
                await conn.execute(
                    """INSERT INTO room_invitations (room_id, seat, player_id, invited_by,
                                                     expires_at)
                       VALUES ($1, $2, $3, $4, clock_timestamp() + make_interval(secs => $5))""",
                    new_id,
                    seat.seat,
                    seat.player_id,
                    caller,
                    REMATCH_OFFER_S,
                )
        return str(new_id)

    @staticmethod
    async def _offers(conn: asyncpg.Connection, room_id: str, caller: str) -> list[RoomNews]:
        rows = await conn.fetch(
            "SELECT player_id FROM room_invitations WHERE room_id = $1 AND player_id <> $2",
            room_id,
            caller,
        )
        return [
            room_news(await invitation_of(conn, room_id, r["player_id"]), "rematch_offered")
            for r in rows
        ]
