"""The Rules protocol every engine implements (DESIGN.md, "Rule engines")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any, Protocol, TypeVar

import msgspec

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")
O = TypeVar("O")  # noqa: E741


T = TypeVar("T")


class Rng(Protocol):
    """The randomness an engine is handed (random.Random fits); it never makes its own."""

    def random(self) -> float: ...
    def randrange(self, stop: int, /) -> int: ...
    def choice(self, seq: Sequence[T], /) -> T: ...
    def sample(self, population: Sequence[T], k: int) -> list[T]: ...
    def shuffle(self, x: list[Any], /) -> None: ...


class Seeded:
    """`random.Random(seed)`, seeded at its first draw: the same draws, and a move that draws
    nothing (most of them) does not pay for seeding the Mersenne Twister (~5 µs, as much as
    the rest of a small move's decision)."""

    __slots__ = ("_random", "_seed")

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._random: Random | None = None

    def _drawn(self) -> Random:
        if self._random is None:
            self._random = Random(self._seed)
        return self._random

    def random(self) -> float:
        return self._drawn().random()

    def randrange(self, stop: int, /) -> int:
        return self._drawn().randrange(stop)

    def choice(self, seq: Sequence[T], /) -> T:
        return self._drawn().choice(seq)

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        return self._drawn().sample(population, k)

    def shuffle(self, x: list[Any], /) -> None:
        self._drawn().shuffle(x)


def draws(seed: int, version: int) -> Seeded:
    """The draws of the command decided at `version` of a game with this secret seed (0: the
    setup): the game service's, so a replay (`games/replay.py`) and a retry draw the same."""
    return Seeded(seed * 1_000_003 + version)


class IllegalAction(Exception):
    """A move the rules forbid; `code` is stable snake_case a client can switch on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class View(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat (or a spectator, seat None) may see: public part + its own private part."""

    public: Any
    private: Any | None = None


class Unavailable(msgspec.Struct, frozen=True, kw_only=True):
    """An answer to a question the seat is asked that the rules refuse now, and why: listed
    beside the legal actions so a client can say why the answer is missing (an Itchy Feet
    responder who does not hold the cards asked cannot accept the trade)."""

    type: str  # the answer's action type, as it is tagged ("accept_trade")
    code: str  # the IllegalAction code `decide` refuses that answer with
    message: str  # why, for a person to read


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """Final result: `ranks[seat]` is 1 for the winner(s); ties share a rank."""

    scores: list[int]
    ranks: list[int]
    winners: list[int]
    tie_break: str | None = None
    detail: dict[str, Any] = {}


class Rules(Protocol[S, A, E, O]):
    """What a game must provide (docs/adding-a-game.md). A game registers one instance, in
    its package's `game.py` (games/registry.py). Everything is pure: no clock, no I/O, no
    randomness but the `Rng` handed in.

    Must, beside the members below:
    - `setup` returns the events that set a game up; the first (`game_set_up` by convention)
      carries the seat count, the whole `options` and `rules` (its `rules_version`), so a
      log alone rebuilds the game, and `evolve(None, it)` is the first state.
    - `action_type` and `event_type` are msgspec Structs with a `tag` (`type` on the wire),
      or unions of them; one action type is enough (games/schemas.py names it `<Game>.Action`).
    - `state_type` is a frozen Struct that keeps `rules`, the version the game plays under.
    - `view(state, seat)` is a `View`; `view_type` describes it (JSON Schema for clients).
    - `legal_actions` lists every move `decide` accepts that has a result of its own, and
      `decide` refuses everything else with an `IllegalAction` of a stable `code`.
    May (with the defaults of `PublicGame`, for a game that hides nothing and has no cards):
    - `redact(event, seat)`: the seat's copy of an event (None: it sees nothing of it);
    - `sample(state, seat, rng)`: a state the seat cannot tell from the real one (the bots'
      search reads only that);
    - `unavailable`: answers to a question refused now, and why;
    - `inventory`/`holdings`/`all_cards`: where every card lies (games/testing.py checks
      that none is lost, doubled or shown to a seat that may not see it); `copy_class`: the
      class of identical copies a card belongs to (none: every card is unique);
    - `describe()`: the game's own content for the catalog (`/v1/catalog/{game}/content`);
    - `board_svg(state, seat, pieces=True)` and `board_map(state)`/`map_type`: a picture (without
      `pieces`, the map as set up, fixed for the game) and a map.
    The words of a game (games/text.py, `Narrator`) and its bot policies live beside it, named
    by its registry entry.
    """

    key: str
    name: str
    seats: range
    schema_version: int  # bump when the state's shape changes: old snapshots are ignored
    # The rules new games are set up under. A game records it in its setup event and keeps it
    # in its state (`state.rules`, 1 in logs from before versions were recorded): bump it when
    # `decide` would rule a move otherwise or `evolve` would read an event otherwise, and keep
    # the old path for games begun under the old version (tests/corpus replays their logs).
    rules_version: int
    state_type: type[S]
    action_type: Any  # a tagged union of action Structs
    event_type: Any  # a tagged union of event Structs
    options_type: type[O]
    view_type: Any  # the shape of `view`'s result as types (JSON Schema for clients)
    bot_levels: tuple[str, ...]

    def setup(self, options: O, seats: int, rng: Rng) -> list[E]: ...
    def evolve(self, state: S | None, event: E) -> S: ...
    def to_act(self, state: S) -> frozenset[int]: ...
    def legal_actions(self, state: S, seat: int) -> Sequence[A]: ...
    def unavailable(self, state: S, seat: int) -> Sequence[Unavailable]: ...
    def decide(self, state: S, seat: int, action: A, rng: Rng) -> list[E]: ...
    def view(self, state: S, seat: int | None) -> View: ...
    def redact(self, event: E, seat: int | None) -> E | None: ...
    def outcome(self, state: S) -> Outcome | None: ...
    def sample(self, state: S, seat: int, rng: Rng) -> S: ...

    # Used by games/testing.py to check conservation and secrecy generically.
    def inventory(self, state: S) -> Mapping[str, Sequence[str]]: ...
    def holdings(self, state: S, seat: int) -> frozenset[str]: ...


class PublicGame:
    """The defaults of `Rules` for a game that hides nothing and has no cards: every seat and
    a spectator see the whole state, every event whole, and a guess is the state itself.
    Subclass it and give the members `Rules` requires (tests/example_game is one); a new
    game starts at schema and rules version 1."""

    view_type: Any = View  # the state, whole, as `public`
    schema_version = 1
    rules_version = 1

    def view(self, state: Any, seat: int | None) -> View:
        return View(public=state, private=None)

    def redact(self, event: Any, seat: int | None) -> Any:
        return event

    def sample(self, state: Any, seat: int, rng: Rng) -> Any:
        return state

    def unavailable(self, state: Any, seat: int) -> Sequence[Unavailable]:
        return []

    def inventory(self, state: Any) -> Mapping[str, Sequence[str]]:
        return {}

    def holdings(self, state: Any, seat: int) -> frozenset[str]:
        return frozenset()

    def all_cards(self) -> frozenset[str]:
        return frozenset()

    def describe(self) -> dict[str, Any]:
        return {}


def rules_version_of(state: Any) -> int:
    """The rules version a game plays under (Rules.rules_version): its state's `rules`."""
    return int(getattr(state, "rules", 1))


def fold(rules: Rules[S, A, E, O], events: Sequence[E], state: S | None = None) -> S:
    """Replay events onto a state (or from nothing: then there must be events)."""
    for event in events:
        state = rules.evolve(state, event)
    if state is None:
        raise ValueError("no events to fold")
    return state
