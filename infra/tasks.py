"""The bots' Celery broker as every process that sends them work sees it (worker, dispatcher,
scheduler), so they agree on the queues, the key prefix and the task's name and arguments.

Three queues, so that a long search never holds up a shorter move: `random` and `greedy`
turns wait in `bots`, `mcts` turns (and any level not known here, which may be as slow) in
`bots-mcts`, `expert` turns (4-20 s a move) in `bots-expert`, each consumed by its own worker
processes (deploy/stack.py, compose, k8s): an `mcts` turn queued behind an expert's search
would spend its 2 s waiting and play the cheap policy's move.

Tasks go through Redis' anonymous exchange straight to the queue's list: a routed publish
looks its queue up in a binding key that a flushed Redis has lost, and kombu then drops the
message silently; a direct one always lands where the worker reads. The queue names carry
no prefix of their own: `global_keyprefix` (STREAM_PREFIX) isolates every key of the broker.
"""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any

import msgspec
from celery import Celery
from kombu import Queue  # type: ignore[attr-defined]

from infra.servers.db import redis_options
from infra.settings import Settings

PLAY_TASK = "bots.play"  # args: (game, game_id, seat, level, version); kwargs: {fresh: bool}
# Task headers carrying what began a turn (infra/observability/context.py): `play` one trace, `play_many`
# one per turn keyed by turn_key (a retry of the batch's rest keeps its headers).
TRACE_HEADER = "turnpost_trace"
TRACES_HEADER = "turnpost_traces"
# When a turn was sent (time.time(), by the dispatcher or the scheduler's resend): a search
# gets what is left of its budget after the wait (services/bots/search.py), so a move queued
# behind other searches still lands within its budget. A retried or redelivered turn keeps
# the first stamp: late already, it plays at once (counted: turnpost_bot_search_without_time).
SENT_HEADER = "turnpost_sent"
# args: ([[game, game_id, seat, level, version, fresh], ...],): cheap turns, one task for all
PLAY_MANY_TASK = "bots.play_many"
MANY_AT_MOST = 32  # turns in one task: a batch that dies is played again whole
TASK_TIME_LIMIT = 60
# The envelope type of a bot turn dead-lettered on the games stream by the worker (no stored
# event has it): replayed, the dispatcher sends it as a fresh turn, its tries counted anew.
DEAD_TURN = "bot_turn"
FAST_QUEUE = "bots"
SEARCH_QUEUE = "bots-mcts"
EXPERT_QUEUE = "bots-expert"
QUEUE_OF_LEVEL = {
    "random": FAST_QUEUE,
    "greedy": FAST_QUEUE,
    "mcts": SEARCH_QUEUE,
    "expert": EXPERT_QUEUE,
}
BOT_QUEUES = (FAST_QUEUE, SEARCH_QUEUE, EXPERT_QUEUE)
# Webhook deliveries (services/notifier): a queue of their own, consumed by their own worker
# (an endpoint that times out holds no bot turn back), and an app of their own, so a bots
# worker started without -Q never takes a task it has not registered.
WEBHOOK_QUEUE = "webhooks"
DELIVER_TASK = "webhooks.deliver"  # args: (delivery_id,)


def queue_for(level: str) -> str:
    """The queue a level's turns wait in; an unknown level is kept away from the cheap ones."""
    return QUEUE_OF_LEVEL.get(level, SEARCH_QUEUE)


def searchers_key(queue: str) -> str:
    """The sorted set of a search queue's processes at work (member: host:pid, score: when
    last seen; without the prefix), so that a search's share of the budget counts every
    worker on its queue (services/bots/worker.py)."""
    return f"{queue}:searchers"


def celery_app(
    settings: Settings,
    name: str = "turnpost-bots",
    queues: tuple[str, ...] = BOT_QUEUES,
) -> Celery:
    """The broker's client and worker settings; `queues`: what a worker without -Q takes
    (the first is where a task without a queue goes)."""
    app = Celery(name, broker=settings.redis_url)
    app.conf.update(
        task_queues=[Queue(q) for q in queues],  # type: ignore[no-untyped-call]
        task_default_queue=queues[0],
        task_default_exchange="",
        task_default_routing_key=queues[0],
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            # far above the task time limit, so a slow task is not handed out twice
            "visibility_timeout": TASK_TIME_LIMIT * 10,
            "global_keyprefix": settings.stream_prefix,
            # timeouts, TCP keepalives, a PING before reusing an idle connection (infra/servers/db.py)
            **redis_options(settings),
        },
        worker_hijack_root_logger=False,
    )
    return app


def turn_key(game_id: str, version: int, seat: int) -> str:
    return f"{game_id}:{version}:{seat}"


def send_bot_turn(
    app: Celery,
    settings: Settings,
    game: str,
    game_id: str,
    seat: int,
    level: str,
    version: int,
    trace: dict[str, str] | None = None,
) -> None:
    """Enqueue one bot turn through Celery's own client (blocking; the scheduler's resends)."""
    queue = queue_for(level)
    headers: dict[str, Any] = {SENT_HEADER: time.time()}
    if trace:
        headers[TRACE_HEADER] = trace
    app.send_task(
        PLAY_TASK,
        args=(game, game_id, seat, level, version),
        queue=queue,
        exchange="",
        routing_key=queue,
        headers=headers,
    )


class TaskMessage(msgspec.Struct, kw_only=True):
    body: str
    headers: dict[str, Any]
    properties: dict[str, Any]
    content_encoding: str = msgspec.field(default="utf-8", name="content-encoding")
    content_type: str = msgspec.field(default="application/json", name="content-type")


_NO_CALLBACKS = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def bot_turn_message(
    settings: Settings,
    game: str,
    game_id: str,
    seat: int,
    level: str,
    version: int,
    fresh: bool = False,
    trace: dict[str, str] | None = None,
) -> tuple[str, bytes]:
    """(Redis list key, message) of one bot turn, as `send_bot_turn` would push it: Celery's
    task protocol 2 in kombu's Redis envelope. The dispatcher pushes it itself, in one round
    trip per batch and without a thread (tests/integration/test_bot_queues.py runs it
    through a real worker)."""
    args = [game, game_id, seat, level, version]
    kwargs = {"fresh": True} if fresh else {}
    headers: dict[str, Any] = {SENT_HEADER: time.time()}
    if trace:
        headers[TRACE_HEADER] = trace
    return task_message(
        settings, PLAY_TASK, queue_for(level), args, kwargs, "turnpost-dispatcher", headers
    )


def bot_turns_message(
    settings: Settings,
    turns: list[tuple[str, str, int, str, int, bool]],
    traces: dict[str, dict[str, str]] | None = None,
) -> tuple[str, bytes]:
    """(Redis list key, message) of one task playing several cheap turns in turn (each
    `(game, game_id, seat, level, version, fresh)`, every level on the cheap queue): Celery's
    cost per task (about 0.8 ms of the worker's CPU, tests/bench/bots.py) paid once for all."""
    queue = queue_for(turns[0][3])
    assert all(queue_for(t[3]) == queue == FAST_QUEUE for t in turns)
    headers = {TRACES_HEADER: traces} if traces else None
    return task_message(
        settings,
        PLAY_MANY_TASK,
        queue,
        [[list(t) for t in turns]],
        {},
        "turnpost-dispatcher",
        headers,
    )


def task_message(
    settings: Settings,
    task: str,
    queue: str,
    args: list[Any],
    kwargs: dict[str, Any] | None = None,
    origin: str = "turnpost",
    extra_headers: dict[str, Any] | None = None,
) -> tuple[str, bytes]:
    """(Redis list key, message) of one task on `queue` as Celery's own client would push it
    (task protocol 2 in kombu's Redis envelope, through the anonymous exchange), for a
    process that pushes its tasks itself with its own Redis client."""
    task_id = str(uuid.uuid4())
    kwargs = kwargs or {}
    body = msgspec.json.encode([args, kwargs, _NO_CALLBACKS])
    message = TaskMessage(
        body=base64.b64encode(body).decode(),
        headers={
            "lang": "py",
            "task": task,
            "id": task_id,
            "shadow": None,
            "eta": None,
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": [None, None],
            "root_id": task_id,
            "parent_id": None,
            "argsrepr": repr(tuple(args)),
            "kwargsrepr": repr(kwargs),
            "origin": origin,
            "ignore_result": True,
            **(extra_headers or {}),
        },
        properties={
            "correlation_id": task_id,
            "reply_to": "",
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    )
    return settings.stream_prefix + queue, msgspec.json.encode(message)
