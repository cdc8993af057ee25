"""Game key -> Rules. The one place that lists the hosted games."""

from __future__ import annotations

from functools import cache
from typing import Any

from games.api import Rules


@cache
def registry() -> dict[str, Rules[Any, Any, Any, Any]]:
    from games.footprints.rules import Footprints
    from games.itchy_feet.rules import ItchyFeet
    from games.itty_bitty.rules import IttyBitty

    engines: list[Rules[Any, Any, Any, Any]] = [IttyBitty(), ItchyFeet(), Footprints()]
    return {engine.key: engine for engine in engines}


def get(key: str) -> Rules[Any, Any, Any, Any] | None:
    return registry().get(key)
