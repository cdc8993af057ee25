"""Entry points shared by every process: an HTTP app under uvicorn, a loop until a signal."""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import uvicorn

from infra.auth.keys import UnsafeSecrets, check_secrets
from infra.observability import tracing
from infra.observability.logging import configure
from infra.settings import Settings, from_env

_FACTORY_ENV = "TURNPOST_APP_FACTORY"
HTTP_PROTOCOL = "infra.http.wire:BoundedHttpTools"  # httptools, a response in one send, bounded


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
        "infra.servers.process:worker_app" if workers > 1 else partial(_app_of, app_factory),
        factory=True,
        workers=workers,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=port_of(settings),
        log_level=settings.log_level.lower(),
        log_config=None,  # uvicorn's lines through the root logger: one format, with the ids
        # A line per request only where INFO is logged: otherwise uvicorn still made each
        # line's arguments (the client's address, the path quoted) to have them dropped.
        access_log=logging.getLogger("uvicorn.access").isEnabledFor(logging.INFO),
        timeout_graceful_shutdown=5,
        proxy_headers=False,  # X-Forwarded-For counts only from TRUSTED_PROXIES (infra/ratelimit)
        http=HTTP_PROTOCOL,
        server_header=False,  # no `server: uvicorn`: nothing to tell a stranger, one header less
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
    return _app_of(app_factory)


def _app_of(app_factory: str) -> Any:
    """The app the factory makes, with the heap settled once its startup is done."""
    module, _, name = app_factory.partition(":")
    app = getattr(importlib.import_module(module), name)()
    app.on_startup.append(lambda _app: settle_heap())
    return app


# Net allocations of tracked objects between two young collections (Python's default: 700).
# At 700, the objects of the requests in flight (16 clients' worth) filled the young
# generation again and again: it was collected about every 11 move cycles for 0.2 ms, each
# time finding them alive and promoting them, and full collections (11-18 ms each) followed
# every second or so: 30 ms of the collector per 1,000 cycles, 4 % of the game service.
# Collected every 5,000, it runs when something has really grown: with no reference cycle
# left per move (tests/unit/test_no_cycles.py), `python -m tests.bench.compare_actions
# <worktree> --gc`, 3 rounds at c16: the collector 30 -> 2.3 ms per 1,000 cycles, no full
# collection in the window, the game service's CPU per cycle 0.96x (paired), the POST's p99
# 0.85x; the longest pause 10.7 ms (a middle collection; the full ones it replaced took
# 17.5). Paced at 480 cycles a second, the POST's p99 5.9 -> 5.7 ms in one run, 6.3 -> 7.8 in
# another, whose rounds ran from 5.4 to 10.2 ms on either side: the paced tail is noise here
# (4-6 young collections of at most 3.9 ms in a window of 7,200 cycles). Before the cycles
# went, 4,000 and 10,000 read 1.38x and 1.25x there, one run of 2 rounds each: as noisy.
YOUNG_THRESHOLD = 5_000


def settle_heap() -> None:
    """Collect once, then freeze what survived.

    The modules, classes, functions, pools and settings made at startup live as long as the
    process: frozen, the collector no longer walks them. Without it, each full collection of
    a game service at c16 walked some 100,000 objects of startup for 60-90 ms of CPU while
    every request waited, about every 1.5 s. `python -m tests.bench.compare_actions
    <worktree> --gc`, three rounds: the full collection's median pause 59-73 -> 8-9 ms, its
    CPU per 1,000 action cycles 50 -> 7 ms, the POST's p99 0.70x.

    Then the young generation is collected every YOUNG_THRESHOLD allocations (Python's 700
    otherwise): see there. Only for processes: a test that made an app and froze the test
    run's heap would keep its cycles for ever."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


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
        try:
            settle_heap()
            await work(settings, stop)
        finally:  # while the loop runs: a closed uvloop loop keeps its handlers, so that a
            # second SIGINT or SIGTERM during the exit (a tracer's flush) would do nothing
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(main())


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop where it is installed (uvicorn's `loop="auto"` chooses it likewise for
    the HTTP services), else asyncio's. A worker loop's CPU is round trips to Postgres and
    Redis; on uvloop the relay and the notifier used 0.94x theirs under the move-cycle load."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
        return None
    return uvloop.new_event_loop


def refuse_unsafe_secrets(settings: Settings, warn: bool = True) -> None:
    """Exit with status 2 and the reason when the keys are forgeable, unless in development mode."""
    try:
        check_secrets(settings, warn=warn)
    except UnsafeSecrets as exc:
        sys.stderr.write(f"turnpost: refusing to start: {exc}\n")
        raise SystemExit(2) from None
