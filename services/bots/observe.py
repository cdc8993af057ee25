"""What a bot may know: its own seat's view and legal actions, rebuilt from the event store.

The full state exists only in here (and in a worker's cache of recent states, `States`) and
is dropped before any policy runs: a policy gets an `Observation`, never the state. A policy
that searches gets `world`: a state the seat cannot tell from the real one, guessed by the
engine's `sample` from a fixed seed. `sample` depends on nothing the seat cannot see (the
generic `check_sample` proves it for every game), so two real states the seat cannot tell
apart give the same world, and searching from it learns nothing hidden.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from random import Random
from typing import Any, NamedTuple

import asyncpg
import msgspec

from games.api import Rules
from games.registry import get as get_rules
from games.table import TABLE_EVENT_TYPES, TableState, snapshot_schema


class Observation(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    seat: int
    version: int
    view: dict[str, Any]  # exactly what GET /v1/games/{id} shows this seat: {public, private}
    legal: list[Any]  # the engine's action Structs for this seat
    to_act: list[int]
    world: Any = None  # a guessed full state, from what the seat sees only (see above)


WORLD_SEED = 0


def observation(
    rules: Rules[Any, Any, Any, Any], state: Any, seat: int, version: int, world: bool = True
) -> Observation:
    """Everything a policy gets: nothing in it depends on what `seat` cannot see. `world`
    only for a policy that searches (guessing it costs a deal of the hidden cards)."""
    return Observation(
        game=rules.key,
        seat=seat,
        version=version,
        view=msgspec.to_builtins(rules.view(state, seat)),
        legal=list(rules.legal_actions(state, seat)),
        to_act=sorted(rules.to_act(state)),
        world=rules.sample(state, seat, Random(WORLD_SEED)) if world else None,
    )


class Seen(NamedTuple):
    """A game's engine state as of `version`, whose event there has id `event_id`."""

    version: int
    event_id: uuid.UUID | None  # None: the state came from a snapshot, checked no further
    state: Any


class States:
    """Recent engine states of the games this process plays, so a turn folds only the events
    since the bot's last look; a bounded LRU.

    It can never serve a wrong state: an entry is used only if the stored event at its
    version still has the id of the one folded into it (events are immutable, so the state
    at that version is still the state), and the events after it are read and folded every
    time, so it is never behind the store either. Anything else and the game is rebuilt from
    the snapshot and the events, as without a cache."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._seen: OrderedDict[str, Seen] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, game_id: str) -> Seen | None:
        seen = self._seen.get(game_id)
        if seen is not None:
            self._seen.move_to_end(game_id)
        return seen

    def put(self, game_id: str, seen: Seen) -> None:
        self._seen[game_id] = seen
        self._seen.move_to_end(game_id)
        while len(self._seen) > self.size:
            self._seen.popitem(last=False)

    def drop(self, game_id: str) -> None:
        self._seen.pop(game_id, None)


_decoders: dict[str, msgspec.json.Decoder[Any]] = {}
_EVENTS_FROM = (
    "SELECT version, event_id, type, data::text AS data FROM events"
    " WHERE stream_id = $1 AND version >= $2 ORDER BY version"
)


def _decoder(rules: Rules[Any, Any, Any, Any]) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(rules.key)
    if decoder is None:
        decoder = _decoders[rules.key] = msgspec.json.Decoder(rules.event_type)
    return decoder


async def _from_snapshot(
    conn: asyncpg.Connection, rules: Rules[Any, Any, Any, Any], stream: str
) -> Seen | None:
    snap = await conn.fetchrow(
        "SELECT version, schema_ver, state FROM snapshots WHERE stream_id = $1", stream
    )
    if snap is None or snap["schema_ver"] != snapshot_schema(
        rules.state_type, rules.schema_version
    ):
        return None
    with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
        state, _ = msgspec.msgpack.decode(snap["state"], type=tuple[rules.state_type, TableState])
        return Seen(snap["version"], None, state)
    return None


# The events since each cached state, for several games at once. A nested loop of index
# scans, one per game, fenced (OFFSET 0) so that the prepared statement's generic plan,
# which knows nothing of the arrays, cannot turn it into a scan of the whole table.
_EVENTS_OF_MANY = (
    "SELECT w.stream_id, e.version, e.event_id, e.type, e.data"
    " FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS w(stream_id, since, n)"
    " CROSS JOIN LATERAL (SELECT version, event_id, type, data::text AS data FROM events"
    " WHERE stream_id = w.stream_id AND version >= w.since OFFSET 0) e"
    " ORDER BY w.n, e.version"
)


def _still(seen: Seen, rows: list[Any]) -> list[Any] | None:
    """The rows after a cached state, or None when the store's event at its version is not
    the one folded into it (never trust it then)."""
    if rows and rows[0]["version"] == seen.version and rows[0]["event_id"] == seen.event_id:
        return rows[1:]
    return None


async def _rebuilt(
    conn: asyncpg.Connection, rules: Rules[Any, Any, Any, Any], stream: str
) -> tuple[Seen | None, list[Any]]:
    """Without a usable cached state: the snapshot (if any) and the events after it."""
    seen = await _from_snapshot(conn, rules, stream)
    after = seen.version if seen is not None else 0
    rows = await conn.fetch(_EVENTS_FROM, stream, after + 1 if seen is None else after)
    if seen is not None and rows and rows[0]["version"] == seen.version:
        seen = seen._replace(event_id=rows[0]["event_id"])
        rows = rows[1:]
    return seen, rows


async def _settled(
    conn: asyncpg.Connection,
    rules: Rules[Any, Any, Any, Any],
    game_id: str,
    seen: Seen | None,
    rows: list[Any],
    states: States | None,
) -> Seen | None:
    """A cached state (or None) brought up to date with `rows`, the store's events from its
    version on: folded if the store bears it out, else rebuilt from the snapshot; kept in
    `states`. None if the game has no events."""
    after = _still(seen, rows) if seen is not None else None
    if seen is not None and after is not None:
        if states is not None:
            states.hits += 1
    else:
        if states is not None:
            if seen is not None:  # not the events it was folded from: never trust it
                states.drop(game_id)
            states.misses += 1
        seen, after = await _rebuilt(conn, rules, f"game-{game_id}")
    if seen is None and not after:
        return None
    state = seen.state if seen is not None else None
    decoder = _decoder(rules)
    for row in after:
        if row["type"] not in TABLE_EVENT_TYPES:  # clocks and seats: nothing a policy reads
            state = rules.evolve(state, decoder.decode(row["data"]))
    if after:
        seen = Seen(after[-1]["version"], after[-1]["event_id"], state)
    assert seen is not None
    if states is not None and seen.event_id is not None:
        states.put(game_id, seen)
    return seen


async def game_state(
    conn: asyncpg.Connection,
    rules: Rules[Any, Any, Any, Any],
    game_id: str,
    states: States | None = None,
) -> Seen | None:
    """The game's engine state now: the cached one (if still valid) or the snapshot, plus the
    events after it; None if the game has no events."""
    seen = states.get(game_id) if states is not None else None
    rows = [] if seen is None else await conn.fetch(_EVENTS_FROM, f"game-{game_id}", seen.version)
    return await _settled(conn, rules, game_id, seen, rows, states)


async def game_states(
    conn: asyncpg.Connection,
    games: Sequence[tuple[Rules[Any, Any, Any, Any], str]],
    states: States,
) -> dict[str, Seen | None]:
    """`game_state` of several games (rules, game id) at once: the events since the cached
    states of all of them in one query; a game not cached, or whose cached state the store
    no longer bears out, is rebuilt alone as `game_state` does."""
    rules_of = {game_id: rules for rules, game_id in games}
    cached = {g: seen for g in rules_of if (seen := states.get(g)) is not None}
    rows_of: dict[str, list[Any]] = {f"game-{g}": [] for g in cached}
    if cached:
        since = [seen.version for seen in cached.values()]
        for row in await conn.fetch(_EVENTS_OF_MANY, list(rows_of), since):
            rows_of[row["stream_id"]].append(row)
    return {
        game_id: await _settled(
            conn, rules, game_id, cached.get(game_id), rows_of.get(f"game-{game_id}", []), states
        )
        for game_id, rules in rules_of.items()
    }


async def observe(
    conn: asyncpg.Connection,
    game: str,
    game_id: str,
    seat: int,
    states: States | None = None,
    world: bool = True,
) -> Observation | None:
    """What `seat` may know of the game now; `states` (a worker's cache) saves the refold."""
    rules = get_rules(game)
    if rules is None:
        raise ValueError(f"unknown game {game!r}")
    seen = await game_state(conn, rules, game_id, states)
    if seen is None:
        return None
    return observation(rules, seen.state, seat, seen.version, world)


async def observe_many(
    conn: asyncpg.Connection,
    seats: Sequence[tuple[str, str, int]],
    states: States,
    world: bool = False,
) -> list[Observation | None]:
    """`observe` of several seats (game, game id, seat) at once, each game read once and the
    events since the cached states of all of them in one query (a worker's batch of turns)."""
    games: list[tuple[Rules[Any, Any, Any, Any], str]] = []
    for game, game_id, _ in seats:
        rules = get_rules(game)
        if rules is None:
            raise ValueError(f"unknown game {game!r}")
        games.append((rules, game_id))
    seen_of = await game_states(conn, games, states)
    out: list[Observation | None] = []
    for (rules, game_id), (_, _, seat) in zip(games, seats, strict=True):
        seen = seen_of[game_id]
        out.append(
            None if seen is None else observation(rules, seen.state, seat, seen.version, world)
        )
    return out
