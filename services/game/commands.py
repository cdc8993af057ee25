"""The command path, top to bottom: a game created from its room; a move (`submit`) or a table
command (resign, claim, timeout: `table_command`) decided on the game as loaded, its events
appended with optimistic concurrency, a retry answered with what it did the first time, and
the news told (waiters, the relay's doorbell, a snapshot now and then)."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import msgspec

from contracts.game import SeatInfo, timestamp
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games import table as tables
from games.api import IllegalAction, fold
from games.registry import get as get_rules
from games.table import TABLE_EVENT_TYPES, AnyTableEvent, ChatSaid, TableSeat, TableState
from infra.eventstore import AppendResult, ConcurrencyError, NewEvent, Snapshot, StoredEvent
from infra.eventstore.api import Turn, command_uuid, event_ids
from infra.observability.context import bind, carry
from infra.observability.metrics import APPEND_CONFLICTS, APPENDS
from infra.observability.tracing import enabled as tracing_enabled
from infra.observability.tracing import span
from services.game.loading import Loaded, Loading, status_of
from services.game.memory import RECENT_STATES, state_at
from services.game.repository import GameRecord, new_seed, stream_id

log = logging.getLogger(__name__)


# Versions back within which a move may still be unaffected by news: the news is read from the
# store to see that the seat has not moved since, so this bounds what a stale request costs.
# The states it is judged against are bounded apart (RECENT_STATES, chat taking none), so the
# window is wide: table chat (10 messages a minute a player) between a read and a move would
# take a hundred people's whole minute to push a seat past it.
UNAFFECTED_WINDOW = 1024


# A move that lost the race to append is decided again against the news, as long as it stays
# unaffected by it. Each lost race is one more command since its expected version, and a
# move can be unaffected only while its expected version is among the RECENT_STATES kept:
# this bound is above that, so a lost race ends in an append or in the rule's 409, never in
# running out of attempts (six seats choosing at once lose up to five races; 4 was too few).
# One more for a move first judged on the cache alone (submit) and judged again on a read.
APPEND_ATTEMPTS = RECENT_STATES + 3


class Accepted(msgspec.Struct, kw_only=True):
    version: int
    events: list[StoredEvent]
    replayed: bool


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


def handed_over(table: TableState, seat: int, now: datetime) -> bool:
    """Whether the seat's deadline passed under `bot_takeover` with its person still on it:
    the seat is a bot's from then, whether or not the scheduler has recorded it yet (it does
    within moments). Its person's moves are refused (409 `deadline_passed`), and none is
    listed as theirs (the legal actions)."""
    mine = table.seats[seat]
    return (
        table.timing.on_timeout == "bot_takeover"
        and mine.bot is None
        and mine.deadline is not None
        and now >= mine.deadline
    )


class Commands(Loading):
    """What changes a game: every command goes through here."""

    snapshot_every: int
    now: Callable[[], datetime]
    appended: Callable[[], None] | None

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
                if not by_bot:
                    self.check_in_time(loaded.table, seat)
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

    def check_in_time(self, table: TableState, seat: int) -> None:
        """A person's move after their deadline under `bot_takeover` is refused: the deadline
        handed the seat to a bot when it passed, whether or not the scheduler has said so yet
        (it does within moments). Under `bot_move` the person may still move before the bot
        does, and under `wait` until someone claims the seat."""
        if handed_over(table, seat, self.now()):
            passed = table.seats[seat].deadline
            assert passed is not None  # handed over by it
            raise ProblemError(
                409,
                "deadline_passed",
                f"seat {seat}'s deadline passed at {timestamp(passed)}: a bot takes the seat over",
            )

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
        then = state_at(cached.recent, expected) if cached else None
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
            started={str(k): d for k, d in tables.turn_starts(table).items() if status == "active"},
            overdue=tables.overdue(table) if status == "active" else [],
            quiet=all(isinstance(e, ChatSaid) for e in events),  # chat: the timers stay
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
