"""Bearer tokens: HS256 JWTs signed by the lobby, verified by every service."""

from __future__ import annotations

import time

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
        claims = jwt.decode(
            token.strip(),
            secret,
            algorithms=["HS256"],
            issuer=ISSUER,
            options={"require": ["sub", "exp"]},
        )
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"invalid token: {exc}") from exc
    return Principal(player_id=str(claims["sub"]), name=str(claims.get("name", "")))
