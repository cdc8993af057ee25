"""The blocking client: every route of the lobby and the game service, typed by `contracts`."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, TypeVar

import httpx
import msgspec

from contracts.game import (
    ActionAccepted,
    ChatMessage,
    ChatPage,
    ChatSettings,
    EventFeed,
    FeedEvent,
    GameMap,
    GameView,
    LegalActions,
    MyGames,
    WatchPage,
)
from contracts.lobby import (
    INVITE_DEFAULT_S,
    MATCH_WAIT_DEFAULT_S,
    Catalog,
    GameContent,
    GameSchemas,
    Invitation,
    Invitations,
    Match,
    NewInvitation,
    NewMatch,
    NewRoom,
    PlayerCreated,
    Room,
    RoomPage,
    RoomStatus,
    Timing,
    Visibility,
)
from contracts.notifications import (
    Deliveries,
    NewWebhook,
    Notification,
    NotificationType,
    QueuedTest,
    RoomNews,
    Webhook,
    WebhookCreated,
    Webhooks,
)
from contracts.players import History, Leaderboard, Profile
from turnpost.client import routes
from turnpost.client.errors import (
    StaleQuestion,
    StaleVersion,
    StreamLost,
    Unprocessable,
    error_for,
)
from turnpost.client.policy import GAME_URL, LOBBY_URL, Policy, my_turn
from turnpost.client.routes import Call
from turnpost.client.sse import Frame, Frames

T = TypeVar("T")
Decide = Callable[[GameView, LegalActions], Mapping[str, Any] | None]
_feed_event = msgspec.json.Decoder(FeedEvent)


class Client:
    """A player's connection to Turnpost: `register` (or pass a `token`), then call routes.

    Each method is a route, named after its `operationId`; answers are the contracts' Structs
    and problems raise `ApiError` subclasses. A 429 is retried after its `Retry-After` (at
    most `policy.rate_limit_retries` times, each wait at most `policy.max_retry_after` s);
    `play` re-reads and decides again on a 409 `stale_version`. POSTs carry an
    `Idempotency-Key` (made when not given), the same on every retry of one request.
    """

    def __init__(
        self,
        lobby: str = LOBBY_URL,
        game: str = GAME_URL,
        token: str | None = None,
        *,
        policy: Policy | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.urls = {"lobby": lobby.rstrip("/"), "game": game.rstrip("/")}
        self.token = token
        self.policy = policy or Policy()
        self._http = http or httpx.Client(timeout=self.policy.timeout)
        self._owns_http = http is None

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- sending -----------------------------------------------------------------------------

    def call(self, call: Call[T]) -> T:
        """Send one route's call (with the 429 retries) and decode its answer."""
        response = self._send(call)
        return call.read(response.content)

    def _send(
        self, call: Call[Any], *, stream: bool = False, limits: httpx.Timeout | None = None
    ) -> httpx.Response:
        """Send, and again after a 429's (or 503's) Retry-After: the same request, its key."""
        request = self._http.build_request(
            call.method,
            self.urls[call.service] + call.path,
            params=call.params,
            content=call.body,
            headers=self.policy.headers(self.token, call.method, call.body, call.headers),
            timeout=limits or self._http.timeout,
        )
        attempt = 0
        while True:
            response = self._http.send(request, stream=stream)
            if response.status_code < 400:
                return response
            if stream:
                response.read()
                response.close()
            wait = self.policy.wait_for(response, attempt, call.idempotent)
            if wait is None:
                raise error_for(response)
            attempt += 1
            time.sleep(wait)

    # -- lobby: players and tokens -----------------------------------------------------------

    def create_player(self, name: str) -> PlayerCreated:
        return self.call(routes.create_player(name))

    def register(self, name: str) -> PlayerCreated:
        """`create_player`, and act as that player from now on."""
        player = self.create_player(name)
        self.token = player.token
        return player

    def issue_token(self) -> PlayerCreated:
        return self.call(routes.issue_token())

    def end_other_tokens(self) -> None:
        return self.call(routes.end_other_tokens())

    # -- lobby: catalog and rooms ------------------------------------------------------------

    def get_catalog(self) -> Catalog:
        return self.call(routes.get_catalog())

    def get_game_content(self, game: str) -> GameContent:
        return self.call(routes.get_game_content(game))

    def get_game_schemas(self, game: str) -> GameSchemas:
        return self.call(routes.get_game_schemas(game))

    def create_room(
        self,
        game: str,
        seats: int,
        *,
        options: Mapping[str, Any] | None = None,
        timing: Timing | None = None,
        fill_with_bots_after_s: int | None = None,
        fill_level: str | None = None,
        auto_start: bool = False,
        rated: bool = True,
        visibility: Visibility = "public",
    ) -> Room:
        room = NewRoom(
            game=game,
            seats=seats,
            options=dict(options or {}),
            timing=timing or Timing(),
            fill_with_bots_after_s=fill_with_bots_after_s,
            fill_level=fill_level,
            auto_start=auto_start,
            rated=rated,
            visibility=visibility,
        )
        return self.call(routes.create_room(room))

    def get_my_rooms(
        self,
        status: RoomStatus | None = None,
        *,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> RoomPage:
        """Rooms I host or sit in, newest first."""
        return self.call(routes.get_my_rooms(status, limit, cursor))

    def get_me(self) -> Profile:
        """Who I am: per game, games played, won and current, and my rating."""
        return self.call(routes.get_me())

    def rename_me(self, name: str) -> Profile:
        return self.call(routes.rename_me(name))

    def get_player(self, player_id: str) -> Profile:
        return self.call(routes.get_player(player_id))

    def get_player_games(
        self, player_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> History:
        """A player's finished games, newest first, with ranks and rating changes."""
        return self.call(routes.get_player_games(player_id, limit, cursor))

    def get_leaderboard(
        self,
        game: str,
        *,
        provisional: bool = False,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Leaderboard:
        return self.call(routes.get_leaderboard(game, provisional, limit, cursor))

    def list_rooms(
        self,
        game: str | None = None,
        status: RoomStatus | None = None,
        *,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> RoomPage:
        return self.call(routes.list_rooms(game, status, limit, cursor))

    def get_room(self, room_id: str) -> Room:
        return self.call(routes.get_room(room_id))

    def join_room(
        self, room_id: str, seat: int | None = None, *, invite_code: str | None = None
    ) -> Room:
        """A seat: the one named, the one held for you (accepting an invitation), or the
        first free; an unlisted room wants its `invite_code`."""
        return self.call(routes.join_room(room_id, seat, invite_code))

    def leave_room(self, room_id: str) -> Room:
        return self.call(routes.leave_room(room_id))

    def add_bot(self, room_id: str, level: str, seat: int | None = None) -> Room:
        return self.call(routes.add_bot(room_id, level, seat))

    def start_room(
        self, room_id: str, fill_bots: str | None = None, *, fill: bool = True, wait: float = 0
    ) -> Room:
        """Start (host); with `wait` the answer comes once the game exists (`game_id` set)."""
        return self.call(routes.start_room(room_id, fill_bots, fill, wait))

    def rematch_room(self, room_id: str, *, bots_for_declined: bool = False) -> Room:
        """The first call offers the rematch to the others; a later one accepts it. It starts
        once every seat is taken; `bots_for_declined`: a bot takes a decliner's seat."""
        return self.call(routes.rematch_room(room_id, bots_for_declined))

    # -- lobby: invitations -----------------------------------------------------------------

    def invite_player(
        self,
        room_id: str,
        player_id: str,
        *,
        seat: int | None = None,
        expires_after_s: int = INVITE_DEFAULT_S,
    ) -> Invitation:
        """Hold a seat of your room for `player_id` (host); they accept by joining."""
        new = NewInvitation(player_id=player_id, seat=seat, expires_after_s=expires_after_s)
        return self.call(routes.invite_player(room_id, new))

    def get_room_invitations(self, room_id: str) -> Invitations:
        return self.call(routes.get_room_invitations(room_id))

    def withdraw_invitation(self, room_id: str, player_id: str) -> Invitation:
        return self.call(routes.withdraw_invitation(room_id, player_id))

    def decline_invitation(self, room_id: str) -> Invitation:
        return self.call(routes.decline_invitation(room_id))

    def get_my_invitations(self) -> Invitations:
        return self.call(routes.get_my_invitations())

    # -- lobby: quick match ------------------------------------------------------------------

    def quick_match(
        self,
        game: str,
        *,
        seats: int | None = None,
        options: Mapping[str, Any] | None = None,
        timing: Timing | None = None,
        rated: bool = True,
        fill_with_bots_after_s: int = MATCH_WAIT_DEFAULT_S,
        fill_level: str | None = None,
        wait: float = 0,
    ) -> Match:
        """A seat at a waiting table with these settings, or a new one; with `wait` the
        answer comes once the game exists (`matched`, `game_id`) or after `wait` seconds."""
        new = NewMatch(
            game=game,
            seats=seats,
            options=dict(options or {}),
            timing=timing or Timing(),
            rated=rated,
            fill_with_bots_after_s=fill_with_bots_after_s,
            fill_level=fill_level,
        )
        return self.call(routes.quick_match(new, wait))

    def get_match(self) -> Match:
        """The table the caller waits at (or the newest one playing)."""
        return self.call(routes.get_match())

    def leave_match(self) -> None:
        """Leave every quick-match table still waiting."""
        self.call(routes.leave_match())

    # -- game: reading and playing -----------------------------------------------------------

    def get_game(
        self, game_id: str, *, min_version: int | None = None, legal_actions: bool = False
    ) -> GameView:
        """`min_version`: the newest version of the game you have seen (the answer is at
        least that recent, and the service may give it without reading its store).
        `legal_actions`: the caller's legal actions at the view's version in the same answer
        (`view.legal_actions`; None when the caller holds no seat)."""
        return self.call(routes.get_game(game_id, min_version, legal_actions))

    def get_legal_actions(self, game_id: str, *, min_version: int | None = None) -> LegalActions:
        return self.call(routes.get_legal_actions(game_id, min_version))

    def post_action(
        self,
        game_id: str,
        action: Mapping[str, Any],
        expected_version: int,
        *,
        idempotency_key: str | None = None,
    ) -> ActionAccepted:
        key = idempotency_key or str(uuid.uuid4())
        return self.call(routes.post_action(game_id, action, expected_version, key))

    def resign(self, game_id: str) -> ActionAccepted:
        return self.call(routes.resign(game_id))

    def claim(self, game_id: str, seat: int) -> ActionAccepted:
        return self.call(routes.claim(game_id, seat))

    def get_events(
        self, game_id: str, after: int = 0, *, wait: float = 0, limit: int | None = None
    ) -> EventFeed:
        timeout = httpx.Timeout(self.policy.timeout + wait)  # a long-poll outlasts `timeout`
        call = routes.get_events(game_id, after, wait, limit)
        return call.read((self._send(call, limits=timeout)).content)

    def get_board_svg(self, game_id: str) -> str:
        return self.call(routes.get_board_svg(game_id))

    def get_game_record(self, game_id: str) -> list[dict[str, Any]]:
        """A finished game's whole log, nothing hidden: its header, then one line a command
        (`python -m games.replay` replays it); 409 `game_not_finished` before the end."""
        return self.call(routes.get_game_record(game_id))

    def get_game_map(self, game_id: str) -> GameMap:
        return self.call(routes.get_game_map(game_id))

    def get_my_games(
        self,
        *,
        awaiting: bool = False,
        limit: int | None = None,
        cursor: str | None = None,
        status: Literal["active", "finished"] | None = None,
    ) -> MyGames:
        return self.call(routes.get_my_games(awaiting, limit, cursor, status))

    def list_games(
        self,
        *,
        status: Literal["active", "finished"] = "active",
        game: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> WatchPage:
        """Games anyone may watch (no unlisted room's), newest first: being played, or over."""
        return self.call(routes.list_games(status, game, limit, cursor))

    # -- game: table chat --------------------------------------------------------------------

    def post_chat(self, game_id: str, text: str) -> ChatMessage:
        """Say `text` (plain text, up to 500 characters) at the table."""
        return self.call(routes.post_chat(game_id, text))

    def get_chat(self, game_id: str, *, after: int = 0, limit: int | None = None) -> ChatPage:
        """The game's chat after version `after`, oldest first (without what you muted)."""
        return self.call(routes.get_chat(game_id, after, limit))

    def get_chat_settings(self) -> ChatSettings:
        return self.call(routes.get_chat_settings())

    def put_chat_settings(
        self, *, muted: list[str] | None = None, hide_spectators: bool = False
    ) -> ChatSettings:
        """Mute players and hide the spectators' channel, for yourself, in every game."""
        settings = ChatSettings(muted=list(muted or []), hide_spectators=hide_spectators)
        return self.call(routes.put_chat_settings(settings))

    def play(
        self,
        game_id: str,
        decide: Decide,
        *,
        attempts: int | None = None,
        min_version: int | None = None,
    ) -> ActionAccepted | None:
        """Read the game with the legal actions, post what `decide` chooses against their version.

        On 409 `stale_version` (the game moved meanwhile), 422 `stale_question` (the
        question answered is no longer the one asked) or any 422 to a move posted as it was
        listed (the listing changed under it: a replica of another release, during a rolling
        upgrade) read both again and decide again, up to `attempts` times (then the last of
        those errors is raised); a 422 to a move of the caller's own making is raised at once. Each decision has its
        own Idempotency-Key, kept when a lost connection makes the same post again. None
        (nothing posted) when `decide` returns None or there is nothing to play.
        `min_version`: the newest version of the game you have seen (see `get_game`).
        """
        last: StaleVersion | Unprocessable | None = None
        seen = min_version  # then, after a 409, the version it named
        for _ in range(max(1, attempts or self.policy.play_attempts)):
            view = self.get_game(game_id, min_version=seen, legal_actions=True)
            # one request for both; a service of an older release answers without them
            legal = view.legal_actions or self.get_legal_actions(game_id, min_version=view.version)
            if view.status == "finished" or not legal.actions:
                return None
            action = decide(view, legal)
            if action is None:
                return None
            try:
                return self._post_decision(game_id, action, legal.version)
            except StaleVersion as stale:
                last, seen = stale, stale.current_version
            except StaleQuestion as stale:
                last = stale
            except Unprocessable as refused:
                if action not in legal.actions:
                    raise  # the caller's own move, refused by the rules
                # a move as listed, refused: the listing changed under it (a replica of another
                # release answered, during a rolling upgrade): read again and decide anew
                last = refused
        assert last is not None
        raise last

    def _post_decision(
        self, game_id: str, action: Mapping[str, Any], version: int
    ) -> ActionAccepted:
        key = str(uuid.uuid4())
        for attempt in range(self.policy.transport_retries + 1):
            try:
                return self.post_action(game_id, action, version, idempotency_key=key)
            except httpx.TransportError:
                if attempt == self.policy.transport_retries:
                    raise
                time.sleep(self.policy.pause(attempt))
        raise AssertionError("unreachable")

    def turns(self, game_id: str, *, wait: float = 30) -> Iterator[GameView]:
        """Yields the game each time the caller must act, until it is finished; between
        turns it long-polls `/events` (the caller's own move is news: it returns at once)."""
        seen: int | None = None
        while True:
            view = self.get_game(game_id, min_version=seen)
            if view.status == "finished":
                return
            if my_turn(view):
                yield view
            seen = self.get_events(game_id, view.version, wait=wait).version

    def play_to_end(self, game_id: str, decide: Decide, *, wait: float = 30) -> GameView:
        """`play` each turn of the caller's until the game is finished; the final game."""
        for view in self.turns(game_id, wait=wait):
            self.play(game_id, decide, min_version=view.version)
        return self.get_game(game_id)

    # -- game: following ---------------------------------------------------------------------

    def iter_events(self, game_id: str, after: int = 0, *, wait: float = 30) -> Iterator[FeedEvent]:
        """Every event after `after` by long-polling `/events`, until the game is finished."""
        more = False
        while True:
            feed = self.get_events(game_id, after, wait=0 if more else wait)
            yield from feed.events
            after, more = feed.last_version, feed.has_more
            if feed.status == "finished" and not more:
                return

    def stream_game_events(self, game_id: str, after: int = 0) -> Iterator[FeedEvent]:
        """The game's SSE stream: each event as it is appended, until the game is finished.

        A dropped connection is resumed from the last event seen (`Last-Event-ID`); after
        `policy.reconnects` + 1 connections in a row that bring nothing it raises
        `StreamLost` (the iterator ends normally only when the game is finished).
        """
        path = routes.stream_game_events(game_id)
        for frame in self._frames(path, str(after)):
            yield _feed_event.decode(frame.data)

    def stream_my_news(self) -> Iterator[Notification | RoomNews]:
        """The caller's news across their games (SSE), live: `your_turn`, `game_finished`...

        Never ends: a lost connection is opened again, and `policy.reconnects` + 1 in a row
        that bring nothing (each closed or failed) raise `StreamLost`."""
        for frame in self._frames(routes.stream_my_news(), None):
            yield routes.decode_news(frame.data)

    def _frames(self, path: str, last_id: str | None) -> Iterator[Frame]:
        """The stream's frames; a lost connection is opened again, resumed after the last
        frame's id (`Last-Event-ID`) where the stream gives ids."""
        idle = 0  # connections in a row that brought nothing
        lost: httpx.TransportError | None = None  # the last of them that failed
        while True:
            got = False
            try:
                call = routes.stream(path, last_id)
                response = self._send(call, stream=True, limits=self.policy.stream_timeout())
                try:
                    if response.status_code == 204:  # finished, and nothing left to read
                        return
                    frames = Frames()
                    for line in response.iter_lines():
                        if (frame := frames.line(line)) is not None:
                            got, last_id = True, frame.id or last_id
                            yield frame
                finally:
                    response.close()
            except httpx.TransportError as error:
                lost = error
            idle, lost = (0, None) if got else (idle + 1, lost)
            if idle > self.policy.reconnects:
                raise StreamLost(path, idle, lost) from lost
            time.sleep(self.policy.pause(idle))

    # -- game: webhooks ----------------------------------------------------------------------

    def create_webhook(
        self, url: str, events: list[NotificationType], game_id: str | None = None
    ) -> WebhookCreated:
        return self.call(routes.create_webhook(NewWebhook(url=url, events=events, game_id=game_id)))

    def list_webhooks(self) -> Webhooks:
        return self.call(routes.list_webhooks())

    def delete_webhook(self, webhook_id: str) -> None:
        return self.call(routes.delete_webhook(webhook_id))

    def enable_webhook(self, webhook_id: str) -> Webhook:
        return self.call(routes.enable_webhook(webhook_id))

    def list_webhook_deliveries(self, webhook_id: str, limit: int | None = None) -> Deliveries:
        return self.call(routes.list_webhook_deliveries(webhook_id, limit))

    def test_webhook(self, webhook_id: str) -> QueuedTest:
        return self.call(routes.test_webhook(webhook_id))
