"""A game's record: its log as the event store holds it, turned into a header and one line a
command (the format `games/replay.py` replays and tests/corpus keeps), with nothing hidden:
`GET /v1/games/{id}/record` serves it once the game has finished.

The store keeps no command, only its events and, in their metadata, who acted (`seat`) and
the fingerprint of what was asked (`request`: services.game.commands.fingerprint of the
seat and the action as posted). The action of a move is the one sent with that fingerprint,
where the caller knows what was sent (`sent`: a client's posts, the bots' commands read
off their stream), else it is found again among the seat's legal actions on the state
before it, as today's code lists them. An action listed by an older version of the code may
lack fields added since at their defaults, so each legal action is also tried without any
of its fields that hold their default; one that older code spelled otherwise (a card named
by its kind rather than its id) is found only among what was sent.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import msgspec

from games import table as tables
from games.api import rules_version_of
from games.registry import registry
from games.replay import RECORD_FORMAT
from games.table import TABLE_EVENT_TYPES
from infra.eventstore.api import StoredEvent
from infra.eventstore.memory import MemoryEventStore
from services.game.commands import fingerprint
from services.game.live import Waiters
from services.game.repository import GameRecord, MemoryGamesRepository
from services.game.service import GameService

# what a reader of the log uses of an event's metadata (tests/corpus/record.py's KEPT_META)
KEPT_META = ("batch_end", "to_act", "status")


class NotFound(AssertionError):
    pass


def spellings(action: Any) -> Iterator[dict[str, Any]]:
    """The action as a client may have posted it: whole, then without fields at their
    defaults (fewer first), each such field left out or kept."""
    whole: dict[str, Any] = msgspec.to_builtins(action)
    yield whole
    defaults = [
        f.encode_name
        for f in msgspec.structs.fields(type(action))
        if f.encode_name in whole
        and f.default is not msgspec.NODEFAULT
        and whole[f.encode_name] == msgspec.to_builtins(f.default)
    ]
    for n in range(1, len(defaults) + 1):
        for left_out in itertools.combinations(defaults, n):
            yield {k: v for k, v in whole.items() if k not in left_out}


def action_of(rules: Any, state: Any, seat: int, request: str) -> dict[str, Any]:
    """The legal action of `seat` on `state` whose fingerprint is `request`."""
    legal = list(rules.legal_actions(state, seat))
    for action in legal:  # the whole spelling first: one pass for the usual case
        whole = msgspec.to_builtins(action)
        if fingerprint(seat, whole) == request:
            return dict(whole)
    for action in legal:
        for spelled in spellings(action):
            if fingerprint(seat, spelled) == request:
                return spelled
    raise NotFound(f"no legal action of seat {seat} ({len(legal)} of them) is request {request}")


def commands(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """The events in runs of one command each (an append's events share its command id)."""
    runs: list[list[StoredEvent]] = []
    for e in events:
        if runs and runs[-1][0].metadata.get("command_id") == e.metadata.get("command_id"):
            runs[-1].append(e)
        else:
            runs.append([e])
    return runs


def row(e: StoredEvent) -> dict[str, Any]:
    return {
        "v": e.version,
        "type": e.type,
        "data": json.loads(e.data),
        "meta": {k: e.metadata[k] for k in KEPT_META if k in e.metadata},
    }


def game_record(
    record: GameRecord,
    events: Sequence[StoredEvent],
    sent: Iterable[tuple[int, dict[str, Any]]] = (),
    story: str = "stored",
    strict: bool = True,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, lines) of the game's stored log, as `games/replay.py` and
    tests/corpus/replay.py read them: `{"setup": true}` for the first command,
    `{"seat", "action"}` for a move (the one of `sent`, (seat, action) pairs, with its
    fingerprint, else the legal action with it), `{"table": [types]}` for a command of the
    table alone (a timeout, a resignation, a claim), which a replay folds without deciding.
    A move whose action is found nowhere raises `NotFound`, or (`strict` off: a record
    served to a client) is `{"seat", "action": null, "request"}`, folded unproven."""
    known = {fingerprint(seat, action): action for seat, action in sent}
    rules = registry()[record.game]
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters())
    header: dict[str, Any] = {
        "record": RECORD_FORMAT,
        "game": record.game,
        "game_id": record.id,
        "room_id": record.room_id,
        "story": story,
        "seats": len(record.seats),
        "options": record.options,
        "timing": record.timing,
        "seed": record.seed,
        "fill_level": record.fill_level,
        "names": list(record.names),
        "players": [msgspec.to_builtins(seat) for seat in record.seats],
    }
    state: Any = None
    table = svc.initial_table(record)
    lines: list[dict[str, Any]] = []
    for run in commands(events):
        at = run[0].version - 1
        seat = run[0].metadata.get("seat")
        moved = any(e.type not in TABLE_EVENT_TYPES for e in run)
        cmd: dict[str, Any]
        if at == 0:
            cmd = {"setup": True}
        elif moved and seat is not None:
            request = run[0].metadata.get("request") or ""
            try:
                action = known.get(request) or action_of(rules, state, seat, request)
            except NotFound as exc:
                if strict:
                    raise NotFound(f"{record.game} {record.id} at v{at}: {exc}") from None
                cmd = {"seat": seat, "action": None, "request": request}
            else:
                cmd = {"seat": seat, "action": action}
        else:
            cmd = {"table": [e.type for e in run]}
        lines.append({"cmd": cmd, "at": at, "events": [row(e) for e in run]})
        state, table = svc._fold(rules, run, state, table)
    if state is not None:
        header["version"] = events[-1].version
        header["rules"] = rules_version_of(state)
        header["outcome"] = msgspec.to_builtins(tables.result(rules.outcome(state), table))
    return header, lines


__all__ = ["NotFound", "action_of", "commands", "game_record", "spellings"]
