"""Players, rooms and seats in plain Postgres tables; every change under the room's row lock."""

from __future__ import annotations

import json
import logging
import secrets
import uuid
from collections.abc import Sequence

import asyncpg
import msgspec

from contracts.lobby import NewRoom, Room, RoomPage
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games.registry import get as get_rules
from services.lobby.botnames import bot_name
from services.lobby.records import (
    RESERVED_OF,
    ROOM_COLUMNS,
    SEATS_OF,
    decode_cursor,
    room_of,
    snapshot,
    started_message,
)

log = logging.getLogger(__name__)
DEFAULT_LEVEL = "greedy"  # of the bots that fill a room when nobody names a level


class Lobby:
    """`max_open_rooms`: the open rooms a player may sit in at once (creating one or joining
    one beyond is 409 too_many_open_rooms); bots are seated without it."""

    def __init__(self, pool: asyncpg.Pool, max_open_rooms: int = 20) -> None:
        self.pool = pool
        self.max_open_rooms = max_open_rooms

    # -- players -----------------------------------------------------------------------------

    async def new_player(self, name: str, bot: str | None = None) -> str:
        player_id = f"{'bot' if bot else 'p'}-{uuid.uuid4()}"
        await self.pool.execute(
            "INSERT INTO players (id, name, bot) VALUES ($1, $2, $3)", player_id, name, bot
        )
        return player_id

    async def player_exists(self, player_id: str) -> bool:
        return bool(await self.pool.fetchval("SELECT 1 FROM players WHERE id = $1", player_id))

    # -- rooms -------------------------------------------------------------------------------

    async def create_room(self, host: str, new: NewRoom) -> Room:
        self.check_new_room(new)
        async with self.pool.acquire() as conn, conn.transaction():
            return await self.open_room(conn, host, new)

    def check_new_room(self, new: NewRoom) -> None:
        """422 with what is wrong with a room's settings (they are checked together here:
        each field's range is checked when the body is decoded)."""
        game, seats, options, timing = new.game, new.seats, new.options, new.timing
        rules = get_rules(game)
        if rules is None:
            raise ProblemError(422, "unknown_game", f"no game {game!r}; see GET /v1/catalog")
        if seats not in rules.seats:
            raise ProblemError(
                422,
                "bad_seat_count",
                f"{rules.name} seats {rules.seats.start} to {rules.seats.stop - 1}",
            )
        try:
            msgspec.convert(options, rules.options_type)
        except msgspec.ValidationError as exc:
            raise ProblemError(422, "invalid_options", f"options for {game}: {exc}") from exc
        if why := timing.problem():
            raise ProblemError(422, "invalid_timing", why)
        if why := new.fill_problem():
            raise ProblemError(422, "invalid_fill", why)
        if new.fill_with_bots_after_s is not None:
            self._check_level(game, new.fill_level or DEFAULT_LEVEL)

    async def open_room(
        self, conn: asyncpg.Connection, host: str, new: NewRoom, match_key: str | None = None
    ) -> Room:
        """A room of checked settings, its host in seat 0 (in the caller's transaction);
        with `match_key`, a quick match's table (services/lobby/matching.py)."""
        fill_level = None
        if new.fill_with_bots_after_s is not None:
            fill_level = new.fill_level or DEFAULT_LEVEL
        room_id = f"r-{uuid.uuid4()}"
        await self.may_sit(conn, host)
        await conn.execute(
            """INSERT INTO rooms (id, game, status, host, seat_count, options, timing,
                                  fill_level, fill_with_bots_after_s, auto_start, fill_due_at,
                                  rated, match_key, visibility, invite_code, start_when_full)
               VALUES ($1, $2, 'open', $3, $4, $5::jsonb, $6::jsonb, $7, $8::int, $9,
                       now() + make_interval(secs => $8::int), $10, $11, $12, $13,
                       $11::text IS NOT NULL)""",
            room_id,
            new.game,
            host,
            new.seats,
            json.dumps(new.options),
            msgspec.json.encode(new.timing).decode(),
            fill_level,
            new.fill_with_bots_after_s,
            new.auto_start,
            new.rated,
            match_key,
            new.visibility,
            new_invite_code() if new.visibility == "unlisted" else None,
        )
        await conn.execute(
            "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, 0, $2)",
            room_id,
            host,
        )
        return await self._room(conn, room_id, host)

    async def sit_at_table(
        self, conn: asyncpg.Connection, room_id: str, player_id: str
    ) -> tuple[Room, RoomStarted | None]:
        """A quick match's seat (in the caller's transaction): the first free one; a table
        this fills starts at once (its RoomStarted to announce). The table's timed fill
        keeps its moment: its first caller waits no longer than they asked."""
        room = await self.locked(conn, room_id)
        self._must_be_open(room)
        seat = self.free_seat(room, None, player_id)
        await self.may_sit(conn, player_id)
        await conn.execute(
            "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
            room_id,
            seat,
            player_id,
        )
        return await self.start_if_full(conn, room_id, player_id)

    async def room_in(
        self, conn: asyncpg.Connection, room_id: str, viewer: str | None = None
    ) -> Room:
        return await self._room(conn, room_id, viewer)

    async def get(self, room_id: str, viewer: str | None = None) -> Room:
        async with self.pool.acquire() as conn, snapshot(conn):
            return await self._room(conn, room_id, viewer)

    async def list(
        self,
        game: str | None,
        status: str | None,
        limit: int,
        cursor: str | None,
        player: str | None = None,
    ) -> RoomPage:
        """A page of public rooms, newest first, in three queries whatever the page size;
        with `player`, the rooms they host or sit in, unlisted ones too."""
        after_ts, after_id = decode_cursor(cursor) if cursor else (None, None)
        async with self.pool.acquire() as conn, snapshot(conn):
            rows = await conn.fetch(
                f"""SELECT {ROOM_COLUMNS} FROM rooms
                   WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR status = $2)
                     AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
                     AND ($6::text IS NULL OR host = $6
                          OR id IN (SELECT room_id FROM room_seats WHERE player_id = $6))
                     AND ($6::text IS NOT NULL OR visibility = 'public')
                   ORDER BY created_at DESC, id DESC LIMIT $5""",
                game,
                status,
                after_ts,
                after_id,
                limit + 1,
                player,
            )
            page = rows[:limit]
            seat_rows = await conn.fetch(SEATS_OF, [r["id"] for r in page])
            reserved_rows = await conn.fetch(RESERVED_OF, [r["id"] for r in page])
        seats: dict[str, list[asyncpg.Record]] = {}
        for r in seat_rows:
            seats.setdefault(r["room_id"], []).append(r)
        reserved: dict[str, list[asyncpg.Record]] = {}
        for r in reserved_rows:
            reserved.setdefault(r["room_id"], []).append(r)
        items = [
            room_of(r, seats.get(r["id"], []), reserved.get(r["id"], []), player) for r in page
        ]
        nxt = None
        if len(rows) > limit:
            last = rows[limit - 1]
            nxt = f"{last['created_at'].isoformat()}|{last['id']}"
        return RoomPage(items=items, next=nxt)

    async def join(
        self, room_id: str, player_id: str, seat: int | None, invite_code: str | None = None
    ) -> tuple[Room, RoomStarted | None]:
        """A seat: the one named, else the one reserved for the caller (joining accepts the
        invitation), else the first free one not reserved for another. An unlisted room
        wants its invite code, unless a seat is reserved for the caller. A room that starts
        when full (a quick match's table, a rematch) and is now starts in the same
        transaction: its RoomStarted to announce."""
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.locked(conn, room_id)
            self._must_be_open(room)
            if any(s.player_id == player_id for s in room.seats):
                raise ProblemError(409, "already_seated", "you already have a seat in this room")
            mine = next((s.seat for s in room.seats if s.reserved_for == player_id), None)
            if room.visibility == "unlisted" and mine is None:
                code = await conn.fetchval("SELECT invite_code FROM rooms WHERE id = $1", room_id)
                given = (invite_code or "").encode()
                if invite_code is None or not secrets.compare_digest(given, (code or "").encode()):
                    raise ProblemError(
                        403, "bad_invite_code", "this room is unlisted: join with its invite code"
                    )
            seat = self.free_seat(room, mine if seat is None else seat, player_id)
            await self.may_sit(conn, player_id)
            if mine is not None:
                await conn.execute(
                    """UPDATE room_invitations SET status = 'accepted'
                       WHERE room_id = $1 AND player_id = $2 AND status = 'pending'""",
                    room_id,
                    player_id,
                )
            await conn.execute(
                "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
                room_id,
                seat,
                player_id,
            )
            # A join restarts the wait of a fill still to come (not a quick match's: its
            # first caller waits no longer than they asked).
            await conn.execute(
                """UPDATE rooms SET fill_due_at = now() + make_interval(
                       secs => fill_with_bots_after_s)
                   WHERE id = $1 AND fill_due_at IS NOT NULL AND match_key IS NULL""",
                room_id,
            )
            return await self.start_if_full(conn, room_id, player_id)

    async def start_if_full(
        self, conn: asyncpg.Connection, room_id: str, viewer: str | None
    ) -> tuple[Room, RoomStarted | None]:
        """A room that starts when full (`start_when_full`) and is, locked: started."""
        room = await self._room(conn, room_id, viewer)
        if room.status != "open" or any(s.player_id is None for s in room.seats):
            return room, None
        if not await self._when_full(conn, room_id):
            return room, None
        _, started = await self.begin(conn, room, room.fill_level or DEFAULT_LEVEL)
        return await self._room(conn, room_id, viewer), started

    async def leave(self, room_id: str, player_id: str) -> Room:
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.locked(conn, room_id)
            if not any(s.player_id == player_id for s in room.seats):
                raise ProblemError(409, "not_in_room", "you have no seat in this room")
            self._must_be_open(room)
            await conn.execute(
                "DELETE FROM room_seats WHERE room_id = $1 AND player_id = $2", room_id, player_id
            )
            humans = [
                s for s in room.seats if s.player_id and not s.bot and s.player_id != player_id
            ]
            if not humans:  # nobody left to start it: the bots go too (and a rematch may be
                # asked again: the cancelled one is no longer the old room's)
                await conn.execute(
                    """UPDATE rooms SET status = 'cancelled', fill_due_at = NULL,
                              rematch_of = NULL, updated_at = now()
                       WHERE id = $1""",
                    room_id,
                )
            elif room.host == player_id:
                await conn.execute(
                    "UPDATE rooms SET host = $2, updated_at = now() WHERE id = $1",
                    room_id,
                    humans[0].player_id,
                )
            return await self._room(conn, room_id)

    async def add_bot(self, room_id: str, player_id: str, level: str, seat: int | None) -> Room:
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.locked(conn, room_id)
            self._must_be_host(room, player_id)
            self._must_be_open(room)
            self._check_level(room.game, level)
            seat = self.free_seat(room, seat, None)
            await self.seat_bot(conn, room_id, seat, level)
            return await self._room(conn, room_id, player_id)

    async def start(
        self, room_id: str, player_id: str, fill_bots: str | None, room_level: bool = False
    ) -> tuple[Room, RoomStarted]:
        """`room_level`: fill with the room's own `fill_level` (a start with no body)."""
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.locked(conn, room_id)
            self._must_be_host(room, player_id)
            self._must_be_open(room)
            if room_level:
                fill_bots = room.fill_level or DEFAULT_LEVEL
            empty = [s.seat for s in room.seats if s.player_id is None]
            if empty and fill_bots is None:
                raise ProblemError(
                    409, "seats_empty", f"seats {empty} are empty; add bots or set fill_bots"
                )
            # With no fill_bots (and so no empty seat), greedy takes over seats later.
            return await self.begin(conn, room, DEFAULT_LEVEL if fill_bots is None else fill_bots)

    async def begin(
        self, conn: asyncpg.Connection, room: Room, fill_level: str
    ) -> tuple[Room, RoomStarted]:
        """Start a room, locked and open: bots in its empty seats, and it is `starting`. The
        one way a room starts, by its host or by its timed fill."""
        # Checked even with no seat to fill: a seat taken over later (timeout,
        # resignation) gets a bot of this level.
        self._check_level(room.game, fill_level)
        await self._seat_bots(conn, room, fill_level)
        await conn.execute(
            """UPDATE rooms SET status = 'starting', fill_level = $2, fill_due_at = NULL,
                      updated_at = now()
               WHERE id = $1""",
            room.id,
            fill_level,
        )
        room = await self._room(conn, room.id, room.host)
        return room, started_message(room, fill_level)

    async def fill_due(self, limit: int = 100) -> Sequence[RoomStarted]:
        """The timed fill: rooms whose wait for a join ran out get bots of their fill level
        in every empty seat, and start if their host asked; the RoomStarted of those started.

        Due rooms are taken `FOR UPDATE SKIP LOCKED` and their `fill_due_at` cleared in the
        same transaction, so any number of lobbies may sweep and each room fills once; a room
        a join holds is skipped (the join moves its moment on)."""
        started: list[RoomStarted] = []
        async with self.pool.acquire() as conn, conn.transaction():
            due = await conn.fetch(
                """SELECT id FROM rooms WHERE status = 'open' AND fill_due_at <= now()
                   ORDER BY fill_due_at LIMIT $1 FOR UPDATE SKIP LOCKED""",
                limit,
            )
            for row in due:
                room = await self._room(conn, row["id"])
                level = room.fill_level or DEFAULT_LEVEL
                if level not in _levels(room.game):  # gone from the game since (a deploy)
                    log.warning("room %s not filled: %s has no %s bots", room.id, room.game, level)
                elif room.auto_start or await self._when_full(conn, room.id):
                    started.append((await self.begin(conn, room, level))[1])
                else:
                    await self._seat_bots(conn, room, level)
                await conn.execute(  # filled, started or not fillable: not due again
                    "UPDATE rooms SET fill_due_at = NULL, updated_at = now() WHERE id = $1",
                    room.id,
                )
        return started

    # Sequence, as `list` in this class's annotations is Lobby.list.
    async def stuck_starting(self, older_than_seconds: float) -> Sequence[RoomStarted]:
        """Rooms whose RoomStarted may have been lost: publishing again is harmless."""
        rows = await self.pool.fetch(
            # Oldest first, so a backlog beyond one batch cannot starve a room.
            "SELECT id, fill_level FROM rooms WHERE status = 'starting' "
            "AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 100",
            older_than_seconds,
        )
        async with self.pool.acquire() as conn:
            return [
                started_message(await self._room(conn, r["id"]), r["fill_level"] or DEFAULT_LEVEL)
                for r in rows
            ]

    async def game_moved(self, room_id: str, game_id: str, status: str) -> None:
        """From the games stream: the room is playing, then finished. Idempotent."""
        if status == "finished":
            await self.pool.execute(
                """UPDATE rooms SET status = 'finished', game_id = $2, updated_at = now()
                   WHERE id = $1 AND status IN ('starting', 'playing')""",
                room_id,
                game_id,
            )
        else:
            await self.pool.execute(
                """UPDATE rooms SET status = 'playing', game_id = $2, updated_at = now()
                   WHERE id = $1 AND status = 'starting'""",
                room_id,
                game_id,
            )

    # -- helpers -----------------------------------------------------------------------------

    async def _seat_bots(self, conn: asyncpg.Connection, room: Room, level: str) -> None:
        for seat in room.seats:
            if seat.player_id is None:
                await self.seat_bot(conn, room.id, seat.seat, level)

    async def seat_bot(self, conn: asyncpg.Connection, room_id: str, seat: int, level: str) -> None:
        bot_id = f"bot-{uuid.uuid4()}"
        name = await bot_name(conn, room_id, level)  # apart from the room's other bots
        await conn.execute(
            "INSERT INTO players (id, name, bot) VALUES ($1, $2, $3)", bot_id, name, level
        )
        await conn.execute(
            "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
            room_id,
            seat,
            bot_id,
        )

    async def may_sit(self, conn: asyncpg.Connection, player_id: str) -> None:
        """409 too_many_open_rooms if the player sits in `max_open_rooms` open rooms already.

        The player's row is held until the transaction ends, so their creates and joins
        count one at a time (each in a room of its own, whose lock would not order them).
        FOR NO KEY UPDATE: a seat's or a room's reference to the player (FOR KEY SHARE) does
        not wait on it. Rooms are locked before the player, never after."""
        await conn.execute("SELECT 1 FROM players WHERE id = $1 FOR NO KEY UPDATE", player_id)
        held = await conn.fetchval(
            """SELECT count(*) FROM room_seats s JOIN rooms r ON r.id = s.room_id
               WHERE s.player_id = $1 AND r.status = 'open'""",
            player_id,
        )
        if held >= self.max_open_rooms:
            raise ProblemError(
                409,
                "too_many_open_rooms",
                f"you sit in {held} open rooms, as many as one may; leave or start one first",
            )

    @staticmethod
    async def _when_full(conn: asyncpg.Connection, room_id: str) -> bool:
        return bool(await conn.fetchval("SELECT start_when_full FROM rooms WHERE id = $1", room_id))

    async def locked(self, conn: asyncpg.Connection, room_id: str) -> Room:
        if not await conn.fetchval("SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE", room_id):
            raise ProblemError(404, "unknown_room", f"no room {room_id!r}")
        return await self._room(conn, room_id)

    async def _room(
        self, conn: asyncpg.Connection, room_id: str, viewer: str | None = None
    ) -> Room:
        row = await conn.fetchrow(f"SELECT {ROOM_COLUMNS} FROM rooms WHERE id = $1", room_id)
        if row is None:
            raise ProblemError(404, "unknown_room", f"no room {room_id!r}")
        seats = await conn.fetch(SEATS_OF, [room_id])
        return room_of(row, seats, await conn.fetch(RESERVED_OF, [room_id]), viewer)

    @staticmethod
    def _must_be_open(room: Room) -> None:
        if room.status != "open":
            raise ProblemError(409, "room_not_open", f"the room is {room.status}")

    @staticmethod
    def _must_be_host(room: Room, player_id: str) -> None:
        if room.host != player_id:
            raise ProblemError(403, "not_host", "only the room's host may do this")

    @staticmethod
    def free_seat(room: Room, seat: int | None, player_id: str | None) -> int:
        """The seat named, or the first free one; a seat reserved for someone else (an
        invitation still pending) is taken by nobody else, bots included."""
        if seat is None:
            free = [
                s.seat
                for s in room.seats
                if s.player_id is None and s.reserved_for in (None, player_id)
            ]
            if not free:
                raise ProblemError(409, "room_full", "every seat is taken or reserved")
            return free[0]
        if not 0 <= seat < len(room.seats):
            raise ProblemError(422, "no_such_seat", f"seats are 0 to {len(room.seats) - 1}")
        if room.seats[seat].player_id is not None:
            raise ProblemError(409, "seat_taken", f"seat {seat} is taken")
        if room.seats[seat].reserved_for not in (None, player_id):
            raise ProblemError(409, "seat_reserved", f"seat {seat} is held for an invited player")
        return seat

    @staticmethod
    def _check_level(game: str, level: str) -> None:
        levels = _levels(game)
        if level not in levels:
            raise ProblemError(
                422,
                "unknown_bot_level",
                f"{game} bots play at levels {', '.join(levels)}, not {level!r}",
            )


def new_invite_code() -> str:
    """An unlisted room's code: 96 random bits, URL-safe."""
    return secrets.token_urlsafe(12)


def _levels(game: str) -> Sequence[str]:
    rules = get_rules(game)
    return rules.bot_levels if rules else ()
