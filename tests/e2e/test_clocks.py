"""Clocks over REST on the whole stack: timeouts hand seats to bots, resign, claim, rematch."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import httpx

from tests.e2e.conftest import Stack, bearer, wait_for


class Table:
    """A room on the stack: players, their clients, and the game once started."""

    def __init__(self, stack: Stack) -> None:
        self.lobby = httpx.Client(base_url=stack.lobby, timeout=10)
        self.game = httpx.Client(base_url=stack.game, timeout=40)
        self.auth: list[dict[str, str]] = []
        self.room_id = ""
        self.game_id = ""

    def player(self, name: str) -> dict[str, str]:
        me = self.lobby.post("/v1/players", json={"name": name}).json()
        self.auth.append(bearer(me["token"]))
        return self.auth[-1]

    def open(self, game: str, seats: int, timing: dict[str, Any], people: int = 1) -> None:
        host = self.player("Ada")
        room = self.lobby.post(
            "/v1/rooms", json={"game": game, "seats": seats, "timing": timing}, headers=host
        )
        assert room.status_code == 201, room.text
        self.room_id = room.json()["id"]
        for i in range(1, people):
            joined = self.lobby.post(f"/v1/rooms/{self.room_id}/join", headers=self.player(f"P{i}"))
            assert joined.status_code == 200, joined.text

    def start(self) -> str:
        """Start and wait for the game in the same request (no polling)."""
        started = self.lobby.post(
            f"/v1/rooms/{self.room_id}/start", params={"wait": 10}, headers=self.auth[0]
        )
        assert started.status_code == 200, started.text
        self.game_id = started.json()["game_id"]
        assert self.game_id and self.view()["version"] >= 1
        return self.game_id

    def view(self, seat: int = 0) -> dict[str, Any]:
        got = self.game.get(f"/v1/games/{self.game_id}", headers=self.auth[seat])
        assert got.status_code == 200, got.text
        return dict(got.json())

    def feed(self, seat: int = 0) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        while True:
            page = self.game.get(
                f"/v1/games/{self.game_id}/events",
                params={"after": len(events)},
                headers=self.auth[seat],
            ).json()
            if not page["events"]:
                return events
            events += page["events"]

    def finished(self, seconds: float = 120) -> dict[str, Any]:
        return dict(
            wait_for(lambda: (v := self.view())["status"] == "finished" and v, "the end", seconds)
        )


def test_an_absent_person_is_taken_over_by_a_bot_and_the_game_finishes(stack: Stack) -> None:
    table = Table(stack)
    table.open("itty-bitty", 3, {"per_move_s": 5, "on_timeout": "bot_takeover"})
    table.start()
    first = table.view()
    clock = first["clock"]
    assert clock["timing"]["per_move_s"] == 5
    mine = clock["seats"][0]
    assert mine["deadline"] is not None and not mine["overdue"]
    assert clock["seats"][1]["deadline"] is None  # bots have no clock
    awaiting = table.game.get("/v1/me/games", params={"awaiting": True}, headers=table.auth[0])
    [item] = awaiting.json()["items"]
    assert item["id"] == table.game_id and item["deadline"] == mine["deadline"]

    final = table.finished()  # the person never moves
    # a long-poll on a finished game returns at once, with the outcome
    began = time.monotonic()
    feed = table.game.get(
        f"/v1/games/{table.game_id}/events",
        params={"after": final["version"], "wait": 10},
        headers=table.auth[0],
    ).json()
    assert time.monotonic() - began < 2
    assert feed["status"] == "finished" and feed["outcome"] == final["outcome"]
    assert feed["events"] == [] and not feed["your_turn"]
    assert final["standings"][0] == {"seat": 0, "standing": "timed_out", "bot": "greedy"}
    assert final["outcome"]["ranks"][0] == 3 and 0 in final["outcome"]["detail"]["forfeited"]
    events = table.feed()
    assert [e["version"] for e in events] == list(range(1, final["version"] + 1))
    [timed_out] = [e for e in events if e["type"] == "timed_out"]
    assert timed_out["data"]["seat"] == 0 and timed_out["data"]["on_timeout"] == "bot_takeover"
    fired = datetime.fromisoformat(timed_out["data"]["at"])
    late = (fired - datetime.fromisoformat(mine["deadline"])).total_seconds()
    assert 0 <= late < 3  # the scheduler sleeps until the next deadline, at most 1 s
    assert datetime.fromisoformat(timed_out["recorded_at"]) >= fired
    assert any(e["seat"] == 0 for e in events if e["type"] not in ("timed_out",))  # the bot
    # nothing is awaited of me any more, and the room followed its game
    awaiting = table.game.get("/v1/me/games", params={"awaiting": True}, headers=table.auth[0])
    assert awaiting.json()["items"] == []
    wait_for(
        lambda: table.lobby.get(f"/v1/rooms/{table.room_id}").json()["status"] == "finished",
        "the room to finish",
    )


def test_a_time_bank_takes_what_was_used_and_adds_the_increment_up_to_the_cap(
    stack: Stack,
) -> None:
    table = Table(stack)
    table.open(
        "itty-bitty",
        2,
        {"bank_s": 60, "increment_s": 7, "cap_s": 62, "on_timeout": "bot_move"},
        people=2,
    )
    table.start()
    banks = [60.0, 60.0]
    moves = 0
    while moves < 6:
        game = table.view()
        seat = game["to_act"][0]
        legal = table.game.get(
            f"/v1/games/{table.game_id}/legal-actions", headers=table.auth[seat]
        ).json()
        time.sleep(0.3)
        posted = table.game.post(
            f"/v1/games/{table.game_id}/actions",
            json={"action": legal["actions"][0], "expected_version": legal["version"]},
            headers=table.auth[seat],
        )
        assert posted.status_code == 200, posted.text
        used = [e for e in posted.json()["events"] if e["type"] == "time_used"]
        mine = [e["data"] for e in used if e["data"]["seat"] == seat]
        assert len(mine) == 1 and mine[0]["used_s"] >= 0.3
        still = seat in table.view()["to_act"]
        expected = max(0.0, banks[seat] - mine[0]["used_s"]) + (0 if still else 7)
        expected = min(expected, 62.0)
        assert abs(mine[0]["bank_s"] - expected) < 1e-6, (mine, banks, still)
        banks[seat] = mine[0]["bank_s"]
        shown = table.view()["clock"]["seats"][seat]["bank_s"]
        assert abs(shown - expected) < 1e-3
        moves += 1
    assert max(banks) == 62.0  # the cap held: the increment would have passed it


def test_resign_claim_and_rematch_over_rest(stack: Stack) -> None:
    table = Table(stack)
    table.open("itty-bitty", 3, {"per_move_s": 5, "on_timeout": "wait"}, people=2)
    table.start()
    # a claim before the deadline is refused with a clear code
    early = table.game.post(
        f"/v1/games/{table.game_id}/claim", json={"seat": 1}, headers=table.auth[0]
    )
    assert early.status_code == 409 and early.json()["code"] == "deadline_not_passed"
    assert early.json()["deadline"] == table.view()["clock"]["seats"][1]["deadline"]
    own = table.game.post(
        f"/v1/games/{table.game_id}/claim", json={"seat": 0}, headers=table.auth[0]
    )
    assert own.status_code == 422 and own.json()["code"] == "own_seat"
    # the deadline passes: the scheduler records the timeout, nothing is automatic
    wait_for(lambda: table.view()["clock"]["seats"][1]["overdue"], "seat 1 overdue", 20)
    assert table.view()["standings"][1]["standing"] == "playing"
    claimed = table.game.post(
        f"/v1/games/{table.game_id}/claim", json={"seat": 1}, headers=table.auth[0]
    )
    assert claimed.status_code == 200, claimed.text
    assert [e["type"] for e in claimed.json()["events"]] == ["seat_claimed"]
    again = table.game.post(
        f"/v1/games/{table.game_id}/claim", json={"seat": 1}, headers=table.auth[0]
    )
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert table.view()["standings"][1] == {"seat": 1, "standing": "timed_out", "bot": "greedy"}
    # the claimed player can no longer move (whatever it posts: its bot may have moved already)
    legal = table.game.get(f"/v1/games/{table.game_id}/legal-actions", headers=table.auth[1])
    action = (legal.json()["actions"] or [{"type": "pass_turn"}])[0]
    moved = table.game.post(
        f"/v1/games/{table.game_id}/actions",
        json={"action": action, "expected_version": legal.json()["version"]},
        headers=table.auth[1],
    )
    assert moved.status_code == 409 and moved.json()["code"] == "seat_played_by_bot"
    # seat 0 resigns: bots play on to the end and seat 0 is ranked last
    resigned = table.game.post(f"/v1/games/{table.game_id}/resign", headers=table.auth[0])
    assert resigned.status_code == 200, resigned.text
    assert [e["type"] for e in resigned.json()["events"]] == ["resigned"]
    twice = table.game.post(f"/v1/games/{table.game_id}/resign", headers=table.auth[0])
    assert twice.status_code == 200 and twice.json()["replayed"] is True
    final = table.finished()
    assert [s["standing"] for s in final["standings"]] == ["resigned", "timed_out", "bot"]
    assert final["outcome"]["ranks"][2] == 1 and final["outcome"]["winners"] == [2]
    late = table.game.post(f"/v1/games/{table.game_id}/resign", headers=table.auth[1])
    assert late.status_code == 409 and late.json()["code"] == "game_finished"
    # rematch: called twice, by both players, one new room with the same settings
    wait_for(
        lambda: table.lobby.get(f"/v1/rooms/{table.room_id}").json()["status"] == "finished",
        "the room to finish",
    )
    first = table.lobby.post(f"/v1/rooms/{table.room_id}/rematch", headers=table.auth[0])
    second = table.lobby.post(f"/v1/rooms/{table.room_id}/rematch", headers=table.auth[1])
    assert first.status_code in (200, 201) and second.status_code in (200, 201), second.text
    room = first.json()
    assert room["id"] == second.json()["id"] != table.room_id
    assert room["status"] == "open" and room["timing"]["on_timeout"] == "wait"
    old = table.lobby.get(f"/v1/rooms/{table.room_id}").json()
    assert [s["player_id"] for s in room["seats"][:2]] == [s["player_id"] for s in old["seats"][:2]]
    assert room["seats"][2]["bot"] == "greedy"
