"""Entry points shared by every process: an HTTP app under uvicorn, a loop until a signal."""

from __future__ import annotations

import asyncio
import importlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn

from infra import tracing
from infra.keys import UnsafeSecrets, check_secrets
from infra.logging import configure
from infra.settings import Settings, from_env

_FACTORY_ENV = "TURNPOST_APP_FACTORY"


def serve(
    app_factory: str,
    port_of: Callable[[Settings], int],
    workers_of: Callable[[Settings], int] = lambda s: 1,
) -> None:
    """Run a Litestar app factory ("module:function") on its port; HOST sets the address.

    With `workers_of(settings)` > 1, uvicorn runs that many worker processes on the one
    socket, each made by `worker_app` (its logging and tracing set up as here)."""
    settings = from_env()
    configure(settings.log_level, settings.log_format)
    tracing.setup(settings.tracing, _service_name(app_factory))
    refuse_unsafe_secrets(settings, warn=False)  # the app's lifespan warns in development mode
    workers = max(1, workers_of(settings))
    if workers > 1:
        os.environ[_FACTORY_ENV] = app_factory  # read by worker_app in each spawned worker
    uvicorn.run(
        "infra.process:worker_app" if workers > 1 else app_factory,
        factory=True,
        workers=workers,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=port_of(settings),
        log_level=settings.log_level.lower(),
        log_config=None,  # uvicorn's lines through the root logger: one format, with the ids
        timeout_graceful_shutdown=5,
        proxy_headers=False,  # X-Forwarded-For counts only from TRUSTED_PROXIES (infra/ratelimit)
    )


def _service_name(app_factory: str) -> str:
    return f"turnpost-{app_factory.split('.')[1]}"


def worker_app() -> Any:
    """The app of one uvicorn worker process (serve with several workers): the worker is a
    fresh interpreter, so logging and tracing are set up again before the factory runs."""
    app_factory = os.environ[_FACTORY_ENV]
    settings = from_env()
    configure(settings.log_level, settings.log_format)
    tracing.setup(settings.tracing, _service_name(app_factory))
    module, _, name = app_factory.partition(":")
    return getattr(importlib.import_module(module), name)()


def run_until_signalled(
    work: Callable[[Settings, asyncio.Event], Awaitable[None]], *, uses_secrets: bool = False
) -> None:
    """Run a worker loop until SIGINT or SIGTERM sets its stop event.

    `uses_secrets`: the loop signs or verifies with the keys, so weak ones stop it at start.
    """

    async def main() -> None:
        settings = from_env()
        configure(settings.log_level, settings.log_format)
        tracing.setup(settings.tracing, f"turnpost-{work.__module__.rsplit('.', 1)[-1]}")
        if uses_secrets:
            refuse_unsafe_secrets(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await work(settings, stop)

    asyncio.run(main())


def refuse_unsafe_secrets(settings: Settings, warn: bool = True) -> None:
    """Exit with status 2 and the reason when the keys are forgeable, unless in development mode."""
    try:
        check_secrets(settings, warn=warn)
    except UnsafeSecrets as exc:
        sys.stderr.write(f"turnpost: refusing to start: {exc}\n")
        raise SystemExit(2) from None
