"""Which of a player's tokens still hold, and the gate every request's token passes.

Each token carries a serial: registration issues 0, each `POST /v1/players/me/tokens` the
next one. `DELETE /v1/players/me/tokens` ends every token but the caller's: the player's row
then holds from `tokens_valid_from` on, plus `token_kept` (the caller's). The lobby reads the
row on every request; the game service (same database) remembers it for a few seconds.

What a token opens that lasts (a stream, a long-poll) holds it (`Held`): checked again while
it runs, so it ends within the game service's TOKEN_CHECK_TTL_S of its token's end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import Any, Protocol, TypeVar

import asyncpg
import msgspec

from infra.auth.bearer import InvalidToken, Principal, issue, verified_in, verify, verify_in
from infra.auth.keys import Keyring
from infra.servers.errors import is_transient

log = logging.getLogger(__name__)
T = TypeVar("T")


class TokenState(msgspec.Struct, frozen=True, kw_only=True):
    valid_from: int = 0
    kept: int | None = None

    def allows(self, serial: int) -> bool:
        return serial >= self.valid_from or serial == self.kept


class TokenLedger(Protocol):
    async def state(self, player_id: str, max_age: float | None = None) -> TokenState | None:
        """None: no such player. `max_age`: a remembered state at most that many seconds old
        (the ledgers that remember any)."""

    async def next_serial(self, player_id: str, by: int) -> int | None:
        """A new token's serial, if token `by` still holds."""

    async def end_others(self, player_id: str, keep: int) -> bool:
        """End every token but `keep`, if it still holds."""


class PostgresTokenLedger:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def state(self, player_id: str, max_age: float | None = None) -> TokenState | None:
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

    async def state(self, player_id: str, max_age: float | None = None) -> TokenState | None:
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
        self._seen: dict[str, tuple[float, TokenState | None]] = {}  # player -> (asked, state)

    async def state(self, player_id: str, max_age: float | None = None) -> TokenState | None:
        """`max_age`: asked again when what is remembered is older (a held token's check:
        fresher than the TTL, so that what it holds ends within the TTL)."""
        now = time.monotonic()
        hit = self._seen.get(player_id)
        age = self.ttl_s if max_age is None else min(self.ttl_s, max_age)
        if hit is not None and now - hit[0] < age:
            return hit[1]
        state = await self.inner.state(player_id)
        self._seen.pop(player_id, None)
        if len(self._seen) >= self.max_players:
            del self._seen[next(iter(self._seen))]  # the one fetched longest ago
        self._seen[player_id] = (now, state)  # when it was asked: a change since is newer
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
        verified already (infra.auth.bearer.verify_in), and is remembered."""
        who = (
            verify(self.keyring, header)
            if scope is None
            else verify_in(scope, self.keyring, header)
        )
        refused = self.refusal(who, await self.ledger.state(who.player_id))
        if refused is not None:
            raise refused
        return who

    def refusal(self, who: Principal, state: TokenState | None) -> InvalidToken | None:
        """Why the ledger's `state` of the player refuses the token; None: it holds."""
        if state is None and self.require_player:
            return InvalidToken("this token names no player of this lobby", "unknown_player")
        if state is not None and not state.allows(who.serial):
            return InvalidToken("this token was ended by its player", "token_revoked")
        return None

    async def hold(self, header: str | None, scope: Any, every: float) -> Held:
        """The token of a request that opens something lasting, admitted (InvalidToken
        otherwise) and held: see `Held`."""
        who, expires = verified_in(scope, self.keyring, header)
        held = Held(self, who, expires, every)
        if (refused := await held.refusal()) is not None:
            raise refused
        return held

    async def renew(self, who: Principal) -> str:
        """Another token for the caller; the caller's own keeps working."""
        serial = await self.ledger.next_serial(who.player_id, who.serial)
        if serial is None:
            raise InvalidToken("this token was ended by its player", "token_revoked")
        return self.issue(who.player_id, who.name, serial)

    async def end_others(self, who: Principal) -> None:
        if not await self.ledger.end_others(who.player_id, who.serial):
            raise InvalidToken("this token was ended by its player", "token_revoked")


class Held:
    """A token that opened something lasting (a stream, a long-poll), checked again while it
    runs: `refusal` says whether it still holds: unexpired, not ended by its player as the
    ledger knew at most `every` seconds ago. Whoever holds it asks at least every `every`
    seconds and before each thing it sends, so what the token opened ends at most 2 x
    `every` after the token did (TOKEN_CHECK_TTL_S, with `every` its half).

    While the ledger cannot be asked (Postgres away), the token is taken to hold for up to
    2 x `every` after it was last confirmed; then the ledger's error is raised."""

    def __init__(self, tokens: Tokens, who: Principal, expires: float, every: float) -> None:
        self.tokens, self.who, self.expires, self.every = tokens, who, expires, every
        self._confirmed = time.monotonic()

    async def refusal(self) -> InvalidToken | None:
        if self.expires <= time.time():
            return InvalidToken("this token has expired", "token_expired")
        try:
            state = await self.tokens.ledger.state(self.who.player_id, max_age=self.every)
        except Exception as exc:
            if not is_transient(exc) or time.monotonic() - self._confirmed > 2 * self.every:
                raise
            log.warning("a held token's check waits for its ledger: %r", exc)
            return None
        self._confirmed = time.monotonic()
        return self.tokens.refusal(self.who, state)

    async def during(self, work: Awaitable[T]) -> T:
        """What `work` gives, if the token holds all along: InvalidToken, the work cancelled,
        as soon as a check (every `every` seconds, and once it is done) finds it does not."""
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=self.every)
                refused = await self.refusal()
                if refused is not None:
                    raise refused
                if done:
                    return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
