"""Lobby REST bodies (REST API v1)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

RoomStatus = Literal["open", "starting", "playing", "finished", "cancelled"]
Visibility = Literal["public", "unlisted"]


Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]*$")]


class NewPlayer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name


class PlayerCreated(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    token: str


OnTimeout = Literal["bot_move", "bot_takeover", "wait"]
# From 5 seconds (tests, blitz) to 90 days (correspondence).
ClockSeconds = Annotated[int, msgspec.Meta(ge=5, le=90 * 86400)]


class Timing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A room's clock: none (default), a per-move limit, or a time bank with an increment.

    `on_timeout`: `bot_move` (a bot makes that one move, the person keeps the seat),
    `bot_takeover` (a bot of the room's fill level plays the seat to the end), or `wait`
    (nothing automatic; the other players may claim the seat once its deadline passed).
    """

    per_move_s: ClockSeconds | None = None
    bank_s: ClockSeconds | None = None
    increment_s: Annotated[int, msgspec.Meta(ge=0, le=90 * 86400)] = 0
    cap_s: ClockSeconds | None = None
    on_timeout: OnTimeout = "bot_move"

    @property
    def clocked(self) -> bool:
        return self.per_move_s is not None or self.bank_s is not None

    def problem(self) -> str | None:
        """Why these settings do not make one clock, or None."""
        if self.per_move_s is not None and self.bank_s is not None:
            return "choose per_move_s or bank_s, not both"
        if self.bank_s is None and (self.increment_s or self.cap_s is not None):
            return "increment_s and cap_s go with bank_s"
        if self.bank_s is not None and self.cap_s is not None and self.cap_s < self.bank_s:
            return "cap_s is at least bank_s"
        if self.bank_s is not None and self.on_timeout == "bot_move" and not self.increment_s:
            # a timeout empties the bank: without an increment every later turn would time
            # out at once, and the bot would play the seat for good while it shows `playing`
            return "a bank with on_timeout bot_move needs increment_s, to refill after a timeout"
        return None


# From 5 seconds (tests) to 30 days. The bounds are checked by `fill_problem` rather than on
# decoding, so a value out of range is 422 `invalid_fill` instead of a generic 400; `extra`
# shows them in the OpenAPI document all the same.
FILL_AFTER_MIN_S, FILL_AFTER_MAX_S = 5, 30 * 86400
FillAfter = Annotated[
    int,
    msgspec.Meta(
        description="Seconds without a join after which bots take the empty seats "
        "(5 s to 30 days; null: never)",
        extra_json_schema={"extra": {"minimum": FILL_AFTER_MIN_S, "maximum": FILL_AFTER_MAX_S}},
    ),
]
FillLevel = Annotated[
    str,
    msgspec.Meta(
        max_length=32,
        description="Level of the bots of the timed fill (default greedy; see bot_levels in "
        "the catalog); with fill_with_bots_after_s only",
    ),
]
AutoStart = Annotated[
    bool,
    msgspec.Meta(description="The timed fill also starts the room; else the host starts it"),
]
DueAt = Annotated[
    str,
    msgspec.Meta(
        description="When the timed fill falls due unless someone joins first (RFC 3339, UTC)",
        extra_json_schema={"extra": {"format": "date-time"}},
    ),
]


class NewRoom(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """`fill_with_bots_after_s`: after that many seconds without a join, the empty seats get
    bots of `fill_level` (default `greedy`), and with `auto_start` the room starts."""

    game: Annotated[str, msgspec.Meta(max_length=64)]
    seats: Annotated[int, msgspec.Meta(ge=1, le=64)]
    options: dict[str, Any] = {}
    timing: Timing = Timing()
    fill_with_bots_after_s: FillAfter | None = None
    fill_level: FillLevel | None = None
    auto_start: AutoStart = False
    # a rated room's finished game moves its players' and bot levels' ratings (the default:
    # every room is public; docs/api.md, "Ratings"). A body leaves out what is at its default
    # (omit_defaults): a client of this release still creates rooms at a lobby of the last.
    rated: bool = True
    # `unlisted`: not in GET /v1/rooms; joined with the room's `invite_code` (or an invitation)
    visibility: Visibility = "public"

    def fill_problem(self) -> str | None:
        """Why these fill settings do not go together, or None."""
        after = self.fill_with_bots_after_s
        if after is None:
            if self.auto_start:
                return "auto_start goes with fill_with_bots_after_s"
            if self.fill_level is not None:
                return "fill_level goes with fill_with_bots_after_s (a start names its own)"
            return None
        if not FILL_AFTER_MIN_S <= after <= FILL_AFTER_MAX_S:
            return (
                f"fill_with_bots_after_s is {FILL_AFTER_MIN_S} to {FILL_AFTER_MAX_S} seconds"
                f" (30 days), or null for never; not {after}"
            )
        return None


# `extra`: Litestar's OpenAPI drops a minimum of 0 on an optional field; this puts it back.
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=64, extra_json_schema={"extra": {"minimum": 0}})]


MATCH_WAIT_DEFAULT_S = 60


class NewMatch(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A seat at a table with these settings: a waiting one (the nearest in rating first), or
    a new one. People take the other seats as they come; after `fill_with_bots_after_s`
    (from the table's opening) bots of `fill_level` take the rest, and the table starts."""

    game: Annotated[str, msgspec.Meta(max_length=64)]
    seats: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None  # null: the game's fewest
    options: dict[str, Any] = {}
    timing: Timing = Timing()
    rated: bool = True
    fill_with_bots_after_s: FillAfter = MATCH_WAIT_DEFAULT_S
    fill_level: FillLevel | None = None


class Match(msgspec.Struct, frozen=True, kw_only=True):
    """Where a quick match stands: `waiting` at `room` for more people (or for the bots of
    its fill), `matched` once its game exists (`game_id`)."""

    status: Literal["waiting", "matched"]
    room: Room
    game_id: str | None
    # when bots take the seats still empty and the table starts (RFC 3339, UTC)
    fill_due_at: DueAt | None


InviteCode = Annotated[str, msgspec.Meta(max_length=64)]


class JoinRoom(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """An unlisted room is joined with its `invite_code`, unless a seat is reserved for you
    (an invitation: joining accepts it and takes that seat)."""

    seat: SeatNumber | None = None
    # left out when null (omit_defaults): a client of this release still joins at a lobby of
    # the last, which knows no invite code
    invite_code: InviteCode | None = None


INVITE_DEFAULT_S = 86400
INVITE_MIN_S, INVITE_MAX_S = 5, 30 * 86400


class NewInvitation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The host reserves a seat (the one named, or the first free) for `player_id`, who is
    told (`invited`) and accepts by joining or declines; the seat frees itself after
    `expires_after_s`."""

    player_id: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]
    seat: SeatNumber | None = None
    expires_after_s: Annotated[
        int,
        msgspec.Meta(
            description="Seconds the seat stays reserved (5 s to 30 days; default a day)",
            extra_json_schema={"extra": {"minimum": INVITE_MIN_S, "maximum": INVITE_MAX_S}},
        ),
    ] = INVITE_DEFAULT_S


InvitationStatus = Literal["pending", "accepted", "declined", "withdrawn", "expired"]


class Invitation(msgspec.Struct, frozen=True, kw_only=True):
    room_id: str
    game: str
    seat: int
    player_id: str  # who is invited
    invited_by: str  # the host who invited, by id
    invited_by_name: str
    status: InvitationStatus
    expires_at: str  # RFC 3339, UTC: the seat is free again after it
    created_at: str


class Invitations(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Invitation]


class AddBot(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    level: Annotated[str, msgspec.Meta(max_length=32)]
    seat: SeatNumber | None = None


class Rematch(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """With `bots_for_declined`, a bot takes the seat of each person who declines the offer,
    and the others play on without them."""

    bots_for_declined: bool = False


class StartRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Empty seats are filled with bots of `fill_bots` level; null refuses to start with gaps.
    A start with no body fills with the room's own `fill_level` (default greedy)."""

    fill_bots: str | None = "greedy"


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None  # the bot's level, None for a person
    # an empty seat held for an invited player (their id) until they answer or it expires
    reserved_for: str | None = None
    rating: Annotated[
        float | None,
        msgspec.Meta(
            description="The seat's rating in this game (mu - 3 sigma, as leaderboards rank): a"
            " person's from rated games; a bot level's from rated games, else as `make"
            " tournament` measured it; null: none yet"
        ),
    ] = None


class Room(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    status: RoomStatus
    host: str
    seats: list[Seat]
    options: dict[str, Any]
    timing: Timing
    game_id: str | None
    created_at: str
    rematch_of: str | None = None  # the finished room this one is the rematch of
    rematch_id: str | None = None  # the rematch made from this room, once someone asked
    # The bot level that fills empty seats and takes over seats of people who time out or
    # resign: set when the room starts, or at creation for the timed fill.
    fill_level: str | None = None
    fill_with_bots_after_s: FillAfter | None = None
    # Each join restarts the wait; null once the room filled, started or closed, or without
    # fill_with_bots_after_s.
    fill_due_at: DueAt | None = None
    auto_start: AutoStart = False
    rated: bool = True
    quick_match: bool = False  # a table POST /v1/match opened (it starts once full)
    visibility: Visibility = "public"
    # the code that joins an unlisted room: shown to its host and seated players only
    invite_code: str | None = None


class RoomPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Room]
    next: str | None


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """openskill's Weng-Lin (Plackett-Luce) rating: `rating` is the conservative mu - 3 sigma
    that leaderboards rank by; provisional until `games` reaches 10."""

    rating: float
    mu: float
    sigma: float
    games: int  # rated games (a bot level: seat-games)
    wins: int
    provisional: bool


class MeasuredRating(msgspec.Struct, frozen=True, kw_only=True):
    """A bot level's rating as `make tournament` measured it, on the players' scale (the same
    gap means the same chance to finish ahead): `rating` is mu - 3 sigma, as leaderboards rank."""

    rating: float
    mu: float
    sigma: float


class BotLevel(msgspec.Struct, frozen=True, kw_only=True):
    level: str
    description: str
    measured: Annotated[
        MeasuredRating | None,
        msgspec.Meta(
            description="Its rating from bots' games (`make tournament`); null: unmeasured"
        ),
    ] = None
    rating: Annotated[
        Rating | None,
        msgspec.Meta(
            description="Its rating from rated games at this service, people's among them"
            " (it starts from `measured`); null: none yet"
        ),
    ] = None


class CatalogGame(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    name: str
    min_seats: int
    max_seats: int
    bot_levels: list[str]  # weakest first (contracts/levels.py)
    bots: Annotated[
        list[BotLevel], msgspec.Meta(description="Each of `bot_levels`: its words and ratings")
    ] = []
    options_schema: dict[str, Any]
    schemas: str  # where the JSON Schemas of its actions, events and views are (GameSchemas)
    content: str  # where its cards are (GameContent)


class ContentCard(msgspec.Struct, frozen=True, kw_only=True):
    """A card in one shape for every game: what a client shows for an id it meets."""

    id: str
    kind: Annotated[str, msgspec.Meta(description="ittybit, collector, item, follower, ...")]
    name: str
    traits: Annotated[
        list[str],
        msgspec.Meta(description="What it has or asks: traits, grails, items, effects, goals"),
    ]
    text: Annotated[str, msgspec.Meta(description="What it does, where the card says it")]
    glyph: Annotated[
        str | None,
        msgspec.Meta(description="A short mark to draw it with: a playing-card corner, a clan"),
    ]


_GAME_OWN = "(that game's own shape: see its RULES.md and the engine's content)"


class RulesSection(msgspec.Struct, frozen=True, kw_only=True):
    id: Annotated[str, msgspec.Meta(description="goal, table, turn, end, scoring, rulings...")]
    heading: str
    items: list[str]


class HowToPlay(msgspec.Struct, frozen=True, kw_only=True):
    """A game's rules for players, from its package's HOW_TO_PLAY.md (games/how_to_play.py):
    the goal, the table, a turn, the end, the scoring and the house rulings, as a page shows
    them."""

    title: str
    sections: list[RulesSection]


class GameContent(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A game's cards: `all_cards` in one shape for every game, and the game's content as its
    engine holds it: itty bitty's `ittybits` and `collectors`; Itchy Feet's `cards` and
    `countries` (with their items); Footprints' `clans`, `fire_cards`, `footprint_cards`,
    `cave_tokens`, `boards`, the map's `map_tiles`, `cairn_tile`, `house_tiles` and its
    `terrains` (resource and colour)."""

    game: str
    all_cards: list[ContentCard]
    how_to_play: HowToPlay | None = None
    ittybits: Annotated[list[dict[str, Any]] | None, msgspec.Meta(description=_GAME_OWN)] = None
    collectors: Annotated[list[dict[str, Any]] | None, msgspec.Meta(description=_GAME_OWN)] = None
    cards: Annotated[list[dict[str, Any]] | None, msgspec.Meta(description=_GAME_OWN)] = None
    countries: Annotated[list[dict[str, Any]] | None, msgspec.Meta(description=_GAME_OWN)] = None
    map_tiles: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    cairn_tile: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    house_tiles: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    boards: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    clans: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    fire_cards: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    footprint_cards: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    cave_tokens: Annotated[dict[str, Any] | None, msgspec.Meta(description=_GAME_OWN)] = None
    terrains: Annotated[list[dict[str, Any]] | None, msgspec.Meta(description=_GAME_OWN)] = None


class Catalog(msgspec.Struct, frozen=True, kw_only=True):
    games: list[CatalogGame]


class GameSchemas(msgspec.Struct, frozen=True, kw_only=True):
    """JSON Schemas (each with its own `$defs`) to build a game's moves and read its news.

    `action`: what `POST /v1/games/{id}/actions` takes as `action` (and `legal-actions`
    lists); `event`: an event's `data` in the feed, the game's own or the table's (clocks,
    resignations, claims); `view`: `view` of `GET /v1/games/{id}`; `options`: a room's options.
    """

    game: str
    action: dict[str, Any]
    event: dict[str, Any]
    view: dict[str, Any]
    options: dict[str, Any]
