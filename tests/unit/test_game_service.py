"""The game service's command handling on the in-memory adapters (the embedded mode)."""

from __future__ import annotations

import asyncio
import uuid
from random import Random
from typing import Any

import msgspec
import pytest

from contracts.problems import ProblemError
from contracts.streams import GameEvent, RoomStarted, StartedSeat
from games.api import fold
from infra.eventstore.memory import MemoryEventStore
from services.game.live import Waiters
from services.game.memory import MEMORY_TRUSTED_S
from services.game.repository import MemoryGamesRepository, stream_id
from services.game.service import GameService


def service(snapshot_every: int = 100) -> GameService:
    store = MemoryEventStore()
    return GameService(
        store, MemoryGamesRepository(store), Waiters(), snapshot_every=snapshot_every
    )


async def new_game(svc: GameService, seats: int = 2) -> str:
    return await svc.create_from_room(
        RoomStarted(
            room_id=str(uuid.uuid4()),
            game="itty-bitty",
            seats=[StartedSeat(seat=i, player_id=f"p{i}") for i in range(seats)],
        )
    )


async def play_random(svc: GameService, game_id: str, moves: int, rng: Random) -> None:
    for _ in range(moves):
        loaded = await svc.load(game_id)
        to_act = sorted(loaded.rules.to_act(loaded.state))
        if not to_act:
            return
        seat = rng.choice(to_act)
        action = rng.choice(list(loaded.rules.legal_actions(loaded.state, seat)))
        await svc.submit(game_id, seat, msgspec.to_builtins(action), loaded.version, uuid.uuid4())


async def test_rejections_write_nothing() -> None:
    svc = service()
    gid = await new_game(svc)
    v = (await svc.load(gid)).version
    cases = [
        ({"type": "take_ittybit"}, v, 422, "choose_collector_first"),
        ({"type": "take_ittybit"}, v - 1, 409, "stale_version"),
        ({"type": "nope"}, v, 400, "invalid_action_format"),
        ({"type": "keep_collector"}, v, 400, "invalid_action_format"),
    ]
    for action, expected, status, code in cases:
        with pytest.raises(ProblemError) as err:
            await svc.submit(gid, 0, action, expected, uuid.uuid4())
        assert (err.value.status, err.value.code) == (status, code)
    assert await svc.store.version(stream_id(gid)) == v


async def test_a_retried_command_returns_the_first_result() -> None:
    svc = service()
    gid = await new_game(svc)
    loaded = await svc.load(gid)
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
    cid = uuid.uuid4()
    first = await svc.submit(gid, 0, action, loaded.version, cid)
    again = await svc.submit(gid, 0, action, loaded.version, cid)
    assert again.replayed and not first.replayed
    assert [e.event_id for e in again.events] == [e.event_id for e in first.events]
    assert await svc.store.version(stream_id(gid)) == first.version


async def test_state_from_snapshot_equals_state_from_events() -> None:
    svc = service(snapshot_every=25)
    gid = await new_game(svc, seats=3)
    await play_random(svc, gid, 60, Random(3))
    assert (await svc.store.load_snapshot(stream_id(gid))) is not None
    warm = await svc.load(gid)
    cold = GameService(svc.store, svc.games, Waiters(), snapshot_every=25)  # empty cache
    from_snapshot = await cold.load(gid)
    rules = warm.rules
    events = [
        msgspec.json.decode(e.data, type=rules.event_type)
        for e in await svc.store.read(stream_id(gid))
    ]
    assert from_snapshot.state == warm.state == fold(rules, events)
    assert from_snapshot.version == warm.version == len(events)


async def test_a_snapshot_of_another_schema_is_ignored() -> None:
    svc = service(snapshot_every=10)
    gid = await new_game(svc)
    await play_random(svc, gid, 20, Random(1))
    snap = await svc.store.load_snapshot(stream_id(gid))
    assert snap is not None
    svc.store.snapshots[stream_id(gid)] = msgspec.structs.replace(
        snap, schema_ver=-1, state=b"garbage"
    )  # type: ignore[attr-defined]
    cold = GameService(svc.store, svc.games, Waiters())
    assert (await cold.load(gid)).state == (await svc.load(gid)).state


async def test_feeds_are_redacted_per_seat() -> None:
    svc = service()
    gid = await new_game(svc)
    loaded = await svc.load(gid)
    stored = await svc.store.read(stream_id(gid))
    mine = svc.feed(loaded.rules, stored, 0, [])
    theirs = svc.feed(loaded.rules, stored, 1, [])
    spectator = svc.feed(loaded.rules, stored, None, [])
    hand0 = set(loaded.state.hands[0].ittybits)
    assert hand0 <= set(msgspec.json.encode(mine).decode().split('"'))
    for feed in (theirs, spectator):
        assert not any(card in msgspec.json.encode(feed).decode() for card in hand0)


async def test_a_move_at_an_older_version_is_accepted_only_when_unaffected() -> None:
    svc = service()
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    rules = start.rules
    choice = [msgspec.to_builtins(rules.legal_actions(start.state, s)[0]) for s in range(3)]
    # the opening collector choice: seats choose at once, each against the same version
    for seat in range(3):
        await svc.submit(gid, seat, choice[seat], start.version, uuid.uuid4())
    now = await svc.load(gid)
    [seat] = sorted(rules.to_act(now.state))
    legal = list(rules.legal_actions(now.state, seat))
    await svc.submit(gid, seat, msgspec.to_builtins(legal[0]), now.version, uuid.uuid4())
    after = await svc.load(gid)
    # the same seat again against the version before its own move: stale, even if the
    # rules would take the move (a retry without Idempotency-Key must not move twice)
    for expected in (now.version, 0, after.version - 1):
        with pytest.raises(ProblemError) as err:
            await svc.submit(gid, seat, msgspec.to_builtins(legal[-1]), expected, uuid.uuid4())
        assert (err.value.status, err.value.code) == (409, "stale_version")
    assert (await svc.load(gid)).version == after.version


async def test_chatter_never_makes_a_seats_unaffected_move_stale() -> None:
    """A chat message is a command that leaves the engine's state as it was: however many
    come between a seat's read and its move (more than the recent states kept), the move is
    judged against the version it read, as news that changed nothing for it."""
    from infra.auth.bearer import Principal
    from services.game.chat import say
    from services.game.memory import RECENT_STATES

    svc = service()
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    rules = start.rules
    choice = [msgspec.to_builtins(rules.legal_actions(start.state, s)[0]) for s in range(3)]
    await svc.submit(gid, 0, choice[0], start.version, uuid.uuid4())
    for n in range(max(RECENT_STATES, 64) + 4):  # spectators chatting (past the old window)
        await say(svc, gid, Principal(player_id=f"watcher-{n}", name="W"), f"hi {n}", None)
    await svc.submit(gid, 1, choice[1], start.version, uuid.uuid4())  # news to seat 2 too
    accepted = await svc.submit(gid, 2, choice[2], start.version, uuid.uuid4())
    assert not accepted.replayed and accepted.version == (await svc.load(gid)).version


async def test_an_unaffected_move_is_refused_beyond_the_window() -> None:
    from services.game import commands

    svc = service()
    gid = await new_game(svc, seats=2)
    start = await svc.load(gid)
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 1)[0])
    await svc.submit(
        gid, 0, msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0]),
        start.version, uuid.uuid4(),
    )  # fmt: skip
    old_window = commands.UNAFFECTED_WINDOW
    commands.UNAFFECTED_WINDOW = 0  # seat 0's choice is news seat 1 may ignore, but too old
    try:
        with pytest.raises(ProblemError) as err:
            await svc.submit(gid, 1, action, start.version, uuid.uuid4())
        assert err.value.code == "stale_version"
    finally:
        commands.UNAFFECTED_WINDOW = old_window
    accepted = await svc.submit(gid, 1, action, start.version, uuid.uuid4())
    assert not accepted.replayed


async def test_a_reused_key_that_races_its_first_request_is_refused_not_replayed() -> None:
    svc = service()
    gid = await new_game(svc, seats=2)
    loaded = await svc.load(gid)
    first, second = (
        msgspec.to_builtins(a) for a in loaded.rules.legal_actions(loaded.state, 0)[:2]
    )
    cid = uuid.uuid4()
    await svc.submit(gid, 0, first, loaded.version, cid)
    # the second request decides on the state before the first was stored (the race window;
    # here the cache at its expected version, decided on without a read of the store): the
    # store then finds the command's events at append time
    cached = svc._cache[gid]
    svc._cache[gid] = msgspec.structs.replace(cached, version=loaded.version, state=loaded.state)
    with pytest.raises(ProblemError) as err:
        await svc.submit(gid, 0, second, loaded.version, cid)
    assert (err.value.status, err.value.code) == (422, "idempotency_key_reused")
    # the same request again is the replay it always was
    again = await svc.submit(gid, 0, first, loaded.version, cid)
    assert again.replayed


async def test_a_snapshot_that_does_not_decode_is_ignored() -> None:
    from games.table import snapshot_schema

    svc = service(snapshot_every=10)
    gid = await new_game(svc)
    await play_random(svc, gid, 20, Random(2))
    snap = await svc.store.load_snapshot(stream_id(gid))
    assert snap is not None
    rules = (await svc.load(gid)).rules
    assert snap.schema_ver == snapshot_schema(rules.state_type, rules.schema_version)
    svc.store.snapshots[stream_id(gid)] = msgspec.structs.replace(  # type: ignore[attr-defined]
        snap, state=b"\x92\xa3not a state"
    )
    cold = GameService(svc.store, svc.games, Waiters())
    assert (await cold.load(gid)).state == (await svc.load(gid)).state


async def test_a_failed_snapshot_save_does_not_fail_the_move() -> None:
    svc = service(snapshot_every=1)
    gid = await new_game(svc)

    async def broken(snapshot: object) -> None:
        raise ConnectionResetError("the database went away after the append")

    svc.store.save_snapshot = broken  # type: ignore[method-assign,assignment]
    loaded = await svc.load(gid)
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
    accepted = await svc.submit(gid, 0, action, loaded.version, uuid.uuid4())
    assert accepted.version > loaded.version and not accepted.replayed
    assert await svc.store.version(stream_id(gid)) == accepted.version


async def test_a_long_poll_woken_without_news_waits_on() -> None:
    # The relay's envelope of a move this process already announced wakes the waiters again:
    # that wake-up brings nothing, and must not end the wait with an empty answer.
    svc = service()
    gid = await new_game(svc)
    loaded = await svc.load(gid)
    record = await svc.record(gid)
    waiting = asyncio.create_task(svc.events_since(record, loaded.version, wait=5))
    await asyncio.sleep(0.05)
    svc.waiters.notify(gid)  # nothing new
    await asyncio.sleep(0.1)
    assert not waiting.done()
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
    accepted = await svc.submit(gid, 0, action, loaded.version, uuid.uuid4())
    _, got = await asyncio.wait_for(waiting, 1)
    assert [e.version for e in got] == [e.version for e in accepted.events]
    # and with nothing at all, an empty answer once the whole wait has passed
    started = asyncio.get_running_loop().time()
    assert (await svc.events_since(record, accepted.version, wait=0.3))[1] == []
    assert asyncio.get_running_loop().time() - started >= 0.3


async def test_feed_texts_are_made_from_each_caller_s_copy() -> None:
    svc = service()
    gid = await new_game(svc)
    loaded = await svc.load(gid)
    stored = await svc.store.read(stream_id(gid))
    names = loaded.record.names
    mine = {f.version: f for f in svc.feed(loaded.rules, stored, 0, ["Ada", "Bob"])}
    theirs = {f.version: f for f in svc.feed(loaded.rules, stored, 1, ["Ada", "Bob"])}
    assert names == ("Seat 0", "Seat 1")  # no names in this room: the seats' own
    assert loaded.record.names is names  # made once per record
    named = msgspec.structs.replace(
        loaded.record,
        seats=[
            msgspec.structs.replace(loaded.record.seats[0], name="Ada"),
            msgspec.structs.replace(loaded.record.seats[1], name=None, bot="greedy"),
        ],
    )
    assert named.names == ("Ada", "greedy bot")  # a new record: its own names
    assert [named.seat_of(p) for p in ("p0", "p1", "p2")] == [0, 1, None]
    twice = msgspec.structs.replace(
        named, seats=[named.seats[0], msgspec.structs.replace(named.seats[1], player_id="p0")]
    )
    assert twice.seat_of("p0") == 0 and twice.seat_of("p1") is None  # a player's first seat
    assert all(f.text for f in [*mine.values(), *theirs.values()])
    dealt = next(f for f in mine.values() if f.type == "ittybits_dealt" and f.data["seat"] == 0)
    hand = loaded.state.hands[0].ittybits
    assert dealt.text.startswith("Ada was dealt ")
    assert all(f"Ittybit #{int(c.removeprefix('ittybit-'))} (" in dealt.text for c in hand)
    assert theirs[dealt.version].text == "Ada was dealt 3 ittybits"


async def test_each_new_append_rings_the_relays_doorbell_once_and_a_replay_none() -> None:
    store = MemoryEventStore()
    rings: list[int] = []
    svc = GameService(
        store, MemoryGamesRepository(store), Waiters(), appended=lambda: rings.append(1)
    )
    gid = await new_game(svc)
    assert len(rings) == 1  # the game's creation
    loaded = await svc.load(gid)
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
    cid = uuid.uuid4()
    await svc.submit(gid, 0, action, loaded.version, cid)
    assert len(rings) == 2
    await svc.submit(gid, 0, action, loaded.version, cid)  # the same command again
    with pytest.raises(ProblemError):
        await svc.submit(gid, 0, {"type": "nope"}, loaded.version, uuid.uuid4())
    assert len(rings) == 2  # nothing new appended, nothing rung


def replicas() -> tuple[GameService, GameService]:
    """Two game service processes on one event store and games table."""
    store = MemoryEventStore()
    games = MemoryGamesRepository(store)
    return GameService(store, games, Waiters()), GameService(store, games, Waiters())


async def test_a_move_decided_on_a_cache_another_process_outdated_lands_on_the_news() -> None:
    a, b = replicas()
    gid = await new_game(a, seats=3)
    start = await a.load(gid)  # a holds the game at the start; b moves it on
    rules = start.rules
    choice = [msgspec.to_builtins(rules.legal_actions(start.state, s)[0]) for s in range(3)]
    await b.submit(gid, 0, choice[0], start.version, uuid.uuid4())
    # seat 1 chooses at the same version through a: decided on a's cache, the append finds
    # b's move, the move is decided again on it (unaffected: a simultaneous choice) and lands
    accepted = await a.submit(gid, 1, choice[1], start.version, uuid.uuid4())
    stored = await a.store.read(stream_id(gid))
    assert accepted.version == stored[-1].version > start.version + 1
    assert [e.metadata.get("seat") for e in stored if e.version > start.version].count(0) >= 1
    # and a's state is the store's, both moves in it
    fresh = service()
    fresh.store, fresh.games = a.store, a.games
    assert (await a.load(gid)).state == (await fresh.load(gid)).state
    # seat 0 again through a with the version a held: its own move came since: 409, not 2 moves
    with pytest.raises(ProblemError) as err:
        await a.submit(gid, 0, choice[0], start.version, uuid.uuid4())
    assert (err.value.status, err.value.code) == (409, "stale_version")
    assert err.value.extra.get("current_version") == accepted.version


async def test_a_refusal_is_never_given_on_a_cache_another_process_outdated() -> None:
    a, b = replicas()
    gid = await new_game(a, seats=2)
    start = await a.load(gid)
    rules = start.rules
    for seat in range(2):  # the collector choices, through b
        action = msgspec.to_builtins(rules.legal_actions(start.state, seat)[0])
        await b.submit(gid, seat, action, start.version, uuid.uuid4())
    held = await a.load(gid)  # a holds this version; b moves on from it
    [first] = sorted(rules.to_act(held.state))
    other = 1 - first
    first_move = msgspec.to_builtins(rules.legal_actions(held.state, first)[0])
    await b.submit(gid, first, first_move, held.version, uuid.uuid4())
    now = await b.load(gid)
    assert other in rules.to_act(now.state)
    move = msgspec.to_builtins(rules.legal_actions(now.state, other)[0])
    # at the version a holds it is not `other`'s turn (a 422 on a's cache alone); the store
    # says the game moved on: the answer is the store's, a 409 with where it stands
    with pytest.raises(ProblemError) as err:
        await a.submit(gid, other, move, held.version, uuid.uuid4())
    assert (err.value.status, err.value.code) == (409, "stale_version")
    assert err.value.extra.get("current_version") == now.version
    # at the version the store holds, a's first try reads it and the move lands
    accepted = await a.submit(gid, other, move, now.version, uuid.uuid4())
    assert accepted.version > now.version


async def test_a_retried_move_is_answered_with_its_result_after_its_seat_went_to_a_bot() -> None:
    from services.game import seats

    svc = service()
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    cid = uuid.uuid4()
    first = await svc.submit(gid, 0, action, start.version, cid)
    await seats.resign(svc, gid, 0)  # the seat is a bot's now: a new move of it is refused
    with pytest.raises(ProblemError) as err:
        await svc.submit(gid, 0, action, start.version, uuid.uuid4())
    assert err.value.code in ("seat_played_by_bot", "stale_version")
    # but the lost answer of the move it made, asked for again, is that move's
    again = await svc.submit(gid, 0, action, start.version, cid)
    assert again.replayed and again.version == first.version


class CountingReads:
    """Counts the store's reads of a game's events."""

    def __init__(self, svc: GameService) -> None:
        self.count = 0
        real = svc.store.read

        async def read(stream: str, after: int = 0, limit: int | None = None) -> Any:
            self.count += 1
            return await real(stream, after, limit)

        svc.store.read = read  # type: ignore[method-assign]


async def test_a_feed_a_few_events_behind_reads_the_store_once() -> None:
    svc = service()
    gid = await new_game(svc, seats=3)
    await play_random(svc, gid, 30, Random(3))
    record = await svc.record(gid)
    everything = await svc.store.read(stream_id(gid))
    reads = CountingReads(svc)
    for behind in (0, 1, 3, 16):
        after = everything[-1].version - behind
        loaded, got = await svc.events_since(record, after, wait=0)
        assert got == everything[after:]  # the store's own events, in order, none missing
        assert loaded.version == everything[-1].version
    assert reads.count == 4  # one read a feed: what came after the cached state (nothing)
    # further back than memory holds: read from the store, the same answer
    loaded, got = await svc.events_since(record, 2, wait=0, limit=7)
    assert got == everything[2:9] and reads.count == 6


async def test_a_feed_sees_another_process_s_appends_and_stays_whole() -> None:
    a, b = replicas()
    gid = await new_game(a, seats=3)
    record = await a.record(gid)
    await a.load(gid)
    await play_random(b, gid, 12, Random(5))  # a's memory knows nothing of these
    everything = await a.store.read(stream_id(gid))
    for after in (0, 5, everything[-1].version - 1):
        loaded, got = await a.events_since(record, after, wait=0)
        assert got == everything[after:] and loaded.version == everything[-1].version
    # a long-poll on a, woken by a move through b (as the games stream wakes it)
    waiting = asyncio.create_task(a.events_since(record, everything[-1].version, wait=5))
    await asyncio.sleep(0.05)
    await play_random(b, gid, 1, Random(6))
    a.waiters.notify(gid)
    loaded, got = await asyncio.wait_for(waiting, 1)
    assert got == (await a.store.read(stream_id(gid)))[everything[-1].version :]
    assert got and loaded.version == got[-1].version


async def test_a_long_poll_woken_by_its_own_process_s_append_answers_without_reading() -> None:
    """The first round of a long-poll whose client has seen what this process holds (told
    of nothing newer, confirmed by the store just now) answers from memory; a wake-up by an
    append of this process finds the cache already at it and answers from memory; a wake-up
    of another process's move, heard at a version past the cache (or of no known version),
    reads again."""
    a, b = replicas()
    gid = await new_game(a, seats=3)
    record = await a.record(gid)
    start = await a.load(gid)
    reads = CountingReads(a)
    waiting = asyncio.create_task(a.events_since(record, start.version, wait=5))
    await asyncio.sleep(0.05)
    assert reads.count == 0
    loaded = await a.load(gid, read=False)
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
    await a.submit(gid, 0, action, loaded.version, uuid.uuid4())  # on the cache: no read
    loaded, got = await asyncio.wait_for(waiting, 1)
    assert reads.count == 0  # the wake-up's answer came from memory
    everything = await b.store.read(stream_id(gid))  # (the one store of both: counted)
    assert got == everything[start.version :] and loaded.version == everything[-1].version

    for version in (everything[-1].version + 1, None):  # heard from the relay; unknown
        now = (await b.store.read(stream_id(gid)))[-1].version
        waiting = asyncio.create_task(a.events_since(record, now, wait=5))
        await asyncio.sleep(0.05)
        await play_random(b, gid, 1, Random(8))  # a's memory knows nothing of it
        latest = (await b.store.read(stream_id(gid)))[-1].version
        counted = reads.count
        if version is None:
            a.waiters.notify(gid)
        else:  # as the games stream tells it
            a.waiters.heard(envelope(gid, latest))
        loaded, got = await asyncio.wait_for(waiting, 1)
        assert reads.count == counted + 1  # it read what its memory lacked
        assert got == (await b.store.read(stream_id(gid)))[now:] and got
        assert loaded.version == got[-1].version == latest


def envelope(game_id: str, version: int) -> GameEvent:
    return GameEvent(
        game_id=game_id, game="itty-bitty", room_id=None, version=version, type="x",
        to_act=[], status="active", bots={}, batch_end=True, global_position=0,
    )  # fmt: skip


def test_waiters_know_each_games_latest_version_told_and_forget_the_oldest() -> None:
    from services.game import live

    w = Waiters()
    assert w.known("g") is None
    w.notify("g", 5)
    w.notify("g", 3)  # an older envelope, late: the latest stays
    assert w.known("g") == 5
    w.heard(envelope("g", 7))
    assert w.known("g") == 7
    w.notify("g")  # a move of unknown version: the latest is unknown
    assert w.known("g") is None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(live, "KNOWN_AT_MOST", 2)
        for game in ("a", "b"):
            w.notify(game, 1)
        w.notify("a", 2)  # told again: now the newest news
        w.notify("c", 1)  # one too many: the game told of longest ago is forgotten
        assert (w.known("a"), w.known("b"), w.known("c")) == (2, None, 1)


async def test_a_read_that_has_seen_a_version_is_answered_from_memory_only_when_safe() -> None:
    """`min_version`: a read whose client has seen version N skips the store when this process
    holds N or later and was told of nothing newer; else it reads, as every read without it."""
    a, b = replicas()
    gid = await new_game(a, seats=3)
    start = await a.load(gid)
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    moved = await a.submit(gid, 0, action, start.version, uuid.uuid4())
    assert not a.read_needed(gid, moved.version)  # its own append: the cache is the latest
    assert not a.read_needed(gid, moved.version - 1)  # an older one seen: the newer is fine
    assert a.read_needed(gid, None)  # not said: a read, as always
    assert a.read_needed(gid, moved.version + 1)  # seen newer than the cache
    assert b.read_needed(gid, moved.version)  # another replica: holds nothing of it
    await b.load(gid)  # b reads it, but was not told the version: still reads
    assert b.read_needed(gid, moved.version)
    b.waiters.heard(envelope(gid, moved.version))  # the games stream tells b
    assert not b.read_needed(gid, moved.version)
    await play_random(b, gid, 1, Random(4))  # b moves on; a hears of it from the relay
    latest = (await a.store.read(stream_id(gid)))[-1].version
    a.waiters.heard(envelope(gid, latest))
    assert a.read_needed(gid, moved.version)  # a's memory is behind what it heard
    loaded = await a.load(gid, read=a.read_needed(gid, moved.version))
    assert loaded.version == latest and not a.read_needed(gid, moved.version)


async def test_memory_answers_a_read_only_within_its_trusted_time_and_never_beyond_the_game() -> (
    None
):
    """The games stream may stop (the relay or Redis down): memory the store has not confirmed
    for MEMORY_TRUSTED_S answers no read; a version the game has not reached is a 400."""
    now = [100.0]
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters(), clock=lambda: now[0])
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    moved = (await svc.submit(gid, 0, action, start.version, uuid.uuid4())).version
    now[0] += MEMORY_TRUSTED_S
    assert not svc.read_needed(gid, moved)
    now[0] += 0.01
    assert svc.read_needed(gid, moved)
    reads = CountingReads(svc)
    record = await svc.record(gid)
    assert (await svc.load_seen(record, moved)).version == moved and reads.count == 1
    assert not svc.read_needed(gid, moved)  # the read confirmed it again
    assert (await svc.load_seen(record, moved)).version == moved and reads.count == 1
    with pytest.raises(ProblemError) as err:
        await svc.load_seen(record, moved + 1)
    assert (err.value.status, err.value.code) == (400, "min_version_beyond_version")
    assert err.value.problem().current_version == moved and reads.count == 2


async def test_an_append_that_may_have_committed_sends_reads_to_the_store() -> None:
    """An append timed out, cancelled or cut off may have committed: until the store or the
    games stream says what the latest is, memory answers no read (it holds the version
    before)."""
    svc = service()
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    assert not svc.read_needed(gid, start.version)
    real = svc.store.append

    async def committed_then_lost(*args: Any, **kwargs: Any) -> Any:
        await real(*args, **kwargs)
        raise TimeoutError  # the answer never came

    svc.store.append = committed_then_lost  # type: ignore[method-assign]
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    with pytest.raises(TimeoutError):
        await svc.submit(gid, 0, action, start.version, uuid.uuid4())
    assert (await svc.store.read(stream_id(gid)))[-1].version > start.version  # committed
    assert svc.read_needed(gid, start.version)  # memory's version is no longer trusted
    loaded = await svc.load(gid, read=svc.read_needed(gid, start.version))
    assert loaded.version > start.version


async def test_a_move_is_news_before_its_snapshot_is_saved() -> None:
    """Long-polls, live feeds and the relay's doorbell learn of a move at once, not after the
    snapshot's round trip (nor never, when the snapshot is cut short)."""
    store = MemoryEventStore()
    rang: list[int] = []
    svc = GameService(
        store, MemoryGamesRepository(store), Waiters(), snapshot_every=1,
        appended=lambda: rang.append(1),
    )  # fmt: skip
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    saving, release = asyncio.Event(), asyncio.Event()
    real = svc.store.save_snapshot

    async def slow_save(snapshot: Any) -> None:
        saving.set()
        await release.wait()
        await real(snapshot)

    svc.store.save_snapshot = slow_save  # type: ignore[method-assign]
    rang.clear()
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    moving = asyncio.create_task(svc.submit(gid, 0, action, start.version, uuid.uuid4()))
    await asyncio.wait_for(saving.wait(), 1)
    latest = (await svc.store.read(stream_id(gid)))[-1].version
    assert svc.waiters.known(gid) == latest and rang == [1]  # told while the snapshot saves
    release.set()
    assert (await moving).version == latest


async def test_memory_is_trusted_from_when_the_store_was_asked_not_answered() -> None:
    """A move another replica committed while a read or an append was on its way is younger
    than the answer's arrival: the trusted time counts from the asking."""
    now = [100.0]
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters(), clock=lambda: now[0])
    gid = await new_game(svc, seats=3)
    start = await svc.load(gid)
    slow = 1.5  # each of the store's answers takes this long
    read, append = svc.store.read, svc.store.append

    async def slow_read(*args: Any, **kwargs: Any) -> Any:
        now[0] += slow
        return await read(*args, **kwargs)

    async def slow_append(*args: Any, **kwargs: Any) -> Any:
        now[0] += slow
        return await append(*args, **kwargs)

    svc.store.read = slow_read  # type: ignore[method-assign]
    svc.store.append = slow_append  # type: ignore[method-assign]
    action = msgspec.to_builtins(start.rules.legal_actions(start.state, 0)[0])
    asked = now[0]
    moved = (await svc.submit(gid, 0, action, start.version, uuid.uuid4())).version
    now[0] = asked + MEMORY_TRUSTED_S + 0.01
    assert svc.read_needed(gid, moved)  # counted from before the append went out
    asked = now[0]
    await svc.load(gid)
    assert now[0] == asked + slow
    now[0] = asked + MEMORY_TRUSTED_S - 0.01
    assert not svc.read_needed(gid, moved)
    now[0] = asked + MEMORY_TRUSTED_S + 0.01
    assert svc.read_needed(gid, moved)  # counted from before the read went out


async def test_a_long_poll_from_memory_still_answers_with_another_replica_s_move() -> None:
    """A long-poll answered from memory at first: another replica's move made just before,
    unheard, comes with the games stream's news (the wake reads it); and memory the store has
    not confirmed within MEMORY_TRUSTED_S is not used: the first round reads."""
    now = [0.0]
    store = MemoryEventStore()
    games = MemoryGamesRepository(store)
    a = GameService(store, games, Waiters(), clock=lambda: now[0])
    b = GameService(store, games, Waiters())
    gid = await new_game(a, seats=3)
    record = await a.record(gid)
    start = await a.load(gid)
    await play_random(b, gid, 1, Random(9))  # just before the poll; a has not heard
    reads = CountingReads(a)
    waiting = asyncio.create_task(a.events_since(record, start.version, wait=5))
    await asyncio.sleep(0.05)
    assert reads.count == 0 and not waiting.done()  # from memory: nothing new yet
    latest = (await b.store.read(stream_id(gid)))[-1].version
    a.waiters.heard(envelope(gid, latest))  # the relay's news
    loaded, got = await asyncio.wait_for(waiting, 1)
    assert reads.count >= 1 and loaded.version == latest  # the wake read what it lacked
    assert got == (await b.store.read(stream_id(gid)))[start.version :]
    now[0] += MEMORY_TRUSTED_S + 0.01  # nothing confirmed since: the first round reads
    await play_random(b, gid, 1, Random(10))
    counted = reads.count
    loaded, got = await a.events_since(record, latest, wait=5)
    assert reads.count > counted and got and loaded.version == got[-1].version > latest


def test_a_kept_state_stands_for_the_versions_it_was_seen_at_and_no_others() -> None:
    from services.game.memory import RECENT_STATES, kept, state_at

    a, b = object(), object()
    spans = kept(kept(kept((), 5, a), 6, a), 7, b)  # 6 changed nothing (a chat message)
    assert [state_at(spans, v) for v in (4, 5, 6, 7, 8)] == [None, a, a, b, None]
    gap = kept(spans, 9, b)  # 8 was never seen: the same state after it is not assumed there
    assert state_at(gap, 8) is None and state_at(gap, 9) is b and state_at(gap, 7) is b
    other = kept(spans, 8, object())  # another state at 8: a span of its own
    assert state_at(other, 7) is b and state_at(other, 8) is not b
    many = ()
    for v in range(100):
        many = kept(many, v, object())
    assert len(many) == RECENT_STATES and state_at(many, 100 - RECENT_STATES) is not None
    assert state_at(many, 99 - RECENT_STATES) is None
