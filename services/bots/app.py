"""The bots' Celery app (infra/tasks.py's, set for at-least-once: services/bots/worker.py
says how) and what a worker sets up as it starts: its broker clients, its secrets checked,
its metrics served, its logging. The tasks are services/bots/worker.py's, and so is the app
a worker runs: `celery -A services.bots.worker`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from celery import signals

from infra.observability.logging import configure
from infra.observability.metrics import prepare_multiprocess, serve_metrics
from infra.servers.process import refuse_unsafe_secrets
from infra.settings import from_env
from infra.tasks import TASK_TIME_LIMIT, celery_app

settings = from_env()

app = celery_app(settings)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_acks_on_failure_or_timeout=True,
    worker_prefetch_multiplier=1,
    task_time_limit=TASK_TIME_LIMIT,
    task_soft_time_limit=TASK_TIME_LIMIT - 10,
)


def _one_broker_client_per_channel() -> None:
    """kombu's Redis transport builds a new redis-py client for each ack and each note of
    an unacked task, two per task, and building one (its table of response callbacks) costs
    more CPU than the command it sends; one client per channel (a pool of connections
    behind it, as before) does the same work."""
    from kombu.transport import redis as kombu_redis

    channel = kombu_redis.Channel
    if not hasattr(channel, "conn_or_acquire") or not hasattr(channel, "_create_client"):
        return  # another kombu: leave it as it is

    @contextlib.contextmanager
    def conn_or_acquire(self: Any, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        cached = self.__dict__.get("_turnpost_client")
        if cached is None:
            cached = self.__dict__["_turnpost_client"] = self._create_client()
        yield cached

    channel.conn_or_acquire = conn_or_acquire


_one_broker_client_per_channel()


@signals.worker_init.connect
def _refuse_unsafe_secrets(**_: object) -> None:
    refuse_unsafe_secrets(settings)  # the worker signs the bots' commands


@signals.worker_init.connect
def _serve_metrics(**_: object) -> None:
    """METRICS_PORT: the worker's metrics there. A prefork pool's children count their turns
    in their own memory: with PROMETHEUS_MULTIPROC_DIR set (deploy/stack.py, compose, k8s
    do for the mcts worker) they count in files there, which this port adds up."""
    prepare_multiprocess()
    serve_metrics(settings.metrics_port)


@signals.setup_logging.connect
def _setup_logging(loglevel: int | str | None = None, **_: object) -> None:
    """The worker logs as every process does (infra/observability/logging.py: LOG_FORMAT, the ids bound
    for each turn), not in Celery's own format. Celery's two INFO lines per task
    ("received", "succeeded") cost more than a greedy move: shown at DEBUG only. Failures
    and retries still show."""
    configure(loglevel or settings.log_level, settings.log_format)
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        for name in ("celery.app.trace", "celery.worker.strategy"):
            logging.getLogger(name).setLevel(logging.WARNING)


def header(request: Any, name: str) -> Any:
    """A custom header of the task: an attribute of the request as a worker receives it,
    in `headers` when applied in place (eagerly)."""
    return getattr(request, name, None) or (request.headers or {}).get(name)
