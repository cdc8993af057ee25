"""Bearer tokens: HS256 JWTs signed by the lobby, verified by every service."""

from __future__ import annotations

import time
from functools import lru_cache

import jwt
import msgspec

ISSUER = "turnpost-lobby"


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str


class InvalidToken(Exception):
    pass


def issue(secret: str, player_id: str, name: str, ttl_days: int = 365) -> str:
    now = int(time.time())
    claims = {
        "sub": player_id,
        "name": name,
        "iss": ISSUER,
        "iat": now,
        "exp": now + ttl_days * 86400,
    }
    return jwt.encode(claims, secret, algorithm="HS256")


def verify(secret: str, header: str | None) -> Principal:
    if not header:
        raise InvalidToken("missing Authorization: Bearer <token>")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise InvalidToken("the Authorization header must be 'Bearer <token>'")
    try:
        principal, expires = _decode(secret, token.strip())
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"invalid token: {exc}") from exc
    if expires <= time.time():
        raise InvalidToken("invalid token: Signature has expired")
    return principal


@lru_cache(maxsize=4096)
def _decode(secret: str, token: str) -> tuple[Principal, float]:
    """Verified tokens are remembered (only valid ones: exceptions are not cached)."""
    claims = jwt.decode(
        token, secret, algorithms=["HS256"], issuer=ISSUER, options={"require": ["sub", "exp"]}
    )
    principal = Principal(player_id=str(claims["sub"]), name=str(claims.get("name", "")))
    return principal, float(claims["exp"])
