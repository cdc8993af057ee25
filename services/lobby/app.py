"""Lobby REST API v1 (Litestar): the routes of services/lobby/routes/, the web client at
/play/, the probes and the metrics, behind one edge (infra/http/edge.py)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Request, get

import contracts.lobby
import contracts.players
from infra.http.common import EXCEPTION_HANDLERS, check_background, check_ready, cors
from infra.http.edge import Edge
from infra.http.openapi import closed_structs, openapi_config
from infra.http.ratelimit import rate_limits
from infra.observability.metrics import metrics_endpoint
from infra.settings import Settings
from services.lobby.bootstrap import lifespan
from services.lobby.routes import catalog, invitations, matching, players, profiles, rooms
from services.lobby.web import web_routes


@get("/health", operation_id="health", include_in_schema=False)
async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Liveness: no Postgres, no Redis; only this process' own loops."""
    return check_background(request)


@get("/ready", operation_id="ready", include_in_schema=False)
async def ready(request: Request[Any, Any, Any]) -> dict[str, str]:
    return await check_ready(request)


def create_app(settings: Settings | None = None) -> Litestar:
    app = Litestar(
        route_handlers=[
            *players.ROUTES,
            *profiles.ROUTES,
            *catalog.ROUTES,
            *rooms.ROUTES,
            *matching.ROUTES,
            *invitations.ROUTES,
            health,
            ready,
            metrics_endpoint,
            *web_routes(),  # the reference web client at /play/ (clients/web)
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        cors_config=cors(settings),  # browsers: infra/http/common.py
        lifespan=[lifespan, rate_limits],  # rate_limits after: it reads the settings
        middleware=[Edge],  # ids, metrics, rate limits, body bounds, Allow: infra/http/edge.py
        openapi_config=openapi_config(
            "Turnpost lobby", closed=closed_structs(contracts.lobby, contracts.players)
        ),
        logging_config=None,  # infra.observability.logging configures the process from LOG_LEVEL
    )
    app.state.settings = settings
    return app
