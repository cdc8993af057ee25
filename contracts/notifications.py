"""What a player is told about their games: webhooks' bodies and `/v1/me/stream`'s events.

One notification names one seat of one game at one version. It is derived from the games
stream's envelopes and the clock projection (infra/notify/derive.py), never from an
event's data, so it holds nothing a seat may not see: no card, no view, no other seat's
anything. A client reads the game itself through `links`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.game import RatingChange

# News of a player's games (Notification): from the games stream and the clocks
GameNewsType = Literal["your_turn", "deadline_soon", "game_started", "game_finished", "match_found"]
# News of a room (RoomNews): from the lobby
RoomNewsType = Literal["invited", "rematch_offered"]
# Every kind of news a webhook may ask for, and /v1/me/stream tells
NotificationType = Literal[
    "your_turn",
    "deadline_soon",
    "game_started",
    "game_finished",
    "match_found",
    "invited",
    "rematch_offered",
]
NOTIFICATION_TYPES: tuple[NotificationType, ...] = (
    "your_turn",
    "deadline_soon",
    "game_started",
    "game_finished",
    "match_found",
    "invited",
    "rematch_offered",
)
ROOM_NEWS_TYPES: tuple[RoomNewsType, ...] = ("invited", "rematch_offered")


class Links(msgspec.Struct, frozen=True, kw_only=True):
    """Paths on the game service (relative to its base URL)."""

    game: str  # GET: the player's view of the game
    legal_actions: str  # GET: what the player may post now


class GameResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a game ended, as its log's `game_over` event says and the game's view gives it
    (`outcome`): a seat whose person resigned or timed out is ranked below every other,
    whatever the bot that played it on scored. Public: every seat sees the same."""

    winners: list[int]  # empty: nobody won (a draw, a solo game lost)
    ranks: list[int]  # per seat, 1 for the winners; ties share a rank
    scores: list[int]  # per seat, as the engine scored it (a forfeit's bot's points included)
    forfeited: list[int]  # the seats whose person resigned or timed out


class Notification(msgspec.Struct, frozen=True, kw_only=True):
    """`player_id`'s seat in `game_id` has news: it must act (`your_turn`), its deadline is
    near (`deadline_soon`), the game began (`game_started`; and `match_found` when a quick
    match's table made it) or ended (`game_finished`)."""

    type: GameNewsType
    game_id: str
    game: str  # the game's key, e.g. "itty-bitty"
    title: str  # the game's display name, as the catalog shows it
    version: int  # the game's version the news is about
    seat: int
    player_id: str
    deadline: str | None = None  # the seat's deadline (RFC 3339, Z), if its clock runs
    links: Links
    # game_finished: the result (null for other news, and for a game whose log has no
    # game_over: one that ended before the event existed; its view still has the outcome)
    outcome: GameResult | None = None
    # game_finished of a rated room's game: each seat's rating (a bot's: its level's) before
    # and after, and the change, as the finished game's view and the history give them
    ratings: list[RatingChange] | None = None
    # When the game's log recorded the event at `version` this news follows (RFC 3339, Z);
    # null for deadline_soon. With the version it names that event even after the service's
    # database was restored to an earlier moment, where the version comes again with other
    # moves: news of those is other news (docs/operations-backup.md).
    recorded_at: str | None = None

    def key(self) -> str:
        """What makes it one notification: the same news derived twice has the same key
        (a redelivered envelope, two notifiers), so a delivery can be made once per key;
        news of another event at the same version (a restored database's) has another."""
        if self.type == "deadline_soon":  # once per deadline, whatever the version
            return f"{self.type}:{self.game_id}:{self.seat}:{self.deadline}"
        key = f"{self.type}:{self.game_id}:{self.seat}:{self.version}"
        return f"{key}:{self.recorded_at}" if self.recorded_at else key


def links_for(game_id: str) -> Links:
    return Links(game=f"/v1/games/{game_id}", legal_actions=f"/v1/games/{game_id}/legal-actions")


# -- webhooks: what is sent, and the REST bodies of /v1/me/webhooks -----------------------

MAX_URL_LENGTH = 2048


class WebhookPayload(msgspec.Struct, frozen=True, kw_only=True):
    """A delivery's body, shaped as Standard Webhooks suggests: the type, when the news was
    derived (the same on every retry: the body is signed anew, never changed), the news."""

    type: GameNewsType
    timestamp: str  # RFC 3339, Z
    data: Notification


class RoomLinks(msgspec.Struct, frozen=True, kw_only=True):
    """Paths on the lobby (relative to its base URL)."""

    room: str  # GET: the room; POST …/join accepts an invitation or a rematch's seat
    answer: str  # POST: decline (an invitation) or answer (a rematch offer)


class RoomNews(msgspec.Struct, frozen=True, kw_only=True):
    """`player_id` is asked to a room: invited to a seat the host reserved for them
    (`invited`: accept by joining, or decline, before `expires_at`), or offered the rematch of
    a finished room by another of its players (`rematch_offered`: accept or decline). From
    the lobby, after the change is committed; nothing of any game's hidden state."""

    type: RoomNewsType
    room_id: str
    game: str  # the game's key
    title: str  # the game's display name
    player_id: str  # who is told
    seat: int | None  # the seat held for them
    by: str  # who invited, or offered (a player id)
    by_name: str
    expires_at: str | None = None  # RFC 3339, Z: the seat is no longer held after it
    created_at: str  # RFC 3339, Z: when it was asked (with the room, names this news)
    links: RoomLinks

    def key(self) -> str:
        return f"{self.type}:{self.room_id}:{self.player_id}:{self.created_at}"


class RoomWebhookPayload(msgspec.Struct, frozen=True, kw_only=True):
    """A delivery's body for a room's news (`invited`, `rematch_offered`)."""

    type: RoomNewsType
    timestamp: str  # RFC 3339, Z
    data: RoomNews


AnyNews = Notification | RoomNews


class WebhookTestData(msgspec.Struct, frozen=True, kw_only=True):
    webhook_id: str
    player_id: str


class WebhookTest(msgspec.Struct, frozen=True, kw_only=True):
    """The body of POST /v1/me/webhooks/{id}/test's delivery."""

    type: Literal["webhook_test"] = "webhook_test"
    timestamp: str
    data: WebhookTestData


class NewWebhook(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    url: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=MAX_URL_LENGTH,
            description="https URL that receives the notifications (POST, signed)",
        ),
    ]
    events: Annotated[
        list[NotificationType],
        msgspec.Meta(min_length=1, max_length=7, description="the notifications it receives"),
    ]
    game_id: (
        Annotated[
            str,
            msgspec.Meta(max_length=64, description="one game only; absent: every game of yours"),
        ]
        | None
    ) = None


class Webhook(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    url: str
    events: list[NotificationType]
    game_id: str | None
    created_at: str
    disabled: bool
    disabled_at: str | None
    disabled_reason: str | None
    failing_since: str | None  # its first failed attempt since the last success


class WebhookCreated(Webhook, frozen=True, kw_only=True):
    secret: Annotated[
        str,
        msgspec.Meta(
            description="whsec_…: verifies the signatures (Standard Webhooks); shown only here"
        ),
    ]


class Webhooks(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Webhook]


class Attempt(msgspec.Struct, frozen=True, kw_only=True):
    attempt: int
    at: str
    status_code: int | None  # the receiver's answer; null when none came
    latency_ms: float
    error: str | None  # null: delivered


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # the webhook-id header, the same on every attempt
    type: str
    game_id: str | None
    created_at: str
    status: Literal["pending", "delivered", "failed"]
    attempts: list[Attempt]


class Deliveries(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Delivery]  # newest first


class QueuedTest(msgspec.Struct, frozen=True, kw_only=True):
    delivery_id: str
