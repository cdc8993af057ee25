"""The OpenAPI contract of both services, checked by schemathesis against the running stack.

Every check (`--checks all`) over the examples, coverage and fuzzing phases, authenticated
as a real player, with path parameters naming real rooms and a live game, so requests get
past the 404s into the handlers. Order matters once: the player resigns from the live game
only in the last game run, so every other operation meets a game still waiting for them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Stack, wait_for

pytestmark = pytest.mark.e2e

MAX_EXAMPLES = int(os.environ.get("CONTRACT_MAX_EXAMPLES", "50"))  # per operation and phase
SEED = os.environ.get("CONTRACT_SEED", "20261201")  # fixed: CI reruns the same requests
PHASES = "examples,coverage,fuzzing"
# A request the schema allows may still be refused for what it means, which no schema says:
# 422 is always that (a rule, a seat number, a bot level, a game key); 400 is that where a
# value is opaque or moves (a cursor, `after` or `min_version` past the game's version,
# another game's action).
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
MEANING_400 = [
    "getEvents",
    "getGame",
    "getLegalActions",
    "getMyGames",
    "postAction",
    "listRooms",
]
EXCLUDED_CHECKS: list[str] = []  # none: `--checks all` runs whole


class Player:
    """A registered person and their clients for both services."""

    def __init__(self, stack: Stack, name: str) -> None:
        self.lobby = httpx.Client(base_url=stack.lobby, timeout=10)
        self.game = httpx.Client(base_url=stack.game, timeout=10)
        made = self.lobby.post("/v1/players", json={"name": name})
        assert made.status_code == 201, made.text
        self.token = made.json()["token"]
        self.lobby.headers["authorization"] = self.game.headers["authorization"] = (
            f"Bearer {self.token}"
        )

    def room(self, game: str, seats: int, bots: int = 0) -> str:
        made = self.lobby.post("/v1/rooms", json={"game": game, "seats": seats})
        assert made.status_code == 201, made.text
        room_id: str = made.json()["id"]
        for _ in range(bots):
            added = self.lobby.post(f"/v1/rooms/{room_id}/bots", json={"level": "random"})
            assert added.status_code == 200, added.text
        return room_id

    def start(self, room_id: str) -> str:
        started = self.lobby.post(f"/v1/rooms/{room_id}/start")
        assert started.status_code == 202, started.text
        room = wait_for(
            lambda: (r := self.lobby.get(f"/v1/rooms/{room_id}").json())["game_id"] and r,
            "the game to exist",
        )
        game_id: str = room["game_id"]
        wait_for(lambda: self.game.get(f"/v1/games/{game_id}").status_code == 200, "the game")
        return game_id


def _run(config: dict[str, Any], url: str, token: str, tmp: Path, *extra: str) -> str:
    """schemathesis over one service; the output, or a failed test that shows it."""
    config_file = tmp / f"schemathesis-{time.monotonic_ns()}.toml"
    config_file.write_text(_toml(config))
    command = [
        *(str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config_file)),
        *("run", f"{url}/schema/openapi.json"),
        *("--checks", "all"),
        *(("--exclude-checks", ",".join(EXCLUDED_CHECKS)) if EXCLUDED_CHECKS else ()),
        *("--phases", PHASES),
        *("--max-examples", str(MAX_EXAMPLES), "--seed", SEED),
        *("--header", f"Authorization: Bearer {token}"),
        *("--workers", "1", "--request-timeout", "20", "--generation-database", "none"),
        "--no-color",
        *extra,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"schemathesis found problems (exit {done.returncode}):\n{output}")
    return output


def _toml(config: dict[str, Any]) -> str:
    """The little TOML the config needs: [[project]]s of inline values, and their operations."""
    lines: list[str] = []
    for given in config["project"]:
        project = dict(given)
        lines.append("[[project]]")
        operations = [*project.pop("operations", []), *_meaning_400()]
        project["checks"] = {"positive_data_acceptance": {"expected-statuses": ACCEPTED}}
        lines.extend(f"{json.dumps(key)} = {_inline(value)}" for key, value in project.items())
        for operation in operations:
            lines.append("[[project.operations]]")
            lines.extend(f"{json.dumps(k)} = {_inline(v)}" for k, v in operation.items())
    return "\n".join(lines) + "\n"


def _meaning_400() -> list[dict[str, Any]]:
    checks = {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400"]}}
    return [{"include-operation-id": op, "checks": checks} for op in MEANING_400]


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return json.dumps(value)


def test_both_services_keep_their_openapi_contract(stack: Stack, tmp_path: Path) -> None:
    began = time.monotonic()
    fuzzer = Player(stack, "Fuzz")
    # A room whose game finishes while the game service is fuzzed: the rematch has one.
    done_room = fuzzer.room("itty-bitty", 2, bots=1)
    done_game = fuzzer.start(done_room)
    resigned = fuzzer.game.post(f"/v1/games/{done_game}/resign")
    assert resigned.status_code == 200, resigned.text
    # The live games: bots move at once, so they wait for the fuzzer all along.
    live_game = fuzzer.start(fuzzer.room("itty-bitty", 3, bots=2))
    board_game = fuzzer.start(fuzzer.room("footprints", 2, bots=1))  # one with a board
    for game_id in (live_game, board_game):
        wait_for(
            lambda g=game_id: fuzzer.game.get(f"/v1/games/{g}").json()["to_act"] == [0],
            "a live game to wait for its person",
        )

    game_project = {
        "title": "Turnpost game service",
        "parameters": {"path.game_id": live_game},
        "operations": [
            {"include-operation-id": "getBoardSvg", "parameters": {"path.game_id": board_game}}
        ],
    }
    _run(
        {"project": [game_project]},
        stack.game,
        fuzzer.token,
        tmp_path,
        "--exclude-operation-id",
        "resign",
        # live streams never end while the game goes on (tests/integration/test_sse*.py)
        *("--exclude-operation-id", "streamGameEvents"),
        *("--exclude-operation-id", "streamMyNews"),
    )
    assert fuzzer.game.get(f"/v1/games/{live_game}").json()["status"] == "active"
    _run(
        {"project": [game_project]},
        stack.game,
        fuzzer.token,
        tmp_path,
        "--include-operation-id",
        "resign",
    )

    open_room = fuzzer.room("footprints", 4)
    wait_for(
        lambda: fuzzer.lobby.get(f"/v1/rooms/{done_room}").json()["status"] == "finished",
        "the bots to finish the resigned game",
        seconds=120,
    )
    lobby_project = {
        "title": "Turnpost lobby",
        "parameters": {"path.room_id": open_room, "path.game": "footprints"},
        "operations": [
            {"include-operation-id": "rematchRoom", "parameters": {"path.room_id": done_room}}
        ],
    }
    _run({"project": [lobby_project]}, stack.lobby, fuzzer.token, tmp_path)
    print(f"contract checked in {time.monotonic() - began:.0f} s")
