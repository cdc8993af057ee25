"""The OpenAPI contract of both services, checked by schemathesis against the running stack.

Every check (`--checks all`: schemathesis' own and tests/e2e/contract_checks.py's) over the
examples, coverage and fuzzing phases, authenticated as a real player, with path parameters
naming real rooms, games and a webhook, so requests get past the 404s into the handlers.
Order matters once: the player resigns from the live game only in the last game run, so
every other operation meets a game still waiting for them.
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
CHECKS = Path(__file__).with_name("contract_checks.py")  # our checks, beside schemathesis'
# positive_data_acceptance: what a request valid by the schema may get. schemathesis' own
# list (2xx, 3xx, 401, 403, 404, 409, 429, 5xx; a 5xx is not_a_server_error's to report),
# and 422: a rule refusing what the request means (a seat the game does not have, a bot
# level the game lacks, a URL that does not resolve here, an action not legal now), which no
# schema says. contract_checks.problem_code_documented holds each 422's code to the ones the
# operation documents.
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
# ...and 400 on these, each for what a value means (contract_checks.valid_request_not_malformed
# refuses a `malformed_request` or `too_deep` there: only these codes pass):
MEANING_400 = {
    # min_version past the game's version: min_version_beyond_version
    "getGame": "the game's version moves (min_version, at)",
    "getLegalActions": "the game's version moves",
    "getBoardSvg": "the game's version moves (at)",  # at past it: at_beyond_version
    # after past the game's version: after_beyond_version
    "getEvents": "the game's version moves",
    "streamGameEvents": "the game's version moves; Last-Event-ID not a version",
    # a cursor this API did not give: bad_cursor
    "getMyGames": "a cursor is opaque",
    "listRooms": "a cursor is opaque",
    "getMyRooms": "a cursor is opaque",
    "getPlayerGames": "a cursor is opaque",
    "getLeaderboard": "a cursor is opaque",
    "listGames": "a cursor is opaque",
    # an action of another game or shape than the game's: invalid_action_format
    "postAction": "an action's shape is the game's (AnyAction is every game's)",
}
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
    document = httpx.get(f"{url}/schema/openapi.json", timeout=10).json()
    served = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    config_file.write_text(_toml(config, served))
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
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(CHECKS)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp, env=env)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"schemathesis found problems (exit {done.returncode}):\n{output}")
    print(
        output[
            output.find("=== WARNINGS")
            if "=== WARNINGS" in output
            else output.find("=== SUMMARY") :
        ]
    )
    return output


def _toml(config: dict[str, Any], served: set[str]) -> str:
    """The little TOML the config needs: [[project]]s of inline values, and their operations
    (`served`: the operation ids of the service)."""
    lines: list[str] = []
    for given in config["project"]:
        project = dict(given)
        lines.append("[[project]]")
        operations = _with_meaning_400(project.pop("operations", []), served)
        project["checks"] = {"positive_data_acceptance": {"expected-statuses": ACCEPTED}}
        lines.extend(f"{json.dumps(key)} = {_inline(value)}" for key, value in project.items())
        for operation in operations:
            lines.append("[[project.operations]]")
            lines.extend(f"{json.dumps(k)} = {_inline(v)}" for k, v in operation.items())
    return "\n".join(lines) + "\n"


def _with_meaning_400(operations: list[dict[str, Any]], served: set[str]) -> list[dict[str, Any]]:
    """The project's operations, those of MEANING_400 accepting a 400 too (one entry each)."""
    checks = {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400"]}}
    named = {op["include-operation-id"]: dict(op) for op in operations}
    for op in served & MEANING_400.keys():
        named.setdefault(op, {"include-operation-id": op})["checks"] = checks
    return list(named.values())


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return json.dumps(value)


def test_both_services_keep_their_openapi_contract(stack: Stack, tmp_path: Path) -> None:
    began = time.monotonic()
    fuzzer = Player(stack, "Fuzz")
    # A room whose game finishes while the game service is fuzzed: the rematch has one, and
    # its finished game's stream ends (a live one never does).
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
    # A webhook (nothing listens there: its deliveries fail, as the tests of webhooks expect)
    hook = fuzzer.game.post(
        "/v1/me/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": ["your_turn"]}
    )
    assert hook.status_code == 201, hook.text

    board = {"parameters": {"path.game_id": board_game}}
    game_project = {
        "title": "Turnpost game service",
        "parameters": {"path.game_id": live_game, "path.webhook_id": hook.json()["id"]},
        "operations": [
            {"include-operation-id": "getBoardSvg", **board},
            {"include-operation-id": "getGameMap", **board},
            {"include-operation-id": "streamGameEvents", "parameters": {"path.game_id": done_game}},
        ],
    }
    _run(
        {"project": [game_project]},
        stack.game,
        fuzzer.token,
        tmp_path,
        "--exclude-operation-id",
        "resign",
        # a live stream, which ends only with its token (its items: tests/unit/test_openapi.py
        # and tests/integration/test_sse_me.py); the game's stream runs once the game is over
        *("--exclude-operation-id", "streamGameEvents"),
        *("--exclude-operation-id", "streamMyNews"),
    )
    assert fuzzer.game.get(f"/v1/games/{live_game}").json()["status"] == "active"
    wait_for(
        lambda: fuzzer.lobby.get(f"/v1/rooms/{done_room}").json()["status"] == "finished",
        "the bots to finish the resigned game",
        seconds=120,
    )
    _run(
        {"project": [game_project]},
        stack.game,
        fuzzer.token,
        tmp_path,
        *("--include-operation-id", "resign"),
        *("--include-operation-id", "streamGameEvents"),
    )

    open_room = fuzzer.room("footprints", 4)
    lobby_project = {
        "title": "Turnpost lobby",
        "parameters": {"path.room_id": open_room, "path.game": "footprints"},
        "operations": [
            {"include-operation-id": "rematchRoom", "parameters": {"path.room_id": done_room}},
            # a table nobody else joins fills with bots only after its wait: not waited for
            {"include-operation-id": "quickMatch", "parameters": {"query.wait": 0}},
        ],
    }
    _run({"project": [lobby_project]}, stack.lobby, fuzzer.token, tmp_path)
    print(f"contract checked in {time.monotonic() - began:.0f} s")
