"""Nim's words (games/text.py, `Narrator`)."""

from collections.abc import Sequence
from typing import Any

from games.text import CardInfo, who
from tests.example_game.rules import GameSetUp, Take, Taken


def cards() -> list[CardInfo]:  # no cards: counters
    return []


def describe(action: Any, names: Sequence[str]) -> str:
    match action:
        case Take(heap=heap, count=count):
            return f"Take {count} from heap {heap + 1}"
    raise ValueError(f"no words for {action!r}")


def narrate(event: Any, names: Sequence[str]) -> str:
    match event:
        case GameSetUp(options=options, first_seat=first):
            return f"Nim with heaps of {', '.join(map(str, options.heaps))}; {who(names, first)} begins"
        case Taken(seat=seat, heap=heap, count=count):
            return f"{who(names, seat)} took {count} from heap {heap + 1}"
    raise ValueError(f"no words for {event!r}")
