"""Which of a player's tokens still hold, and the gate every request's token passes.

Each token carries a serial: registration issues 0, each `POST /v1/players/me/tokens` the
next one. `DELETE /v1/players/me/tokens` ends every token but the caller's: the player's row
then holds from `tokens_valid_from` on, plus `token_kept` (the caller's). The lobby reads the
row on every request; the game service (same database) remembers it for a few seconds.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import asyncpg
import msgspec

from infra.auth import InvalidToken, Principal, issue, verify, verify_in
from infra.keys import Keyring


class TokenState(msgspec.Struct, frozen=True, kw_only=True):
    valid_from: int = 0
    kept: int | None = None

    def allows(self, serial: int) -> bool:
        return serial >= self.valid_from or serial == self.kept


class TokenLedger(Protocol):
    async def state(self, player_id: str) -> TokenState | None:
        """None: no such player."""

    async def next_serial(self, player_id: str, by: int) -> int | None:
        """A new token's serial, if token `by` still holds."""

    async def end_others(self, player_id: str, keep: int) -> bool:
        """End every token but `keep`, if it still holds."""


class PostgresTokenLedger:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def state(self, player_id: str) -> TokenState | None:
        row = await self.pool.fetchrow(
            "SELECT tokens_valid_from, token_kept FROM players WHERE id = $1", player_id
        )
        return None if row is None else TokenState(valid_from=row[0], kept=row[1])

    async def next_serial(self, player_id: str, by: int) -> int | None:
        serial: int | None = await self.pool.fetchval(
            "UPDATE players SET token_serial = token_serial + 1 "
            "WHERE id = $1 AND ($2 >= tokens_valid_from OR $2 = token_kept) "
            "RETURNING token_serial",
            player_id,
            by,
        )
        return serial

    async def end_others(self, player_id: str, keep: int) -> bool:
        # The condition makes it atomic: of two tokens ending each other, one call wins.
        ended = await self.pool.fetchval(
            "UPDATE players SET tokens_valid_from = token_serial + 1, token_kept = $2 "
            "WHERE id = $1 AND ($2 >= tokens_valid_from OR $2 = token_kept) RETURNING 1",
            player_id,
            keep,
        )
        return ended is not None


class MemoryTokenLedger:
    """Players known by their id alone (the embedded game service has no players table)."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[int, TokenState]] = {}  # player -> (last serial, state)

    def add(self, player_id: str) -> None:
        self.rows.setdefault(player_id, (0, TokenState()))

    async def state(self, player_id: str) -> TokenState | None:
        row = self.rows.get(player_id)
        return None if row is None else row[1]

    async def next_serial(self, player_id: str, by: int) -> int | None:
        row = self.rows.get(player_id)
        if row is None or not row[1].allows(by):
            return None
        self.rows[player_id] = (row[0] + 1, row[1])
        return row[0] + 1

    async def end_others(self, player_id: str, keep: int) -> bool:
        row = self.rows.get(player_id)
        if row is None or not row[1].allows(keep):
            return False
        self.rows[player_id] = (row[0], TokenState(valid_from=row[0] + 1, kept=keep))
        return True


class CachedTokenLedger:
    """Remembers each player's state for `ttl_s`: a revocation takes at most that long here,
    and most requests cost no query."""

    def __init__(self, inner: TokenLedger, ttl_s: float, max_players: int = 50_000) -> None:
        self.inner, self.ttl_s, self.max_players = inner, ttl_s, max_players
        self._seen: dict[str, tuple[float, TokenState | None]] = {}

    async def state(self, player_id: str) -> TokenState | None:
        now = time.monotonic()
        hit = self._seen.get(player_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        state = await self.inner.state(player_id)
        self._seen.pop(player_id, None)
        if len(self._seen) >= self.max_players:
            del self._seen[next(iter(self._seen))]  # the one fetched longest ago
        self._seen[player_id] = (now + self.ttl_s, state)
        return state

    async def next_serial(self, player_id: str, by: int) -> int | None:
        self._seen.pop(player_id, None)
        return await self.inner.next_serial(player_id, by)

    async def end_others(self, player_id: str, keep: int) -> bool:
        self._seen.pop(player_id, None)
        return await self.inner.end_others(player_id, keep)


class Tokens:
    """Issues tokens and admits them: signed by a key held here, not ended by their player.

    `require_player`: a token must name a row of `players` (the lobby, whose tables refer to
    it); the game service knows players by their seats and only asks whether a token ended.
    """

    def __init__(self, keyring: Keyring, ledger: TokenLedger, *, require_player: bool) -> None:
        self.keyring, self.ledger, self.require_player = keyring, ledger, require_player

    def issue(self, player_id: str, name: str, serial: int = 0) -> str:
        return issue(self.keyring.signing, player_id, name, serial)

    async def admit(self, header: str | None, scope: Any = None) -> Principal:
        """The token's bearer; `scope`: the request's, where the token may have been
        verified already (infra.auth.verify_in), and is remembered."""
        who = (
            verify(self.keyring, header)
            if scope is None
            else verify_in(scope, self.keyring, header)
        )
        state = await self.ledger.state(who.player_id)
        if state is None and self.require_player:
            raise InvalidToken("this token names no player of this lobby", "unknown_player")
        if state is not None and not state.allows(who.serial):
            raise InvalidToken("this token was ended by its player", "token_revoked")
        return who

    async def renew(self, who: Principal) -> str:
        """Another token for the caller; the caller's own keeps working."""
        serial = await self.ledger.next_serial(who.player_id, who.serial)
        if serial is None:
            raise InvalidToken("this token was ended by its player", "token_revoked")
        return self.issue(who.player_id, who.name, serial)

    async def end_others(self, who: Principal) -> None:
        if not await self.ledger.end_others(who.player_id, who.serial):
            raise InvalidToken("this token was ended by its player", "token_revoked")
