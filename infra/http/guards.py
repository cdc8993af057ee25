"""Bounds on what a client may send: body size (413 `payload_too_large`) and JSON nesting
(400 `too_deep`), checked before any handler or decoder sees the body."""

from __future__ import annotations

import re
from array import array
from itertools import accumulate

import msgspec
from litestar.types import HTTPRequestEvent, Receive, ReceiveMessage, Scope, Send

from contracts.problems import PROBLEM_CONTENT_TYPE, ProblemError
from infra.settings import Settings

DEFAULTS = Settings()
# A JSON string, escapes included, to its closing quote or, unclosed, to the end of the body.
# Possessive (`++`, `*+`): nothing is tried twice, and an unclosed string ends the scan where
# it starts rather than being tried again from every later quote (the old pattern's quadratic
# backtracking: a 16 KB body of `"` + `\\"`x8000 held the event loop ~3 s).
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes


def json_too_deep(raw: bytes, max_depth: int) -> bool:
    """Whether arrays/objects nest deeper than max_depth (decoders recurse once per level).

    Linear, and every step in C: strings are cut out by one possessive pattern (brackets in
    strings are not nesting), what remains is reduced to its brackets, and the depth is the
    highest running sum of +1 per opener and -1 per closer. On valid JSON that is the
    decoder's nesting depth; where the text stops being JSON the decoder fails there, no
    deeper than this sum went. A 64 KB body costs about 1 ms at worst
    (tests/unit/test_guards.py has the hostile shapes)."""
    if raw.count(b"[") + raw.count(b"{") <= max_depth:
        return False  # the common case: too few brackets to nest that deep
    steps = _STRING.sub(b"", raw).translate(_STEPS, _NOT_BRACKETS)
    return max(accumulate(array("b", steps)), default=0) > max_depth


async def send_problem(scope: Scope, send: Send, error: ProblemError) -> None:
    """Answer a problem straight from a middleware, as infra.http.common renders it for handlers."""
    body = msgspec.json.encode(error.problem(instance=scope["path"]))
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands `body` on whole once, then asks `receive` (a disconnect, when it
    comes)."""
    replayed = False

    async def replay() -> ReceiveMessage:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        event: HTTPRequestEvent = {"type": "http.request", "body": body, "more_body": False}
        return event

    return replay


def _too_large(limit: int) -> ProblemError:
    return ProblemError(413, "payload_too_large", f"the body is over {limit} bytes")


async def guard_body(
    scope: Scope, receive: Receive, settings: Settings
) -> Receive | ProblemError | None:
    """The request's body read (at most max_body_bytes) and its nesting checked: the `receive`
    that hands it on (the request's own when it has none), the problem to answer instead, or
    None when the client left before sending it all."""
    limit = settings.max_body_bytes
    declared = chunked = None
    for name, value in scope["headers"]:
        if name == b"content-length":
            declared = value
        elif name == b"transfer-encoding":
            chunked = value
    if chunked is None and (declared is None or declared.strip() in (b"", b"0")):
        return receive  # no body
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        return _too_large(limit)
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        if message["type"] != "http.request":
            continue
        body += message.get("body", b"")
        if len(body) > limit:
            return _too_large(limit)
        more = message.get("more_body", False)
    whole = bytes(body)
    if json_too_deep(whole, settings.max_json_depth):
        return ProblemError(
            400, "too_deep", f"JSON nested deeper than {settings.max_json_depth} levels"
        )

    return replaying(whole, receive)
