"""Game service REST API v1 (Litestar): the routes of services/game/routes/, the live streams,
the webhooks, the probes and the metrics, behind one edge (infra/http/edge.py)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Request, get

import contracts.game
import contracts.notifications
from contracts.notifications import (
    Notification,
    RoomNews,
    RoomWebhookPayload,
    WebhookPayload,
    WebhookTest,
)
from games.registry import registry
from games.schemas import openapi_components
from infra.http.common import EXCEPTION_HANDLERS, check_background, check_ready, cors
from infra.http.edge import Edge
from infra.http.fastpath import FastLitestar
from infra.http.openapi import closed_structs, openapi_config, struct_components
from infra.http.ratelimit import rate_limits
from infra.observability.metrics import metrics_endpoint
from infra.settings import Settings
from services.game.bootstrap import lifespan
from services.game.maps import map_components
from services.game.routes import boards, chat, feeds, games, me, records, watch
from services.game.sse import STREAM_ITEMS, game_stream, live_feeds, my_stream
from services.game.webhooks import DELIVERIES as WEBHOOK_DELIVERIES
from services.game.webhooks import ROUTES as WEBHOOK_ROUTES
from services.game.webhooks import webhook_store


@get("/health", operation_id="health", include_in_schema=False)
async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Liveness: no Postgres, no Redis; only this process' own loops."""
    return check_background(request)


@get("/ready", operation_id="ready", include_in_schema=False)
async def ready(request: Request[Any, Any, Any]) -> dict[str, str]:
    return await check_ready(request)


def _components() -> dict[str, Any]:
    games = list(registry().values())
    components = openapi_components(games)
    described = {  # what legal-actions lists: an action and its words
        "allOf": [
            {"$ref": "#/components/schemas/AnyAction"},
            {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The action in words"}},
                "required": ["text"],
            },
        ],
        "description": "A legal action (`AnyAction`) with its `text`, for a person to read",
    }
    # what the service sends beside its answers: webhooks' bodies, /v1/me/stream's news
    sent = struct_components(
        WebhookPayload, RoomWebhookPayload, WebhookTest, Notification, RoomNews
    )
    return {
        **components,
        "DescribedAction": described,
        **map_components(games, components),
        **sent,
    }


def create_app(settings: Settings | None = None, embedded: bool = False) -> Litestar:
    app = FastLitestar(  # the move cycle's routes past Litestar's outer layers: infra/http/fastpath.py
        route_handlers=[
            *games.ROUTES,
            *feeds.ROUTES,
            *records.ROUTES,
            game_stream,
            *boards.ROUTES,
            *me.ROUTES,
            *watch.ROUTES,
            *chat.ROUTES,
            my_stream,
            *WEBHOOK_ROUTES,
            health,
            ready,
            metrics_endpoint,
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        cors_config=cors(settings),  # browsers: infra/http/common.py
        # the service's own first: the others read its settings (and live_feeds its service)
        lifespan=[lifespan, rate_limits, live_feeds, webhook_store],
        middleware=[Edge],  # ids, metrics, rate limits, body bounds, Allow: infra/http/edge.py
        openapi_config=openapi_config(
            "Turnpost game service",
            _components(),
            closed=closed_structs(contracts.game, contracts.notifications),
            webhooks=WEBHOOK_DELIVERIES,
            stream_items=STREAM_ITEMS,
        ),
        debug=False,
        logging_config=None,  # infra.observability.logging configures the process (LOG_LEVEL, LOG_FORMAT)
    )
    app.state.settings = settings
    app.state.embedded = embedded
    return app
