"""What a process is doing now, for its log lines: the request id, the game id and the command
id, carried from the POST that began it across the streams and Celery to the bot's answer.

The fields live in context variables (each asyncio task, each thread its own copy), so a log
line anywhere below a `bind` carries them (infra/observability/logging.py adds them to every record). A
message that leaves the process carries `carry()` (a small dict of strings: `trace` in a
stream message, contracts/streams.py; `trace` in an event's metadata; a Celery task header),
and the process that takes it up binds it again with `bind_carried`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from contextvars import ContextVar, Token
from random import getrandbits

from infra.observability.tracing import inject

FIELDS = ("request_id", "game_id", "command_id")
_VARS: dict[str, ContextVar[str | None]] = {f: ContextVar(f, default=None) for f in FIELDS}
CARRIED = ("request_id",)  # what crosses a process boundary (a game id travels in the message)
REQUEST_ID_HEADER = "x-request-id"
_ACCEPTED = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")  # an id a client may choose


def current() -> dict[str, str]:
    """The fields set now."""
    return {f: v for f, var in _VARS.items() if (v := var.get()) is not None}


class bind:  # lower case: used as the function it was, `with bind(request_id=...):`
    """Set the given fields (None leaves one as it is) for the block. A class, not a
    generator: it runs for every request and every command (a third of the cost)."""

    __slots__ = ("_fields", "_tokens")

    def __init__(self, **fields: str | None) -> None:
        self._fields = fields
        self._tokens: list[tuple[ContextVar[str | None], Token[str | None]]] = []

    def __enter__(self) -> None:
        self._tokens = [
            (_VARS[f], _VARS[f].set(v)) for f, v in self._fields.items() if v is not None
        ]

    def __exit__(self, *exc: object) -> None:
        for var, token in reversed(self._tokens):
            var.reset(token)


def carry() -> dict[str, str]:
    """What a message leaving this process takes with it: the request id, and the current
    span's traceparent when tracing (infra/observability/tracing.py)."""
    out = {f: v for f in CARRIED if (v := _VARS[f].get()) is not None}
    inject(out)
    return out


def bind_carried(carried: Mapping[str, str] | None, **fields: str | None) -> contextlib.ExitStack:
    """Bind what a message brought (`carry()` of its sender) and `fields` of its own."""
    stack = contextlib.ExitStack()
    brought = {f: str(v) for f, v in (carried or {}).items() if f in CARRIED and v}
    stack.enter_context(bind(**{**brought, **fields}))
    return stack


def new_request_id() -> str:
    """32 random hex digits (a uuid4's length), from the process's Mersenne Twister: an id to
    follow, not a secret (random reseeds after a fork, so workers do not repeat each other;
    a client that collected some hundreds could predict the next, and nothing depends on
    them not being predicted: seeds, keys and tokens come from `secrets`).
    os.urandom asked the kernel each time: 4 % of the game service's profile samples under
    the move-cycle load (tests/bench/profile_actions.py), for what costs 0.3 µs here."""
    return f"{getrandbits(128):032x}"


def request_id_of(header: str | None) -> str:
    """The client's X-Request-ID when it is a plain id, else a new one."""
    if header and _ACCEPTED.fullmatch(header):
        return header
    return new_request_id()
