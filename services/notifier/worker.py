"""Celery app of the webhook deliveries: `celery -A services.notifier.worker worker -Q webhooks
-P threads -c 16` (a delivery waits on the network, not the CPU: threads, many).

A task names a delivery row (infra/notify/deliveries.py); an attempt claims the row
first (a lease as long as an attempt can take), so a task pushed twice, or a retry and the
sweep's resend, make one attempt at a time. Each attempt is signed anew with the endpoint's
secret as Standard Webhooks says (`webhook-id` the row's id, the same on every attempt;
`webhook-timestamp` now; `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`),
by the spec's own library (`standardwebhooks`), so what we sign is what every receiver's
`Webhook(secret).verify` checks, not our reading of the spec.

A failed attempt is retried after `webhook_backoff_base_s * 2**(n-1)` (capped, less up to
half at random so that a recovered endpoint is not hit by every retry at once) until the
delivery is `webhook_retry_for_s` old; an endpoint whose attempts have failed for
`webhook_disable_after_s` (or that answers 410 Gone) is disabled: its pending deliveries end
unsent, the notifier sends it nothing more. Other endpoints are not slowed: each attempt is
bounded by short connect and read timeouts, and reads no response body.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any, TypeVar

import asyncpg
import httpx
import msgspec
from celery import signals
from standardwebhooks import Webhook

from infra.notify.ssrf import guarded_client
from infra.observability.logging import configure
from infra.observability.metrics import WEBHOOK_ATTEMPTS, serve_metrics
from infra.servers.db import create_pool
from infra.servers.errors import is_transient
from infra.servers.process import settle_heap
from infra.settings import Settings, from_env
from infra.tasks import DELIVER_TASK, WEBHOOK_QUEUE, celery_app

log = logging.getLogger(__name__)
settings = from_env()

app = celery_app(settings, "turnpost-webhooks", queues=(WEBHOOK_QUEUE,))
app.conf.update(
    task_acks_late=True,  # a worker that dies mid-attempt: the task comes back
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=4,
)

T = TypeVar("T")
ERROR_CHARS = 500


class Attempted(msgspec.Struct, frozen=True):
    """One attempt's result: what the listing shows of it."""

    at: datetime
    status_code: int | None
    latency_ms: float
    error: str | None  # None: delivered

    @property
    def delivered(self) -> bool:
        return self.error is None


def backoff(attempt: int, base: float, cap: float) -> float:
    """Seconds before the retry that follows failed attempt `attempt` (1, 2, ...)."""
    return min(cap, base * 2.0 ** min(attempt - 1, 30)) * random.uniform(0.5, 1.0)


_CLAIM = """
UPDATE webhook_deliveries d
SET attempts = d.attempts + CASE WHEN w.disabled_at IS NULL THEN 1 ELSE 0 END,
    next_attempt_at = now() + make_interval(secs => $2),
    status = CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END,
    finished_at = CASE WHEN w.disabled_at IS NULL THEN NULL ELSE now() END
FROM webhooks w
WHERE d.id = $1 AND w.id = d.webhook_id AND d.status = 'pending'
  AND d.next_attempt_at <= now() + interval '1 second'
RETURNING d.attempts, d.body, w.id AS webhook_id, w.url, w.secret,
          w.disabled_at IS NOT NULL AS disabled"""

_FAILED = """
UPDATE webhooks SET
    failing_since = coalesce(failing_since, $2),
    disabled_at = CASE WHEN disabled_at IS NULL
                        AND ($3 OR now() - coalesce(failing_since, $2) >= make_interval(secs => $4))
                       THEN now() ELSE disabled_at END,
    disabled_reason = CASE WHEN disabled_at IS NOT NULL THEN disabled_reason
                           WHEN $3 THEN 'the endpoint answered 410 Gone'
                           WHEN now() - coalesce(failing_since, $2) >= make_interval(secs => $4)
                           THEN 'every attempt failed since ' || to_char(
                               coalesce(failing_since, $2) AT TIME ZONE 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS"Z"') END
WHERE id = $1 RETURNING disabled_at IS NOT NULL AS disabled"""

_RESCHEDULE = """
UPDATE webhook_deliveries SET
    status = CASE WHEN $2 OR now() - created_at >= make_interval(secs => $3)
                  THEN 'failed' ELSE 'pending' END,
    finished_at = CASE WHEN $2 OR now() - created_at >= make_interval(secs => $3)
                       THEN now() END,
    next_attempt_at = now() + make_interval(secs => $4)
WHERE id = $1 RETURNING status"""


class Courier:
    """What one worker process keeps: an event loop on a thread of its own with a Postgres
    pool (the task threads hand it their queries), and one HTTP client whose connections
    go only to addresses it checked (infra/notify/ssrf.py)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="courier", daemon=True)
        self.thread.start()
        self.pool: asyncpg.Pool = self.run(
            create_pool(settings.database_url, min_size=1, max_size=8, settings=settings)
        )
        self.http = guarded_client(
            settings.webhook_allow_private,
            settings.webhook_connect_timeout_s,
            settings.webhook_read_timeout_s,
        )
        self.lease_s = settings.webhook_connect_timeout_s + settings.webhook_read_timeout_s + 30

    def run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result()

    def attempt(self, delivery_id: str) -> float | None:
        """One attempt at a delivery, if it is still to make and no other holds it; the
        seconds until it is tried again, or None when it is done (delivered, failed, or
        not this task's to make)."""
        row = self.run(self.pool.fetchrow(_CLAIM, delivery_id, self.lease_s))
        if row is None or row["disabled"]:
            return None
        attempted = self.post(delivery_id, row["url"], row["secret"], row["body"])
        wait = backoff(
            row["attempts"],
            self.settings.webhook_backoff_base_s,
            self.settings.webhook_backoff_max_s,
        )
        status = self.run(
            self.settle(delivery_id, row["attempts"], row["webhook_id"], attempted, wait)
        )
        WEBHOOK_ATTEMPTS.labels("delivered" if attempted.delivered else "failed").inc()
        if attempted.delivered:
            return None
        log.info(
            "webhook delivery %s attempt %d failed: %s (%s)",
            delivery_id,
            row["attempts"],
            attempted.error,
            "retrying" if status == "pending" else status,
        )
        return wait if status == "pending" else None

    def post(self, delivery_id: str, url: str, secret: str, body: str) -> Attempted:
        now = datetime.now(UTC)
        headers = {
            "content-type": "application/json",
            "webhook-id": delivery_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(secret).sign(delivery_id, now, body),
        }
        start = time.perf_counter()
        try:
            with self.http.stream("POST", url, content=body.encode(), headers=headers) as reply:
                code = reply.status_code  # the body is not read: it could be endless
        except httpx.HTTPError as exc:
            failed = f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]
            return Attempted(now, None, _ms_since(start), failed)
        latency = _ms_since(start)
        error = None if 200 <= code < 300 else f"the endpoint answered {code}"
        return Attempted(now, code, latency, error)

    async def settle(
        self, delivery_id: str, n: int, webhook_id: Any, attempted: Attempted, wait: float
    ) -> str:
        s = self.settings
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                """INSERT INTO webhook_attempts
                   (delivery_id, attempt, at, status_code, latency_ms, error)
                   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING""",
                delivery_id,
                n,
                attempted.at,
                attempted.status_code,
                attempted.latency_ms,
                attempted.error,
            )
            if attempted.delivered:
                await conn.execute(
                    """UPDATE webhook_deliveries SET status = 'delivered', finished_at = now()
                       WHERE id = $1""",
                    delivery_id,
                )
                await conn.execute(
                    """UPDATE webhooks SET failing_since = NULL
                       WHERE id = $1 AND failing_since IS NOT NULL""",
                    webhook_id,
                )
                return "delivered"
            gone = attempted.status_code == 410
            disabled = await conn.fetchval(
                _FAILED, webhook_id, attempted.at, gone, s.webhook_disable_after_s
            )
            return str(
                await conn.fetchval(
                    _RESCHEDULE, delivery_id, bool(disabled), s.webhook_retry_for_s, wait
                )
            )

    def close(self) -> None:
        self.http.close()
        self.run(self.pool.close())
        self.loop.call_soon_threadsafe(self.loop.stop)


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


_courier: Courier | None = None
_lock = threading.Lock()


def courier() -> Courier:
    global _courier
    with _lock:
        if _courier is None:
            _courier = Courier(settings)
        return _courier


@signals.worker_init.connect  # before a prefork pool forks: its children share the frozen pages
@signals.worker_ready.connect  # solo and threads pools: all that startup made, tasks run here
def _settle_heap(**_: object) -> None:
    settle_heap()


@signals.setup_logging.connect
def _setup_logging(loglevel: int | str | None = None, **_: object) -> None:
    configure(loglevel or settings.log_level, settings.log_format)  # as every process logs


@signals.worker_init.connect
def _serve_metrics(**_: object) -> None:
    serve_metrics(settings.metrics_port)  # METRICS_PORT; 0: none


@signals.worker_shutdown.connect  # type: ignore[untyped-decorator]
def _close(**_: object) -> None:
    if _courier is not None:
        _courier.close()


@app.task(name=DELIVER_TASK, bind=True, max_retries=None, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver(self: Any, delivery_id: str) -> None:
    try:
        retry_in = courier().attempt(delivery_id)
    except Exception as exc:
        if is_transient(exc):  # Postgres away: not the endpoint's fault, nothing counted
            raise self.retry(exc=exc, countdown=min(2**self.request.retries, 60)) from exc
        raise
    if retry_in is not None:
        raise self.retry(countdown=retry_in)
