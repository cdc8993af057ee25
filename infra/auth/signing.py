"""Commands on the streams are signed with a service key (HMAC-SHA256), so a process that
can write to Redis but does not hold the key cannot forge a move or a timeout.

A signed payload is `v1.<hex digest>.<body>`; the digest covers the body's exact bytes.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = b"v1."
_DIGEST_HEX = 64


class BadSignature(Exception):
    """Unsigned, signed with another key, or altered on the way."""


def derive_key(secret: str, purpose: str = "turnpost:commands") -> bytes:
    """A key for one purpose from a service secret, so one secret never signs two things."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).digest()


def sign(key: bytes, body: bytes) -> bytes:
    digest = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    return PREFIX + digest + b"." + body


def verify(key: bytes, payload: bytes) -> bytes:
    """The body of a payload signed with `key`; BadSignature otherwise."""
    if (
        not payload.startswith(PREFIX)
        or payload[len(PREFIX) + _DIGEST_HEX : len(PREFIX) + _DIGEST_HEX + 1] != b"."
    ):
        raise BadSignature("not a signed payload")
    digest = payload[len(PREFIX) : len(PREFIX) + _DIGEST_HEX]
    body = payload[len(PREFIX) + _DIGEST_HEX + 1 :]
    expected = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    if not hmac.compare_digest(digest, expected):
        raise BadSignature("the signature does not match")
    return body
