"""Game key -> Rules. The one place that lists the hosted games."""

from __future__ import annotations

from functools import cache
from typing import Any

from games.api import Rules
from games.text import Narrator


@cache
def registry() -> dict[str, Rules[Any, Any, Any, Any]]:
    from games.footprints.rules import Footprints
    from games.itchy_feet.rules import ItchyFeet
    from games.itty_bitty.rules import IttyBitty

    engines: list[Rules[Any, Any, Any, Any]] = [IttyBitty(), ItchyFeet(), Footprints()]
    return {engine.key: engine for engine in engines}


def get(key: str) -> Rules[Any, Any, Any, Any] | None:
    return registry().get(key)


@cache
def narrators() -> dict[str, Narrator]:
    """Game key -> its words (games/<game>/text.py): beside the engines, never inside them."""
    from games.footprints import text as footprints
    from games.itchy_feet import text as itchy_feet
    from games.itty_bitty import text as itty_bitty

    return {"itty-bitty": itty_bitty, "itchy-feet": itchy_feet, "footprints": footprints}


def narrator(key: str) -> Narrator:
    """The words of a game the registry lists (every one has them: tests/unit/test_text.py)."""
    return narrators()[key]
