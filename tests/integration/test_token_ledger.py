"""One suite for the players' token ledger, run against the in-memory twin and Postgres."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
import pytest

from infra.auth.tokens import (
    CachedTokenLedger,
    MemoryTokenLedger,
    PostgresTokenLedger,
    TokenLedger,
    TokenState,
)

Ledger = tuple[TokenLedger, Callable[[], Awaitable[str]]]  # the ledger, and "add a player"


@pytest.fixture(params=["memory", "postgres"])
def ledger(request: pytest.FixtureRequest) -> Ledger:
    if request.param == "memory":
        memory = MemoryTokenLedger()

        async def add_to_memory() -> str:
            player = f"p-{uuid.uuid4()}"
            memory.add(player)
            return player

        return memory, add_to_memory
    pool: asyncpg.Pool = request.getfixturevalue("pool")

    async def add_to_postgres() -> str:
        player = f"p-{uuid.uuid4()}"
        await pool.execute("INSERT INTO players (id, name) VALUES ($1, 'x')", player)
        return player

    return PostgresTokenLedger(pool), add_to_postgres


async def test_a_new_player_holds_serial_0_and_an_unknown_one_nothing(ledger: Ledger) -> None:
    tokens, add = ledger
    player = await add()
    state = await tokens.state(player)
    assert state == TokenState() and state.allows(0)
    assert await tokens.state("p-nobody") is None
    assert await tokens.next_serial("p-nobody", 0) is None
    assert not await tokens.end_others("p-nobody", 0)


async def test_more_tokens_then_ending_all_but_one(ledger: Ledger) -> None:
    tokens, add = ledger
    player = await add()
    assert [await tokens.next_serial(player, 0) for _ in range(3)] == [1, 2, 3]
    assert await tokens.end_others(player, 2)
    state = await tokens.state(player)
    assert state is not None
    assert [state.allows(s) for s in range(4)] == [False, False, True, False]
    assert await tokens.next_serial(player, 0) is None  # an ended token gets no other
    assert not await tokens.end_others(player, 3)  # nor ends the kept one
    assert await tokens.next_serial(player, 2) == 4
    state = await tokens.state(player)
    assert state is not None and state.allows(2) and state.allows(4) and not state.allows(3)


async def test_of_two_tokens_ending_each_other_one_wins(ledger: Ledger) -> None:
    tokens, add = ledger
    player = await add()
    await tokens.next_serial(player, 0)
    ended = await asyncio.gather(tokens.end_others(player, 0), tokens.end_others(player, 1))
    state = await tokens.state(player)
    assert state is not None
    assert sorted(ended) == [False, True]
    assert [state.allows(0), state.allows(1)] == ended


async def test_the_cache_remembers_a_state_for_its_ttl(ledger: Ledger) -> None:
    tokens, add = ledger
    player = await add()
    cached = CachedTokenLedger(tokens, ttl_s=0.2)
    assert await cached.state(player) == TokenState()
    await tokens.next_serial(player, 0)
    assert await tokens.end_others(player, 1)  # behind the cache's back, as the lobby does
    assert await cached.state(player) == TokenState()
    await asyncio.sleep(0.25)
    assert await cached.state(player) == TokenState(valid_from=2, kept=1)
