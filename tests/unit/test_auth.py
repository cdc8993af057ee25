"""Bearer tokens: issued by the lobby, verified (and remembered) by every service."""

import time

import jwt
import pytest

from infra.auth import ISSUER, InvalidToken, issue, verify

SECRET = "unit-test-secret-of-at-least-32-bytes"


def test_a_token_names_its_player() -> None:
    p = verify(SECRET, f"Bearer {issue(SECRET, 'p-1', 'Ada')}")
    assert (p.player_id, p.name) == ("p-1", "Ada")
    assert verify(SECRET, f"bearer  {issue(SECRET, 'p-1', 'Ada')}").player_id == "p-1"


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Bearer ", "Basic abc", "Bearer not.a.jwt", "Token " + "x" * 20],
)
def test_malformed_headers_are_refused(header: str | None) -> None:
    with pytest.raises(InvalidToken):
        verify(SECRET, header)


def test_a_token_signed_with_another_secret_is_refused() -> None:
    with pytest.raises(InvalidToken):
        verify(SECRET, f"Bearer {issue('another-secret-of-at-least-32-bytes!', 'p-1', 'x')}")


def test_an_expired_token_is_refused_even_after_it_was_accepted_once() -> None:
    soon = int(time.time()) + 1
    token = jwt.encode({"sub": "p-2", "iss": ISSUER, "exp": soon}, SECRET, algorithm="HS256")
    assert verify(SECRET, f"Bearer {token}").player_id == "p-2"  # now cached
    time.sleep(max(0.0, soon - time.time()) + 0.05)
    with pytest.raises(InvalidToken, match="expired"):
        verify(SECRET, f"Bearer {token}")


def test_a_token_without_expiry_is_refused() -> None:
    token = jwt.encode({"sub": "p-3", "iss": ISSUER}, SECRET, algorithm="HS256")
    with pytest.raises(InvalidToken):
        verify(SECRET, f"Bearer {token}")
