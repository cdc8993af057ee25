"""Bearer tokens: HS256 JWTs signed by the lobby, verified by every service.

A token names its signing key (`kid` header) and carries its player's token `serial`, which
the players table may have ended (infra/auth/tokens.py). Tokens from before keys had ids carry
neither: they are checked against every key, and count as serial 0.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

import jwt
import msgspec

from infra.auth.keys import Keyring, SigningKey

ISSUER = "turnpost-lobby"


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    serial: int = 0  # which of the player's tokens this is


class InvalidToken(Exception):
    """Refused; `code` is the problem code a client can switch on."""

    def __init__(self, detail: str, code: str = "unauthorized") -> None:
        super().__init__(detail)
        self.code = code


def issue(key: SigningKey, player_id: str, name: str, serial: int = 0, ttl_days: int = 365) -> str:
    now = int(time.time())
    claims = {
        "sub": player_id,
        "name": name,
        "serial": serial,
        "iss": ISSUER,
        "iat": now,
        "exp": now + ttl_days * 86400,
    }
    return jwt.encode(claims, key.secret, algorithm="HS256", headers={"kid": key.kid})


def verify(keyring: Keyring, header: str | None) -> Principal:
    return _unexpired(*_verified(keyring, header))


def _verified(keyring: Keyring, header: str | None) -> tuple[Principal, float]:
    """The header's token's player and expiry, its signature verified."""
    if not header:
        raise InvalidToken("missing Authorization: Bearer <token>")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise InvalidToken("the Authorization header must be 'Bearer <token>'")
    return _admit(keyring, token)


def _unexpired(principal: Principal, expires: float) -> Principal:
    if expires <= time.time():
        raise InvalidToken("this token has expired", "token_expired")
    return principal


# The request's scope remembers the token it verified, under which keys: the rate limiter
# verifies it to count by player (infra/http/ratelimit.py), the handler to admit its bearer.
VERIFIED = "turnpost.verified"


def verify_in(scope: Any, keyring: Keyring, header: str | None) -> Principal:
    """`verify`, remembered in a request's scope: asked again for the same header under the
    same keyring (the same object), it answers what it found without verifying the signature
    again, its expiry checked again. A refusal is not remembered: it is raised again."""
    return verified_in(scope, keyring, header)[0]


def verified_in(scope: Any, keyring: Keyring, header: str | None) -> tuple[Principal, float]:
    """`verify_in`, with the token's expiry (a time.time()): what a stream opened with it
    checks again while it lasts (infra/auth/tokens.py, Held)."""
    seen = scope.get(VERIFIED)
    if seen is not None and seen[0] is keyring and seen[1] == header:
        return _unexpired(seen[2], seen[3]), seen[3]
    principal, expires = _verified(keyring, header)
    _unexpired(principal, expires)
    scope[VERIFIED] = (keyring, header, principal, expires)
    return principal, expires


@lru_cache(maxsize=4096)
def _admit(keyring: Keyring, token: str) -> tuple[Principal, float]:
    """The token's player and expiry, verified against the keyring (remembered: a token is
    sent again and again, and the same token under the same keys verifies the same; only
    valid ones are remembered, exceptions are not cached; expiry is checked on every use)."""
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"invalid token: {exc}") from exc
    if kid is None:
        candidates = keyring.keys
    elif (key := keyring.get(kid) if isinstance(kid, str) else None) is not None:
        candidates = (key,)
    else:
        raise InvalidToken(f"this token's signing key {kid!r} is not known here", "unknown_key")
    error: jwt.PyJWTError | None = None
    for key in candidates:
        try:
            return _decode(key.secret, token)
        except jwt.PyJWTError as exc:
            error = exc
    raise InvalidToken(f"invalid token: {error}") from error


def _decode(secret: str, token: str) -> tuple[Principal, float]:
    claims = jwt.decode(
        token,
        secret,
        algorithms=["HS256"],
        issuer=ISSUER,
        options={"require": ["sub", "exp"], "verify_exp": False},  # checked on every use
    )
    serial = claims.get("serial", 0)
    if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
        raise jwt.InvalidTokenError("the serial claim is not a count")
    expires = claims["exp"]
    if not isinstance(expires, int | float) or isinstance(expires, bool):
        raise jwt.InvalidTokenError("the exp claim is not a time")
    principal = Principal(
        player_id=str(claims["sub"]), name=str(claims.get("name", "")), serial=serial
    )
    return principal, float(expires)
