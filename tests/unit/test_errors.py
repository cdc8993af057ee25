"""Outage or failure: the errors a consumer (or any worker) waits out, and for how long."""

from __future__ import annotations

import errno

import asyncpg
import pytest
import redis.exceptions
from litestar import Litestar, get
from litestar.testing import TestClient

from infra.http.common import EXCEPTION_HANDLERS
from infra.servers.errors import TRANSIENT, backoff, is_transient
from services.game.relay import CONNECTION_ERRORS


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionRefusedError(111, "refused"),
        ConnectionResetError(),
        TimeoutError(),
        OSError(errno.ENETUNREACH, "Network is unreachable"),
        asyncpg.InterfaceError("cannot call Connection.fetch(): connection is closed"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.exceptions.AdminShutdownError("terminating connection"),
        asyncpg.TooManyConnectionsError("too many clients"),
        asyncpg.ConnectionDoesNotExistError("connection was closed"),
        asyncpg.InterfaceError("connection is closed"),
        asyncpg.InternalClientError(
            "cannot switch to state 12; another operation (2) is in progress"
        ),
        redis.exceptions.ConnectionError("Connection refused"),
        redis.exceptions.TimeoutError("Timeout reading"),
        redis.exceptions.BusyLoadingError("loading the dataset"),
        ExceptionGroup("both", [TimeoutError(), ConnectionRefusedError()]),
    ],
)
def test_an_outage_is_transient(exc: BaseException) -> None:
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("not a move"),
        KeyError("seat"),
        RuntimeError("NOGROUP"),
        asyncpg.UniqueViolationError("duplicate key"),
        asyncpg.exceptions.DataError("invalid input for query argument"),
        redis.exceptions.ResponseError("WRONGTYPE"),
        ExceptionGroup("mixed", [TimeoutError(), ValueError()]),
        FileNotFoundError(errno.ENOENT, "no such file"),  # an OSError, but not the network's
        asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
    ],
)
def test_bad_work_is_not_transient(exc: BaseException) -> None:
    assert not is_transient(exc)


def test_backoff_doubles_up_to_its_cap_with_a_little_jitter() -> None:
    for attempt, full in [(0, 0.1), (1, 0.2), (3, 0.8), (7, 10.0), (10_000, 10.0)]:
        delay = backoff(attempt, 0.1, 10.0)
        assert 0.8 * full <= delay <= full


LOST_MID_REQUEST = asyncpg.InternalClientError(
    "cannot switch to state 12; another operation (2) is in progress"
)


@get("/v1/lost", sync_to_thread=False)
def lost_mid_request() -> None:
    raise LOST_MID_REQUEST


def test_postgres_gone_mid_request_is_answered_503_with_retry_after() -> None:
    """As PostgreSQL shutting down during a request left asyncpg's connection: an outage."""
    app = Litestar([lost_mid_request], exception_handlers=EXCEPTION_HANDLERS)
    with TestClient(app) as client:
        answer = client.get("/v1/lost")
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
    assert answer.json()["code"] == "service_unavailable"


def test_the_relay_reconnects_after_every_outage_the_services_wait_out() -> None:
    """One classification: what an HTTP service answers 503 and a consumer waits out, the
    relay reconnects after (services/game/relay.py, beside its own wider set)."""
    assert set(TRANSIENT) <= set(CONNECTION_ERRORS)
    assert isinstance(LOST_MID_REQUEST, CONNECTION_ERRORS) and is_transient(LOST_MID_REQUEST)


@get("/v1/unstorable", sync_to_thread=False)
def unstorable() -> None:
    raise asyncpg.exceptions.CharacterNotInRepertoireError(
        'invalid byte sequence for encoding "UTF8": 0x00 (query argument $3 of players.name)'
    )


def test_a_value_postgres_cannot_store_is_400_without_the_drivers_words() -> None:
    """The client's input was bad: 400, said in the API's words; the driver's (its query's
    arguments, the server's tables) stay in the log."""
    app = Litestar([unstorable], exception_handlers=EXCEPTION_HANDLERS)
    with TestClient(app) as client:
        answer = client.get("/v1/unstorable")
    assert answer.status_code == 400 and answer.json()["code"] == "malformed_request"
    assert "NUL" in answer.json()["detail"]
    assert "query argument" not in answer.text and "players" not in answer.text
