"""Bots' names in a room: bots of one level told apart, so the log and the outcome do too."""

from __future__ import annotations

import asyncpg


async def bot_name(conn: asyncpg.Connection, room_id: str, level: str) -> str:
    """The first of "<level> bot", "<level> bot 2", "<level> bot 3"... that no other bot in
    the room is called. The caller holds the room (its seats change one at a time)."""
    taken = {
        r["name"]
        for r in await conn.fetch(
            """SELECT p.name FROM room_seats s JOIN players p ON p.id = s.player_id
               WHERE s.room_id = $1 AND p.bot IS NOT NULL""",
            room_id,
        )
    }
    name, n = f"{level} bot", 1
    while name in taken:
        n += 1
        name = f"{level} bot {n}"
    return name
