"""Signing keys from the environment: several verify, the first signs, weak ones are refused."""

import logging
import secrets

import msgspec
import pytest

from infra.auth.keys import (
    KNOWN_DEFAULTS,
    BadKeys,
    SigningKey,
    UnsafeSecrets,
    check_secrets,
    keyring_of,
)
from infra.settings import Settings, from_env

STRONG = secrets.token_urlsafe(48)
OTHER = secrets.token_urlsafe(48)


def test_one_secret_is_one_key_named_by_its_hash() -> None:
    ring = from_env({"TURNPOST_SECRET": STRONG}).keyring()
    assert ring.keys == (SigningKey.from_secret(STRONG),)
    assert ring.signing.kid.startswith("k") and STRONG not in ring.signing.kid
    assert STRONG not in repr(ring)


def test_a_list_of_keys_signs_with_the_first_and_verifies_with_all() -> None:
    ring = from_env({"TURNPOST_KEYS": f" 2026-06:{OTHER}, {STRONG} "}).keyring()
    assert [k.kid for k in ring.keys] == ["2026-06", SigningKey.from_secret(STRONG).kid]
    assert ring.signing.secret == OTHER
    assert ring.get("2026-06") == SigningKey("2026-06", OTHER) and ring.get("nope") is None
    # a bare secret is the same key as TURNPOST_SECRET was: moving to a list keeps its tokens
    assert ring.keys[1] == from_env({"TURNPOST_SECRET": STRONG}).keyring().signing


@pytest.mark.parametrize(
    ("keys", "secret"),
    [
        (f"a:{STRONG},a:{OTHER}", ""),  # a kid twice
        (f"{STRONG},{STRONG}", ""),
        (f"a:{STRONG},,b:{OTHER}", ""),
        (f"a:{STRONG},b:", ""),
        (f"bad kid:{STRONG}", ""),
        (f"a:{STRONG}", OTHER),  # both set
    ],
    # named, not by their random secrets: every pytest-xdist worker must collect the same ids
    ids=["kid-twice", "two-unnamed", "empty-entry", "empty-key", "bad-kid", "keys-and-secret"],
)
def test_unreadable_keys_are_refused_even_in_development_mode(keys: str, secret: str) -> None:
    with pytest.raises(BadKeys):
        keyring_of(keys, secret)
    with pytest.raises(UnsafeSecrets):
        check_secrets(Settings(keys=keys, secret=secret, dev=True))


@pytest.mark.parametrize(
    "settings",
    [
        *(Settings(secret=default) for default in KNOWN_DEFAULTS),
        Settings(secret="CHANGE-ME".lower()),
        Settings(secret="x" * 31),
        Settings(),  # none set
        Settings(keys=f"new:{STRONG},old:dev-secret-change-me"),  # an old key is as forgeable
        Settings(secret=STRONG, stream_key="short"),
    ],
)
def test_forgeable_secrets_stop_a_service_unless_in_development_mode(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(UnsafeSecrets, match="TURNPOST_DEV=1"):
        check_secrets(settings)
    with caplog.at_level(logging.WARNING):
        check_secrets(msgspec.structs.replace(settings, dev=True))
    assert "DEVELOPMENT MODE" in caplog.text


def test_strong_secrets_pass_quietly(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert check_secrets(Settings(secret="x" * 32)).signing.secret == "x" * 32
        check_secrets(Settings(keys=f"new:{STRONG},{OTHER}", stream_key=OTHER))
    assert caplog.text == ""


def test_development_mode_with_no_key_signs_with_the_published_fallback() -> None:
    settings = from_env({"TURNPOST_DEV": "1"})
    assert settings.dev and check_secrets(settings).signing.secret in KNOWN_DEFAULTS
    assert not from_env({"TURNPOST_DEV": "0"}).dev


def test_commands_are_signed_with_a_key_derived_from_the_signing_key() -> None:
    one = from_env({"TURNPOST_SECRET": STRONG})
    listed = from_env({"TURNPOST_KEYS": f"{STRONG},old:{OTHER}"})
    assert one.command_key() == listed.command_key()
    assert from_env({"TURNPOST_KEYS": f"new:{OTHER},{STRONG}"}).command_key() != one.command_key()
