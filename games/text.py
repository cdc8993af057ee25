"""Words for people: a line of text for each legal action and each event a caller receives.

Each game has a `text.py` (a `Narrator`, listed in games/registry.py) beside its pure engine;
the game service adds its lines to `legal-actions` and to the feed. An event is narrated
from the copy the caller receives, after `redact`, never from the whole event: a line can
only say what that copy says. A card is named with its id first ("ittybit-4229 (Alien,
Earring)"), so every card a line names is a card id the secrecy checks can see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from games.table import (
    AnyTableEvent,
    ChatSaid,
    GameOver,
    Resigned,
    SeatClaimed,
    SeatReturned,
    TimedOut,
    TimeUsed,
    TurnStarted,
)


class CardInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One card in the same shape for every game (the catalog's content, `all_cards`)."""

    id: str
    kind: str  # what sort of card, in the game's words: "ittybit", "item", "follower"
    name: str
    traits: tuple[str, ...] = ()  # what it has or asks: traits, grails, items, effects, goals
    text: str = ""  # what it does, where the card says it
    glyph: str | None = None  # a short mark a client may draw it with ("A♠", "2xM")


class Narrator(Protocol):
    """A game's words: pure, given only what the caller may see."""

    def cards(self) -> list[CardInfo]:
        """Every card of the game, public content (the catalog serves it)."""
        ...

    def describe(self, action: Any, names: Sequence[str]) -> str:
        """A legal action as its seat would say it ("Take ittybit-4229 (Alien, Earring) from
        the market"); `names[seat]`: who sits there, for the actions that name another."""
        ...

    def narrate(self, event: Any, names: Sequence[str]) -> str:
        """An event as the caller received it (redacted); `names[seat]`: who sits there."""
        ...


def who(names: Sequence[str], seat: int | None) -> str:
    """The name of a seat, or "Seat N" where none is known."""
    if seat is None:
        return "nobody"
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"Seat {seat}"


def listing(items: Iterable[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def a(word: str | None) -> str:
    """The word with its article: "a greedy", "an mcts"."""
    if not word:
        return "a"
    return f"{'an' if word[:1].lower() in 'aeiou' or word.startswith('mcts') else 'a'} {word}"


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def clock(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def seconds(value: float) -> str:
    whole = round(value)
    if whole < 120:
        return f"{value:.1f} s" if value < 10 else f"{whole} s"
    if whole < 7200:
        return f"{whole // 60} min"
    return f"{whole / 3600:.1f} h"


def narrate_table(event: AnyTableEvent, names: Sequence[str]) -> str:
    """The table's events (clocks, resignations, claims): the same in every game."""
    match event:
        case TurnStarted(seat=seat, deadline=deadline):
            return f"{who(names, seat)}'s clock runs: to act by {clock(deadline)}"
        case TimeUsed(seat=seat, used_s=used, bank_s=None):
            return f"{who(names, seat)} took {seconds(used)}"
        case TimeUsed(seat=seat, used_s=used, bank_s=bank):
            return f"{who(names, seat)} took {seconds(used)} ({seconds(bank or 0.0)} left)"
        case TimedOut(seat=seat, on_timeout="wait"):
            return f"{who(names, seat)} ran out of time: another player may hand the seat to a bot"
        case TimedOut(seat=seat, on_timeout="bot_move", bot=bot):
            return f"{who(names, seat)} ran out of time: {a(bot)} bot makes this move"
        case TimedOut(seat=seat, bot=bot):
            return f"{who(names, seat)} ran out of time: {a(bot)} bot plays the seat to the end"
        case SeatReturned(seat=seat):
            return f"{who(names, seat)} plays their own seat again"
        case Resigned(seat=seat, bot=bot):
            return f"{who(names, seat)} resigned: {a(bot)} bot plays the seat to the end"
        case SeatClaimed(seat=seat, by=by, bot=bot):
            return f"{who(names, by)} handed {who(names, seat)}'s overdue seat to {a(bot)} bot"
        case GameOver(outcome=outcome, standings=standings):
            return result(outcome.winners, outcome.detail.get("forfeited", ()), standings, names)
        case ChatSaid(hidden=True):
            return "(a message you chose not to read)"
        case ChatSaid(channel="spectators", name=name, text=text):
            return f"{name} (watching) says: {text}"
        case ChatSaid(name=name, text=text):
            return f"{name} says: {text}"
    raise TypeError(f"not a table event: {event!r}")


_LEFT = {"resigned": "resigned", "timed_out": "ran out of time"}


def result(
    winners: Sequence[int],
    forfeited: Iterable[int],
    standings: Sequence[str],
    names: Sequence[str],
) -> str:
    """The game's result in words ("Ada wins: Bob resigned (ranked last)"): who won as the
    table ranks it, and why a seat that may have scored more is ranked below the others."""
    if not winners:
        won = "Nobody wins"
    else:
        won = f"{listing(who(names, s) for s in winners)} {'wins' if len(winners) == 1 else 'win'}"
    left = {s: standings[s] for s in sorted(forfeited) if 0 <= s < len(standings)}
    why = [
        f"{listing(who(names, s) for s, st in left.items() if st == standing)} {words}"
        for standing, words in _LEFT.items()
        if standing in left.values()
    ]
    if not why:
        return won
    stayed = len(left) < len(standings)  # else everyone forfeited: the engine's order stands
    return f"{won}: {listing(why)}{' (ranked last)' if stayed else ''}"
