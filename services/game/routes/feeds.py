"""A game's event feed: its events as the caller may see them, paged, long-polled."""

from __future__ import annotations

import time
from typing import Annotated, Any

from litestar import Request, get
from litestar.params import FromPath, QueryParameter

from contracts.game import EventFeed
from infra.http.common import holding, while_held
from infra.http.openapi import SECURITY, problems
from infra.observability.metrics import LIVE_SUBSCRIBERS
from services.game.chat import CHAT
from services.game.loading import status_of
from services.game.routes.chat import prefs_of
from services.game.routes.common import (
    MAX_VERSION,
    MAX_WAIT_SECONDS,
    UNKNOWN_GAME,
    caller,
    service_of,
)
from services.game.routes.games import outcome_of


@get(
    "/v1/games/{game_id:str}/events",
    operation_id="getEvents",
    summary="The caller's event feed, redacted for them; long-polls up to `wait` seconds",
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        503,
        codes={**UNKNOWN_GAME, 400: ["malformed_request", "after_beyond_version"]},
    ),
)
async def events(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_VERSION)] = 0,
    wait: Annotated[float, QueryParameter(ge=0, le=MAX_WAIT_SECONDS)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 500,
) -> EventFeed:
    who = await caller(request)
    svc = service_of(request)
    record = await svc.record(game_id)
    seat = record.seat_of(who.player_id)
    deadline = time.monotonic() + wait
    last = after
    with LIVE_SUBSCRIBERS.labels("long_poll").track_inprogress():
        # a long-poll holds its token: 401 as soon as it ends meanwhile (infra.auth.tokens.Held)
        held = await holding(request) if wait > 0 else None
        while True:
            left = max(0.0, deadline - time.monotonic()) if wait > 0 else 0.0
            polled = svc.events_since(record, last, left, limit)
            loaded, stored = await (polled if held is None else while_held(held, polled))
            shown = stored
            if any(e.type == CHAT for e in stored):  # what the caller chose not to read, left out
                shown = (await prefs_of(request).view(who.player_id)).visible(stored)
            last = stored[-1].version if stored else last
            # only messages the caller does not read came: no news, so the wait goes on
            if shown or not stored or left <= 0 or outcome_of(loaded) is not None:
                break
    to_act = sorted(svc.to_act(loaded.rules, loaded.state))
    return EventFeed(
        events=svc.feed(loaded.rules, shown, seat, record.names),
        last_version=last,
        version=loaded.version,
        has_more=last < loaded.version,
        status=status_of(loaded.rules, loaded.state),
        to_act=to_act,
        your_turn=seat is not None and seat in to_act and loaded.table.seats[seat].bot is None,
        outcome=outcome_of(loaded),
    )


ROUTES = [events]
