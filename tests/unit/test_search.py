"""The search bot (services/bots/search.py): honest by construction, bounded by its budget."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from random import Random
from typing import Any

import msgspec
import pytest

from games.registry import registry
from games.testing import random_playout
from services.bots import search as search_module
from services.bots.observe import observation
from services.bots.policies import even, itty_bitty, playing
from services.bots.search import (
    CLOCK_EVERY,
    TURN_SENT,
    TURN_SHARE,
    Budget,
    _confident_best,
    _hopeless,
    _rollout,
    search,
    seconds_left,
    uniform,
    win_chances,
)

GAMES = sorted(registry())
BUDGET = Budget(simulations=24, seconds=30.0, rollout=6, width=3)


def midgame(key: str, seed: int, seats: int = 3) -> tuple[Any, int]:
    rules = registry()[key]
    playout = random_playout(rules, seed, seats)
    live = [s for s in playout.states if rules.to_act(s)]
    state = live[len(live) // 2]
    return state, min(rules.to_act(state))


def decide(key: str, state: Any, seat: int, seed: int) -> Any:
    rules = registry()[key]
    obs = observation(rules, state, seat, 0)
    return search(rules, obs.world, seat, obs.legal, Random(seed), BUDGET, even)


@pytest.mark.parametrize("key", GAMES)
def test_two_states_a_seat_cannot_tell_apart_get_the_same_search_and_move(key: str) -> None:
    """Hidden cards elsewhere (a guess of the real state is one the seat cannot tell from
    it): the same observation, world included, so the same move from the same seed."""
    rules = registry()[key]
    moved = 0
    for seed in range(4):
        state, seat = midgame(key, seed)
        other = rules.sample(state, seat, Random(1000 + seed))
        assert other != state  # the hidden part differs
        assert rules.view(other, seat) == rules.view(state, seat)
        assert observation(rules, other, seat, 0) == observation(rules, state, seat, 0)
        move = decide(key, state, seat, seed)
        assert decide(key, other, seat, seed) == move
        moved += len(rules.legal_actions(state, seat)) > 1
    assert moved  # some position had a choice to make


@pytest.mark.parametrize("key", GAMES)
def test_the_move_is_one_of_the_seats_legal_actions(key: str) -> None:
    rules = registry()[key]
    for seed in range(3):
        state, seat = midgame(key, 10 + seed, seats=2)
        assert decide(key, state, seat, seed) in list(rules.legal_actions(state, seat))


def test_a_single_legal_action_is_played_without_searching() -> None:
    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 0)

    def never(*_: Any) -> Any:
        raise AssertionError("searched")

    only = rules.legal_actions(state, seat)[0]
    assert search(rules, state, seat, [only], Random(0), BUDGET, never) == only


def test_the_search_stops_at_its_time_budget() -> None:
    """The clock is read once to set the deadline (tick 0: due at 5) and before each guess:
    ticks 1 to 4 fall before it, so 4 guesses, each scoring every move considered once
    (rollout 0: `estimate` at once)."""
    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 2)
    legal = rules.legal_actions(state, seat)
    ticks = iter(range(1_000_000))
    scored = 0

    def counting(s: Any) -> list[float]:
        nonlocal scored
        scored += 1
        return itty_bitty.estimate(s)

    budget = Budget(simulations=10_000, seconds=5.0, rollout=0, width=3)
    search(rules, state, seat, legal, Random(0), budget, counting, clock=lambda: float(next(ticks)))
    ahead = len(legal) - 1 if len(legal) > 3 else 0  # the root's one-move look-ahead
    assert len(legal) > 3 and scored == ahead + 4 * 3


def test_the_policys_own_move_stands_unless_another_is_surely_better() -> None:
    own, luckier, better = [0.5, 0.4, 0.6, 0.5], [0.9, 0.1, 0.9, 0.3], [0.7, 0.6, 0.8, 0.7]
    assert _confident_best([own, luckier]) == 0  # higher on average, but by noise
    assert _confident_best([own, better]) == 1  # 0.2 better on every guess
    assert _confident_best([own, luckier, better]) == 2
    assert _confident_best([own, better, luckier]) == 1  # the best by its wins, not its place
    assert _confident_best([own, better, list(better)]) == 1  # a tie: the first considered
    assert _confident_best([own, [r - 0.1 for r in own]]) == 0
    assert _confident_best([[0.5], [1.0]]) == 0  # one guess tells nothing
    assert _confident_best([own, [], better]) == 2  # a move dropped as hopeless is not running
    assert _confident_best([[0.5, 0.5], [0.7, 0.7]]) == 1  # two guesses, the same gain on both
    # paired gains +0.2, +0.2, +0.2, -0.1: t = 1.67 standard errors (n - 1 in the variance)
    assert (
        _confident_best([own, [r + d for r, d in zip(own, [0.2, 0.2, 0.2, -0.1], strict=True)]])
        == 0
    )


class Pick:
    """A one-seat game for the search's root: pick a number, then confirm; the pick wins
    with its chance in `WIN`, drawn at the confirmation. The estimate after a pick ranks the
    numbers the wrong way round (the lowest first), so the best pick is looked at last."""

    WIN = (0.5, 0.3, 0.3, 0.3, 0.3, 0.3, 0.9)

    class Outcome(msgspec.Struct):
        winners: list[int]
        ranks: list[int]

    def sample(self, world: Any, seat: int, rng: Random) -> Any:
        return world

    def to_act(self, state: Any) -> list[int]:
        return [] if isinstance(state, bool) else [0]

    def legal_actions(self, state: Any, seat: int) -> list[Any]:
        return list(range(len(self.WIN))) if state is None else ["go"]

    def decide(self, state: Any, seat: int, action: Any, rng: Random) -> list[Any]:
        return [action if action != "go" else rng.random() < self.WIN[state]]

    def evolve(self, state: Any, event: Any) -> Any:
        return event

    def outcome(self, state: Any) -> Any:
        if not isinstance(state, bool):
            return None
        return self.Outcome(winners=[0] if state else [], ranks=[0])

    @staticmethod
    def estimate(state: Any) -> list[float]:
        return [1.0 - state / 10]

    @staticmethod
    def first(state: Any, seat: int, actions: Any, rng: Random) -> Any:
        return actions[0]


class Counting(Pick):
    """Pick, counting the guesses (`sample`) a search makes."""

    guesses = 0

    def sample(self, world: Any, seat: int, rng: Random) -> Any:
        self.guesses += 1
        return world


def test_the_root_ranks_by_one_move_ahead_a_finished_game_by_its_outcome() -> None:
    """The root is the policy's move and the next best one move ahead: on a tie the earlier
    listed; a move that ends the game is ranked by its outcome; fewer legal
    moves than the width are all searched; so are two."""

    class Flat(Pick):
        @staticmethod
        def estimate(state: Any) -> list[float]:
            return [0.5]

    class Ending(Pick):  # 6 wins at once, no confirmation (an estimate would rank it last)
        def decide(self, state: Any, seat: int, action: Any, rng: Random) -> list[Any]:
            return [True] if action == 6 else super().decide(state, seat, action, rng)

        @staticmethod
        def estimate(state: Any) -> list[float]:
            return [0.0] if isinstance(state, bool) else Pick.estimate(state)

    budget = Budget(simulations=400, seconds=30.0, width=3)
    legal = list(range(len(Pick.WIN)))

    def play(game: Pick, b: Budget = budget, moves: list[int] = legal) -> Any:
        return search(game, None, 0, moves, Random(5), b, game.estimate, game.first)  # type: ignore[arg-type]

    assert play(Flat()) == 0  # the tie: 1 and 2 searched, not 5 and 6
    assert play(Ending()) == 6  # its sure win ranks it first of the rest
    assert play(Pick(), msgspec.structs.replace(budget, width=8)) == 6  # all seven searched
    assert play(Pick(), moves=[0, 6]) == 6  # two moves: searched, not the first one listed


def test_the_search_leaves_a_worse_policy_move() -> None:
    """The policy picks 1 (0.3); 0 (0.5), searched beside it, wins more on the same draws."""

    def second(state: Any, seat: int, actions: Any, rng: Random) -> Any:
        return actions[1] if len(actions) > 1 else actions[0]

    game = Pick()
    budget = Budget(simulations=400, seconds=30.0, width=3)
    assert search(game, None, 0, list(range(7)), Random(5), budget, game.estimate, second) == 0  # type: ignore[arg-type]


def test_the_playouts_stop_at_the_budgets_simulations_after_two_guesses_at_least() -> None:
    """Three moves searched a guess, none dropped before SETTLE guesses: 3 playouts make two
    guesses (two at least, to compare), 12 make four, 13 five."""
    for simulations, guesses in ((3, 2), (12, 4), (13, 5)):
        game = Counting()
        budget = Budget(simulations=simulations, seconds=30.0, width=3)
        search(game, None, 0, list(range(7)), Random(5), budget, game.estimate, game.first)  # type: ignore[arg-type]
        assert game.guesses == guesses


def test_a_move_is_dropped_when_surely_no_better_than_the_policys_own() -> None:
    own = [0.5, 0.4, 0.6, 0.5, 0.5, 0.4, 0.6, 0.5]
    assert _hopeless([r - 0.1 for r in own], own)  # worse on every guess
    assert _hopeless(list(own), own)  # the same on every guess: it can never be chosen
    assert not _hopeless([r + 0.01 for r in own], own)  # better, if only a little
    noisy = [r + d for r, d in zip(own, [0.3, -0.3, 0.2, -0.25, 0.1, -0.1, 0.0, 0.0], strict=True)]
    assert not _hopeless(noisy, own)  # a little below on average, within its noise
    assert _hopeless(
        [r - 0.2 + d / 4 for r, d in zip(own, [1, -1, 1, -1, 0, 0, 1, -1], strict=True)], own
    )


def test_win_chances_follow_the_lead_over_the_best_other() -> None:
    ahead, behind, last = win_chances([10.0, 7.0, 0.0], 3.0)
    assert ahead > 0.7 > 0.3 > behind > last
    assert win_chances([5.0, 5.0], 3.0) == [0.5, 0.5]


def test_itty_bittys_estimate_counts_coins_payable_grails_and_time_left() -> None:
    """Coins, plus each held collector: its grails payable now in full, less the coin it
    costs unfinished; while the end is not triggered, also a share of what it may bring and
    what the ittybits in hand are worth to collectors still to come."""
    from collections import Counter

    import msgspec

    from games.itty_bitty.content import load

    content = load()
    state, seat = midgame("itty-bitty", 3, seats=2)
    col = next(
        c for c in content.collectors.values() if len({g.trait for g in c.grails}) == len(c.grails)
    )
    first = col.grails[0]
    others = {g.trait for g in col.grails[1:]}
    cards = [
        b
        for b in content.ittybits
        if first.trait in content.traits(b) and not content.traits(b) & others
    ]
    hand = msgspec.structs.replace(
        state.hands[seat], coins=5, collectors=(col.id,), ittybits=tuple(cards[: first.qty])
    )
    hands = tuple(hand if s == seat else h for s, h in enumerate(state.hands))
    late = msgspec.structs.replace(state, hands=hands, end_triggered_by=1 - seat)
    assert Counter(t for c in hand.ittybits for t in content.traits(c))[first.trait] == first.qty
    assert itty_bitty.points(late)[seat] == 5 + first.coins - 1  # nothing more to come
    early = msgspec.structs.replace(late, end_triggered_by=None)
    assert itty_bitty.points(early)[seat] == (
        5
        + first.coins
        - 1
        + itty_bitty.POTENTIAL * itty_bitty.HOPE
        + itty_bitty.ITTYBIT * first.qty
    )


def test_itchy_feets_estimate_counts_the_cards_and_trips_to_the_centre() -> None:
    """A seat's steps to win: the items (a map for any one) and passport its next trip still
    lacks, the trip, and before home a share of the centre's items it lacks; fewer steps, a
    better chance; a won game is certain."""
    import msgspec

    from games.itchy_feet.content import load
    from services.bots.policies import itchy_feet

    content = load()
    state, _ = midgame("itchy-feet", 5, seats=2)
    ids: dict[str, list[str]] = {}
    for card in sorted(content.cards):
        ids.setdefault(content.kind(card), []).append(card)
    home = content.countries[state.homes[0]].items
    centre = content.countries[state.centre].items
    other = next(k for k in ids if content.type(ids[k][0]) == "item" and k not in centre)

    def at(hand: list[str], visited: bool = False) -> float:
        hands = (tuple(hand), ())
        s = msgspec.structs.replace(
            state, hands=hands, visited_home=(visited, False), winner=None, pending=None
        )
        return itchy_feet.steps(s, 0)

    ready = [ids["passport"][0], *(ids[k][0] for k in home)]
    centre_missing = sum(1 for k in centre if k not in home)
    assert at(ready) == pytest.approx(1 + 1 + itchy_feet.AFTER_HOME * centre_missing)
    assert at(ready[1:]) == at(ready) + 1  # no passport
    # an item short: one more card, and a share of it if the centre wants it too
    short = 1 + itchy_feet.AFTER_HOME * (home[-1] in centre)
    assert at(ready[:-1]) == pytest.approx(at(ready) + short)
    shared = itchy_feet.AFTER_HOME * (home[-1] in centre)  # the map is spent at home
    assert at([*ready[:-1], ids["poorly-drawn-map"][0]]) == pytest.approx(at(ready) + shared)
    assert at([*ready[:-1], ids[other][0]]) == pytest.approx(at(ready) + short)  # not another
    forbidden = next(k for k in ids if content.type(ids[k][0]) == "forbidden")
    assert at([*ready, ids[forbidden][0]]) == pytest.approx(at(ready) + 1)  # to be rid of
    at_centre = [ids["passport"][0], *(ids[k][-1] for k in centre)]
    assert at(at_centre, visited=True) == 1
    assert at(at_centre[:1], visited=True) == 4

    near = msgspec.structs.replace(
        state, hands=(tuple(at_centre), ()), visited_home=(True, False), winner=None, pending=None
    )
    ahead, behind = itchy_feet.estimate(near)
    assert ahead > 0.5 > behind
    won = msgspec.structs.replace(near, winner=1)
    assert itchy_feet.estimate(won) == [0.0, 1.0]


def test_the_budget_counts_from_when_the_turn_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that waited in the queue searches for what is left of its budget; one that
    waited all of it plays its policy's own move without guessing once; unset (tests, the
    tournament) or stamped by a clock ahead of this one, the whole budget is its."""
    now = time.time()  # the wall clock stands still: a slow machine shifts no figure below
    monkeypatch.setattr(search_module.time, "time", lambda: now)
    budget = Budget(simulations=10_000, seconds=2.0)
    assert seconds_left(budget) == 2.0
    token = TURN_SENT.set(time.time() - 0.5)
    try:
        assert seconds_left(budget) == 1.5
    finally:
        TURN_SENT.reset(token)
    with sent(time.time() + 60):
        assert seconds_left(budget) == 2.0
    token = TURN_SHARE.set(0.25)  # three searches wait behind it on one process
    try:
        assert seconds_left(budget) == 0.5
    finally:
        TURN_SHARE.reset(token)

    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 2)
    legal = rules.legal_actions(state, seat)
    assert len(legal) > 1
    counted: Any = Guessing(rules)
    own = playing("itty-bitty", itty_bitty.greedy)  # the playout policy whose move stands
    with sent(time.time() - 2.5):
        move = search(counted, state, seat, legal, Random(3), budget, itty_bitty.estimate, own)
    assert counted.guesses == 0 and move == own(state, seat, legal, Random(3))
    # 1.5 s waited, so 0.5 s left; the clock ticks 0.1 s a reading (the first sets
    # the deadline): guesses at 0.1 to 0.4, as the deadline, not the simulations, allows
    ticks = iter(range(1_000_000))
    with sent(time.time() - 1.5):
        search(
            counted,
            state,
            seat,
            legal,
            Random(3),
            msgspec.structs.replace(budget, rollout=0),
            itty_bitty.estimate,
            own,
            clock=lambda: next(ticks) / 10,
        )
    assert counted.guesses == 4


@contextlib.contextmanager
def sent(at: float) -> Iterator[None]:
    token = TURN_SENT.set(at)
    try:
        yield
    finally:
        TURN_SENT.reset(token)


def test_a_playout_past_the_deadline_is_abandoned_and_its_guess_left_out() -> None:
    """The clock is read every CLOCK_EVERY moves of a playout: past the deadline the playout
    gives up (None) rather than play on to the end, and the search leaves that guess out
    whole, so every move compared keeps the same guesses."""
    rules = registry()["footprints"]
    state, seat = midgame("footprints", 1, seats=2)
    assert rules.outcome(state) is None
    args = (rules, state, Random(0), 400, even, uniform, rules.legal_actions)
    assert _rollout(*args, lambda: 0.0, 1.0) is not None  # on time: played to its end
    readings = 0

    def late() -> float:
        nonlocal readings
        readings += 1
        return 2.0

    assert _rollout(*args, late, 1.0) is None and readings == 1  # after CLOCK_EVERY moves

    # the deadline falls inside the third guess, after its first playout: two whole guesses
    # stand, the third's one playout is left out with the rest of it
    wrapped: Any = Guessing(rules)
    playouts_in_third = 0
    real_rollout = search_module._rollout

    def rollout(*args: Any) -> Any:
        nonlocal playouts_in_third
        if wrapped.guesses >= 3:
            playouts_in_third += 1
        return real_rollout(*args)

    def late_in_third_guess() -> float:  # late from the third guess's second playout on
        return 10.0 if playouts_in_third >= 2 else 0.0

    counted: list[int] = []
    real = search_module._confident_best

    def confident(results: list[list[float]]) -> int:
        counted.extend(len(r) for r in results)
        return real(results)

    legal = rules.legal_actions(state, seat)
    budget = Budget(simulations=10_000, seconds=5.0, rollout=400, width=3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search_module, "_confident_best", confident)
        mp.setattr(search_module, "_rollout", rollout)
        search(wrapped, state, seat, legal, Random(0), budget, even, clock=late_in_third_guess)
    assert wrapped.guesses == 3 and playouts_in_third == 2
    assert counted == [2] * min(3, len(legal))


def test_the_roots_look_ahead_stops_at_the_deadline() -> None:
    """A wide root is looked at one move ahead, the clock read every CLOCK_EVERY moves: past
    the deadline it stops there, and with no time left for a guess the policy's move stands."""
    rules = registry()["itty-bitty"]
    seed, (state, seat) = next(
        (seed, found)
        for seed in range(50)
        if len(rules.legal_actions(*(found := midgame("itty-bitty", seed)))) > 2 * CLOCK_EVERY
    )
    legal = rules.legal_actions(state, seat)
    readings = 0

    def clock() -> float:  # the first reading sets the deadline; every later one is past it
        nonlocal readings
        readings += 1
        return 0.0 if readings == 1 else 10.0

    played = 0
    real_play = search_module._play

    def play(*args: Any) -> Any:
        nonlocal played
        played += 1
        return real_play(*args)

    wrapped: Any = Guessing(rules)
    own = playing("itty-bitty", itty_bitty.greedy)
    budget = Budget(simulations=10_000, seconds=5.0, rollout=0, width=3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search_module, "_play", play)
        move = search(wrapped, state, seat, legal, Random(seed), budget, even, own, clock=clock)
    assert played < CLOCK_EVERY and wrapped.guesses == 0
    assert move == own(state, seat, legal, Random(seed))


class Guessing:
    """A game's rules that count the guesses (`sample`) a search makes."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.guesses = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def sample(self, *args: Any) -> Any:
        self.guesses += 1
        return self.rules.sample(*args)


def test_a_search_with_no_time_left_is_counted() -> None:
    from prometheus_client import REGISTRY

    from services.bots.policies import mcts_policy

    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 2)
    obs = observation(rules, state, seat, 0)

    def count() -> float:
        value = REGISTRY.get_sample_value(
            "turnpost_bot_search_without_time_total", {"game": "itty-bitty"}
        )
        return value or 0.0

    before = count()
    with sent(time.time() - 60):
        mcts_policy("itty-bitty")(obs, Random(0))
    assert count() == before + 1
    with sent(time.time()):
        mcts_policy("itty-bitty", Budget(simulations=4, rollout=0))(obs, Random(0))
    assert count() == before + 1


@pytest.mark.parametrize("key", GAMES)
@pytest.mark.parametrize("level", ["mcts", "expert"])
def test_every_search_level_is_blind_to_what_its_seat_cannot_see(key: str, level: str) -> None:
    """Each searching level's own policy (its game's estimate and playout policy, a small
    budget): the same move from two states its seat cannot tell apart."""
    from services.bots.policies import SEARCHING, expert_policy, mcts_policy

    assert level in SEARCHING
    rules = registry()[key]
    small = Budget(simulations=12, seconds=30.0, rollout=6, width=3)
    policy = {"mcts": mcts_policy, "expert": expert_policy}[level](key, small)
    for seed in range(2):
        state, seat = midgame(key, 20 + seed)
        other = rules.sample(state, seat, Random(2000 + seed))
        assert other != state
        move = policy(observation(rules, state, seat, 0), Random(seed))
        assert policy(observation(rules, other, seat, 0), Random(seed)) == move


def test_every_level_of_the_ladder_is_offered_and_played_in_every_game() -> None:
    from contracts.levels import LADDER, WORDS
    from services.bots.policies import POLICIES, SEARCHED, SEARCHING, expert_budget

    for key in GAMES:
        assert registry()[key].bot_levels == LADDER
        assert all((key, level) in POLICIES for level in LADDER)
        # the expert searches more than mcts: more playouts, over more moves
        expert, base = expert_budget(key), SEARCHED[key].budget
        assert expert.simulations > base.simulations and expert.width > base.width
        assert expert.rollout >= base.rollout  # its playouts no shorter
    assert set(WORDS) == set(LADDER) and SEARCHING == {"mcts", "expert"}
