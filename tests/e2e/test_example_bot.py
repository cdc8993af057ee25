"""The Python client's example bot (clients/python/examples/bot.py), run as a third party
runs it, plays each game to the end on the whole stack against the stack's own bots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.registry import registry
from tests.e2e.conftest import Stack
from turnpost.client import Client

pytestmark = pytest.mark.e2e
BOT = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "bot.py"


@pytest.mark.parametrize(
    ("game", "seats"), [(key, max(2, r.seats.start)) for key, r in registry().items()]
)
def test_the_example_bot_plays_a_game_to_the_end(stack: Stack, game: str, seats: int) -> None:
    ran = subprocess.run(
        [sys.executable, str(BOT), game, str(seats), stack.lobby, stack.game],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("game ") and lines[-1].startswith("finished: {")
    game_id = lines[0].split()[1]
    played = lines[1:-1]  # one line per event its own moves made, with the event's words
    assert len(played) >= 3 and all(line.split(maxsplit=1)[0].isdigit() for line in played)
    with Client(stack.lobby, stack.game) as spectator:
        spectator.register("Spectator")
        final = spectator.get_game(game_id)
        assert final.status == "finished" and final.outcome is not None
        assert len(final.outcome.ranks) == seats
        # the script played its own seat to the end: no bot took it over
        assert final.standings[0].standing == "playing"
        assert [s.bot for s in final.seats] == [None] + ["greedy"] * (seats - 1)
        mine = [e for e in spectator.iter_events(game_id) if e.seat == 0]
        assert len(mine) >= len(played) > 0


def test_the_readme_s_python_example_runs_as_written(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (BOT.parents[3] / "README.md").read_text()
    section = readme[readme.index("## Python client") :]
    code = section[section.index("```python\n") + 10 : section.index("```\n", 10)]
    code = code.replace("http://127.0.0.1:8010", stack.lobby)
    code = code.replace("http://127.0.0.1:8020", stack.game)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("GameOutcome(") and "ranks=" in printed[0]  # the outcome
    assert printed[1].startswith("409 game_finished ")  # the resign after the end, refused
