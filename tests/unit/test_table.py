"""The table layer (games/table.py): clocks, timeouts, resignations, claims and ranking.

Pure: every time is a fixed datetime passed in, nothing reads a clock.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from contracts.lobby import Timing
from games.api import Outcome
from games.table import (
    TABLE_EVENT_TYPES,
    AnyTableEvent,
    GameOver,
    Resigned,
    SeatClaimed,
    SeatReturned,
    TableSeat,
    TableState,
    TimedOut,
    TimeUsed,
    TurnStarted,
    after_command,
    bank_after,
    bots_now,
    deadlines,
    evolve,
    fold,
    forfeited,
    game_over,
    initial,
    overdue,
    ranked,
    result,
    snapshot_schema,
    timeout,
    timing_of,
    turn_starts,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)

PER_MOVE = Timing(per_move_s=30)
BANK = Timing(bank_s=60, increment_s=10, cap_s=65)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def step(
    table: TableState, to_act: set[int], actor: int | None, now: datetime
) -> tuple[list[AnyTableEvent], TableState]:
    """after_command, and the table with its events folded in."""
    events = after_command(table, frozenset(to_act), actor, now)
    return events, fold(table, events)


def people(timing: Timing, n: int = 2, fill: str = "medium") -> TableState:
    return initial(timing, fill, [None] * n)


def started(timing: Timing, seat: int = 0, n: int = 2, since: float = 0) -> TableState:
    """A table of people whose `seat` has had the turn since `since` seconds."""
    _, table = step(people(timing, n), {seat}, None, at(since))
    return table


# -- initial, fold, evolve ----------------------------------------------------------------------


def test_initial_people_hold_full_banks_and_bots_are_bots() -> None:
    table = initial(BANK, "easy", [None, "hard", None])
    assert table.timing == BANK
    assert table.fill_level == "easy"
    assert table.seats == (
        TableSeat(bank_s=60.0),
        TableSeat(standing="bot", bot="hard"),
        TableSeat(bank_s=60.0),
    )
    assert isinstance(table.seats[0].bank_s, float)


def test_initial_per_move_and_untimed_hold_no_bank() -> None:
    assert initial(PER_MOVE, "easy", [None, ""]).seats == (TableSeat(), TableSeat())
    assert initial(Timing(), "easy", [None]).seats == (TableSeat(),)


def test_table_event_types_are_the_tags() -> None:
    assert TABLE_EVENT_TYPES == {
        "turn_started",
        "time_used",
        "timed_out",
        "seat_returned",
        "resigned",
        "seat_claimed",
        "game_over",
        "chat_said",
    }


def test_the_snapshot_schema_follows_the_shape_of_the_state() -> None:
    class A(msgspec.Struct, frozen=True):
        hand: list[str]

    class B(msgspec.Struct, frozen=True):  # the same field, another type: another shape
        hand: list[int]

    class C(msgspec.Struct, frozen=True):  # a field more
        hand: list[str]
        coins: int = 0

    versions = {snapshot_schema(t) for t in (A, B, C)}
    assert len(versions) == 3
    assert snapshot_schema(A) == snapshot_schema(A) and snapshot_schema(A, 1) != snapshot_schema(A)
    assert all(isinstance(v, int) and 0 <= v < 2**31 for v in versions)  # a Postgres int


def test_evolve_refuses_what_is_not_a_table_event() -> None:
    with pytest.raises(TypeError, match="not a table event"):
        evolve(people(PER_MOVE), object())  # type: ignore[arg-type]


def test_fold_of_nothing_is_the_table() -> None:
    table = people(BANK)
    assert fold(table, []) == table


def test_turn_started_runs_the_clock_and_clears_overdue() -> None:
    table = TableState(timing=BANK, fill_level="easy", seats=(TableSeat(bank_s=3.0, overdue=True),))
    table = evolve(table, TurnStarted(seat=0, at=at(5), deadline=at(8)))
    assert table.seats[0] == TableSeat(bank_s=3.0, running_since=at(5), deadline=at(8))


def test_time_used_stops_the_clock_sets_the_bank_and_clears_overdue() -> None:
    seat = TableSeat(bank_s=3.0, running_since=at(0), deadline=at(3), overdue=True)
    table = TableState(timing=BANK, fill_level="easy", seats=(seat,))
    table = evolve(table, TimeUsed(seat=0, used_s=9.0, bank_s=10.0))
    assert table.seats[0] == TableSeat(bank_s=10.0)


def test_evolve_changes_only_its_seat() -> None:
    table = fold(people(PER_MOVE, 3), [TurnStarted(seat=1, at=at(0), deadline=at(30))])
    assert table.seats[0] == TableSeat()
    assert table.seats[2] == TableSeat()
    assert table.seats[1] == TableSeat(running_since=at(0), deadline=at(30))


# -- the per-move clock -------------------------------------------------------------------------


def test_per_move_setup_starts_a_clock_for_each_person_to_act() -> None:
    table = initial(PER_MOVE, "easy", [None, None, "easy", None])
    events, table = step(table, {0, 1, 2}, None, at(0))
    assert events == [
        TurnStarted(seat=0, at=at(0), deadline=at(30)),
        TurnStarted(seat=1, at=at(0), deadline=at(30)),
    ]
    assert table.seats[0] == TableSeat(running_since=at(0), deadline=at(30))
    assert table.seats[3] == TableSeat()  # not to act: no clock


def test_per_move_deadline_is_now_plus_the_limit() -> None:
    events, _ = step(people(Timing(per_move_s=86_400)), {1}, None, at(17))
    assert events == [TurnStarted(seat=1, at=at(17), deadline=at(17 + 86_400))]


def test_acting_and_staying_to_act_restarts_the_clock() -> None:
    table = started(PER_MOVE)
    events, table = step(table, {0}, 0, at(12))
    assert events == [
        TimeUsed(seat=0, used_s=12.0, bank_s=None),
        TurnStarted(seat=0, at=at(12), deadline=at(42)),
    ]
    assert table.seats[0] == TableSeat(running_since=at(12), deadline=at(42))


def test_a_running_clock_of_a_seat_that_did_not_act_runs_on() -> None:
    _, table = step(people(PER_MOVE, 3), {0, 1}, None, at(0))
    events, after = step(table, {0, 1}, 0, at(7))
    assert events == [
        TimeUsed(seat=0, used_s=7.0, bank_s=None),
        TurnStarted(seat=0, at=at(7), deadline=at(37)),
    ]
    assert after.seats[1] == table.seats[1]
    # Table news (no actor) changes nothing while the same seats are to act.
    assert after_command(table, frozenset({0, 1}), None, at(9)) == []


def test_seats_leaving_to_act_use_their_time() -> None:
    table = started(PER_MOVE)
    events, table = step(table, {1}, 0, at(9.5))
    assert events == [
        TimeUsed(seat=0, used_s=9.5, bank_s=None),
        TurnStarted(seat=1, at=at(9.5), deadline=at(39.5)),
    ]
    assert table.seats[0] == TableSeat()


def test_a_seat_leaving_to_act_without_acting_stops_its_clock() -> None:
    _, table = step(people(PER_MOVE, 3), {0, 1}, None, at(0))
    events, table = step(table, {1}, 2, at(4))
    assert events == [TimeUsed(seat=0, used_s=4.0, bank_s=None)]
    assert table.seats[0] == TableSeat()
    assert table.seats[1] == TableSeat(running_since=at(0), deadline=at(30))


def test_acting_out_of_turn_starts_no_second_clock_and_charges_nothing() -> None:
    table = started(PER_MOVE, seat=1)
    # Seat 0 acts (say, an out-of-turn reaction) while seat 1's clock runs on.
    assert after_command(table, frozenset({1}), 0, at(3)) == []


def test_used_time_is_rounded_to_milliseconds() -> None:
    table = started(PER_MOVE)
    events = after_command(table, frozenset(), 0, T0 + timedelta(seconds=1, microseconds=234_567))
    assert events == [TimeUsed(seat=0, used_s=1.235, bank_s=None)]


def test_used_time_is_never_negative() -> None:
    table = started(BANK, since=10)
    events = after_command(table, frozenset(), 0, at(4))
    assert events == [TimeUsed(seat=0, used_s=0.0, bank_s=65.0)]


def test_bot_seats_get_no_clock_events() -> None:
    table = initial(PER_MOVE, "easy", ["easy", None, "hard"])
    events, table = step(table, {0, 1, 2}, None, at(0))
    assert [e.seat for e in events if not isinstance(e, GameOver)] == [1] == [len(events)]
    events, table = step(table, {0, 1, 2}, 0, at(5))
    assert events == []
    events, table = step(table, {0, 2}, 2, at(6))
    assert events == [TimeUsed(seat=1, used_s=6.0, bank_s=None)]
    assert table.seats[0] == TableSeat(standing="bot", bot="easy")


def test_an_untimed_table_has_no_clock_events() -> None:
    table = initial(Timing(), "easy", [None, None, "easy"])
    for to_act, actor in [({0, 1, 2}, None), ({0}, 0), ({1}, 0), (set(), 1), ({0, 1}, 2)]:
        events, table = step(table, to_act, actor, at(1))
        assert events == []
    assert table == initial(Timing(), "easy", [None, None, "easy"])


def test_untimed_table_with_a_running_seat_still_emits_nothing() -> None:
    # Even a (corrupt) running clock on an untimed table is left alone.
    seat = TableSeat(running_since=at(0), deadline=at(5))
    table = TableState(timing=Timing(), fill_level="easy", seats=(seat,))
    assert after_command(table, frozenset(), 0, at(3)) == []


# -- the time bank ------------------------------------------------------------------------------


def test_bank_after_takes_the_time_used() -> None:
    assert bank_after(BANK, 60, 20, turn_over=False) == 40.0


def test_bank_after_adds_the_increment_only_when_the_turn_is_over() -> None:
    assert bank_after(BANK, 60, 20, turn_over=True) == 50.0
    assert bank_after(BANK, 50, 0, turn_over=True) == 60.0
    assert bank_after(BANK, 50, 0, turn_over=False) == 50.0


def test_bank_after_never_goes_below_zero_before_the_increment() -> None:
    assert bank_after(BANK, 60, 100, turn_over=False) == 0.0
    assert bank_after(BANK, 60, 100, turn_over=True) == 10.0
    assert bank_after(BANK, 0, 0.5, turn_over=True) == 10.0


def test_bank_after_caps_after_the_increment() -> None:
    assert bank_after(BANK, 60, 5, turn_over=True) == 65.0  # exactly the cap
    assert bank_after(BANK, 60, 4, turn_over=True) == 65.0  # 66 capped
    assert bank_after(BANK, 65, 0, turn_over=True) == 65.0  # 75 capped
    result = bank_after(BANK, 65, 0, turn_over=True)
    assert isinstance(result, float)


def test_bank_after_without_cap_grows() -> None:
    timing = Timing(bank_s=60, increment_s=10)
    assert bank_after(timing, 60, 0, turn_over=True) == 70.0
    assert bank_after(timing, 1000, 1, turn_over=True) == 1009.0


def test_bank_after_with_no_increment() -> None:
    timing = Timing(bank_s=60, cap_s=60)
    assert bank_after(timing, 60, 15.5, turn_over=True) == 44.5


def test_a_sequence_of_moves_gives_exact_banks_and_deadlines() -> None:
    """Bank 60, increment 10, cap 65; two people taking turns."""
    table = people(BANK)
    events, table = step(table, {0}, None, at(0))
    assert events == [TurnStarted(seat=0, at=at(0), deadline=at(60))]

    events, table = step(table, {1}, 0, at(20))  # 60 - 20 + 10
    assert events == [
        TimeUsed(seat=0, used_s=20.0, bank_s=50.0),
        TurnStarted(seat=1, at=at(20), deadline=at(80)),
    ]

    events, table = step(table, {0}, 1, at(50))  # 60 - 30 + 10
    assert events == [
        TurnStarted(seat=0, at=at(50), deadline=at(100)),  # events come in seat order
        TimeUsed(seat=1, used_s=30.0, bank_s=40.0),
    ]

    events, table = step(table, {0}, 0, at(55))  # still to act: 50 - 5, no increment
    assert events == [
        TimeUsed(seat=0, used_s=5.0, bank_s=45.0),
        TurnStarted(seat=0, at=at(55), deadline=at(100)),
    ]

    events, table = step(table, {1}, 0, at(57))  # 45 - 2 + 10
    assert events == [
        TimeUsed(seat=0, used_s=2.0, bank_s=53.0),
        TurnStarted(seat=1, at=at(57), deadline=at(97)),
    ]

    events, table = step(table, {0}, 1, at(58))  # 40 - 1 + 10
    assert events == [
        TurnStarted(seat=0, at=at(58), deadline=at(111)),  # events come in seat order
        TimeUsed(seat=1, used_s=1.0, bank_s=49.0),
    ]

    events, table = step(table, {1}, 0, at(59))  # 53 - 1 + 10
    assert events == [
        TimeUsed(seat=0, used_s=1.0, bank_s=62.0),
        TurnStarted(seat=1, at=at(59), deadline=at(108)),
    ]

    events, table = step(table, {0}, 1, at(60))  # 49 - 1 + 10
    assert events == [
        TurnStarted(seat=0, at=at(60), deadline=at(122)),  # events come in seat order
        TimeUsed(seat=1, used_s=1.0, bank_s=58.0),
    ]

    events, table = step(table, {1}, 0, at(60))  # 62 - 0 + 10 = 72, capped at 65
    assert events == [
        TimeUsed(seat=0, used_s=0.0, bank_s=65.0),
        TurnStarted(seat=1, at=at(60), deadline=at(118)),
    ]
    assert [s.bank_s for s in table.seats] == [65.0, 58.0]
    assert deadlines(table) == {1: at(118)}
    assert turn_starts(table) == {1: at(60)}  # when the deadline's turn began


def test_acting_but_staying_to_act_is_charged_without_increment() -> None:
    table = started(BANK)
    events, table = step(table, {0, 1}, 0, at(25))
    assert events == [
        TimeUsed(seat=0, used_s=25.0, bank_s=35.0),
        TurnStarted(seat=0, at=at(25), deadline=at(60)),
        TurnStarted(seat=1, at=at(25), deadline=at(85)),
    ]
    assert table.seats[0].bank_s == 35.0


def test_an_empty_bank_gives_a_deadline_of_now() -> None:
    timing = Timing(bank_s=60)
    table = TableState(timing=timing, fill_level="easy", seats=(TableSeat(bank_s=0.0),))
    assert after_command(table, frozenset({0}), None, at(3)) == [
        TurnStarted(seat=0, at=at(3), deadline=at(3))
    ]
    negative = TableState(timing=timing, fill_level="easy", seats=(TableSeat(bank_s=-5.0),))
    assert after_command(negative, frozenset({0}), None, at(3)) == [
        TurnStarted(seat=0, at=at(3), deadline=at(3))
    ]


# -- timeouts -----------------------------------------------------------------------------------


def test_no_timeout_before_the_deadline() -> None:
    table = started(PER_MOVE)
    assert timeout(table, 0, at(29.999)) == []
    assert timeout(table, 0, at(29)) == []


def test_the_deadline_itself_fires() -> None:
    table = started(PER_MOVE)
    assert timeout(table, 0, at(30)) == [
        TimedOut(seat=0, deadline=at(30), at=at(30), on_timeout="bot_move", bot="medium")
    ]


def test_a_late_timeout_keeps_the_deadline_and_the_time() -> None:
    table = started(PER_MOVE, seat=1)
    assert timeout(table, 1, at(95)) == [
        TimedOut(seat=1, deadline=at(30), at=at(95), on_timeout="bot_move", bot="medium")
    ]


def test_no_timeout_for_a_seat_without_a_deadline() -> None:
    table = started(PER_MOVE)
    assert timeout(table, 1, at(1000)) == []


def test_no_timeout_for_a_bot_seat() -> None:
    seat = TableSeat(standing="bot", bot="easy", running_since=at(0), deadline=at(1))
    table = TableState(timing=PER_MOVE, fill_level="easy", seats=(seat,))
    assert timeout(table, 0, at(1000)) == []


def test_no_timeout_for_an_overdue_seat() -> None:
    seat = TableSeat(running_since=at(0), deadline=at(1), overdue=True)
    table = TableState(
        timing=Timing(per_move_s=30, on_timeout="wait"), fill_level="e", seats=(seat,)
    )
    assert timeout(table, 0, at(1000)) == []


def test_no_timeout_for_a_seat_out_of_range() -> None:
    table = started(PER_MOVE, seat=1)
    assert timeout(table, 2, at(1000)) == []
    assert timeout(table, -1, at(1000)) == []  # not the last seat by Python's negative index
    assert timeout(table, 99, at(1000)) == []
    assert timeout(table, 1, at(1000)) != []


def test_timeout_of_seat_zero() -> None:
    table = started(PER_MOVE, seat=0, n=1)
    assert len(timeout(table, 0, at(30))) == 1


def test_bot_move_timeout_hands_one_move_to_a_fill_level_bot() -> None:
    table = started(BANK)
    events = timeout(table, 0, at(60))
    assert events == [
        TimedOut(seat=0, deadline=at(60), at=at(60), on_timeout="bot_move", bot="medium")
    ]
    table = fold(table, events)
    assert table.seats[0] == TableSeat(standing="playing", bot="medium", once=True, bank_s=0.0)
    assert bots_now(table) == {"0": "medium"}
    assert deadlines(table) == {} and turn_starts(table) == {}
    assert forfeited(table) == []


def test_bot_move_timeout_on_a_per_move_clock_keeps_no_bank() -> None:
    table = started(PER_MOVE)
    table = fold(table, timeout(table, 0, at(30)))
    assert table.seats[0] == TableSeat(bot="medium", once=True)


def test_after_the_bots_move_the_seat_returns_then_its_clock_restarts() -> None:
    table = started(BANK)
    table = fold(table, timeout(table, 0, at(60)))
    events, table = step(table, {0}, 0, at(61))
    assert events == [
        SeatReturned(seat=0, at=at(61), bank_s=10.0),  # the empty bank gets the increment
        TurnStarted(seat=0, at=at(61), deadline=at(71)),
    ]
    assert table.seats[0] == TableSeat(bank_s=10.0, running_since=at(61), deadline=at(71))
    assert bots_now(table) == {}


def test_after_the_bots_move_the_per_move_clock_restarts() -> None:
    table = started(PER_MOVE)
    table = fold(table, timeout(table, 0, at(30)))
    events, table = step(table, {0, 1}, 0, at(31))
    assert events == [
        SeatReturned(seat=0, at=at(31), bank_s=None),
        TurnStarted(seat=0, at=at(31), deadline=at(61)),
        TurnStarted(seat=1, at=at(31), deadline=at(61)),
    ]


def test_after_the_bots_move_a_seat_not_to_act_just_returns() -> None:
    table = started(BANK)
    table = fold(table, timeout(table, 0, at(60)))
    events, table = step(table, {1}, 0, at(61))
    assert events == [
        SeatReturned(seat=0, at=at(61), bank_s=10.0),
        TurnStarted(seat=1, at=at(61), deadline=at(121)),
    ]
    assert table.seats[0] == TableSeat(bank_s=10.0)


def test_the_returned_bank_is_capped() -> None:
    timing = Timing(bank_s=60, increment_s=100, cap_s=65)
    table = started(timing)
    table = fold(table, timeout(table, 0, at(60)))
    events = after_command(table, frozenset(), 0, at(61))
    assert events == [SeatReturned(seat=0, at=at(61), bank_s=65.0)]


def test_the_bots_move_costs_the_person_nothing() -> None:
    # A seat handed back with time left (not reachable through TimedOut, which empties the
    # bank): the bot's move is not charged, only the increment is added.
    seat = TableSeat(bot="medium", once=True, bank_s=30.0)
    table = TableState(timing=BANK, fill_level="medium", seats=(seat,))
    assert after_command(table, frozenset(), 0, at(500)) == [
        SeatReturned(seat=0, at=at(500), bank_s=40.0)
    ]


def test_the_bot_keeps_the_seat_until_it_has_moved() -> None:
    table = started(BANK)
    table = fold(table, timeout(table, 0, at(60)))
    # Another seat's command, or table news: the bot still has the move, no clock for seat 0.
    assert after_command(table, frozenset({0}), 1, at(61)) == []
    assert after_command(table, frozenset({0}), None, at(61)) == []
    assert timeout(table, 0, at(1000)) == []


def test_bot_takeover_hands_the_seat_to_a_bot_for_good() -> None:
    timing = Timing(bank_s=60, on_timeout="bot_takeover")
    table = started(timing)
    events = timeout(table, 0, at(60))
    assert events == [
        TimedOut(seat=0, deadline=at(60), at=at(60), on_timeout="bot_takeover", bot="medium")
    ]
    table = fold(table, events)
    assert table.seats[0] == TableSeat(standing="timed_out", bot="medium", once=False, bank_s=0.0)
    assert forfeited(table) == [0]
    assert bots_now(table) == {"0": "medium"}
    # The bot's moves return nothing to the person and start no clock.
    events, table = step(table, {0}, 0, at(61))
    assert events == []
    assert table.seats[0].bot == "medium"


def test_bot_takeover_on_a_per_move_clock() -> None:
    table = started(Timing(per_move_s=30, on_timeout="bot_takeover"))
    table = fold(table, timeout(table, 0, at(30)))
    assert table.seats[0] == TableSeat(standing="timed_out", bot="medium")


def test_wait_makes_the_seat_overdue_and_its_clock_runs_on() -> None:
    timing = Timing(bank_s=60, increment_s=10, on_timeout="wait")
    table = started(timing)
    events = timeout(table, 0, at(60))
    assert events == [TimedOut(seat=0, deadline=at(60), at=at(60), on_timeout="wait", bot=None)]
    table = fold(table, events)
    assert table.seats[0] == TableSeat(
        bank_s=60.0, running_since=at(0), deadline=at(60), overdue=True
    )
    assert bots_now(table) == {}
    assert deadlines(table) == {0: at(60)} and overdue(table) == [0]  # shown, not fired again
    assert forfeited(table) == []
    assert timeout(table, 0, at(200)) == []  # fires once


def test_a_move_by_an_overdue_seat_charges_it_and_clears_overdue() -> None:
    timing = Timing(bank_s=60, increment_s=10, on_timeout="wait")
    table = started(timing)
    table = fold(table, timeout(table, 0, at(60)))
    events, table = step(table, {1}, 0, at(100))
    assert events == [
        TimeUsed(seat=0, used_s=100.0, bank_s=10.0),  # 60 - 100 clamps at 0, then + 10
        TurnStarted(seat=1, at=at(100), deadline=at(160)),
    ]
    assert table.seats[0] == TableSeat(bank_s=10.0)


def test_an_overdue_seat_still_to_act_restarts_with_what_is_left() -> None:
    timing = Timing(bank_s=60, on_timeout="wait")
    table = started(timing)
    table = fold(table, timeout(table, 0, at(60)))
    events, table = step(table, {0}, 0, at(100))
    assert events == [
        TimeUsed(seat=0, used_s=100.0, bank_s=0.0),
        TurnStarted(seat=0, at=at(100), deadline=at(100)),
    ]
    assert table.seats[0] == TableSeat(bank_s=0.0, running_since=at(100), deadline=at(100))
    assert deadlines(table) == {0: at(100)}


def test_an_overdue_per_move_seat_that_moves_gets_a_fresh_limit() -> None:
    timing = Timing(per_move_s=30, on_timeout="wait")
    table = started(timing)
    table = fold(table, timeout(table, 0, at(31)))
    events, table = step(table, {0}, 0, at(45))
    assert events == [
        TimeUsed(seat=0, used_s=45.0, bank_s=None),
        TurnStarted(seat=0, at=at(45), deadline=at(75)),
    ]
    assert not table.seats[0].overdue


# -- resignations and claims --------------------------------------------------------------------


BUSY = TableSeat(
    bot="easy",
    once=True,
    running_since=at(0),
    deadline=at(30),
    bank_s=12.0,
    overdue=True,
)


def test_resigned_hands_the_seat_to_a_bot_and_stops_the_clock() -> None:
    table = TableState(timing=BANK, fill_level="easy", seats=(TableSeat(), BUSY))
    table = evolve(table, Resigned(seat=1, at=at(5), bot="hard"))
    assert table.seats[1] == TableSeat(standing="resigned", bot="hard", bank_s=12.0)
    assert table.seats[0] == TableSeat()
    assert forfeited(table) == [1]
    assert bots_now(table) == {"1": "hard"}


def test_seat_claimed_hands_the_seat_to_a_bot_and_stops_the_clock() -> None:
    table = TableState(timing=BANK, fill_level="easy", seats=(BUSY, TableSeat()))
    table = evolve(table, SeatClaimed(seat=0, by=1, at=at(5), bot="hard"))
    assert table.seats[0] == TableSeat(standing="timed_out", bot="hard", bank_s=12.0)
    assert table.seats[1] == TableSeat()
    assert forfeited(table) == [0]


def test_claiming_an_overdue_seat_end_to_end() -> None:
    timing = Timing(per_move_s=30, on_timeout="wait")
    table = started(timing, seat=0, n=3)
    table = fold(table, timeout(table, 0, at(30)))
    table = fold(table, [SeatClaimed(seat=0, by=2, at=at(40), bot=table.fill_level)])
    assert table.seats[0] == TableSeat(standing="timed_out", bot="medium")
    assert deadlines(table) == {}
    assert after_command(table, frozenset({0}), 0, at(41)) == []


def test_seat_returned_gives_the_seat_back() -> None:
    table = TableState(timing=BANK, fill_level="easy", seats=(BUSY,))
    table = evolve(table, SeatReturned(seat=0, at=at(5), bank_s=7.0))
    assert table.seats[0] == TableSeat(
        running_since=at(0), deadline=at(30), bank_s=7.0, overdue=True
    )


# -- what the table tells others ----------------------------------------------------------------


def test_bots_now_lists_every_seat_a_bot_plays_now() -> None:
    table = initial(PER_MOVE, "easy", ["easy", None, "hard", None])
    assert bots_now(table) == {"0": "easy", "2": "hard"}
    table = evolve(table, Resigned(seat=3, at=at(1), bot="easy"))
    assert bots_now(table) == {"0": "easy", "2": "hard", "3": "easy"}


def test_deadlines_are_running_clocks_of_people_overdue_ones_listed_apart() -> None:
    seats = (
        TableSeat(running_since=at(0), deadline=at(30)),
        TableSeat(standing="bot", bot="easy", running_since=at(0), deadline=at(31)),
        TableSeat(running_since=at(0), deadline=at(32), overdue=True),
        TableSeat(),
        TableSeat(running_since=at(0), deadline=at(34)),
    )
    table = TableState(timing=PER_MOVE, fill_level="easy", seats=seats)
    assert deadlines(table) == {0: at(30), 2: at(32), 4: at(34)}
    assert overdue(table) == [2]


def test_forfeited_lists_resigned_and_timed_out_seats_in_order() -> None:
    seats = (
        TableSeat(standing="timed_out", bot="e"),
        TableSeat(standing="bot", bot="e"),
        TableSeat(),
        TableSeat(standing="resigned", bot="e"),
    )
    table = TableState(timing=PER_MOVE, fill_level="e", seats=seats)
    assert forfeited(table) == [0, 3]


# -- ranking ------------------------------------------------------------------------------------


def table_with(
    n: int, resigned: tuple[int, ...] = (), timed_out: tuple[int, ...] = ()
) -> TableState:
    table = initial(PER_MOVE, "easy", [None] * n)
    for seat in resigned:
        table = evolve(table, Resigned(seat=seat, at=at(1), bot="easy"))
    for seat in timed_out:
        table = evolve(table, SeatClaimed(seat=seat, by=0, at=at(1), bot="easy"))
    return table


def outcome(ranks: list[int], **kw: object) -> Outcome:
    return Outcome(
        scores=kw.pop("scores", [10 * (len(ranks) - r) for r in ranks]),  # type: ignore[arg-type]
        ranks=ranks,
        winners=[s for s, r in enumerate(ranks) if r == 1],
        **kw,  # type: ignore[arg-type]
    )


def competition_ranks(keys: list[tuple[bool, int]]) -> list[int]:
    """The engines' convention (itty_bitty, footprints): 1 + how many did strictly better."""
    return [1 + sum(other < key for other in keys) for key in keys]


def test_ranked_without_forfeits_is_the_outcome_itself() -> None:
    result = outcome([2, 1, 3], detail={"reason": "end"})
    assert ranked(result, table_with(3)) is result
    table = initial(PER_MOVE, "easy", [None, "easy", None])  # a bot seat is no forfeit
    assert ranked(result, table) is result


def test_a_forfeiting_winner_goes_last_and_the_next_best_wins() -> None:
    result = outcome([1, 2, 3], scores=[30, 20, 10], tie_break="x", detail={"reason": "end"})
    out = ranked(result, table_with(3, resigned=(0,)))
    assert out == Outcome(
        scores=[30, 20, 10],
        ranks=[3, 1, 2],
        winners=[1],
        tie_break="x",
        detail={"reason": "end", "forfeited": [0]},
    )
    assert result.detail == {"reason": "end"}  # the engine's outcome is untouched
    assert result.ranks == [1, 2, 3]


def test_two_forfeits_keep_their_engine_order() -> None:
    out = ranked(outcome([1, 2, 3, 4]), table_with(4, resigned=(2,), timed_out=(0,)))
    assert out.ranks == [3, 1, 4, 2]
    assert out.winners == [1]
    assert out.detail == {"forfeited": [0, 2]}


def test_forfeits_are_ordered_by_engine_rank_not_by_seat() -> None:
    out = ranked(outcome([2, 1, 3]), table_with(3, resigned=(1,), timed_out=(0,)))
    assert out.ranks == [3, 2, 1]
    assert out.winners == [2]
    out = ranked(outcome([3, 2, 1, 4]), table_with(4, resigned=(3,)))
    assert out.ranks == [3, 2, 1, 4]
    assert out.winners == [2]


def test_ties_among_those_who_stayed_stay_ties_and_the_next_rank_skips() -> None:
    # Engine: seat 0 won, seats 1 and 2 shared second, seat 3 fourth; seat 0 resigned.
    out = ranked(outcome([1, 2, 2, 4]), table_with(4, resigned=(0,)))
    assert out.ranks == [4, 1, 1, 3]
    assert out.winners == [1, 2]


def test_a_shared_win_stays_shared_when_someone_else_forfeits() -> None:
    out = ranked(outcome([1, 1, 3, 4]), table_with(4, timed_out=(2,)))
    assert out.ranks == [1, 1, 4, 3]
    assert out.winners == [0, 1]


def test_ties_among_forfeits_stay_ties() -> None:
    out = ranked(outcome([1, 1, 3]), table_with(3, resigned=(0,), timed_out=(1,)))
    assert out.ranks == [2, 2, 1]
    assert out.winners == [2]
    out = ranked(outcome([3, 1, 1, 4]), table_with(4, resigned=(1, 2)))
    assert out.ranks == [1, 3, 3, 2]


def test_a_forfeit_tied_with_one_who_stayed_ranks_below() -> None:
    out = ranked(outcome([1, 1]), table_with(2, resigned=(0,)))
    assert out.ranks == [2, 1]
    assert out.winners == [1]
    out = ranked(outcome([1, 1]), table_with(2, resigned=(1,)))
    assert out.ranks == [1, 2]
    assert out.winners == [0]


def test_everyone_forfeited_keeps_the_engine_order() -> None:
    out = ranked(outcome([2, 1, 2]), table_with(3, resigned=(0, 1, 2)))
    assert out.ranks == [2, 1, 2]
    assert out.winners == [1]
    assert out.detail == {"forfeited": [0, 1, 2]}


def test_ranked_follows_standard_competition_ranking() -> None:
    """Against the engines' rule (1 + how many did strictly better) on many random cases."""
    rng = random.Random(20260101)
    for _ in range(500):
        n = rng.randint(1, 6)
        scores = [rng.randint(0, 3) for _ in range(n)]
        engine = [1 + sum(o > s for o in scores) for s in scores]
        out_seats = tuple(s for s in range(n) if rng.random() < 0.4)
        result = ranked(outcome(engine), table_with(n, resigned=out_seats))
        expected = competition_ranks([(s in out_seats, engine[s]) for s in range(n)])
        assert result.ranks == expected, (engine, out_seats)
        assert result.winners == [s for s in range(n) if expected[s] == 1]


# -- the result: game_over ---------------------------------------------------------------------


def test_game_over_carries_the_ranked_outcome_and_each_seat_s_standing() -> None:
    # seat 1 resigned, then its bot outscored seat 0: the result is seat 0's win
    engine = outcome([2, 1], scores=[19, 28], detail={"reason": "end"})
    table = table_with(2, resigned=(1,))
    [over] = game_over(engine, table)
    assert over == GameOver(
        outcome=Outcome(
            scores=[19, 28], ranks=[1, 2], winners=[0], detail={"reason": "end", "forfeited": [1]}
        ),
        standings=("playing", "resigned"),
    )
    after = evolve(table, over)
    assert after.outcome == over.outcome and after.seats == table.seats
    assert result(engine, after) == over.outcome


def test_game_over_only_once_and_only_when_the_engine_has_an_outcome() -> None:
    table = table_with(3, timed_out=(2,))
    assert game_over(None, table) == []
    [over] = game_over(outcome([1, 2, 3]), table)
    assert game_over(outcome([1, 2, 3]), evolve(table, over)) == []


def test_the_result_is_the_logged_one_else_the_ranked_engine_outcome() -> None:
    table = table_with(2, resigned=(0,))
    engine = outcome([1, 2])
    assert result(None, table) is None  # not over
    # a game that ended before game_over existed: ranked as game_over would have it
    assert result(engine, table) == ranked(engine, table) == game_over(engine, table)[0].outcome
    logged = Outcome(scores=[0, 0], ranks=[1, 1], winners=[0, 1])
    over = GameOver(outcome=logged, standings=("resigned", "playing"))
    assert result(engine, evolve(table, over)) is logged  # the log's word, never recomputed


def test_game_over_survives_a_json_round_trip_as_stored() -> None:
    [over] = game_over(outcome([1, 2], detail={"reason": "end"}), table_with(2, resigned=(0,)))
    back = msgspec.json.decode(msgspec.json.encode(over), type=AnyTableEvent)
    assert back == over and msgspec.json.encode(over).startswith(b'{"type":"game_over"')


# -- stored timings and snapshots ---------------------------------------------------------------


def test_timing_of_a_game_from_before_the_clocks_is_untimed() -> None:
    # its turn_seconds was stored and never enforced; the game goes on without a clock
    assert timing_of({"turn_seconds": 60}) == Timing()
    assert timing_of({"turn_seconds": 60, "on_timeout": "wait"}) == Timing(on_timeout="wait")
    assert not timing_of({"turn_seconds": 3}).clocked


def test_timing_of_nothing_is_untimed() -> None:
    assert timing_of({}) == Timing()
    assert not timing_of({}).clocked
    assert timing_of({"turn_seconds": None}) == Timing()


def test_timing_of_keeps_an_explicit_per_move_limit() -> None:
    assert timing_of({"turn_seconds": 60, "per_move_s": 30}) == Timing(per_move_s=30)


def test_timing_of_a_current_timing_and_leaves_its_input_alone() -> None:
    raw = {"bank_s": 60, "increment_s": 10, "cap_s": 120, "on_timeout": "bot_takeover"}
    assert timing_of(raw) == Timing(bank_s=60, increment_s=10, cap_s=120, on_timeout="bot_takeover")
    legacy = {"turn_seconds": 60}
    timing_of(legacy)
    assert legacy == {"turn_seconds": 60}


def test_timing_of_refuses_unknown_fields() -> None:
    with pytest.raises(msgspec.ValidationError):
        timing_of({"per_move": 30})


def test_a_table_state_survives_a_msgpack_round_trip() -> None:
    table = TableState(
        timing=Timing(bank_s=60, increment_s=10, cap_s=65, on_timeout="wait"),
        fill_level="medium",
        seats=(
            TableSeat(bank_s=42.5, running_since=at(3), deadline=at(45.5), overdue=True),
            TableSeat(standing="bot", bot="hard"),
            TableSeat(standing="playing", bot="medium", once=True, bank_s=0.0),
            TableSeat(standing="resigned", bot="easy", bank_s=7.25),
            TableSeat(standing="timed_out", bot="easy"),
        ),
    )
    data = msgspec.msgpack.encode(table)
    back = msgspec.msgpack.decode(data, type=TableState)
    assert back == table
    assert back.seats[0].running_since is not None
    assert back.seats[0].running_since.tzinfo is not None


def test_table_events_survive_a_msgpack_round_trip() -> None:
    events: list[AnyTableEvent] = [
        TurnStarted(seat=0, at=at(0), deadline=at(30)),
        TimeUsed(seat=0, used_s=1.235, bank_s=None),
        TimeUsed(seat=1, used_s=2.0, bank_s=58.0),
        TimedOut(seat=1, deadline=at(30), at=at(31), on_timeout="bot_move", bot="easy"),
        SeatReturned(seat=1, at=at(32), bank_s=10.0),
        Resigned(seat=2, at=at(33), bot="easy"),
        SeatClaimed(seat=3, by=0, at=at(34), bot="hard"),
        GameOver(outcome=outcome([2, 1]), standings=("resigned", "bot")),
    ]
    data = msgspec.msgpack.encode(events)
    assert msgspec.msgpack.decode(data, type=list[AnyTableEvent]) == events


def test_a_draw_stays_a_draw_when_someone_forfeited() -> None:
    drawn = Outcome(scores=[0, 0, 0], ranks=[1, 1, 1], winners=[])
    table = fold(
        initial(Timing(), "greedy", [None, None, None]),
        [Resigned(seat=0, at=T0, bot="greedy")],
    )
    ranked_out = ranked(drawn, table)
    assert ranked_out.ranks == [3, 1, 1] and ranked_out.winners == []


def test_a_bot_move_not_made_when_the_turn_went_by_returns_the_seat() -> None:
    # bot_move timed out, then the seat leaves to_act without acting (a withdrawn interrupt):
    # the bot must not play the person's next turn
    table = fold(started(PER_MOVE), timeout(started(PER_MOVE), 0, at(30)))
    assert table.seats[0].once
    events = after_command(table, frozenset({1}), 1, at(31))
    assert SeatReturned(seat=0, at=at(31), bank_s=None) in events
    assert fold(table, events).seats[0].bot is None


def test_a_bank_with_bot_move_needs_an_increment() -> None:
    assert Timing(bank_s=60, on_timeout="bot_move").problem() is not None
    assert Timing(bank_s=60, increment_s=5, on_timeout="bot_move").problem() is None
    assert Timing(bank_s=60, on_timeout="bot_takeover").problem() is None
