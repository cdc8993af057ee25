"""The bots' real Celery app for tests that run real workers (`celery -A tests.integration.bots_app
worker`), with what a test needs to control from outside, set by environment variables:

- TEST_MCTS_S: the `mcts` level of itty bitty sleeps that long, then plays as `greedy` (a
  long search, whatever the real one costs); `budget:<seconds>`: it sleeps what is left of
  a budget of that many seconds (the worker's BOT_MCTS_S, which the worker sets for the turn,
  wins over it), as the real search spends it (services/bots/search.py).
- TEST_BROKEN: a level whose itty bitty policy always raises (a turn failing on its content).
- TEST_STALL: `policy` or `sent`: the first try of a turn stalls (60 s) before its policy
  runs, or after its command is sent; the stalling process writes its pid to Redis under
  `<prefix>test:stalled`, so a test can SIGKILL it there.
"""

from __future__ import annotations

import os
import time
from random import Random
from typing import Any

import redis

from services.bots import worker
from services.bots.observe import Observation
from services.bots.policies import POLICIES, policy_for
from services.bots.search import Budget, seconds_left

app = worker.app
STALL = os.environ.get("TEST_STALL", "")


def _stall(where: str) -> None:
    if STALL != where:
        return
    r = redis.Redis.from_url(worker.settings.redis_url)
    if r.set(f"{worker.settings.stream_prefix}test:stalled", os.getpid(), nx=True):
        time.sleep(60)  # killed here


def _slow_mcts(obs: Observation, rng: Random) -> Any:
    spend = os.environ.get("TEST_MCTS_S", "0")
    if spend.startswith("budget:"):
        time.sleep(seconds_left(Budget(seconds=float(spend.removeprefix("budget:")))))
    else:
        time.sleep(float(spend))
    return policy_for(obs.game, "greedy")(obs, rng)


def _stalling(policy: Any) -> Any:
    def play(obs: Observation, rng: Random) -> Any:
        _stall("policy")
        return policy(obs, rng)

    return play


def _broken(obs: Observation, rng: Random) -> Any:
    raise ValueError("a broken policy")


POLICIES[("itty-bitty", "mcts")] = _slow_mcts
if broken := os.environ.get("TEST_BROKEN"):
    POLICIES[("itty-bitty", broken)] = _broken
POLICIES[("itty-bitty", "greedy")] = _stalling(POLICIES[("itty-bitty", "greedy")])
_send = worker.Bot.send


def _send_then_stall(self: worker.Bot, *args: Any) -> None:
    _send(self, *args)
    _stall("sent")


worker.Bot.send = _send_then_stall  # type: ignore[method-assign]
