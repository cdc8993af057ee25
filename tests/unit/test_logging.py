"""Log lines: JSON objects one a line (or text) carrying the bound ids; a request's id from
X-Request-ID or made, on every line of the request and on its response."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
from litestar import Litestar, get
from litestar.params import FromPath
from litestar.testing import TestClient

from infra.http.edge import Edge
from infra.observability.context import bind, bind_carried, carry, current
from infra.observability.logging import ContextFilter, JsonFormatter, TextFormatter

log = logging.getLogger("turnpost.test")


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """What `log` writes through the JSON formatter."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    yield out
    log.removeHandler(handler)


def parsed(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_line_is_one_json_object_with_the_bound_ids(lines: io.StringIO) -> None:
    with bind(request_id="r1", game_id="g1"), bind(command_id="c1"):
        log.info('a "quoted"\nmessage %d', 7, extra={"seat": 2})
    log.info("unbound")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    first, second, third = parsed(lines)
    assert first["msg"] == 'a "quoted"\nmessage 7' and first["level"] == "INFO"
    assert (first["request_id"], first["game_id"], first["command_id"]) == ("r1", "g1", "c1")
    assert first["seat"] == 2 and first["logger"] == "turnpost.test"
    assert "request_id" not in second and "game_id" not in second  # unbound after the block
    assert "ValueError: boom" in str(third["exc"])
    assert len(lines.getvalue().splitlines()) == 3  # the newline and the traceback stay inside


def test_text_lines_name_the_ids_after_the_message() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "moved", None, None)
    with bind(request_id="r2", game_id="g2"):
        ContextFilter().filter(record)
    assert TextFormatter().format(record).endswith("x: moved [request_id=r2 game_id=g2]")


# What a client can put in a path, a name or a header value that a reader takes for a new line
# (or a terminal for a command): each must stay inside its record's one line.
FORGED = "\n2030-01-01 00:00:00,000 INFO turnpost: forged"
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", BREAKS)
def test_a_text_line_escapes_controls_in_the_message_its_arguments_and_the_ids(brk: str) -> None:
    # as uvicorn's access line is made: the path an argument (infra/servers/process.py, log_config=None)
    record = logging.LogRecord(
        f"uvicorn{brk}access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", f"/v1/games/g{brk}x{FORGED}\x1b[2J\u202e", "1.1", 404), None,
    )  # fmt: skip
    with bind(request_id=f"r{brk}1", game_id=f"g{FORGED}"):
        ContextFilter().filter(record)
    record.msg = record.msg + brk  # the message itself too
    text = TextFormatter().format(record)
    assert len(text.splitlines()) == 1, text
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b[2J\\u202e" in text
    assert "\\n2030-01-01 00:00:00,000 INFO turnpost: forged" in text
    assert f"/v1/games/g{brk.encode('unicode_escape').decode()}x" in text  # readable still
    assert text.endswith("]") and "game_id=g\\n2030" in text


def test_a_traceback_stays_below_its_record_each_of_its_lines_indented() -> None:
    try:
        raise ValueError(f"no such path /x{FORGED}\x1b[2J")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    first, *rest = TextFormatter().format(record).split("\n")
    assert first.endswith("x: failed") and rest[0] == "  Traceback (most recent call last):"
    assert all(line.startswith("  ") for line in rest), rest
    assert "  2030-01-01 00:00:00,000 INFO turnpost: forged\\x1b[2J" in rest
    assert "\x1b" not in "".join(rest)


@pytest.mark.parametrize("brk", BREAKS)
def test_a_json_line_holds_every_control_encoded(brk: str, lines: io.StringIO) -> None:
    log.info("path %s", f"/v1/x{brk}{FORGED}\x7f\x9b")
    assert len(lines.getvalue().splitlines()) == 1, lines.getvalue()
    assert parsed(lines)[0]["msg"] == f"path /v1/x{brk}{FORGED}\x7f\x9b"


def test_only_the_request_id_is_carried_and_a_carried_one_is_bound_again() -> None:
    with bind(request_id="r3", game_id="g3", command_id="c3"):
        carried = carry()
    assert carried == {"request_id": "r3"}
    with bind_carried(carried, game_id="g4"):
        assert current() == {"request_id": "r3", "game_id": "g4"}
    with bind_carried({"request_id": "r5", "other": "x"}):
        assert current() == {"request_id": "r5"}
    assert current() == {}


@get("/v1/games/{game_id:str}", sync_to_thread=False)
def a_game(game_id: FromPath[str]) -> dict[str, object]:
    log.info("looked at it")
    return current()  # type: ignore[return-value]


def app() -> Litestar:
    return Litestar([a_game], middleware=[Edge])


def test_a_request_binds_its_id_and_game_and_returns_the_id(lines: io.StringIO) -> None:
    with TestClient(app()) as client:
        given = client.get("/v1/games/g-7", headers={"X-Request-ID": "client-id-1"})
        made = client.get("/v1/games/g-8")
        unsafe = client.get("/v1/games/g-9", headers={"X-Request-ID": "has space"})
    assert given.headers["x-request-id"] == "client-id-1"
    assert given.json() == {"request_id": "client-id-1", "game_id": "g-7"}
    assert len(made.headers["x-request-id"]) == 32 and made.json()["game_id"] == "g-8"
    assert made.json()["request_id"] == made.headers["x-request-id"]
    assert unsafe.headers["x-request-id"] != "has space"
    ours = [line for line in parsed(lines) if line["msg"] == "looked at it"]
    assert [line["request_id"] for line in ours][:2] == [
        "client-id-1",
        made.headers["x-request-id"],
    ]


def test_new_request_ids_are_32_hex_digits_and_do_not_repeat_across_processes() -> None:
    import multiprocessing
    import re

    from infra.observability.context import new_request_id

    ids = {new_request_id() for _ in range(10_000)}
    assert len(ids) == 10_000
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    # a forked worker reseeds: its ids are not the ones its parent draws next
    with multiprocessing.get_context("fork").Pool(1) as pool:
        child = pool.apply(_ids, (100,))
    parent = _ids(100)
    assert len(set(child) | set(parent) | ids) == 10_200


def _ids(n: int) -> list[str]:
    from infra.observability.context import new_request_id

    return [new_request_id() for _ in range(n)]
