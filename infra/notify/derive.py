"""Which players to tell what: pure functions from the games stream and the clock projection.

Two sources, one shape (contracts.notifications.Notification):

- `notifications(event, facts)`: after a command (an envelope with `batch_end`), who must
  now act that did not have to before (`your_turn`), and everyone's `game_started` /
  `game_finished`. The envelope carries `to_act`, `status` and `bots`; the rest (who sits
  where, the deadlines, `to_act` before the command) the caller reads from Postgres into a
  `GameFacts` (infra/notify/facts.py reads it so).
- `deadlines_soon(clocks, players, now, lead)`: the seats of one `turns` row whose deadline
  falls within `lead` of `now`; the caller tells each deadline once (Notification.key).

A seat a bot plays (from the start, or since its person resigned or timed out) is never
told it must act. A person whose seat a bot took over is still told the game ended: they
are still ranked in it. `game_finished` carries the result as the game's log says it (its
`game_over` event), never one made here, and in a rated room every seat's rating change: the
end of a room's game is told once the lobby has recorded it (contracts/streams.py, FINISHED).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

import msgspec

from contracts.game import RatingChange, timestamp
from contracts.notifications import GameNewsType, GameResult, Notification, links_for
from contracts.streams import GameEvent
from games.registry import get as get_rules


class GameFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What the derivation needs beyond the envelope, as Postgres has it."""

    players: Mapping[int, str]  # seat -> player id of every seat a person took (not bots')
    deadlines: Mapping[int, datetime]  # seat -> deadline of its running clock (turns.deadlines)
    # to_act after the command before this one, less the seats a bot played then; None when
    # this command set the game up
    before: Iterable[int] | None
    # the game's result when this command ended it (its game_over: infra/notify/facts.py)
    outcome: GameResult | None = None
    # when the envelope's event was recorded: the news' `recorded_at` (None: not known)
    recorded_at: datetime | None = None
    # the rating changes of a rated room's game (read when the lobby has rated it)
    ratings: list[RatingChange] | None = None
    # the game's room is a quick match's table: its set-up is also `match_found`
    matched: bool = False


class Clocks(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the clock projection (`turns`) as the deadline sweep reads it."""

    game_id: str
    game: str
    version: int
    deadlines: Mapping[int, datetime]  # people's running clocks only (bots have none)
    overdue: Iterable[int] = ()  # past their deadline under policy wait: nothing is soon
    # seat -> when its running clock's turn began (turns.started): a deadline already within
    # the lead then was set that close, and its your_turn said it
    started: Mapping[int, datetime] = {}
    # when the row was last written (turns.waiting_since): the turns' beginning for a row
    # written before `started` was (a deadline within the lead then is not told)
    since: datetime | None = None


def title_of(game: str) -> str:
    """The game's display name as the catalog shows it (its key for a game not hosted)."""
    rules = get_rules(game)
    return rules.name if rules is not None else game


def notifications(event: GameEvent, facts: GameFacts) -> list[Notification]:
    """What follows one envelope of the games stream: nothing unless it ends a command.

    In order: `game_started` (the set-up's command; then `match_found` at a quick match's
    table), `your_turn` for each person who must
    act now and did not before this command (another seat's move in a simultaneous phase
    tells nobody again; a seat that acts again after its own move is not told), and
    `game_finished` when the command ended the game."""
    if not event.batch_end:
        return []
    out: list[Notification] = []
    players = facts.players
    if facts.before is None:
        out += [_tell("game_started", event, seat, facts) for seat in sorted(players)]
        if facts.matched:
            out += [_tell("match_found", event, seat, facts) for seat in sorted(players)]
    if event.status == "active":
        before = set(facts.before or ())
        out += [
            _tell("your_turn", event, seat, facts)
            for seat in sorted(event.to_act)
            if seat in players and str(seat) not in event.bots and seat not in before
        ]
    else:
        out += [_tell("game_finished", event, seat, facts) for seat in sorted(players)]
    return out


def deadlines_soon(
    clocks: Clocks, players: Mapping[int, str], now: datetime, lead: timedelta
) -> list[Notification]:
    """`deadline_soon` for every person's deadline in (now, now + lead]: one that has passed
    is the scheduler's, not news, and a turn shorter than the lead is not warned of (its
    `your_turn` carries the deadline)."""
    overdue = set(clocks.overdue)
    title = title_of(clocks.game)
    return [
        Notification(
            type="deadline_soon",
            game_id=clocks.game_id,
            game=clocks.game,
            title=title,
            version=clocks.version,
            seat=seat,
            player_id=players[seat],
            deadline=timestamp(deadline),
            links=links_for(clocks.game_id),
        )
        for seat, deadline in sorted(clocks.deadlines.items())
        for began in [clocks.started.get(seat, clocks.since)]
        if seat in players
        and seat not in overdue
        and now < deadline <= now + lead
        and (began is None or deadline - began > lead)
    ]


def _tell(kind: GameNewsType, event: GameEvent, seat: int, facts: GameFacts) -> Notification:
    deadline = facts.deadlines.get(seat) if kind == "your_turn" else None
    return Notification(
        outcome=facts.outcome if kind == "game_finished" else None,
        ratings=facts.ratings if kind == "game_finished" else None,
        type=kind,
        game_id=event.game_id,
        game=event.game,
        title=title_of(event.game),
        version=event.version,
        seat=seat,
        player_id=facts.players[seat],
        deadline=timestamp(deadline) if deadline is not None else None,
        links=links_for(event.game_id),
        recorded_at=timestamp(facts.recorded_at) if facts.recorded_at is not None else None,
    )
