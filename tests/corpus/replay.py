"""Replay one recorded log (tests/corpus/record.py) with the current code.

Two checks, each on the code path a game in progress takes when a new version of the
service loads it:
- **read**: every stored event decodes and folds (the game service's own `_fold`, engine
  and table), versions contiguous from 1; the final (state, table) hashes as recorded for
  the engine state's schema, and the result is the recorded outcome;
- **rules**: every command is decided again on the state it was decided on, with the draws
  the service gave it (the game's seed and the version), and gives the engine events the log
  holds: the setup deals the same cards, a move has the same consequences. A change of
  rules that would re-rule a game in progress fails here.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import msgspec

from contracts.game import SeatInfo
from games.registry import registry
from games.table import TABLE_EVENT_TYPES, snapshot_schema
from infra.eventstore.api import StoredEvent
from infra.eventstore.memory import MemoryEventStore
from services.game.live import Waiters
from services.game.repository import GameRecord, MemoryGamesRepository
from services.game.service import GameService

RECORDED_AT = datetime(2026, 12, 5, tzinfo=UTC)  # unused by folding


class Replayed(msgspec.Struct, frozen=True, kw_only=True):
    schema: int
    hash: str
    outcome: Any
    version: int


class Diverged(AssertionError):
    pass


def _stored(game_id: str, row: dict[str, Any]) -> StoredEvent:
    return StoredEvent(
        stream_id=f"game-{game_id}",
        version=row["v"],
        event_id=uuid.UUID(int=row["v"]),
        type=row["type"],
        data=json.dumps(row["data"]).encode(),
        metadata=row["meta"],
        global_position=row["v"],
        recorded_at=RECORDED_AT,
    )


def final_hash(state: Any, table: Any) -> str:
    encoded = msgspec.json.encode((state, table), order="deterministic")
    return hashlib.sha256(encoded).hexdigest()


def schema_of(rules: Any) -> int:
    return snapshot_schema(rules.state_type, rules.schema_version)


def _json(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value))


def replay(header: dict[str, Any], lines: list[dict[str, Any]]) -> Replayed:
    rules = registry()[header["game"]]
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters())
    record = GameRecord(
        id="00000000-0000-4000-8000-000000000000",
        room_id=None,
        game=header["game"],
        seats=[SeatInfo(seat=i, player_id=f"p{i}") for i in range(header["seats"])],
        options=header["options"],
        timing=header["timing"],
        seed=header["seed"],
        fill_level=header["fill_level"],
    )
    decoder = msgspec.json.Decoder(rules.event_type)
    state: Any = None
    table = svc.initial_table(record)
    version = 0
    where = f"{header['game']} {header['story']}"
    for line in lines:
        if line["at"] != version:
            raise Diverged(f"{where}: a command at v{line['at']} after v{version}")
        stored = [_stored(record.id, row) for row in line["events"]]
        for e in stored:
            version += 1
            if e.version != version:
                raise Diverged(f"{where}: v{e.version} where v{version} was due")
        engine = [row["data"] for row in line["events"] if row["type"] not in TABLE_EVENT_TYPES]
        cmd = line["cmd"]
        # as today's code reads them (a field added since, with its default, is no change)
        logged = _json([decoder.decode(json.dumps(data)) for data in engine])
        if cmd.get("setup"):
            options = msgspec.convert(header["options"], rules.options_type)
            again = rules.setup(options, header["seats"], svc._rng(record, 0))
            began = next((e["rules"] for e in logged if "rules" in e), None)
            again = [  # the same deal; the version it records is the one of its day
                msgspec.structs.replace(e, rules=began) if began and hasattr(e, "rules") else e
                for e in again
            ]
            if _json(again) != logged:
                raise Diverged(f"{where}: the setup deals otherwise now")
        elif "action" in cmd:
            action = msgspec.convert(cmd["action"], rules.action_type)
            again = rules.decide(state, cmd["seat"], action, svc._rng(record, line["at"]))
            if _json(again) != logged:
                raise Diverged(
                    f"{where}: the move at v{line['at']} ({cmd['action']}) is ruled otherwise "
                    f"now: {_json(again)} where the log has {logged}"
                )
        state, table = svc._fold(rules, stored, state, table)
    if state is None:
        raise Diverged(f"{where}: no events")
    outcome = table.outcome or rules.outcome(state)
    return Replayed(
        schema=schema_of(rules),
        hash=final_hash(state, table),
        outcome=msgspec.to_builtins(outcome),
        version=version,
    )


__all__ = ["Diverged", "Replayed", "replay"]
