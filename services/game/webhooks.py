"""/v1/me/webhooks: a player's endpoints for notifications (issue 11), and their deliveries.

Registering checks the URL (infra/notify/ssrf.py: public addresses only, https, unless
the settings allow otherwise), and the delivery worker checks the address again when it
connects. The secret is shown once, in the 201; it signs every delivery (Standard Webhooks).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

import redis.asyncio as aioredis
from litestar import Litestar, Request, delete, get, post
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, QueryParameter

from contracts.notifications import (
    NOTIFICATION_TYPES,
    ROOM_NEWS_TYPES,
    Deliveries,
    NewWebhook,
    QueuedTest,
    Webhook,
    WebhookCreated,
    Webhooks,
)
from contracts.problems import ProblemError
from infra.auth.bearer import Principal
from infra.http.common import authenticate, strictly
from infra.http.openapi import SECURITY, problems
from infra.notify.ssrf import UnsafeURL, vet_host, vet_url
from infra.servers.db import create_pool, redis_options
from infra.settings import Settings
from services.game.service import GameService
from services.game.webhook_store import (
    MemoryWebhookStore,
    PostgresWebhookStore,
    TooMany,
    WebhookStore,
)

UNKNOWN_WEBHOOK = {404: ["unknown_webhook"]}
REFUSED_URL = ["invalid_webhook_url", "webhook_url_forbidden", "webhook_url_unresolvable"]

# What the service sends to an endpoint (services/notifier/worker.py), for the document's
# `webhooks`: its body's type is a component, so a client generator makes the type even where
# it reads no `webhooks`; one that does reads the signature's headers and the answers too.
_SIGNED = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "The delivery's id, the same on every retry of it: deduplicate by it",
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "When this attempt was signed (Unix seconds)",
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` under the endpoint's "
        "`whsec_` secret (Standard Webhooks: `Webhook(secret).verify(body, headers)`)",
    },
]
_ANSWERS = {
    "2XX": {"description": "Delivered: not sent again"},
    "410": {"description": "Gone: the endpoint is disabled, and nothing more is sent to it"},
    "default": {
        "description": "Any other answer, or none within the timeouts (3 s to connect, 5 s per"
        " read), is a failed attempt: retried with backoff for a day"
    },
}


def _delivery(operation_id: str, summary: str, body: str) -> dict[str, Any]:
    return {
        "post": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": _SIGNED,
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/{body}"}}
                },
            },
            "responses": _ANSWERS,
        }
    }


DELIVERIES = {
    "gameNews": _delivery(
        "deliverGameNews",
        "A player's news (`your_turn`, `deadline_soon`, `game_started`, `game_finished`, "
        "`match_found`), "
        "posted to each endpoint registered for its type and game",
        "WebhookPayload",
    ),
    "roomNews": _delivery(
        "deliverRoomNews",
        "A room's news for a player (`invited`, `rematch_offered`), posted to each endpoint "
        "registered for its type (and for no one game)",
        "RoomWebhookPayload",
    ),
    "webhookTest": _delivery(
        "deliverWebhookTest",
        "What `POST /v1/me/webhooks/{webhook_id}/test` sends",
        "WebhookTest",
    ),
}


@contextlib.asynccontextmanager
async def webhook_store(app: Litestar) -> AsyncIterator[None]:
    """The app's WebhookStore: Postgres and the broker's Redis, or in memory when embedded."""
    settings: Settings = app.state.settings
    if app.state.embedded:
        app.state.webhooks = MemoryWebhookStore()
        yield
        return
    pool = await create_pool(settings.database_url, min_size=1, max_size=4, settings=settings)
    r = aioredis.Redis.from_url(settings.redis_url, **redis_options(settings))
    app.state.webhooks = PostgresWebhookStore(pool, r, settings)
    try:
        yield
    finally:
        await r.aclose()
        await pool.close()


def _store(request: Request[Any, Any, Any]) -> WebhookStore:
    store: WebhookStore = request.app.state.webhooks
    return store


def _settings(request: Request[Any, Any, Any]) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _who(request: Request[Any, Any, Any]) -> Principal:
    return await authenticate(request)


def _hook_id(webhook_id: str) -> str:
    try:
        return str(uuid.UUID(webhook_id))
    except ValueError:
        raise ProblemError(404, "unknown_webhook", "you have no such webhook") from None


@post(
    "/v1/me/webhooks",
    operation_id="createWebhook",
    summary="Register an endpoint for the caller's notifications (all their games, or one); "
    "the signing secret is in this answer only",
    status_code=201,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        codes={
            403: ["not_seated"],
            404: ["unknown_game"],
            409: ["too_many_webhooks"],
            422: [*REFUSED_URL, "room_news_for_one_game"],
        },
        body=True,
    ),
)
async def create_webhook(
    data: Annotated[
        NewWebhook,
        Body(
            description=f"`events`: any of {', '.join(NOTIFICATION_TYPES)}",
            examples=[
                Example(
                    summary="your turn, in every game",
                    value={"url": "https://example.com/turnpost", "events": ["your_turn"]},
                )
            ],
        ),
    ],
    request: Request[Any, Any, Any],
) -> WebhookCreated:
    who = await _who(request)
    data = await strictly(request, data)
    settings = _settings(request)
    try:
        host, port = vet_url(data.url, settings.webhook_allow_http)
        await vet_host(host, port, settings.webhook_allow_private)
    except UnsafeURL as exc:
        raise ProblemError(422, exc.code, str(exc)) from exc
    game_id = None
    if data.game_id is not None:
        if rooms := [e for e in data.events if e in ROOM_NEWS_TYPES]:
            raise ProblemError(
                422,
                "room_news_for_one_game",
                f"{', '.join(rooms)}: a room's news, never one game's; register them on an "
                "endpoint of no one game",
            )
        svc: GameService = request.app.state.service
        record = await svc.record(data.game_id)  # 404 unknown_game
        if record.seat_of(who.player_id) is None:
            raise ProblemError(403, "not_seated", "you have no seat in this game")
        game_id = record.id
    try:
        hook, secret = await _store(request).create(
            who.player_id, data.url, data.events, game_id, settings.webhook_max_per_player
        )
    except TooMany:
        raise ProblemError(
            409,
            "too_many_webhooks",
            f"you have {settings.webhook_max_per_player} webhooks, as many as one may;"
            " delete one first",
        ) from None
    return WebhookCreated(**{f: getattr(hook, f) for f in hook.__struct_fields__}, secret=secret)


@get(
    "/v1/me/webhooks",
    operation_id="listWebhooks",
    summary="The caller's endpoints (disabled ones say when and why), oldest first",
    security=SECURITY,
    responses=problems(400, 401),
)
async def list_webhooks(request: Request[Any, Any, Any]) -> Webhooks:
    who = await _who(request)
    return Webhooks(items=await _store(request).of_player(who.player_id))


@delete(
    "/v1/me/webhooks/{webhook_id:str}",
    operation_id="deleteWebhook",
    summary="Remove an endpoint: nothing more is delivered to it, its deliveries forgotten",
    status_code=204,
    security=SECURITY,
    responses=problems(400, 401, 404, codes=UNKNOWN_WEBHOOK),
)
async def delete_webhook(webhook_id: FromPath[str], request: Request[Any, Any, Any]) -> None:
    who = await _who(request)
    if not await _store(request).delete(who.player_id, _hook_id(webhook_id)):
        raise ProblemError(404, "unknown_webhook", "you have no such webhook")


@post(
    "/v1/me/webhooks/{webhook_id:str}/enable",
    operation_id="enableWebhook",
    summary="Deliver again to an endpoint that was disabled after failing",
    status_code=200,
    security=SECURITY,
    responses=problems(400, 401, 404, codes=UNKNOWN_WEBHOOK),
)
async def enable_webhook(webhook_id: FromPath[str], request: Request[Any, Any, Any]) -> Webhook:
    who = await _who(request)
    hook = await _store(request).enable(who.player_id, _hook_id(webhook_id))
    if hook is None:
        raise ProblemError(404, "unknown_webhook", "you have no such webhook")
    return hook


@get(
    "/v1/me/webhooks/{webhook_id:str}/deliveries",
    operation_id="listWebhookDeliveries",
    summary="An endpoint's recent deliveries, newest first, each with every attempt "
    "(time, HTTP status, latency, error)",
    security=SECURITY,
    responses=problems(400, 401, 404, codes=UNKNOWN_WEBHOOK),
)
async def webhook_deliveries(
    webhook_id: FromPath[str],
    request: Request[Any, Any, Any],
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
) -> Deliveries:
    who = await _who(request)
    store = _store(request)
    hook_id = _hook_id(webhook_id)
    if await store.get(who.player_id, hook_id) is None:
        raise ProblemError(404, "unknown_webhook", "you have no such webhook")
    return Deliveries(items=await store.deliveries(who.player_id, hook_id, limit))


@post(
    "/v1/me/webhooks/{webhook_id:str}/test",
    operation_id="testWebhook",
    summary="Send the endpoint a signed `webhook_test` delivery (listed with its attempts)",
    status_code=202,
    security=SECURITY,
    responses=problems(400, 401, 404, 409, codes={**UNKNOWN_WEBHOOK, 409: ["webhook_disabled"]}),
)
async def send_test_webhook(
    webhook_id: FromPath[str], request: Request[Any, Any, Any]
) -> QueuedTest:
    who = await _who(request)
    store = _store(request)
    hook = await store.get(who.player_id, _hook_id(webhook_id))
    if hook is None:
        raise ProblemError(404, "unknown_webhook", "you have no such webhook")
    if hook.disabled:
        raise ProblemError(
            409, "webhook_disabled", "the webhook is disabled; enable it first (…/enable)"
        )
    return QueuedTest(delivery_id=await store.send_test(who.player_id, hook.id))


ROUTES = [
    create_webhook,
    list_webhooks,
    delete_webhook,
    enable_webhook,
    webhook_deliveries,
    send_test_webhook,
]
