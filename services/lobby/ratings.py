"""Players' records: every finished game once, with its result and each seat's rating change;
ratings per game; profiles, histories and leaderboards.

Ratings are openskill's Weng-Lin Plackett-Luce model: a free-for-all of two to six seats
ranked by the game's result (ties shared), each seat a team of one. Plackett-Luce reads a
whole ranking at once (no pairing of seats as Bradley-Terry's full pairing does) and is
openskill's default and its most accurate model on free-for-all data in its own benchmarks.
A rating is (mu, sigma); what is shown and ranked is the conservative `ordinal`, mu - 3
sigma. A rating is provisional until its subject has `SETTLED_AFTER` rated games.

Who is rated: in a rated room (the default), each person by their seat's rank in the game's
`game_over` (people who resigned or timed out ranked last: a person whose seat a bot took
over is rated as last and the bot's play is not theirs), and each bot level as one subject,
`bot:<level>`, by its seats' ranks (a level in two seats of one game takes the mean of the
two seats' new ratings). An unrated room's game is recorded, and rates nobody.

Exactly once: a game is rated in one transaction that ends by inserting its row of
`finished_games`; a second delivery of its news finds the row (or loses the insert's race)
and changes nothing, and a process killed mid-way leaves nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
from openskill.models import PlackettLuce

MODEL = PlackettLuce()
SETTLED_AFTER = 10  # rated games before a rating stops being provisional
BOT = "bot:"


@dataclass(frozen=True)
class Seat:
    seat: int
    player_id: str
    name: str
    bot: str | None  # the level of a bot seated from the start

    @property
    def subject(self) -> str:
        return f"{BOT}{self.bot}" if self.bot else self.player_id


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def fresh() -> Rating:
    r = MODEL.rating()
    return Rating(r.mu, r.sigma)


def rate(
    seats: Sequence[Seat], ranks: Sequence[int], before: dict[str, Rating]
) -> dict[str, Rating]:
    """Each subject's rating after a game whose seats ranked so (1 = first; ties share)."""
    teams = [[MODEL.rating(mu=before[s.subject].mu, sigma=before[s.subject].sigma)] for s in seats]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    after: dict[str, list[Rating]] = {}
    for seat, [r] in zip(seats, rated, strict=True):
        after.setdefault(seat.subject, []).append(Rating(r.mu, r.sigma))
    return {
        subject: Rating(sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs))
        for subject, rs in after.items()
    }


class Ratings:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def game_finished(self, game_id: str, room_id: str | None, game: str) -> bool:
        """Record (and, in a rated room, rate) a finished game once; whether this call did."""
        if room_id is None:
            return False  # a game of no room has no people to rate
        try:
            return await self._record(game_id, room_id, game)
        except _Lost:
            return False

    async def _record(self, game_id: str, room_id: str, game: str) -> bool:
        async with self.pool.acquire() as conn, conn.transaction():
            if await conn.fetchval("SELECT 1 FROM finished_games WHERE game_id = $1", game_id):
                return False
            over = await conn.fetchrow(
                "SELECT data, recorded_at FROM events WHERE stream_id = $1 AND type = 'game_over'",
                f"game-{game_id}",
            )
            room = await conn.fetchrow(
                "SELECT rated, options, created_at FROM rooms WHERE id = $1", room_id
            )
            if over is None or room is None:
                return False  # a log from before game_over was recorded, or no such room
            outcome = json.loads(over["data"])["outcome"]
            started = await conn.fetchval(
                "SELECT recorded_at FROM events WHERE stream_id = $1 AND version = 1",
                f"game-{game_id}",
            )
            seats = [
                Seat(r["seat"], r["player_id"], r["name"], r["bot"])
                for r in await conn.fetch(
                    """SELECT s.seat, s.player_id, p.name, p.bot FROM room_seats s
                       JOIN players p ON p.id = s.player_id WHERE s.room_id = $1
                       ORDER BY s.seat""",
                    room_id,
                )
            ]
            ranks: list[int] = outcome["ranks"]
            if len(seats) != len(ranks):
                return False
            changes: dict[str, tuple[Rating, Rating]] = {}
            if room["rated"]:
                changes = await self._rate(conn, game, seats, ranks)
            shown = [
                {
                    "seat": s.seat,
                    "player_id": s.player_id,
                    "name": s.name,
                    "bot": s.bot,
                    "rank": ranks[s.seat],
                    **(_change(*changes[s.subject]) if s.subject in changes else {}),
                }
                for s in seats
            ]
            claimed = await conn.fetchval(
                """INSERT INTO finished_games
                       (game_id, room_id, game, rated, started_at, finished_at, options, outcome,
                        seats)
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                   ON CONFLICT (game_id) DO NOTHING RETURNING game_id""",
                game_id,
                room_id,
                game,
                room["rated"],
                started,
                over["recorded_at"],
                room["options"],
                json.dumps(outcome),
                json.dumps(shown),
            )
            if claimed is None:
                raise _Lost  # another consumer rated it meanwhile: roll this back
            await conn.executemany(
                """INSERT INTO player_games (player_id, finished_at, game_id, game, won)
                   VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING""",
                [
                    (s.player_id, over["recorded_at"], game_id, game, ranks[s.seat] == 1)
                    for s in seats
                    if not s.bot
                ],
            )
            return True

    async def _rate(
        self, conn: Any, game: str, seats: Sequence[Seat], ranks: Sequence[int]
    ) -> dict[str, tuple[Rating, Rating]]:
        subjects = sorted({s.subject for s in seats})  # locked in one order: no deadlock
        rows = await conn.fetch(
            """SELECT subject, mu, sigma FROM ratings WHERE game = $1 AND subject = ANY($2)
               ORDER BY subject FOR UPDATE""",
            game,
            subjects,
        )
        before = {s: fresh() for s in subjects} | {
            r["subject"]: Rating(r["mu"], r["sigma"]) for r in rows
        }
        after = rate(seats, ranks, before)
        seat_games = {s: sum(1 for x in seats if x.subject == s) for s in subjects}
        wins = {s: sum(1 for x in seats if x.subject == s and ranks[x.seat] == 1) for s in subjects}
        await conn.executemany(
            """INSERT INTO ratings (game, subject, mu, sigma, games, wins)
               VALUES ($1, $2, $3, $4, $5, $6)
               ON CONFLICT (game, subject) DO UPDATE SET mu = EXCLUDED.mu,
                   sigma = EXCLUDED.sigma, games = ratings.games + EXCLUDED.games,
                   wins = ratings.wins + EXCLUDED.wins, updated_at = clock_timestamp()""",
            [(game, s, after[s].mu, after[s].sigma, seat_games[s], wins[s]) for s in subjects],
        )
        return {s: (before[s], after[s]) for s in subjects}


class _Lost(Exception):
    pass


def _change(before: Rating, after: Rating) -> dict[str, Any]:
    return {
        "rating_before": round(before.ordinal, 3),
        "rating_after": round(after.ordinal, 3),
        "rating_change": round(after.ordinal - before.ordinal, 3),
    }


def timestamp(at: datetime | None) -> str | None:
    return at.isoformat().replace("+00:00", "Z") if at else None
