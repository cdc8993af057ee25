"""Clocks over REST on the whole stack: timeouts hand seats to bots, resign, claim, rematch."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from contracts.game import FeedEvent, GameView, SeatStanding
from contracts.lobby import Timing
from tests.e2e.conftest import Stack, wait_for
from turnpost.client import Client, Conflict, Unprocessable


class Table:
    """A room on the stack: its players, each with a client, and the game once started."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.players: list[Client] = []
        self.room_id = ""
        self.game_id = ""

    def player(self, name: str) -> Client:
        me = Client(self.stack.lobby, self.stack.game)
        me.register(name)
        self.players.append(me)
        return me

    def open(self, game: str, seats: int, timing: Timing, people: int = 1) -> None:
        host = self.player("Ada")
        self.room_id = host.create_room(game, seats, timing=timing).id  # a problem would raise
        for i in range(1, people):
            self.player(f"P{i}").join_room(self.room_id)

    def start(self) -> str:
        """Start and wait for the game in the same request (no polling)."""
        started = self.players[0].start_room(self.room_id, wait=10)
        assert started.game_id is not None  # 200: the game exists
        self.game_id = started.game_id
        assert self.game_id and self.view().version >= 1
        return self.game_id

    def view(self, seat: int = 0) -> GameView:
        return self.players[seat].get_game(self.game_id)

    def feed(self, seat: int = 0) -> list[FeedEvent]:
        events: list[FeedEvent] = []
        while True:
            page = self.players[seat].get_events(self.game_id, len(events))
            if not page.events:
                return events
            events += page.events

    def finished(self, seconds: float = 120) -> GameView:
        view: GameView = wait_for(
            lambda: (v := self.view()).status == "finished" and v, "the end", seconds
        )
        return view

    def room_status(self) -> str:
        return self.players[0].get_room(self.room_id).status


def test_an_absent_person_is_taken_over_by_a_bot_and_the_game_finishes(stack: Stack) -> None:
    table = Table(stack)
    table.open("itty-bitty", 3, Timing(per_move_s=5, on_timeout="bot_takeover"))
    table.start()
    first = table.view()
    clock = first.clock
    assert clock is not None and clock.timing["per_move_s"] == 5
    mine = clock.seats[0]
    assert mine.deadline is not None and not mine.overdue
    assert clock.seats[1].deadline is None  # bots have no clock
    awaiting = table.players[0].get_my_games(awaiting=True)
    [item] = awaiting.items
    assert item.id == table.game_id and item.deadline == mine.deadline

    final = table.finished()  # the person never moves
    # a long-poll on a finished game returns at once, with the outcome
    began = time.monotonic()
    feed = table.players[0].get_events(table.game_id, final.version, wait=10)
    assert time.monotonic() - began < 2
    assert feed.status == "finished" and feed.outcome == final.outcome
    assert feed.events == [] and not feed.your_turn
    assert final.standings[0] == SeatStanding(seat=0, standing="timed_out", bot="greedy")
    assert final.outcome is not None
    assert final.outcome.ranks[0] == 3 and 0 in final.outcome.detail["forfeited"]
    events = table.feed()
    assert [e.version for e in events] == list(range(1, final.version + 1))
    [timed_out] = [e for e in events if e.type == "timed_out"]
    assert timed_out.data["seat"] == 0 and timed_out.data["on_timeout"] == "bot_takeover"
    fired = datetime.fromisoformat(timed_out.data["at"])
    late = (fired - datetime.fromisoformat(mine.deadline)).total_seconds()
    assert 0 <= late < 3  # the scheduler sleeps until the next deadline, at most 1 s
    assert datetime.fromisoformat(timed_out.recorded_at) >= fired
    assert any(e.seat == 0 for e in events if e.type not in ("timed_out",))  # the bot
    # nothing is awaited of me any more, and the room followed its game
    assert table.players[0].get_my_games(awaiting=True).items == []
    wait_for(lambda: table.room_status() == "finished", "the room to finish")


def test_a_time_bank_takes_what_was_used_and_adds_the_increment_up_to_the_cap(
    stack: Stack,
) -> None:
    table = Table(stack)
    table.open(
        "itty-bitty", 2, Timing(bank_s=60, increment_s=7, cap_s=62, on_timeout="bot_move"), people=2
    )
    table.start()
    banks = [60.0, 60.0]
    moves = 0
    while moves < 6:
        game = table.view()
        seat = game.to_act[0]
        player = table.players[seat]
        legal = player.get_legal_actions(table.game_id)
        time.sleep(0.3)
        # a problem would raise: the move is accepted
        posted = player.post_action(table.game_id, legal.actions[0], legal.version)
        used = [e for e in posted.events if e.type == "time_used"]
        mine = [e.data for e in used if e.data["seat"] == seat]
        assert len(mine) == 1 and mine[0]["used_s"] >= 0.3
        still = seat in table.view().to_act
        expected = max(0.0, banks[seat] - mine[0]["used_s"]) + (0 if still else 7)
        expected = min(expected, 62.0)
        assert abs(mine[0]["bank_s"] - expected) < 1e-6, (mine, banks, still)
        banks[seat] = mine[0]["bank_s"]
        clock = table.view().clock
        assert clock is not None
        shown = clock.seats[seat].bank_s
        assert shown is not None and abs(shown - expected) < 1e-3
        moves += 1
    assert max(banks) == 62.0  # the cap held: the increment would have passed it


def test_resign_claim_and_rematch_over_rest(stack: Stack) -> None:
    table = Table(stack)
    table.open("itty-bitty", 3, Timing(per_move_s=5, on_timeout="wait"), people=2)
    table.start()
    ada, p1 = table.players
    # a claim before the deadline is refused with a clear code
    with pytest.raises(Conflict) as early:
        ada.claim(table.game_id, 1)
    assert early.value.status == 409 and early.value.code == "deadline_not_passed"
    clock = table.view().clock
    assert clock is not None and early.value.problem.deadline == clock.seats[1].deadline
    with pytest.raises(Unprocessable) as own:
        ada.claim(table.game_id, 0)
    assert own.value.status == 422 and own.value.code == "own_seat"
    # the deadline passes: the scheduler records the timeout, nothing is automatic
    wait_for(lambda: (c := table.view().clock) and c.seats[1].overdue, "seat 1 overdue", 20)
    assert table.view().standings[1].standing == "playing"
    claimed = ada.claim(table.game_id, 1)  # 200, or it raises
    assert [e.type for e in claimed.events] == ["seat_claimed"]
    again = ada.claim(table.game_id, 1)
    assert again.replayed is True
    assert table.view().standings[1] == SeatStanding(seat=1, standing="timed_out", bot="greedy")
    # the claimed player can no longer move (whatever it posts: its bot may have moved already)
    legal = p1.get_legal_actions(table.game_id)
    action = (legal.actions or [{"type": "pass_turn"}])[0]
    with pytest.raises(Conflict) as moved:
        p1.post_action(table.game_id, action, legal.version)
    assert moved.value.status == 409 and moved.value.code == "seat_played_by_bot"
    # seat 0 resigns: bots play on to the end and seat 0 is ranked last
    resigned = ada.resign(table.game_id)
    assert [e.type for e in resigned.events] == ["resigned"]
    twice = ada.resign(table.game_id)
    assert twice.replayed is True
    final = table.finished()
    assert [s.standing for s in final.standings] == ["resigned", "timed_out", "bot"]
    assert final.outcome is not None
    assert final.outcome.ranks[2] == 1 and final.outcome.winners == [2]
    with pytest.raises(Conflict) as late:
        p1.resign(table.game_id)
    assert late.value.status == 409 and late.value.code == "game_finished"
    # rematch: offered by one, accepted by the other: one new room with the same settings,
    # which starts once both sit in it
    wait_for(lambda: table.room_status() == "finished", "the room to finish")
    old = ada.get_room(table.room_id)
    first = ada.rematch_room(table.room_id)  # 201 or 200; anything else raises
    assert first.status == "open" and first.seats[1].reserved_for == old.seats[1].player_id
    second = p1.rematch_room(table.room_id)
    room = second
    assert room.id == first.id != table.room_id
    assert room.status in ("starting", "playing") and room.timing.on_timeout == "wait"
    assert [s.player_id for s in room.seats[:2]] == [s.player_id for s in old.seats[:2]]
    assert room.seats[2].bot == "greedy"
