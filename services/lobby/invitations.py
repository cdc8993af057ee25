"""Invitations: a host holds a seat of an open room for a named player, who is told
(`invited`, on webhooks and /v1/me/stream), and accepts by joining (services/lobby/rooms.py:
the held seat is theirs, an unlisted room's code not needed) or declines; the seat frees
itself when its time runs out (a reservation counts while `expires_at` is ahead: nothing
needs to sweep), or when the host withdraws it. Bots never take a held seat by `add_bot`;
the host's start, or the timed fill, still fills every empty seat (the room does not wait
for an answer its host did not wait for)."""

from __future__ import annotations

import logging

import asyncpg
import msgspec
from redis.exceptions import RedisError

from contracts.game import timestamp
from contracts.lobby import Invitation, Invitations, NewInvitation
from contracts.notifications import RoomLinks, RoomNews, RoomNewsType
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games.registry import get as get_rules
from infra.streams import Streams
from services.lobby.rooms import DEFAULT_LEVEL, Lobby

log = logging.getLogger(__name__)

_INVITATION = """
SELECT i.room_id, r.game, i.seat, i.player_id, i.invited_by, coalesce(p.name, '') AS by_name,
       CASE WHEN i.status = 'pending' AND (i.expires_at <= now() OR r.status <> 'open')
            THEN 'expired' ELSE i.status END AS status,
       i.expires_at, i.created_at
FROM room_invitations i JOIN rooms r ON r.id = i.room_id
LEFT JOIN players p ON p.id = i.invited_by"""


def _invitation(row: asyncpg.Record) -> Invitation:
    return Invitation(
        room_id=row["room_id"],
        game=row["game"],
        seat=row["seat"],
        player_id=row["player_id"],
        invited_by=row["invited_by"],
        invited_by_name=row["by_name"],
        status=row["status"],
        expires_at=timestamp(row["expires_at"]),
        created_at=timestamp(row["created_at"]),
    )


def room_news(invitation: Invitation, kind: RoomNewsType = "invited") -> RoomNews:
    """What the invited player is told: `invited`, or `rematch_offered` (services/lobby/
    rematches.py: the same held seat)."""
    rules = get_rules(invitation.game)
    room = f"/v1/rooms/{invitation.room_id}"
    return RoomNews(
        type=kind,
        room_id=invitation.room_id,
        game=invitation.game,
        title=rules.name if rules is not None else invitation.game,
        player_id=invitation.player_id,
        seat=invitation.seat,
        by=invitation.invited_by,
        by_name=invitation.invited_by_name,
        expires_at=invitation.expires_at,
        created_at=invitation.created_at,
        links=RoomLinks(room=room, answer=f"{room}/invitations/decline"),
    )


async def invitation_of(conn: asyncpg.Connection, room_id: str, player_id: str) -> Invitation:
    row = await conn.fetchrow(
        f"{_INVITATION} WHERE i.room_id = $1 AND i.player_id = $2", room_id, player_id
    )
    return _invitation(row)


class RoomInvitations:
    def __init__(self, lobby: Lobby, streams: Streams | None = None, news: str = "") -> None:
        self.lobby = lobby
        self.pool: asyncpg.Pool = lobby.pool
        self.streams, self.news = streams, news

    async def invite(self, room_id: str, host: str, new: NewInvitation) -> Invitation:
        """Hold a seat for `new.player_id` (the one named, or the first free); again for one
        already invited: held anew (another seat, another time)."""
        if not 5 <= new.expires_after_s <= 30 * 86400:
            raise ProblemError(422, "invalid_expiry", "expires_after_s is 5 s to 30 days")
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.lobby.locked(conn, room_id)
            if room.host != host:
                raise ProblemError(403, "not_host", "only the room's host may invite")
            if room.status != "open":
                raise ProblemError(409, "room_not_open", f"the room is {room.status}")
            if new.player_id == host:
                raise ProblemError(422, "own_invitation", "you sit in this room already")
            bot = await conn.fetchrow("SELECT bot FROM players WHERE id = $1", new.player_id)
            if bot is None or bot["bot"] is not None:
                raise ProblemError(404, "unknown_player", f"no player {new.player_id!r}")
            if any(s.player_id == new.player_id for s in room.seats):
                raise ProblemError(409, "already_seated", "they sit in this room already")
            await conn.execute(  # an earlier hold of theirs is replaced, not kept beside
                """UPDATE room_invitations SET status = 'withdrawn'
                   WHERE room_id = $1 AND player_id = $2 AND status = 'pending'""",
                room_id,
                new.player_id,
            )
            room = await self.lobby.room_in(conn, room_id)
            seat = self.lobby.free_seat(room, new.seat, None)
            row = await conn.fetchrow(
                """INSERT INTO room_invitations (room_id, seat, player_id, invited_by,
                                                 expires_at)
                   VALUES ($1, $2, $3, $4, clock_timestamp() + make_interval(secs => $5))
                   ON CONFLICT (room_id, player_id) DO UPDATE SET seat = EXCLUDED.seat,
                       invited_by = EXCLUDED.invited_by, status = 'pending',
                       expires_at = EXCLUDED.expires_at, created_at = clock_timestamp()
                   RETURNING room_id""",
                room_id,
                seat,
                new.player_id,
                host,
                new.expires_after_s,
            )
            invitation = await invitation_of(conn, row["room_id"], new.player_id)
        await self.tell(room_news(invitation))
        return invitation

    async def decline(self, room_id: str, player_id: str) -> tuple[Invitation, RoomStarted | None]:
        """Under the room's lock (a join at once waits): the held seat is free again, or, in
        a rematch whose offer asked so, a bot's; a room that starts when full and now is
        starts (its RoomStarted to announce)."""
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.lobby.locked(conn, room_id)
            seat = None
            if room.status == "open":  # a room that started or closed holds no seat
                seat = await conn.fetchval(
                    """UPDATE room_invitations SET status = 'declined'
                       WHERE room_id = $1 AND player_id = $2 AND status = 'pending'
                         AND expires_at > now() RETURNING seat""",
                    room_id,
                    player_id,
                )
            if seat is None:
                raise ProblemError(404, "no_invitation", "no invitation of yours waits here")
            row = await conn.fetchrow(
                "SELECT bots_for_declined, fill_level FROM rooms WHERE id = $1", room_id
            )
            taken = await conn.fetchval(
                "SELECT 1 FROM room_seats WHERE room_id = $1 AND seat = $2", room_id, seat
            )
            started = None
            if row["bots_for_declined"] and not taken:
                level = row["fill_level"] or DEFAULT_LEVEL
                await self.lobby.seat_bot(conn, room_id, seat, level)
                _, started = await self.lobby.start_if_full(conn, room_id, None)
            return await invitation_of(conn, room_id, player_id), started

    async def withdraw(self, room_id: str, host: str, player_id: str) -> Invitation:
        async with self.pool.acquire() as conn, conn.transaction():
            room = await self.lobby.locked(conn, room_id)
            if room.host != host:
                raise ProblemError(403, "not_host", "only the room's host may withdraw")
            done = await conn.fetchval(
                """UPDATE room_invitations SET status = 'withdrawn'
                   WHERE room_id = $1 AND player_id = $2 AND status = 'pending' RETURNING 1""",
                room_id,
                player_id,
            )
            if not done:
                raise ProblemError(404, "no_invitation", f"no invitation of {player_id!r} waits")
            return await invitation_of(conn, room_id, player_id)

    async def of_room(self, room_id: str) -> Invitations:
        rows = await self.pool.fetch(
            f"{_INVITATION} WHERE i.room_id = $1 ORDER BY i.created_at DESC", room_id
        )
        return Invitations(items=[_invitation(r) for r in rows])

    async def mine(self, player_id: str) -> Invitations:
        """The caller's invitations still waiting for an answer (to open rooms), newest
        first."""
        rows = await self.pool.fetch(
            f"""{_INVITATION} WHERE i.player_id = $1 AND i.status = 'pending'
                 AND i.expires_at > now() AND r.status = 'open'
                ORDER BY i.created_at DESC LIMIT 100""",
            player_id,
        )
        return Invitations(items=[_invitation(r) for r in rows])

    async def tell(self, news: RoomNews) -> None:
        """After the commit: at most once (a lost publication leaves the invitation in
        GET /v1/me/invitations, where a client finds it)."""
        if self.streams is None:
            return
        try:
            await self.streams.publish(self.news, msgspec.json.encode(news))
        except RedisError as exc:
            log.warning("news %s not published (%r)", news.key(), exc)
