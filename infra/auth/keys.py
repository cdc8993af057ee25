"""Signing keys for bearer tokens: several verify, the first signs, and weak ones are refused.

`TURNPOST_KEYS` lists them, newest first: `kid:secret` entries (or a bare secret without a
`:`, whose kid is derived from it) separated by commas. `TURNPOST_SECRET` is the one-key
form. A token names its key in its `kid` header, so a key can be added, become the signing
key and later be removed without locking out the players holding older tokens.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

log = logging.getLogger(__name__)


class KeySettings(Protocol):
    """What of the settings (infra/settings.py, which imports this module) the keys read."""

    @property
    def keys(self) -> str: ...
    @property
    def secret(self) -> str: ...
    @property
    def stream_key(self) -> str: ...
    @property
    def dev(self) -> bool: ...


MIN_SECRET_BYTES = 32
# Every default that ever shipped in this repository (settings, compose, the k8s template):
# anyone can read them, so a token signed with one is forged.
KNOWN_DEFAULTS = (
    "dev-only-secret-change-me-in-production",
    "dev-secret-change-me",
    "CHANGE-ME",
)
_KNOWN = {d.lower() for d in KNOWN_DEFAULTS}
DEV_FALLBACK = KNOWN_DEFAULTS[0]  # development mode with no key set
_KID = re.compile(r"[A-Za-z0-9._-]{1,40}")
HINT = (
    "set TURNPOST_SECRET (or TURNPOST_KEYS) to 32+ random bytes, e.g. "
    "`python -c 'import secrets; print(secrets.token_urlsafe(48))'`, "
    "or TURNPOST_DEV=1 for a development stack"
)


class BadKeys(ValueError):
    """TURNPOST_KEYS / TURNPOST_SECRET cannot be read as a list of keys."""


class UnsafeSecrets(Exception):
    """Keys that cannot be read, or that anyone could know or guess outside development mode."""


@dataclass(frozen=True)
class SigningKey:
    kid: str
    secret: str = field(repr=False)

    @classmethod
    def from_secret(cls, secret: str) -> SigningKey:
        """A key named by a hash of its secret (short: it names the key, it protects nothing)."""
        digest = hashlib.sha256(b"turnpost-kid:" + secret.encode()).hexdigest()
        return cls(kid=f"k{digest[:12]}", secret=secret)


@dataclass(frozen=True)
class Keyring:
    keys: tuple[SigningKey, ...]  # the first signs; every one verifies

    @property
    def signing(self) -> SigningKey:
        return self.keys[0]

    def get(self, kid: str) -> SigningKey | None:
        return next((k for k in self.keys if k.kid == kid), None)


@lru_cache(maxsize=16)
def keyring_of(keys: str, secret: str) -> Keyring:
    """The keys of TURNPOST_KEYS, else of TURNPOST_SECRET, else the development fallback."""
    if keys.strip() and secret:
        raise BadKeys("set TURNPOST_KEYS or TURNPOST_SECRET, not both")
    if not keys.strip():
        return Keyring((SigningKey.from_secret(secret or DEV_FALLBACK),))
    ring: list[SigningKey] = []
    for n, entry in enumerate(keys.split(","), start=1):
        entry = entry.strip()
        kid, colon, named = entry.partition(":")
        if not entry or (colon and not named):
            raise BadKeys(f"TURNPOST_KEYS entry {n} is empty")
        if colon and not _KID.fullmatch(kid):
            raise BadKeys(f"TURNPOST_KEYS entry {n}: a kid is 1-40 of A-Z a-z 0-9 . _ -")
        key = SigningKey(kid, named) if colon else SigningKey.from_secret(entry)
        if any(k.kid == key.kid for k in ring):
            raise BadKeys(f"TURNPOST_KEYS entry {n}: kid {key.kid!r} appears twice")
        ring.append(key)
    return Keyring(tuple(ring))


def weaknesses(settings: KeySettings) -> list[str]:
    """What makes these settings' secrets forgeable; empty when none is."""
    try:
        ring = keyring_of(settings.keys, settings.secret)
    except BadKeys as exc:
        return [str(exc)]
    found = []
    named = [(f"key {k.kid!r}", k.secret) for k in ring.keys]
    if not settings.keys.strip() and not settings.secret:
        found.append("no signing key is set (TURNPOST_KEYS or TURNPOST_SECRET)")
        named = []  # rather than "the fallback is a published default"
    if settings.stream_key:
        named.append(("TURNPOST_STREAM_KEY", settings.stream_key))
    for name, secret in named:
        if secret.strip().lower() in _KNOWN:
            found.append(f"{name} is a published default")
        elif len(secret.encode()) < MIN_SECRET_BYTES:
            found.append(f"{name} is shorter than {MIN_SECRET_BYTES} bytes")
    return found


def check_secrets(settings: KeySettings, warn: bool = True) -> Keyring:
    """The keyring, once its secrets are strong; in development mode a loud warning instead."""
    try:
        ring = keyring_of(settings.keys, settings.secret)
    except BadKeys as exc:
        raise UnsafeSecrets(str(exc)) from exc
    found = weaknesses(settings)
    if found and not settings.dev:
        raise UnsafeSecrets(f"{'; '.join(found)}: {HINT}")
    if found and warn:
        log.warning(
            "DEVELOPMENT MODE (TURNPOST_DEV=1): anyone can forge tokens and commands here: %s",
            "; ".join(found),
        )
    return ring
