"""Celery app of the bots: `celery -A services.bots.worker worker -Q bots` (random, greedy)
and `... -Q bots-mcts` (search), each queue with worker processes of its own (infra/tasks.py).

At-least-once: acks_late + reject_on_worker_lost redeliver a task whose worker died; the
broker's visibility timeout is far above the task time limit, so a slow task is not handed
out twice while it runs; and the command id derives from the version the move was decided
at, so a task that runs twice, or two tasks that find the game at the same version, send the
same command, which the game applies once.

A turn's tries are counted in Redis only when something went wrong (it failed, or it came
back redelivered because its worker died in it): one that fails on its own content, or kills
its worker, `max_deliveries` times is dead-lettered on the bot turns stream (`python -m
infra.streams.deadletters list turnpost:bot-turns`; a replay plays it anew), and a later send
of it (the scheduler's sweep) that fails again is dropped without retries. An outage of
Postgres or Redis is retried with backoff and never counted.

The parts: services/bots/app.py (the Celery app and what a worker sets up as it starts),
services/bots/turns.py (a turn, its command id, its time limit), services/bots/outbox.py
(what the bot sends to Redis: commands, tries, dead letters); here, the tasks and the bot
that plays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, TypeGuard

import asyncpg
import msgspec
import redis
from celery import signals
from opentelemetry.trace import SpanKind

from contracts.lobby import Timing
from contracts.streams import SubmitAction
from infra.observability import tracing
from infra.observability.context import bind, bind_carried
from infra.observability.metrics import BOT_TASK_SECONDS, BOT_TASK_TURNS, process_gone
from infra.servers.db import create_pool
from infra.servers.errors import is_transient
from infra.servers.process import settle_heap
from infra.settings import Settings
from infra.tasks import (
    FAST_QUEUE,
    PLAY_MANY_TASK,
    PLAY_TASK,
    SENT_HEADER,
    TASK_TIME_LIMIT,
    TRACE_HEADER,
    TRACES_HEADER,
    queue_for,
    searchers_key,
    turn_key,
)
from services.bots.app import app, header, settings
from services.bots.levels import room_clock, seconds_for
from services.bots.observe import Observation, States, observe, observe_many
from services.bots.outbox import Outbox
from services.bots.policies import SEARCHING, policy_for
from services.bots.search import TURN_SECONDS, TURN_SENT, TURN_SHARE
from services.bots.turns import Turn, bot_command_id, draws, time_limit
from services.bots.turns import TurnTooLong as TurnTooLong  # raised in a turn: caught by this name

log = logging.getLogger(__name__)

RETRY_AFTER_S = (1, 2, 4, 8, 16)  # a turn that failed on its content is tried again after
SEND_HELD_AFTER_S = 0.02  # a batch's moves held no longer than this before a turn begins


@signals.worker_init.connect  # before a prefork pool forks: its children share the frozen pages
@signals.worker_ready.connect  # solo and threads pools: all that startup made, tasks run here
def _settle_heap(**_: object) -> None:
    settle_heap()


def command_for(obs: Observation, game_id: str, level: str, key: bytes) -> SubmitAction:
    """The bot's move at the version it observed; the same for every task that observes it."""
    command_id = bot_command_id(game_id, obs.version, obs.seat)
    action = policy_for(obs.game, level)(obs, draws(key, command_id))
    return SubmitAction(
        command_id=command_id,
        game_id=game_id,
        seat=obs.seat,
        action=msgspec.to_builtins(action),
        expected_version=obs.version,
    )


def wants_a_move(obs: Observation | None, turn: Turn) -> TypeGuard[Observation]:
    """Whether the bot acts now. A game found past the trigger is played where it is if the
    seat must still act: every task that finds it there sends the same command (the newer
    trigger's own task too), so the game is not left waiting for that one to arrive, and a
    move the game refused as stale is played again from what is true now.

    A game found before its trigger never had that version in this database: the relay
    publishes only what is committed, so the trigger is of a database restored since to an
    earlier moment (docs/operations-backup.md), left in the queue. Nothing to play: the
    game's own triggers ask for its moves now (a failure here would be tried again and
    dead-lettered, for a version that may never come)."""
    if obs is None or turn.seat not in obs.to_act:
        return False  # the game moved on: the seat has no turn now
    if obs.version < turn.version:
        log.warning(
            "v%d seat %d: the game is at v%d here; a trigger of a restored database's lost"
            " moves, dropped",
            turn.version,
            turn.seat,
            obs.version,
        )
        return False
    return True


async def decide(
    conn: asyncpg.Connection, turn: Turn, key: bytes, states: States | None = None
) -> SubmitAction | None:
    """The bot's move for this turn now, or None if it has none to make."""
    obs = await observe(conn, turn.game, turn.game_id, turn.seat, states, turn.level in SEARCHING)
    return command_for(obs, turn.game_id, turn.level, key) if wants_a_move(obs, turn) else None


class Bot(Outbox):
    """What one worker process keeps for its life: an event loop, a Postgres pool, a Redis
    client, the recent states of its games and its recent decisions (a repeated turn, e.g.
    redelivered, is sent again without searching again). Made on first use in the process
    that uses it: a forked child never shares its parent's sockets. What it sends to Redis
    (commands, tries, dead letters) is its `Outbox`'s (services/bots/outbox.py)."""

    DECISIONS = 256

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)  # the Redis client, the commands' stream and key
        self.draws_key = settings.bot_draws_key()
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.pool: asyncpg.Pool | None = None
        self.states = States()
        self.decided: OrderedDict[tuple[str, int, int], SubmitAction] = OrderedDict()
        self.searcher = f"{socket.gethostname()}:{self.pid}"  # this process, among the searchers
        self._looked: dict[tuple[str, int], Observation | None] = {}  # a batch's, read ahead
        self.timings: OrderedDict[str, Timing] = OrderedDict()  # game id -> its room's clock

    async def _connection_pool(self) -> asyncpg.Pool:
        if self.pool is None:
            self.pool = await create_pool(
                self.settings.database_url, min_size=1, max_size=1, settings=self.settings
            )
        return self.pool

    async def look(self, turn: Turn) -> Observation | None:
        async with (await self._connection_pool()).acquire() as conn:
            return await observe(
                conn, turn.game, turn.game_id, turn.seat, self.states, turn.level in SEARCHING
            )

    async def _look_many(self, turns: Sequence[Turn]) -> list[Observation | None]:
        seats = [(t.game, t.game_id, t.seat) for t in turns]
        async with (await self._connection_pool()).acquire() as conn:
            return await observe_many(conn, seats, self.states)

    def look_ahead(self, turns: Sequence[Turn]) -> None:
        """Read every seat of a batch of cheap turns at once (one query for the events since
        the cached states of all their games); each turn's `decide` then takes its seat's
        observation instead of reading it again. Nothing is read ahead if the read fails:
        each turn reads for itself, and meets the outage there. Only while holding (a
        batch): a turn alone always reads for itself."""
        self._looked = {}
        if self._held is None:
            return
        cheap = [t for t in turns if t.level not in SEARCHING]
        if len(cheap) < 2:
            return
        try:
            seen = self.loop.run_until_complete(self._look_many(cheap))
        except Exception as exc:
            log.debug("read ahead of %d turns: %r", len(cheap), exc)
            return
        self._looked = {(t.game_id, t.seat): obs for t, obs in zip(cheap, seen, strict=True)}

    def decide(self, turn: Turn) -> SubmitAction | None:
        """The bot's move for this turn now, or None if it has none to make."""
        try:  # read ahead with its batch (once: a second turn of the seat reads again)
            obs = self._looked.pop((turn.game_id, turn.seat))
        except KeyError:
            obs = self.loop.run_until_complete(self.look(turn))
        if not wants_a_move(obs, turn):
            return None
        # the policy gets only what the seat may see: `obs`, never the state
        key = (turn.game_id, obs.version, turn.seat)
        command = self.decided.get(key)
        if command is None:
            with self.thinking(turn):
                command = command_for(obs, turn.game_id, turn.level, self.draws_key)
            self.decided[key] = command
            while len(self.decided) > self.DECISIONS:
                self.decided.popitem(last=False)
        return command

    @contextlib.contextmanager
    def thinking(self, turn: Turn) -> Iterator[None]:
        """A search level's seconds for this turn (services/bots/levels.py `seconds_for`);
        the expert's from the room's clock, read once a game (kept for `TIMINGS` games)."""
        timing = None
        if turn.level == "expert":
            timing = self.timings.pop(turn.game_id, None) or self.loop.run_until_complete(
                room_clock(self._connection_pool, turn.game_id)
            )
            self.timings[turn.game_id] = timing
            while len(self.timings) > self.TIMINGS:
                self.timings.popitem(last=False)
        token = TURN_SECONDS.set(seconds_for(turn.level, timing, self.settings))
        try:
            yield
        finally:
            TURN_SECONDS.reset(token)

    TIMINGS = 4096  # games whose clock a process keeps
    SEARCHERS_SEEN_S = 60  # a search process counts as present this long after its last search

    def share(self, queue: str) -> float:
        """The part of a search's budget left that it may spend: 1 / (1 + the searches waiting
        in its queue per process of that queue), so that searches sent together share the
        budget rather than the first taking it all (services/bots/search.py). The processes
        are counted across every worker on the queue (each notes itself in a sorted set at
        each search; those not seen for SEARCHERS_SEEN_S drop out): one round trip."""
        prefix, now = self.settings.stream_prefix, time.time()
        pipe = self.redis.pipeline(transaction=False)
        searchers = prefix + searchers_key(queue)
        pipe.zadd(searchers, {self.searcher: now})
        pipe.zremrangebyscore(searchers, 0, now - self.SEARCHERS_SEEN_S)
        pipe.zcard(searchers)
        pipe.llen(prefix + queue)
        try:
            *_, processes, waiting = pipe.execute()
        except redis.RedisError:
            return 1.0  # the move still lands: the queue's news is not worth failing for
        return 1.0 / (1.0 + int(waiting) / max(1, int(processes)))

    def release(self) -> None:
        """Back to sending each command at once; what was read ahead is forgotten."""
        super().release()
        self._looked = {}

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
        self.loop.close()
        self.redis.close()


_bot: Bot | None = None


def bot() -> Bot:
    global _bot
    if _bot is None or _bot.pid != os.getpid():
        _bot = Bot(settings)
    return _bot


def reset_bot() -> None:
    """Drop this process's connections and loop (after a failure that may have left them
    half-used, e.g. a time limit raised inside the loop)."""
    global _bot
    if _bot is not None and _bot.pid == os.getpid():
        try:
            _bot.close()
        except Exception:
            log.debug("closing the bot's connections failed", exc_info=True)
    _bot = None


@signals.worker_init.connect
def _trace(**_: object) -> None:
    tracing.setup(settings.tracing, "turnpost-worker")  # TRACING (solo, threads pools)


@signals.worker_process_init.connect
def _open_per_process(**_: object) -> None:
    tracing.setup(settings.tracing, "turnpost-worker")  # a forked child sets up its own
    bot()  # each pool process makes its own loop and clients; the pool opens on first use


@signals.worker_process_shutdown.connect
def _close_per_process(pid: int | None = None, **_: object) -> None:
    reset_bot()
    process_gone(pid or os.getpid())


def play_turn(
    b: Bot, turn: Turn, fresh: bool = False, redelivered: bool = False, retries: int = 0
) -> str:
    """One try at a turn: "dead" (dead-lettered: not tried, or failed for the last time),
    "none" (no move to make now), or the id of the command sent. Raises on an outage (not
    counted) or on a failure to be tried again (counted).

    Tries are counted in Redis only when something went wrong: a redelivered task (its
    worker died in it), a replayed dead letter, a retry after a failure."""
    with BOT_TASK_SECONDS.labels(turn.game, turn.level).time():
        outcome = _play_turn(b, turn, fresh, redelivered, retries)
    if outcome in ("dead", "none"):
        log.debug("v%d seat %d (%s): %s", turn.version, turn.seat, turn.level, outcome)
    else:
        with bind(command_id=outcome):
            log.debug("v%d seat %d (%s): move sent", turn.version, turn.seat, turn.level)
    return outcome


def _play_turn(b: Bot, turn: Turn, fresh: bool, redelivered: bool, retries: int) -> str:
    counted = fresh or redelivered
    if counted:
        tries, dead = b.begin(turn, fresh)
        if dead or tries > b.settings.max_deliveries:
            b.dead_letter(turn, tries - 1)  # the tries before this one died with their worker
            return "dead"
    counted = counted or retries > 0
    try:
        command = b.decide(turn)
        if command is None:
            if counted:
                b.forget(turn)
            return "none"
        b.send(command, turn, counted)
        return command.command_id
    except Exception as exc:
        if is_transient(exc):
            if fresh or redelivered:
                with contextlib.suppress(Exception):  # Redis is the one away: it stays counted
                    b.uncount(turn.tries_key(b.settings))
            raise
        try:
            tries, dead = b.failed(turn, exc, fresh or redelivered)
            if dead:
                return "dead"  # dead-lettered before, sent again by the sweep: dropped
            if tries >= b.settings.max_deliveries:
                b.dead_letter(turn, tries)
                return "dead"
        finally:
            reset_bot()  # it may have failed inside the loop (a time limit): start clean
        raise


@contextlib.contextmanager
def searching_for(level: str, sent: Any) -> Iterator[None]:
    """While a search's turn is played: when it was sent and its share of what is left, so
    that searches queued together each land within the budget (services/bots/search.py)."""
    queue = queue_for(level)
    if queue == FAST_QUEUE:
        yield
        return
    share = bot().share(queue)
    stamped = type(sent) in (int, float) and math.isfinite(sent)
    sent_token = TURN_SENT.set(sent if stamped else None)
    share_token = TURN_SHARE.set(share)
    try:
        yield
    finally:
        TURN_SENT.reset(sent_token)
        TURN_SHARE.reset(share_token)


@app.task(name=PLAY_TASK, bind=True, max_retries=None)
def play(
    self: Any, game: str, game_id: str, seat: int, level: str, version: int, fresh: bool = False
) -> str:
    turn = Turn(game, game_id, seat, level, version)
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    trace = header(self.request, TRACE_HEADER)
    try:
        with (
            searching_for(level, header(self.request, SENT_HEADER)),
            bind_carried(trace, game_id=game_id),
            tracing.span("bot turn", trace, SpanKind.CONSUMER, game_id=game_id, level=level),
            time_limit(TASK_TIME_LIMIT - 10),
        ):
            return play_turn(bot(), turn, fresh, redelivered, self.request.retries)
    except Exception as exc:
        if is_transient(exc):  # Postgres or Redis away: back off, up to 5 times, uncounted
            if self.request.retries >= 5:
                raise  # the scheduler's sweep sends the turn again later
            raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
        log.exception("bot turn %s failed", turn)
        tries = len(RETRY_AFTER_S) - 1
        countdown = RETRY_AFTER_S[min(self.request.retries, tries)]
        raise self.retry(exc=exc, countdown=countdown) from exc


@app.task(name=PLAY_MANY_TASK, bind=True, max_retries=None)
def play_many(self: Any, turns: list[list[Any]]) -> list[str]:
    """Several cheap turns (the dispatcher's batch, infra/tasks.py), each played as `play`
    plays one, with its own time limit: Celery's cost per task is paid once for them all, and
    so are the round trips: every seat of the batch is read in one query (`look_ahead`) and
    the moves decided are held and sent together in one pipeline, at the end or before a
    turn begins once the first of them has waited SEND_HELD_AFTER_S.

    A turn that fails on its content leaves the batch: it was counted (or dead-lettered) by
    `play_turn`, and goes on as a `play` task of its own, retried and dead-lettered as any;
    the batch goes on (with a new bot, if the failure reset it). An outage at a turn sends
    the moves held and retries the turns from it on, with backoff; an outage at the send
    retries the held turns too (they decide the same commands again), their tries uncounted;
    a send refused for another reason sends each of those turns on as a `play` task. A batch
    whose worker died comes back whole, each turn counted as a redelivered `play` is, and a
    turn played already finds nothing to do or sends the same command again (its id derives
    from the version)."""
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    traces = header(self.request, TRACES_HEADER) or {}
    BOT_TASK_TURNS.observe(len(turns))
    results: list[str] = []
    held: list[tuple[bytes, str | None]] = []  # the moves decided, not sent yet
    held_of: list[int] = []  # the turn (its index) of each
    oldest = 0.0  # when the first of them was decided
    failure: Exception | None = None
    again: list[int] = []  # after a failure: the turns to play again (held, and not reached)

    def send_held() -> None:
        bot().send_held(held)
        held_of.clear()

    try:
        bot().hold(held)
        bot().look_ahead([Turn(*t[:5]) for t in turns])
        for i, (game, game_id, seat, level, version, fresh) in enumerate(turns):
            if held and time.monotonic() - oldest > SEND_HELD_AFTER_S:
                try:  # a slow turn does not hold back the moves decided before it
                    send_held()
                except Exception as exc:
                    failure, again = exc, held_of + list(range(i, len(turns)))
                    break
            b = bot()  # a turn that failed resets the bot: its successor holds too
            b.hold(held)
            turn = Turn(game, game_id, seat, level, version)
            trace = traces.get(turn_key(game_id, version, seat))
            before = len(held)
            try:
                with (
                    bind_carried(trace, game_id=game_id),
                    tracing.span(
                        "bot turn", trace, SpanKind.CONSUMER, game_id=game_id, level=level
                    ),
                    time_limit(TASK_TIME_LIMIT - 10),
                ):
                    results.append(play_turn(b, turn, fresh, redelivered, 0))
            except Exception as exc:
                if is_transient(exc):
                    failure, again = exc, list(range(i, len(turns)))
                    try:  # what was decided before it goes now; the rest is tried again
                        send_held()
                    except Exception:
                        again = held_of + again
                    break
                log.exception("bot turn %s failed", turn, extra={"game_id": game_id})
                _play_alone(turns[i], traces)
                results.append("retried")
                continue
            if len(held) > before:
                if not held_of:
                    oldest = time.monotonic()
                held_of.append(i)
        else:
            try:
                send_held()
            except Exception as exc:
                failure, again = exc, list(held_of)
    finally:
        bot().release()
    if failure is None:
        return results
    if counted := [tries for _, tries in held if tries is not None]:
        with contextlib.suppress(Exception):  # not sent: an outage's tries, not theirs
            bot().uncount(*counted)  # (Redis is the one away: they stay counted)
    if not is_transient(failure):  # the send refused (not an outage): each turn goes alone
        log.error("sending %d held moves failed: %r", len(held), failure)
        for i in again:
            _play_alone(turns[i], traces)
        return results
    if self.request.retries >= 5:
        raise failure  # the scheduler's sweep sends the turns again later
    countdown = 2**self.request.retries
    retry = [turns[i] for i in again]
    raise self.retry(args=(retry,), exc=failure, countdown=countdown) from failure


def _play_alone(t: list[Any], traces: dict[str, Any]) -> None:
    """A turn of a batch goes on as a `play` task of its own, tried again after a pause."""
    game, game_id, seat, level, version = t[:5]
    trace = traces.get(turn_key(game_id, version, seat))
    play.apply_async(
        (game, game_id, seat, level, version),
        countdown=RETRY_AFTER_S[0],
        retries=1,
        headers={TRACE_HEADER: trace} if trace else None,
    )
