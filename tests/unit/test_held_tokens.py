"""A token held by what it opened (infra.auth.tokens.Held): checked again against a ledger at
most `every` seconds stale, its expiry every time, a long-poll's work cancelled once it ends,
an outage of the ledger waited out for a while, then raised."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from infra.auth.bearer import InvalidToken, issue
from infra.auth.keys import Keyring, SigningKey
from infra.auth.tokens import CachedTokenLedger, MemoryTokenLedger, Tokens, TokenState

KEY = SigningKey.from_secret(secrets.token_urlsafe(48))


class Ledger(MemoryTokenLedger):
    """Counts its reads; `down` makes them fail as an outage would."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.down = False

    async def state(self, player_id: str, max_age: float | None = None) -> TokenState | None:
        self.reads += 1
        if self.down:
            raise ConnectionRefusedError("postgres is away")
        return await super().state(player_id, max_age)


def tokens(ttl_s: float = 60.0) -> tuple[Tokens, Ledger]:
    inner = Ledger()
    inner.add("ada")
    return Tokens(Keyring((KEY,)), CachedTokenLedger(inner, ttl_s), require_player=False), inner


def header(ttl_days: float = 1.0) -> str:
    return f"Bearer {issue(KEY, 'ada', 'Ada', 0, ttl_days)}"  # type: ignore[arg-type]


async def test_a_held_token_sees_its_end_within_every_though_the_cache_keeps_longer() -> None:
    held_by, inner = tokens(ttl_s=60)
    held = await held_by.hold(header(), {}, every=0.1)
    assert await held.refusal() is None
    reads = inner.reads
    assert await held.refusal() is None and inner.reads == reads  # fresh enough: remembered
    await inner.end_others("ada", keep=5)  # another of Ada's tokens ends this one
    await asyncio.sleep(0.12)
    refused = await held.refusal()
    assert refused is not None and refused.code == "token_revoked"
    # an ordinary request still trusts the cache for its TTL: only what is held asks sooner
    assert await held_by.ledger.state("ada") == TokenState(valid_from=1, kept=5)


async def test_a_held_token_expires_while_held() -> None:
    held_by, _ = tokens()
    # `exp` counts from the issue's whole second: 1.5 s on is at least 0.5 s from now
    held = await held_by.hold(header(ttl_days=1.5 / 86400), {}, every=10)
    assert await held.refusal() is None
    await asyncio.sleep(1.6)
    refused = await held.refusal()
    assert refused is not None and refused.code == "token_expired"
    with pytest.raises(InvalidToken) as err:
        await held_by.hold(header(ttl_days=-1), {}, every=10)
    assert err.value.code == "token_expired"


async def test_a_long_poll_is_cancelled_when_its_token_ends() -> None:
    held_by, inner = tokens()
    held = await held_by.hold(header(), {}, every=0.05)
    cancelled = asyncio.Event()

    async def poll() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "news"

    async def end_soon() -> None:
        await asyncio.sleep(0.1)
        await inner.end_others("ada", keep=5)

    began = time.monotonic()
    ending = asyncio.create_task(end_soon())
    with pytest.raises(InvalidToken) as err:
        await held.during(poll())
    await ending
    assert err.value.code == "token_revoked" and cancelled.is_set()
    assert time.monotonic() - began < 0.1 + 2 * 0.05 + 0.2

    async def quick() -> str:
        return "news"

    with pytest.raises(InvalidToken):  # done, but checked once more before it is answered
        await held.during(quick())


async def test_an_outage_of_the_ledger_is_waited_out_for_two_checks_then_raised() -> None:
    held_by, inner = tokens(ttl_s=0.01)
    held = await held_by.hold(header(), {}, every=0.1)
    inner.down = True
    await asyncio.sleep(0.02)
    assert await held.refusal() is None  # confirmed a moment ago: it holds meanwhile
    await asyncio.sleep(0.2)
    with pytest.raises(ConnectionRefusedError):
        await held.refusal()
    inner.down = False
    assert await held.refusal() is None
