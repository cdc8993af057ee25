"""What a player is told about their games: webhooks' bodies and `/v1/me/stream`'s events.

One notification names one seat of one game at one version. It is derived from the games
stream's envelopes and the clock projection (services/notifier/derive.py), never from an
event's data, so it holds nothing a seat may not see: no card, no view, no other seat's
anything. A client reads the game itself through `links`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

NotificationType = Literal["your_turn", "deadline_soon", "game_started", "game_finished"]
NOTIFICATION_TYPES: tuple[NotificationType, ...] = (
    "your_turn",
    "deadline_soon",
    "game_started",
    "game_finished",
)


class Links(msgspec.Struct, frozen=True, kw_only=True):
    """Paths on the game service (relative to its base URL)."""

    game: str  # GET: the player's view of the game
    legal_actions: str  # GET: what the player may post now


class Notification(msgspec.Struct, frozen=True, kw_only=True):
    """`player_id`'s seat in `game_id` has news: it must act (`your_turn`), its deadline is
    near (`deadline_soon`), the game began (`game_started`) or ended (`game_finished`)."""

    type: NotificationType
    game_id: str
    game: str  # the game's key, e.g. "itty-bitty"
    title: str  # the game's display name, as the catalog shows it
    version: int  # the game's version the news is about
    seat: int
    player_id: str
    deadline: str | None = None  # the seat's deadline (RFC 3339, Z), if its clock runs
    links: Links

    def key(self) -> str:
        """What makes it one notification: the same news derived twice has the same key
        (a redelivered envelope, two notifiers), so a delivery can be made once per key."""
        if self.type == "deadline_soon":  # once per deadline, whatever the version
            return f"{self.type}:{self.game_id}:{self.seat}:{self.deadline}"
        return f"{self.type}:{self.game_id}:{self.seat}:{self.version}"


def links_for(game_id: str) -> Links:
    return Links(game=f"/v1/games/{game_id}", legal_actions=f"/v1/games/{game_id}/legal-actions")
