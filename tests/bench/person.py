#!/usr/bin/env python3
"""The scripted people of the bot load run (tests/bench/bots.py), in a process of their own.

    python tests/bench/person.py GAME_URL SECONDS [TABLES [THINK_S]] < games.json

Reads a JSON list of [game_id, bearer token] from stdin (each its own table's person, in
the order to use them); plays `tables` of them at once (argument 3, default: all), each
table as a person would: long-poll the event feed until it is this seat's turn, GET the
legal actions, POST a random one (after THINK_S seconds, default 0: at once); when a game
ends, the table takes the next unused game.
Stops after SECONDS and prints one JSON line: {"moves", "conflicts", "errors", "post_ms"}.

Its HTTP is the action benchmark's raw keep-alive client (tests/bench/actions_load.py,
BENCH_HTTP=httpx for httpx): the people's own CPU comes out of the same two cores as the
stack's, and httpx cost several times more per request (40 % of a core at 40 tables).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import msgspec  # noqa: E402

from tests.bench.actions_load import HTTP, RawHTTP  # noqa: E402

_json = msgspec.json.Encoder()


async def main(
    url: str, seconds: float, tables: int, games: list[list[str]], think: float = 0.0
) -> dict[str, object]:
    end = time.monotonic() + seconds
    queue = list(reversed(games))
    stats: dict[str, object] = {"moves": 0, "conflicts": 0, "errors": {}, "post_ms": []}
    errors: dict[str, int] = stats["errors"]  # type: ignore[assignment]
    post_ms: list[float] = stats["post_ms"]  # type: ignore[assignment]
    decode = msgspec.json.decode

    async def table(i: int) -> None:
        rng = random.Random(i)
        http = httpx.AsyncClient(base_url=url, timeout=30) if HTTP == "httpx" else RawHTTP(url)
        async with http:
            while queue and time.monotonic() < end:
                game_id, token = queue.pop()
                auth = {"authorization": f"Bearer {token}"}
                after = 0
                while time.monotonic() < end:
                    try:
                        wait = max(0.0, min(5.0, end - time.monotonic()))
                        query = urlencode({"after": after, "wait": f"{wait:.1f}", "limit": 500})
                        r = await http.get(f"/v1/games/{game_id}/events?{query}", headers=auth)
                        if r.status_code != 200:
                            errors[f"feed_{r.status_code}"] = (
                                errors.get(f"feed_{r.status_code}", 0) + 1
                            )
                            await asyncio.sleep(0.05)
                            continue
                        feed = decode(r.content)
                        after = feed["last_version"]
                        if feed["status"] == "finished":
                            break
                        if feed["has_more"] or not feed["your_turn"]:
                            continue
                        if think:
                            await asyncio.sleep(think)
                        legal_path = f"/v1/games/{game_id}/legal-actions?min_version={after}"
                        r = await http.get(legal_path, headers=auth)
                        if r.status_code != 200:
                            errors[f"legal_{r.status_code}"] = (
                                errors.get(f"legal_{r.status_code}", 0) + 1
                            )
                            continue
                        legal = decode(r.content)
                        if not legal["actions"]:
                            continue
                        body = {
                            "action": rng.choice(legal["actions"]),
                            "expected_version": legal["version"],
                        }
                        t0 = time.perf_counter()
                        r = await http.post(
                            f"/v1/games/{game_id}/actions",
                            content=_json.encode(body),
                            headers={**auth, "content-type": "application/json"},
                        )
                        ms = (time.perf_counter() - t0) * 1000
                        if r.status_code == 200:
                            stats["moves"] = int(stats["moves"]) + 1  # type: ignore[call-overload]
                            post_ms.append(ms)
                        elif r.status_code == 409:
                            stats["conflicts"] = int(stats["conflicts"]) + 1  # type: ignore[call-overload]
                        else:
                            errors[f"post_{r.status_code}"] = (
                                errors.get(f"post_{r.status_code}", 0) + 1
                            )
                    except (httpx.HTTPError, OSError, asyncio.IncompleteReadError) as exc:
                        errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                        await asyncio.sleep(0.1)

    await asyncio.gather(*(table(i) for i in range(tables)))
    return stats


if __name__ == "__main__":
    games = json.load(sys.stdin)
    tables = int(sys.argv[3]) if len(sys.argv) > 3 else len(games)
    think = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    result = asyncio.run(main(sys.argv[1], float(sys.argv[2]), tables, games, think))
    print(json.dumps(result), flush=True)
