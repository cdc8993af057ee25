"""The bots' Celery broker as every process that sends them work sees it (worker, dispatcher,
scheduler), so they agree on the queue, the key prefix and the task's name and arguments.

Tasks go through Redis' anonymous exchange straight to the queue's list: a routed publish
looks its queue up in a binding key that a flushed Redis has lost, and kombu then drops the
message silently; a direct one always lands where the worker reads.
"""

from __future__ import annotations

from celery import Celery

from infra.settings import Settings

PLAY_TASK = "bots.play"  # args: (game, game_id, seat, level, version)
TASK_TIME_LIMIT = 60


def bots_queue(settings: Settings) -> str:
    return f"{settings.stream_prefix}bots"


def celery_app(settings: Settings, name: str = "turnpost-bots") -> Celery:
    app = Celery(name, broker=settings.redis_url)
    queue = bots_queue(settings)
    app.conf.update(
        task_default_queue=queue,
        task_default_exchange="",
        task_default_routing_key=queue,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            # far above the task time limit, so a slow task is not handed out twice
            "visibility_timeout": TASK_TIME_LIMIT * 10,
            "global_keyprefix": settings.stream_prefix,
        },
        worker_hijack_root_logger=False,
    )
    return app


def send_bot_turn(
    app: Celery, settings: Settings, game: str, game_id: str, seat: int, level: str, version: int
) -> None:
    queue = bots_queue(settings)
    app.send_task(
        PLAY_TASK,
        args=(game, game_id, seat, level, version),
        queue=queue,
        exchange="",
        routing_key=queue,
    )
