"""Command handling: rebuild state from the events, decide, append with optimistic concurrency."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from contracts.game import FeedEvent, SeatInfo, timestamp
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games import table as tables
from games.api import IllegalAction, Rules, Seeded, fold, rules_version_of
from games.registry import get as get_rules
from games.registry import narrator
from games.table import TABLE_EVENT_TYPES, AnyTableEvent, TableEvent, TableSeat, TableState
from games.text import narrate_table
from infra.context import bind, carry
from infra.eventstore import (
    AppendResult,
    ConcurrencyError,
    EventStore,
    NewEvent,
    Snapshot,
    StoredEvent,
)
from infra.eventstore.api import Turn, command_uuid, event_ids
from infra.metrics import APPEND_CONFLICTS, APPENDS
from infra.tracing import enabled as tracing_enabled
from infra.tracing import span
from services.game.live import Waiters
from services.game.repository import GameRecord, GamesRepository, new_seed, stream_id

log = logging.getLogger(__name__)


class Loaded(msgspec.Struct, kw_only=True):
    record: GameRecord
    rules: Any
    state: Any  # the engine's
    table: TableState  # clocks and who plays each seat (games/table.py)
    version: int


class _Cached(msgspec.Struct, kw_only=True):
    version: int
    state: Any
    table: TableState
    recent: tuple[tuple[int, Any], ...] = ()  # a few earlier (version, engine state)
    events: tuple[StoredEvent, ...] = ()  # the last few stored events, ending at `version`
    confirmed: float = 0.0  # time.monotonic() when the store last said `version` was its latest


_table_event = msgspec.json.Decoder(AnyTableEvent)
# Engine states kept per game (the cached one's predecessors, one per command), so a move
# against a recent version is judged without a replay. A simultaneous phase is at most twelve
# commands (six Footprints seats choose a leader and a card each), and a seat's choice may
# come after all ten of the others' (and a few clock commands): 8 was too few. They share
# most of their structure: under 1 KB each beside the current state.
RECENT_STATES = 16
# A read that says what it has seen is answered from memory only within this long of the store
# last confirming the cached version (a read, an append): the games stream tells of other
# replicas' appends within milliseconds while the relay and Redis work, and if they do not,
# a client's reads lag by at most this much.
MEMORY_TRUSTED_S = 2.0
UNAFFECTED_WINDOW = 64  # versions back within which a move may still be unaffected by news
# A move that lost the race to append is decided again against the news, as long as it stays
# unaffected by it. Each lost race is one more command since its expected version, and a
# move can be unaffected only while its expected version is among the RECENT_STATES kept:
# this bound is above that, so a lost race ends in an append or in the rule's 409, never in
# running out of attempts (six seats choosing at once lose up to five races; 4 was too few).
# One more for a move first judged on the cache alone (submit) and judged again on a read.
APPEND_ATTEMPTS = RECENT_STATES + 3
# Stored events kept per cached game, so an event feed that has just read the store answers
# with the events before it from memory (a feed is mostly a few events behind). Stored events
# never change: only whether there are newer ones needs the store.
RECENT_EVENTS = 16


def utcnow() -> datetime:
    return datetime.now(UTC)


class Accepted(msgspec.Struct, kw_only=True):
    version: int
    events: list[StoredEvent]
    replayed: bool


def status_of(rules: Any, state: Any) -> Literal["active", "finished"]:
    return "finished" if rules.outcome(state) is not None or not rules.to_act(state) else "active"


def beyond_version(current: int, what: str, code: str = "after_beyond_version") -> ProblemError:
    """400 `after_beyond_version`: a feed asked to start past the game's version (and
    `min_version_beyond_version`: a read said it had seen a version the game has not reached)."""
    return ProblemError(
        400,
        code,
        f"the game is at version {current}; {what}",
        current_version=current,
    )


def known_rules(rules: Any, state: Any, table_rules: int) -> None:
    """A game set up under rules newer than this release's (a replica not yet upgraded, in
    a rolling upgrade) is neither shown nor moved here: its events may mean what this code
    cannot read, and a move decided here would be ruled under other rules. 503 with
    Retry-After: asked again, the request meets an upgraded replica."""
    engine = rules_version_of(state)
    if engine > rules.rules_version or table_rules > tables.RULES_VERSION:
        raise ProblemError(
            503,
            "rules_unknown_here",
            f"this game plays under {rules.key} rules {engine} and table rules {table_rules};"
            f" this replica knows up to {rules.rules_version} and {tables.RULES_VERSION}:"
            " another one will answer",
        )


def fingerprint(seat: int, action: dict[str, Any]) -> str:
    """What a command asked for, to tell a true retry from a reused Idempotency-Key."""
    body = msgspec.json.encode({"seat": seat, "action": action}, order="sorted")
    return hashlib.sha256(body).hexdigest()[:32]


def game_id_for_room(room_id: str) -> str:
    return str(command_uuid("room", room_id))


def bot_plays(seat: TableSeat) -> bool:
    """Whether a bot plays the seat for good (its person resigned, timed out under
    bot_takeover, or was claimed): the person's moves are refused, 409 `seat_played_by_bot`.
    A bot_move timeout's one move (`once`) leaves the seat its person's: they may move first."""
    return seat.bot is not None and not seat.once


class GameService:
    """Everything the REST routes and the stream consumers do to games."""

    def __init__(
        self,
        store: EventStore,
        games: GamesRepository,
        waiters: Waiters,
        snapshot_every: int = 100,
        cache_size: int = 2048,
        now: Callable[[], datetime] = utcnow,
        appended: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.clock = clock  # for how long memory may answer a read (MEMORY_TRUSTED_S)
        self.appended = appended  # told after each new append (the relay's doorbell)
        self.games = games
        self.waiters = waiters
        self.snapshot_every = snapshot_every
        self.now = now
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._records: dict[str, GameRecord] = {}  # a game's record never changes
        self._cache_size = cache_size
        self._decoders: dict[str, msgspec.json.Decoder[Any]] = {}

    # -- creating games ----------------------------------------------------------------------

    async def create_from_room(self, msg: RoomStarted) -> str:
        """Create the room's game once: a redelivered RoomStarted appends nothing."""
        rules = get_rules(msg.game)
        if rules is None:
            raise ValueError(f"unknown game {msg.game!r}")
        game_id = game_id_for_room(msg.room_id)
        record = await self.games.create(
            GameRecord(
                id=game_id,
                room_id=msg.room_id,
                game=msg.game,
                seats=[
                    SeatInfo(seat=s.seat, player_id=s.player_id, name=s.name, bot=s.bot)
                    for s in msg.seats
                ],
                options=msg.options,
                timing=msg.timing,
                seed=new_seed(),
                fill_level=msg.fill_level,
            )
        )
        options = msgspec.convert(record.options, rules.options_type)
        events: list[Any] = rules.setup(options, len(record.seats), self._rng(record, 0))
        state = fold(rules, events)
        table = self.initial_table(record)
        clocks = self.table_after(rules, state, table, None)
        table = tables.fold(table, clocks)
        command_id = command_uuid("setup", game_id)
        await self._append(record, rules, state, table, 0, events + clocks, command_id, None)
        return game_id

    @staticmethod
    def initial_table(record: GameRecord) -> TableState:
        return tables.initial(
            tables.timing_of(record.timing), record.fill_level, [s.bot for s in record.seats]
        )

    # -- loading -----------------------------------------------------------------------------

    async def record(self, game_id: str) -> GameRecord:
        known = self._records.get(game_id)  # the id as the service spells it: no parsing
        if known is not None:
            return known
        try:
            game_id = str(uuid.UUID(game_id))  # one spelling: "ABC…", "{abc…}" and "abc…" alike
        except ValueError:
            raise ProblemError(404, "unknown_game", f"no game {game_id!r}") from None
        record = self._records.get(game_id) or await self.games.get(game_id)
        if record is None:
            raise ProblemError(404, "unknown_game", f"no game {game_id!r}")
        if len(self._records) >= self._cache_size:
            self._records.clear()
        self._records[game_id] = record
        return record

    async def load(
        self, game_id: str, record: GameRecord | None = None, *, read: bool = True
    ) -> Loaded:
        """The game as the store has it: the cached state and the events after it.
        `read=False`: the cached state as it is, without asking the store what came after
        (what a move is decided on first: its append says whether it was the latest)."""
        record = record or await self.record(game_id)
        game_id = record.id
        rules = self.rules_for(record)
        cached = self._cache.get(game_id)
        if cached is not None and not read:
            return Loaded(
                record=record,
                rules=rules,
                state=cached.state,
                table=cached.table,
                version=cached.version,
            )
        version, state, table = (
            (cached.version, cached.state, cached.table) if cached else (0, None, None)
        )
        if state is None:
            version, state, table = await self._from_snapshot(record, rules)
            if state is not None:
                known_rules(rules, state, 1)
        asked = self.clock()  # what the read says was the latest when it was asked
        stored = await self.store.read(stream_id(game_id), after=version)
        if state is None and not stored:
            raise ProblemError(404, "unknown_game", f"game {game_id} is still being set up")
        passed: list[tuple[int, Any]] = []
        state, table = self._fold(rules, stored, state, table or self.initial_table(record), passed)
        version = stored[-1].version if stored else version
        self._remember(game_id, version, state, table, passed, stored, confirmed=asked)
        return Loaded(record=record, rules=rules, state=state, table=table, version=version)

    async def _from_snapshot(
        self, record: GameRecord, rules: Any
    ) -> tuple[int, Any, TableState | None]:
        snap = await self.store.load_snapshot(stream_id(record.id))
        if snap is None or snap.schema_ver != tables.snapshot_schema(
            rules.state_type, rules.schema_version
        ):
            return 0, None, None
        try:
            state, table = msgspec.msgpack.decode(
                snap.state, type=tuple[rules.state_type, TableState]
            )
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("snapshot of %s at v%d ignored: %s", record.id, snap.version, exc)
            return 0, None, None
        return snap.version, state, table

    def _fold(
        self,
        rules: Any,
        stored: Sequence[StoredEvent],
        state: Any,
        table: TableState,
        passed: list[tuple[int, Any]] | None = None,
    ) -> tuple[Any, TableState]:
        """Fold stored events onto (engine, table); `passed` collects the engine state at
        the end of each command on the way (the states clients may have been shown)."""
        for e in stored:
            event = self._decode(rules, e)
            if isinstance(event, TableEvent):
                table = tables.evolve(table, event)  # type: ignore[arg-type]
            else:
                state = rules.evolve(state, event)
            if e.version == 1:  # the engine's setup: the rules the game plays under
                known_rules(rules, state, e.metadata.get("table_rules", 1))
            if passed is not None and e.metadata.get("batch_end", True):
                passed.append((e.version, state))
        return state, table

    # -- commands ----------------------------------------------------------------------------

    async def submit(
        self,
        game_id: str,
        seat: int,
        raw_action: dict[str, Any],
        expected_version: int,
        command_id: uuid.UUID,
        maybe_retried: bool = True,
        by_bot: bool = False,
    ) -> Accepted:
        """Decide and append one command. `maybe_retried`: the command id may have been
        applied before (an Idempotency-Key, a bot's or the scheduler's command): a refusal
        then first looks for its earlier result (a fresh random id skips that). `by_bot`: it
        came through the commands stream, which may move only seats a bot plays now.

        Two round trips to the store are saved on the way of a move that lands:
        - A command applied before is not looked for before deciding: deciding it again
          ends in one of two places that both find it, the append (the store finds the
          command's event ids and answers with what they hold, `_accepted`) or a refusal
          (the game moved on since its expected version, or it is no longer its turn), which
          looks for it before it is given.
        - A move made at the version this process holds is decided on it without a read of
          the store: the append's version check says whether it was still the latest (another
          process may have appended meanwhile: then the move is decided again on a read). A
          refusal is never given on the cache alone: it is judged again on a read."""
        record = await self.record(game_id)
        request = fingerprint(seat, raw_action)
        cached = self._cache.get(record.id)
        read = cached is None or cached.version != expected_version
        look = maybe_retried  # for an earlier result of this command, before refusing it
        for _ in range(APPEND_ATTEMPTS):
            loaded = await self.load(record.id, record, read=read)
            rules = loaded.rules
            try:
                self.check_player(loaded.table, seat, by_bot)
                if expected_version != loaded.version and not await self._unaffected(
                    loaded, seat, expected_version
                ):
                    return await self._stale(record, command_id, request, False, loaded.version)
                try:
                    action = msgspec.convert(raw_action, rules.action_type)
                except msgspec.ValidationError as exc:
                    raise ProblemError(
                        400, "invalid_action_format", f"not an action of {rules.key}: {exc}"
                    ) from exc
                try:
                    events = rules.decide(
                        loaded.state, seat, action, self._rng(record, loaded.version)
                    )
                except IllegalAction as exc:
                    raise ProblemError(422, exc.code, exc.message) from exc
            except ProblemError:
                if look:
                    look = False
                    if earlier := await self.earlier(record, command_id, request):
                        return earlier  # applied before: its answer, not a refusal
                if read:
                    raise
                read = True  # judged on the cache alone: judged again on what the store holds
                continue
            read = True
            state = fold(rules, events, loaded.state)
            clocks = self.table_after(rules, state, loaded.table, seat)
            try:
                result = await self._append(
                    record,
                    rules,
                    state,
                    tables.fold(loaded.table, clocks),
                    loaded.version,
                    [*events, *clocks],
                    command_id,
                    seat,
                    request,
                )
            except ConcurrencyError:
                continue  # someone moved meanwhile: decide again against the news (or 409)
            return self._accepted(result, request)
        return await self._stale(record, command_id, request, look, loaded.version)

    def table_after(
        self, rules: Any, state: Any, table: TableState, actor: int | None
    ) -> list[AnyTableEvent]:
        """The table's events after a command of `actor` that left the engine at `state`:
        clocks stopped and started, then, if the command ended the game, its result
        (`game_over`, ranked on the table as those leave it), in the command's own append."""
        events = tables.after_command(table, self.to_act(rules, state), actor, self.now())
        outcome = rules.outcome(state)
        if outcome is not None:
            events += tables.game_over(outcome, tables.fold(table, events))
        return events

    @staticmethod
    def check_player(table: TableState, seat: int, by_bot: bool) -> None:
        if not 0 <= seat < len(table.seats):
            raise ProblemError(403, "not_seated", f"the game has no seat {seat}")
        bot = table.seats[seat].bot
        if by_bot and bot is None:
            raise ProblemError(403, "not_a_bot_seat", f"a person plays seat {seat}")
        if not by_bot and bot_plays(table.seats[seat]):
            raise ProblemError(
                409,
                "seat_played_by_bot",
                f"seat {seat} was handed to a {bot} bot ({table.seats[seat].standing})",
            )

    async def _unaffected(self, loaded: Loaded, seat: int, expected: int) -> bool:
        """True if nothing since `expected` changed what `seat` may do: the seat has not moved
        since, and its legal actions are the same now as then (what changed was a clock, or
        another seat's simultaneous choice). Only recent versions the service has in memory
        qualify, so a stale request never costs a replay of the game."""
        if not 0 < expected < loaded.version or loaded.version - expected > UNAFFECTED_WINDOW:
            return False
        cached = self._cache.get(loaded.record.id)
        then = next((st for v, st in cached.recent if v == expected), None) if cached else None
        if then is None:
            return False
        news = await self.store.read(
            stream_id(loaded.record.id), after=expected, limit=loaded.version - expected
        )
        if any(e.metadata.get("seat") == seat and e.type not in TABLE_EVENT_TYPES for e in news):
            return False  # its own move since: a second one is not a retry of the first
        rules = loaded.rules
        return list(rules.legal_actions(then, seat)) == list(
            rules.legal_actions(loaded.state, seat)
        )

    async def table_command(
        self,
        record: GameRecord,
        command_id: uuid.UUID,
        request: str,
        seat: int | None,
        decide: Callable[[TableState], list[AnyTableEvent]],
    ) -> Accepted | None:
        """Append what `decide` makes of the table now (decided again if the game moves
        meanwhile); None when it makes nothing. See services/game/seats.py."""
        for _ in range(APPEND_ATTEMPTS):
            loaded = await self.load(record.id, record)
            if status_of(loaded.rules, loaded.state) == "finished":
                raise ProblemError(409, "game_finished", "the game is over")
            events = decide(loaded.table)
            if not events:
                return None
            table = tables.fold(loaded.table, events)
            try:
                result = await self._append(
                    record,
                    loaded.rules,
                    loaded.state,
                    table,
                    loaded.version,
                    list(events),
                    command_id,
                    seat,
                    request,
                )
            except ConcurrencyError:
                continue
            return self._accepted(result, request)
        current = await self.store.version(stream_id(record.id))
        raise ProblemError(
            409, "stale_version", "the game kept moving; try again", current_version=current
        )

    @staticmethod
    def _accepted(result: AppendResult, request: str | None) -> Accepted:
        """The answer to an append. A duplicate the store found (this command id raced its
        own retry) goes through the same check as a replay found before deciding: the same
        Idempotency-Key with another request is refused, whichever request won."""
        if result.duplicate and result.events[0].metadata.get("request") != request:
            raise ProblemError(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was used for another request; use a new key per move",
            )
        return Accepted(version=result.version, events=result.events, replayed=result.duplicate)

    async def _stale(
        self, record: GameRecord, command_id: uuid.UUID, request: str, retried: bool, current: int
    ) -> Accepted:
        """A 409, unless this very command landed meanwhile (a retry racing its original)."""
        if retried and (earlier := await self.earlier(record, command_id, request)):
            return earlier
        raise ProblemError(
            409,
            "stale_version",
            f"the game is at version {current}; reload and retry",
            current_version=current,
        )

    async def earlier(
        self,
        record: GameRecord,
        command_id: uuid.UUID,
        request: str,
        same_request: bool = True,
    ) -> Accepted | None:
        """The stored result of this command if it was already applied, else None."""
        [first_id] = event_ids(command_id, 1)
        found = await self.store.find([first_id])
        if not found:
            return None
        first = found[0]
        if first.stream_id != stream_id(record.id) or (
            same_request and first.metadata.get("request") != request
        ):
            raise ProblemError(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was used for another request; use a new key per move",
            )
        size = int(first.metadata.get("batch", 1))
        events = await self.store.read(first.stream_id, after=first.version - 1, limit=size)
        return Accepted(version=events[-1].version, events=events, replayed=True)

    async def _append(
        self,
        record: GameRecord,
        rules: Any,
        state: Any,
        table: TableState,
        version: int,
        events: list[Any],
        command_id: uuid.UUID,
        seat: int | None,
        request: str | None = None,
    ) -> AppendResult:
        """Append a command's events, in a span of its own when tracing: its context is what
        the events carry on (their metadata's trace)."""
        if not tracing_enabled():  # no span to open: not even the context manager
            return await self._append_events(
                record, rules, state, table, version, events, command_id, seat, request
            )
        with span("append", game_id=record.id, command_id=str(command_id), game=record.game):
            return await self._append_events(
                record, rules, state, table, version, events, command_id, seat, request
            )

    async def _append_events(
        self,
        record: GameRecord,
        rules: Any,
        state: Any,
        table: TableState,
        version: int,
        events: list[Any],
        command_id: uuid.UUID,
        seat: int | None,
        request: str | None,
    ) -> AppendResult:
        status = status_of(rules, state)
        to_act = sorted(rules.to_act(state)) if status == "active" else []
        bots = tables.bots_now(table)
        ids = event_ids(command_id, len(events))
        command = str(command_id)
        trace = carry()  # the request that began it, on to the streams (the same for each)
        new = [
            NewEvent(
                event_id=ids[i],
                type=type(e).__struct_config__.tag,
                data=msgspec.json.encode(e),
                metadata={
                    "command_id": command,
                    "request": request,
                    "seat": seat,
                    "batch": len(events),
                    "batch_end": i == len(events) - 1,
                    "to_act": to_act,
                    "status": status,
                    "bots": bots,
                    "room_id": record.room_id,
                    "game": record.game,
                    "trace": trace,
                    **({"table_rules": tables.RULES_VERSION} if version == 0 else {}),
                },
            )
            for i, e in enumerate(events)
        ]
        turn = Turn(
            game_id=record.id,
            room_id=record.room_id,
            game=record.game,
            status=status,
            to_act=to_act,
            bots={k: v for k, v in bots.items() if int(k) in to_act},
            deadlines={str(k): d for k, d in tables.deadlines(table).items() if status == "active"},
            overdue=tables.overdue(table) if status == "active" else [],
        )
        with bind(game_id=record.id, command_id=command):
            asked = self.clock()
            try:
                result = await self.store.append(stream_id(record.id), new, version, turn)
            except ConcurrencyError:
                APPEND_CONFLICTS.labels(record.game).inc()
                log.debug("append at v%d lost a race", version)
                raise
            except BaseException:
                # Timed out, cancelled, cut off: the append may have committed all the same.
                # The game's latest version is unknown here until the store or the games
                # stream says, so no read is answered from memory meanwhile.
                self.waiters.notify(record.id)
                raise
            log.debug(
                "appended %s at v%d (%s)",
                ", ".join(e.type for e in new),
                result.version,
                "duplicate" if result.duplicate else "new",
            )
        if not result.duplicate:
            APPENDS.labels(record.game).inc()
            self._remember(
                record.id, result.version, state, table, events=result.events, confirmed=asked
            )
            # told before the snapshot's round trip: the move is news now (a long-poll, a
            # live feed, the relay's doorbell), and a snapshot cut short tells nobody
            self.waiters.notify(record.id, result.version)
            if self.appended is not None:
                self.appended()
            if result.version // self.snapshot_every > version // self.snapshot_every:
                await self._snapshot(record, rules, result.version, state, table)
        return result

    async def _snapshot(
        self, record: GameRecord, rules: Any, version: int, state: Any, table: TableState
    ) -> None:
        """A cache only: a failed save never fails the command that was appended."""
        try:
            await self.store.save_snapshot(
                Snapshot(
                    stream_id=stream_id(record.id),
                    version=version,
                    schema_ver=tables.snapshot_schema(rules.state_type, rules.schema_version),
                    state=msgspec.msgpack.encode((state, table)),
                )
            )
        except Exception:
            log.exception("snapshot of %s at v%d not saved", record.id, version)

    # -- reading -----------------------------------------------------------------------------

    def feed(
        self, rules: Any, stored: list[StoredEvent], seat: int | None, names: Sequence[str]
    ) -> list[FeedEvent]:
        """Stored events as `seat` may see them, each with its text made from that copy alone
        (`names`: who sits in each seat)."""
        words = narrator(rules.key)
        out = []
        for e in stored:
            event = self._decode(rules, e)
            if isinstance(event, TableEvent):
                visible, text = event, narrate_table(event, names)  # type: ignore[arg-type]
            elif (visible := rules.redact(event, seat)) is not None:
                text = words.narrate(visible, names)
            else:
                continue
            out.append(
                FeedEvent(
                    version=e.version,
                    type=e.type,
                    data=msgspec.to_builtins(visible),
                    seat=e.metadata.get("seat"),
                    recorded_at=timestamp(e.recorded_at),
                    text=text,
                )
            )
        return out

    async def events_since(
        self, record: GameRecord, after: int, wait: float, limit: int = 500
    ) -> tuple[Loaded, list[StoredEvent]]:
        """The game now and its stored events after `after`; when there are none, waits up to
        `wait` seconds for some (none once the game is over). A wake-up that brings nothing
        (the relay's envelope of a move this process already announced, say) waits on for
        the time left: an empty answer means the whole wait passed without news, never that a
        client must ask again at once.

        The first round reads the store once, for what came after the cached state (`load`),
        so an answer holds everything committed before the request, whichever process
        committed it. A long-poll (`wait` > 0) whose client has seen what this process holds
        (`after` as `read_needed`'s `min_version`) skips that read: what another replica
        committed just before and this process has not heard of yet wakes the poll when the
        games stream brings it (milliseconds), and the answer then holds it. A round after a
        wake-up reads only if the cached state is behind the
        latest version this process was told of (another process's move, heard through the
        relay, or a wake of unknown version): a wake by this process's own append finds its
        cache already there. The events the feed returns come from memory when the cache holds
        them (RECENT_EVENTS), else from a second read. 400 `after_beyond_version` when `after`
        is past the game's version."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        woken = False
        while True:
            moved = self.waiters.subscribe(record.id)  # before reading: a move between is seen
            if woken:
                read = self._behind(record.id)
            else:
                read = wait <= 0 or self.read_needed(record.id, after)
            loaded = await self.load(record.id, record, read=read)
            if after > loaded.version:
                raise beyond_version(loaded.version, "`after` can be at most that")
            if status_of(loaded.rules, loaded.state) == "finished":
                deadline = loop.time()  # nothing more will come
            stored = self._recent_events(record.id, after, loaded.version, limit)
            if stored is None:  # older than memory holds
                stored = await self.store.read(stream_id(record.id), after=after, limit=limit)
                if stored and stored[-1].version > loaded.version:
                    loaded = await self.load(record.id, record)  # where it stands after them
            left = deadline - loop.time()
            if stored or left <= 0 or not await self.waiters.wait(moved, left):
                return loaded, stored
            woken = True

    def read_needed(self, game_id: str, min_version: int | None) -> bool:
        """Whether a read that has seen `min_version` (the client's newest; None: not said)
        must ask the store: not when the cache is at least that recent and this process was
        told of nothing newer, by its own appends or the games stream (`_behind`), and the store
        confirmed the cached version within MEMORY_TRUSTED_S. The client then sees its own
        moves and never goes back, as a read would give; it may miss a move of another replica
        within the relay's lag (milliseconds; while the relay or Redis is down, up to
        MEMORY_TRUSTED_S), as if it had read a moment sooner."""
        if min_version is None:
            return True
        cached = self._cache.get(game_id)
        return (
            cached is None
            or cached.version < min_version
            or self._behind(game_id)
            or self.clock() - cached.confirmed > MEMORY_TRUSTED_S  # the news may have stopped
        )

    async def load_seen(self, record: GameRecord, min_version: int | None) -> Loaded:
        """`load` for a read whose client has seen `min_version` (`read_needed`); 400
        `min_version_beyond_version` when the game has not reached it."""
        loaded = await self.load(record.id, record, read=self.read_needed(record.id, min_version))
        if min_version is not None and loaded.version < min_version:
            raise beyond_version(
                loaded.version,
                f"min_version {min_version} is beyond it",
                "min_version_beyond_version",
            )
        return loaded

    def _behind(self, game_id: str) -> bool:
        """Whether the cached state may be older than the game's latest version this process
        was told of (or it was not told the version, or holds no state)."""
        cached = self._cache.get(game_id)
        known = self.waiters.known(game_id)
        return cached is None or known is None or cached.version < known

    def _recent_events(
        self, game_id: str, after: int, upto: int, limit: int
    ) -> list[StoredEvent] | None:
        """The stored events in (after, upto] from memory, at most `limit`; None when memory
        does not hold them all."""
        if after >= upto:
            return []
        cached = self._cache.get(game_id)
        events = cached.events if cached is not None else ()
        if not events or events[0].version > after + 1 or events[-1].version < upto:
            return None
        return [e for e in events if after < e.version <= upto][:limit]

    # -- helpers -----------------------------------------------------------------------------

    @staticmethod
    def _rng(record: GameRecord, version: int) -> Seeded:
        # Deterministic from a seed no client sees: replays and retries draw the same cards.
        return Seeded(record.seed * 1_000_003 + version)

    @staticmethod
    def rules_for(record: GameRecord) -> Rules[Any, Any, Any, Any]:
        rules = get_rules(record.game)
        if rules is None:
            raise ProblemError(503, "game_unavailable", f"{record.game} is not served here")
        return rules

    @staticmethod
    def to_act(rules: Any, state: Any) -> frozenset[int]:
        """Who must act; nobody once the game is over."""
        return frozenset() if status_of(rules, state) == "finished" else rules.to_act(state)

    def _decode(self, rules: Any, event: StoredEvent) -> Any:
        if event.type in TABLE_EVENT_TYPES:
            return _table_event.decode(event.data)
        decoder = self._decoders.get(rules.key)
        if decoder is None:
            decoder = self._decoders[rules.key] = msgspec.json.Decoder(rules.event_type)
        return decoder.decode(event.data)

    def _remember(
        self,
        game_id: str,
        version: int,
        state: Any,
        table: TableState,
        passed: Sequence[tuple[int, Any]] = (),
        events: Sequence[StoredEvent] = (),
        *,
        confirmed: float,
    ) -> None:
        """The game at `version`; `events`: the stored events that led there from the cached
        version (kept while they join on to those kept before); `confirmed`: when the store
        was asked what said `version` was the latest (before the read or the append went
        out: a move committed while it was on the way is younger than that)."""
        cached = self._cache.get(game_id)
        if cached is not None and cached.version > version:
            return
        recent: tuple[tuple[int, Any], ...] = ()
        kept: tuple[StoredEvent, ...] = ()
        if cached is not None:
            recent = cached.recent
            if cached.version < version:
                recent = (*recent, (cached.version, cached.state))
            kept = cached.events
        recent = (*recent, *(p for p in passed if p[0] < version))[-RECENT_STATES:]
        if events and (not kept or kept[-1].version != events[0].version - 1):
            kept = ()  # a gap: only the new ones join
        kept = (*kept, *events)[-RECENT_EVENTS:]
        if kept and kept[-1].version != version:
            kept = ()
        self._cache[game_id] = _Cached(
            version=version,
            state=state,
            table=table,
            recent=recent,
            events=kept,
            confirmed=confirmed,
        )
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
