"""A bot's random draws: the same for every task of one turn, and nobody else's to replay."""

from __future__ import annotations

from random import Random

from infra.settings import Settings
from services.bots.turns import bot_command_id, draws

KEY, OTHER = b"k" * 32, b"o" * 32


def test_a_turns_draws_are_the_same_for_every_task_of_it() -> None:
    turn = bot_command_id("g-1", 7, 1)
    assert [draws(KEY, turn).random() for _ in range(3)] == [draws(KEY, turn).random()] * 3


def test_the_public_command_id_alone_does_not_give_the_draws() -> None:
    """An opponent knows the game, the version, the seat (so the command id) and the open
    policies: seeded by the id alone, the bot's random choices could be replayed against
    each hand it might hold. Keyed, they cannot."""
    turn = bot_command_id("g-1", 7, 1)
    assert draws(KEY, turn).getrandbits(64) != Random(turn).getrandbits(64)
    assert draws(KEY, turn).random() != draws(OTHER, turn).random()  # another key: others
    assert draws(KEY, turn).random() != draws(KEY, bot_command_id("g-1", 8, 1)).random()


def test_the_draws_key_is_not_the_key_that_signs_commands() -> None:
    settings = Settings(stream_key="s" * 40)
    assert settings.bot_draws_key() != settings.command_key()
    assert len(settings.bot_draws_key()) == 32
    assert Settings(stream_key="t" * 40).bot_draws_key() != settings.bot_draws_key()
