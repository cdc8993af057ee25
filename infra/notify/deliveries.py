"""Notifications into deliveries: which endpoints want them, one row per delivery, its task.

A delivery is written to Postgres before its task is pushed (the row is the truth; the task
only says "try it now"), and its id derives from (notification, endpoint): the same news
derived twice (a redelivered envelope, two notifiers, a sweep run again) is the same row,
and the same `webhook-id` for the receiver to deduplicate by. Pushing a task twice costs
nothing: an attempt first claims its row (services/notifier/worker.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.game import timestamp
from contracts.notifications import Notification, RoomNews, RoomWebhookPayload, WebhookPayload
from infra.settings import Settings
from infra.tasks import DELIVER_TASK, WEBHOOK_QUEUE, task_message

_NAMESPACE = uuid.UUID("4f1c1f0e-6a43-4d6b-9d0e-7e1b0c0f5a11")


class Hook(msgspec.Struct, frozen=True, kw_only=True):
    """An endpoint as the notifier matches it (not its URL or secret: the worker reads
    those when it delivers, so a deleted endpoint gets nothing more)."""

    id: str
    player_id: str
    events: list[str]
    game_id: str | None

    def wants(self, note: Notification | RoomNews) -> bool:
        """Its player's news of the kinds it asked for; an endpoint of one game gets that
        game's news only (no room's)."""
        return (
            note.player_id == self.player_id
            and note.type in self.events
            and self.game_id in (None, _game_of(note))
        )


def _game_of(note: Notification | RoomNews) -> str | None:
    return note.game_id if isinstance(note, Notification) else None


class NewDelivery(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    webhook_id: str
    type: str
    game_id: str | None
    body: str


def delivery_id(key: str, webhook_id: str) -> str:
    """The webhook-id of `key`'s news to one endpoint: the same however often derived."""
    return "msg_" + uuid.uuid5(_NAMESPACE, f"{key}|{webhook_id}").hex


def plan(
    notes: Sequence[Notification | RoomNews], hooks: Sequence[Hook], now: datetime
) -> list[NewDelivery]:
    """One delivery per (notification, endpoint that wants it)."""
    out = []
    for note in notes:
        body: str | None = None
        for hook in hooks:
            if not hook.wants(note):
                continue
            if body is None:
                body = msgspec.json.encode(_payload(note, now)).decode()
            out.append(
                NewDelivery(
                    id=delivery_id(note.key(), hook.id),
                    webhook_id=hook.id,
                    type=note.type,
                    game_id=_game_of(note),
                    body=body,
                )
            )
    return out


def _payload(note: Notification | RoomNews, now: datetime) -> WebhookPayload | RoomWebhookPayload:
    if isinstance(note, Notification):
        return WebhookPayload(type=note.type, timestamp=timestamp(now), data=note)
    return RoomWebhookPayload(type=note.type, timestamp=timestamp(now), data=note)


_HOOKS_OF_GAMES = """
SELECT DISTINCT gs.game_id::text AS of_game, w.id::text AS id, w.player_id, w.events,
       w.game_id::text AS game_id
FROM webhooks w JOIN game_seats gs ON gs.player_id = w.player_id
WHERE gs.game_id = ANY ($1::uuid[]) AND w.disabled_at IS NULL
  AND (w.game_id IS NULL OR w.game_id = gs.game_id)"""


async def hooks_of_games(
    conn: asyncpg.Pool | asyncpg.Connection, game_ids: Sequence[str]
) -> dict[str, list[Hook]]:
    """The live endpoints of each game's players, in one query: every game asked for is a
    key (most with no endpoint)."""
    out: dict[str, list[Hook]] = {str(uuid.UUID(g)): [] for g in game_ids}
    for r in await conn.fetch(_HOOKS_OF_GAMES, [uuid.UUID(g) for g in out]):
        hook = Hook(id=r["id"], player_id=r["player_id"], events=list(r["events"]),
                    game_id=r["game_id"])  # fmt: skip
        out[r["of_game"]].append(hook)
    return out


async def hooks_of_players(
    conn: asyncpg.Pool | asyncpg.Connection, player_ids: Sequence[str]
) -> list[Hook]:
    """The live endpoints of these players (for a room's news: of no game)."""
    rows = await conn.fetch(
        """SELECT id::text AS id, player_id, events, game_id::text AS game_id FROM webhooks
           WHERE player_id = ANY ($1::text[]) AND disabled_at IS NULL""",
        list(player_ids),
    )
    return [
        Hook(id=r["id"], player_id=r["player_id"], events=list(r["events"]), game_id=r["game_id"])
        for r in rows
    ]


async def hooks_of_game(conn: asyncpg.Pool | asyncpg.Connection, game_id: str) -> list[Hook]:
    """The live endpoints of the game's players (one query; none for most games)."""
    return (await hooks_of_games(conn, [game_id]))[str(uuid.UUID(game_id))]


# Inserted, or there already and not yet done: both are (re)sent. The CTE's insert and the
# outer select see the same snapshot, hence the union.
_RECORD = """
WITH new AS (
    INSERT INTO webhook_deliveries (id, webhook_id, type, game_id, body)
    SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[])
    ON CONFLICT (id) DO NOTHING RETURNING id)
SELECT id FROM new
UNION SELECT id FROM webhook_deliveries WHERE id = ANY ($1::text[]) AND status = 'pending'"""


async def record(conn: asyncpg.Pool | asyncpg.Connection, new: Sequence[NewDelivery]) -> list[str]:
    """Write the deliveries once each; the ids of those still to make."""
    if not new:
        return []
    rows = await conn.fetch(
        _RECORD,
        [d.id for d in new],
        [uuid.UUID(d.webhook_id) for d in new],
        [d.type for d in new],
        [uuid.UUID(d.game_id) if d.game_id else None for d in new],
        [d.body for d in new],
    )
    return [r["id"] for r in rows]


async def push(r: aioredis.Redis, settings: Settings, ids: Sequence[str]) -> None:
    """A delivery task for each id on the webhooks queue, in one round trip."""
    if not ids:
        return
    pipe = r.pipeline(transaction=False)
    for i in ids:
        key, message = task_message(
            settings, DELIVER_TASK, WEBHOOK_QUEUE, [i], origin="turnpost-notifier"
        )
        pipe.lpush(key, message)
    await pipe.execute()


def utcnow() -> datetime:
    return datetime.now(UTC)
