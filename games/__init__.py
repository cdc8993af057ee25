"""Pure rule engines. `registry()` maps a game key to its Rules."""

from games.registry import get, registry

__all__ = ["get", "registry"]
