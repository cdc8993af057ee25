"""Game records (who sits where, the secret seed) in Postgres, with an in-memory twin."""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol

import asyncpg
import msgspec

from contracts.game import SeatInfo
from infra.eventstore.memory import MemoryEventStore
from infra.http.cursors import Int64, bad_cursor, instant


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, dict=True):  # dict: cached names
    id: str
    room_id: str | None
    game: str
    seats: list[SeatInfo]
    options: dict[str, Any]
    timing: dict[str, Any]
    seed: int  # never leaves the service: it decides every future draw
    fill_level: str = "greedy"  # the level of the bots that take over seats

    def seat_of(self, player_id: str) -> int | None:
        return self._seat_by_player.get(player_id)

    @cached_property
    def _seat_by_player(self) -> dict[str, int]:
        """Each player's first seat (made once per record: every request asks)."""
        seats: dict[str, int] = {}
        for s in self.seats:
            seats.setdefault(s.player_id, s.seat)
        return seats

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Who sits in each seat, for the texts of the feed and the legal actions: made once
        per record (a record is replaced, never changed, when its seats change)."""
        names = [f"Seat {i}" for i in range(max((s.seat for s in self.seats), default=-1) + 1)]
        for s in self.seats:
            names[s.seat] = s.name or (f"{s.bot} bot" if s.bot else names[s.seat])
        return tuple(names)

    @property
    def bots(self) -> dict[str, str]:
        return {str(s.seat): s.bot for s in self.seats if s.bot}


# A listing's sort key: (deadline in µs or NO_DEADLINE when awaiting, else 0; created in µs;
# game id). Keyset paging: the next page starts after the last key of this one.
PageKey = tuple[Int64, Int64, str]
NO_DEADLINE = 2**62


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    game: str
    seat: int
    version: int
    status: str
    to_act: list[int]
    bot: bool  # a bot plays this seat now (its player resigned or timed out)
    deadline: datetime | None
    key: PageKey  # where it sorts: (deadline or NO_DEADLINE, created, game id)


# where a watchable game sorts: (when it was made, RFC 3339 to the microsecond; its id)
WatchKey = tuple[str, str]


class Watchable(msgspec.Struct, frozen=True, kw_only=True):
    """A game of no unlisted room, as GET /v1/games lists it."""

    game_id: str
    game: str
    room_id: str | None
    seats: list[SeatInfo]
    version: int
    status: str
    to_act: list[int]
    created_at: datetime | None  # None in memory (embedded)
    key: WatchKey


def stream_id(game_id: str) -> str:
    return f"game-{game_id}"


def new_seed() -> int:
    return secrets.randbits(62)


class GamesRepository(Protocol):
    async def create(self, record: GameRecord) -> GameRecord:
        """Insert once per room; a second call returns the first record unchanged."""
        ...

    async def get(self, game_id: str) -> GameRecord | None: ...

    async def rating_changes(self, game_id: str) -> list[dict[str, Any]] | None:
        """A finished game's seats with their rating changes, once the lobby has rated it
        (services/lobby/ratings.py); None before, or where nothing rates games."""
        ...

    async def of_player(
        self,
        player_id: str,
        awaiting: bool,
        limit: int = 50,
        after: PageKey | None = None,
        status: str | None = None,
    ) -> list[SeatSummary]:
        """The player's games, newest first; `awaiting`: only where they must act, nearest
        deadline first (games without a clock last); `status`: only `active` or `finished`
        ones."""
        ...

    async def unlisted(self, room_id: str | None) -> bool:
        """Whether the game's room is unlisted (its record is then its players' alone)."""
        ...

    async def watchable(
        self, game: str | None, status: str, limit: int, after: WatchKey | None = None
    ) -> list[Watchable]:
        """Games being played (`active`) or over (`finished`) whose room is not unlisted,
        newest first, after `after`."""
        ...


_COLS = "id::text AS id, room_id, game, seats::text AS seats, options::text AS options, timing::text AS timing, seed, fill_level"


def _record(row: asyncpg.Record) -> GameRecord:
    return GameRecord(
        id=row["id"],
        room_id=row["room_id"],
        game=row["game"],
        seats=msgspec.json.decode(row["seats"], type=list[SeatInfo]),
        options=json.loads(row["options"]),
        timing=json.loads(row["timing"]),
        seed=row["seed"],
        fill_level=row["fill_level"],
    )


class PostgresGamesRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def create(self, record: GameRecord) -> GameRecord:
        async with self.pool.acquire() as conn, conn.transaction():
            inserted = await conn.fetchval(
                """INSERT INTO games (id, room_id, game, seats, options, timing, seed, fill_level)
                   VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8)
                   ON CONFLICT DO NOTHING RETURNING id""",
                uuid.UUID(record.id),
                record.room_id,
                record.game,
                msgspec.json.encode(record.seats).decode(),
                json.dumps(record.options),
                json.dumps(record.timing),
                record.seed,
                record.fill_level,
            )
            if inserted:
                await conn.executemany(
                    "INSERT INTO game_seats (game_id, seat, player_id) VALUES ($1, $2, $3)",
                    [(uuid.UUID(record.id), s.seat, s.player_id) for s in record.seats],
                )
                return record
            row = await conn.fetchrow(
                f"SELECT {_COLS} FROM games WHERE id = $1", uuid.UUID(record.id)
            )
            return _record(row)

    async def watchable(
        self, game: str | None, status: str, limit: int, after: WatchKey | None = None
    ) -> list[Watchable]:
        return await watchable_games(self.pool, game, status, limit, after)

    async def unlisted(self, room_id: str | None) -> bool:
        if room_id is None:
            return False
        found = await self.pool.fetchval("SELECT visibility FROM rooms WHERE id = $1", room_id)
        return bool(found == "unlisted")

    async def rating_changes(self, game_id: str) -> list[dict[str, Any]] | None:
        seats = await self.pool.fetchval(
            "SELECT seats::text FROM finished_games WHERE game_id = $1 AND rated", game_id
        )
        return json.loads(seats) if seats else None

    async def get(self, game_id: str) -> GameRecord | None:
        row = await self.pool.fetchrow(
            f"SELECT {_COLS} FROM games WHERE id = $1", uuid.UUID(game_id)
        )
        return _record(row) if row else None

    async def of_player(
        self,
        player_id: str,
        awaiting: bool,
        limit: int = 50,
        after: PageKey | None = None,
        status: str | None = None,
    ) -> list[SeatSummary]:
        rows = await self.pool.fetch(
            f"""SELECT * FROM (
                   SELECT g.id::text AS game_id, g.game, gs.seat, t.version, t.status,
                          t.to_act, t.bots ? gs.seat::text AS bot,
                          (t.deadlines ->> gs.seat::text)::timestamptz AS deadline,
                          CASE WHEN $2 THEN coalesce((extract(epoch FROM
                              (t.deadlines ->> gs.seat::text)::timestamptz) * 1e6)::bigint,
                              {NO_DEADLINE}) ELSE 0 END AS sort_key,
                          (extract(epoch FROM g.created_at) * 1e6)::bigint AS created_us
                   FROM game_seats gs
                   JOIN games g ON g.id = gs.game_id
                   JOIN turns t ON t.game_id = gs.game_id
                   WHERE gs.player_id = $1
                     AND (NOT $2 OR (gs.seat = ANY (t.to_act) AND NOT t.bots ? gs.seat::text))
                     AND ($7::text IS NULL OR (t.status = 'finished') = ($7 = 'finished'))
               ) x
               WHERE $4::bigint IS NULL OR sort_key > $4 OR (sort_key = $4 AND
                     (created_us < $5 OR (created_us = $5 AND game_id > $6)))
               ORDER BY sort_key, created_us DESC, game_id LIMIT $3""",
            player_id,
            awaiting,
            limit,
            *(after if after else (None, None, None)),
            status,
        )
        return [
            SeatSummary(
                game_id=r["game_id"],
                game=r["game"],
                seat=r["seat"],
                version=r["version"],
                status=r["status"],
                to_act=list(r["to_act"]),
                bot=r["bot"],
                deadline=r["deadline"],
                key=(r["sort_key"], r["created_us"], r["game_id"]),
            )
            for r in rows
        ]


_WATCHABLE = """
SELECT g.id::text AS game_id, g.game, g.room_id, g.seats::text AS seats, g.created_at,
       t.version, t.status, t.to_act
FROM games g JOIN turns t ON t.game_id = g.id
WHERE t.status = $1 AND ($2::text IS NULL OR g.game = $2)
  AND (g.room_id IS NULL
       OR EXISTS (SELECT 1 FROM rooms r WHERE r.id = g.room_id AND r.visibility = 'public'))
  AND ($3::timestamptz IS NULL OR (g.created_at, g.id) < ($3, $4::uuid))
ORDER BY g.created_at DESC, g.id DESC LIMIT $5"""


async def watchable_games(
    pool: asyncpg.Pool, game: str | None, status: str, limit: int, after: WatchKey | None
) -> list[Watchable]:
    at, last = None, None
    if after is not None:
        at = instant(after[0])
        try:
            last = uuid.UUID(after[1])
        except ValueError as exc:
            raise bad_cursor() from exc
    rows = await pool.fetch(_WATCHABLE, status, game, at, last, limit)
    return [
        Watchable(
            game_id=r["game_id"],
            game=r["game"],
            room_id=r["room_id"],
            seats=msgspec.json.decode(r["seats"], type=list[SeatInfo]),
            version=r["version"],
            status=r["status"],
            to_act=list(r["to_act"]),
            created_at=r["created_at"],
            key=(r["created_at"].isoformat(), r["game_id"]),
        )
        for r in rows
    ]


class MemoryGamesRepository:
    def __init__(self, store: MemoryEventStore) -> None:
        self.store = store
        self.records: dict[str, GameRecord] = {}

    async def create(self, record: GameRecord) -> GameRecord:
        return self.records.setdefault(record.id, record)

    async def rating_changes(self, game_id: str) -> list[dict[str, Any]] | None:
        return None  # nothing rates games in memory

    async def unlisted(self, room_id: str | None) -> bool:
        return False  # no lobby in memory: no unlisted room

    async def watchable(
        self, game: str | None, status: str, limit: int, after: WatchKey | None = None
    ) -> list[Watchable]:
        """Every game here (no lobby, no unlisted room), newest made first."""
        out = []
        for n, r in reversed(list(enumerate(self.records.values()))):
            row = self.store.turns.get(r.id)
            if row is None or row.turn.status != status or game not in (None, r.game):
                continue
            key = (f"{n:020d}", r.id)  # insertion order stands for created_at
            if after is not None and key >= after:
                continue
            out.append(
                Watchable(
                    game_id=r.id,
                    game=r.game,
                    room_id=r.room_id,
                    seats=r.seats,
                    version=row.version,
                    status=row.turn.status,
                    to_act=row.turn.to_act,
                    created_at=None,
                    key=key,
                )
            )
        return out[:limit]

    async def get(self, game_id: str) -> GameRecord | None:
        return self.records.get(game_id)

    async def of_player(
        self,
        player_id: str,
        awaiting: bool,
        limit: int = 50,
        after: PageKey | None = None,
        status: str | None = None,
    ) -> list[SeatSummary]:
        out = []
        for n, r in enumerate(self.records.values()):
            seat = r.seat_of(player_id)
            row = self.store.turns.get(r.id)
            if seat is None or row is None:
                continue
            turn = row.turn
            bot = str(seat) in turn.bots
            if awaiting and (seat not in turn.to_act or bot):
                continue
            if status is not None and (turn.status == "finished") != (status == "finished"):
                continue
            deadline = turn.deadlines.get(str(seat))
            sort_key = 0
            if awaiting:
                sort_key = int(deadline.timestamp() * 1e6) if deadline else NO_DEADLINE
            out.append(
                SeatSummary(
                    game_id=r.id,
                    game=r.game,
                    seat=seat,
                    version=row.version,
                    status=turn.status,
                    to_act=turn.to_act,
                    bot=bot,
                    deadline=deadline,
                    key=(sort_key, n, r.id),  # insertion order stands for created_at
                )
            )
        out.sort(key=lambda s: (s.key[0], -s.key[1], s.key[2]))
        if after is not None:
            out = [
                s for s in out if (s.key[0], -s.key[1], s.key[2]) > (after[0], -after[1], after[2])
            ]
        return out[:limit]
