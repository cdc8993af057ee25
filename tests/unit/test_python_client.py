"""The Python client's parts that need no server: the example's size, SSE framing, problems,
Retry-After and the retry policy (the rest runs against real services in
tests/integration/test_python_client.py and tests/e2e/test_example_bot.py)."""

from __future__ import annotations

import email.utils
import time
from pathlib import Path

import httpx
import pytest

from contracts.lobby import NewRoom
from turnpost.client import BadRequest, Policy, RateLimited, ServerError, StaleVersion, routes
from turnpost.client.errors import error_for, retry_after
from turnpost.client.sse import Frame, Frames

BOT = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "bot.py"


def test_the_example_bot_fits_in_30_lines() -> None:
    lines = BOT.read_text().splitlines()
    assert 10 < len(lines) <= 30
    assert any("turnpost.play(" in line for line in lines)


def test_sse_frames_join_data_keep_ids_and_skip_comments() -> None:
    frames = Frames()
    text = (
        ": game g after version 3\n\n"
        'id: 4\nevent: collector_kept\ndata: {"a":\ndata: 1}\n\n'
        ": heartbeat\n\n"
        "data: no id\r\n\r\n"
    )
    got = [f for line in text.split("\n") if (f := frames.line(line)) is not None]
    assert got == [
        Frame(data='{"a":\n1}', event="collector_kept", id="4"),
        Frame(data="no id", event="message", id="4"),  # the last id stays, as EventSource's
    ]


def _answer(status: int, body: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(
        status, content=body, headers={"content-type": "application/problem+json", **headers}
    )


def test_a_problem_becomes_the_exception_of_its_status_and_code() -> None:
    stale = error_for(
        _answer(
            409,
            b'{"type":"t","title":"Conflict","status":409,"code":"stale_version",'
            b'"detail":"the game moved","current_version":14}',
        )
    )
    assert isinstance(stale, StaleVersion) and stale.current_version == 14
    assert (stale.status, stale.code, stale.detail) == (409, "stale_version", "the game moved")
    bad = error_for(
        _answer(400, b'{"type":"t","title":"Bad request","status":400,"code":"malformed_request"}')
    )
    assert isinstance(bad, BadRequest) and bad.code == "malformed_request" and bad.detail is None
    # an answer that is no problem (a proxy's page) still gives a typed error
    proxy = error_for(httpx.Response(502, text="<html>Bad Gateway</html>"))
    assert isinstance(proxy, ServerError) and proxy.status == 502 and proxy.code == "http_error"
    assert "Bad Gateway" in (proxy.detail or "")


def test_retry_after_in_seconds_or_as_a_date() -> None:
    assert retry_after(_answer(429, b"", **{"retry-after": "7"})) == 7.0
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= (retry_after(_answer(429, b"", **{"retry-after": later})) or 0) <= 30
    assert retry_after(_answer(429, b"")) is None
    limited = error_for(
        _answer(
            429,
            b'{"type":"t","title":"Too many requests","status":429,"code":"rate_limited"}',
            **{"retry-after": "2"},
        )
    )
    assert isinstance(limited, RateLimited) and limited.retry_after == 2.0


@pytest.mark.parametrize(
    ("status", "header", "attempt", "idempotent", "wait"),
    [
        (429, "3", 0, False, 3.0),
        (429, None, 0, False, 0.25),  # no Retry-After: a short backoff
        (429, "3", 3, False, None),  # the tries are spent
        (429, "61", 0, False, None),  # longer than max_retry_after: raised at once
        (409, "3", 0, True, None),  # only 429s and 503s wait
        (503, "1", 0, True, 1.0),  # a backing service away, a request sent twice is once
        (503, "1", 0, False, None),  # ... but a room made twice is two rooms
        (503, None, 0, True, None),  # the service did not say when
        (503, "1", 2, True, None),  # the tries are spent
    ],
)
def test_the_policy_waits_only_for_a_429_or_a_safe_503_and_only_so_long(
    status: int, header: str | None, attempt: int, idempotent: bool, wait: float | None
) -> None:
    headers = {"retry-after": header} if header else {}
    assert Policy().wait_for(_answer(status, b"", **headers), attempt, idempotent) == wait


def test_which_calls_are_safe_to_send_twice() -> None:
    assert routes.get_game("g").idempotent and routes.delete_webhook("w").idempotent
    assert routes.post_action("g", {"type": "pass"}, 3, "k").idempotent
    assert routes.resign("g").idempotent and routes.claim("g", 1).idempotent
    assert not routes.create_room(NewRoom(game="itty-bitty", seats=2)).idempotent
    assert not routes.start_room("r", None, True, 0).idempotent


def test_every_post_carries_an_idempotency_key_unless_given() -> None:
    policy = Policy()
    made = policy.headers("tok", "POST", b"{}", None)
    assert made["Idempotency-Key"] and made["authorization"] == "Bearer tok"
    assert made["content-type"] == "application/json"
    given = policy.headers(None, "POST", None, {"Idempotency-Key": "mine"})
    assert given["Idempotency-Key"] == "mine" and "authorization" not in given
    assert "Idempotency-Key" not in policy.headers("tok", "GET", None, None)
