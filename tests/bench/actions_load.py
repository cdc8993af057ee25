#!/usr/bin/env python3
"""The action benchmark's clients (tests/bench/run.py, `post_action_*`), in a process of their own.

    python -m tests.bench.actions_load < job.json

The job (one JSON object on the first line of stdin): the game service's `url`, `redis_url`,
stream `prefix`, token `secret`, a `tag` that keeps this process' rooms apart from the other
processes', `clients` (this process' share), `prepared` (games made ahead), `seed`, and
`pace` (each client's cycles a second; 0 or absent: as fast as the service answers).
The process makes its games (RoomStarted on the lobby stream, as run.py's Games does), prints
`ready`, then reads one more line from stdin, `warm_end end` (time.monotonic(), the same
clock in every process on the machine), plays until `end` as run.py's in-process clients do
(GET game, GET legal-actions, POST a random action; a finished game makes way for a new
one, made while the others play) and prints one JSON line: the timings inside the window
[warm_end, end] and the counts (`LevelStats` as a dict). Its CPU is the parent's to measure
(/proc), so the load generator's own cost is reported beside the server's.

`play` is also what run.py runs in its own event loop (BENCH_CLIENT=inproc), to compare the
server's CPU per action with the clients in the same process or apart.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import msgspec  # noqa: E402

_json = msgspec.json.Encoder()
_decode = msgspec.json.decode

# The clients' HTTP: "raw" (default), a minimal HTTP/1.1 keep-alive client on asyncio
# streams, several times cheaper per request than httpx, whose own CPU was the larger part of
# the load generator's; "httpx" as before, to compare.
HTTP = os.environ.get("BENCH_HTTP", "raw")
# the clients send each read the newest version they have seen (`min_version`), as our own
# clients do, so the service may answer from memory; 0: they do not (reads ask the store)
MIN_VERSION = os.environ.get("BENCH_MIN_VERSION", "1") != "0"


class RawResponse:
    __slots__ = ("content", "status_code")

    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")


class RawHTTP:
    """One keep-alive HTTP/1.1 connection to `url` (http://host:port), opened on first use and
    again after the server closed it. Enough for the game service's JSON answers
    (Content-Length or chunked); no redirects, no TLS."""

    def __init__(self, url: str) -> None:
        host_port = url.split("://", 1)[1].rstrip("/")
        self.host, _, port = host_port.partition(":")
        self.port = int(port or 80)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawHTTP:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def get(self, path: str, headers: dict[str, str]) -> RawResponse:
        return await self.request("GET", path, headers, b"")

    async def post(self, path: str, content: bytes, headers: dict[str, str]) -> RawResponse:
        return await self.request("POST", path, headers, content)

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> RawResponse:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.reader, self.writer
        assert reader is not None
        head = f"{method} {path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\n"
        if body:
            head += f"content-length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        try:
            writer.write(head.encode() + body)
            block = (await reader.readuntil(b"\r\n\r\n")).lower()
            status = int(block[9:12])
            at = block.find(b"\r\ncontent-length:")
            if at >= 0:
                n = int(block[at + 17 : block.index(b"\r\n", at + 2)])
                content = await reader.readexactly(n)
            elif b"\r\ntransfer-encoding: chunked" in block:
                parts = []
                while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                    parts.append(await reader.readexactly(size))
                    await reader.readexactly(2)
                await reader.readuntil(b"\r\n")  # no trailers
                content = b"".join(parts)
            else:
                content = b""
            if b"\r\nconnection: close" in block:
                self.close()
        except BaseException:
            self.close()
            raise
        return RawResponse(status, content)


def _client(url: str) -> Any:
    if HTTP == "httpx":
        return httpx.AsyncClient(base_url=url, timeout=60)
    return RawHTTP(url)


@dataclass
class LevelStats:
    post_ms: list[float] = field(default_factory=list)
    get_game_ms: list[float] = field(default_factory=list)
    legal_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    starved_s: float = 0.0
    created: int = 0  # games made during the run (after the prepared ones)
    creation_s: list[float] = field(default_factory=list)  # RoomStarted -> GET 200, each game

    def merge(self, other: dict[str, Any]) -> None:
        self.post_ms += other["post_ms"]
        self.get_game_ms += other["get_game_ms"]
        self.legal_ms += other["legal_ms"]
        for s, n in other["statuses"].items():
            self.statuses[int(s)] = self.statuses.get(int(s), 0) + n
        for k, n in other["errors"].items():
            self.errors[k] = self.errors.get(k, 0) + n
        self.finished += other["finished"]
        self.starved_s += other["starved_s"]
        self.created += other.get("created", 0)
        self.creation_s += other.get("creation_s", [])


class GameLike(Protocol):
    id: str
    auth: list[dict[str, str]]


def _count(d: dict[str, int], key: str) -> None:
    d[key] = d.get(key, 0) + 1


async def play(
    i: int,
    url: str,
    ready: asyncio.Queue[Any],
    st: LevelStats,
    warm_end: float,
    end: float,
    alive: Callable[[], None] = lambda: None,
    note: Callable[[str], None] = lambda text: None,
    pace: float = 0.0,
    one_read: bool = False,
) -> None:
    """One client: its own connection, one game at a time, until `end`.

    one_read: the game read as the seat the client guesses is to act (the one after the seat
    that moved last), with `include=legal_actions`; the legal actions read apart only when
    the guess was wrong. Else the game is read as seat 0, and the legal actions apart.

    pace: this client's cycles a second (0: each as soon as the last is answered). Paced,
    the client begins a cycle (GET game, GET legal-actions, POST) every 1/pace seconds from
    a start spread over one interval by its number, or at once when it is late: the latency
    at a given load, not at the service's saturation, where a closed loop's latency is only
    the clients' number over the throughput (Little's law)."""
    # One connection per client: httpx's shared pool costs the client much CPU at c64.
    async with _client(url) as http:
        rng = random.Random(i)
        game: GameLike | None = None
        headers = {"content-type": "application/json"}
        seen: dict[str, int] = {}  # each game's newest version this client has seen
        guess: dict[str, int] = {}  # one_read: the seat each game is read as

        def inside(t_done: float) -> bool:
            return warm_end <= t_done <= end

        interval = 1 / pace if pace > 0 else 0.0
        due = time.monotonic() + interval * ((i * 0.618034) % 1)  # starts spread, not in step
        while (now := time.monotonic()) < end:
            alive()
            if interval:
                if due > now:
                    await asyncio.sleep(due - now)
                due = max(due + interval, time.monotonic())  # when late: the next at once, no burst
            if game is None:
                try:
                    game = ready.get_nowait()
                except asyncio.QueueEmpty:
                    try:
                        game = await asyncio.wait_for(ready.get(), end - now)
                    except TimeoutError:
                        return
                    finally:
                        waited = time.monotonic() - now
                        if time.monotonic() > warm_end:
                            st.starved_s += waited
            assert game is not None
            try:
                query = [f"min_version={seen[game.id]}"] if game.id in seen else []
                asked = guess.get(game.id, 0) if one_read else 0
                if one_read:
                    query.append("include=legal_actions")
                since = "?" + "&".join(query) if query else ""
                t0 = time.perf_counter()
                r = await http.get(f"/v1/games/{game.id}{since}", headers=game.auth[asked])
                t1 = time.perf_counter()
                if r.status_code != 200:
                    _count(st.errors, f"get_game_{r.status_code}")
                    await asyncio.sleep(0.01)
                    continue
                view = _decode(r.content)
                if inside(time.monotonic()):
                    st.get_game_ms.append((t1 - t0) * 1000)
                if view["status"] == "finished" or not view["to_act"]:
                    if inside(time.monotonic()):
                        st.finished += 1
                    seen.pop(game.id, None)
                    guess.pop(game.id, None)
                    game = None
                    continue
                legal = view.get("legal_actions") if asked in view["to_act"] else None
                seat = asked if legal else rng.choice(view["to_act"])
                if legal is None:
                    since = f"?min_version={view['version']}" if MIN_VERSION else ""
                    t0 = time.perf_counter()
                    r = await http.get(
                        f"/v1/games/{game.id}/legal-actions{since}", headers=game.auth[seat]
                    )
                    t1 = time.perf_counter()
                    if r.status_code != 200:
                        _count(st.errors, f"legal_{r.status_code}")
                        continue
                    legal = _decode(r.content)
                    if inside(time.monotonic()):
                        st.legal_ms.append((t1 - t0) * 1000)
                guess[game.id] = (seat + 1) % len(view["seats"])
                body = _json.encode(
                    {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
                )
                t0 = time.perf_counter()
                r = await http.post(
                    f"/v1/games/{game.id}/actions",
                    content=body,
                    headers={**headers, **game.auth[seat]},
                )
                t1 = time.perf_counter()
                if inside(time.monotonic()):
                    st.statuses[r.status_code] = st.statuses.get(r.status_code, 0) + 1
                    if r.status_code == 200:
                        st.post_ms.append((t1 - t0) * 1000)
                if (
                    r.status_code not in (200, 409)
                    and st.errors.get(f"post_{r.status_code}", 0) < 3
                ):
                    note(f"POST {r.status_code}: {r.text[:300]}")
                if r.status_code != 200:
                    _count(st.errors, f"post_{r.status_code}")
                elif MIN_VERSION:
                    seen[game.id] = _decode(r.content)["version"]
            except (httpx.HTTPError, OSError, EOFError, ValueError) as exc:
                _count(st.errors, type(exc).__name__)
                await asyncio.sleep(0.05)


async def refill(games: Any, http: httpx.AsyncClient, clients: int, end: float) -> None:
    """Keep at least `clients` ready games in `games.ready` until `end`."""
    while time.monotonic() < end:
        if games.ready.qsize() < clients:
            await games.fill(clients, http)
        else:
            await asyncio.sleep(0.1)


async def spawn(
    url: str,
    redis_url: str,
    prefix: str,
    secret: str,
    clients: int,
    prepared: int,
    processes: int,
    tag: str,
    pace: float = 0.0,
    ready_s: float = 120.0,
    one_read: bool = False,
) -> list[asyncio.subprocess.Process]:
    """Start `processes` load processes (this module's `_main`) with their shares of
    `clients` and of `prepared` games, and wait until each has its games and says `ready`;
    then the caller writes `warm_end end` to each one's stdin and reads its result line.
    `pace`: the clients' cycles a second together (each its share). On failure the
    processes started are killed."""
    n = max(1, min(processes, clients))
    shares = [clients // n + (1 if k < clients % n else 0) for k in range(n)]
    procs: list[asyncio.subprocess.Process] = []
    try:
        for k, share in enumerate(shares):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.bench.actions_load",
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=1 << 26,  # the result is one JSON line of every timing
            )
            procs.append(proc)
            job = {
                "url": url,
                "redis_url": redis_url,
                "prefix": prefix,
                "secret": secret,
                "tag": f"{tag}p{k}-",
                "clients": share,
                "prepared": max(share, prepared * share // clients),
                "seed": 1000 * k,
                "pace": pace / clients,  # each client's share of the cycles a second
                "one_read": one_read,
            }
            assert proc.stdin is not None
            proc.stdin.write(_json.encode(job) + b"\n")
            await proc.stdin.drain()
        for proc in procs:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), ready_s)
            if line.strip() != b"ready":
                raise RuntimeError(f"load process not ready: {line[:300]!r}")
    except BaseException:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        raise
    return procs


async def begin(
    procs: list[asyncio.subprocess.Process], warmup_s: float, measure_s: float
) -> tuple[float, float]:
    """Tell the load processes of `spawn` their window, from now: (warm_end, end)."""
    warm_end = time.monotonic() + warmup_s
    end = warm_end + measure_s
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(f"{warm_end} {end}\n".encode())
        await proc.stdin.drain()
    return warm_end, end


async def results(procs: list[asyncio.subprocess.Process], into: LevelStats) -> None:
    """Each load process' result line, merged into `into`, and its exit."""
    for proc in procs:
        assert proc.stdout is not None
        into.merge(_decode(await asyncio.wait_for(proc.stdout.readline(), 60)))
        await proc.wait()


async def _main() -> None:
    from infra.streams.redis import RedisStreams
    from tests.bench.run import Games

    job = json.loads(sys.stdin.readline())
    clients = int(job["clients"])
    streams = RedisStreams.from_url(job["redis_url"])

    def note(text: str) -> None:
        print(f"# [{job['tag']}] {text}", file=sys.stderr, flush=True)

    try:
        games = Games(streams, job["prefix"], job["url"], tag=job["tag"], secret=job["secret"])
        async with httpx.AsyncClient(base_url=job["url"], timeout=60) as http:
            await games.fill(int(job["prepared"]), http)
            before = games.count
            print("ready", flush=True)
            line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            warm_end, end = (float(v) for v in line.split())
            st = LevelStats()
            refiller = asyncio.create_task(refill(games, http, clients, end))
            # The clients time each request around its await: a pause of their own collector
            # (a full one walked this process' imports for tens of ms) would count as the
            # service's latency. No collection until the window is over.
            gc.collect()
            gc.freeze()
            gc.disable()
            try:
                await asyncio.gather(
                    *(
                        play(
                            int(job["seed"]) + i,
                            job["url"],
                            games.ready,
                            st,
                            warm_end,
                            end,
                            note=note,
                            pace=float(job.get("pace", 0)),
                            one_read=bool(job.get("one_read")),
                        )
                        for i in range(clients)
                    )
                )
            finally:
                gc.enable()
                refiller.cancel()
                await asyncio.gather(refiller, return_exceptions=True)
            st.created = games.count - before
            st.creation_s = games.creation_s
    finally:
        await streams.close()
    print(json.dumps(asdict(st)), flush=True)


if __name__ == "__main__":
    asyncio.run(_main())
