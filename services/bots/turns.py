"""A bot's turn: what one task asks (`Turn`), the id of the command it sends (the same for
every task that finds the game at the same version), and the time limit a turn runs under."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import signal
import threading
from collections.abc import Iterator
from random import Random
from typing import NamedTuple

from infra.eventstore.api import command_uuid
from infra.settings import Settings


def bot_command_id(game_id: str, version: int, seat: int) -> str:
    return str(command_uuid("bot", game_id, str(version), str(seat)))


def draws(key: bytes, command_id: str) -> Random:
    """The bot's random draws for one turn: the same for every task of the turn (a
    redelivery decides as the first did), and private. The command id is public (the game,
    the version, the seat): seeded by it alone, an opponent who knows the open policies
    could replay the bot's choices for each hand it might hold and keep the hands that
    choose as it did. So the seed is a keyed hash of it (`Settings.bot_draws_key`)."""
    return Random(hmac.new(key, command_id.encode(), hashlib.sha256).digest())


class Turn(NamedTuple):
    """One task: `seat` (a `level` bot) must act in `game_id` as of `version` (the trigger)."""

    game: str
    game_id: str
    seat: int
    level: str
    version: int

    def tries_key(self, settings: Settings) -> str:
        return f"{settings.stream_prefix}bots:tries:{self.game_id}:{self.version}:{self.seat}"


class TurnTooLong(Exception):
    """A turn ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TurnTooLong in a turn that runs past `seconds`. Celery's solo pool (the cheap
    levels' workers) enforces no time limit of its own; this one is a timer signal of the
    main thread, so elsewhere (a thread pool) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TurnTooLong(f"the turn ran past {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
