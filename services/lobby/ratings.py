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

Exactly once: a game is rated in the transaction that inserts its row of `finished_games`
(a consumer's whole batch in one); a second delivery of its news finds the row (or waits
for the transaction that holds it, then finds it) and changes nothing, and a process killed
mid-way leaves nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
from openskill.models import PlackettLuce

from contracts.levels import measured_rating

MODEL = PlackettLuce()
SETTLED_AFTER = 10  # rated games before a rating stops being provisional
FIRST_SIGMA_FLOOR = MODEL.sigma / 2  # a bot level's first sigma at least this (see `first`)
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


def first(game: str, subject: str) -> Rating:
    """A subject's rating before its first rated game: a person's is openskill's new rating
    (mu 25, sigma 25/3); a bot level's is what `make tournament` measured of it
    (contracts/ladder.json), so its first games against people start from its known
    strength rather than from a stranger's, with at least half a newcomer's sigma (the
    tournament's sigma knows bots only: people's games must still move it)."""
    if subject.startswith(BOT):
        known = measured_rating(game, subject.removeprefix(BOT))
        if known:  # its sigma is the bots' own games': against people, less is known
            return Rating(float(known["mu"]), max(float(known["sigma"]), FIRST_SIGMA_FLOOR))
    return fresh()


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


# The first event (when the game began) and the game_over of each game finished
FINISHED_LOGS = """SELECT stream_id, version, type, data, recorded_at FROM events
                   WHERE stream_id = ANY($1) AND (version = 1 OR type = 'game_over')"""


class Ratings:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def game_finished(self, game_id: str, room_id: str | None, game: str) -> bool:
        """Record (and, in a rated room, rate) a finished game once; whether this call did."""
        return await self.games_finished([(game_id, room_id, game)]) == 1

    async def games_finished(self, finished: Sequence[tuple[str, str | None, str]]) -> int:
        """Record (and rate) finished games, each once, in one transaction (a consumer's
        batch: a few round trips whatever its size); how many this call recorded. A game of
        no room (no people to rate), or whose log has no `game_over` (from before it was
        recorded), is left out."""
        todo = {g: (room, kind) for g, room, kind in finished if room is not None}
        if not todo:
            return 0
        async with self.pool.acquire() as conn, conn.transaction():
            logs = await conn.fetch(FINISHED_LOGS, [f"game-{g}" for g in todo])
            over: dict[str, Any] = {}
            started: dict[str, datetime] = {}
            for r in logs:
                g = r["stream_id"].removeprefix("game-")
                if r["type"] == "game_over":
                    over[g] = r
                if r["version"] == 1:
                    started[g] = r["recorded_at"]
            rooms = {
                r["id"]: r
                for r in await conn.fetch(
                    "SELECT id, rated, options::text AS options FROM rooms WHERE id = ANY($1)",
                    [room for room, _ in todo.values()],
                )
            }
            seats: dict[str, list[Seat]] = {}
            for r in await conn.fetch(
                """SELECT s.room_id, s.seat, s.player_id, p.name, p.bot FROM room_seats s
                   JOIN players p ON p.id = s.player_id WHERE s.room_id = ANY($1)
                   ORDER BY s.room_id, s.seat""",
                list(rooms),
            ):
                seats.setdefault(r["room_id"], []).append(
                    Seat(r["seat"], r["player_id"], r["name"], r["bot"])
                )
            ranks: dict[str, list[int]] = {}
            for g, (room, _) in todo.items():
                if g in over and room in rooms:
                    rs = json.loads(over[g]["data"])["outcome"]["ranks"]
                    if len(rs) == len(seats.get(room, [])):
                        ranks[g] = rs
            games = sorted(ranks)  # claimed in one order: two batches never wait on each other
            claimed = {
                r["game_id"]
                for r in await conn.fetch(
                    """INSERT INTO finished_games
                           (game_id, room_id, game, rated, started_at, finished_at, options,
                            outcome, seats)
                       SELECT g, r, k, rated, s, f, o::jsonb, out::jsonb, '[]'
                       FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[],
                                   $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[])
                            AS x(g, r, k, rated, s, f, o, out)
                       ON CONFLICT (game_id) DO NOTHING RETURNING game_id""",
                    games,
                    [todo[g][0] for g in games],
                    [todo[g][1] for g in games],
                    [rooms[todo[g][0]]["rated"] for g in games],
                    [started.get(g) for g in games],
                    [over[g]["recorded_at"] for g in games],
                    [rooms[todo[g][0]]["options"] for g in games],
                    [json.dumps(json.loads(over[g]["data"])["outcome"]) for g in games],
                )
            }
            # in the order the news came (a subject's games rated in the order they ended)
            mine = [g for g in todo if g in claimed]
            rated = [g for g in mine if rooms[todo[g][0]]["rated"]]
            current = await self._locked(conn, [(todo[g][1], seats[todo[g][0]]) for g in rated])
            before_after: dict[str, dict[str, tuple[Rating, Rating]]] = {}
            counts: dict[tuple[str, str], tuple[int, int]] = {}
            for g in rated:
                kind, sat = todo[g][1], seats[todo[g][0]]
                before = {s.subject: current[(kind, s.subject)] for s in sat}
                after = rate(sat, ranks[g], before)
                before_after[g] = {s: (before[s], after[s]) for s in after}
                for subject, r in after.items():
                    current[(kind, subject)] = r
                    n, w = counts.get((kind, subject), (0, 0))
                    mine_seats = [x for x in sat if x.subject == subject]
                    won = sum(1 for x in mine_seats if ranks[g][x.seat] == 1)
                    counts[(kind, subject)] = (n + len(mine_seats), w + won)
            await conn.executemany(
                "UPDATE finished_games SET seats = $2::jsonb WHERE game_id = $1",
                [
                    (g, json.dumps(_shown(seats[todo[g][0]], ranks[g], before_after.get(g, {}))))
                    for g in mine
                ],
            )
            await conn.executemany(
                """INSERT INTO ratings (game, subject, mu, sigma, games, wins)
                   VALUES ($1, $2, $3, $4, $5, $6)
                   ON CONFLICT (game, subject) DO UPDATE SET mu = EXCLUDED.mu,
                       sigma = EXCLUDED.sigma, games = ratings.games + EXCLUDED.games,
                       wins = ratings.wins + EXCLUDED.wins, updated_at = clock_timestamp()""",
                [
                    (
                        kind,
                        subject,
                        current[(kind, subject)].mu,
                        current[(kind, subject)].sigma,
                        n,
                        w,
                    )
                    for (kind, subject), (n, w) in counts.items()
                ],
            )
            await conn.executemany(
                """INSERT INTO player_games (player_id, finished_at, game_id, game, won)
                   VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING""",
                [
                    (s.player_id, over[g]["recorded_at"], g, todo[g][1], ranks[g][s.seat] == 1)
                    for g in mine
                    for s in seats[todo[g][0]]
                    if not s.bot
                ],
            )
            return len(mine)

    @staticmethod
    async def _locked(
        conn: Any, games: Sequence[tuple[str, Sequence[Seat]]]
    ) -> dict[tuple[str, str], Rating]:
        """The current rating of every subject of these games, locked (in one order: two
        batches never wait on each other); a subject without one starts at `first`."""
        wanted = sorted({(kind, s.subject) for kind, sat in games for s in sat})
        if not wanted:
            return {}
        rows = await conn.fetch(
            """SELECT game, subject, mu, sigma FROM ratings
               WHERE (game, subject) IN (SELECT * FROM unnest($1::text[], $2::text[]))
               ORDER BY game, subject FOR UPDATE""",
            [k for k, _ in wanted],
            [s for _, s in wanted],
        )
        found = {(r["game"], r["subject"]): Rating(r["mu"], r["sigma"]) for r in rows}
        return {key: found.get(key) or first(*key) for key in wanted}


def _shown(
    seats: Sequence[Seat], ranks: Sequence[int], changes: dict[str, tuple[Rating, Rating]]
) -> list[dict[str, Any]]:
    return [
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


def _change(before: Rating, after: Rating) -> dict[str, Any]:
    return {
        "rating_before": round(before.ordinal, 3),
        "rating_after": round(after.ordinal, 3),
        "rating_change": round(after.ordinal - before.ordinal, 3),
    }
