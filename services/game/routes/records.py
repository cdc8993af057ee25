"""A finished game's record: its whole log with nothing hidden, one line a command (NDJSON),
which `python -m games.replay` replays through the engine (services/game/records.py)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath

from contracts.problems import ProblemError
from infra.http.openapi import SECURITY, problems
from services.game.chat import CHAT
from services.game.records import game_record
from services.game.repository import stream_id
from services.game.routes.chat import prefs_of
from services.game.routes.common import UNKNOWN_GAME, caller, service_of
from services.game.routes.games import outcome_of

NDJSON = "application/x-ndjson"


@get(
    "/v1/games/{game_id:str}/record",
    operation_id="getGameRecord",
    summary="A finished game's whole log, nothing hidden (every hand, deal and the seed), as "
    "NDJSON: a header, then one line a command with its events; `python -m games.replay` "
    "replays it through the engine",
    security=SECURITY,
    responses={
        200: ResponseSpec(
            data_container=str,
            media_type=NDJSON,
            description="The header (`game`, `game_id`, `room_id`, `names`, `players`, "
            "`options`, `timing`, `seed`, `rules`, `version`, `outcome`), then per command "
            '`{"cmd", "at", "events"}`: `cmd` is `{"setup": true}`, `{"seat", "action"}` '
            '(`action` null with its `request` where it is not one the engine lists) or `{"table": '
            "[types]}`; each event `{v, type, data, meta}`.",
        ),
        **problems(
            400,
            401,
            403,
            404,
            409,
            503,
            codes={**UNKNOWN_GAME, 403: ["not_seated"], 409: ["game_not_finished"]},
        ),
    },
)
async def get_record(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[bytes]:
    who = await caller(request)
    svc = service_of(request)
    record = await svc.record(game_id)
    loaded = await svc.load(record.id, record)
    if outcome_of(loaded) is None:
        raise ProblemError(
            409,
            "game_not_finished",
            "a game's record, with every hand, is given once it has finished; until then read "
            "your view and your feed",
        )
    if record.seat_of(who.player_id) is None and await svc.games.unlisted(record.room_id):
        raise ProblemError(
            403, "not_seated", "an unlisted room's record is for the players of its game alone"
        )
    events = await svc.store.read(stream_id(record.id))
    if any(e.type == CHAT for e in events):  # the chat the caller chose not to read: blanked
        events = (await prefs_of(request).view(who.player_id)).redacted(events)
    header, lines = game_record(record, events, strict=False)
    body = b"".join(msgspec_line(x) for x in (header, *lines))
    return Response(content=body, media_type=NDJSON)


def msgspec_line(value: Any) -> bytes:
    return msgspec.json.encode(value) + b"\n"


ROUTES = [get_record]
