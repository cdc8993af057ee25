"""Signed stream payloads: the body comes back only with the key that signed it."""

from __future__ import annotations

import pytest

from infra.auth.signing import BadSignature, derive_key, sign, verify

KEY = derive_key("a-service-secret-of-at-least-32-bytes")


def test_a_signed_body_verifies_with_its_key_only() -> None:
    body = b'{"kind":"submit_action","seat":1}'
    payload = sign(KEY, body)
    assert payload.startswith(b"v1.") and payload.endswith(body)
    assert verify(KEY, payload) == body
    with pytest.raises(BadSignature):
        verify(derive_key("another-service-secret-of-32-bytes!!"), payload)


@pytest.mark.parametrize(
    "payload",
    [
        b'{"kind":"submit_action"}',  # unsigned
        b"v1." + b"0" * 64 + b'.{"kind":"submit_action"}',  # a made-up digest
        b"v1.short.{}",
        b"",
    ],
)
def test_anything_else_is_refused(payload: bytes) -> None:
    with pytest.raises(BadSignature):
        verify(KEY, payload)


def test_any_change_to_the_body_is_refused() -> None:
    payload = sign(KEY, b'{"seat":1}')
    with pytest.raises(BadSignature):
        verify(KEY, payload.replace(b'"seat":1', b'"seat":0'))


def test_keys_derived_for_other_purposes_differ() -> None:
    assert derive_key("s" * 32) != derive_key("s" * 32, "webhooks") != derive_key("t" * 32)
