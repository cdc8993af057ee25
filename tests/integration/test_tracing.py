"""OpenTelemetry, switched on, against real Postgres and Redis: one move is one trace, HTTP ->
append -> relay -> dispatcher -> Celery task -> command -> append, each span the child of the
one before, its parent carried in the events' metadata, the stream messages and the task's
headers (the SDK's in-memory exporter). Off, nothing is carried and no span is made."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Iterator

import asyncpg
import msgspec
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.observability import tracing
from infra.observability.context import carry
from infra.settings import Settings
from infra.tasks import TRACE_HEADER
from services.bots import worker
from services.bots.dispatcher import turns_of
from services.game.app import create_app as game_app
from services.game.relay import envelope
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = secrets.token_urlsafe(48)


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    try:
        yield exporter
    finally:
        tracing.use(None)


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=SECRET,
        stream_prefix=f"{stream_prefix}trace-{uuid.uuid4().hex[:6]}:",
    )


def one(spans: list[ReadableSpan], name: str, after: ReadableSpan | None = None) -> ReadableSpan:
    """The span of `name` whose parent is `after` (any, if None)."""
    found = [
        s
        for s in spans
        if s.name == name
        and (after is None or (s.parent is not None and s.parent.span_id == after.context.span_id))
    ]
    assert len(found) == 1, (name, [(s.name, s.parent) for s in spans])
    return found[0]


async def test_one_move_is_one_trace_from_the_post_to_the_bots_append(
    settings: Settings,
    pool: asyncpg.Pool,
    spans: InMemorySpanExporter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = game_service(pool)
    game_id, players = await new_game(service, [None, "greedy"])
    token = issue(SigningKey.from_secret(SECRET), players[0], "p0")
    bot = worker.Bot(settings)
    monkeypatch.setattr(worker, "_bot", bot)  # the task plays with this test's settings
    try:
        async with serving(game_app(settings)) as game:
            auth = {"authorization": f"Bearer {token}"}
            legal = (await game.get(f"/v1/games/{game_id}/legal-actions", headers=auth)).json()
            r = await game.post(
                f"/v1/games/{game_id}/actions",
                json={"action": legal["actions"][0], "expected_version": legal["version"]},
                headers=auth,
            )
            assert r.status_code == 200, r.text
            # the relay's envelope of the command's last event, read by the dispatcher
            ours = await service.store.read(f"game-{game_id}", after=legal["version"])
            (turn,) = turns_of(msgspec.json.encode(envelope(ours[-1])))
            assert "traceparent" in turn.trace
            # the task as a worker runs it, its trace in the headers (in a thread: the bot
            # runs its own event loop)
            result = await asyncio.to_thread(
                worker.play.apply,
                args=(turn.game, turn.game_id, turn.seat, turn.level, turn.version),
                headers={TRACE_HEADER: turn.trace},
            )
            bot_command = result.get()
            # the game service's own consumer applies the bot's command
            for _ in range(200):
                if await pool.fetchval(
                    "SELECT count(*) FROM events WHERE metadata->>'command_id' = $1", bot_command
                ):
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the bot's command was not applied")
            await asyncio.sleep(0.2)  # its spans end
    finally:
        bot.close()
    finished = list(spans.get_finished_spans())
    http = one(finished, "POST /v1/games/{game_id}/actions")
    append = one(finished, "append", after=http)
    relay = one(finished, "relay", after=append)
    dispatch = one(finished, "dispatch", after=relay)
    task = one(finished, "bot turn", after=dispatch)
    command = one(finished, "command", after=task)
    bot_append = one(finished, "append", after=command)
    chain = [http, append, relay, dispatch, task, command, bot_append]
    assert len({s.context.trace_id for s in chain}) == 1
    assert http.attributes is not None and http.attributes["http.response.status_code"] == 200
    assert bot_append.attributes is not None
    assert bot_append.attributes["turnpost.command_id"] == bot_command


def test_off_nothing_is_carried_and_no_span_is_made() -> None:
    assert not tracing.enabled()
    with tracing.span("nothing") as s:
        assert s is None
        assert "traceparent" not in carry()


def test_an_unknown_exporter_is_refused() -> None:
    with pytest.raises(ValueError, match="TRACING"):
        tracing.setup("jaeger", "x")
    tracing.setup("off", "x")
    assert not tracing.enabled()
