"""The values inside a page's cursor, checked before they reach Postgres: a cursor is the
client's text, and one this API never made is 400 `bad_cursor`, never a driver's error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import msgspec

from contracts.problems import ProblemError

# an integer Postgres' bigint holds (a sort key, microseconds since 1970)
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


def bad_cursor() -> ProblemError:
    return ProblemError(400, "bad_cursor", "the cursor is not one this API returned")


def instant(text: object) -> datetime:
    """A cursor's time: ISO 8601 with its offset, within the years a datetime holds once in
    UTC (the offset of 0001-01-01T00:00+14:00 takes it out of them)."""
    if not isinstance(text, str):
        raise bad_cursor()
    try:
        at = datetime.fromisoformat(text)
        if at.tzinfo is None:
            raise ValueError("no offset")
        at.astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise bad_cursor() from exc
    return at


def word(text: object, most: int = 200) -> str:
    """A cursor's id: text Postgres stores (no NUL, nothing UTF-8 cannot say), and short."""
    if not isinstance(text, str) or not 0 < len(text) <= most or "\x00" in text:
        raise bad_cursor()
    try:
        text.encode()
    except UnicodeEncodeError as exc:  # a lone surrogate, from JSON's \ud800
        raise bad_cursor() from exc
    return text
