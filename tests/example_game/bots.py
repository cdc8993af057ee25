"""Nim's bots: `greedy` leaves a nim-sum of zero when it can, else takes one counter."""

from functools import reduce
from operator import xor
from random import Random
from typing import Any

from services.bots.observe import Observation


def greedy(obs: Observation, rng: Random) -> Any:
    heaps = obs.view["public"]["heaps"]

    def left(move: Any) -> list[int]:
        return [h - move.count if i == move.heap else h for i, h in enumerate(heaps)]

    winning = [m for m in obs.legal if reduce(xor, left(m), 0) == 0]
    biggest = max(obs.legal, key=lambda m: (heaps[m.heap], -m.count))  # one from the biggest heap
    return rng.choice(winning) if winning else biggest
