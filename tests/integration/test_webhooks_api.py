"""/v1/me/webhooks against real Postgres and Redis: registration, its bounds and its problems,
the URL guard (no loopback, private or metadata address unless the setting allows it)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.settings import Settings
from services.game.app import create_app
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)
pytestmark = pytest.mark.integration

Serve = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def serve(database_url: str, redis_url: str, stream_prefix: str) -> Serve:
    def start(**settings: Any) -> AbstractAsyncContextManager[httpx.AsyncClient]:
        s = Settings(
            database_url=database_url,
            redis_url=redis_url,
            secret=SECRET,
            stream_prefix=stream_prefix,
            **settings,
        )
        return serving(create_app(s))

    return start


@pytest.fixture
async def client(serve: Serve) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(webhook_allow_private=True, webhook_allow_http=True) as c:
        yield c


def auth(player: str) -> dict[str, str]:
    return {"authorization": f"Bearer {issue(KEY, player, player)}"}


def problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body


def player() -> str:
    return f"player-{secrets.token_hex(4)}"


async def test_register_list_and_delete(client: httpx.AsyncClient) -> None:
    me = player()
    body = {"url": "http://127.0.0.1:9/hook", "events": ["your_turn", "game_finished"]}
    created = await client.post("/v1/me/webhooks", json=body, headers=auth(me))
    assert created.status_code == 201, created.text
    hook = created.json()
    assert hook["secret"].startswith("whsec_")
    Webhook(hook["secret"])  # a secret the spec's library takes
    assert hook["events"] == ["your_turn", "game_finished"] and hook["game_id"] is None
    assert hook["disabled"] is False and hook["created_at"].endswith("Z")

    listed = (await client.get("/v1/me/webhooks", headers=auth(me))).json()["items"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert "secret" not in listed[0]  # shown once
    assert (await client.get("/v1/me/webhooks", headers=auth(player()))).json()["items"] == []

    # another player can neither see, list the deliveries of, test nor delete it
    other = auth(player())
    path = f"/v1/me/webhooks/{hook['id']}"
    problem(await client.delete(path, headers=other), 404, "unknown_webhook")
    problem(await client.get(f"{path}/deliveries", headers=other), 404, "unknown_webhook")
    problem(await client.post(f"{path}/test", headers=other), 404, "unknown_webhook")
    problem(await client.delete("/v1/me/webhooks/nope", headers=auth(me)), 404, "unknown_webhook")

    assert (await client.get(f"{path}/deliveries", headers=auth(me))).json() == {"items": []}
    assert (await client.delete(path, headers=auth(me))).status_code == 204
    problem(await client.delete(path, headers=auth(me)), 404, "unknown_webhook")
    assert (await client.get("/v1/me/webhooks", headers=auth(me))).json()["items"] == []


async def test_bodies_are_strict_and_bounded(client: httpx.AsyncClient) -> None:
    me = auth(player())
    url = "http://127.0.0.1:9/hook"
    for body in [
        {"url": url},
        {"url": url, "events": []},
        {"url": url, "events": ["your_move"]},
        {"url": url, "events": ["your_turn"], "extra": 1},
        {"url": url, "events": "your_turn"},
        {"url": 5, "events": ["your_turn"]},
        {"url": "http://127.0.0.1/" + "a" * 2048, "events": ["your_turn"]},
    ]:
        problem(
            await client.post("/v1/me/webhooks", json=body, headers=me), 400, "malformed_request"
        )
    for bad in ["ftp://127.0.0.1/x", "http:///x", "http://u:p@127.0.0.1/x", "not a url"]:
        r = await client.post(
            "/v1/me/webhooks", json={"url": bad, "events": ["your_turn"]}, headers=me
        )
        problem(r, 422, "invalid_webhook_url")
    problem(
        await client.post("/v1/me/webhooks", json={"url": url, "events": ["your_turn"]}),
        401,
        "unauthorized",
    )


async def test_a_player_has_a_bounded_number_of_webhooks(serve: Serve) -> None:
    async with serve(
        webhook_allow_private=True, webhook_allow_http=True, webhook_max_per_player=2
    ) as c:
        me = auth(player())
        body = {"url": "http://127.0.0.1:9/hook", "events": ["your_turn"]}
        for _ in range(2):
            assert (await c.post("/v1/me/webhooks", json=body, headers=me)).status_code == 201
        problem(await c.post("/v1/me/webhooks", json=body, headers=me), 409, "too_many_webhooks")


async def test_one_game_only_if_seated_in_it(client: httpx.AsyncClient, pool: Any) -> None:
    game_id, players = await new_game(game_service(pool), [None, None])
    body = {"url": "http://127.0.0.1:9/hook", "events": ["your_turn"], "game_id": game_id}
    created = await client.post("/v1/me/webhooks", json=body, headers=auth(players[0]))
    assert created.status_code == 201 and created.json()["game_id"] == game_id
    problem(
        await client.post("/v1/me/webhooks", json=body, headers=auth(player())), 403, "not_seated"
    )
    unknown = {**body, "game_id": "00000000-0000-0000-0000-000000000000"}
    problem(
        await client.post("/v1/me/webhooks", json=unknown, headers=auth(players[0])),
        404,
        "unknown_game",
    )
    # a room's news never goes to an endpoint of one game: asking for it there is refused
    for room_news in ("invited", "rematch_offered"):
        mixed = {**body, "events": ["your_turn", room_news]}
        problem(
            await client.post("/v1/me/webhooks", json=mixed, headers=auth(players[0])),
            422,
            "room_news_for_one_game",
        )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
    ],
)
async def test_loopback_private_and_metadata_addresses_are_refused_unless_allowed(
    serve: Serve, url: str
) -> None:
    me = auth(player())
    body = {"url": url, "events": ["your_turn"]}
    async with serve(webhook_allow_http=True) as strict:
        problem(
            await strict.post("/v1/me/webhooks", json=body, headers=me),
            422,
            "webhook_url_forbidden",
        )
    async with serve(webhook_allow_http=True, webhook_allow_private=True) as lax:
        assert (await lax.post("/v1/me/webhooks", json=body, headers=me)).status_code == 201


async def test_plain_http_is_refused_unless_allowed(serve: Serve) -> None:
    body = {"url": "http://127.0.0.1:9/hook", "events": ["your_turn"]}
    async with serve(webhook_allow_private=True) as c:
        r = await c.post("/v1/me/webhooks", json=body, headers=auth(player()))
        problem(r, 422, "invalid_webhook_url")


async def test_a_name_that_does_not_resolve_is_refused(client: httpx.AsyncClient) -> None:
    body = {"url": "https://no-such-host.invalid/hook", "events": ["your_turn"]}
    problem(
        await client.post("/v1/me/webhooks", json=body, headers=auth(player())),
        422,
        "webhook_url_unresolvable",
    )
