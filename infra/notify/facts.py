"""What `derive.notifications` needs of a game beyond the envelope, read from Postgres."""

from __future__ import annotations

import json
import uuid
from datetime import datetime

import asyncpg
import msgspec

from contracts.game import RatingChange, SeatInfo
from contracts.notifications import GameResult
from contracts.streams import GameEvent
from games.api import Outcome
from infra.notify.derive import GameFacts

# `before`: to_act as the last command before this envelope's left it (the events of the
# envelope's own command before it are not batch ends); none at all: this is the set-up.
# The envelope's own event, a key lookup: `outcome`, when it is the game_over that ends the
# command that ended the game (games/table.py: always its last event); when it was recorded
# and where, which say whether it is the event the envelope names (below); with the outcome,
# the rating changes once the lobby has rated the game (services/lobby/ratings.py).
_FACTS = """
SELECT g.seats::text AS seats, t.deadlines::text AS deadlines,
       (SELECT jsonb_build_array(e.metadata -> 'to_act', e.metadata -> 'bots')::text
        FROM events e
        WHERE e.stream_id = 'game-' || $1::uuid::text AND e.version < $2
          AND coalesce((e.metadata ->> 'batch_end')::boolean, true)
        ORDER BY e.version DESC LIMIT 1) AS before,
       e.recorded_at, e.global_position,
       CASE WHEN e.type = 'game_over' THEN (e.data -> 'outcome')::text END AS outcome,
       CASE WHEN e.type = 'game_over' THEN
         (SELECT f.seats::text FROM finished_games f WHERE f.game_id = g.id::text AND f.rated)
       END AS ratings,
       EXISTS (SELECT 1 FROM rooms r WHERE r.id = g.room_id AND r.match_key IS NOT NULL)
         AS matched
FROM games g LEFT JOIN turns t ON t.game_id = g.id
LEFT JOIN events e ON e.stream_id = 'game-' || $1::uuid::text AND e.version = $2
WHERE g.id = $1"""


def awaited(before_json: str) -> list[int]:
    """The seats a person had to act for after the command before: its `to_act` without
    the seats a bot played then (for good, or for the one move of a `bot_move` timeout,
    after which the person must act again and is told so)."""
    to_act, bots = json.loads(before_json)
    return [int(s) for s in to_act or () if str(s) not in (bots or {})]


def players_of(seats_json: str | bytes) -> dict[int, str]:
    """seat -> player id of the seats people took (a game's `seats` column)."""
    seats = msgspec.json.decode(seats_json, type=list[SeatInfo])
    return {s.seat: s.player_id for s in seats if s.bot is None}


def deadlines_of(deadlines_json: str | None) -> dict[int, datetime]:
    """A `turns.deadlines` value (seat -> ISO time) as datetimes."""
    if not deadlines_json:
        return {}
    return {int(k): datetime.fromisoformat(v) for k, v in json.loads(deadlines_json).items()}


async def read_facts(conn: asyncpg.Pool | asyncpg.Connection, event: GameEvent) -> GameFacts | None:
    """The game's facts for one envelope (None: no such game here, e.g. another database;
    or not this event: see `of_this_database`).

    The deadlines are the projection's now, which may be later than the envelope: a seat
    still awaited has the deadline its turn started with (set once per turn); one that
    acted since gets a later `your_turn` of its own."""
    row = await conn.fetchrow(_FACTS, uuid.UUID(event.game_id), event.version)
    if row is None or not of_this_database(event, row["recorded_at"], row["global_position"]):
        return None
    before = None if row["before"] is None else awaited(row["before"])
    return GameFacts(
        players=players_of(row["seats"]),
        deadlines=deadlines_of(row["deadlines"]),
        before=before,
        outcome=result_of(row["outcome"]),
        recorded_at=row["recorded_at"],
        ratings=changes_of(row["ratings"]),
        matched=row["matched"],
    )


def of_this_database(
    event: GameEvent, recorded_at: datetime | None, global_position: int | None
) -> bool:
    """Whether the event stored at the envelope's version (when it was recorded, where) is
    the one the envelope names. Not after the database was restored to a moment before the
    envelope's event (the games stream in Redis still holds what the lost moves published),
    whether or not the game has reached that version again since: that is no news, and
    telling it would tell what did not happen. An envelope without `recorded_at` (a relay
    of before it) is matched by its position alone."""
    if recorded_at is None:
        return False  # no event at that version here
    if event.recorded_at is not None:
        return event.recorded_at == recorded_at
    return event.global_position == global_position


def changes_of(seats_json: str | None) -> list[RatingChange] | None:
    """The rating changes of a rated game's `finished_games.seats` (None: not rated)."""
    if not seats_json:
        return None
    return [
        RatingChange(
            seat=c["seat"],
            rating_before=c["rating_before"],
            rating_after=c["rating_after"],
            rating_change=c["rating_change"],
        )
        for c in json.loads(seats_json)
        if "rating_change" in c
    ] or None


def result_of(outcome_json: str | None) -> GameResult | None:
    """A game_over's `outcome` (games.api.Outcome as stored) as the news tells it."""
    if outcome_json is None:
        return None
    outcome = msgspec.json.decode(outcome_json, type=Outcome)
    return GameResult(
        winners=outcome.winners,
        ranks=outcome.ranks,
        scores=outcome.scores,
        forfeited=[int(s) for s in outcome.detail.get("forfeited", ())],
    )
