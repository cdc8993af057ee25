"""A player's record read back: the profile, the finished games newest first, and the
leaderboards (what services/lobby/ratings.py writes)."""

from __future__ import annotations

import base64
import json
import math
from typing import Any

import asyncpg
import msgspec

from contracts.game import timestamp
from contracts.players import (
    FinishedGame,
    FinishedSeat,
    GameRecordOf,
    History,
    Leaderboard,
    Profile,
    Ranked,
    Rating,
)
from contracts.problems import ProblemError
from games.registry import keys
from infra.http.cursors import bad_cursor, instant, word
from services.lobby.ratings import BOT, SETTLED_AFTER


def _rating(row: Any) -> Rating:
    return Rating(
        rating=round(row["ordinal"], 3),
        mu=round(row["mu"], 3),
        sigma=round(row["sigma"], 3),
        games=row["games"],
        wins=row["wins"],
        provisional=row["games"] < SETTLED_AFTER,
    )


def _cursor(*values: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode()


def _uncursor(cursor: str, *types: type) -> list[Any]:
    """The values of a cursor this API made, each of its type, or 400 `bad_cursor`."""
    try:
        values = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if not isinstance(values, list) or len(values) != len(types):
            raise ValueError
        if not all(
            isinstance(v, t) and not isinstance(v, bool) for v, t in zip(values, types, strict=True)
        ):
            raise ValueError
        return values
    except ValueError as exc:
        raise bad_cursor() from exc


class Profiles:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def profile(self, player_id: str) -> Profile:
        async with self.pool.acquire() as conn:
            player = await conn.fetchrow(
                "SELECT id, name, bot, created_at FROM players WHERE id = $1", player_id
            )
            if player is None:
                raise ProblemError(404, "unknown_player", f"no player {player_id}")
            played = await conn.fetch(
                """SELECT game, count(*) AS played, count(*) FILTER (WHERE won) AS won
                   FROM player_games WHERE player_id = $1 GROUP BY game""",
                player_id,
            )
            ratings = await conn.fetch(  # by the key (game, subject): every game served
                """SELECT game, mu, sigma, ordinal, games, wins FROM ratings
                   WHERE game = ANY($1) AND subject = $2""",
                list(keys()),
                f"{BOT}{player['bot']}" if player["bot"] else player_id,
            )
            current = await conn.fetch(
                """SELECT r.game, count(*) AS n FROM room_seats s JOIN rooms r ON r.id = s.room_id
                   WHERE s.player_id = $1 AND r.status IN ('starting', 'playing')
                   GROUP BY r.game""",
                player_id,
            )
        played_by = {r["game"]: r for r in played}
        rated_by = {r["game"]: r for r in ratings}
        now_by = {r["game"]: r["n"] for r in current}
        return Profile(
            id=player["id"],
            name=player["name"],
            since=timestamp(player["created_at"]),
            bot=player["bot"],
            games=[
                GameRecordOf(
                    game=game,
                    played=played_by[game]["played"] if game in played_by else 0,
                    won=played_by[game]["won"] if game in played_by else 0,
                    current=now_by.get(game, 0),
                    rating=_rating(rated_by[game]) if game in rated_by else None,
                )
                for game in keys()
                if game in played_by or game in rated_by or game in now_by
            ],
        )

    async def rename(self, player_id: str, name: str) -> None:
        await self.pool.execute("UPDATE players SET name = $2 WHERE id = $1", player_id, name)

    async def history(
        self, player_id: str, limit: int, cursor: str | None, viewer: str | None = None
    ) -> History:
        """The player's finished games, newest first (an index-only walk of player_games);
        to another `viewer`, none of an unlisted room (a page may then hold fewer)."""
        at, game_id = _uncursor(cursor, str, str) if cursor else (None, None)
        after = instant(at) if cursor else None
        game_id = word(game_id) if cursor else None
        rows = await self.pool.fetch(
            """SELECT f.game_id, f.room_id, f.game, f.rated, f.options, f.started_at,
                      f.finished_at, f.outcome, f.seats,
                      EXISTS (SELECT 1 FROM rooms r WHERE r.id = f.room_id
                              AND r.visibility = 'unlisted') AS unlisted
               FROM (SELECT game_id, finished_at FROM player_games
                     WHERE player_id = $1
                       AND ($2::timestamptz IS NULL OR (finished_at, game_id) < ($2, $3))
                     ORDER BY finished_at DESC, game_id DESC LIMIT $4) AS p
               JOIN finished_games f ON f.game_id = p.game_id
               ORDER BY p.finished_at DESC, p.game_id DESC""",
            player_id,
            after,
            game_id,
            limit + 1,
        )
        shown = [r for r in rows[:limit] if viewer in (None, player_id) or not r["unlisted"]]
        items = [_finished(r, player_id) for r in shown]
        nxt = None
        if len(rows) > limit:
            last = rows[limit - 1]
            nxt = _cursor(last["finished_at"].isoformat(), last["game_id"])
        return History(items=items, next=nxt)

    async def bot_ratings(
        self, levels: dict[str, tuple[str, ...]]
    ) -> dict[tuple[str, str], Rating]:
        """The rated bot levels' ratings: (game, level) -> rating, for each game's `levels`
        (one index lookup each)."""
        wanted = [(game, f"{BOT}{level}") for game, ls in levels.items() for level in ls]
        rows = await self.pool.fetch(
            """SELECT game, subject, mu, sigma, ordinal, games, wins FROM ratings
               WHERE (game, subject) IN (SELECT * FROM unnest($1::text[], $2::text[]))""",
            [g for g, _ in wanted],
            [s for _, s in wanted],
        )
        return {(r["game"], r["subject"].removeprefix(BOT)): _rating(r) for r in rows}

    async def leaderboard(
        self, game: str, provisional: bool, limit: int, cursor: str | None
    ) -> Leaderboard:
        """Settled ratings (or, `provisional`, the unsettled) by the conservative rating."""
        ordinal, subject, place = (
            _uncursor(cursor, (int, float), str, int) if cursor else (None, None, 0)
        )
        if cursor and (not math.isfinite(ordinal) or not 0 <= place < 2**31):
            raise bad_cursor()  # NaN, infinities and any place a page never ended at
        subject = word(subject) if cursor else None
        settled = "games < 10" if provisional else "games >= 10"  # the partial indexes' own
        rows = await self.pool.fetch(
            f"""SELECT r.subject, r.mu, r.sigma, r.ordinal, r.games, r.wins, p.name
                FROM (SELECT * FROM ratings WHERE game = $1 AND {settled}
                        AND ($2::float8 IS NULL OR (ordinal, subject) < ($2, $3))
                      ORDER BY ordinal DESC, subject DESC LIMIT $4) AS r
                LEFT JOIN players p ON p.id = r.subject
                ORDER BY r.ordinal DESC, r.subject DESC""",
            game,
            ordinal,
            subject,
            limit + 1,
        )
        items = [
            Ranked(
                place=place + i + 1,
                subject=r["subject"],
                name=r["name"] or r["subject"].removeprefix(BOT),
                bot=r["subject"].removeprefix(BOT) if r["subject"].startswith(BOT) else None,
                rating=_rating(r),
            )
            for i, r in enumerate(rows[:limit])
        ]
        nxt = None
        if len(rows) > limit:
            last = rows[limit - 1]
            nxt = _cursor(last["ordinal"], last["subject"], place + limit)
        return Leaderboard(game=game, provisional=provisional, items=items, next=nxt)


def _finished(row: Any, player_id: str) -> FinishedGame:
    seats = [msgspec.convert(s, FinishedSeat) for s in json.loads(row["seats"])]
    mine = next((s for s in seats if s.player_id == player_id), None)
    return FinishedGame(
        game_id=row["game_id"],
        room_id=row["room_id"],
        game=row["game"],
        rated=row["rated"],
        options=json.loads(row["options"]) if isinstance(row["options"], str) else row["options"],
        started_at=timestamp(row["started_at"]) if row["started_at"] else None,
        finished_at=timestamp(row["finished_at"]),
        outcome=json.loads(row["outcome"]),
        seats=seats,
        rank=mine.rank if mine else None,
        rating_change=mine.rating_change if mine else None,
    )
