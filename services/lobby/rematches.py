"""Rematch offers: the one new room of a finished room, with the same game, settings, bots and
people, made by the first of its people to ask, and offered to the others.

The first call makes the room: its caller sits where they sat, new bots of the same levels
sit where the bots sat, and every other person's old seat is held for them (an invitation,
services/lobby/invitations.py) while they are told `rematch_offered`. Each accepts by asking
the rematch too (or by joining the room), or declines (`…/invitations/decline` on the new
room); a seat whose offer runs out (`REMATCH_OFFER_S`) is free. The room starts by itself once
every seat is taken (`start_when_full`); with `bots_for_declined` (the first caller's choice),
a bot of the room's fill level takes each declined seat, so the others play on without them.
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
from services.lobby.rooms import DEFAULT_LEVEL, Lobby

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
            made, offers = old.rematch_id, None
            if made is None:
                made = await self._make(conn, old, player_id, bots_for_declined)
                offers = await self._offers(conn, made, player_id)
        if offers is None:  # made before: this call accepts
            room, started = await self.accept(made, player_id)
            return room, False, started
        for news in offers:
            await self.invitations.tell(news)
        room, started = await self.start_if_full(made, player_id)  # nobody else to ask
        return room, True, started

    async def accept(self, room_id: str, player_id: str) -> tuple[Room, RoomStarted | None]:
        """The caller takes their seat in the rematch (nothing when they sit there already,
        or the room has started: they see it as it is)."""
        room = await self.lobby.get(room_id, player_id)
        if room.status != "open" or any(s.player_id == player_id for s in room.seats):
            return room, None
        await self.lobby.join(room_id, player_id, None)
        return await self.start_if_full(room_id, player_id)

    async def declined(self, room_id: str, player_id: str) -> RoomStarted | None:
        """After a decline: a rematch that seats bots for those who decline gives the seat to
        one, and starts once full."""
        async with self.pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                """SELECT bots_for_declined, fill_level FROM rooms
                   WHERE id = $1 AND rematch_of IS NOT NULL AND status = 'open' FOR UPDATE""",
                room_id,
            )
            if row is None or not row["bots_for_declined"]:
                return None
            seat = await conn.fetchval(
                "SELECT seat FROM room_invitations WHERE room_id = $1 AND player_id = $2",
                room_id,
                player_id,
            )
            taken = await conn.fetchval(
                "SELECT 1 FROM room_seats WHERE room_id = $1 AND seat = $2", room_id, seat
            )
            if seat is not None and not taken:
                await self.lobby.seat_bot(conn, room_id, seat, row["fill_level"] or DEFAULT_LEVEL)
        return (await self.start_if_full(room_id, None))[1]

    async def start_if_full(
        self, room_id: str, viewer: str | None
    ) -> tuple[Room, RoomStarted | None]:
        """A room that starts when full (a rematch) and is: started, its RoomStarted."""
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.lobby.locked(conn, room_id)
            full = all(s.player_id is not None for s in room.seats)
            when_full = await conn.fetchval(
                "SELECT start_when_full FROM rooms WHERE id = $1", room_id
            )
            if room.status != "open" or not full or not when_full:
                return await self.lobby.room_in(conn, room_id, viewer), None
            _, started = await self.lobby.begin(conn, room, room.fill_level or DEFAULT_LEVEL)
            return await self.lobby.room_in(conn, room_id, viewer), started

    async def _make(
        self, conn: asyncpg.Connection, old: Room, caller: str, bots_for_declined: bool
    ) -> str:
        new_id = await conn.fetchval(
            """INSERT INTO rooms (id, game, status, host, seat_count, options, timing,
                                  rematch_of, fill_with_bots_after_s, auto_start,
                                  fill_level, fill_due_at, rated, visibility, invite_code,
                                  start_when_full, bots_for_declined)
               SELECT $1, game, 'open', $2, seat_count, options, timing, id,
                      fill_with_bots_after_s, auto_start, fill_level,
                      now() + make_interval(secs => fill_with_bots_after_s), rated,
                      visibility, invite_code, true, $4
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
