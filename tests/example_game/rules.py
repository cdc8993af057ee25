"""Nim: heaps of counters; a move takes one or more counters from one heap, and whoever takes
the last counter wins. Nothing is hidden: `PublicGame` gives every default."""

from collections.abc import Sequence
from typing import Annotated

import msgspec

from games.api import IllegalAction, Outcome, PublicGame, Rng


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    heaps: Annotated[
        tuple[Annotated[int, msgspec.Meta(ge=1, le=20)], ...],
        msgspec.Meta(min_length=1, max_length=6),
    ] = (3, 4, 5)


class Take(msgspec.Struct, frozen=True, kw_only=True, tag="take"):
    heap: int
    count: int


class GameSetUp(msgspec.Struct, frozen=True, kw_only=True, tag="game_set_up"):
    seats: int
    options: Options
    first_seat: int
    rules: int = 1


class Taken(msgspec.Struct, frozen=True, kw_only=True, tag="taken"):
    seat: int
    heap: int
    count: int


Event = GameSetUp | Taken


class State(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    heaps: tuple[int, ...]
    current: int
    last: int | None = None  # who took last: the winner once every heap is empty
    rules: int = 1


class Nim(PublicGame):
    key = "nim"
    name = "Nim"
    seats = range(2, 5)
    state_type = State
    action_type = Take
    event_type = Event
    options_type = Options
    bot_levels: tuple[str, ...] = ("random", "greedy")

    def setup(self, options: Options, seats: int, rng: Rng) -> list[Event]:
        if seats not in self.seats:
            raise IllegalAction("bad_seat_count", "Nim seats 2 to 4 players")
        first = rng.randrange(seats)
        return [GameSetUp(seats=seats, options=options, first_seat=first, rules=self.rules_version)]

    def evolve(self, state: State | None, event: Event) -> State:
        match event:
            case GameSetUp(seats=seats, options=options, first_seat=first, rules=rules):
                return State(seats=seats, heaps=options.heaps, current=first, rules=rules)
            case Taken(seat=seat, heap=heap, count=count):
                assert state is not None
                heaps = tuple(h - count if i == heap else h for i, h in enumerate(state.heaps))
                nxt = (seat + 1) % state.seats
                return msgspec.structs.replace(state, heaps=heaps, current=nxt, last=seat)
        raise ValueError(f"no such event: {event!r}")

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if not any(state.heaps) else frozenset({state.current})

    def legal_actions(self, state: State, seat: int) -> Sequence[Take]:
        heaps = enumerate(state.heaps) if seat in self.to_act(state) else ()
        return [Take(heap=h, count=n) for h, left in heaps for n in range(1, left + 1)]

    def decide(self, state: State, seat: int, action: Take, rng: Rng) -> list[Event]:
        if seat not in self.to_act(state):
            raise IllegalAction("not_your_turn", f"seat {seat} is not to act now")
        if not 0 <= action.heap < len(state.heaps):
            raise IllegalAction("no_such_heap", f"there are {len(state.heaps)} heaps")
        if not 1 <= action.count <= state.heaps[action.heap]:
            raise IllegalAction("wrong_count", f"take 1 to {state.heaps[action.heap]} counters")
        return [Taken(seat=seat, heap=action.heap, count=action.count)]

    def outcome(self, state: State) -> Outcome | None:
        if any(state.heaps) or state.last is None:
            return None
        won = [int(s == state.last) for s in range(state.seats)]
        return Outcome(scores=won, ranks=[2 - w for w in won], winners=[state.last])
