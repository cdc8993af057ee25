"""Generic checks every engine passes (DESIGN.md): run them over many seeded random games.

The seeded driving (every `Random(seed)`) is here; the checks it runs are by concern in
games/checks.py (replay, conservation, secrecy, shapes, questions), games/guesses.py
(check_sample's helpers), games/text_checks.py (the words) and games/interference.py
(check_non_interference's twin worlds), and every name is importable from here as before."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from random import Random
from typing import Any

import msgspec

from games.api import IllegalAction, Rules, fold
from games.checks import (
    Playout,
    card_ids_in,
    check_conservation,
    check_questions,
    check_secrecy,
    check_shapes,
    tag,
)
from games.guesses import Path, path_name, reverse_at, sequences, shown_to
from games.interference import (
    Diverged,
    Observer,
    Played,
    Recorded,
    Seen,
    Step,
    check_copies_alike,
    copies_swapped,
    dealt_again,
    first_difference,
    pairing,
    renamed,
)
from games.text_checks import check_every_type_has_words, check_words, example_of, union_members

__all__ = [  # the checks and their parts, here or moved out by concern, as tests import them
    "Chooser",
    "Diverged",
    "Path",
    "Playout",
    "Recorded",
    "Seen",
    "Step",
    "card_ids_in",
    "check_conservation",
    "check_every_type_has_words",
    "check_listing",
    "check_non_interference",
    "check_playout",
    "check_questions",
    "check_sample",
    "check_secrecy",
    "check_shapes",
    "check_words",
    "example_of",
    "playouts",
    "random_options",
    "random_playout",
    "recorded_game",
    "tag",
    "union_members",
]


def random_playout(
    rules: Rules[Any, Any, Any, Any],
    seed: int,
    seats: int,
    options: Any = None,
    max_steps: int = 20_000,
    keep_states: bool = True,
) -> Playout:
    """Play one game with uniformly random legal actions; every seat in `to_act` is served."""
    rng = Random(seed)
    opts = options if options is not None else rules.options_type()
    events = list(rules.setup(opts, seats, rng))
    state = fold(rules, events)
    states = [state]
    steps = 0
    while rules.to_act(state):
        if steps >= max_steps:
            raise AssertionError(f"seed {seed}: no end after {max_steps} actions")
        seat = rng.choice(sorted(rules.to_act(state)))
        actions = rules.legal_actions(state, seat)
        assert actions, f"seed {seed}: seat {seat} is to act but has no legal action"
        new = rules.decide(state, seat, rng.choice(list(actions)), rng)
        assert new, f"seed {seed}: an accepted action produced no event"
        events.extend(new)
        state = fold(rules, new, state)
        if keep_states:
            states.append(state)
        steps += 1
    return Playout(seed=seed, seats=seats, events=events, states=states, steps=steps)


def check_playout(rules: Rules[Any, Any, Any, Any], playout: Playout) -> None:
    """All the generic checks on one finished playout."""
    final = playout.states[-1]
    assert rules.outcome(final) is not None, f"seed {playout.seed}: finished without an outcome"
    assert fold(rules, playout.events) == final, f"seed {playout.seed}: replay differs"
    rng = Random(playout.seed)
    for state in playout.states:
        check_conservation(rules, state, playout.seed)
        for seat in sorted(rules.to_act(state)):
            actions = list(rules.legal_actions(state, seat))
            assert actions, f"seed {playout.seed}: seat {seat} to act with no legal action"
            for action in actions:  # every listed action is accepted as-is
                rules.decide(state, seat, action, Random(rng.random()))
            wire = msgspec.json.encode(actions)  # and survives the wire
            assert (
                msgspec.json.decode(wire, type=list.__class_getitem__(rules.action_type)) == actions
            )
            check_questions(rules, state, seat, actions)
    check_secrecy(rules, playout)


def playouts(
    rules: Rules[Any, Any, Any, Any], games: int, options: Any = None
) -> Iterator[Playout]:
    for seed in range(games):
        seats = list(rules.seats)[seed % len(rules.seats)]
        yield random_playout(rules, seed, seats, options)


def check_listing(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    seat: int,
    candidates: Iterable[Any],
    seed: int = 0,
    same: Callable[[Any, Any], bool] | None = None,
) -> None:
    """`legal_actions` lists every move: each candidate `decide` accepts has a listed action
    with the same result (the same state after it, given the same random draws), and no two
    listed actions have the same result (under three draws: chance may merge two under one). An answer `unavailable` says is refused is refused
    for every candidate of its type, and for one at least with the code it gives. `same` compares two resulting states where the rules
    ignore a difference (which of two identical copies pays); plain equality by default.

    The candidates are a brute-force oracle each game's suite generates for a position."""
    same = same or (lambda a, b: bool(a == b))

    def attempt(action: Any, draws: int = seed) -> tuple[Any | None, str | None]:
        """The state after `action`, or the code it is refused with."""
        try:
            events = rules.decide(state, seat, action, Random(draws))
        except IllegalAction as exc:
            return None, exc.code
        return fold(rules, events, state), None

    def twins(a: Any, b: Any) -> bool:
        """The same result under other draws too: chance events after a move (a reshuffle, an
        event card) may make two different moves end alike under one draw, never under all."""
        return all(same(attempt(a, d)[0], attempt(b, d)[0]) for d in (seed + 1, seed + 2))

    def result(action: Any) -> Any | None:
        return attempt(action)[0]

    listed = list(rules.legal_actions(state, seat))
    outcomes = [result(a) for a in listed]
    for action, outcome in zip(listed, outcomes, strict=True):
        assert outcome is not None, f"seat {seat}: listed but refused: {action}"
    for i, outcome in enumerate(outcomes):
        twin = next(
            (
                listed[j]
                for j in range(i)
                if same(outcomes[j], outcome) and twins(listed[j], listed[i])
            ),
            None,
        )
        assert twin is None, f"seat {seat}: {listed[i]} and {twin} have the same result"
    unavailable = {u.type: u.code for u in rules.unavailable(state, seat)}
    codes: dict[str, set[str]] = {t: set() for t in unavailable}  # what refused each of them
    for candidate in candidates:
        outcome, refused = attempt(candidate)
        if refused is not None:
            if tag(candidate) in codes:
                codes[tag(candidate)].add(refused)
            continue
        assert tag(candidate) not in unavailable, f"seat {seat}: unavailable, yet {candidate}"
        assert any(same(outcome, o) for o in outcomes), (
            f"seat {seat}: accepted but not listed (nor any move with its result): {candidate}"
        )
    for type_, code in unavailable.items():  # the reason given is what decide says
        assert not codes[type_] or code in codes[type_], f"seat {seat}: {type_} is not {code}"


def check_sample(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    seat: int,
    rng: Random,
    invariants: Callable[[Any], None] | None = None,
) -> Any:
    """`sample` guesses only states the rules can reach, which `seat` cannot tell from the
    real one: every card is somewhere, once; the seat's view, the seats to act, the seat's
    legal actions and the answers refused it are the same; and `invariants`, the game's own
    checks of a reachable state (raising AssertionError), pass on the guess as they do on the
    real state. And a guess depends on nothing but what the seat sees: from a state the seat
    cannot tell from the real one (the guess itself), the same draws guess the same state, so
    a bot that searches from guesses cannot learn where the hidden cards really lie. Returns
    the guess.
    """
    guess = rules.sample(state, seat, rng)
    check_conservation(rules, guess, seed=0)
    assert rules.view(guess, seat) == rules.view(state, seat), f"seat {seat}: the view differs"
    assert rules.to_act(guess) == rules.to_act(state), f"seat {seat}: another seat is to act"
    assert list(rules.legal_actions(guess, seat)) == list(rules.legal_actions(state, seat)), (
        f"seat {seat}: the sampled state offers other moves"
    )
    assert rules.unavailable(guess, seat) == rules.unavailable(state, seat), (
        f"seat {seat}: the sampled state refuses other answers"
    )
    if invariants is not None:
        invariants(state)
        invariants(guess)
    again, from_guess = (rules.sample(s, seat, Random(1)) for s in (state, guess))
    assert again == from_guess, f"seat {seat}: the guess depends on where hidden cards lie"
    # nor on the order of what the seat cannot see: with a sequence of strings (a hand, a
    # pile) reversed, a state the seat is shown alike gives the same guess, or the same with
    # that sequence reversed where the guess carries it as it was (a seat's own cards)
    shown = shown_to(rules, state, seat)
    for path in sequences(state):
        alike = reverse_at(state, path)
        if shown_to(rules, alike, seat) == shown:
            got = rules.sample(alike, seat, Random(1))
            assert got == again or got == reverse_at(again, path), (
                f"seat {seat}: the guess depends on the hidden order of state{path_name(path)}"
            )
    return guess


# -- non-interference: what a seat cannot see changes nothing it is shown ---------------------


Chooser = Callable[[Any, int, list[Any], Random], Any]


def random_options(options_type: Any, rng: Random) -> Any:
    """Room options drawn at random: each bool and each Literal option any of its values."""
    import typing

    hints = typing.get_type_hints(options_type)
    chosen: dict[str, Any] = {}
    for name in options_type.__struct_fields__:
        hint = hints[name]
        if hint is bool:
            chosen[name] = rng.random() < 0.5
        elif typing.get_origin(hint) is typing.Literal:
            chosen[name] = rng.choice(typing.get_args(hint))
    return options_type(**chosen)


def recorded_game(
    rules: Rules[Any, Any, Any, Any],
    seed: int,
    seats: int,
    options: Any = None,
    choose: Chooser | None = None,
    max_steps: int = 20_000,
) -> Recorded:
    """Play one game, `choose` picking each move among the listed ones (else at random), and
    keep every move with the seed of its draws, so that it can be played again elsewhere."""
    rng = Random(seed)
    opts = options if options is not None else rules.options_type()
    setup = list(rules.setup(opts, seats, rng))
    state = fold(rules, setup)
    steps: list[Step] = []
    while rules.to_act(state):
        assert len(steps) < max_steps, f"seed {seed}: no end after {max_steps} moves"
        seat = rng.choice(sorted(rules.to_act(state)))
        actions = list(rules.legal_actions(state, seat))
        action = choose(state, seat, actions, rng) if choose else rng.choice(actions)
        draws = rng.randrange(2**32)
        events = list(rules.decide(state, seat, action, Random(draws)))
        state = fold(rules, events, state)
        steps.append(Step(seat=seat, action=action, draws=draws, events=events))
    return Recorded(seed=seed, seats=seats, setup=setup, steps=steps)


def check_non_interference(
    rules: Rules[Any, Any, Any, Any],
    game: Recorded,
    words: Any = None,
    names: list[str] | None = None,
    positions: int = 2,
    seats: Sequence[int | None] | None = None,
) -> None:
    """What a seat cannot see changes nothing it is shown: not its view, not its copy of any
    event, not any text, not its listed moves. For each seat and a spectator (or those of
    `seats`, None the spectator):

    - **dealt again**: right after the setup and at `positions` moves at random, what the
      seat cannot see is dealt again (`sample`; a spectator: for two seats), each card of the
      real deal paired with the card in its place in the other, and the moves played on in
      both worlds (a card a move names renamed, chance drawing the same cards renamed): the
      setup's events as the seat gets them, and every move's, must be alike in both until
      its view parts (the rules then showed it other cards).
    - **copies**: where the rules cannot tell some cards apart (`copy_class`, a game's
      identical cards), a twin world where the copies the seat never held are swapped
      among their places from the start must show the seat exactly what the real one does,
      to the end; and two moves of another seat that differ only in which copy they name
      must show the seat the same events, texts and views.
    """
    played = Played(rules, game, Random)
    names = names or [f"Seat {s}" for s in range(game.seats)]
    rng = Random(game.seed)
    picked = sorted(rng.sample(range(len(game.steps)), min(positions, len(game.steps))))
    copy_class = getattr(rules, "copy_class", None)
    for seat in [None, *range(game.seats)] if seats is None else seats:
        observer = Observer(rules, seat, words, names)
        where = f"seed {game.seed}, {game.seats} seats, seat {seat}"
        # dealt again, right after the setup: its events too
        guess = dealt_again(rules, played.states[0], seat, game.seats, Random(rng.random()))
        pairs = pairing(rules, played.states[0], guess)
        if pairs is not None:
            twin_setup = [renamed(e, pairs, rules.event_type) for e in game.setup]
            mine, _ = observer.events(None, game.setup)
            theirs, _ = observer.events(None, twin_setup)
            found = first_difference(mine, theirs, stop_at_view=True)
            assert found is None, f"{where}: dealt again, in the setup {found}"
            found = played.follow(observer, guess, pairs, 0, strict=False)
            assert found is None, f"{where}: dealt again after the setup, {found}"
        for k in picked:
            guess = dealt_again(rules, played.states[k], seat, game.seats, Random(rng.random()))
            if (pairs := pairing(rules, played.states[k], guess)) is not None:
                found = played.follow(observer, guess, pairs, k, strict=False)
                assert found is None, f"{where}: dealt again before move {k}, {found}"
        if copy_class is None:
            continue
        swapped = copies_swapped(rules, played, seat, copy_class, Random(rng.random()))
        if swapped:
            twin_setup = [renamed(e, swapped, rules.event_type) for e in game.setup]
            mine, _ = observer.events(None, game.setup)
            theirs, twin = observer.events(None, twin_setup)
            found = first_difference(mine, theirs, stop_at_view=False)
            assert found is None, f"{where}: copies swapped, in the setup {found}"
            found = played.follow(observer, twin, swapped, 0, strict=True)
            assert found is None, f"{where}: copies swapped, {found}"
    if copy_class is not None:
        for k in picked:
            check_copies_alike(rules, played, k, copy_class, words, names, seats)
