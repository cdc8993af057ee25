"""Command handling: rebuild state from the events, decide, append with optimistic concurrency."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections import OrderedDict
from random import Random
from typing import Any, Literal

import msgspec

from contracts.game import FeedEvent, SeatInfo
from contracts.problems import ProblemError
from contracts.streams import RoomStarted
from games.api import IllegalAction, Rules, fold
from games.registry import get as get_rules
from infra.eventstore import (
    AppendResult,
    ConcurrencyError,
    EventStore,
    NewEvent,
    Snapshot,
    StoredEvent,
)
from infra.eventstore.api import command_uuid, event_ids
from services.game.live import Waiters
from services.game.repository import GameRecord, GamesRepository, new_seed, stream_id

log = logging.getLogger(__name__)


class Loaded(msgspec.Struct, kw_only=True):
    record: GameRecord
    rules: Any
    state: Any
    version: int


class Accepted(msgspec.Struct, kw_only=True):
    version: int
    events: list[StoredEvent]
    replayed: bool


def status_of(rules: Any, state: Any) -> Literal["active", "finished"]:
    return "finished" if rules.outcome(state) is not None or not rules.to_act(state) else "active"


def _fingerprint(seat: int, action: dict[str, Any]) -> str:
    """What a command asked for, to tell a true retry from a reused Idempotency-Key."""
    body = msgspec.json.encode({"seat": seat, "action": action}, order="sorted")
    return hashlib.sha256(body).hexdigest()[:32]


def game_id_for_room(room_id: str) -> str:
    return str(command_uuid("room", room_id))


class GameService:
    """Everything the REST routes and the stream consumers do to games."""

    def __init__(
        self,
        store: EventStore,
        games: GamesRepository,
        waiters: Waiters,
        snapshot_every: int = 100,
        cache_size: int = 2048,
    ) -> None:
        self.store = store
        self.games = games
        self.waiters = waiters
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, tuple[int, Any]] = OrderedDict()
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
            )
        )
        options = msgspec.convert(record.options, rules.options_type)
        events = rules.setup(options, len(record.seats), self._rng(record, 0))
        state = fold(rules, events)
        command_id = command_uuid("setup", game_id)
        await self._append(record, rules, state, 0, events, command_id, seat=None)
        return game_id

    # -- loading -----------------------------------------------------------------------------

    async def record(self, game_id: str) -> GameRecord:
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

    async def load(self, game_id: str, record: GameRecord | None = None) -> Loaded:
        record = record or await self.record(game_id)
        game_id = record.id
        rules = self.rules_for(record)
        version, state = self._cache.get(game_id, (0, None))
        if state is None:
            snap = await self.store.load_snapshot(stream_id(game_id))
            if snap is not None and snap.schema_ver == rules.schema_version:
                state = msgspec.msgpack.decode(snap.state, type=rules.state_type)
                version = snap.version
        stored = await self.store.read(stream_id(game_id), after=version)
        if state is None and not stored:
            raise ProblemError(404, "unknown_game", f"game {game_id} is still being set up")
        state = fold(rules, [self._decode(rules, e) for e in stored], state)
        version = stored[-1].version if stored else version
        self._remember(game_id, version, state)
        return Loaded(record=record, rules=rules, state=state, version=version)

    # -- commands ----------------------------------------------------------------------------

    async def submit(
        self,
        game_id: str,
        seat: int,
        raw_action: dict[str, Any],
        expected_version: int,
        command_id: uuid.UUID,
        maybe_retried: bool = True,
    ) -> Accepted:
        """Decide and append one command. A fresh random command id cannot have been applied
        before, so `maybe_retried=False` skips the lookup of an earlier result."""
        record = await self.record(game_id)
        request = _fingerprint(seat, raw_action)
        if maybe_retried and (earlier := await self._earlier(record, command_id, request)):
            return earlier
        loaded = await self.load(record.id, record)
        rules = loaded.rules
        if expected_version != loaded.version:
            return await self._stale(record, command_id, request, maybe_retried, loaded.version)
        try:
            action = msgspec.convert(raw_action, rules.action_type)
        except msgspec.ValidationError as exc:
            raise ProblemError(
                400, "invalid_action_format", f"not an action of {rules.key}: {exc}"
            ) from exc
        try:
            events = rules.decide(loaded.state, seat, action, self._rng(record, loaded.version))
        except IllegalAction as exc:
            raise ProblemError(422, exc.code, exc.message) from exc
        state = fold(rules, events, loaded.state)
        try:
            result = await self._append(
                record, rules, state, loaded.version, events, command_id, seat, request
            )
        except ConcurrencyError as exc:
            return await self._stale(record, command_id, request, maybe_retried, exc.actual)
        return Accepted(version=result.version, events=result.events, replayed=result.duplicate)

    async def _stale(
        self, record: GameRecord, command_id: uuid.UUID, request: str, retried: bool, current: int
    ) -> Accepted:
        """A 409, unless this very command landed meanwhile (a retry racing its original)."""
        if retried and (earlier := await self._earlier(record, command_id, request)):
            return earlier
        raise ProblemError(
            409,
            "stale_version",
            f"the game is at version {current}; reload and retry",
            current_version=current,
        )

    async def _earlier(
        self, record: GameRecord, command_id: uuid.UUID, request: str
    ) -> Accepted | None:
        """The stored result of this command if it was already applied, else None."""
        [first_id] = event_ids(command_id, 1)
        found = await self.store.find([first_id])
        if not found:
            return None
        first = found[0]
        if first.stream_id != stream_id(record.id) or first.metadata.get("request") != request:
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
        version: int,
        events: list[Any],
        command_id: uuid.UUID,
        seat: int | None,
        request: str | None = None,
    ) -> AppendResult:
        to_act = sorted(rules.to_act(state))
        status = status_of(rules, state)
        ids = event_ids(command_id, len(events))
        new = [
            NewEvent(
                event_id=ids[i],
                type=type(e).__struct_config__.tag,
                data=msgspec.json.encode(e),
                metadata={
                    "command_id": str(command_id),
                    "request": request,
                    "seat": seat,
                    "batch": len(events),
                    "batch_end": i == len(events) - 1,
                    "to_act": to_act,
                    "status": status,
                    "bots": record.bots,
                    "room_id": record.room_id,
                    "game": record.game,
                },
            )
            for i, e in enumerate(events)
        ]
        result = await self.store.append(stream_id(record.id), new, version)
        if not result.duplicate:
            self._remember(record.id, result.version, state)
            if result.version // self.snapshot_every > version // self.snapshot_every:
                await self.store.save_snapshot(
                    Snapshot(
                        stream_id=stream_id(record.id),
                        version=result.version,
                        schema_ver=rules.schema_version,
                        state=msgspec.msgpack.encode(state),
                    )
                )
            self.waiters.notify(record.id)
        return result

    # -- reading -----------------------------------------------------------------------------

    def feed(self, rules: Any, stored: list[StoredEvent], seat: int | None) -> list[FeedEvent]:
        """Stored events as `seat` may see them."""
        out = []
        for e in stored:
            visible = rules.redact(self._decode(rules, e), seat)
            if visible is None:
                continue
            out.append(
                FeedEvent(
                    version=e.version,
                    type=e.type,
                    data=msgspec.to_builtins(visible),
                    seat=e.metadata.get("seat"),
                    recorded_at=e.recorded_at.isoformat(),
                )
            )
        return out

    async def events_after(self, game_id: str, after: int, wait: float) -> list[StoredEvent]:
        moved = self.waiters.subscribe(game_id)
        stored = await self.store.read(stream_id(game_id), after=after, limit=500)
        if stored or wait <= 0:
            return stored
        if await self.waiters.wait(moved, wait):
            return await self.store.read(stream_id(game_id), after=after, limit=500)
        return []

    # -- helpers -----------------------------------------------------------------------------

    @staticmethod
    def _rng(record: GameRecord, version: int) -> Random:
        # Deterministic from a seed no client sees: replays and retries draw the same cards.
        return Random(record.seed * 1_000_003 + version)

    @staticmethod
    def rules_for(record: GameRecord) -> Rules[Any, Any, Any, Any]:
        rules = get_rules(record.game)
        if rules is None:
            raise ProblemError(503, "game_unavailable", f"{record.game} is not served here")
        return rules

    def _decode(self, rules: Any, event: StoredEvent) -> Any:
        decoder = self._decoders.get(rules.key)
        if decoder is None:
            decoder = self._decoders[rules.key] = msgspec.json.Decoder(rules.event_type)
        return decoder.decode(event.data)

    def _remember(self, game_id: str, version: int, state: Any) -> None:
        cached = self._cache.get(game_id)
        if cached is None or cached[0] <= version:
            self._cache[game_id] = (version, state)
            self._cache.move_to_end(game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
