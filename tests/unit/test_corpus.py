"""Every recorded log (tests/corpus/logs) still reads, and is still ruled, as it was written.

A game lasts weeks and the code under it changes every few days: each log recorded by an
earlier version is folded by today's game service and every command in it decided again
(tests/corpus/replay.py). A change that breaks one fails here: give the old games a
versioned path or a documented migration (tests/corpus/README.md), never re-rule them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import msgspec
import pytest

from games import table as tables
from games.api import rules_version_of
from games.registry import registry
from tests.corpus.record import LOGS, read, stories
from tests.corpus.replay import Diverged, replay

FILES = sorted(LOGS.glob("*.ndjson"))


def test_the_corpus_holds_every_game_seat_count_option_and_table_story() -> None:
    recorded = {(h["game"], h["story"]) for h, _ in map(read, FILES)}
    for key, rules in registry().items():
        wanted = {(key, s.name) for s in stories(rules)}
        assert wanted <= recorded, f"not recorded: {sorted(wanted - recorded)} (make record-corpus)"
        assert {n for k, n in recorded if k == key} >= {f"{n}p" for n in rules.seats}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_recorded_log_folds_to_its_recorded_end(path: Path) -> None:
    header, lines = read(path)
    result = replay(header, lines)
    assert result.version == header["version"]
    assert result.outcome == header["outcome"], "the log ends otherwise than it was recorded"
    schema = str(result.schema)
    assert schema in header["final"], (
        f"the engine's state changed shape (schema {schema}): check the change, then "
        "`make record-corpus REHASH=1` adds its final state's hash"
    )
    assert result.hash == header["final"][schema]


def lines_of(name: str) -> tuple[dict, list[dict]]:
    match = [p for p in FILES if p.stem == name]
    assert match, name
    return read(match[0])


def test_a_move_ruled_otherwise_is_found() -> None:
    """The check fails a log whose move would now have other consequences."""
    header, lines = lines_of("itty-bitty-r1-2p")
    moved = next(i for i, line in enumerate(lines) if "action" in line["cmd"] and line["events"])
    changed = copy.deepcopy(lines)
    first = next(e for e in changed[moved]["events"] if e["type"] != "turn_started")
    first["data"]["seat"] = 1 - first["data"].get("seat", 0)  # another consequence
    with pytest.raises(Diverged, match="ruled otherwise"):
        replay(header, changed)


def test_a_different_deal_is_found() -> None:
    header, lines = lines_of("itchy-feet-r1-3p")
    with pytest.raises(Diverged, match="deals otherwise"):
        replay({**header, "seed": header["seed"] + 1}, lines)


def test_a_gap_in_versions_is_found() -> None:
    header, lines = lines_of("footprints-r1-2p")
    changed = copy.deepcopy(lines)
    changed[3]["events"][0]["v"] += 1
    with pytest.raises(Diverged):
        replay(header, changed)


def test_an_event_read_otherwise_changes_the_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change of how an event is read (not of decide) shows in the final state: here the
    table's fold skips `time_used`, so the banks end otherwise."""
    header, lines = lines_of("itty-bitty-r1-2p-bot-takeover")
    evolve = tables.evolve
    monkeypatch.setattr(
        tables, "evolve", lambda t, e: t if isinstance(e, tables.TimeUsed) else evolve(t, e)
    )
    result = replay(header, lines)
    assert result.hash != header["final"][str(result.schema)]


@pytest.mark.parametrize("game", sorted(registry()))
async def test_a_game_keeps_the_rules_version_it_began_under(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game set up under version N plays under N after new games get N + 1 (its state and
    the view say so); a log from before versions were recorded reads as 1."""
    from contracts.streams import RoomStarted, StartedSeat
    from infra.auth.bearer import Principal
    from infra.eventstore.memory import MemoryEventStore
    from services.game.live import Waiters
    from services.game.repository import MemoryGamesRepository
    from services.game.routes.games import game_view
    from services.game.service import GameService

    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters())
    rules = registry()[game]
    seats = max(2, rules.seats.start)

    async def begin(room: str) -> str:
        started = [StartedSeat(seat=i, player_id=f"p{i}") for i in range(seats)]
        return await svc.create_from_room(RoomStarted(room_id=room, game=game, seats=started))

    now = rules.rules_version
    old = await begin("old")
    monkeypatch.setattr(type(rules), "rules_version", now + 1)
    new = await begin("new")
    me = Principal(player_id="p0", name="P0")
    for game_id, version in ((old, now), (new, now + 1)):
        loaded = await svc.load(game_id)
        assert rules_version_of(loaded.state) == version
        assert (await game_view(svc, me, game_id, None)).rules_version == version
    # a log recorded before any version was (the corpus' r1): version 1
    _, lines = next(read(p) for p in FILES if read(p)[0]["game"] == game)
    setup = lines[0]["events"]
    assert not any("rules" in e["data"] for e in setup)
    first = msgspec.json.Decoder(rules.event_type)
    state = None
    for row in setup:
        if row["type"] not in tables.TABLE_EVENT_TYPES:
            state = rules.evolve(state, first.decode(json.dumps(row["data"])))
    assert rules_version_of(state) == 1
