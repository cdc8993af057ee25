"""Entry points shared by every process: an HTTP app under uvicorn, a loop until a signal."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable

import uvicorn

from infra import tracing
from infra.keys import UnsafeSecrets, check_secrets
from infra.logging import configure
from infra.settings import Settings, from_env


def serve(app_factory: str, port_of: Callable[[Settings], int]) -> None:
    """Run a Litestar app factory ("module:function") on its port; HOST sets the address."""
    settings = from_env()
    configure(settings.log_level, settings.log_format)
    tracing.setup(settings.tracing, f"turnpost-{app_factory.split('.')[1]}")
    refuse_unsafe_secrets(settings, warn=False)  # the app's lifespan warns in development mode
    uvicorn.run(
        app_factory,
        factory=True,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=port_of(settings),
        log_level=settings.log_level.lower(),
        log_config=None,  # uvicorn's lines through the root logger: one format, with the ids
        timeout_graceful_shutdown=5,
        proxy_headers=False,  # X-Forwarded-For counts only from TRUSTED_PROXIES (infra/ratelimit)
    )


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
