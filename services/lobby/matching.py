"""Quick match: POST /v1/match seats the caller at a waiting table with the same settings, the
nearest in rating first, or opens one.

A table is a room with a `match_key` (the hash of its settings: game, seats, options, timing,
rated, fill level), opened with `auto_start` and the caller's `fill_with_bots_after_s`: the
lobby's timed fill (Lobby.fill_due) seats bots and starts it when nobody else came in time,
and a join to a table never moves that moment (a first caller waits no longer than asked).
A table that fills with people starts at once.

One queue for every lobby process: each call takes the key's transaction-scoped advisory
lock in Postgres, so the calls of one key (from any replica) are seated one after another,
each seeing the tables the last one left, and a table is never over-filled; calls of other
keys do not wait on it.

Ratings: a person's `mu` for the game (openskill's, services/lobby/ratings.py; a newcomer's
is the model's starting one). A table's is the mean of its people's; the caller may sit at
one within `window(waited)` of theirs, a window that widens with the table's wait, so a
lonely table takes anyone soon. Among those it may take, the nearest, then the oldest.
"""

from __future__ import annotations

import hashlib
import json

import asyncpg
import msgspec

from contracts.lobby import Match, NewMatch, NewRoom, Room
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games.registry import get as get_rules
from services.lobby.ratings import fresh
from services.lobby.rooms import DEFAULT_LEVEL, Lobby

WINDOW_START = 3.0  # mu apart a table takes a caller at once (a fresh sigma is 8.3)
WINDOW_GROWTH = 1.0  # and this much more per second the table has waited

# The waiting tables of a key, each with its people's mean rating and how long it waited.
_TABLES = """
SELECT r.id, extract(epoch FROM now() - r.created_at) AS waited,
       avg(coalesce(g.mu, $3)) FILTER (WHERE p.bot IS NULL) AS mu,
       bool_or(s.player_id = $2) AS mine
FROM rooms r
JOIN room_seats s ON s.room_id = r.id
JOIN players p ON p.id = s.player_id
LEFT JOIN ratings g ON g.game = r.game AND g.subject = s.player_id
WHERE r.match_key = $1 AND r.status = 'open'
GROUP BY r.id, r.created_at, r.seat_count
HAVING count(*) < r.seat_count OR bool_or(s.player_id = $2)
ORDER BY r.created_at, r.id"""


def window(waited_s: float) -> float:
    """How far apart in rating a table that has waited this long takes a caller."""
    return WINDOW_START + WINDOW_GROWTH * max(0.0, waited_s)


def match_key(new: NewMatch, seats: int, fill_level: str) -> str:
    """One key for one set of settings, whatever the order of the options' fields."""
    settings = {
        "game": new.game,
        "seats": seats,
        "options": new.options,
        "timing": msgspec.to_builtins(new.timing),
        "rated": new.rated,
        "fill_level": fill_level,
    }
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def nearest(tables: list[asyncpg.Record], mine: float) -> str | None:
    """The table to seat the caller at: within its window, the nearest, then the oldest."""
    best: tuple[float, int] | None = None
    chosen = None
    for order, t in enumerate(tables):
        apart = abs((t["mu"] if t["mu"] is not None else mine) - mine)
        if apart <= window(float(t["waited"])) and (best is None or (apart, order) < best):
            best, chosen = (apart, order), t["id"]
    return chosen


class Matchmaker:
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.pool: asyncpg.Pool = lobby.pool

    def settings_of(self, new: NewMatch) -> tuple[NewRoom, str]:
        """The room a new table is, checked as a room's create checks it; its key."""
        rules = get_rules(new.game)
        if rules is None:
            raise ProblemError(422, "unknown_game", f"no game {new.game!r}; see GET /v1/catalog")
        seats = new.seats if new.seats is not None else rules.seats.start
        level = new.fill_level or DEFAULT_LEVEL
        room = NewRoom(
            game=new.game,
            seats=seats,
            options=new.options,
            timing=new.timing,
            fill_with_bots_after_s=new.fill_with_bots_after_s,
            fill_level=level,
            auto_start=True,
            rated=new.rated,
        )
        return room, match_key(new, seats, level)

    async def match(self, player_id: str, new: NewMatch) -> tuple[Match, RoomStarted | None]:
        """Seat the caller (once: a second call with the same settings while waiting gives
        the same table); the RoomStarted to announce when their seat filled the table."""
        room, key = self.settings_of(new)
        self.lobby.check_new_room(room)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", key)
            mine = await self._rating(conn, new.game, player_id)
            tables = await conn.fetch(_TABLES, key, player_id, mine)
            if seated := next((t["id"] for t in tables if t["mine"]), None):
                return self._state(await self.lobby.room_in(conn, seated, player_id)), None
            while (chosen := nearest(tables, mine)) is not None:
                try:
                    table, started = await self.lobby.sit_at_table(conn, chosen, player_id)
                except ProblemError as exc:
                    # taken meanwhile by what does not queue here (a plain join, the timed
                    # fill, a start, its last person leaving): checked before any write
                    if exc.code not in ("room_not_open", "room_full"):
                        raise
                    tables = [t for t in tables if t["id"] != chosen]
                    continue
                return self._state(table), started
            made = await self.lobby.open_room(conn, player_id, room, match_key=key)
            return self._state(made), None

    async def current(self, player_id: str) -> Match:
        """The caller's table still waiting (or newest, once matched); 404 when none."""
        row = await self.pool.fetchrow(
            """SELECT r.id FROM rooms r JOIN room_seats s ON s.room_id = r.id
               WHERE s.player_id = $1 AND r.match_key IS NOT NULL
                 AND r.status IN ('open', 'starting', 'playing')
               ORDER BY (r.status = 'open') DESC, r.created_at DESC LIMIT 1""",
            player_id,
        )
        if row is None:
            raise ProblemError(404, "not_matching", "you wait at no quick-match table")
        return self._state(await self.lobby.get(row["id"]))

    async def leave(self, player_id: str) -> list[Room]:
        """Leave every table the caller waits at; 404 when there is none, 409 when theirs has
        started (GET /v1/match shows it, starting or playing: the match was found)."""
        rows = await self.pool.fetch(
            """SELECT r.id, r.status FROM rooms r JOIN room_seats s ON s.room_id = r.id
               WHERE s.player_id = $1 AND r.match_key IS NOT NULL
                 AND r.status IN ('open', 'starting', 'playing')""",
            player_id,
        )
        if not rows:
            raise ProblemError(404, "not_matching", "you wait at no quick-match table")
        rows = [r for r in rows if r["status"] == "open"]
        left = []
        for row in rows:
            try:
                left.append(await self.lobby.leave(row["id"], player_id))
            except ProblemError as exc:  # started meanwhile: the match was found
                if exc.code != "room_not_open":
                    raise
        if not left:
            raise ProblemError(409, "room_not_open", "your table has started: see GET /v1/match")
        return left

    async def state(self, room_id: str) -> Match:
        return self._state(await self.lobby.get(room_id))

    @staticmethod
    def _state(room: Room) -> Match:
        return Match(
            status="matched" if room.game_id is not None else "waiting",
            room=room,
            game_id=room.game_id,
            fill_due_at=room.fill_due_at,
        )

    @staticmethod
    async def _rating(conn: asyncpg.Connection, game: str, player_id: str) -> float:
        mu = await conn.fetchval(
            "SELECT mu FROM ratings WHERE game = $1 AND subject = $2", game, player_id
        )
        return float(mu) if mu is not None else fresh().mu
