"""The relay's loop outlives a lost connection, whatever asyncpg raises for it."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from infra.settings import Settings
from services.game import relay


@pytest.mark.parametrize(
    "lost",
    [
        asyncpg.InternalClientError(
            "cannot switch to state 12; another operation (2) is in progress"
        ),
        asyncpg.InterfaceError("connection is closed"),
        ConnectionResetError(104, "Connection reset by peer"),
    ],
)
def test_the_relay_reconnects_after_a_connection_lost_mid_operation(
    lost: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []

    async def relaying(settings: Settings, stop: asyncio.Event, poll: float) -> None:
        runs.append(1)
        if len(runs) == 1:
            raise lost
        stop.set()

    monkeypatch.setattr(relay, "_relay", relaying)
    monkeypatch.setattr(relay, "serve_metrics", lambda port: None)

    async def main() -> Any:
        await asyncio.wait_for(relay.run(Settings(), asyncio.Event()), 10)

    asyncio.run(main())
    assert len(runs) == 2


def test_a_bug_is_not_taken_for_a_lost_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    async def relaying(settings: Settings, stop: asyncio.Event, poll: float) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(relay, "_relay", relaying)
    monkeypatch.setattr(relay, "serve_metrics", lambda port: None)
    with pytest.raises(KeyError):
        asyncio.run(relay.run(Settings(), asyncio.Event()))
