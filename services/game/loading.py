"""Loading a game: its record, then its state rebuilt from a snapshot and the events after it
(or from memory), checked to be under rules this release knows."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from contracts.problems import ProblemError
from games import table as tables
from games.api import Rules, Seeded, draws, rules_version_of
from games.registry import get as get_rules
from games.table import TABLE_EVENT_TYPES, AnyTableEvent, TableEvent, TableState
from infra.eventstore import EventStore, StoredEvent
from services.game.memory import Memory
from services.game.repository import GameRecord, GamesRepository, stream_id

log = logging.getLogger(__name__)


class Loaded(msgspec.Struct, kw_only=True):
    record: GameRecord
    rules: Any
    state: Any  # the engine's
    table: TableState  # clocks and who plays each seat (games/table.py)
    version: int


_table_event = msgspec.json.Decoder(AnyTableEvent)


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


class Loading(Memory):
    """How the service reads a game: what every command and every read begins with."""

    store: EventStore
    games: GamesRepository
    _records: dict[str, GameRecord]
    _decoders: dict[str, msgspec.json.Decoder[Any]]

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

    async def as_of(self, loaded: Loaded, at: int) -> Loaded:
        """The game as it stood at version `at` (a replay's step: GET /v1/games/{id}?at=,
        board.svg?at=), folded from its first event; 400 `at_beyond_version` past `loaded`."""
        if at > loaded.version:
            raise ProblemError(
                400, "at_beyond_version", f"the game is at version {loaded.version}, not {at}"
            )
        record = loaded.record
        stored = await self.store.read(stream_id(record.id), limit=at)
        state, table = self._fold(loaded.rules, stored, None, self.initial_table(record))
        return Loaded(record=record, rules=loaded.rules, state=state, table=table, version=at)

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

    def _decode(self, rules: Any, event: StoredEvent) -> Any:
        if event.type in TABLE_EVENT_TYPES:
            return _table_event.decode(event.data)
        decoder = self._decoders.get(rules.key)
        if decoder is None:
            decoder = self._decoders[rules.key] = msgspec.json.Decoder(rules.event_type)
        return decoder.decode(event.data)

    @staticmethod
    def _rng(record: GameRecord, version: int) -> Seeded:
        # Deterministic from a seed no client sees: replays and retries draw the same cards.
        return draws(record.seed, version)

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

    @staticmethod
    def initial_table(record: GameRecord) -> TableState:
        return tables.initial(
            tables.timing_of(record.timing), record.fill_level, [s.bot for s in record.seats]
        )
