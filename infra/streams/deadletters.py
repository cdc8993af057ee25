"""Dead letters: list them, or replay them onto their stream once their cause is fixed.

    python -m infra.streams.deadletters list turnpost:commands
    python -m infra.streams.deadletters replay turnpost:commands [--id DEAD_ID]...

STREAM is the stream's name as in contracts.streams, without STREAM_PREFIX: the prefix
is prepended from the environment as the services do (REDIS_URL says where Redis is).
Its dead letters are the entries of `<prefix><STREAM>:dead`.

A replayed payload is a new entry of the stream, so every group of the stream sees it,
not only the group that gave up on it. That is safe because every effect is idempotent
(DESIGN.md, "Streams"): a group that handled the message already changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from infra.settings import from_env
from infra.streams.api import DeadLetter, Streams, dead_letter_stream, entry_key
from infra.streams.redis import RedisStreams

PAGE = 100
SHOWN = 120  # characters of a payload listed


def describe(dead: DeadLetter) -> str:
    text = dead.payload.decode(errors="replace").replace("\n", "\\n")
    if len(text) > SHOWN:
        text = text[:SHOWN] + "…"
    return (
        f"{dead.id} original={dead.original_id} group={dead.group} "
        f"deliveries={dead.deliveries} reason={dead.reason!r} payload={text}"
    )


async def every(streams: Streams, stream: str) -> list[DeadLetter]:
    """Every dead letter of `stream` there is now, oldest first (none added while replaying)."""
    newest = entry_key(await streams.latest_id(dead_letter_stream(stream)))
    found: list[DeadLetter] = []
    after = "0-0"
    while page := await streams.dead_letters(stream, after, PAGE):
        found += [d for d in page if entry_key(d.id) <= newest]
        after = page[-1].id
        if entry_key(after) >= newest:
            break
    return found


async def list_dead(streams: Streams, stream: str) -> int:
    letters = await every(streams, stream)
    for dead in letters:
        print(describe(dead))
    print(f"{len(letters)} dead letter(s) in {dead_letter_stream(stream)}")
    return 0


async def replay(streams: Streams, stream: str, ids: Sequence[str]) -> int:
    missing = 0
    replayed = 0
    for dead_id in ids or [d.id for d in await every(streams, stream)]:
        new_id = await streams.replay(stream, dead_id)
        if new_id is None:
            print(
                f"{dead_id}: no such dead letter in {dead_letter_stream(stream)}", file=sys.stderr
            )
            missing += 1
            continue
        print(f"replayed {dead_id} as {stream} {new_id}")
        replayed += 1
    print(f"{replayed} replayed")
    return 1 if missing else 0


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m infra.streams.deadletters",
        description="List or replay the dead letters of a stream. STREAM is named without "
        "STREAM_PREFIX (e.g. turnpost:commands); REDIS_URL and STREAM_PREFIX come from the "
        "environment. A replayed entry is seen by every group of the stream; that is safe "
        "because every effect is idempotent.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    stream_help = (
        "the stream's name without STREAM_PREFIX, e.g. turnpost:commands "
        "(the prefix is prepended, as the services do; not the ':dead' stream)"
    )
    listing = commands.add_parser("list", help="print each dead letter and a count")
    listing.add_argument("stream", metavar="STREAM", help=stream_help)
    replaying = commands.add_parser(
        "replay", help="publish dead letters to their stream again and delete them"
    )
    replaying.add_argument("stream", metavar="STREAM", help=stream_help)
    replaying.add_argument(
        "--id",
        dest="ids",
        action="append",
        default=[],
        metavar="DEAD_ENTRY_ID",
        help="replay only this dead letter (repeatable); all of them when omitted",
    )
    return parser.parse_args(argv)


async def _main(args: argparse.Namespace) -> int:
    settings = from_env()
    stream = settings.stream(args.stream)
    streams = RedisStreams.from_url(settings.redis_url)
    try:
        if args.command == "list":
            return await list_dead(streams, stream)
        return await replay(streams, stream, args.ids)
    finally:
        await streams.close()


def main(argv: Sequence[str] | None = None) -> int:
    return asyncio.run(_main(parse(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
