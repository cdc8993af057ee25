"""Questions: what a seat must answer before play goes on (a trade offer, a discard-down, a
choice of cards). Each engine shows the seat its open questions in `view.private.questions`,
and every answer it lists names the question it answers in its `question` field, so a client
never has to find the question in the event feed (RULES.md of each game, "Questions").

An answer that names no question answers the one open (older clients); one that names a
question that is not open now (answered already, replaced, or never asked) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from games.api import IllegalAction

STALE = "stale_question"


def check_named(action: Any, asked: Sequence[Any]) -> None:
    """Refuse an answer naming a question that is not one of those `asked` of its seat now."""
    named = getattr(action, "question", None)
    if named is None or named in asked:
        return
    now = " or ".join(_text(q) for q in asked) or "nothing"
    raise IllegalAction(STALE, f"this answers {_text(named)}, but you are asked {now} now")


def _text(question: Any) -> str:
    return msgspec.json.encode(question).decode()
