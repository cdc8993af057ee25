"""A player's webhook endpoints and their deliveries: Postgres, with an in-memory twin (the
embedded mode, where nothing delivers)."""

from __future__ import annotations

import base64
import secrets
import uuid
from datetime import UTC, datetime
from typing import Protocol

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.game import timestamp
from contracts.notifications import (
    Attempt,
    Delivery,
    NotificationType,
    Webhook,
    WebhookTest,
    WebhookTestData,
)
from infra.notify.deliveries import NewDelivery, push, record
from infra.settings import Settings


class TooMany(Exception):
    """The player has as many endpoints as one may."""


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _when(moment: datetime | None) -> str | None:
    return timestamp(moment) if moment is not None else None


class WebhookStore(Protocol):
    async def create(
        self,
        player_id: str,
        url: str,
        events: list[NotificationType],
        game_id: str | None,
        limit: int,
    ) -> tuple[Webhook, str]:
        """The new endpoint and its secret; TooMany when the player has `limit` already."""
        ...

    async def of_player(self, player_id: str) -> list[Webhook]: ...
    async def get(self, player_id: str, webhook_id: str) -> Webhook | None: ...
    async def delete(self, player_id: str, webhook_id: str) -> bool: ...
    async def enable(self, player_id: str, webhook_id: str) -> Webhook | None: ...
    async def deliveries(self, player_id: str, webhook_id: str, limit: int) -> list[Delivery]:
        """Newest first, each with its attempts (the endpoint is the player's: checked)."""
        ...

    async def send_test(self, player_id: str, webhook_id: str) -> str:
        """Queue a `webhook_test` delivery; its id."""
        ...


_HOOK = """id::text AS id, url, events, game_id::text AS game_id, created_at, disabled_at,
           disabled_reason, failing_since"""


def _hook(r: asyncpg.Record) -> Webhook:
    return Webhook(
        id=r["id"],
        url=r["url"],
        events=list(r["events"]),
        game_id=r["game_id"],
        created_at=timestamp(r["created_at"]),
        disabled=r["disabled_at"] is not None,
        disabled_at=_when(r["disabled_at"]),
        disabled_reason=r["disabled_reason"],
        failing_since=_when(r["failing_since"]),
    )


def _test_delivery(player_id: str, webhook_id: str) -> NewDelivery:
    now = datetime.now(UTC)
    body = WebhookTest(
        timestamp=timestamp(now), data=WebhookTestData(webhook_id=webhook_id, player_id=player_id)
    )
    return NewDelivery(
        id="msg_" + uuid.uuid4().hex,
        webhook_id=webhook_id,
        type="webhook_test",
        game_id=None,
        body=msgspec.json.encode(body).decode(),
    )


class PostgresWebhookStore:
    def __init__(self, pool: asyncpg.Pool, r: aioredis.Redis, settings: Settings) -> None:
        self.pool, self.r, self.settings = pool, r, settings

    async def create(
        self,
        player_id: str,
        url: str,
        events: list[NotificationType],
        game_id: str | None,
        limit: int,
    ) -> tuple[Webhook, str]:
        secret = new_secret()
        async with self.pool.acquire() as conn, conn.transaction():
            # one registration of a player at a time: the count holds until it commits
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('webhooks:' || $1))", player_id
            )
            held = await conn.fetchval(
                "SELECT count(*) FROM webhooks WHERE player_id = $1", player_id
            )
            if held >= limit:
                raise TooMany()
            row = await conn.fetchrow(
                f"""INSERT INTO webhooks (id, player_id, url, events, game_id, secret)
                    VALUES ($1, $2, $3, $4, $5, $6) RETURNING {_HOOK}""",
                uuid.uuid4(),
                player_id,
                url,
                list(dict.fromkeys(events)),
                uuid.UUID(game_id) if game_id else None,
                secret,
            )
        return _hook(row), secret

    async def of_player(self, player_id: str) -> list[Webhook]:
        rows = await self.pool.fetch(
            f"SELECT {_HOOK} FROM webhooks WHERE player_id = $1 ORDER BY created_at, id",
            player_id,
        )
        return [_hook(r) for r in rows]

    async def get(self, player_id: str, webhook_id: str) -> Webhook | None:
        row = await self.pool.fetchrow(
            f"SELECT {_HOOK} FROM webhooks WHERE id = $1 AND player_id = $2",
            uuid.UUID(webhook_id),
            player_id,
        )
        return _hook(row) if row else None

    async def delete(self, player_id: str, webhook_id: str) -> bool:
        status = await self.pool.execute(
            "DELETE FROM webhooks WHERE id = $1 AND player_id = $2",
            uuid.UUID(webhook_id),
            player_id,
        )
        return bool(status.endswith(" 1"))

    async def enable(self, player_id: str, webhook_id: str) -> Webhook | None:
        row = await self.pool.fetchrow(
            f"""UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL,
                       failing_since = NULL
                WHERE id = $1 AND player_id = $2 RETURNING {_HOOK}""",
            uuid.UUID(webhook_id),
            player_id,
        )
        return _hook(row) if row else None

    async def deliveries(self, player_id: str, webhook_id: str, limit: int) -> list[Delivery]:
        rows = await self.pool.fetch(
            """SELECT d.id, d.type, d.game_id::text AS game_id, d.created_at, d.status
               FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
               WHERE d.webhook_id = $1 AND w.player_id = $2
               ORDER BY d.created_at DESC, d.id LIMIT $3""",
            uuid.UUID(webhook_id),
            player_id,
            limit,
        )
        attempts: dict[str, list[Attempt]] = {r["id"]: [] for r in rows}
        for a in await self.pool.fetch(
            """SELECT delivery_id, attempt, at, status_code, latency_ms, error
               FROM webhook_attempts WHERE delivery_id = ANY ($1::text[])
               ORDER BY delivery_id, attempt""",
            list(attempts),
        ):
            attempts[a["delivery_id"]].append(
                Attempt(
                    attempt=a["attempt"],
                    at=timestamp(a["at"]),
                    status_code=a["status_code"],
                    latency_ms=a["latency_ms"],
                    error=a["error"],
                )
            )
        return [
            Delivery(
                id=r["id"],
                type=r["type"],
                game_id=r["game_id"],
                created_at=timestamp(r["created_at"]),
                status=r["status"],
                attempts=attempts[r["id"]],
            )
            for r in rows
        ]

    async def send_test(self, player_id: str, webhook_id: str) -> str:
        delivery = _test_delivery(player_id, webhook_id)
        await push(self.r, self.settings, await record(self.pool, [delivery]))
        return delivery.id


class MemoryWebhookStore:
    """The embedded mode's: endpoints kept, tests recorded, nothing ever sent."""

    def __init__(self) -> None:
        self.hooks: dict[str, tuple[str, Webhook]] = {}  # id -> (player, endpoint)
        self.sent: dict[str, list[Delivery]] = {}

    async def create(
        self,
        player_id: str,
        url: str,
        events: list[NotificationType],
        game_id: str | None,
        limit: int,
    ) -> tuple[Webhook, str]:
        if len(await self.of_player(player_id)) >= limit:
            raise TooMany()
        hook = Webhook(
            id=str(uuid.uuid4()),
            url=url,
            events=list(dict.fromkeys(events)),
            game_id=game_id,
            created_at=timestamp(datetime.now(UTC)),
            disabled=False,
            disabled_at=None,
            disabled_reason=None,
            failing_since=None,
        )
        self.hooks[hook.id] = (player_id, hook)
        return hook, new_secret()

    async def of_player(self, player_id: str) -> list[Webhook]:
        return [h for p, h in self.hooks.values() if p == player_id]

    async def get(self, player_id: str, webhook_id: str) -> Webhook | None:
        player, hook = self.hooks.get(webhook_id, ("", None))
        return hook if player == player_id else None

    async def delete(self, player_id: str, webhook_id: str) -> bool:
        if await self.get(player_id, webhook_id) is None:
            return False
        del self.hooks[webhook_id]
        return True

    async def enable(self, player_id: str, webhook_id: str) -> Webhook | None:
        return await self.get(player_id, webhook_id)

    async def deliveries(self, player_id: str, webhook_id: str, limit: int) -> list[Delivery]:
        return list(reversed(self.sent.get(webhook_id, [])))[:limit]

    async def send_test(self, player_id: str, webhook_id: str) -> str:
        d = _test_delivery(player_id, webhook_id)
        self.sent.setdefault(webhook_id, []).append(
            Delivery(
                id=d.id,
                type=d.type,
                game_id=None,
                created_at=timestamp(datetime.now(UTC)),
                status="pending",
                attempts=[],
            )
        )
        return d.id
