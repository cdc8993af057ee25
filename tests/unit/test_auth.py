"""Bearer tokens: issued by the lobby, verified (and remembered) by every service."""

import secrets
import time

import jwt
import pytest

from infra.auth.bearer import ISSUER, InvalidToken, issue, verify
from infra.auth.keys import KNOWN_DEFAULTS, Keyring, SigningKey

KEY = SigningKey.from_secret(secrets.token_urlsafe(48))
RING = Keyring((KEY,))


def code_of(ring: Keyring, token: str) -> str:
    with pytest.raises(InvalidToken) as refused:
        verify(ring, f"Bearer {token}")
    return refused.value.code


def test_a_token_names_its_player_its_serial_and_its_key() -> None:
    p = verify(RING, f"Bearer {issue(KEY, 'p-1', 'Ada', serial=3)}")
    assert (p.player_id, p.name, p.serial) == ("p-1", "Ada", 3)
    assert verify(RING, f"bearer  {issue(KEY, 'p-1', 'Ada')}").player_id == "p-1"
    assert jwt.get_unverified_header(issue(KEY, "p-1", "Ada"))["kid"] == KEY.kid


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Bearer ", "Basic abc", "Bearer not.a.jwt", "Token " + "x" * 20],
)
def test_malformed_headers_are_refused(header: str | None) -> None:
    with pytest.raises(InvalidToken) as refused:
        verify(RING, header)
    assert refused.value.code == "unauthorized"


def test_a_token_signed_with_another_secret_is_refused() -> None:
    other = SigningKey.from_secret("another-secret-of-at-least-32-bytes!")
    assert code_of(RING, issue(other, "p-1", "x")) == "unknown_key"
    # the same forger, naming our key: the signature does not hold
    assert code_of(RING, issue(SigningKey(KEY.kid, other.secret), "p-1", "x")) == "unauthorized"


@pytest.mark.filterwarnings("ignore:The HMAC key is")  # the defaults are short: the point
@pytest.mark.parametrize("default", KNOWN_DEFAULTS)
def test_a_token_forged_with_a_published_default_is_refused(default: str) -> None:
    claims = {"sub": "p-1", "iss": ISSUER, "exp": int(time.time()) + 60}
    bare = jwt.encode(claims, default, algorithm="HS256")
    assert code_of(RING, bare) == "unauthorized"
    assert code_of(RING, issue(SigningKey.from_secret(default), "p-1", "x")) == "unknown_key"
    assert code_of(RING, issue(SigningKey(KEY.kid, default), "p-1", "x")) == "unauthorized"


def test_while_a_new_key_signs_an_old_one_still_verifies_until_removed() -> None:
    old, new = (
        SigningKey("old", secrets.token_urlsafe(48)),
        SigningKey("new", secrets.token_urlsafe(48)),
    )
    before = issue(Keyring((old,)).signing, "p-1", "Ada")
    rotating = Keyring((new, old))
    after = issue(rotating.signing, "p-1", "Ada")
    assert jwt.get_unverified_header(after)["kid"] == "new"
    assert verify(rotating, f"Bearer {before}").player_id == "p-1"
    assert verify(rotating, f"Bearer {after}").player_id == "p-1"
    rotated = Keyring((new,))
    assert code_of(rotated, before) == "unknown_key"
    assert verify(rotated, f"Bearer {after}").player_id == "p-1"


def test_a_token_from_before_key_ids_is_checked_against_every_key() -> None:
    old = secrets.token_urlsafe(48)
    claims = {"sub": "p-4", "name": "Old", "iss": ISSUER, "exp": int(time.time()) + 60}
    legacy = jwt.encode(claims, old, algorithm="HS256")  # no kid, no serial
    p = verify(Keyring((KEY, SigningKey.from_secret(old))), f"Bearer {legacy}")
    assert (p.player_id, p.serial) == ("p-4", 0)
    assert code_of(RING, legacy) == "unauthorized"


def test_an_expired_token_is_refused_even_after_it_was_accepted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from infra.auth import bearer

    exp = int(time.time()) + 60
    token = jwt.encode(
        {"sub": "p-2", "iss": ISSUER, "exp": exp}, KEY.secret, "HS256", {"kid": KEY.kid}
    )
    assert verify(RING, f"Bearer {token}").player_id == "p-2"  # now cached
    # the clock past the expiry (a real wait of under a second left the test at the mercy
    # of a slow first verify); the token, accepted once, is refused from the cache
    monkeypatch.setattr(bearer.time, "time", lambda: exp + 0.001)
    assert code_of(RING, token) == "token_expired"


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "p-3", "iss": ISSUER},  # no expiry
        {"sub": "p-3", "iss": ISSUER, "exp": "soon"},
        {"sub": "p-3", "iss": ISSUER, "exp": time.time() + 60, "serial": -1},
        {"sub": "p-3", "iss": ISSUER, "exp": time.time() + 60, "serial": "2"},
        {"sub": "p-3", "iss": "someone-else", "exp": time.time() + 60},
    ],
)
def test_a_token_with_bad_claims_is_refused(claims: dict[str, object]) -> None:
    token = jwt.encode(claims, KEY.secret, algorithm="HS256", headers={"kid": KEY.kid})
    assert code_of(RING, token) == "unauthorized"


def test_a_token_verified_in_a_request_is_not_verified_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """infra.auth.bearer.verify_in: the rate limiter and the handler verify the same token of a
    request once; another header or another keyring verifies again; a refusal is not kept;
    the expiry of what was kept is checked again."""
    from infra.auth import bearer as auth

    key = SigningKey.from_secret(secrets.token_urlsafe(32))
    ring, other_ring = Keyring((key,)), Keyring((key,))
    header = f"Bearer {issue(key, 'p1', 'Ada')}"
    calls = counted_verifications(monkeypatch)
    scope: dict[str, object] = {}
    first = auth.verify_in(scope, ring, header)
    assert auth.verify_in(scope, ring, header) is first and len(calls) == 1
    assert first.player_id == "p1"
    assert auth.verify_in(scope, other_ring, header) == first and len(calls) == 2
    second = f"Bearer {issue(key, 'p2', 'Bob')}"
    assert auth.verify_in(scope, ring, second).player_id == "p2" and len(calls) == 3
    for _ in range(2):
        with pytest.raises(InvalidToken):
            auth.verify_in(scope, ring, "Bearer nonsense")
    assert len(calls) == 5  # each refusal verified again
    assert auth.verify_in(scope, ring, second).player_id == "p2"  # kept what it verified
    later = time.time() + 400 * 86400  # past the token's year
    monkeypatch.setattr(auth.time, "time", lambda: later)
    with pytest.raises(InvalidToken) as expired:
        auth.verify_in(scope, ring, second)
    assert expired.value.code == "token_expired" and len(calls) == 5  # from what was kept


@pytest.mark.parametrize("fast_routes", [True, False])
def test_a_request_s_token_is_verified_once_by_the_rate_limiter_and_the_handler(
    monkeypatch: pytest.MonkeyPatch, fast_routes: bool
) -> None:
    """The game service counts a request by its player and admits its bearer: one
    verification of the token's signature, on a fast route and on Litestar's alike."""
    import uuid

    from litestar.testing import TestClient

    from infra.auth import bearer as auth
    from infra.settings import Settings
    from services.game.app import create_app

    settings = Settings(secret="s" * 48, dev=True, fast_routes=fast_routes)
    token = issue(settings.keyring().signing, "p-1", "Ada")
    calls = counted_verifications(monkeypatch)
    auth._admit.cache_clear()
    with TestClient(create_app(settings, embedded=True)) as client:
        game = uuid.uuid4()
        for method, path, body in (
            ("GET", f"/v1/games/{game}", None),
            ("GET", f"/v1/games/{game}/legal-actions", None),
            ("POST", f"/v1/games/{game}/actions", {"action": {}, "expected_version": 0}),
        ):
            calls.clear()
            r = client.request(
                method, path, json=body, headers={"Authorization": f"Bearer {token}"}
            )
            assert r.status_code == 404 and r.json()["code"] == "unknown_game"  # admitted
            assert r.headers["ratelimit-limit"]  # counted by player
            assert len(calls) == 1, (method, path)


def counted_verifications(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The headers whose token's signature infra.auth.bearer verifies from now on, in order."""
    from infra.auth import bearer as auth

    calls: list[str | None] = []
    verified = auth._verified

    def counted(keyring: Keyring, given: str | None) -> tuple[auth.Principal, float]:
        calls.append(given)
        return verified(keyring, given)

    monkeypatch.setattr(auth, "_verified", counted)
    return calls
