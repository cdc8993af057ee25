"""A finished game's record, replayed through its engine: `python -m games.replay FILE`.

A record (`GET /v1/games/{id}/record`, NDJSON) is a header (the game, its seats and
options, the seed, the outcome) and one line per command: `{"setup": true}`, a move
(`{"seat", "action"}`), or a command of the table alone (`{"table": [...]}`: a clock, a
resignation, a claim), each with the events it appended. The replay deals the setup again
and decides every move again on the state before it, with the draws the service gave it
(`games.api.draws`: the game's seed and the version), and checks that the engine gives the
very events the record holds: the record proves its own shuffles and every move's
consequences. A move the record could not name (`"action": null`: a client posted one the
engine does not list) is folded unproven and counted. Then it prints the game move by move
in the game's words (`--quiet`: only the verdict). Exit 1 when an event differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import typing
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from games.api import draws
from games.registry import narrator, registry
from games.table import TABLE_EVENT_TYPES, AnyTableEvent
from games.text import narrate_table

RECORD_FORMAT = 1


class Diverged(AssertionError):
    """The engine gives other events than the record holds."""


class Replayed(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    version: int  # the last event's
    moves: int  # moves decided again, each giving the record's events
    unproven: int  # moves the record could not name, folded without a check
    outcome: Any  # the engine's outcome of the final state (builtins)
    lines: list[str]  # the game in words, one line an event


def read(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, commands) of a record's NDJSON lines."""
    rows = [json.loads(line) for line in lines if line.strip()]
    if not rows or "game" not in rows[0]:
        raise ValueError("not a record: its first line names no game")
    return rows[0], rows[1:]


def _json(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value))


def replay(header: dict[str, Any], commands: Sequence[dict[str, Any]]) -> Replayed:
    rules = registry().get(header["game"])
    if rules is None:
        raise ValueError(f"no game {header['game']!r} here")
    decode = msgspec.json.Decoder(rules.event_type).decode
    names = [str(n) for n in header.get("names") or [f"Seat {i}" for i in range(header["seats"])]]
    words = narrator(rules.key)
    table_types = _table_types()
    state: Any = None
    version = moves = unproven = 0
    said: list[str] = []
    for i, line in enumerate(commands):
        cmd, rows = line["cmd"], line["events"]
        if line["at"] != version:
            raise Diverged(f"command {i} comes at v{line['at']}, after v{version}")
        for row in rows:
            version += 1
            if row["v"] != version:
                raise Diverged(f"v{row['v']} where v{version} was due")
        engine = [decode(json.dumps(r["data"])) for r in rows if r["type"] not in TABLE_EVENT_TYPES]
        logged = _json(engine)
        if cmd.get("setup"):
            options = msgspec.convert(header["options"], rules.options_type)
            again = rules.setup(options, header["seats"], draws(header["seed"], 0))
            if _json(again) != logged:
                raise Diverged("the setup deals otherwise than the record")
        elif cmd.get("action") is not None:
            action = msgspec.convert(cmd["action"], rules.action_type)
            again = rules.decide(state, cmd["seat"], action, draws(header["seed"], line["at"]))
            if _json(again) != logged:
                raise Diverged(
                    f"the move at v{line['at']} ({cmd['action']}) gives {_json(again)} where "
                    f"the record has {logged}"
                )
            moves += 1
        elif "seat" in cmd:
            unproven += 1
        for event in engine:
            state = rules.evolve(state, event)
        said += [_said(r, words, names, decode, table_types) for r in rows]
    if state is None:
        raise Diverged("the record holds no events")
    return Replayed(
        game=rules.key,
        version=version,
        moves=moves,
        unproven=unproven,
        outcome=msgspec.to_builtins(rules.outcome(state)),
        lines=said,
    )


def _table_types() -> dict[str, type]:
    return {t.__struct_config__.tag: t for t in typing.get_args(AnyTableEvent)}


def _said(
    row: dict[str, Any], words: Any, names: Sequence[str], decode: Any, table: dict[str, type]
) -> str:
    if row["type"] in TABLE_EVENT_TYPES:
        text = narrate_table(msgspec.convert(row["data"], table[row["type"]]), names)
    else:
        text = words.narrate(decode(json.dumps(row["data"])), names)
    return f"v{row['v']}: {text}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a record (NDJSON); - for standard input")
    parser.add_argument("--quiet", action="store_true", help="only the verdict")
    args = parser.parse_args(argv)
    with open(args.file) if args.file != "-" else sys.stdin as f:
        header, commands = read(f)
    try:
        done = replay(header, commands)
    except Diverged as exc:
        print(f"record of {header.get('game')} {header.get('game_id', '')}: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        print("\n".join(done.lines))
    print(
        f"{done.game}: {done.version} events, {done.moves} moves decided again and the same"
        + (f", {done.unproven} unproven (not named in the record)" if done.unproven else "")
        + f"; outcome {done.outcome}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
