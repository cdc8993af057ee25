"""A person and two bots play The itty bitty card game to the end, through REST only."""

from __future__ import annotations

import time
from random import Random
from typing import Any

import httpx
import msgspec

from games.itty_bitty.model import AnyAction
from services.bots.observe import Observation
from services.bots.policies import policy_for
from tests.e2e.conftest import Stack


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _wait_for(check: Any, what: str, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_person_and_two_bots_play_to_the_end(stack: Stack) -> None:
    lobby = httpx.Client(base_url=stack.lobby, timeout=10)
    game = httpx.Client(base_url=stack.game, timeout=40)
    me = lobby.post("/v1/players", json={"name": "Ada"}).json()
    auth = _bearer(me["token"])

    room = lobby.post("/v1/rooms", json={"game": "itty-bitty", "seats": 3}, headers=auth)
    assert room.status_code == 201, room.text
    room_id = room.json()["id"]
    assert (
        lobby.post(f"/v1/rooms/{room_id}/bots", json={"level": "random"}, headers=auth).status_code
        == 200
    )
    started = lobby.post(f"/v1/rooms/{room_id}/start", headers=auth)  # seat 2: a greedy bot
    assert started.status_code == 202, started.text
    assert [s["bot"] for s in started.json()["seats"]] == [None, "random", "greedy"]

    playing = _wait_for(
        lambda: (r := lobby.get(f"/v1/rooms/{room_id}").json())["status"] == "playing" and r,
        "the room to be playing",
    )
    game_id = playing["game_id"]

    rng = Random(7)
    mine = 0
    seen_version = 0
    for _ in range(2_000):
        state = game.get(f"/v1/games/{game_id}", headers=auth).json()
        assert state["your_seat"] == 0
        if state["status"] == "finished":
            break
        if 0 in state["to_act"]:
            legal = game.get(f"/v1/games/{game_id}/legal-actions", headers=auth).json()
            actions = msgspec.convert(legal["actions"], list[AnyAction])
            obs = Observation(
                game="itty-bitty",
                seat=0,
                version=legal["version"],
                view=state["view"],
                legal=actions,
                to_act=state["to_act"],
            )
            action = policy_for("itty-bitty", "greedy")(obs, rng)
            posted = game.post(
                f"/v1/games/{game_id}/actions",
                json={"action": msgspec.to_builtins(action), "expected_version": legal["version"]},
                headers=auth,
            )
            if posted.status_code == 409:  # a bot moved in between (simultaneous choices)
                continue
            assert posted.status_code == 200, posted.text
            mine += 1
        else:  # long-poll until something happens
            feed = game.get(
                f"/v1/games/{game_id}/events",
                params={"after": state["version"], "wait": 10},
                headers=auth,
            ).json()
            assert feed["last_version"] >= state["version"]
        seen_version = state["version"]
    else:
        raise AssertionError("the game did not finish")

    final = game.get(f"/v1/games/{game_id}", headers=auth).json()
    assert final["status"] == "finished" and final["to_act"] == []
    outcome = final["outcome"]
    assert outcome is not None and len(outcome["scores"]) == 3 and outcome["winners"]
    assert mine > 5 and final["version"] > seen_version
    assert final["view"]["public"]["result"]["reason"] in ("eight_collectors", "stalemate")

    # the feed tells the same story: everyone's moves, my private cards only
    feed = game.get(f"/v1/games/{game_id}/events", params={"after": 0}, headers=auth).json()
    events = feed["events"]
    assert feed["last_version"] == final["version"] == events[-1]["version"]
    assert {"game_set_up", "turn_began", "game_ended"} <= {e["type"] for e in events}
    assert {e["seat"] for e in events} >= {0, 1, 2}
    secret = {
        "ittybits_dealt": "cards",
        "collectors_offered": "cards",
        "collector_kept": "kept",
        "ittybit_taken": "card",
    }
    hidden = seen = 0
    for e in events:
        field = secret.get(e["type"])
        if field is None or (e["type"] == "ittybit_taken" and e["data"]["from_market"]):
            continue
        if e["data"]["seat"] == 0:
            assert e["data"][field] is not None
            seen += 1
        else:  # the bots' private cards never reach me
            assert e["data"][field] is None, e
            hidden += 1
    assert hidden > 10 and seen > 2

    _wait_for(
        lambda: lobby.get(f"/v1/rooms/{room_id}").json()["status"] == "finished",
        "the room to finish",
    )
    mine_listed = game.get("/v1/me/games", headers=auth).json()["items"]
    assert [g["id"] for g in mine_listed] == [game_id] and mine_listed[0]["status"] == "finished"
