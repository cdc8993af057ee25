"""Every route of both services as a `Call`: what to send and how to read the answer.

The sync and the async client send the same calls; only how they wait differs. Each
function is named after the route's `operationId` in the services' OpenAPI, snake_cased.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

import msgspec

from contracts.game import (
    ActionAccepted,
    ChatMessage,
    ChatPage,
    ChatSettings,
    Claim,
    EventFeed,
    GameMap,
    GameView,
    LegalActions,
    MyGames,
    NewChatMessage,
    WatchPage,
)
from contracts.lobby import (
    AddBot,
    Catalog,
    GameContent,
    GameSchemas,
    Invitation,
    Invitations,
    JoinRoom,
    Match,
    NewInvitation,
    NewMatch,
    NewPlayer,
    NewRoom,
    PlayerCreated,
    Rematch,
    Room,
    RoomPage,
    RoomStatus,
    StartRoom,
)
from contracts.notifications import (
    ROOM_NEWS_TYPES,
    Deliveries,
    NewWebhook,
    Notification,
    QueuedTest,
    RoomNews,
    Webhook,
    WebhookCreated,
    Webhooks,
)
from contracts.players import History, Leaderboard, Profile, Rename

T = TypeVar("T")
Service = Literal["lobby", "game"]
Params = Mapping[str, str | int | float | bool]


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request: its service, method, path, query and JSON body; `read` decodes a 2xx."""

    service: Service
    method: str
    path: str
    read: Callable[[bytes], T]
    params: Params | None = None
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    repeatable: bool = False  # a POST the service applies once however often it is sent

    @property
    def idempotent(self) -> bool:
        """Safe to send again after an answer that may have come after its effect (a 503)."""
        return self.method in ("GET", "DELETE") or self.repeatable


def _json(type_: type[T]) -> Callable[[bytes], T]:
    return msgspec.json.Decoder(type_).decode


def _nothing(_: bytes) -> None:
    return None


class _Kind(msgspec.Struct):
    type: str


_kind = msgspec.json.Decoder(_Kind)
_game_news = msgspec.json.Decoder(Notification)
_room_news = msgspec.json.Decoder(RoomNews)


def decode_news(data: bytes | str) -> Notification | RoomNews:
    """One piece of /v1/me/stream's news: a game's (`Notification`) or a room's (`RoomNews`),
    told apart by its `type`."""
    if _kind.decode(data).type in ROOM_NEWS_TYPES:
        return _room_news.decode(data)
    return _game_news.decode(data)


def _text(content: bytes) -> str:
    return content.decode()


def _params(**values: str | int | float | bool | None) -> dict[str, str | int | float | bool]:
    return {k: v for k, v in values.items() if v is not None}


def _p(segment: str) -> str:
    return quote(segment, safe="")


_encode = msgspec.json.Encoder().encode
_room = _json(Room)
_accepted = _json(ActionAccepted)
_webhook = _json(Webhook)

# -- lobby: players and tokens ---------------------------------------------------------------


def create_player(name: str) -> Call[PlayerCreated]:
    body = _encode(NewPlayer(name=name))
    return Call("lobby", "POST", "/v1/players", _json(PlayerCreated), body=body)


def issue_token() -> Call[PlayerCreated]:
    return Call("lobby", "POST", "/v1/players/me/tokens", _json(PlayerCreated))


def end_other_tokens() -> Call[None]:
    return Call("lobby", "DELETE", "/v1/players/me/tokens", _nothing)


# -- lobby: the catalog ----------------------------------------------------------------------


def get_catalog() -> Call[Catalog]:
    return Call("lobby", "GET", "/v1/catalog", _json(Catalog))


def get_game_content(game: str) -> Call[GameContent]:
    return Call("lobby", "GET", f"/v1/catalog/{_p(game)}/content", _json(GameContent))


def get_game_schemas(game: str) -> Call[GameSchemas]:
    return Call("lobby", "GET", f"/v1/catalog/{_p(game)}/schemas", _json(GameSchemas))


# -- lobby: rooms ----------------------------------------------------------------------------


def create_room(room: NewRoom) -> Call[Room]:
    return Call("lobby", "POST", "/v1/rooms", _room, body=_encode(room))


def list_rooms(
    game: str | None, status: RoomStatus | None, limit: int | None, cursor: str | None
) -> Call[RoomPage]:
    params = _params(game=game, status=status, limit=limit, cursor=cursor)
    return Call("lobby", "GET", "/v1/rooms", _json(RoomPage), params=params)


def get_my_rooms(
    status: RoomStatus | None, limit: int | None, cursor: str | None
) -> Call[RoomPage]:
    params = _params(status=status, limit=limit, cursor=cursor)
    return Call("lobby", "GET", "/v1/me/rooms", _json(RoomPage), params=params)


def get_me() -> Call[Profile]:
    return Call("lobby", "GET", "/v1/players/me", _json(Profile))


def rename_me(name: str) -> Call[Profile]:
    body = _encode(Rename(name=name))
    return Call("lobby", "PATCH", "/v1/players/me", _json(Profile), body=body, repeatable=True)


def get_player(player_id: str) -> Call[Profile]:
    return Call("lobby", "GET", f"/v1/players/{_p(player_id)}", _json(Profile))


def get_player_games(player_id: str, limit: int | None, cursor: str | None) -> Call[History]:
    params = _params(limit=limit, cursor=cursor)
    path = f"/v1/players/{_p(player_id)}/games"
    return Call("lobby", "GET", path, _json(History), params=params)


def get_leaderboard(
    game: str, provisional: bool, limit: int | None, cursor: str | None
) -> Call[Leaderboard]:
    params = _params(provisional=provisional or None, limit=limit, cursor=cursor)
    path = f"/v1/leaderboards/{_p(game)}"
    return Call("lobby", "GET", path, _json(Leaderboard), params=params)


def get_room(room_id: str) -> Call[Room]:
    return Call("lobby", "GET", f"/v1/rooms/{_p(room_id)}", _room)


def join_room(room_id: str, seat: int | None, invite_code: str | None = None) -> Call[Room]:
    body = _encode(JoinRoom(seat=seat, invite_code=invite_code))
    return Call("lobby", "POST", f"/v1/rooms/{_p(room_id)}/join", _room, body=body)


def leave_room(room_id: str) -> Call[Room]:
    return Call("lobby", "POST", f"/v1/rooms/{_p(room_id)}/leave", _room)


def add_bot(room_id: str, level: str, seat: int | None) -> Call[Room]:
    body = _encode(AddBot(level=level, seat=seat))
    return Call("lobby", "POST", f"/v1/rooms/{_p(room_id)}/bots", _room, body=body)


def start_room(room_id: str, fill_bots: str | None, fill: bool, wait: float) -> Call[Room]:
    """Without `fill_bots` no body is sent: the room's own fill level (else greedy) fills the
    empty seats; `fill=False` refuses to start with an empty seat (`seats_empty`)."""
    if not fill:
        body: bytes | None = _encode(StartRoom(fill_bots=None))
    else:
        body = None if fill_bots is None else _encode(StartRoom(fill_bots=fill_bots))
    params = _params(wait=wait or None)
    return Call("lobby", "POST", f"/v1/rooms/{_p(room_id)}/start", _room, params, body)


def rematch_room(room_id: str, bots_for_declined: bool = False) -> Call[Room]:
    """Repeatable: the first call offers the rematch, each later one accepts it."""
    body = _encode(Rematch(bots_for_declined=True)) if bots_for_declined else None
    path = f"/v1/rooms/{_p(room_id)}/rematch"
    return Call("lobby", "POST", path, _room, body=body, repeatable=True)


# -- lobby: invitations ---------------------------------------------------------------------


def invite_player(room_id: str, new: NewInvitation) -> Call[Invitation]:
    path = f"/v1/rooms/{_p(room_id)}/invitations"
    return Call("lobby", "POST", path, _json(Invitation), body=_encode(new), repeatable=True)


def get_room_invitations(room_id: str) -> Call[Invitations]:
    return Call("lobby", "GET", f"/v1/rooms/{_p(room_id)}/invitations", _json(Invitations))


def withdraw_invitation(room_id: str, player_id: str) -> Call[Invitation]:
    path = f"/v1/rooms/{_p(room_id)}/invitations/{_p(player_id)}"
    return Call("lobby", "DELETE", path, _json(Invitation))


def decline_invitation(room_id: str) -> Call[Invitation]:
    path = f"/v1/rooms/{_p(room_id)}/invitations/decline"
    return Call("lobby", "POST", path, _json(Invitation), repeatable=True)


def get_my_invitations() -> Call[Invitations]:
    return Call("lobby", "GET", "/v1/me/invitations", _json(Invitations))


# -- lobby: quick match ----------------------------------------------------------------------


def quick_match(new: NewMatch, wait: float) -> Call[Match]:
    """Repeatable: a second call with the same settings while waiting gives the same table."""
    params = _params(wait=wait or None)
    body = _encode(new)
    return Call("lobby", "POST", "/v1/match", _json(Match), params, body, repeatable=True)


def get_match() -> Call[Match]:
    return Call("lobby", "GET", "/v1/match", _json(Match))


def leave_match() -> Call[None]:
    return Call("lobby", "DELETE", "/v1/match", _nothing)


# -- game: playing ---------------------------------------------------------------------------


def get_game(
    game_id: str, min_version: int | None = None, legal_actions: bool = False
) -> Call[GameView]:
    include = "legal_actions" if legal_actions else None
    params = _params(min_version=min_version, include=include)
    return Call("game", "GET", f"/v1/games/{_p(game_id)}", _json(GameView), params)


def get_legal_actions(game_id: str, min_version: int | None = None) -> Call[LegalActions]:
    path = f"/v1/games/{_p(game_id)}/legal-actions"
    return Call("game", "GET", path, _json(LegalActions), _params(min_version=min_version))


def post_action(
    game_id: str, action: Mapping[str, Any], expected_version: int, idempotency_key: str | None
) -> Call[ActionAccepted]:
    body = _encode({"action": action, "expected_version": expected_version})
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    path = f"/v1/games/{_p(game_id)}/actions"
    return Call("game", "POST", path, _accepted, body=body, headers=headers, repeatable=True)


def resign(game_id: str) -> Call[ActionAccepted]:
    path = f"/v1/games/{_p(game_id)}/resign"
    return Call("game", "POST", path, _accepted, repeatable=True)  # a second is `replayed`


def claim(game_id: str, seat: int) -> Call[ActionAccepted]:
    body = _encode(Claim(seat=seat))
    path = f"/v1/games/{_p(game_id)}/claim"
    return Call("game", "POST", path, _accepted, body=body, repeatable=True)


def get_events(game_id: str, after: int, wait: float, limit: int | None) -> Call[EventFeed]:
    params = _params(after=after, wait=wait or None, limit=limit)
    return Call("game", "GET", f"/v1/games/{_p(game_id)}/events", _json(EventFeed), params)


def get_board_svg(game_id: str) -> Call[str]:
    return Call("game", "GET", f"/v1/games/{_p(game_id)}/board.svg", _text)


def _ndjson(content: bytes) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in content.splitlines() if line.strip()]


def get_game_record(game_id: str) -> Call[list[dict[str, Any]]]:
    """A finished game's record: its header, then one line a command (docs/api.md)."""
    return Call("game", "GET", f"/v1/games/{_p(game_id)}/record", _ndjson)


def get_game_map(game_id: str) -> Call[GameMap]:
    return Call("game", "GET", f"/v1/games/{_p(game_id)}/map", _json(GameMap))


def get_my_games(
    awaiting: bool,
    limit: int | None,
    cursor: str | None,
    status: Literal["active", "finished"] | None = None,
) -> Call[MyGames]:
    params = _params(awaiting=awaiting or None, limit=limit, cursor=cursor, status=status)
    return Call("game", "GET", "/v1/me/games", _json(MyGames), params)


def list_games(
    status: Literal["active", "finished"],
    game: str | None,
    limit: int | None,
    cursor: str | None,
) -> Call[WatchPage]:
    params = _params(status=status, game=game, limit=limit, cursor=cursor)
    return Call("game", "GET", "/v1/games", _json(WatchPage), params)


def post_chat(game_id: str, text: str) -> Call[ChatMessage]:
    """Repeatable: its Idempotency-Key makes a retry the same message."""
    body = _encode(NewChatMessage(text=text))
    path = f"/v1/games/{_p(game_id)}/chat"
    return Call("game", "POST", path, _json(ChatMessage), body=body, repeatable=True)


def get_chat(game_id: str, after: int, limit: int | None) -> Call[ChatPage]:
    params = _params(after=after or None, limit=limit)
    return Call("game", "GET", f"/v1/games/{_p(game_id)}/chat", _json(ChatPage), params)


def get_chat_settings() -> Call[ChatSettings]:
    return Call("game", "GET", "/v1/me/chat-settings", _json(ChatSettings))


def put_chat_settings(settings: ChatSettings) -> Call[ChatSettings]:
    body = _encode(settings)
    return Call(
        "game", "PUT", "/v1/me/chat-settings", _json(ChatSettings), body=body, repeatable=True
    )


def stream_game_events(game_id: str) -> str:
    """The path of the game's SSE stream (the clients' iterators read it: `stream`)."""
    return f"/v1/games/{_p(game_id)}/stream"


def stream_my_news() -> str:
    return "/v1/me/stream"


def stream(path: str, last_id: str | None) -> Call[None]:
    """Opens an SSE stream, resumed after `last_id` where given; read line by line."""
    headers = {"Last-Event-ID": last_id} if last_id is not None else {}
    return Call("game", "GET", path, _nothing, headers=headers)


# -- game: webhooks --------------------------------------------------------------------------


def create_webhook(hook: NewWebhook) -> Call[WebhookCreated]:
    body = _encode(hook)
    return Call("game", "POST", "/v1/me/webhooks", _json(WebhookCreated), body=body)


def list_webhooks() -> Call[Webhooks]:
    return Call("game", "GET", "/v1/me/webhooks", _json(Webhooks))


def delete_webhook(webhook_id: str) -> Call[None]:
    return Call("game", "DELETE", f"/v1/me/webhooks/{_p(webhook_id)}", _nothing)


def enable_webhook(webhook_id: str) -> Call[Webhook]:
    return Call("game", "POST", f"/v1/me/webhooks/{_p(webhook_id)}/enable", _webhook)


def list_webhook_deliveries(webhook_id: str, limit: int | None) -> Call[Deliveries]:
    path = f"/v1/me/webhooks/{_p(webhook_id)}/deliveries"
    return Call("game", "GET", path, _json(Deliveries), _params(limit=limit))


def test_webhook(webhook_id: str) -> Call[QueuedTest]:
    return Call("game", "POST", f"/v1/me/webhooks/{_p(webhook_id)}/test", _json(QueuedTest))
