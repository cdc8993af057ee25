"""Entry points shared by every process: an HTTP app under uvicorn, a loop until a signal."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable

import uvicorn

from infra.logging import configure
from infra.settings import Settings, from_env


def serve(app_factory: str, port_of: Callable[[Settings], int]) -> None:
    """Run a Litestar app factory ("module:function") on its port; HOST sets the address."""
    settings = from_env()
    configure(settings.log_level)
    uvicorn.run(
        app_factory,
        factory=True,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=port_of(settings),
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=5,
    )


def run_until_signalled(work: Callable[[Settings, asyncio.Event], Awaitable[None]]) -> None:
    """Run a worker loop until SIGINT or SIGTERM sets its stop event."""

    async def main() -> None:
        settings = from_env()
        configure(settings.log_level)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await work(settings, stop)

    asyncio.run(main())
