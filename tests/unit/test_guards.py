"""The pure parts of the guards: JSON depth, route classes, client addresses, limits."""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.http.guards import json_too_deep
from infra.http.rate_counters import Limit, MemoryCounter, parse_limit
from infra.http.ratelimit import (
    RateLimiter,
    _trusted,
    address_key,
    client_address,
    parse_networks,
    route_class,
)
from infra.settings import Settings


def nested(depth: int, inner: str = "[]") -> bytes:
    return ("[" * (depth - 1) + inner + "]" * (depth - 1)).encode()


@pytest.mark.parametrize("depth", [1, 2, 31, 32])
def test_depth_up_to_the_limit_passes(depth: int) -> None:
    assert not json_too_deep(nested(depth), 32)


@pytest.mark.parametrize("depth", [33, 100, 10_000, 200_000])
def test_depth_over_the_limit_is_caught(depth: int) -> None:
    assert json_too_deep(nested(depth), 32)


def test_objects_and_arrays_count_alike() -> None:
    deep = b'{"a":' * 40 + b"1" + b"}" * 40
    assert json_too_deep(deep, 32)
    assert not json_too_deep(deep, 40)
    assert json_too_deep(b'{"action": ' + nested(10_000) + b', "expected_version": 1}', 32)


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps({"name": "[" * 1000 + "{" * 1000, "quote": 'a \\" [[[ "', "x": [[1]]})
    assert not json_too_deep(text.encode(), 3)
    escaped = b'["\\\\", [[[1]]]]'  # a string holding one backslash, then real depth 4
    assert json_too_deep(escaped, 3) and not json_too_deep(escaped, 4)


def test_the_scan_agrees_with_the_decoder_where_it_stops() -> None:
    """Wherever the text stops being JSON, the decoder stops too, no deeper than the scan."""
    for raw in (b'["' + b"[" * 5000, b"[" * 10 + b'"' + b"[" * 5000, b'"' + b"[" * 5000):
        with pytest.raises(msgspec.DecodeError):
            msgspec.json.decode(raw)
    assert json_too_deep(b"[" * 10 + b"]" * 3 + b"[" * 40, 32)


def depth_of(value: Any) -> int:
    """A decoded value's nesting: 1 for an empty list or object, one more per level."""
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    return 0


# Strings full of what fools a scanner: brackets, quotes, backslashes, escapes of each
_TRICKY = st.text(alphabet=st.sampled_from('[]{}"\\/ab\n\t\u00e9\u2028'), max_size=12)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(value=_JSON, indent=st.sampled_from([None, 1]), ascii=st.booleans())
def test_the_scan_agrees_with_a_parser_on_generated_json(
    value: Any, indent: int | None, ascii: bool
) -> None:
    raw = json.dumps(value, indent=indent, ensure_ascii=ascii).encode()
    depth = depth_of(msgspec.json.decode(raw))  # the real parser's reading of the same text
    for limit in {0, 1, depth - 1, depth, depth + 1}:
        if limit >= 0:
            assert json_too_deep(raw, limit) == (depth > limit), (raw, limit)


# Hostile bodies at the body limit (64 KB): each once cost the old scan seconds or more
_LIMIT = 65_536


def hostile(limit: int) -> dict[str, bytes]:
    """The hostile shapes, each of about `limit` bytes."""
    return {
        "unclosed escaped string": b'"' + b'\\"' * (limit // 2 - 40) + b"[" * 33,
        "escaped quotes in an array": b'["' + b'\\"' * (limit // 2 - 40) + b"[" * 33,
        "quotes": b'"' * limit,
        "backslashes": b'"' + b"\\" * (limit - 1),
        "empty pairs": b"[]" * (limit // 2),
        "empty objects": b"[" + b"{}," * (limit // 3 - 1) + b"{}]",
        "short strings": b"[" + b'"[",' * (limit // 4 - 1) + b"1]",
        "deep objects": b'{"a":[' * (limit // 6),
    }


HOSTILE = hostile(_LIMIT)


def best_time(raw: bytes, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        json_too_deep(raw, 32)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bodies_at_the_limit_cost_little(name: str) -> None:
    """Linear: four times the body costs at most about four times as much (the best of five
    runs of each, the same shape at 16 KB and at 64 KB; a quadratic scan costs sixteen
    times), and far from the seconds the old scan took (about 1 ms each on a 2-core CI
    machine; the bound is 50 ms). A ratio, not a time, so a loaded machine passes."""
    raw = HOSTILE[name]
    assert len(raw) <= _LIMIT
    big, quarter = best_time(raw), best_time(hostile(_LIMIT // 4)[name])
    assert big < 0.05, f"{name}: {big * 1000:.1f} ms"
    assert big < 8 * quarter + 0.001, (
        f"{name}: {big * 1000:.2f} ms at 64 KB, {quarter * 1000:.2f} ms at 16 KB: not linear"
    )


def test_hostile_bodies_are_judged_right() -> None:
    assert not json_too_deep(HOSTILE["unclosed escaped string"], 32)  # all one string
    assert not json_too_deep(HOSTILE["empty pairs"], 32)
    assert json_too_deep(HOSTILE["deep objects"], 32)
    assert json_too_deep(b'["\\\\"' + b"[" * 33, 32)  # a string of one backslash, then 34


@pytest.mark.parametrize(
    ("method", "path", "kind"),
    [
        ("POST", "/v1/players", "register"),
        ("POST", "/v1/games/{game_id:str}/actions", "action"),
        ("POST", "/v1/games/{game_id:str}/resign", "action"),
        ("POST", "/v1/games/{game_id:str}/claim", "action"),
        ("POST", "/v1/rooms", "write"),
        ("POST", "/v1/rooms/{room_id:str}/join", "write"),
        ("GET", "/v1/games/{game_id:str}/events", "read"),
        ("GET", "/v1/players", "read"),
        ("HEAD", "/v1/catalog", "read"),
    ],
)
def test_route_classes(method: str, path: str, kind: str) -> None:
    assert route_class(method, path) == kind


def scope(peer: str, *forwarded: str) -> Any:
    headers = [(b"x-forwarded-for", f.encode()) for f in forwarded]
    return {"client": (peer, 5000), "headers": headers}


def test_forwarded_for_counts_only_from_a_trusted_proxy() -> None:
    gateway = parse_networks("10.0.0.5, 192.168.0.0/16")
    assert client_address(scope("203.0.113.9", "1.2.3.4"), gateway) == "203.0.113.9"
    assert client_address(scope("203.0.113.9", "1.2.3.4"), ()) == "203.0.113.9"
    assert client_address(scope("10.0.0.5", "1.2.3.4"), gateway) == "1.2.3.4"
    # a client's own X-Forwarded-For is to the left of what the proxies appended
    assert client_address(scope("10.0.0.5", "6.6.6.6, 1.2.3.4"), gateway) == "1.2.3.4"
    assert client_address(scope("10.0.0.5", "6.6.6.6", "1.2.3.4, 192.168.1.1"), gateway) == (
        "1.2.3.4"
    )
    assert client_address(scope("10.0.0.5"), gateway) == "10.0.0.5"
    assert client_address({"client": None, "headers": []}, gateway) == "unknown"


def test_a_request_is_counted_for_its_player_else_for_its_address() -> None:
    settings = Settings(secret="s" * 40, trusted_proxies="10.0.0.5")
    limiter = RateLimiter(MemoryCounter(), settings)
    token = issue(settings.keyring().signing, "p-1", "Ann")
    forged = issue(SigningKey.from_secret("t" * 40), "p-1", "Ann")

    def asking(peer: str, *headers: tuple[bytes, bytes]) -> Any:
        return {"client": (peer, 5000), "headers": [(b"host", b"x"), *headers]}

    bearer = (b"authorization", f"Bearer {token}".encode())
    assert limiter.subject(asking("203.0.113.9", bearer), "action") == "player:p-1"
    assert limiter.subject(asking("203.0.113.9", bearer), "register") == "address:203.0.113.9"
    wrong = (b"authorization", f"Bearer {forged}".encode())
    assert limiter.subject(asking("203.0.113.9", wrong), "read") == "address:203.0.113.9"
    # behind a trusted proxy the chain is read on every request: the subject follows it
    for hop in ("1.2.3.4", "5.6.7.8", "1.2.3.4"):
        forwarded = (b"x-forwarded-for", hop.encode())
        assert limiter.subject(asking("10.0.0.5", forwarded), "read") == f"address:{hop}"
    assert limiter.subject(asking("10.0.0.5"), "read") == "address:10.0.0.5"
    untrusted = (b"x-forwarded-for", b"1.2.3.4")
    assert limiter.subject(asking("203.0.113.7", untrusted), "read") == "address:203.0.113.7"
    # what is remembered of addresses grows with real clients only, never with what a client
    # writes into its own X-Forwarded-For (to the left of what the proxies append)
    remembered = _trusted.cache_info().currsize + address_key.cache_info().currsize
    for n in range(200):
        made_up = (b"x-forwarded-for", f"{n}.{n}.0.1, 9.9.9.{n % 2}".encode())
        assert limiter.subject(asking("10.0.0.5", made_up), "read") == f"address:9.9.9.{n % 2}"
        assert limiter.subject(asking("203.0.113.7", made_up), "read") == "address:203.0.113.7"
    assert _trusted.cache_info().currsize + address_key.cache_info().currsize <= remembered + 4


def test_addresses_are_counted_per_host_and_per_ipv6_64() -> None:
    assert address_key("203.0.113.9") == "203.0.113.9"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_key("not-an-address") == "not-an-address"


def test_limits_parse_and_switch_off() -> None:
    assert parse_limit("120/minute") == Limit(120, 60)
    assert parse_limit("20 per hour") == Limit(20, 3600)
    assert parse_limit("10/30 seconds") == Limit(10, 30)
    assert parse_limit(" 5/Day ") == Limit(5, 86400)
    assert parse_limit("off") is None and parse_limit("") is None
    for bad in ("lots", "0/minute", "5/0 minutes", "5/fortnight", "-1/minute"):
        with pytest.raises(ValueError):
            parse_limit(bad)
