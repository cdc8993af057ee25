"""The table beside the engines: clocks, resignations, timeouts and seats handed to bots.

The engines know no clock and no person. The game service appends these *table events* in
the same stream as the engine's events and folds them here; a game's state is (engine
state, table state). Pure: the time is always passed in, nothing here reads a clock.

A seat's clock runs while a person must act there. With `per_move_s` every decision gets
that long; with a bank, the time used is taken from the bank, and `increment_s` is added
(up to `cap_s`) when the seat's turn ends. When a deadline passes, `on_timeout` decides:
a bot makes that one move, a bot takes the seat for good, or the others may claim it.

When the engine ends the game, the command that ended it also appends `game_over`: the
engine's outcome as the table ranks it (`ranked`: forfeits last). That event is the game's
result for every channel (the view's `outcome`, the feed and its words, the news); the
engine's own end event says what happened on the board, not who won.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec

from contracts.lobby import OnTimeout, Timing
from games.api import Outcome

Standing = Literal["playing", "resigned", "timed_out", "bot"]

# The table's rules new games are set up under, recorded in the metadata of a game's setup
# events (`table_rules`; a log without it: 1). Bump it when `evolve` would read a table
# event otherwise or `after_command`/`timeout`/`game_over` would decide otherwise, and keep
# the old path for games begun under the old version. 1: no `game_over` (the engine's outcome
# ranked on every read); 2: the result recorded as `game_over`; 3: the log may hold table
# chat (`chat_said`), which a replica of version 2 could not read: a game begun under 2 or
# less takes no chat (services/game/chat.py), so every replica of its release reads it.
RULES_VERSION = 3
CHAT_SINCE = 3


class TableEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """An event of the table, in the game's stream beside the engine's."""


class TurnStarted(TableEvent, frozen=True, tag="turn_started"):
    """The seat's clock runs from `at`; it must act by `deadline`."""

    seat: int
    at: datetime
    deadline: datetime


class TimeUsed(TableEvent, frozen=True, tag="time_used"):
    """The seat's clock stopped; `bank_s` is what its bank holds now (None: per-move clock)."""

    seat: int
    used_s: float
    bank_s: float | None = None


class TimedOut(TableEvent, frozen=True, tag="timed_out"):
    seat: int
    deadline: datetime
    at: datetime
    on_timeout: OnTimeout
    bot: str | None  # the level that moves for the seat (bot_move, bot_takeover)


class SeatReturned(TableEvent, frozen=True, tag="seat_returned"):
    """After a bot's one move for it (bot_move), the person plays the seat again."""

    seat: int
    at: datetime
    bank_s: float | None = None


class Resigned(TableEvent, frozen=True, tag="resigned"):
    seat: int
    at: datetime
    bot: str  # the level that plays the seat to the end


class SeatClaimed(TableEvent, frozen=True, tag="seat_claimed"):
    """Another player handed an overdue seat (policy `wait`) to a bot."""

    seat: int
    by: int
    at: datetime
    bot: str


class GameOver(TableEvent, frozen=True, tag="game_over"):
    """The game's result: the engine's outcome as the table ranks it (`ranked`: a seat whose
    person resigned or timed out below every other, `detail.forfeited` those seats), and
    each seat's standing at the end (why a seat forfeited). Appended with the engine's events
    that end the game. Logs from before it have none (`result` falls back on `ranked`)."""

    outcome: Outcome
    standings: tuple[Standing, ...]


ChatChannel = Literal["players", "spectators"]


class ChatSaid(TableEvent, frozen=True, tag="chat_said"):
    """A word at the table (services/game/chat.py): from a seated player (`players`, with
    their seat) or a spectator (`spectators`, seat null). Plain text, as it was sent. Changes
    nothing at the table: no engine sees it, no clock stops for it."""

    channel: ChatChannel
    player_id: str
    name: str
    seat: int | None
    text: str
    at: datetime
    # in a record served to a reader who muted its author or hid its channel: the message
    # is there (the log's versions stay whole), its author and words are not
    hidden: bool = False


AnyTableEvent = (
    TurnStarted | TimeUsed | TimedOut | SeatReturned | Resigned | SeatClaimed | GameOver | ChatSaid
)
TABLE_EVENT_TYPES: frozenset[str] = frozenset(
    t.__struct_config__.tag  # type: ignore[misc]
    for t in (
        TurnStarted, TimeUsed, TimedOut, SeatReturned, Resigned, SeatClaimed, GameOver, ChatSaid
    )
)  # fmt: skip


class TableSeat(msgspec.Struct, frozen=True, kw_only=True):
    standing: Standing = "playing"
    bot: str | None = None  # the level of the bot playing the seat now; None: the person
    once: bool = False  # the bot makes just the next move (a bot_move timeout)
    running_since: datetime | None = None
    deadline: datetime | None = None
    bank_s: float | None = None
    overdue: bool = False  # its deadline passed under policy `wait`: others may claim it


class TableState(msgspec.Struct, frozen=True, kw_only=True):
    timing: Timing
    fill_level: str
    seats: tuple[TableSeat, ...]
    outcome: Outcome | None = None  # the game's result, once `game_over` is in its log


def timing_of(raw: Mapping[str, Any]) -> Timing:
    """A stored timing as a Timing. Games made before the clocks stored a `turn_seconds`
    that nothing enforced; they keep playing without a clock (a clock started in the middle
    of a game would have no turn start to count from)."""
    data = {k: v for k, v in raw.items() if k != "turn_seconds"}
    return msgspec.convert(data, Timing)


def initial(timing: Timing, fill_level: str, bots: Sequence[str | None]) -> TableState:
    """The table when the game is created: bot seats are bots, people hold full banks."""
    return TableState(
        timing=timing,
        fill_level=fill_level,
        seats=tuple(
            TableSeat(standing="bot", bot=level)
            if level
            else TableSeat(bank_s=float(timing.bank_s) if timing.bank_s is not None else None)
            for level in bots
        ),
    )


def _seat(table: TableState, seat: int, **changes: Any) -> TableState:
    seats = list(table.seats)
    seats[seat] = msgspec.structs.replace(seats[seat], **changes)
    return msgspec.structs.replace(table, seats=tuple(seats))


def evolve(table: TableState, event: AnyTableEvent) -> TableState:
    match event:
        case TurnStarted(seat=seat, at=at, deadline=deadline):
            return _seat(table, seat, running_since=at, deadline=deadline, overdue=False)
        case TimeUsed(seat=seat, bank_s=bank):
            return _seat(table, seat, running_since=None, deadline=None, bank_s=bank, overdue=False)
        case TimedOut(seat=seat, on_timeout="wait"):
            return _seat(table, seat, overdue=True)  # the clock runs on; the person may still move
        case TimedOut(seat=seat, on_timeout=policy, bot=bot):
            stopped = {"running_since": None, "deadline": None, "overdue": False}
            bank = 0.0 if table.timing.bank_s is not None else None
            if policy == "bot_move":
                return _seat(table, seat, bot=bot, once=True, bank_s=bank, **stopped)
            return _seat(table, seat, standing="timed_out", bot=bot, bank_s=bank, **stopped)
        case SeatReturned(seat=seat, bank_s=bank):
            return _seat(table, seat, bot=None, once=False, bank_s=bank)
        case Resigned(seat=seat, bot=bot):
            return _seat(
                table, seat, standing="resigned", bot=bot, once=False, running_since=None,
                deadline=None, overdue=False,
            )  # fmt: skip
        case SeatClaimed(seat=seat, bot=bot):
            return _seat(
                table, seat, standing="timed_out", bot=bot, once=False, running_since=None,
                deadline=None, overdue=False,
            )  # fmt: skip
        case GameOver(outcome=outcome):
            return msgspec.structs.replace(table, outcome=outcome)
        case ChatSaid():
            return table
    raise TypeError(f"not a table event: {event!r}")


def fold(table: TableState, events: Iterable[AnyTableEvent]) -> TableState:
    for event in events:
        table = evolve(table, event)
    return table


# A snapshot holds (engine state, table state). Its schema version is derived from the
# shape of both types (a hash of their JSON Schema, with the engine's own schema_version),
# so a changed shape can never decode silently wrong: an older snapshot is ignored and the
# game rebuilt from its events.
@functools.cache
def snapshot_schema(state_type: Any, engine_schema: int = 0) -> int:
    shape = msgspec.json.encode(msgspec.json.schema(tuple[state_type, TableState]), order="sorted")
    digest = hashlib.sha256(shape + str(engine_schema).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF  # fits Postgres int


# -- the clock ----------------------------------------------------------------------------------


def _used(seat: TableSeat, now: datetime) -> float:
    assert seat.running_since is not None
    return max(0.0, (now - seat.running_since).total_seconds())


def _deadline(timing: Timing, seat: TableSeat, now: datetime) -> datetime:
    if timing.per_move_s is not None:
        return now + timedelta(seconds=timing.per_move_s)
    return now + timedelta(seconds=max(0.0, seat.bank_s or 0.0))


def bank_after(timing: Timing, bank: float, used: float, turn_over: bool) -> float:
    """The bank after `used` seconds; the increment is added when the turn is over."""
    left = max(0.0, bank - used)
    if turn_over:
        left += timing.increment_s
    if timing.cap_s is not None:
        left = min(left, float(timing.cap_s))
    return round(left, 3)


def after_command(
    table: TableState,
    to_act: frozenset[int],
    actor: int | None,
    now: datetime,
) -> list[AnyTableEvent]:
    """Table events after a command of `actor` (None: set-up or table news): clocks stop for
    seats that acted or need not act any more, and start for people who must act now."""
    out: list[AnyTableEvent] = []
    timing = table.timing
    for seat, s in enumerate(table.seats):
        if s.once and (seat == actor or seat not in to_act):
            # the bot's one move is made (or the turn went by): the seat is the person's again
            bank = bank_after(timing, s.bank_s, 0.0, True) if s.bank_s is not None else None
            out.append(SeatReturned(seat=seat, at=now, bank_s=bank))
            s = msgspec.structs.replace(s, bot=None, once=False, bank_s=bank)
        if not timing.clocked or s.bot is not None:
            continue
        restart = seat == actor
        if s.running_since is not None and (restart or seat not in to_act):
            used = round(_used(s, now), 3)  # the event says what was charged, exactly
            bank = None
            if s.bank_s is not None:
                bank = bank_after(timing, s.bank_s, used, turn_over=seat not in to_act)
            out.append(TimeUsed(seat=seat, used_s=used, bank_s=bank))
            s = msgspec.structs.replace(s, running_since=None, bank_s=bank)
        if seat in to_act and s.running_since is None:
            out.append(TurnStarted(seat=seat, at=now, deadline=_deadline(timing, s, now)))
    return out


def timeout(table: TableState, seat: int, now: datetime) -> list[AnyTableEvent]:
    """The events of `seat`'s deadline passing, or [] if it has not (or nothing runs)."""
    if not 0 <= seat < len(table.seats):
        return []
    s = table.seats[seat]
    if s.bot is not None or s.overdue or s.deadline is None or s.deadline > now:
        return []
    policy = table.timing.on_timeout
    bot = None if policy == "wait" else table.fill_level
    return [TimedOut(seat=seat, deadline=s.deadline, at=now, on_timeout=policy, bot=bot)]


# -- what the table tells others ----------------------------------------------------------------


def bots_now(table: TableState) -> dict[str, str]:
    """seat (as a string) -> level, for every seat a bot plays now."""
    return {str(i): s.bot for i, s in enumerate(table.seats) if s.bot is not None}


def deadlines(table: TableState) -> dict[int, datetime]:
    """The deadline of every running clock of a person, overdue ones included."""
    return {
        i: s.deadline for i, s in enumerate(table.seats) if s.deadline is not None and s.bot is None
    }


def turn_starts(table: TableState) -> dict[int, datetime]:
    """When the turn of every running clock of a person began (its `deadlines`' turns)."""
    return {
        i: s.running_since
        for i, s in enumerate(table.seats)
        if s.deadline is not None and s.running_since is not None and s.bot is None
    }


def overdue(table: TableState) -> list[int]:
    """Seats past their deadline under policy `wait`: shown, claimable, not fired again."""
    return [i for i, s in enumerate(table.seats) if s.overdue and s.bot is None]


def forfeited(table: TableState) -> list[int]:
    return [i for i, s in enumerate(table.seats) if s.standing in ("resigned", "timed_out")]


def ranked(outcome: Outcome, table: TableState) -> Outcome:
    """A person who resigned or timed out is ranked below everyone who did not, whatever the
    bot playing their seat scored; among themselves they keep the engine's order."""
    out = set(forfeited(table))
    if not out:
        return outcome
    order = sorted(range(len(outcome.ranks)), key=lambda s: (s in out, outcome.ranks[s]))
    ranks = [0] * len(order)
    for place, seat in enumerate(order):
        prev = order[place - 1] if place else None
        same = (
            prev is not None
            and (prev in out) == (seat in out)
            and outcome.ranks[prev] == outcome.ranks[seat]
        )
        ranks[seat] = ranks[prev] if same and prev is not None else place + 1
    # a game the engine called drawn (no winners) stays drawn
    winners = [s for s in range(len(ranks)) if ranks[s] == 1] if outcome.winners else []
    detail = {**outcome.detail, "forfeited": sorted(out)}
    return msgspec.structs.replace(outcome, ranks=ranks, winners=winners, detail=detail)


def game_over(outcome: Outcome | None, table: TableState) -> list[GameOver]:
    """`game_over` when the engine has just given its outcome (the table has none yet): the
    last event of the command that ended the game; [] otherwise."""
    if outcome is None or table.outcome is not None:
        return []
    standings = tuple(s.standing for s in table.seats)
    return [GameOver(outcome=ranked(outcome, table), standings=standings)]


def result(outcome: Outcome | None, table: TableState) -> Outcome | None:
    """The game's result as every channel gives it: its `game_over`; for a game that ended
    before that event existed, the engine's `outcome` ranked as `game_over` would have it."""
    if table.outcome is not None:
        return table.outcome
    return ranked(outcome, table) if outcome is not None else None
