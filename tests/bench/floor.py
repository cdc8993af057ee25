"""The bots' Celery app with one more task that does nothing (`celery -A tests.bench.floor
worker`): what Celery itself costs per task with the bots' settings (acks_late, the broker
client per channel, quiet per-task lines), the floor under the CPU of a bot move."""

from __future__ import annotations

from services.bots.worker import app

NOTHING = "bench.nothing"


@app.task(name=NOTHING)
def nothing(*args: object, **kwargs: object) -> None:
    return None
