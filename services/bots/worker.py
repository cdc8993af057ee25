"""Celery app of the bots: `celery -A services.bots.worker worker -Q bots` (random, greedy)
and `... -Q bots-mcts` (search), each queue with worker processes of its own (infra/tasks.py).

At-least-once: acks_late + reject_on_worker_lost redeliver a task whose worker died; the
broker's visibility timeout is far above the task time limit, so a slow task is not handed
out twice while it runs; and the command id derives from the version the move was decided
at, so a task that runs twice, or two tasks that find the game at the same version, send the
same command, which the game applies once.

A turn's tries are counted in Redis only when something went wrong (it failed, or it came
back redelivered because its worker died in it): one that fails on its own content, or kills
its worker, `max_deliveries` times is dead-lettered on the games stream (`python -m
infra.streams.deadletters list turnpost:games`; a replay plays it anew), and a later send
of it (the scheduler's sweep) that fails again is dropped without retries. An outage of
Postgres or Redis is retried with backoff and never counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from random import Random
from typing import Any, NamedTuple, TypeGuard

import asyncpg
import msgspec
import redis
from celery import signals
from opentelemetry.trace import SpanKind

from contracts.streams import COMMANDS, GAMES, GameEvent, SubmitAction
from infra.auth import signing
from infra.eventstore.api import command_uuid
from infra.observability import tracing
from infra.observability.context import bind, bind_carried, carry
from infra.observability.logging import configure
from infra.observability.metrics import (
    BOT_TASK_SECONDS,
    BOT_TASK_TURNS,
    DEADLETTERS,
    prepare_multiprocess,
    process_gone,
    serve_metrics,
)
from infra.servers.db import create_pool, redis_options
from infra.servers.errors import is_transient
from infra.servers.process import refuse_unsafe_secrets, settle_heap
from infra.settings import Settings, from_env
from infra.streams.api import dead_letter_stream
from infra.tasks import (
    DEAD_TURN,
    PLAY_MANY_TASK,
    PLAY_TASK,
    SEARCH_QUEUE,
    SEARCHERS_KEY,
    SENT_HEADER,
    TASK_TIME_LIMIT,
    TRACE_HEADER,
    TRACES_HEADER,
    celery_app,
    queue_for,
    turn_key,
)
from services.bots.observe import Observation, States, observe, observe_many
from services.bots.policies import SEARCHING, policy_for
from services.bots.search import TURN_SENT, TURN_SHARE

log = logging.getLogger(__name__)
settings = from_env()

app = celery_app(settings)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_acks_on_failure_or_timeout=True,
    worker_prefetch_multiplier=1,
    task_time_limit=TASK_TIME_LIMIT,
    task_soft_time_limit=TASK_TIME_LIMIT - 10,
)

TRIES_TTL_S = 7 * 24 * 3600  # how long a turn's count of tries (and a dead turn) is kept
RETRY_AFTER_S = (1, 2, 4, 8, 16)  # a turn that failed on its content is tried again after
SEND_HELD_AFTER_S = 0.02  # a batch's moves held no longer than this before a turn begins


def _one_broker_client_per_channel() -> None:
    """kombu's Redis transport builds a new redis-py client for each ack and each note of
    an unacked task, two per task, and building one (its table of response callbacks) costs
    more CPU than the command it sends; one client per channel (a pool of connections
    behind it, as before) does the same work."""
    from kombu.transport import redis as kombu_redis

    channel = kombu_redis.Channel
    if not hasattr(channel, "conn_or_acquire") or not hasattr(channel, "_create_client"):
        return  # another kombu: leave it as it is

    @contextlib.contextmanager
    def conn_or_acquire(self: Any, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        cached = self.__dict__.get("_turnpost_client")
        if cached is None:
            cached = self.__dict__["_turnpost_client"] = self._create_client()
        yield cached

    channel.conn_or_acquire = conn_or_acquire


_one_broker_client_per_channel()


@signals.worker_init.connect
def _refuse_unsafe_secrets(**_: object) -> None:
    refuse_unsafe_secrets(settings)  # the worker signs the bots' commands


@signals.worker_init.connect
def _serve_metrics(**_: object) -> None:
    """METRICS_PORT: the worker's metrics there. A prefork pool's children count their turns
    in their own memory: with PROMETHEUS_MULTIPROC_DIR set (deploy/stack.py, compose, k8s
    do for the mcts worker) they count in files there, which this port adds up."""
    prepare_multiprocess()
    serve_metrics(settings.metrics_port)


@signals.worker_init.connect  # before a prefork pool forks: its children share the frozen pages
@signals.worker_ready.connect  # solo and threads pools: all that startup made, tasks run here
def _settle_heap(**_: object) -> None:
    settle_heap()


@signals.setup_logging.connect
def _setup_logging(loglevel: int | str | None = None, **_: object) -> None:
    """The worker logs as every process does (infra/observability/logging.py: LOG_FORMAT, the ids bound
    for each turn), not in Celery's own format. Celery's two INFO lines per task
    ("received", "succeeded") cost more than a greedy move: shown at DEBUG only. Failures
    and retries still show."""
    configure(loglevel or settings.log_level, settings.log_format)
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        for name in ("celery.app.trace", "celery.worker.strategy"):
            logging.getLogger(name).setLevel(logging.WARNING)


def bot_command_id(game_id: str, version: int, seat: int) -> str:
    return str(command_uuid("bot", game_id, str(version), str(seat)))


class Turn(NamedTuple):
    """One task: `seat` (a `level` bot) must act in `game_id` as of `version` (the trigger)."""

    game: str
    game_id: str
    seat: int
    level: str
    version: int

    def tries_key(self, settings: Settings) -> str:
        return f"{settings.stream_prefix}bots:tries:{self.game_id}:{self.version}:{self.seat}"


def command_for(obs: Observation, game_id: str, level: str) -> SubmitAction:
    """The bot's move at the version it observed; the same for every task that observes it."""
    command_id = bot_command_id(game_id, obs.version, obs.seat)
    action = policy_for(obs.game, level)(obs, Random(command_id))
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
    conn: asyncpg.Connection, turn: Turn, states: States | None = None
) -> SubmitAction | None:
    """The bot's move for this turn now, or None if it has none to make."""
    obs = await observe(conn, turn.game, turn.game_id, turn.seat, states, turn.level in SEARCHING)
    return command_for(obs, turn.game_id, turn.level) if wants_a_move(obs, turn) else None


class Bot:
    """What one worker process keeps for its life: an event loop, a Postgres pool, a Redis
    client, the recent states of its games and its recent decisions (a repeated turn, e.g.
    redelivered, is sent again without searching again). Made on first use in the process
    that uses it: a forked child never shares its parent's sockets."""

    DECISIONS = 256

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.pool: asyncpg.Pool | None = None
        self.redis = redis.Redis.from_url(settings.redis_url, **redis_options(settings))
        self.states = States()
        self.decided: OrderedDict[tuple[str, int, int], SubmitAction] = OrderedDict()
        self.key = settings.command_key()
        self.commands = settings.stream(COMMANDS)
        self.searcher = f"{socket.gethostname()}:{self.pid}"  # this process, among the searchers
        self._looked: dict[tuple[str, int], Observation | None] = {}  # a batch's, read ahead
        self._held: list[tuple[bytes, str | None]] | None = None  # a batch's commands, unsent

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
            command = command_for(obs, turn.game_id, turn.level)
            self.decided[key] = command
            while len(self.decided) > self.DECISIONS:
                self.decided.popitem(last=False)
        return command

    SEARCHERS_SEEN_S = 60  # a search process counts as present this long after its last search

    def share(self) -> float:
        """The part of a search's budget left that it may spend: 1 / (1 + the searches waiting
        in the queue per search process), so that searches sent together share the budget
        and each lands within it, rather than the first taking it all and those behind it
        none (services/bots/search.py). The processes are counted across every worker on
        the queue (each notes itself in a sorted set at each search; those not seen for
        SEARCHERS_SEEN_S drop out): one round trip for all of it."""
        prefix = self.settings.stream_prefix
        now = time.time()
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(prefix + SEARCHERS_KEY, {self.searcher: now})
        pipe.zremrangebyscore(prefix + SEARCHERS_KEY, 0, now - self.SEARCHERS_SEEN_S)
        pipe.zcard(prefix + SEARCHERS_KEY)
        pipe.llen(prefix + SEARCH_QUEUE)
        try:
            *_, processes, waiting = pipe.execute()
        except redis.RedisError:
            return 1.0  # the move still lands: the queue's news is not worth failing for
        return 1.0 / (1.0 + int(waiting) / max(1, int(processes)))

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
        """Back to sending each command at once; what was read ahead is forgotten."""
        self._held = None
        self._looked = {}

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
        """Park the turn as a dead letter of the games stream, once; a replay of it is an
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
        games = self.settings.stream(GAMES)
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


@contextlib.contextmanager
def searching_for(level: str, sent: Any) -> Iterator[None]:
    """While a search's turn is played: when it was sent and its share of what is left, so
    that searches queued together each land within the budget (services/bots/search.py)."""
    if queue_for(level) != SEARCH_QUEUE:
        yield
        return
    share = bot().share()
    stamped = type(sent) in (int, float) and math.isfinite(sent)
    sent_token = TURN_SENT.set(sent if stamped else None)
    share_token = TURN_SHARE.set(share)
    try:
        yield
    finally:
        TURN_SENT.reset(sent_token)
        TURN_SHARE.reset(share_token)


def header(request: Any, name: str) -> Any:
    """A custom header of the task: an attribute of the request as a worker receives it,
    in `headers` when applied in place (eagerly)."""
    return getattr(request, name, None) or (request.headers or {}).get(name)


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
