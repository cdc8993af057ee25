"""Prometheus metrics through `prometheus-client`, the Prometheus project's own Python client.

The metrics live in the client's default registry, one per process, as the client means
them to: a counter is bumped where the thing happens, and `/metrics` (HTTP services) or a
metrics port (every other process, `serve_metrics`) shows them all. Labels are bounded: a
route's template, never its path; a game's key, never a game id; a stream's name.

A Celery worker with a prefork pool counts in its children: with PROMETHEUS_MULTIPROC_DIR
set (an empty folder of its own, before the process starts), the client keeps every
process' values in files there and the parent's port adds them up (the client's
multiprocess mode; `prepare_multiprocess`, `process_gone`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from litestar import Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

log = logging.getLogger(__name__)

if _counts := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # before the first metric is made
    os.makedirs(_counts, exist_ok=True)

HTTP_DURATION = Histogram(
    "turnpost_http_request_duration_seconds",
    "Time from a request to its response's headers, by route template and status",
    ["method", "route", "status"],
)
APPENDS = Counter(
    "turnpost_appends", "Commands appended to a game's events (not duplicates)", ["game"]
)
APPEND_BATCH = Histogram(
    "turnpost_append_batch_size",
    "Appends written by one statement (infra/eventstore/batches.py: games' moves in flight"
    " at once, together)",
    buckets=(1, 2, 4, 8, 16, 32, 64),
)
APPEND_CONFLICTS = Counter(
    "turnpost_append_conflicts",
    "Appends refused because the game's stream had moved on (optimistic concurrency)",
    ["game"],
)
LIVE_SUBSCRIBERS = Gauge(
    "turnpost_live_subscribers",
    "Open live feeds in this process",
    ["kind"],
    multiprocess_mode="livesum",
)  # kind: sse, long_poll
RELAY_LAG_SECONDS = Gauge(
    "turnpost_relay_lag_seconds",
    "Age of the oldest event the relay found unpublished at its last poll (0: none waiting)",
    multiprocess_mode="mostrecent",
)
RELAY_LAG_EVENTS = Gauge(
    "turnpost_relay_lag_events",
    "Commands the relay found unpublished at its last poll (at most one batch)",
    multiprocess_mode="mostrecent",
)
BOT_TASK_SECONDS = Histogram(
    "turnpost_bot_task_seconds",
    "Time a bot worker spent on one turn (observe, decide, send), by game and level",
    ["game", "level"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
BOT_TASK_TURNS = Histogram(
    "turnpost_bot_task_turns",
    "Turns in one task of the cheap levels' (the dispatcher's batch, played in one task)",
    buckets=(1, 2, 4, 8, 16, 32),
)

SEARCH_WITHOUT_TIME = Counter(
    "turnpost_bot_search_without_time_total",
    "mcts moves played at once as the search's playout policy would: the wait since the turn "
    "was sent (the queue, a retry, a redelivery, or a clock ahead of the sender's) took the "
    "whole budget",
    ["game"],
)
STREAM_PENDING = Gauge(
    "turnpost_stream_pending",
    "Entries of a stream handed to a consumer of the group and not acked yet",
    ["stream", "group"],
    multiprocess_mode="mostrecent",
)
STREAM_LAG = Gauge(
    "turnpost_stream_lag",
    "Entries of a stream not yet read by any consumer of the group (its backlog)",
    ["stream", "group"],
    multiprocess_mode="mostrecent",
)
DEADLETTERS = Counter(
    "turnpost_deadletters",
    "Messages this process gave up on and moved to <stream>:dead, by stream and group",
    ["stream", "group"],
)
DEADLETTERS_WAITING = Gauge(
    "turnpost_deadletters_waiting",
    "Entries of <stream>:dead now (every group's; gone when replayed)",
    ["stream"],
    multiprocess_mode="mostrecent",
)
SCHEDULER_LATENESS = Histogram(
    "turnpost_scheduler_lateness_seconds",
    "How long after a seat's deadline the scheduler sent its timeout (a resend counts again)",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300),
)
WEBHOOK_ATTEMPTS = Counter(
    "turnpost_webhook_attempts",
    "Webhook delivery attempts by outcome (delivered, failed)",
    ["outcome"],
)


@get("/metrics", include_in_schema=False, sync_to_thread=False)
def metrics_endpoint() -> Response[bytes]:
    """The process' metrics in the text exposition format. Internal: the gateway and the
    Ingress route only /v1/*, and it must stay so (no auth here)."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


_TIMERS: dict[tuple[str, str, int], Histogram] = {}  # labelled children, each made once


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """One request's time to its response's headers (infra/http/edge.py): its route's template
    (bounded), its method and status."""
    key = (method, route, status)
    timer = _TIMERS.get(key)
    if timer is None:
        timer = _TIMERS[key] = HTTP_DURATION.labels(method, route, str(status))
    timer.observe(seconds)


def multiprocess_dir() -> Path | None:
    """PROMETHEUS_MULTIPROC_DIR: set, this process counts in files the parent adds up."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(folder) if folder else None


def prepare_multiprocess() -> None:
    """Before a pool forks: forget the files of processes that are gone (a worker restarted
    in the same folder), so their counts do not add to ours. Ours stay (made at import)."""
    folder = multiprocess_dir()
    if folder is None:
        return
    mine = str(os.getpid())
    for db in folder.glob("*.db"):
        if db.stem.rpartition("_")[2] != mine:
            db.unlink(missing_ok=True)


def process_gone(pid: int) -> None:
    """A pool's child ended: its live gauges stop counting (counters and histograms stay)."""
    if multiprocess_dir() is not None:
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def serve_metrics(port: int) -> None:
    """The process' metrics on `port` (a thread of its own); nothing when the port is 0.

    A port already taken is logged, not fatal: a process without metrics is better than a
    stack that does not start (two development stacks on one machine)."""
    if not port:
        return
    registry: CollectorRegistry = REGISTRY
    if multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    try:
        start_http_server(port, registry=registry)
    except OSError as exc:
        log.error("metrics: cannot listen on :%d (%s); this process shows none", port, exc)
        return
    log.info("metrics on :%d/metrics", port)
