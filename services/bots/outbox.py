"""What a bot process says to Redis about its turns: the commands it sends (at once, or held
for a batch and sent together in one round trip), each turn's count of tries (kept only when
something went wrong) and the turns dead-lettered on the games stream. The worker's `Bot`
is an `Outbox` (services/bots/worker.py)."""

from __future__ import annotations

import logging

import msgspec
import redis

from contracts.streams import BOT_TURNS, COMMANDS, GameEvent, SubmitAction
from infra.auth import signing
from infra.observability.context import carry
from infra.observability.metrics import DEADLETTERS
from infra.servers.db import redis_options
from infra.settings import Settings
from infra.streams.api import dead_letter_stream
from infra.tasks import DEAD_TURN
from services.bots.turns import Turn

log = logging.getLogger("services.bots.worker")  # the worker's lines, as they were
TRIES_TTL_S = 7 * 24 * 3600  # how long a turn's count of tries (and a dead turn) is kept


class Outbox:
    """A process's Redis client and what it sends through it (its `Bot`'s, for its life)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.redis = redis.Redis.from_url(settings.redis_url, **redis_options(settings))
        self.key = settings.command_key()
        self.commands = settings.stream(COMMANDS)
        self._held: list[tuple[bytes, str | None]] | None = None  # a batch's commands, unsent

    def send(self, command: SubmitAction, turn: Turn, counted: bool) -> None:
        """The command on the commands stream (and the turn's count of tries forgotten)."""
        command = msgspec.structs.replace(command, trace=carry())  # what began it, onward
        payload = signing.sign(self.key, msgspec.json.encode(command))
        held = (payload, turn.tries_key(self.settings) if counted else None)
        if self._held is not None:
            self._held.append(held)
        else:
            self.send_held([held])

    def hold(self, held: list[tuple[bytes, str | None]]) -> None:
        """From now on `send` keeps each command (and its tries key to forget) in `held`, to
        be sent with the others of the batch by `send_held` in one round trip."""
        self._held = held

    def release(self) -> None:
        """Back to sending each command at once."""
        self._held = None

    def send_held(self, held: list[tuple[bytes, str | None]]) -> None:
        """The commands on the commands stream, and their tries forgotten: one round trip."""
        if not held:
            return
        pipe = self.redis.pipeline(transaction=False)
        for payload, tries in held:
            pipe.xadd(self.commands, {b"m": payload})
            if tries is not None:
                pipe.delete(tries)
        pipe.execute()
        held.clear()

    # -- counting tries: only a turn that failed or whose worker died costs a round trip ----

    def begin(self, turn: Turn, fresh: bool) -> tuple[int, bool]:
        """Count a try that follows a death (a redelivered task) or a replay (`fresh`: count
        from the start): (its number, whether the turn is dead-lettered already)."""
        key = turn.tries_key(self.settings)
        pipe = self.redis.pipeline(transaction=False)
        if fresh:
            pipe.delete(key)
        pipe.hincrby(key, "tries", 1)
        pipe.hget(key, "dead")
        pipe.expire(key, TRIES_TTL_S)
        *_, tries, dead, _ = pipe.execute()
        return int(tries), dead is not None

    def failed(self, turn: Turn, exc: BaseException, counted: bool) -> tuple[int, bool]:
        """Count a try that failed on its content (unless `begin` counted it already):
        (tries so far, whether the turn is dead-lettered already)."""
        key = turn.tries_key(self.settings)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hincrby(key, "tries", 0 if counted else 1)
        pipe.hset(key, "error", repr(exc)[:1000])
        pipe.hget(key, "dead")
        pipe.expire(key, TRIES_TTL_S)
        tries, _, dead, _ = pipe.execute()
        return int(tries), dead is not None

    def uncount(self, *tries_keys: str) -> None:
        """An outage is no fault of the turns': the tries `begin` counted are taken back."""
        pipe = self.redis.pipeline(transaction=False)
        for key in tries_keys:
            pipe.hincrby(key, "tries", -1)
        pipe.execute()

    def forget(self, turn: Turn) -> None:
        self.redis.delete(turn.tries_key(self.settings))

    def dead_letter(self, turn: Turn, tries: int) -> None:
        """Park the turn as a dead letter of the bot turns stream, once; a replay of it is an
        envelope the dispatcher sends as a fresh turn."""
        key = turn.tries_key(self.settings)
        if not self.redis.hsetnx(key, "dead", 1):
            return
        error = self.redis.hget(key, "error")
        reason = error.decode() if error else "the worker died while playing it"
        envelope = GameEvent(
            game_id=turn.game_id,
            game=turn.game,
            room_id=None,
            version=turn.version,
            type=DEAD_TURN,
            to_act=[turn.seat],
            status="active",
            bots={str(turn.seat): turn.level},
            batch_end=True,
            global_position=0,
            trace=carry(),
        )
        games = self.settings.stream(BOT_TURNS)
        self.redis.xadd(
            dead_letter_stream(games),
            {
                b"m": msgspec.json.encode(envelope),
                b"stream": games,
                b"group": "bots",
                b"id": f"{turn.game_id}:v{turn.version}:seat{turn.seat}",
                b"deliveries": str(tries),
                b"reason": f"bot turn failed {tries} times; last: {reason}"[:2000],
            },
        )
        DEADLETTERS.labels(games, "bots").inc()
        log.error("bot turn %s dead-lettered after %d tries: %s", turn, tries, reason)
