"""Messages on the Redis streams (DESIGN.md, "Streams")."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol

import msgspec

LOBBY = "turnpost:lobby"
# One envelope (GameEvent) per command of every game, its last event's (services/game/relay.py):
# webhooks' news (the notifier), and the game services' waiters and players' streams (tails).
GAMES = "turnpost:games"
# The same envelopes, published with it by the relay in one script, for the readers that
# want one kind alone, so that they read nothing of the rest: BOT_TURNS, the commands after
# which a bot must act (the bot dispatcher); LIFECYCLE, a game's first command and its
# finishing one (the lobby's rooms and ratings). In a game of people alone the dispatcher
# reads nothing, and the lobby two envelopes a game.
BOT_TURNS = "turnpost:bot-turns"
LIFECYCLE = "turnpost:lifecycle"
COMMANDS = "turnpost:commands"
# A finished game's last envelope (a GameEvent, as the games stream had it), published again
# by the lobby's ratings consumer once it has recorded the game (and, in a rated room, rated
# it): the game's `game_finished` news is told from here, so it carries the rating changes.
# Only games of a room: a game started without one is told of from the games stream.
FINISHED = "turnpost:finished"
# A room's news for one player (contracts.notifications.RoomNews, as JSON), from the lobby
# once the change is committed: told on webhooks (the notifier) and /v1/me/stream.
NEWS = "turnpost:news"

# Every consumer group of every stream. Each consumer makes all of its stream's groups
# before it reads (and so before it can trim), so no group misses what was published
# before its own process first started.
GROUPS: dict[str, tuple[str, ...]] = {
    LOBBY: ("game",),
    GAMES: ("notifier",),
    BOT_TURNS: ("bots",),
    LIFECYCLE: ("lobby", "ratings"),
    COMMANDS: ("game",),
    FINISHED: ("notifier",),
    NEWS: ("notifier",),
}


# Groups a stream had once and no longer has (their readers moved to BOT_TURNS and
# LIFECYCLE): never made again, and a trim does not wait for them (a process of before the
# move that still reads one gets what is left until the trim passes it).
RETIRED_GROUPS: dict[str, tuple[str, ...]] = {
    GAMES: ("lobby", "bots", "ratings"),
}


class StreamMessage(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", omit_defaults=True
):
    # What the sender was doing, for logs and traces (infra/observability/context.py: the
    # request id that began it; traceparent when tracing). Never read for a decision; a
    # reader that predates it ignores it. A field at its default is left out of a message
    # and filled in by its reader: no empty trace on every envelope.
    trace: dict[str, str] = {}


class StartedSeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str
    name: str | None = None
    bot: str | None = None


class RoomStarted(StreamMessage, frozen=True, tag="room_started"):
    room_id: str
    game: str
    seats: list[StartedSeat]
    options: dict[str, Any] = {}
    timing: dict[str, Any] = {}
    fill_level: str = "greedy"  # the bot level that takes over a seat (timeout, resign)


class GameEvent(StreamMessage, frozen=True, tag="game_event"):
    """Envelope of one stored game event; never the event's data (it may be private)."""

    game_id: str
    game: str
    room_id: str | None
    version: int
    type: str
    to_act: list[int]
    status: Literal["active", "finished"]
    bots: dict[str, str]  # seat (as a string) -> bot level
    batch_end: bool  # last event of the command that produced it
    global_position: int
    # The version of the command's first event (the relay publishes one envelope per
    # command, its last event's); 0 from a relay of before it, which published every event.
    first_version: int = 0
    # when it was appended: with the version, names one stored event even across a restore
    # of the database to an earlier moment (which may append another at the same version)
    recorded_at: datetime | None = None


class SubmitAction(StreamMessage, frozen=True, tag="submit_action"):
    command_id: str
    game_id: str
    seat: int
    action: dict[str, Any]
    expected_version: int


class ClockTimeout(StreamMessage, frozen=True, tag="clock_timeout"):
    """From the scheduler: `seat`'s deadline, set at game `version`, has passed."""

    # derives from (game, seat, deadline): a deadline is set once per turn start (a version),
    # so however often and at whatever later version it is sent, it is applied once
    command_id: str
    game_id: str
    seat: int
    version: int
    deadline: str  # ISO 8601


Command = SubmitAction | ClockTimeout
AnyMessage = RoomStarted | GameEvent | SubmitAction | ClockTimeout


class _Turn(Protocol):
    """What bots_to_act reads of an envelope (a GameEvent, or a reader's narrower struct)."""

    @property
    def batch_end(self) -> bool: ...
    @property
    def status(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def to_act(self) -> list[int]: ...
    @property
    def bots(self) -> dict[str, str]: ...


def bots_to_act(event: _Turn) -> list[tuple[int, str]]:
    """(seat, level) of every bot that must act after this envelope's command (a table's
    word, `chat_said`, changes nothing a bot acts on)."""
    if not event.batch_end or event.status != "active" or event.type == "chat_said":
        return []
    return [(seat, event.bots[str(seat)]) for seat in event.to_act if str(seat) in event.bots]


def begins(event: GameEvent) -> bool:
    """Whether the envelope tells of the game's first command, its set-up (one envelope per
    command; one per event from a relay of before it, whose first said version 1)."""
    return (event.first_version or event.version) == 1


def streams_of(event: GameEvent) -> tuple[bool, bool]:
    """Whether the relay publishes the envelope on BOT_TURNS, and on LIFECYCLE (beside GAMES)."""
    return bool(bots_to_act(event)), begins(event) or event.status == "finished"


def told_when_recorded(event: GameEvent) -> bool:
    """Whether this envelope's news comes from FINISHED, not the games stream: the end of a
    game of a room (the lobby records and rates every one)."""
    return event.status == "finished" and event.room_id is not None
