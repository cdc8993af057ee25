"""`legal-actions` lists only what can be posted as-is: nothing for a seat a bot plays now
(its person resigned, timed out under bot_takeover, or was claimed), and `standing` says
why; a seat whose person still plays (an overdue seat under `wait`, a bot_move timeout's
one move pending) lists its moves, and each posts."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from contracts.problems import ProblemError
from contracts.streams import RoomStarted, StartedSeat
from infra.auth.bearer import Principal
from infra.eventstore.memory import MemoryEventStore
from services.game import seats
from services.game.live import Waiters
from services.game.repository import MemoryGamesRepository
from services.game.routes.games import game_view, legal_actions_of
from services.game.service import GameService

PLAYERS = ["p0", "p1", "p2"]


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at


async def table(timing: dict[str, Any] | None = None) -> tuple[GameService, str, Clock]:
    clock = Clock()
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters(), now=clock)
    game_id = await svc.create_from_room(
        RoomStarted(
            room_id=str(uuid.uuid4()),
            game="itty-bitty",
            seats=[StartedSeat(seat=i, player_id=p, name=p) for i, p in enumerate(PLAYERS)],
            timing=timing or {},
        )
    )
    return svc, game_id, clock


async def legal(svc: GameService, game_id: str, seat: int) -> Any:
    return await legal_actions_of(svc, Principal(player_id=PLAYERS[seat], name=""), game_id, None)


async def posts(svc: GameService, game_id: str, seat: int) -> None:
    """Every action listed for the seat is accepted as-is (each tried on the same version:
    the first that lands is the seat's move)."""
    listed = await legal(svc, game_id, seat)
    assert listed.actions, f"seat {seat} lists nothing"
    action = {k: v for k, v in listed.actions[0].items() if k != "text"}
    await svc.submit(game_id, seat, action, listed.version, uuid.uuid4())


async def refused(svc: GameService, game_id: str, seat: int, action: Any, version: int) -> str:
    with pytest.raises(ProblemError) as err:
        await svc.submit(game_id, seat, action, version, uuid.uuid4())
    return err.value.code


async def test_a_resigned_seat_lists_nothing_and_says_so() -> None:
    svc, game_id, _ = await table()
    before = await legal(svc, game_id, 0)
    assert before.actions
    await seats.resign(svc, game_id, 0)
    after = await legal(svc, game_id, 0)
    assert (after.actions, after.unavailable) == ([], [])
    assert after.standing == "resigned"
    assert after.seat == 0 and after.version > before.version
    # what it listed before is the bot's to play now: refused, as the empty list says
    first = {k: v for k, v in before.actions[0].items() if k != "text"}
    assert await refused(svc, game_id, 0, first, after.version) == "seat_played_by_bot"
    await posts(svc, game_id, 1)  # the others play on


async def test_a_seat_taken_over_at_its_timeout_lists_nothing() -> None:
    svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": "bot_takeover"})
    clock.at += timedelta(seconds=61)
    assert await seats.timeout(svc, game_id, 2, uuid.uuid4()) is not None
    after = await legal(svc, game_id, 2)
    assert (after.actions, after.unavailable) == ([], [])
    assert after.standing == "timed_out"


async def test_an_overdue_seat_lists_its_moves_until_it_is_claimed() -> None:
    svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": "wait"})
    clock.at += timedelta(seconds=61)
    assert await seats.timeout(svc, game_id, 1, uuid.uuid4()) is not None
    overdue = await legal(svc, game_id, 1)
    assert overdue.actions  # its person may still move
    await seats.claim(svc, game_id, 0, 1)
    claimed = await legal(svc, game_id, 1)
    assert (claimed.actions, claimed.unavailable) == ([], [])
    assert claimed.standing == "timed_out"


async def test_a_bot_move_timeout_leaves_the_seat_its_persons_and_its_moves_post() -> None:
    svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": "bot_move"})
    clock.at += timedelta(seconds=61)
    assert await seats.timeout(svc, game_id, 0, uuid.uuid4()) is not None
    listed = await legal(svc, game_id, 0)
    assert listed.actions
    await posts(svc, game_id, 0)  # before the bot makes its one move: the person's is taken


def test_the_wire_names_the_standing() -> None:
    from contracts.game import LegalActions

    wire = msgspec.json.decode(
        msgspec.json.encode(LegalActions(version=3, seat=0, actions=[], unavailable=[]))
    )
    assert wire["standing"] == "playing"


async def test_a_seat_no_claim_can_take_says_why() -> None:
    """A claim needs a clock that waits on a timeout: without a clock no seat ever times out;
    with one that acts itself, it does so without anyone's claim."""
    for timing, why in [
        (None, "this game has no clock: no seat times out"),
        ({"per_move_s": 60, "on_timeout": "bot_move"}, "acts on timeouts itself (bot_move)"),
    ]:
        svc, game_id, clock = await table(timing)
        clock.at += timedelta(seconds=61)
        with pytest.raises(ProblemError) as err:
            await seats.claim(svc, game_id, 0, 1)
        assert (err.value.status, err.value.code) == (409, "not_claimable")
        assert why in err.value.detail


async def test_a_move_after_its_deadline_under_bot_takeover_is_refused_before_the_scheduler_fires() -> (
    None
):
    """The deadline hands the seat over when it passes, not when the scheduler says so: a move
    a moment later is 409 `deadline_passed` (the deadline named); a move in time lands.
    Under `bot_move` and `wait` the person may still move past it."""
    svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": "bot_takeover"})
    listed = await legal(svc, game_id, 1)
    action = {k: v for k, v in listed.actions[0].items() if k != "text"}
    clock.at += timedelta(seconds=60)
    with pytest.raises(ProblemError) as err:
        await svc.submit(game_id, 1, action, listed.version, uuid.uuid4())
    assert (err.value.status, err.value.code) == (409, "deadline_passed")
    assert "2026-01-05T10:01:00Z" in err.value.detail
    clock.at -= timedelta(milliseconds=1)  # just in time
    await svc.submit(game_id, 1, action, listed.version, uuid.uuid4())
    for policy in ("bot_move", "wait"):
        svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": policy})
        clock.at += timedelta(seconds=61)
        await posts(svc, game_id, 1)


async def test_past_its_deadline_under_bot_takeover_a_seat_lists_nothing_as_its_post_is_refused() -> (
    None
):
    """The listing agrees with the post at each side of the deadline: a moment before it the
    moves are listed and each lands; from it, before the scheduler records the takeover,
    nothing is listed (the post would be 409 `deadline_passed`), the seat still `playing`,
    and `include=legal_actions` says the same. Under the other policies the seat's moves are
    still listed past its deadline."""
    svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": "bot_takeover"})
    clock.at += timedelta(seconds=60) - timedelta(milliseconds=1)
    before = await legal(svc, game_id, 1)
    assert before.actions
    clock.at += timedelta(milliseconds=1)  # the deadline itself
    after = await legal(svc, game_id, 1)
    assert (after.actions, after.unavailable, after.standing) == ([], [], "playing")
    assert after.version == before.version
    view = await game_view(svc, Principal(player_id=PLAYERS[1], name=""), game_id, None,
                           include="legal_actions")  # fmt: skip
    assert view.legal_actions == after
    clock.at -= timedelta(milliseconds=1)
    await posts(svc, game_id, 1)  # in time again: listed, and it lands
    for policy in ("bot_move", "wait"):
        svc, game_id, clock = await table({"per_move_s": 60, "on_timeout": policy})
        clock.at += timedelta(seconds=61)
        assert (await legal(svc, game_id, 1)).actions
