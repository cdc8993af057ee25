"""What the clients share beyond the routes: where the services are, what every request
carries, how long to wait before trying again, and whose turn it is."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from contracts.game import GameView
from turnpost.client.errors import retry_after

LOBBY_URL = "http://127.0.0.1:8010"
GAME_URL = "http://127.0.0.1:8020"
USER_AGENT = "turnpost-client/0.1 (python)"


@dataclass(frozen=True, slots=True)
class Policy:
    """Timeouts and bounded retries.

    `rate_limit_retries`: 429s waited out per request, each wait what `Retry-After` says and
    at most `max_retry_after` s (a longer one is raised as `RateLimited` at once);
    `unavailable_retries`: the same for a 503 that carries `Retry-After` (a backing service
    away), for requests safe to send twice only (reads, deletes, moves, resign, claim);
    `play_attempts`: decisions `play` makes before a 409 `stale_version` (or 422
    `stale_question`) is raised;
    `transport_retries`: a move's post sent again (same Idempotency-Key) after a lost
    connection; `reconnects`: stream connections opened again in a row that may bring nothing
    (each closed or failed) before an iterator raises `StreamLost`; `stream_read_s`: silence that counts as a lost stream (the services
    send a heartbeat every 15 s).
    """

    timeout: float = 40.0
    rate_limit_retries: int = 3
    unavailable_retries: int = 2
    max_retry_after: float = 60.0
    play_attempts: int = 5
    transport_retries: int = 2
    reconnects: int = 3
    stream_read_s: float = 60.0

    def headers(
        self, token: str | None, method: str, body: bytes | None, extra: Mapping[str, str] | None
    ) -> dict[str, str]:
        headers = {"user-agent": USER_AGENT, **(extra or {})}
        if token:
            headers["authorization"] = f"Bearer {token}"
        if body is not None:
            headers["content-type"] = "application/json"
        if method == "POST" and not any(k.lower() == "idempotency-key" for k in headers):
            headers["Idempotency-Key"] = str(uuid.uuid4())
        return headers

    def wait_for(
        self, response: httpx.Response, attempt: int, idempotent: bool = False
    ) -> float | None:
        """Seconds to wait before sending `response`'s request again, or None: raise it.

        A 429 was refused before anything was done, so any request may be sent again; a 503
        may come after part of the work, so only a request the service applies once."""
        wait = retry_after(response)
        if response.status_code == 429 and attempt < self.rate_limit_retries:
            wait = self.pause(attempt + 1) if wait is None else wait
        elif not (
            response.status_code == 503
            and idempotent
            and wait is not None
            and attempt < self.unavailable_retries
        ):
            return None
        return wait if wait <= self.max_retry_after else None

    def pause(self, attempt: int) -> float:
        """Backoff between tries where the service says nothing: 0, 0.25, 0.5... up to 5 s."""
        return 0.0 if attempt <= 0 else min(0.25 * 2 ** (attempt - 1), 5.0)

    def stream_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, read=self.stream_read_s)


def my_turn(view: GameView) -> bool:
    """The caller must act now: seated, awaited, and no bot playing the seat for them."""
    seat = view.your_seat
    if seat is None or seat not in view.to_act or view.status == "finished":
        return False
    return all(s.bot is None for s in view.standings if s.seat == seat)
