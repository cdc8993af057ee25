"""A client in sixty lines: two people play each game to the end over the public HTTP API.

Written as a third party would write it, from README, docs/api.md and the served OpenAPI only:
no import of this repository's services, games, infra or contracts
(`test_the_client_imports_nothing_of_turnpost` checks), httpx and the standard library. Each
seat runs `play`, the whole client loop for every game: at most 60 lines (asserted),
policy-free (a seeded random choice among the listed actions, each postable as-is), and it
never polls: it waits only on the event feed's long-poll, whose every answer carries news
(asserted) and says whose turn it is.
"""

from __future__ import annotations

import ast
import inspect
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import httpx
import pytest

LOOP_LINES = 60


def play(game_url: str, token: str, game_id: str, seed: int) -> dict[str, Any]:
    """Play one seat of `game_id` to its end; returns the final feed page and what it took.
    This function is the whole client, for every game: at most 60 lines (asserted below).

    Waits for news with `GET /events?after=V&wait=30`: the answer carries the events after V
    and where the game stands (`status`, `to_act`, `your_turn`, `outcome`). On its turn it
    lists its legal actions, posts one against their version, and waits from where it was:
    its own move is news, so the next answer comes at once and says if it must act again.
    Every answer must bring events (else it was a poll that found nothing); every move must
    be accepted (two people, no bot: a 409 would be a simultaneous choice that collided).
    """
    rng = random.Random(seed)
    stats = {"moves": 0, "waits": 0, "requests": 0}
    with httpx.Client(
        base_url=game_url, headers={"authorization": f"Bearer {token}"}, timeout=45
    ) as http:

        def call(method: str, path: str, **kw: Any) -> dict[str, Any]:
            stats["requests"] += 1
            r = http.request(method, f"/v1/games/{game_id}{path}", **kw)
            assert r.status_code == 200, f"{method} {path}: {r.status_code} {r.text}"
            body: dict[str, Any] = r.json()
            return body

        after = 0
        while True:
            feed = call("GET", "/events", params={"after": after, "wait": 30})
            stats["waits"] += 1
            assert feed["events"] or feed["status"] == "finished", f"an empty wake-up: {feed}"
            after = feed["last_version"]
            if feed["status"] == "finished":
                return {**stats, "feed": feed}
            if feed["has_more"] or not feed["your_turn"]:
                continue  # read on, or wait for the others
            legal = call("GET", "/legal-actions")
            assert legal["actions"], f"my turn, nothing listed: {legal}"
            action = rng.choice(legal["actions"])
            body = {"action": action, "expected_version": legal["version"]}
            call("POST", "/actions", json=body)
            stats["moves"] += 1


GAMES = [
    ("itty-bitty", {}),
    (
        "itchy-feet",
        {
            "events": True,
            "special_items": True,
            "forbidden_items": True,
            "postcards": True,
            "characters": "choose",
        },
    ),
    ("footprints", {"advanced": True}),  # every seat chooses a leader and a card at once
]


@pytest.mark.parametrize(("key", "options"), GAMES, ids=[k for k, _ in GAMES])
def test_two_people_play_to_the_end(stack: Any, key: str, options: dict[str, Any]) -> None:
    started = time.monotonic()
    with httpx.Client(base_url=stack.lobby, timeout=30) as lobby:
        tokens = [
            lobby.post("/v1/players", json={"name": name}).json()["token"]
            for name in ("Ada", "Grace")
        ]
        auth = [{"authorization": f"Bearer {t}"} for t in tokens]
        room = lobby.post(
            "/v1/rooms", json={"game": key, "seats": 2, "options": options}, headers=auth[0]
        ).json()
        joined = lobby.post(f"/v1/rooms/{room['id']}/join", json={}, headers=auth[1])
        assert joined.status_code == 200, joined.text
        start = lobby.post(f"/v1/rooms/{room['id']}/start", params={"wait": 10}, headers=auth[0])
        assert start.status_code == 200, start.text
        game_id = start.json()["game_id"]
        assert [s["bot"] for s in start.json()["seats"]] == [None, None]
    with ThreadPoolExecutor(2) as seats:
        runs = [seats.submit(play, stack.game, tokens[s], game_id, 100 + s) for s in (0, 1)]
        for run in as_completed(runs):  # the first seat to fail says why (the other waits)
            run.result()
        ends = [run.result() for run in runs]
    elapsed = time.monotonic() - started
    outcomes = [end["feed"]["outcome"] for end in ends]
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None
    assert len(outcomes[0]["ranks"]) == 2
    assert all(end["moves"] > 0 for end in ends)
    assert ends[0]["feed"]["version"] == ends[1]["feed"]["version"]
    moves = sum(end["moves"] for end in ends)
    requests = sum(end["requests"] for end in ends)
    waits = sum(end["waits"] for end in ends)
    print(f"{key}: {moves} moves, {requests} requests ({waits} waits) in {elapsed:.1f} s")


def test_the_client_loop_fits_in_sixty_lines() -> None:
    lines = inspect.getsource(play).splitlines()
    assert len(lines) <= LOOP_LINES, f"play() is {len(lines)} lines"


def test_the_client_imports_nothing_of_turnpost() -> None:
    tree = ast.parse(inspect.getsource(inspect.getmodule(play)))  # type: ignore[arg-type]
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
    }
    assert imported <= {"httpx", "pytest"} | set(sys.stdlib_module_names) | {"__future__"}
