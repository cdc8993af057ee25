"""Simultaneous choices against the real game service (Postgres, Redis, HTTP): seats that
choose at once post against the same `expected_version` at the same moment and all land;
the 409 stays for every move whose meaning another seat's move changed.

The rule (services/game/commands.py, `Commands._unaffected`): a move against an older
version is accepted when its seat has not moved since that version and the seat's legal
actions are the same now as then, for one of the recent versions the service keeps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from games.itchy_feet.events import (
    CardsDealt,
)
from games.registry import get as get_rules
from infra.settings import Settings
from services.game.app import create_app
from services.game.service import GameService
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game
from tests.integration.test_game_api import SECRET, Table, problem


@pytest.fixture
async def client(
    database_url: str, redis_url: str, stream_prefix: str
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        database_url=database_url, redis_url=redis_url, secret=SECRET, stream_prefix=stream_prefix
    )
    async with serving(create_app(settings)) as c:
        yield c


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """Sets games up beside the app under test, on the same database."""
    return game_service(pool)


async def at_once(table: Table, moves: dict[int, tuple[dict[str, Any], int]]) -> list[Any]:
    """Every seat's move posted at the same moment: seat -> (action, expected_version)."""
    return await asyncio.gather(
        *(
            table.post(seat, {"action": action, "expected_version": expected})
            for seat, (action, expected) in moves.items()
        )
    )


def accepted(responses: list[Any]) -> list[int]:
    """All 200 and none replayed: the versions each move landed at, in post order."""
    assert [r.status_code for r in responses] == [200] * len(responses), [r.text for r in responses]
    assert not any(r.json()["replayed"] for r in responses)
    versions = [r.json()["version"] for r in responses]
    # one after another: posted against one version, all but the first to land were decided
    # against a later one (the rule's path, or a lost race decided again), none refused
    assert len(set(versions)) == len(versions)
    return versions


async def legal(table: Table, seat: int) -> dict[str, Any]:
    body: dict[str, Any] = (await table.get(seat, "/legal-actions")).json()
    return body


# -- itty bitty: the opening collector choice --------------------------------------------------


@pytest.mark.parametrize("seats", [2, 4])
async def test_itty_bitty_collector_choices_made_at_once_all_land(
    client: httpx.AsyncClient, service: GameService, seats: int
) -> None:
    game_id, players = await new_game(service, [None] * seats)
    table = Table(client, game_id, players)
    start = [await legal(table, s) for s in range(seats)]
    version = start[0]["version"]
    assert (await table.get(0)).json()["to_act"] == list(range(seats))
    # each seat picks a different card of its offer: the last, the first, ...
    moves = {s: (start[s]["actions"][-1 if s % 2 else 0], version) for s in range(seats)}
    landed = accepted(await at_once(table, moves))
    game = (await table.get(0)).json()
    assert game["version"] == max(landed) and len(game["to_act"]) == 1  # the game went on
    kept = (await table.get(0, "/events", after=version)).json()["events"]
    assert sorted(e["seat"] for e in kept if e["type"] == "collector_kept") == list(range(seats))


# -- Itchy Feet: a discard-down owed by two seats at once ------------------------------------

HANDS = (  # seven cards each: a trade and its two bonus cards put both over the limit
    (
        "item-camera-1",
        "item-camera-2",
        "item-guidebook-1",
        "item-hiking-boots-1",
        "item-sunscreen-1",
        "item-phrasebook-1",
        "passport-1",
    ),
    (
        "item-umbrella-1",
        "item-umbrella-2",
        "item-local-currency-1",
        "item-warm-jacket-1",
        "item-guidebook-2",
        "item-sunscreen-2",
        "passport-2",
    ),
)


@pytest.fixture
def full_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Itchy Feet deals HANDS instead of four cards each (everything else as dealt)."""
    rules = get_rules("itchy-feet")
    assert rules is not None
    setup = rules.setup

    def crafted(options: Any, seats: int, rng: Any) -> list[Any]:
        return [
            CardsDealt(seat=e.seat, count=len(HANDS[e.seat]), cards=HANDS[e.seat])
            if isinstance(e, CardsDealt)
            else e
            for e in setup(options, seats, rng)
        ]

    monkeypatch.setattr(rules, "setup", crafted)


async def over_the_limit(client: httpx.AsyncClient, service: GameService) -> Table:
    """A two-seat Itchy Feet game where seat 0 offered seat 1 a trade (not yet answered)."""
    game_id, players = await new_game(service, [None, None], game="itchy-feet")
    table = Table(client, game_id, players)
    game = (await table.get(0)).json()
    [first] = game["to_act"]  # whoever's home is nearest the centre
    offer = {
        "type": "offer_trade",
        "to": 1 - first,
        "give": [HANDS[first][0]],  # a camera for an umbrella, or the other way round
        "want": ["umbrella" if first == 0 else "camera"],
    }
    r = await table.post(first, {"action": offer, "expected_version": game["version"]})
    assert r.status_code == 200, r.text
    return table


async def test_itchy_feet_discard_downs_made_at_once_all_land(
    client: httpx.AsyncClient, service: GameService, full_hands: None
) -> None:
    table = await over_the_limit(client, service)
    game = (await table.get(0)).json()
    [responder] = game["to_act"]
    asker = 1 - responder
    for seat, action in (
        (responder, "accept_trade"),
        (asker, "draw_bonus"),
        (responder, "draw_bonus"),
    ):
        options = await legal(table, seat)
        [move] = [a for a in options["actions"] if a["type"] == action]
        r = await table.post(seat, {"action": move, "expected_version": options["version"]})
        assert r.status_code == 200, r.text
    game = (await table.get(0)).json()
    assert game["to_act"] == [0, 1] and game["view"]["public"]["pending"]["kind"] == "discard_down"
    version = game["version"]
    offered = [await legal(table, s) for s in (0, 1)]
    assert all(o["actions"] and o["version"] == version for o in offered)
    moves = {s: (offered[s]["actions"][-1], version) for s in (0, 1)}
    accepted(await at_once(table, moves))
    after = (await table.get(0)).json()
    assert after["view"]["public"]["pending"] is None and len(after["to_act"]) == 1
    hands = [(await table.get(s)).json()["view"]["private"]["hand"] for s in (0, 1)]
    assert [len(h) for h in hands] == [7, 7]


async def test_itchy_feet_an_answer_to_an_offer_not_yet_seen_is_stale(
    client: httpx.AsyncClient, service: GameService, full_hands: None
) -> None:
    # Order matters here: the responder's answer against the version before the offer. Its
    # legal actions then were none; now they are accept or decline: 409, not a guess.
    table = await over_the_limit(client, service)
    game = (await table.get(0)).json()
    [responder] = game["to_act"]
    options = await legal(table, responder)
    stale = await table.post(
        responder, {"action": options["actions"][0], "expected_version": game["version"] - 1}
    )
    assert problem(stale, 409, "stale_version")["current_version"] == game["version"]
    again = await table.post(
        responder, {"action": options["actions"][0], "expected_version": game["version"]}
    )
    assert again.status_code == 200, again.text


# -- Footprints: the advanced setup (a leader and a footprint card, every seat at once) -------


async def advanced(client: httpx.AsyncClient, service: GameService, seats: int) -> Table:
    game_id, players = await new_game(
        service, [None] * seats, game="footprints", options={"advanced": True}
    )
    return Table(client, game_id, players)


def of_type(options: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [a for a in options["actions"] if a["type"] == kind]


@pytest.mark.parametrize("seats", [2, 3, 6])
async def test_footprints_setup_choices_made_at_once_all_land(
    client: httpx.AsyncClient, service: GameService, seats: int
) -> None:
    table = await advanced(client, service, seats)
    start = [await legal(table, s) for s in range(seats)]
    version = start[0]["version"]
    assert (await table.get(0)).json()["to_act"] == list(range(seats))
    # first round: every seat chooses its leader (odd seats their footprint card) at once
    first = {
        s: (of_type(start[s], "keep_starting_footprint" if s % 2 else "choose_leader")[-1], version)
        for s in range(seats)
    }
    landed = accepted(await at_once(table, first))
    # second round: each seat's other choice, against the version its own answer carried:
    # every other seat's first choice landed after some of them, and changes nothing for it
    now = [await legal(table, s) for s in range(seats)]
    second = {
        s: (of_type(now[s], "choose_leader" if s % 2 else "keep_starting_footprint")[0], landed[s])
        for s in range(seats)
    }
    assert any(v < max(landed) for _, v in second.values())  # some are behind the game
    accepted(await at_once(table, second))
    game = (await table.get(0)).json()
    pending = game["view"]["public"]["pending"]
    assert pending["kind"] != "setup_choices" and len(game["to_act"]) == 1  # placing began


async def test_footprints_a_seat_that_chooses_last_against_the_first_version_lands(
    client: httpx.AsyncClient, service: GameService
) -> None:
    # Six seats, two choices each: the longest simultaneous phase of any game here. Seat 5
    # lists its choices at the start and thinks while the five others make both theirs (ten
    # commands); its choices, against the version it saw, are still unaffected by them.
    table = await advanced(client, service, 6)
    mine = await legal(table, 5)
    for kind in ("choose_leader", "keep_starting_footprint"):
        now = [await legal(table, s) for s in range(5)]
        accepted(
            await at_once(
                table, {s: (of_type(now[s], kind)[0], now[s]["version"]) for s in range(5)}
            )
        )
    assert (await table.get(0)).json()["version"] - mine["version"] >= 10
    leader = accepted(
        await at_once(table, {5: (of_type(mine, "choose_leader")[0], mine["version"])})
    )
    card = of_type(mine, "keep_starting_footprint")[0]
    accepted(await at_once(table, {5: (card, leader[0])}))
    assert (await table.get(0)).json()["view"]["public"]["pending"]["kind"] == "place"


async def test_footprints_a_placement_against_the_version_before_the_last_one_is_stale(
    client: httpx.AsyncClient, service: GameService
) -> None:
    table = await advanced(client, service, 2)
    start = [await legal(table, s) for s in (0, 1)]
    for kind in ("choose_leader", "keep_starting_footprint"):
        version = (await table.get(0)).json()["version"]
        accepted(await at_once(table, {s: (of_type(start[s], kind)[0], version) for s in (0, 1)}))
    # figures are placed one after another: the second seat's house depends on the first's
    game = (await table.get(0)).json()
    [placer] = game["to_act"]
    before = game["version"]
    options = await legal(table, placer)
    r = await table.post(placer, {"action": options["actions"][0], "expected_version": before})
    assert r.status_code == 200, r.text
    [nxt] = (await table.get(0)).json()["to_act"]
    assert nxt != placer
    theirs = (await legal(table, nxt))["actions"][0]
    stale = await table.post(nxt, {"action": theirs, "expected_version": before})
    assert problem(stale, 409, "stale_version")["current_version"] == r.json()["version"]
    # and a seat's second move against the version before its first is stale too (a retry
    # without an Idempotency-Key never moves twice), even in the simultaneous setup
    table = await advanced(client, service, 2)
    start = [await legal(table, s) for s in (0, 1)]
    version = start[0]["version"]
    mine = await table.post(
        0, {"action": of_type(start[0], "choose_leader")[0], "expected_version": version}
    )
    assert mine.status_code == 200, mine.text
    again = await table.post(
        0, {"action": of_type(start[0], "keep_starting_footprint")[0], "expected_version": version}
    )
    problem(again, 409, "stale_version")
