"""games.api, what every engine shares.

Seeded is the Random an engine is handed by the game service, seeded at its first draw. It
must draw exactly what random.Random(seed) draws (replays and retries of a move draw the
same cards, and games already stored were dealt by Random)."""

from __future__ import annotations

from random import Random

import pytest

from games.api import IllegalAction, Seeded, fold


def _draws(rng: Seeded | Random) -> list[object]:
    deck = list(range(30))
    rng.shuffle(deck)
    return [
        rng.random(),
        rng.randrange(7),
        rng.choice("abcdefgh"),
        rng.sample(range(100), 5),
        deck,
        rng.randrange(1_000_000),
    ]


@pytest.mark.parametrize("seed", [0, 1, 2**62 - 1, 987_654_321 * 1_000_003 + 17])
def test_it_draws_what_random_of_the_same_seed_draws(seed: int) -> None:
    assert _draws(Seeded(seed)) == _draws(Random(seed))


@pytest.mark.parametrize(
    "first", [lambda r: r.random(), lambda r: r.randrange(5), lambda r: r.choice([1, 2])]
)
def test_any_first_draw_seeds_it_once(first: object) -> None:
    seeded, plain = Seeded(42), Random(42)
    assert first(seeded) == first(plain)  # type: ignore[operator]
    assert [seeded.random() for _ in range(3)] == [plain.random() for _ in range(3)]


def test_nothing_is_seeded_before_a_draw() -> None:
    rng = Seeded(7)
    assert rng._random is None
    rng.sample([1, 2, 3], 2)
    assert isinstance(rng._random, Random)


def test_an_illegal_action_keeps_its_code_and_message() -> None:
    refused = IllegalAction("not_your_turn", "seat 2 is to act")
    assert (refused.code, refused.message, str(refused)) == (
        "not_your_turn",
        "seat 2 is to act",
        "seat 2 is to act",
    )


def test_folding_nothing_into_nothing_is_refused_by_name() -> None:
    from games.itty_bitty.rules import IttyBitty

    with pytest.raises(ValueError) as refused:
        fold(IttyBitty(), [])
    assert str(refused.value) == "no events to fold"
