"""Record the corpus of game logs that every CI run replays (tests/unit/test_corpus.py).

    python -m tests.corpus.record [--out tests/corpus/logs] [--label r1] [--rehash]

Plays seeded games of every registered game through the game service on its in-memory
adapters (the code path a real game takes: setup, moves, clocks, resignations, claims, the
final `game_over`) and writes each game's stored log as NDJSON:

- line 1, the header: the game, seats, options, timing, the seed (a corpus game's seed is
  no secret), the commit that recorded it, `schema` (games.table.snapshot_schema of the
  engine's state at recording), `final` (that schema -> the SHA-256 of the final
  (state, table) in msgspec's deterministic JSON) and `outcome` (the result the log gives);
- every further line, one command and the events it appended: `cmd` (`{"setup": true}`,
  `{"seat": s, "action": {...}, "by_bot": b}`, `{"resign": s}`, `{"timeout": s}`,
  `{"claim": s, "by": b}`), `at` (the version before it) and `events`
  (`{"v", "type", "data", "meta"}` as the store holds them).

Which games: for each game, every seat count with the default options; every option's
every value alone, and all of them together, at the smallest seat count the game's
variants are usually played at; and per game one game for each table story (a resignation,
a bot move on a timeout, a bot takeover, a claim of an overdue seat). Moves are the greedy
bot's three times in four, else random among the legal ones (from the seed), so the games
end in a few hundred events and the logs still walk odd corners.

Files are named `<game>-r<rules_version>-<story>.ndjson`; an existing file is never overwritten
(a log, once recorded, is what a past version wrote). `--rehash` adds the current code's
hash of the final state to every existing log whose engine state changed shape (a new
`schema`), after checking that the log still folds to the outcome it recorded: a change of
shape is not a change of rules, a changed outcome is (then this refuses, and the log's game
needs a versioned path or a migration: docs in tests/corpus/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import subprocess
import sys
import typing
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from contracts.streams import RoomStarted, StartedSeat  # noqa: E402
from games.registry import registry  # noqa: E402
from infra.eventstore.memory import MemoryEventStore  # noqa: E402
from services.bots.observe import Observation  # noqa: E402
from services.bots.policies import policy_for  # noqa: E402
from services.game import seats as table_commands  # noqa: E402
from services.game.live import Waiters  # noqa: E402
from services.game.repository import MemoryGamesRepository, stream_id  # noqa: E402
from services.game.service import GameService  # noqa: E402
from tests.corpus.replay import final_hash, replay, schema_of  # noqa: E402

LOGS = Path(__file__).resolve().parent / "logs"
CORPUS_FORMAT = 1
MAX_COMMANDS = 4_000
GREEDY_SHARE = 0.75
# what a reader of the log uses of an event's metadata (the rest: ids, traces, the room)
KEPT_META = (
    "batch_end",
    "to_act",
    "status",
)  # a random game longer than this is a bug of the engine


# -- which games ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Story:
    """One game to record: its name in the file name and how it is set up and played."""

    name: str
    seats: int
    options: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, Any] = field(default_factory=dict)
    table: str | None = None  # resign | bot_move | bot_takeover | claim


def option_values(options_type: Any) -> dict[str, list[Any]]:
    """Each option's values other than its default: a bool's True, a Literal's others."""
    values: dict[str, list[Any]] = {}
    hints = typing.get_type_hints(options_type)
    defaults = options_type()
    for name in options_type.__struct_fields__:
        hint, default = hints[name], getattr(defaults, name)
        if hint is bool:
            values[name] = [not default]
        elif typing.get_origin(hint) is typing.Literal:
            values[name] = [v for v in typing.get_args(hint) if v != default]
        else:
            raise TypeError(f"{options_type.__name__}.{name}: no values to record for {hint}")
    return values


def stories(rules: Any) -> list[Story]:
    counts = list(rules.seats)
    variants_at = next((n for n in counts if n >= 3), counts[-1])
    found = [Story(f"{n}p", n) for n in counts]
    values = option_values(rules.options_type)
    for name, others in values.items():
        found += [
            Story(f"{variants_at}p-{name}-{v}".lower(), variants_at, {name: v}) for v in others
        ]
    if len(values) > 1:
        every = {name: others[-1] for name, others in values.items()}
        found.append(Story(f"{variants_at}p-all-options", variants_at, every))
    two = max(2, counts[0])
    found += [
        Story(f"{two}p-resign", two, table="resign"),
        Story(f"{two}p-bot-move", two, {}, {"per_move_s": 60}, "bot_move"),
        Story(
            f"{two}p-bot-takeover",
            two,
            {},
            {"bank_s": 300, "increment_s": 10, "cap_s": 600, "on_timeout": "bot_takeover"},
            "bot_takeover",
        ),
        Story(f"{two}p-claim", two, {}, {"per_move_s": 60, "on_timeout": "wait"}, "claim"),
    ]
    return found


# -- playing one -------------------------------------------------------------------------------


class Clock:
    """The service's `now`: a second passes with every command, more when a story waits."""

    def __init__(self) -> None:
        self.at = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def tick(self, seconds: float = 1.0) -> None:
        self.at += timedelta(seconds=seconds)


def rows(stored: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "v": e.version,
            "type": e.type,
            "data": json.loads(e.data),
            "meta": {k: e.metadata[k] for k in KEPT_META if k in e.metadata},
        }
        for e in stored
    ]


async def play(game: str, story: Story, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play the story's game; its header and its command lines."""
    rules = registry()[game]
    clock = Clock()
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters(), now=clock)
    rng = Random(seed)
    room = RoomStarted(
        room_id=f"corpus-{game}-{story.name}",
        game=game,
        seats=[StartedSeat(seat=i, player_id=f"p{i}", name=f"P{i}") for i in range(story.seats)],
        options=story.options,
        timing=story.timing,
        fill_level="random",
    )
    game_id = await svc.create_from_room(room)
    record = await svc.record(game_id)
    lines = [
        {"cmd": {"setup": True}, "at": 0, "events": rows(await store.read(stream_id(game_id)))}
    ]
    table_done = False
    for _ in range(MAX_COMMANDS):
        loaded = await svc.load(game_id)
        to_act = sorted(loaded.rules.to_act(loaded.state))
        if not to_act:
            break
        before = loaded.version
        clock.tick()
        cmd: dict[str, Any]
        half_way = before > 12 and not table_done
        if half_way and story.table == "resign":
            seat = to_act[0]
            await table_commands.resign(svc, game_id, seat)
            cmd, table_done = {"resign": seat}, True
        elif half_way and story.table in ("bot_move", "bot_takeover", "claim"):
            seat = to_act[0]
            deadline = loaded.table.seats[seat].deadline
            if deadline is None:  # a bot's seat or an unclocked moment: play on
                cmd = await move(svc, loaded, game_id, rng)
            else:
                clock.at = deadline + timedelta(seconds=1)
                if story.table == "claim":
                    by = next(s for s in range(story.seats) if s != seat)
                    await table_commands.claim(svc, game_id, by, seat)
                    cmd = {"claim": seat, "by": by}
                else:
                    command_id = uuid.UUID(int=rng.getrandbits(128))
                    await table_commands.timeout(svc, game_id, seat, command_id)
                    cmd = {"timeout": seat}
                table_done = story.table != "bot_move" or before > 40
        else:
            cmd = await move(svc, loaded, game_id, rng)
        stored = await store.read(stream_id(game_id), after=before)
        lines.append({"cmd": cmd, "at": before, "events": rows(stored)})
    else:
        raise AssertionError(f"{game} {story.name}: no end after {MAX_COMMANDS} commands")
    loaded = await svc.load(game_id)
    outcome = loaded.table.outcome or rules.outcome(loaded.state)
    header = {
        "corpus": CORPUS_FORMAT,
        "game": game,
        "story": story.name,
        "seats": story.seats,
        "options": story.options,
        "timing": story.timing,
        "fill_level": record.fill_level,
        "seed": record.seed,
        "recorded_with": commit(),
        "recorded_on": datetime.now(UTC).date().isoformat(),
        "schema": schema_of(rules),
        "final": {str(schema_of(rules)): final_hash(loaded.state, loaded.table)},
        "outcome": msgspec.to_builtins(outcome),
        "version": loaded.version,
    }
    return header, lines


async def move(svc: GameService, loaded: Any, game_id: str, rng: Random) -> dict[str, Any]:
    """A move of a random seat to act: the greedy bot's three times in four, else a random
    legal one (greedy games end sooner, the random moves walk odd corners)."""
    rules = loaded.rules
    seat = rng.choice(sorted(rules.to_act(loaded.state)))
    legal = list(rules.legal_actions(loaded.state, seat))
    if rng.random() < GREEDY_SHARE:
        view = msgspec.to_builtins(rules.view(loaded.state, seat))
        obs = Observation(
            game=rules.key, seat=seat, version=loaded.version, view=view, legal=legal, to_act=[]
        )
        chosen = policy_for(rules.key, "greedy")(obs, rng)
    else:
        chosen = rng.choice(legal)
    action = msgspec.to_builtins(chosen)
    by_bot = loaded.table.seats[seat].bot is not None and not loaded.table.seats[seat].once
    command_id = uuid.UUID(int=rng.getrandbits(128))
    await svc.submit(game_id, seat, action, loaded.version, command_id, by_bot=by_bot)
    return {"seat": seat, "action": action, "by_bot": by_bot}


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode
    except OSError:
        return "unknown"
    return out.stdout.strip() + ("+dirty" if dirty else "") if out.returncode == 0 else "unknown"


# -- files ---------------------------------------------------------------------------------------


def write(path: Path, header: dict[str, Any], lines: list[dict[str, Any]]) -> None:
    with path.open("wb") as out:
        for line in itertools.chain([header], lines):
            out.write(msgspec.json.encode(line) + b"\n")


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *lines = [json.loads(line) for line in path.read_bytes().splitlines() if line]
    return header, lines


def record(out: Path, label: str | None = None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for game, rules in registry().items():
        for n, story in enumerate(stories(rules)):
            path = out / f"{game}-{label or f'r{rules.rules_version}'}-{story.name}.ndjson"
            if path.exists():
                continue
            seed = int.from_bytes(hashlib.sha256(f"{game}/{story.name}".encode()).digest()[:4])
            header, lines = asyncio.run(play(game, story, seed + n))
            write(path, header, lines)
            made.append(path)
            print(f"{path.name}: {header['version']} events", flush=True)
    return made


def rehash(out: Path) -> None:
    for path in sorted(out.glob("*.ndjson")):
        header, lines = read(path)
        result = replay(header, lines)
        if result.outcome != header["outcome"]:
            raise SystemExit(
                f"{path.name}: the log now ends {result.outcome}, it was recorded ending "
                f"{header['outcome']}: the rules changed under it (tests/corpus/README.md)"
            )
        key = str(result.schema)
        if header["final"].get(key) not in (None, result.hash):
            raise SystemExit(f"{path.name}: the final state under schema {key} differs")
        if key not in header["final"]:
            header["final"][key] = result.hash
            write(path, header, lines)
            print(f"{path.name}: final state under schema {key} added")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=LOGS)
    parser.add_argument("--label", help="the files' label (default: r<the game's rules_version>)")
    parser.add_argument("--rehash", action="store_true")
    args = parser.parse_args()
    if args.rehash:
        rehash(args.out)
    else:
        record(args.out, args.label)


if __name__ == "__main__":
    main()
