"""Prometheus metrics through `prometheus-client`, the Prometheus project's own Python client.

The metrics live in the client's default registry, one per process, as the client means
them to: a counter is bumped where the thing happens, and `/metrics` (HTTP services) or a
metrics port (workers, `serve_metrics`) shows them all. Labels are bounded: a route's
template, never its path; a game's key, never a game id.
"""

from __future__ import annotations

import logging
import time

from litestar import Response, get
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    start_http_server,
)

log = logging.getLogger(__name__)

HTTP_DURATION = Histogram(
    "turnpost_http_request_duration_seconds",
    "Time from a request to its response's headers, by route template and status",
    ["method", "route", "status"],
)
APPENDS = Counter(
    "turnpost_appends", "Commands appended to a game's events (not duplicates)", ["game"]
)
APPEND_CONFLICTS = Counter(
    "turnpost_append_conflicts",
    "Appends refused because the game's stream had moved on (optimistic concurrency)",
    ["game"],
)
LIVE_SUBSCRIBERS = Gauge(
    "turnpost_live_subscribers", "Open live feeds in this process", ["kind"]
)  # kind: sse, long_poll
RELAY_LAG_SECONDS = Gauge(
    "turnpost_relay_lag_seconds",
    "Age of the oldest event the relay found unpublished at its last poll (0: none waiting)",
)
RELAY_LAG_EVENTS = Gauge(
    "turnpost_relay_lag_events",
    "Events the relay found unpublished at its last poll (at most one batch)",
)
BOT_TASK_SECONDS = Histogram(
    "turnpost_bot_task_seconds",
    "Time a bot worker spent on one turn (observe, decide, send), by game and level",
    ["game", "level"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)


@get("/metrics", include_in_schema=False, sync_to_thread=False)
def metrics_endpoint() -> Response[bytes]:
    """The process' metrics in the text exposition format. Internal: the gateway and the
    Ingress route only /v1/*, and it must stay so (no auth here)."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


class MetricsMiddleware(ASGIMiddleware):
    """One histogram observation per request: the route's template (bounded), its method and
    status, timed to the response's headers (an SSE stream counts until it opens)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        start = time.perf_counter()
        observed = False

        def observe(status: int) -> None:
            nonlocal observed
            if not observed:
                observed = True
                route = scope.get("path_template") or "unmatched"
                HTTP_DURATION.labels(str(scope.get("method", "GET")), route, str(status)).observe(
                    time.perf_counter() - start
                )

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                observe(message["status"])
            await send(message)

        try:
            await next_app(scope, receive, timed)
        except BaseException:
            observe(500)
            raise


def serve_metrics(port: int) -> None:
    """A worker's metrics on `port` (a thread of its own); nothing when the port is 0."""
    if port:
        start_http_server(port)
        log.info("metrics on :%d/metrics", port)
