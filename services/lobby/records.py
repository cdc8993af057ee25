"""What a room is made of in its rows: the columns read, the Room they make, the cursor of a
page, and the RoomStarted that tells the game service a room started."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import asyncpg
import msgspec
from asyncpg.transaction import Transaction

from contracts.game import timestamp
from contracts.levels import measured_rating
from contracts.lobby import Room, Seat, Timing
from contracts.streams import RoomStarted, StartedSeat
from infra.http.cursors import instant, word
from infra.observability.context import carry


def snapshot(conn: asyncpg.Connection) -> Transaction:
    """A read of a room and its seats as of one moment: a fill or a start committing between
    the two queries would otherwise show its bots beside the room's row from before."""
    return conn.transaction(isolation="repeatable_read", readonly=True)


ROOM_COLUMNS = """id, game, status, host, seat_count, options::text AS options,
    timing::text AS timing, game_id, created_at, rematch_of, fill_level,
    fill_with_bots_after_s, fill_due_at, auto_start, rated, match_key IS NOT NULL AS matched,
    visibility, invite_code,
    (SELECT r.id FROM rooms r WHERE r.rematch_of = rooms.id) AS rematch_id"""

# Each seat's rating in the room's game (a person's, a bot level's as one subject): an index
# lookup per seat (ratings' key is (game, subject)).
SEATS_OF = """SELECT rs.room_id, rs.seat, rs.player_id, p.name, p.bot, rt.ordinal AS rating
    FROM room_seats rs JOIN players p ON p.id = rs.player_id JOIN rooms r ON r.id = rs.room_id
    LEFT JOIN ratings rt ON rt.game = r.game
        AND rt.subject = CASE WHEN p.bot IS NULL THEN p.id ELSE 'bot:' || p.bot END
    WHERE rs.room_id = ANY($1::text[])"""

# Seats held for invited players: a reservation counts until it is answered or expires.
RESERVED_OF = """SELECT room_id, seat, player_id FROM room_invitations
    WHERE room_id = ANY($1::text[]) AND status = 'pending' AND expires_at > now()"""


def _rating(game: str, seat: asyncpg.Record) -> float | None:
    """A seat's rating (mu - 3 sigma): from rated games; a bot level without any, the
    tournament's (contracts/levels.py); a person without any, none."""
    if seat["rating"] is not None:
        return round(float(seat["rating"]), 1)
    known = measured_rating(game, seat["bot"]) if seat["bot"] else None
    return known["ordinal"] if known else None


def room_of(
    row: asyncpg.Record,
    taken_rows: Sequence[asyncpg.Record],
    reserved_rows: Sequence[asyncpg.Record] = (),
    viewer: str | None = None,
) -> Room:
    """The room as `viewer` sees it: its invite code only when they host it or sit in it."""
    taken = {r["seat"]: r for r in taken_rows}
    reserved = {r["seat"]: r["player_id"] for r in reserved_rows if r["seat"] not in taken}
    seats = [
        Seat(
            seat=i,
            player_id=taken[i]["player_id"],
            name=taken[i]["name"],
            bot=taken[i]["bot"],
            rating=_rating(row["game"], taken[i]),
        )
        if i in taken
        else Seat(seat=i, player_id=None, name=None, bot=None, reserved_for=reserved.get(i))
        for i in range(row["seat_count"])
    ]
    member = viewer is not None and (
        viewer == row["host"] or any(r["player_id"] == viewer for r in taken_rows)
    )
    return Room(
        id=row["id"],
        game=row["game"],
        status=row["status"],
        host=row["host"],
        seats=seats,
        options=json.loads(row["options"]),
        timing=msgspec.json.decode(row["timing"], type=Timing),
        game_id=row["game_id"],
        created_at=timestamp(row["created_at"]),
        rematch_of=row["rematch_of"],
        rematch_id=row["rematch_id"],
        fill_level=row["fill_level"],
        fill_with_bots_after_s=row["fill_with_bots_after_s"],
        fill_due_at=timestamp(row["fill_due_at"]) if row["fill_due_at"] else None,
        auto_start=row["auto_start"],
        rated=row["rated"],
        quick_match=row["matched"],
        visibility=row["visibility"],
        invite_code=row["invite_code"] if member else None,
    )


def started_message(room: Room, fill_level: str) -> RoomStarted:
    return RoomStarted(
        room_id=room.id,
        game=room.game,
        seats=[
            StartedSeat(seat=s.seat, player_id=s.player_id or "", name=s.name, bot=s.bot)
            for s in room.seats
        ],
        options=room.options,
        timing=msgspec.to_builtins(room.timing),
        fill_level=fill_level,
        trace=carry(),  # the request that started it (none from a sweep)
    )


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    ts, _, room_id = cursor.partition("|")
    return instant(ts), word(room_id)
