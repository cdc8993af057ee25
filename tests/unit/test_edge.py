"""infra/http/edge.py, the one middleware of every HTTP service: ids, metrics, rate limits, body
bounds and Allow together, on a small app (the services' own run in the integration tests)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from litestar import Litestar, get, post
from litestar.params import Body, FromPath
from litestar.testing import TestClient
from prometheus_client import REGISTRY

from infra.http.common import EXCEPTION_HANDLERS
from infra.http.edge import Edge
from infra.http.rate_counters import MemoryCounter
from infra.http.ratelimit import RateLimiter, exempt
from infra.settings import Settings


@get("/v1/games/{game_id:str}", sync_to_thread=False)
def a_game(game_id: FromPath[str]) -> dict[str, str]:
    return {"id": game_id}


@post("/v1/games/{game_id:str}/notes", sync_to_thread=False, status_code=200)
def a_note(game_id: FromPath[str], data: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    return data


@get("/v1/boom", sync_to_thread=False)
def boom() -> None:
    raise RuntimeError("a handler that fails")


@get("/health", sync_to_thread=False)
def health() -> dict[str, str]:
    return {"status": "ok"}


def app(read_limit: str = "3/minute") -> Litestar:
    settings = Settings(
        secret="s" * 40, rate_limit_read=read_limit, max_body_bytes=64, max_json_depth=8
    )
    made = Litestar(
        [a_game, a_note, boom, health],
        middleware=[Edge],
        exception_handlers=EXCEPTION_HANDLERS,
        debug=False,
        logging_config=None,
    )
    made.state.settings = settings
    made.state.rate_limiter = RateLimiter(MemoryCounter(), settings)
    return made


def observed(method: str, route: str, status: int) -> float:
    labels = {"method": method, "route": route, "status": str(status)}
    return REGISTRY.get_sample_value("turnpost_http_request_duration_seconds_count", labels) or 0


GAME = "/v1/games/{game_id}"  # the route's template, as Litestar writes it


def test_every_answer_has_its_id_its_limits_and_one_observation() -> None:
    before = {s: observed("GET", GAME, s) for s in (200, 429)}
    with TestClient(app()) as client:
        answers = [client.get("/v1/games/g1", headers={"X-Request-ID": f"r-{n}"}) for n in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    for n, answer in enumerate(answers):
        assert answer.headers["x-request-id"] == f"r-{n}"
        assert answer.headers["ratelimit-limit"] == "3"
        assert answer.headers["ratelimit-policy"] == "3;w=60"
    assert [a.headers["ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0"]
    refused = answers[-1]
    assert "retry-after" in refused.headers and "retry-after" not in answers[0].headers
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["code"] == "rate_limited"
    assert observed("GET", GAME, 200) == before[200] + 3
    assert observed("GET", GAME, 429) == before[429] + 1


def test_the_probes_are_not_counted() -> None:
    with TestClient(app(read_limit="1/minute")) as client:
        answers = [client.get("/health") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert all("ratelimit-limit" not in a.headers and "x-request-id" in a.headers for a in answers)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [(b"x" * 65, 413, "payload_too_large"), (b"[" * 9 + b"]" * 9, 400, "too_deep")],
)
def test_bodies_over_the_bounds_are_refused_observed_and_named(
    body: bytes, status: int, code: str
) -> None:
    route = "/v1/games/{game_id}/notes"
    before = observed("POST", route, status)
    with TestClient(app()) as client:
        answer = client.post(
            "/v1/games/g1/notes", content=body, headers={"content-type": "application/json"}
        )
        fine = client.post("/v1/games/g1/notes", json={"a": [1, [2]]})
    assert answer.status_code == status and answer.json()["code"] == code
    assert answer.headers["x-request-id"] and answer.headers["ratelimit-limit"]
    assert observed("POST", route, status) == before + 1
    assert fine.status_code == 200 and fine.json() == {"a": [1, [2]]}  # the body handed on


def test_a_handler_that_raises_is_observed_as_500() -> None:
    before = observed("GET", "/v1/boom", 500)
    with TestClient(app(), raise_server_exceptions=False) as client:
        answer = client.get("/v1/boom")
    assert answer.status_code == 500 and answer.headers["x-request-id"]
    assert observed("GET", "/v1/boom", 500) == before + 1


def test_options_says_every_method_of_the_path_beside_the_limits() -> None:
    with TestClient(app(read_limit="100/minute")) as client:
        answer = client.options("/v1/games/g1/notes")
    assert answer.headers["allow"] == "OPTIONS, POST"
    assert answer.headers["ratelimit-limit"] == "100"
    assert answer.headers.get_list("allow") == ["OPTIONS, POST"]  # replaced, not added


@pytest.mark.parametrize(
    ("path", "counted"),
    [
        ("/health", False),
        ("/ready", False),
        ("/metrics", False),
        ("/play", False),
        ("/play/app.js", False),
        ("/healthz", True),
        ("/metrics/x", True),
        ("/player", True),
        ("/v1/games/x/actions", True),
        ("/v1/health", True),
    ],
)
def test_only_the_probes_metrics_and_web_client_go_uncounted(path: str, counted: bool) -> None:
    assert exempt(path) is not counted
