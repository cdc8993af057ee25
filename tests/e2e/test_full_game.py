"""A person and bots play each game to the end, through REST only."""

from __future__ import annotations

from random import Random
from typing import Any

import httpx
import msgspec
import pytest

from games.registry import get as get_rules
from services.bots.observe import Observation
from services.bots.policies import policy_for
from tests.e2e.conftest import Stack, bearer, wait_for

# Fields that carry a seat's private card in each game's events, and when.
SECRETS: dict[str, dict[str, str]] = {
    "itty-bitty": {
        "ittybits_dealt": "cards",
        "collectors_offered": "cards",
        "collector_kept": "kept",
        "ittybit_taken": "card",
    },
    "itchy-feet": {"cards_dealt": "cards", "card_drawn": "card", "card_kept": "kept"},
    "footprints": {"fire_drawn": "card", "leader_chosen": "leader"},
}
PUBLIC_WHEN = {"ittybit_taken": "from_market"}  # a marketplace card is public


def _play_as_person(game: httpx.Client, auth: dict[str, str], key: str, game_id: str) -> int:
    """Play seat 0 with the greedy policy, from the REST view only; returns moves made."""
    rules = get_rules(key)
    assert rules is not None
    rng = Random(7)
    moves = 0
    for _ in range(5_000):
        state = game.get(f"/v1/games/{game_id}", headers=auth).json()
        assert state["your_seat"] == 0
        if state["status"] == "finished":
            return moves
        if 0 not in state["to_act"]:
            game.get(
                f"/v1/games/{game_id}/events",
                params={"after": state["version"], "wait": 10},
                headers=auth,
            )
            continue
        legal = game.get(f"/v1/games/{game_id}/legal-actions", headers=auth).json()
        actions = msgspec.convert(legal["actions"], list.__class_getitem__(rules.action_type))
        obs = Observation(
            game=key,
            seat=0,
            version=legal["version"],
            view=state["view"],
            legal=actions,
            to_act=state["to_act"],
        )
        action = policy_for(key, "greedy")(obs, rng)
        posted = game.post(
            f"/v1/games/{game_id}/actions",
            json={"action": msgspec.to_builtins(action), "expected_version": legal["version"]},
            headers=auth,
        )
        if posted.status_code == 409:  # a bot moved in between (simultaneous answers)
            continue
        assert posted.status_code == 200, posted.text
        moves += 1
    raise AssertionError("the game did not finish")


@pytest.mark.parametrize(
    ("key", "seats", "options", "bots"),
    [
        ("itty-bitty", 3, {}, ["random"]),
        (
            "itchy-feet",
            6,
            {
                "events": True,
                "special_items": True,
                "forbidden_items": True,
                "postcards": True,
                "characters": "random",
            },
            ["random", "greedy", "random"],
        ),
        ("footprints", 4, {"advanced": True}, ["random"]),
    ],
)
def test_a_person_and_bots_play_to_the_end(
    stack: Stack, key: str, seats: int, options: dict[str, Any], bots: list[str]
) -> None:
    lobby = httpx.Client(base_url=stack.lobby, timeout=10)
    game = httpx.Client(base_url=stack.game, timeout=40)
    me = lobby.post("/v1/players", json={"name": "Ada"}).json()
    auth = bearer(me["token"])

    room = lobby.post(
        "/v1/rooms", json={"game": key, "seats": seats, "options": options}, headers=auth
    )
    assert room.status_code == 201, room.text
    room_id = room.json()["id"]
    for level in bots:
        added = lobby.post(f"/v1/rooms/{room_id}/bots", json={"level": level}, headers=auth)
        assert added.status_code == 200, added.text
    started = lobby.post(f"/v1/rooms/{room_id}/start", headers=auth)  # the rest: greedy bots
    assert started.status_code == 202, started.text
    levels = [s["bot"] for s in started.json()["seats"]]
    assert levels == [None, *bots] + ["greedy"] * (seats - 1 - len(bots))

    playing = wait_for(
        lambda: (r := lobby.get(f"/v1/rooms/{room_id}").json())["status"] == "playing" and r,
        "the room to be playing",
    )
    game_id = playing["game_id"]
    moves = _play_as_person(game, auth, key, game_id)

    final = game.get(f"/v1/games/{game_id}", headers=auth).json()
    assert final["status"] == "finished" and final["to_act"] == []
    outcome = final["outcome"]
    assert outcome is not None and len(outcome["ranks"]) == seats
    assert moves > 3

    # the feed tells the same story: everyone moved, and no bot's private card reached me
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = game.get(f"/v1/games/{game_id}/events", params={"after": after}, headers=auth).json()
        events += page["events"]
        if not page["events"]:
            break
        after = page["last_version"]
    assert after == final["version"]
    assert {e["seat"] for e in events} >= set(range(seats))
    hidden = seen = 0
    for e in events:
        field = SECRETS[key].get(e["type"])
        if field is None or e["data"].get(PUBLIC_WHEN.get(e["type"], ""), False):
            continue
        if e["data"]["seat"] == 0:
            assert e["data"][field] is not None
            seen += 1
        else:
            assert e["data"][field] is None, e
            hidden += 1
    assert hidden > 5 and seen > 1
    if key == "footprints":
        svg = game.get(f"/v1/games/{game_id}/board.svg", headers=auth)
        assert svg.status_code == 200 and svg.text.count('class="figure"') >= 1

    wait_for(
        lambda: lobby.get(f"/v1/rooms/{room_id}").json()["status"] == "finished",
        "the room to finish",
    )
    listed = game.get("/v1/me/games", headers=auth).json()["items"]
    assert game_id in [g["id"] for g in listed]
    assert next(g for g in listed if g["id"] == game_id)["status"] == "finished"
