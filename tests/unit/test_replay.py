"""A finished game's record (services/game/records.py) replays through its engine
(games/replay.py): every event the same, the seed's shuffles proved, the game told in words;
a record changed anywhere is caught."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest

from games.registry import registry
from games.replay import Diverged, main, read, replay
from services.game.records import game_record
from services.game.repository import stream_id
from tests.corpus.record import option_values
from tests.unit.test_corpus_from_store import GAMES, played

SEEDS = (1, 2)


async def recorded(
    game: str, seats: int, seed: int, options: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    svc, game_id, store = await played(game, seats, seed, options)
    events = await store.read(stream_id(game_id))
    return game_record(await svc.record(game_id), events, strict=False)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("game", "seats"), GAMES)
async def test_a_record_replays_through_the_engine_every_event_the_same(
    game: str, seats: int, seed: int
) -> None:
    header, lines = await recorded(game, seats, seed)
    done = replay(header, lines)
    assert done.version == header["version"] == lines[-1]["events"][-1]["v"]
    assert done.moves == sum(1 for line in lines if line["cmd"].get("action")) > 10
    assert done.unproven == 0
    assert done.outcome["ranks"] == header["outcome"]["ranks"]
    assert len(done.lines) == done.version and done.lines[0].startswith("v1: ")


@pytest.mark.parametrize("game", list(registry()))
async def test_a_record_of_a_game_with_every_option_replays(game: str) -> None:
    """Every option away from its default at once (the corpus' "all options" story)."""
    rules = registry()[game]
    options = {name: others[-1] for name, others in option_values(rules.options_type).items()}
    header, lines = await recorded(game, min(4, rules.seats.stop - 1), 3, options)
    assert header["options"] == options
    assert replay(header, lines).unproven == 0


async def test_a_record_hides_nothing() -> None:
    """Every hand dealt is in the record (the feed hides other seats' cards), and the seed."""
    header, lines = await recorded("itty-bitty", 3, 1)
    dealt = [e["data"] for e in lines[0]["events"] if e["type"] == "ittybits_dealt"]
    assert isinstance(header["seed"], int) and len(dealt) == 3
    assert all(len(d["cards"]) == d["count"] > 0 for d in dealt)  # a feed shows others None


async def test_a_record_changed_anywhere_diverges() -> None:
    header, lines = await recorded("itchy-feet", 3, 2)
    # a card of the setup's deal swapped for another
    dealt = copy.deepcopy(lines)
    cards = next(e for e in dealt[0]["events"] if e["type"] == "cards_dealt")["data"]["cards"]
    cards[0], cards[1] = cards[1], "item-camera-1" if cards[0] != "item-camera-1" else "passport-3"
    with pytest.raises(Diverged, match="setup"):
        replay(header, dealt)
    # a drawn card that the seed would not have drawn
    moved = copy.deepcopy(lines)
    draw = next(
        e
        for line in moved[1:]
        for e in line["events"]
        if e["type"] == "card_drawn" and e["data"].get("card")
    )
    draw["data"]["card"] = (
        "item-camera-1" if draw["data"]["card"] != "item-camera-1" else "item-camera-2"
    )
    with pytest.raises(Diverged, match="the move at v"):
        replay(header, moved)
    # a version skipped
    gap = copy.deepcopy(lines)
    gap[1]["events"][0]["v"] += 1
    with pytest.raises(Diverged):
        replay(header, gap)


async def test_an_action_the_record_could_not_name_is_folded_unproven() -> None:
    header, lines = await recorded("itty-bitty", 2, 1)
    line = next(x for x in lines if x["cmd"].get("action"))
    line["cmd"] = {"seat": line["cmd"]["seat"], "action": None, "request": "unknown"}
    done = replay(header, lines)
    assert done.unproven == 1 and done.version == header["version"]


async def test_the_command_line_replays_a_file_and_tells_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header, lines = await recorded("itty-bitty", 2, 2)
    path = tmp_path / "game.ndjson"
    path.write_bytes(b"".join(msgspec.json.encode(x) + b"\n" for x in (header, *lines)))
    assert read(path.read_text().splitlines())[0]["game_id"] == header["game_id"]
    assert main([str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("v1: ") and "decided again and the same" in out[-1]
    assert len(out) == header["version"] + 1
    dealt = next(e for e in lines[0]["events"] if e["type"] == "ittybits_dealt")["data"]
    dealt["cards"] = list(reversed(dealt["cards"]))
    path.write_bytes(b"".join(msgspec.json.encode(x) + b"\n" for x in (header, *lines)))
    assert main([str(path), "--quiet"]) == 1
    assert "the setup deals otherwise" in capsys.readouterr().err
