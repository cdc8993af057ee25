"""Table chat and what a player reads of it (services/game/chat.py)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post, put
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, HeaderParameter, QueryParameter

from contracts.game import ChatMessage, ChatPage, ChatSettings, NewChatMessage
from infra.http.common import strictly
from infra.http.openapi import SECURITY, problems
from services.game.chat import ChatPrefs, history, message_of, say
from services.game.routes.common import (
    MAX_IDEMPOTENCY_KEY,
    MAX_VERSION,
    UNKNOWN_GAME,
    caller,
    service_of,
)


def prefs_of(request: Request[Any, Any, Any]) -> ChatPrefs:
    """The process's one ChatPrefs (memory when embedded: kept across requests)."""
    state = request.app.state
    if getattr(state, "chat_prefs", None) is None:
        state.chat_prefs = ChatPrefs.of(service_of(request))
    prefs: ChatPrefs = state.chat_prefs
    return prefs


@post(
    "/v1/games/{game_id:str}/chat",
    operation_id="postChat",
    summary="Say something at the table: a seated player in the players' channel, anyone "
    "else in the spectators'; plain text, up to 500 characters, while the game is on",
    status_code=201,
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        409,
        422,
        503,
        codes={
            **UNKNOWN_GAME,
            409: ["game_finished", "stale_version", "chat_unavailable"],
            422: ["empty_message", "invalid_text", "idempotency_key_reused"],
        },
        body=True,
    ),
)
async def post_chat(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    data: Annotated[NewChatMessage, Body(examples=[Example(value={"text": "good luck!"})])],
    idempotency_key: Annotated[
        str | None,
        HeaderParameter(name="Idempotency-Key", max_length=MAX_IDEMPOTENCY_KEY, required=False),
    ] = None,
) -> ChatMessage:
    """The message goes into the game's log, beside its events: every reader's feed and
    stream carry it (but those who muted its author, or hid its channel), and so does the
    record. Rate-limited per player (`RATE_LIMIT_CHAT`)."""
    who = await caller(request)
    data = await strictly(request, data)
    return await say(service_of(request), game_id, who, data.text, idempotency_key)


@get(
    "/v1/games/{game_id:str}/chat",
    operation_id="getChat",
    summary="The game's chat, oldest first, paged by version (`after`); without what you "
    "muted or hid",
    security=SECURITY,
    responses=problems(400, 401, 404, 503, codes=UNKNOWN_GAME),
)
async def get_chat(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_VERSION)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 100,
) -> ChatPage:
    who = await caller(request)
    svc = service_of(request)
    found, more = await history(svc, game_id, after, limit)
    view = await prefs_of(request).view(who.player_id)
    return ChatPage(
        items=[message_of(e) for e in view.visible(found)],
        next_after=found[-1].version if more else None,
    )


@get(
    "/v1/me/chat-settings",
    operation_id="getChatSettings",
    summary="What you read of table chats: the players you muted, the spectators hidden",
    security=SECURITY,
    responses=problems(400, 401),
)
async def get_chat_settings(request: Request[Any, Any, Any]) -> ChatSettings:
    who = await caller(request)
    return await prefs_of(request).get(who.player_id)


@put(
    "/v1/me/chat-settings",
    operation_id="putChatSettings",
    summary="Mute players (up to 500) and hide the spectators' channel, for yourself, in "
    "every game: feeds, streams, chat pages and records",
    security=SECURITY,
    responses=problems(400, 401, 422, codes={422: ["own_mute", "invalid_player_id"]}, body=True),
)
async def put_chat_settings(
    request: Request[Any, Any, Any],
    data: Annotated[
        ChatSettings,
        Body(
            examples=[
                Example(
                    value={
                        "muted": ["p-3f1c0b9e-5d7e-4a57-8f0e-3c2a1d4b5e6f"],
                        "hide_spectators": True,
                    }
                )
            ]
        ),
    ],
) -> Response[ChatSettings]:
    who = await caller(request)
    data = await strictly(request, data)
    return Response(await prefs_of(request).put(who.player_id, data), status_code=200)


ROUTES = [post_chat, get_chat, get_chat_settings, put_chat_settings]
