"""Scale-out, shown: two of every process, clients spread over the replicas, relays failing.

Two lobbies, two game services, two relays (the second standing by), two bot dispatchers
and two bot workers, as real processes on one database and one Redis; no scheduler, so no
sweep repairs what the streams lose: a game that finishes finished by the streams alone.
People play each of the three games beside bots, every request to a replica in turn. On
the way: a long-poll and an SSE stream on one game service wake for a move posted to the
other; the active relay is killed with SIGKILL, and later its successor frozen with
SIGSTOP, and the standby takes over within a bound (below). After: every game's versions
are contiguous in Postgres, the games stream holds each event exactly once and in order,
and every bot move answers one trigger of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis

from contracts.streams import GAMES, GameEvent
from games.registry import get as get_rules
from services.bots.observe import Observation
from services.bots.policies import policy_for
from services.bots.worker import bot_command_id
from services.game.relay import RELAY_LOCK
from tests.conftest import RUN_ID, fresh_database
from tests.e2e.servers import Processes, _wait_port, free_port
from turnpost.client import Client, Conflict

pytestmark = pytest.mark.e2e

# The relay's lock goes with its session; a frozen relay's session is ended after this
# many idle seconds (RELAY_LOCK_TIMEOUT_S), and a standby asks for the lock every third of
# it. So a relay killed is replaced within a standby's wait (1 s here) plus a start
# (connect, the lock, the first batch); a relay frozen, within the timeout plus that. The
# bounds add 3 s for a 2-core machine busy with ten processes and the games.
LOCK_TIMEOUT_S = 3.0
KILLED_BOUND_S = LOCK_TIMEOUT_S / 3 + 3.0
FROZEN_BOUND_S = LOCK_TIMEOUT_S + LOCK_TIMEOUT_S / 3 + 3.0
WAKE_BOUND_S = 5.0  # from the POST; a long-poll or SSE waits 20 s, rechecks the store every 60

GAMES_PLAYED: list[tuple[str, int, dict[str, Any], int, list[str]]] = [
    # game, seats, options, people, bot levels (the rest: greedy)
    ("itty-bitty", 3, {}, 2, ["random"]),
    ("itchy-feet", 4, {"events": True, "special_items": True, "postcards": True}, 1, ["random"]),
    ("footprints", 3, {"advanced": True}, 1, ["random"]),
]


# what the clients are given: a service's name, which Spread sends to one of its replicas
LOBBY, GAME = "http://lobby", "http://game"


class Spread(httpx.HTTPTransport):
    """Each request to the next replica of its service in turn (the clients' load balancer):
    the host of `LOBBY` or `GAME` names the service, each with its own turn."""

    def __init__(self, ports: dict[str, list[int]]) -> None:
        super().__init__()
        self._ports = {host: itertools.cycle(p) for host, p in ports.items()}
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            port = next(self._ports[request.url.host])
        request.url = request.url.copy_with(host="127.0.0.1", port=port)
        request.headers["host"] = f"127.0.0.1:{port}"
        return super().handle_request(request)


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class Cluster:
    def __init__(self, database_url: str, redis_url: str, prefix: str, folder: Path) -> None:
        self.database_url, self.redis_url = database_url, redis_url
        self.stream = f"{prefix}{GAMES}"
        self.lobby_ports = [free_port(), free_port()]
        self.game_ports = [free_port(), free_port()]
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "STREAM_PREFIX": prefix,
            "TURNPOST_SECRET": secrets.token_urlsafe(48),  # this cluster's own
            "LOG_LEVEL": "WARNING",
            "METRICS_PORT": "0",
            "SSE_HEARTBEAT_S": "60",  # a feed's recheck of the store: far beyond WAKE_BOUND_S
            "RELAY_LOCK_TIMEOUT_S": str(LOCK_TIMEOUT_S),
            "RATE_LIMIT_REGISTER": "10000/minute",
            "RATE_LIMIT_ACTION": "10000/minute",
            "RATE_LIMIT_WRITE": "10000/minute",
            "RATE_LIMIT_READ": "10000/minute",
        }
        self.replicas = [
            Processes(
                {**env, "LOBBY_PORT": str(lobby), "GAME_PORT": str(game)},
                folder / f"replica-{name}.log",
            )
            for name, lobby, game in zip("ab", self.lobby_ports, self.game_ports, strict=True)
        ]
        second = self.replicas[1].commands
        second["worker"] = [a.replace("bots-", "bots-b-", 1) for a in second["worker"]]
        self.redis = redis.Redis.from_url(redis_url)
        self.http = self.spread()

    def spread(self, timeout: float = 30) -> httpx.Client:
        """An HTTP client (for `turnpost.client`'s `http=`) whose requests go round the replicas."""
        ports = {"lobby": self.lobby_ports, "game": self.game_ports}
        return httpx.Client(transport=Spread(ports), timeout=timeout)

    def player(self, token: str | None = None) -> Client:
        """A client of the whole cluster, each request to a replica in turn (shares `http`)."""
        return Client(LOBBY, GAME, token, http=self.http)

    def sql(self, query: str, *args: Any) -> list[asyncpg.Record]:
        async def run() -> list[asyncpg.Record]:
            conn = await asyncpg.connect(self.database_url)
            try:
                return list(await conn.fetch(query, *args))
            finally:
                await conn.close()

        return asyncio.run(run())

    def relay_holder(self) -> int | None:
        """The backend pid holding the relay's lock in this database."""
        rows = self.sql(
            """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND classid = 0 AND objid = $1 AND objsubid = 1
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())""",
            RELAY_LOCK,
        )
        return int(rows[0]["pid"]) if rows else None

    def relay_backends(self) -> int:
        """Sessions of this database last asking for the relay's lock: the standing-by."""
        return len(
            self.sql(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND query LIKE 'SELECT pg_try_advisory_lock%' AND pid <> pg_backend_pid()"
                " AND pid <> coalesce($1, 0)",
                self.relay_holder(),
            )
        )

    def stream_id(self) -> str:
        newest: Any = self.redis.xrevrange(self.stream, count=1)
        return newest[0][0].decode() if newest else "0-0"

    def wait_in_stream(self, game_id: str, version: int, after: str, seconds: float) -> float:
        """Seconds until the games stream carries `game_id` at `version` (entries after `after`)."""
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            reply: Any = self.redis.xread({self.stream: after}, count=500, block=100)
            for _, entries in reply or []:
                for mid, fields in entries:
                    after = mid
                    e = msgspec.json.decode(fields[b"m"], type=GameEvent)
                    if e.game_id == game_id and e.version >= version:
                        return time.monotonic() - began
        raise AssertionError(f"{game_id} v{version} not on the games stream in {seconds} s")

    def signal(self, replica: int, name: str, sig: signal.Signals) -> None:
        os.killpg(self.replicas[replica].running[name].pid, sig)


@pytest.fixture(scope="module")
def cluster(
    admin_dsn: str, redis_url: str, stream_prefix: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("scale-out")
    prefix = f"{stream_prefix}scale-{uuid.uuid4().hex[:6]}:"
    with fresh_database(admin_dsn, f"turnpost_e2e_scale_{RUN_ID}") as database_url:
        c = Cluster(database_url, redis_url, prefix, folder)
        a, b = c.replicas
        try:
            a.migrate()
            # a group that never reads: no trim drops an entry before the count at the end
            c.redis.xgroup_create(c.stream, "audit", id="0", mkstream=True)
            a.start("relay")
            first = _until(c.relay_holder, "the first relay to take the lock")
            b.start("relay")
            _until(lambda: c.relay_backends() >= 1, "the second relay to stand by")
            assert c.relay_holder() == first
            for replica in (a, b):
                for name in ("lobby", "game", "dispatcher", "worker"):
                    replica.start(name)
            for port in c.lobby_ports + c.game_ports:
                _wait_port(port, 60)
                _until(lambda p=port: _healthy(p), f"port {port} to answer /health")
            yield c
        finally:
            for replica in (b, a):
                for proc in replica.running.values():
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGCONT)
                with contextlib.suppress(Exception):
                    replica.stop_all()
            c.http.close()
            with contextlib.suppress(Exception):  # every key of this cluster's prefix
                keys = list(c.redis.scan_iter(match=f"{prefix}*"))
                if keys:
                    c.redis.delete(*keys)
            c.redis.close()


def _healthy(port: int) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    return False


def _until(check: Any, what: str, seconds: float = 60) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _room(c: Cluster, key: str, seats: int, options: dict[str, Any], people: int,
          bots: list[str]) -> tuple[str, list[str], dict[int, str]]:  # fmt: skip
    """A started game: (game id, each person's token by seat, the bots' levels by seat).
    Every answer other than 2xx raises its `ApiError`: made 201, joined and added 200."""
    tokens = [c.player().create_player(f"P{n}").token for n in range(people)]
    host = c.player(tokens[0])
    room_id = host.create_room(key, seats, options=options).id
    for seat, token in enumerate(tokens[1:], start=1):
        joined = c.player(token).join_room(room_id, seat)
        assert joined.seats[seat].player_id is not None, joined
    for level in bots:
        host.add_bot(room_id, level)
    started = host.start_room(room_id)
    assert started.status == "starting", started  # 202: the game comes later
    levels = {s.seat: s.bot for s in started.seats if s.bot}
    room = _until(lambda: (r := host.get_room(room_id)).game_id and r, f"{key}'s game to be made")
    assert room.game_id is not None
    return room.game_id, tokens, levels


def _play(c: Cluster, key: str, game_id: str, seat: int, token: str) -> int:
    """Play one person's seat with the greedy policy through REST to the end; moves made."""
    rules = get_rules(key)
    assert rules is not None
    rng, moves = Random(seat), 0
    with c.spread(timeout=40) as http:
        me = Client(LOBBY, GAME, token, http=http)
        for _ in range(5_000):
            state = me.get_game(game_id)
            if state.status == "finished":
                return moves
            if seat not in state.to_act:
                me.get_events(game_id, state.version, wait=10)
                continue
            legal = me.get_legal_actions(game_id)
            if legal.seat != seat or not legal.actions:
                continue
            actions = msgspec.convert(legal.actions, list.__class_getitem__(rules.action_type))
            obs = Observation(game=key, seat=seat, version=legal.version, view=state.view,
                              legal=actions, to_act=state.to_act)  # fmt: skip
            action = policy_for(key, "greedy")(obs, rng)
            try:  # 200, or a problem raised
                me.post_action(game_id, msgspec.to_builtins(action), legal.version)
            except Conflict:  # 409: someone moved in between
                continue
            moves += 1
    raise AssertionError(f"{key} {game_id} did not finish")


class Probe:
    """A game of two people and no bots: nothing moves it but a move posted here."""

    def __init__(self, c: Cluster) -> None:
        self.c = c
        self.game_id, self.tokens, _ = _room(c, "itty-bitty", 2, {}, 2, [])
        self.version = 0
        self.posted_at = 0.0

    def move(self, port: int) -> int:
        """Post a legal move of a seat to act to the game service on `port`; its version."""
        game = f"http://127.0.0.1:{port}"
        with httpx.Client(timeout=30) as http:  # one connection, as the post's timing wants
            state = Client(game=game, token=self.tokens[0], http=http).get_game(self.game_id)
            them = Client(game=game, token=self.tokens[state.to_act[0]], http=http)
            legal = them.get_legal_actions(self.game_id)
            self.posted_at = time.monotonic()  # a wake-up is timed from here
            posted = them.post_action(self.game_id, legal.actions[0], legal.version)  # or raised
            self.version = posted.version
            return legal.version + 1

    def head(self) -> int:
        return self.c.player(self.tokens[0]).get_game(self.game_id).version


def _long_poll_wakes(probe: Probe, waiting: int, posting: int) -> float:
    """Seconds a long-poll on game service `waiting` takes to return a move posted to `posting`."""
    head = probe.head()
    got: dict[str, Any] = {}

    def poll() -> None:
        game = f"http://127.0.0.1:{waiting}"
        with Client(game=game, token=probe.tokens[1]) as them:
            feed = them.get_events(probe.game_id, head, wait=20)
            got["at"], got["feed"] = time.monotonic(), feed

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.5)  # the poll is waiting
    probe.move(posting)
    t.join(30)
    assert got["feed"].events, got["feed"]
    assert got["feed"].events[0].version == head + 1
    return float(got["at"] - probe.posted_at)


def _sse_wakes(probe: Probe, waiting: int, posting: int) -> float:
    """Seconds an SSE stream on `waiting` takes to carry a move posted to `posting`."""
    head = probe.head()
    ready = threading.Event()
    got: dict[str, Any] = {}

    def follow() -> None:
        # read raw, as tests/e2e/test_sse.py: it waits for the stream's opening comment (the
        # stream is served) before the move, which the client's iterator keeps to itself
        with (
            httpx.Client(base_url=f"http://127.0.0.1:{waiting}", timeout=40) as g,
            g.stream(
                "GET",
                f"/v1/games/{probe.game_id}/stream?after={head}",
                headers=_auth(probe.tokens[1]),
            ) as r,  # fmt: skip
        ):
            assert r.status_code == 200
            for line in r.iter_lines():
                if line.startswith(": game "):
                    ready.set()
                elif line.startswith("id: "):
                    got["at"], got["id"] = time.monotonic(), int(line[4:])
                    return

    t = threading.Thread(target=follow, daemon=True)
    t.start()
    assert ready.wait(15), "the stream did not open"
    probe.move(posting)
    t.join(30)
    assert got.get("id") == head + 1, got
    return float(got["at"] - probe.posted_at)


def _check_game(c: Cluster, game_id: str, bots: dict[int, str], entries: list[int]) -> int:
    rows = c.sql(
        """SELECT version, event_id, metadata->>'command_id' AS command,
                  (metadata->>'seat')::int AS seat, (metadata->>'batch')::int AS batch
           FROM events WHERE stream_id = $1 ORDER BY version""",
        f"game-{game_id}",
    )
    versions = [r["version"] for r in rows]
    last = versions[-1]
    assert versions == list(range(1, last + 1)), "versions not contiguous"
    assert len({r["event_id"] for r in rows}) == last
    assert entries == versions, f"games stream of {game_id}: {entries} v {versions}"
    # each command's events are one append; each bot command answers a trigger of its own
    by_command: dict[str, list[Any]] = {}
    for r in rows:
        by_command.setdefault(r["command"], []).append(r)
    trigger_of = {bot_command_id(game_id, v, seat): v for seat in bots for v in range(last + 1)}
    triggers: set[tuple[int, int]] = set()
    for command, events in by_command.items():
        vs = [e["version"] for e in events]
        assert vs == list(range(vs[0], vs[0] + len(vs))) and len(vs) == events[0]["batch"]
        seat = events[0]["seat"]
        if seat in bots:
            assert command in trigger_of, f"bot move {command} of seat {seat} answers no trigger"
            trigger = (seat, trigger_of[command])
            assert trigger not in triggers and trigger[1] < vs[0]
            triggers.add(trigger)
    return len(triggers)


def test_two_of_every_process_games_finish_and_nothing_is_doubled_or_lost(
    cluster: Cluster,
) -> None:
    c = cluster
    probe = Probe(c)
    games = [(key, *_room(c, key, seats, options, people, bots))
             for key, seats, options, people, bots in GAMES_PLAYED]  # fmt: skip
    results: dict[tuple[str, int], Any] = {}

    def person(key: str, game_id: str, seat: int, token: str) -> None:
        try:
            results[(game_id, seat)] = _play(c, key, game_id, seat, token)
        except BaseException as exc:  # reported below
            results[(game_id, seat)] = exc

    players = [
        threading.Thread(target=person, args=(key, game_id, seat, token), daemon=True)
        for key, game_id, tokens, _ in games
        for seat, token in enumerate(tokens)
    ]
    for t in players:
        t.start()

    a, b = c.game_ports
    woken = {
        "long-poll a<-b": _long_poll_wakes(probe, a, b),
        "long-poll b<-a": _long_poll_wakes(probe, b, a),
        "sse a<-b": _sse_wakes(probe, a, b),
        "sse b<-a": _sse_wakes(probe, b, a),
    }
    assert all(s < WAKE_BOUND_S for s in woken.values()), woken

    # the active relay killed mid-run: the standby publishes a move made just after
    active = c.relay_holder()
    after = c.stream_id()
    c.replicas[0].kill("relay")
    killed_at = time.monotonic()
    version = probe.move(b)
    c.wait_in_stream(probe.game_id, version, after, 30)
    took_killed = time.monotonic() - killed_at
    assert c.relay_holder() not in (None, active)
    assert took_killed < KILLED_BOUND_S, took_killed

    # its successor frozen (its socket alive, its kernel answering keepalives): its session
    # idles out after LOCK_TIMEOUT_S and the restarted relay takes over
    c.replicas[0].start("relay")
    _until(lambda: c.relay_backends() >= 1, "the restarted relay to stand by")
    active = c.relay_holder()
    after = c.stream_id()
    c.signal(1, "relay", signal.SIGSTOP)
    frozen_at = time.monotonic()
    version = probe.move(a)
    c.wait_in_stream(probe.game_id, version, after, 30)
    took_frozen = time.monotonic() - frozen_at
    new = c.relay_holder()
    c.signal(1, "relay", signal.SIGCONT)  # wakes to a lost session: stands by, publishes nothing
    assert new not in (None, active)
    assert took_frozen < FROZEN_BOUND_S, took_frozen

    for t in players:
        t.join(240)
    failed = {k: v for k, v in results.items() if isinstance(v, BaseException) or v is None}
    assert not failed and len(results) == len(players), failed
    assert all(moves > 0 for moves in results.values()), results

    # every game's story, each command told once: Postgres against the games stream
    time.sleep(1)  # the last events through the relay
    per_game: dict[str, list[int]] = {}
    entries: Any = c.redis.xrange(c.stream)
    for _, fields in entries:  # one envelope per command: the versions it tells of
        e = msgspec.json.decode(fields[b"m"], type=GameEvent)
        per_game.setdefault(e.game_id, []).extend(range(e.first_version, e.version + 1))
    bot_moves = 0
    for _, game_id, tokens, bots in games:
        bot_moves += _check_game(c, game_id, bots, per_game.get(game_id, []))
        final = c.player(tokens[0]).get_game(game_id)
        assert final.status == "finished", final
    _check_game(c, probe.game_id, {}, per_game.get(probe.game_id, []))
    assert bot_moves > 20
    print(f"\nwake-ups (s): {woken}; relay killed: {took_killed:.2f} s (bound {KILLED_BOUND_S}),"
          f" frozen: {took_frozen:.2f} s (bound {FROZEN_BOUND_S}); bot moves {bot_moves}")  # fmt: skip
