"""Game service REST bodies (REST API v1)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec


def _component(name: str, description: str, items: bool = False) -> msgspec.Meta:
    """A field whose OpenAPI schema is a per-game component (services/game: `AnyAction`...).

    The game a game id names decides the type, so the wire type stays open; the OpenAPI
    document (and `GET /v1/catalog/{game}/schemas` of the lobby) say what it holds.
    """
    ref = {"$ref": f"#/components/schemas/{name}"}
    text = f"{description}: see the `{name}` schema"
    extra = {"items": ref} if items else {"one_of": [ref]}  # Litestar's schema_extra
    return msgspec.Meta(description=text, extra_json_schema={"description": text, "extra": extra})


def timestamp(moment: datetime) -> str:
    """One spelling for every time the API shows (RFC 3339, UTC as `Z`), as events have it."""
    return msgspec.json.encode(moment.astimezone(UTC)).decode()[1:-1]


class SeatInfo(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str
    name: str | None = None
    bot: str | None = None


Standing = Literal["playing", "resigned", "timed_out", "bot"]


class SeatStanding(msgspec.Struct, frozen=True, kw_only=True):
    """Who plays a seat now. `playing`: its person; `bot`: a bot from the start; `resigned`,
    `timed_out`: its person left or ran out of time and a bot of level `bot` plays it."""

    seat: int
    standing: Standing
    bot: str | None  # the level of the bot playing the seat now, None for its person


class SeatClock(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    deadline: str | None  # ISO 8601: when the seat's time runs out; null when not running
    bank_s: float | None  # what the seat's bank holds (time banks only), not counting now
    overdue: bool  # the deadline passed under policy `wait`: other players may claim


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    timing: dict[str, Any]  # the room's timing: per_move_s or bank_s/increment_s/cap_s, on_timeout
    seats: list[SeatClock]


_OUTCOME_DETAIL = (
    "The game's own words on the end (`reason`; itty-bitty's `penalties`, footprints'"
    " `parts` and `solo`...), and `forfeited`: the seats whose person resigned or timed out"
)


class GameOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """How a finished game ended, as its log's `game_over` says: `ranks[seat]` is 1 for the
    winners and ties share a rank; a seat whose person resigned or timed out is ranked below
    every other, whatever the bot that played it on scored."""

    scores: list[int]  # per seat, as the engine scored it
    ranks: list[int]
    winners: list[int]  # empty: nobody won (a draw, a solo game lost)
    tie_break: str | None = None  # what broke a tie of scores, if one did
    detail: Annotated[dict[str, Any], msgspec.Meta(description=_OUTCOME_DETAIL)] = {}


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    rating_before: float
    rating_after: float
    rating_change: float


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    version: int
    status: Literal["active", "finished"]
    seats: list[SeatInfo]
    to_act: list[int]
    your_seat: int | None
    view: Annotated[dict[str, Any], _component("AnyView", "The caller's view: `{public, private}`")]
    outcome: GameOutcome | None  # once finished
    standings: list[SeatStanding]
    clock: Clock | None  # null when the room has no clock
    rules_version: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            description="The version of the game's rules this game plays under: the one it "
            "began under, kept to its end whatever version new games get",
        ),
    ] = 1
    room_id: str | None = None  # the room it was started from
    # a finished game of a rated room, once the lobby has rated it (moments after the end):
    # each seat's rating (a bot's: its level's) before and after, and the change
    ratings: list[RatingChange] | None = None
    # `?at=N` on a finished game: its whole engine state at version N, every hand in it
    state: dict[str, Any] | None = None
    legal_actions: Annotated[
        LegalActions | None,
        msgspec.Meta(
            description="`?include=legal_actions`: the caller's legal actions at this view's "
            "version, as `.../legal-actions` answers them; null when not asked for or when "
            "the caller holds no seat"
        ),
    ] = None


class Claim(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seat: Annotated[int, msgspec.Meta(ge=0, le=64)]


class Unavailable(msgspec.Struct, frozen=True, kw_only=True):
    """An answer to the caller's question that the rules refuse now, and why: `type` is the
    action's type (`accept_trade`), `code` and `message` what posting it would get (422)."""

    type: Annotated[str, msgspec.Meta(description="The answer's action type (`accept_trade`)")]
    code: Annotated[str, msgspec.Meta(description="The rule's code, as posting it would get")]
    message: Annotated[str, msgspec.Meta(description="Why, for a person to read")]


_UNAVAILABLE = (
    "Answers to the caller's question missing from `actions` because the rules refuse them"
    " now, each with why (a trade's responder without the cards asked: `decline_trade` is"
    " listed alone, `accept_trade` here)"
)


_ACTIONS = (
    'Each postable as-is, with its `text` for a person to read ("Take ittybit-4229 (Alien,'
    ' Earring) from the market"), which a posted action may keep or leave out'
)
_EVENT_TEXT = (
    "The event in words, made from this copy alone: what the caller may not see, it does not"
    ' say ("Ada completed a collector for 3 coins")'
)


_LEGAL_STANDING = (
    "Who plays the caller's seat now (as the view's `standings`): `playing`, its person, and"
    " the actions are theirs; `resigned` or `timed_out`, a bot plays it to the end, and"
    " `actions` and `unavailable` are empty (a post would be 409 `seat_played_by_bot`). Under"
    " `bot_takeover` they are empty too once the seat's deadline passed, `playing` until the"
    " takeover is recorded (a post would be 409 `deadline_passed`)"
)


class LegalActions(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    seat: int
    actions: Annotated[list[Any], _component("DescribedAction", _ACTIONS, items=True)]
    unavailable: Annotated[list[Unavailable], msgspec.Meta(description=_UNAVAILABLE)]
    standing: Annotated[Standing, msgspec.Meta(description=_LEGAL_STANDING)] = "playing"


class PostAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    action: Annotated[
        dict[str, Any], _component("AnyAction", "One of the game's actions, by `type`")
    ]
    expected_version: Annotated[int, msgspec.Meta(ge=0, le=2**62)]


class FeedEvent(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    type: str
    data: Annotated[Any, _component("AnyEvent", "The event as the caller may see it")]
    seat: int | None  # the seat whose action produced it, None for the set-up
    recorded_at: str
    text: Annotated[str, msgspec.Meta(description=_EVENT_TEXT)]


class ActionAccepted(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    events: list[FeedEvent]
    replayed: bool = False  # true when an Idempotency-Key matched an earlier command


class EventFeed(msgspec.Struct, frozen=True, kw_only=True):
    """Events after `after`, and where the game stands now, so a client needs no second GET."""

    events: list[FeedEvent]
    last_version: int  # of the last event here (`after` when there is none)
    version: int  # the game's version now
    has_more: bool  # more events after last_version: read again with after=last_version
    status: Literal["active", "finished"]
    to_act: list[int]
    your_turn: bool  # the caller must act now (a bot playing their seat does not count)
    outcome: GameOutcome | None  # once finished


class GameMap(msgspec.Struct, frozen=True, kw_only=True):
    # `GET /v1/games/{id}/map` (services/game/maps.py); a comment, not a docstring, which
    # would become the OpenAPI component's description
    id: str
    game: str
    map: Annotated[dict[str, Any], _component("AnyMap", "The map as it was laid at setup")]


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    version: int
    status: Literal["active", "finished"]
    your_seat: int
    to_act: list[int]
    your_turn: bool  # you must act (a bot playing your seat does not count)
    deadline: str | None  # ISO 8601: when your time runs out, if your clock runs


class WatchedGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game anyone may watch (its room is not unlisted): read it with GET /v1/games/{id}
    (the spectator's view) and follow it with /v1/games/{id}/stream."""

    id: str
    game: str
    title: str  # the game's display name
    room_id: str | None
    seats: list[SeatInfo]
    version: int
    status: Literal["active", "finished"]
    to_act: list[int]
    started_at: str | None  # RFC 3339, Z


class WatchPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[WatchedGame]
    next: str | None = None  # pass as `cursor` for the next page; null on the last


CHAT_MAX_CHARS = 500
MUTED_AT_MOST = 500
# a player's id as the lobby makes them (`p-<uuid>`, `bot-<uuid>`), or a test's
PLAYER_ID = r"^[A-Za-z0-9_.:-]{1,64}$"


class NewChatMessage(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Plain text, 1 to 500 characters (not all blank; no NUL), served back as sent: never
    markup, whatever it looks like."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=CHAT_MAX_CHARS)]


class ChatMessage(msgspec.Struct, frozen=True, kw_only=True):
    version: int  # the game's version it was said at (its event's)
    channel: Literal["players", "spectators"]
    player_id: str
    name: str
    seat: int | None  # null: a spectator
    text: str  # plain text: show it as text, never as markup
    at: str  # RFC 3339, Z


class ChatPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[ChatMessage]  # oldest first
    next_after: int | None  # pass as `after` for the next page; null on the last


class ChatSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the caller reads of table chats: never the messages of `muted` players, and with
    `hide_spectators` not the spectators' channel (everywhere: feeds, streams, records)."""

    # players' ids (`p-…`: letters, digits, `_.:-`, up to 64; else 422 invalid_player_id)
    muted: Annotated[list[str], msgspec.Meta(max_length=MUTED_AT_MOST)] = []
    hide_spectators: bool = False


class MyGames(msgspec.Struct, frozen=True, kw_only=True):
    items: list[GameSummary]
    next: str | None = None  # pass as `cursor` for the next page; null on the last
