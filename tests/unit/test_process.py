"""Every process settles its heap once started: what startup made is frozen out of the
collector's walks. Each check runs in a fresh interpreter: freezing this test run's heap
would keep its cycles for ever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from infra.servers import process

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str) -> dict[str, object]:
    env = {**os.environ, "TURNPOST_DEV": "1", "LOG_LEVEL": "WARNING"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_http_service_settles_its_heap_once_its_startup_is_done() -> None:
    seen = run_python(
        "import gc, json\n"
        "from infra.servers.process import _app_of\n"
        "app = _app_of('services.game.app:create_app')\n"
        "before = gc.get_freeze_count()\n"
        "app.on_startup[-1](app)  # the last hook: after the pools, consumers and feeds\n"
        "print(json.dumps({'before': before, 'after': gc.get_freeze_count(),\n"
        "                  'young': gc.get_threshold()[0]}))\n"
    )
    assert seen["before"] == 0
    assert isinstance(seen["after"], int) and seen["after"] > 10_000  # the imports at least
    assert seen["young"] == process.YOUNG_THRESHOLD > 700  # collected less often than Python's


def test_a_worker_loop_settles_its_heap_before_its_work() -> None:
    seen = run_python(
        "import asyncio, gc, json\n"
        "from infra.servers.process import run_until_signalled\n"
        "async def work(settings, stop):\n"
        "    print(json.dumps({'frozen': gc.get_freeze_count(), 'young': gc.get_threshold()[0],\n"
        "                      'loop': type(asyncio.get_running_loop()).__module__}))\n"
        "run_until_signalled(work)\n"
    )
    assert seen["loop"] == "uvloop"  # as uvicorn's for the HTTP services
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000
    assert seen["young"] == process.YOUNG_THRESHOLD


def test_a_worker_loop_gives_the_signals_back_when_it_ends() -> None:
    """Its SIGINT and SIGTERM handlers are removed while its loop still runs: a closed uvloop
    loop keeps them (removing them then does nothing), and a second signal during the exit
    would be ignored."""
    seen = run_python(
        "import json, signal\n"
        "from infra.servers.process import run_until_signalled\n"
        "async def work(settings, stop):\n"
        "    pass\n"
        "run_until_signalled(work)\n"
        "print(json.dumps({'int': signal.getsignal(signal.SIGINT) is signal.default_int_handler,\n"
        "                  'term': signal.getsignal(signal.SIGTERM) == signal.SIG_DFL}))\n"
    )
    assert seen == {"int": True, "term": True}


def test_the_celery_workers_settle_before_forking_and_when_ready() -> None:
    seen = run_python(
        "import gc, json\n"
        "from celery import signals\n"
        "import services.bots.worker, services.notifier.worker\n"
        "def names(signal):  # the receivers still alive (weakly held, as connected)\n"
        "    return [f'{r.__module__}.{r.__name__}' for r in signal._live_receivers(None)]\n"
        "print(json.dumps({'init': names(signals.worker_init),\n"
        "                  'ready': names(signals.worker_ready)}))\n"
    )
    for signal in ("init", "ready"):
        assert "services.bots.worker._settle_heap" in seen[signal]  # type: ignore[operator]
        assert "services.notifier.worker._settle_heap" in seen[signal]  # type: ignore[operator]


def test_uvicorn_writes_access_lines_only_where_info_is_logged() -> None:
    """Below INFO uvicorn is told not to: it made every line's arguments to drop them."""
    code = (
        "import json\n"
        "import uvicorn\n"
        "from infra.servers import process\n"
        "seen = {}\n"
        "uvicorn.run = lambda *a, **kw: seen.update(access_log=kw['access_log'])\n"
        "process.serve('services.game.app:create_app', lambda s: 0)\n"
        "print(json.dumps(seen))\n"
    )
    assert run_python(code) == {"access_log": False}  # run_python's LOG_LEVEL=WARNING
    env = {**os.environ, "TURNPOST_DEV": "1", "LOG_LEVEL": "INFO"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"access_log": True}
