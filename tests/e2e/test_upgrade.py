"""A rolling upgrade, shown: games begun under the previous release finish under this one,
with every process replaced while they are played.

The previous release (`PREVIOUS`, or `TURNPOST_UPGRADE_FROM`) is checked out in a temporary
git worktree and its stack run from there (its own deploy/stack.py, `python -m` with the
worktree as the working folder, so its own packages come first on sys.path; the venv is
shared: same dependencies), on a Postgres cluster and a Redis server of this test's own:
1. The old release's migrations, then its lobby, game service, relay, bot dispatcher, bot
   worker, scheduler and notifier (no mcts worker and no webhook deliveries: no mcts bot
   and no endpoint here). People play through the Python client (`turnpost.client`) beside
   bots, two seats of each game; itty bitty's room has a clock (5 s a move, a bot's move on
   a timeout), and its person lets the clock run out now and then.
2. This release's migrations (`python -m infra.servers.migrate` here) while the old processes run
   and play goes on; the migrations added since the previous release are checked to only
   add (expand-then-contract: nothing the old code reads or writes goes away or changes).
3. The processes replaced one by one, each new one started beside the old one before the old
   one stops (SIGTERM): first a new game service, the clients' requests alternating between
   the old and the new replica for a few moves; then the relay, the dispatcher, the worker,
   the scheduler, the notifier, and the lobby (its requests alternating too). Play goes on
   between every two steps. At each game replica's stop a long-poll (`wait=20`) and an SSE
   stream are held on it: they must get the next move all the same, asked again or resumed
   at the other replica; at the stop of a replica of this release, the long-poll sees only a
   503 with Retry-After (which the client waits out and asks again).
4. Every game played to its end on the new release. Then: each game's versions contiguous
   in Postgres, its event ids unique, the games stream carrying each event once and in
   order; each log replayed from the store with today's code (tests/corpus/replay.py: folded,
   every command decided again with the draws it had, via services/game/records.py) to
   the outcome the view shows, and `rules_version` 1 (the games began before the upgrade);
   timeouts fired by the old scheduler and by the new one; nothing dead-lettered; and no
   client saw anything but a retry (a 503 with Retry-After or a dropped connection, counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from random import Random
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis

from contracts.lobby import Timing
from contracts.streams import COMMANDS, GAMES, GameEvent
from games.registry import get as get_rules
from infra.auth.signing import verify
from infra.eventstore.postgres import PostgresEventStore
from infra.settings import from_env
from services.bots.observe import Observation
from services.bots.policies import policy_for
from services.game.records import game_record
from services.game.relay import RELAY_LOCK
from services.game.repository import PostgresGamesRepository, stream_id
from tests.corpus.replay import replay
from tests.e2e.conftest import wait_for
from tests.e2e.servers import ROOT, PrivatePostgres, PrivateRedis, Processes, _wait_port, free_port
from turnpost.client import ApiError, Client, Conflict, Unprocessable, my_turn

pytestmark = pytest.mark.e2e

# The release upgraded from: move it forward to the last landed release (the commit
# production runs) whenever one lands.
PREVIOUS = "e3834e2"
FROM = os.environ.get("TURNPOST_UPGRADE_FROM", PREVIOUS)

# (game, seats, options, timing, bot levels of the seats after the person's, the person's
# level until the upgrade is done: greedy, or random where greedy may end a game in fewer
# moves than the upgrade takes, as Itchy Feet's in 19; the rest of the game greedy)
ROOMS: list[tuple[str, int, dict[str, Any], Timing | None, list[str], str]] = [
    ("itty-bitty", 2, {}, Timing(per_move_s=5, on_timeout="bot_move"), ["greedy"], "greedy"),
    ("itchy-feet", 2, {}, None, ["random"], "random"),
    ("footprints", 2, {}, None, ["greedy"], "greedy"),
]
CLOCKED = "itty-bitty"
OLD_ONLY = ("lobby", "game", "relay", "dispatcher", "worker", "scheduler", "notifier")
# replaced after the game service, in this order (docs/operations.md, "Deploying a new version")
IN_TURN = ("relay", "dispatcher", "worker", "scheduler", "notifier")
HTTP = {"lobby": "LOBBY_PORT", "game": "GAME_PORT"}
LOBBY, GAME = "http://lobby", "http://game"  # service names, routed by Router
# what a migration of a rolling upgrade may do: add (docs/operations.md, "Deploying a new version")
ADDITIVE = re.compile(
    r"^(CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS|CREATE\s+INDEX|COMMENT\s+ON"
    r"|ALTER\s+TABLE\s+\S+\s+ADD\s+COLUMN(?!.*NOT\s+NULL(?!.*DEFAULT)))\b",
    re.IGNORECASE | re.DOTALL,
)


# -- the previous release ------------------------------------------------------------------


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """The commit in a git worktree of a temporary folder, removed after."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git to check out the previous release")
    found = subprocess.run(
        [git, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        pytest.skip(f"the previous release {commit} is not in this repository's history")
    folder = Path(tempfile.mkdtemp(prefix="turnpost-upgrade-"))
    tree = folder / commit
    subprocess.run(
        [git, "worktree", "add", "--detach", "--quiet", str(tree), commit], cwd=ROOT, check=True
    )
    try:
        yield tree
    finally:
        subprocess.run([git, "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([git, "worktree", "prune"], cwd=ROOT, check=False)


def stack_of(root: Path, label: str) -> dict[str, list[str]]:
    """A checkout's deploy/stack.py PROCESSES, each Celery worker named for the release."""
    spec = importlib.util.spec_from_file_location(f"stack_{label}", root / "deploy" / "stack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    commands = {name: list(cmd) for name, cmd in module.PROCESSES.items()}
    for cmd in commands.values():
        if "--hostname" in cmd:
            at = cmd.index("--hostname") + 1
            cmd[at] = cmd[at].replace("@", f"-{label}@", 1)
    return commands


def migrate_module(root: Path) -> str:
    """The migrations' entry point in that checkout (infra/servers/ since the house issue)."""
    return (
        "infra.servers.migrate" if (root / "infra/servers/migrate.py").exists() else "infra.migrate"
    )


class Release(Processes):
    """One release's processes, run from its checkout with its own deploy/stack.py list;
    each may be started with settings of its own (a port) and stopped alone."""

    def __init__(self, root: Path, label: str, env: dict[str, str], log: Path) -> None:
        super().__init__(env, log)
        self.root, self.label = root, label
        self.commands = stack_of(root, label)

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "-m", migrate_module(self.root)],
            cwd=self.root,
            env=self.env,
            check=True,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def start(self, name: str, key: str | None = None, **env: str) -> None:
        """Start `name`'s command, known as `key` (a second replica's) or its name."""
        self.running[key or name] = subprocess.Popen(
            self.commands[name],
            cwd=self.root,
            env={**self.env, **env},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self, name: str) -> None:
        """SIGTERM, as a rollout stops a pod; SIGKILL if it has not exited in 20 s."""
        proc = self.running[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            self.kill(name)
            raise AssertionError(f"{self.label} {name} did not stop on SIGTERM") from None
        del self.running[name]

    def runs_here(self, name: str) -> bool:
        """Whether the process runs in this release's checkout (`python -m` puts its working
        folder first on sys.path); where there is no /proc to ask, as started."""
        cwd = Path(f"/proc/{self.running[name].pid}/cwd")
        return not cwd.parent.exists() or Path(os.readlink(cwd)) == self.root


# -- the clients' load balancer ------------------------------------------------------------


class Router:
    """Where the services are now: each request to the next port of its service's list (the
    test plays the load balancer, taking a replica out of its list before stopping it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ports: dict[str, list[int]] = {"lobby": [], "game": []}
        self.turn = itertools.count()
        self.served: Counter[int] = Counter()
        self.seen: Counter[str] = Counter()  # what clients met that was not an answer

    def route(self, service: str, ports: list[int]) -> None:
        with self.lock:
            self.ports[service] = list(ports)

    def next(self, service: str) -> int:
        with self.lock:
            ports = self.ports[service]
            port = ports[next(self.turn) % len(ports)]
            self.served[port] += 1
            return port

    def saw(self, what: str) -> None:
        with self.lock:
            self.seen[what] += 1

    def client(self, timeout: float = 30) -> httpx.Client:
        return httpx.Client(transport=Routed(self), timeout=timeout)


class Routed(httpx.HTTPTransport):
    def __init__(self, router: Router) -> None:
        super().__init__()
        self.router = router

    def port(self, service: str) -> int:
        return self.router.next(service)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # the service, named by the host the client was given (a retry sends the request again)
        service = request.extensions.setdefault("service", request.url.host)
        port = self.port(service)
        request.url = request.url.copy_with(host="127.0.0.1", port=port)
        request.headers["host"] = f"127.0.0.1:{port}"
        response = super().handle_request(request)
        if response.status_code == 503:
            self.router.saw(f"503 from :{port}")
        return response


class Pinned(Routed):
    """To one replica while the router lists it, then wherever the router sends (a
    client's connection held to the replica it landed on: a long-poll, a stream)."""

    def __init__(self, router: Router, pinned: int) -> None:
        super().__init__(router)
        self.pinned = pinned

    def port(self, service: str) -> int:
        with self.router.lock:
            listed = self.pinned in self.router.ports[service]
        return self.pinned if listed else self.router.next(service)


# -- people --------------------------------------------------------------------------------


class Person(threading.Thread):
    """A person at one seat, playing a bot's policy through the Python client, moving only
    as far as the test allows (`grant`): so many moves, and for the clocked seat so many
    turns left to its clock (a timeout, and a bot's one move for it)."""

    def __init__(
        self, router: Router, key: str, game_id: str, seat: int, token: str, level: str
    ) -> None:
        super().__init__(daemon=True, name=f"{key}-{seat}")
        self.router, self.key, self.game_id = router, key, game_id
        self.seat, self.token, self.level = seat, token, level
        self.cond = threading.Condition()
        self.moves = self.skips = 0  # granted, not yet made
        self.free = False  # play to the end
        self.made = self.skipped = 0
        self.sent: list[tuple[int, dict[str, Any]]] = []  # (seat, action) as posted
        self.finished = False
        self.failed: BaseException | None = None

    def grant(self, moves: int = 1, skips: int = 0, free: bool = False) -> None:
        with self.cond:
            self.moves += moves
            self.skips += skips
            self.free = self.free or free
            self.cond.notify_all()

    def idle(self) -> bool:
        with self.cond:
            return self.finished or self.failed is not None or not (self.moves or self.skips)

    def _intent(self) -> str | None:
        with self.cond:
            if not (self.skips or self.moves or self.free):
                self.cond.wait(0.3)
            if self.skips:
                return "skip"
            return "move" if self.moves or self.free else None

    def _spent(self, intent: str) -> None:
        with self.cond:
            if intent == "skip":
                self.skips, self.skipped = self.skips - 1, self.skipped + 1
            else:
                self.moves, self.made = max(0, self.moves - 1), self.made + 1

    def run(self) -> None:
        try:
            with self.router.client(40) as http:
                self._play(Client(LOBBY, GAME, self.token, http=http))
        except BaseException as exc:  # reported by the test
            self.failed = exc

    def _play(self, me: Client) -> None:
        rules = get_rules(self.key)
        assert rules is not None
        rng = Random(self.seat)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            try:
                view = me.get_game(self.game_id)
                if view.status == "finished":
                    with self.cond:
                        self.finished = True
                    return
                if not my_turn(view):
                    me.get_events(self.game_id, view.version, wait=2)
                    continue
                intent = self._intent()
                if intent == "skip":
                    self._let_the_clock_run_out(me, view.version)
                elif intent == "move":
                    legal = me.get_legal_actions(self.game_id, min_version=view.version)
                    if legal.version != view.version or not legal.actions:
                        continue
                    actions = msgspec.convert(
                        legal.actions, list.__class_getitem__(rules.action_type)
                    )
                    obs = Observation(
                        game=self.key,
                        seat=self.seat,
                        version=legal.version,
                        view=view.view,
                        legal=actions,
                        to_act=view.to_act,
                    )
                    level = "greedy" if self.free else self.level
                    chosen = policy_for(self.key, level)(obs, rng)
                    listed = legal.actions[actions.index(chosen)]  # posted as listed
                    self.sent.append((self.seat, {k: v for k, v in listed.items() if k != "text"}))
                    me.post_action(self.game_id, listed, legal.version)
                    self._spent(intent)
            except Conflict:  # 409: someone (a bot, a timeout) moved in between
                continue
            except Unprocessable as exc:  # listed by a replica of one release, refused by
                # one of the other (cards named otherwise since e3834e2): read again, anew
                self.router.saw(f"422 {exc.code} to a move as listed")
                continue
            except httpx.TransportError as exc:  # a replica stopping under a request
                self.router.saw(f"transport: {type(exc).__name__}")
                time.sleep(0.2)
            except ApiError as exc:
                if exc.status != 503:
                    raise
                time.sleep(0.5)  # counted by Routed; the client retried it already
        raise AssertionError(f"{self.key} {self.game_id} did not finish")

    def _let_the_clock_run_out(self, me: Client, version: int) -> None:
        """Wait, not moving, until the seat's deadline fired (`timed_out` of this seat)."""
        after, until = version, time.monotonic() + 30
        while time.monotonic() < until:
            feed = me.get_events(self.game_id, after, wait=2)
            if any(e.type == "timed_out" and e.data.get("seat") == self.seat for e in feed.events):
                self._spent("skip")
                return
            after = feed.last_version
            if feed.status == "finished":
                return
        raise AssertionError(f"{self.key} {self.game_id}: seat {self.seat} never timed out")


# -- the test ------------------------------------------------------------------------------


class Upgrade:
    def __init__(self, old: Release, new: Release, pg: PrivatePostgres, rd: PrivateRedis) -> None:
        self.old, self.new, self.pg = old, new, pg
        self.redis = redis.Redis.from_url(rd.url)
        self.router = Router()
        self.people: list[Person] = []
        self.rooms: dict[str, str] = {}  # game id -> room id
        self.host_token = ""
        self.probe = ""  # a game of two people and no bot: nothing moves it but the test
        self.probe_tokens: list[str] = []
        self.steps: list[tuple[str, float]] = []
        self.began = time.monotonic()

    def sql(self, query: str, *args: Any) -> list[asyncpg.Record]:
        async def run() -> list[asyncpg.Record]:
            conn = await asyncpg.connect(self.pg.url)
            try:
                return list(await conn.fetch(query, *args))
            finally:
                await conn.close()

        return asyncio.run(run())

    def step(self, what: str) -> None:
        self.steps.append((what, time.monotonic() - self.began))

    def start(self, release: Release, name: str, key: str | None = None) -> int:
        """Start `name` of `release` on ports of its own; wait until it listens (an HTTP
        service answers /health, any other its metrics port: its imports are done)."""
        port = free_port()
        env = {HTTP[name]: str(port)} if name in HTTP else {"METRICS_PORT": str(port)}
        release.start(name, key, **env)
        _wait_port(port, 60)
        if name in HTTP:
            wait_for(lambda: _healthy(port), f"{release.label} {name} to answer /health")
        return port

    def play(self, moves: int = 1, skips: dict[str, int] | None = None) -> None:
        """Each person makes `moves` moves (the clocked one also lets its clock run out
        `skips[game]` times); back once all did, or their games ended."""
        for p in self.people:
            p.grant(moves, (skips or {}).get(p.key, 0))
        wait_for(lambda: all(p.idle() for p in self.people), "the people's moves", 90)
        if failed := [p for p in self.people if p.failed]:
            raise AssertionError(f"{failed[0].name} failed") from failed[0].failed
        ended = [f"{p.key} after {p.made} moves" for p in self.people if p.finished]
        assert not ended, f"ended before the upgrade did ({self.steps[-1:]}): {ended}"

    def lobby_round(self) -> None:
        """The lobby at work through the router: a player registered, every room read."""
        with self.router.client() as http:
            Client(LOBBY, GAME, http=http).create_player("Visitor")
            host = Client(LOBBY, GAME, self.host_token, http=http)
            for room_id in self.rooms.values():
                assert host.get_room(room_id).status == "playing"

    def begin(self) -> None:
        for key, seats, options, timing, bots, level in ROOMS:
            with self.router.client() as http:
                me = Client(LOBBY, GAME, http=http)
                me.register("Person")
                room = me.create_room(key, seats, options=options, timing=timing)
                for bot in bots:
                    me.add_bot(room.id, bot)
                assert me.start_room(room.id).status == "starting"
                game_id = wait_for(lambda r=room.id, c=me: c.get_room(r).game_id, f"{key}'s game")
                assert me.token is not None
                self.host_token = me.token
            self.rooms[game_id] = room.id
            self.people.append(Person(self.router, key, game_id, 0, me.token, level))
        for p in self.people:
            p.start()
        with self.router.client() as http:
            two = [Client(LOBBY, GAME, http=http), Client(LOBBY, GAME, http=http)]
            for n, c in enumerate(two):
                c.register(f"Probe {n}")
            room = two[0].create_room("itty-bitty", 2)
            two[1].join_room(room.id, 1)
            two[0].start_room(room.id, fill=False)
            self.probe = wait_for(lambda: two[0].get_room(room.id).game_id, "the probe's game")
            self.probe_tokens = [c.token or "" for c in two]

    def move_probe(self) -> int:
        """A move in the probe's game (through the router); the version it made."""
        with self.router.client() as http:
            view = Client(LOBBY, GAME, self.probe_tokens[0], http=http).get_game(self.probe)
            them = Client(LOBBY, GAME, self.probe_tokens[view.to_act[0]], http=http)
            legal = them.get_legal_actions(self.probe, min_version=view.version)
            return them.post_action(self.probe, legal.actions[0], legal.version).version

    def follow_probe(self, pinned: int) -> tuple[threading.Thread, dict[str, Any]]:
        """A long-poll (`/events?wait=20`, asked again after a failure) and an SSE stream of
        the probe, both on the replica at `pinned` while the router lists it: (the thread
        that waits for the probe's next event on both, what each saw)."""
        seen: dict[str, Any] = {"long-poll failures": []}
        with self.router.client() as http:
            after = Client(LOBBY, GAME, self.probe_tokens[0], http=http).get_game(self.probe)
        version = seen["after"] = after.version

        def poll() -> None:
            with httpx.Client(transport=Pinned(self.router, pinned), timeout=40) as http:
                me = Client(LOBBY, GAME, self.probe_tokens[0], http=http)
                while "long-poll" not in seen:
                    try:
                        if events := me.get_events(self.probe, version, wait=20).events:
                            seen["long-poll"] = events[0].version
                    except httpx.TransportError as exc:
                        seen["long-poll failures"].append(type(exc).__name__)
                    except ApiError as exc:
                        seen["long-poll failures"].append(f"{exc.status} {exc.code}")

        def stream() -> None:
            with httpx.Client(transport=Pinned(self.router, pinned), timeout=40) as http:
                me = Client(LOBBY, GAME, self.probe_tokens[1], http=http)
                seen["stream"] = next(iter(me.stream_game_events(self.probe, version))).version

        def noted(follow: Any) -> Any:
            def run() -> None:
                try:
                    follow()
                except BaseException as exc:  # shown by the test's assertion
                    seen[f"{follow.__name__} raised"] = repr(exc)

            return run

        def both() -> None:
            threads = [threading.Thread(target=noted(f), daemon=True) for f in (poll, stream)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)

        follower = threading.Thread(target=both, daemon=True)
        follower.start()
        return follower, seen


def _healthy(port: int) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    return False


def added_migrations(commit: str) -> dict[str, str]:
    """The migrations of this checkout that the release `commit` did not have: name -> SQL."""
    listed = subprocess.run(
        ["git", "ls-tree", "--name-only", commit, "infra/servers/migrations/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    before = {Path(p).name for p in listed.stdout.split()}
    here = ROOT / "infra" / "migrations"
    return {p.name: p.read_text() for p in sorted(here.glob("*.sql")) if p.name not in before}


def not_additive(sql: str) -> list[str]:
    """The statements of a migration that do more than add (a table, a column, an index)."""
    text = re.sub(r"--[^\n]*", "", sql)
    statements = [s.strip() for s in text.split(";") if s.strip()]
    return [s for s in statements if not ADDITIVE.match(s) or re.search(r"\bDROP\b", s, re.I)]


def test_not_additive_finds_what_would_break_the_old_release() -> None:
    assert not not_additive(
        "-- a comment; with a semicolon\nCREATE INDEX IF NOT EXISTS i ON t (c);"
    )
    assert not not_additive("ALTER TABLE rooms ADD COLUMN x int NOT NULL DEFAULT 0;")
    assert not_additive("ALTER TABLE rooms ADD COLUMN x int NOT NULL;")
    assert not_additive("ALTER TABLE rooms DROP COLUMN x;")
    assert not_additive("ALTER TABLE rooms RENAME COLUMN x TO y;")
    assert not_additive("ALTER TABLE rooms ALTER COLUMN x SET NOT NULL;")
    assert not_additive("DROP INDEX i;")


@pytest.fixture(scope="module")
def upgrade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upgrade]:
    folder = tmp_path_factory.mktemp("upgrade")
    with checkout(FROM) as tree:
        compiled = subprocess.Popen(  # as `make test` does: the processes start compiled
            [sys.executable, "-m", "compileall", "-q", "services", "infra", "games", "contracts"],
            cwd=tree,
            stdout=subprocess.DEVNULL,
        )
        pg, rd = PrivatePostgres(), PrivateRedis()
        pg.start()
        rd.start()
        env = {
            "DATABASE_URL": pg.url,
            "REDIS_URL": rd.url,
            "STREAM_PREFIX": "",
            "TURNPOST_SECRET": secrets.token_urlsafe(48),  # this stack's own, both releases'
            "LOG_LEVEL": "WARNING",
            "METRICS_PORT": "0",
            "RELAY_LOCK_TIMEOUT_S": "3",  # a standby asks every second
            "BOT_RESEND_AFTER_S": "3",
            "TIMEOUT_RESEND_AFTER_S": "2",
            "RATE_LIMIT_REGISTER": "10000/minute",
            "RATE_LIMIT_ACTION": "10000/minute",
            "RATE_LIMIT_WRITE": "10000/minute",
            "RATE_LIMIT_READ": "10000/minute",
        }
        old = Release(tree, "old", env, folder / "old.log")
        new = Release(ROOT, "new", env, folder / "new.log")
        u = Upgrade(old, new, pg, rd)
        try:
            compiled.wait(120)
            yield u
        finally:
            for release in (new, old):
                with contextlib.suppress(Exception):
                    release.stop_all()
            u.redis.close()
            rd.stop()
            pg.stop()


def test_games_begun_before_a_rolling_upgrade_finish_under_the_new_release(
    upgrade: Upgrade,
) -> None:
    u, old, new, router = upgrade, upgrade.old, upgrade.new, upgrade.router

    # the migrations this release adds only add: the old release keeps working beside them
    added = added_migrations(FROM)
    breaking = {name: bad for name, sql in added.items() if (bad := not_additive(sql))}
    assert not breaking, f"not expand-then-contract, the old release may break: {breaking}"

    # 1. the old release, from its worktree: its migrations (and none of this checkout's:
    # `python -m` there imports the worktree's packages, not the editable install's)
    old.migrate()
    applied = {r["name"] for r in u.sql("SELECT name FROM schema_migrations")}
    assert applied and not applied & set(added), applied
    # a group that never reads: nothing is trimmed from the games stream before it is
    # counted, nor from the commands stream before the bots' moves are read off it
    for name in (GAMES, COMMANDS):
        u.redis.xgroup_create(name, "audit", id="0", mkstream=True)
    ports = {name: u.start(old, name) for name in OLD_ONLY}
    for name in OLD_ONLY:
        assert old.runs_here(name), name
    router.route("lobby", [ports["lobby"]])
    router.route("game", [ports["game"]])
    u.step("old release up")
    u.begin()
    first = next(iter(u.rooms))
    with u.router.client() as http:  # the old game service's view has no rules_version
        seen = http.get(f"{GAME}/v1/games/{first}", headers=_bearer(u.people[0].token))
    if "rules_version" not in (old.root / "contracts" / "game.py").read_text():
        assert "rules_version" not in seen.json(), "the old release's view is today's"
    u.play(3, {CLOCKED: 1})  # a timeout fired by the old scheduler
    u.step("played on the old release")

    # 2. this release's migrations, the old release running and played meanwhile
    migrating = threading.Thread(target=new.migrate)
    migrating.start()
    u.play(1)
    migrating.join(60)
    applied = {r["name"] for r in u.sql("SELECT name FROM schema_migrations")}
    assert set(added) <= applied
    u.play(2)
    u.lobby_round()
    u.step(f"new migrations ({', '.join(added) or 'none'}), old release playing on")

    # 3. a new game service beside the old one, requests alternating, then the old one out
    g2 = u.start(new, "game")
    assert new.runs_here("game")
    router.route("game", [ports["game"], g2])
    before = router.served.copy()
    u.play(4)
    both = {p: router.served[p] - before[p] for p in (ports["game"], g2)}
    assert all(n >= 5 for n in both.values()), f"requests per replica while side by side: {both}"
    with httpx.Client(timeout=10) as http:  # the new one is today's: it says the version
        view = http.get(
            f"http://127.0.0.1:{g2}/v1/games/{first}", headers=_bearer(u.people[0].token)
        )
    assert view.json()["rules_version"] == 1
    # a long-poll and a stream on the old replica as it stops: cut, asked again on the new one
    follower, followed = u.follow_probe(ports["game"])
    time.sleep(1)  # both are waiting on the old replica
    router.route("game", [g2])
    stopping = time.monotonic()
    old.stop("game")
    stopped_in = time.monotonic() - stopping
    u.move_probe()
    follower.join(60)
    assert followed.get("long-poll") == followed.get("stream") == followed["after"] + 1, followed
    u.step(
        f"game service replaced (side by side: {both} requests; stopped in {stopped_in:.1f} s,"
        f" a long-poll on it saw {followed['long-poll failures'] or 'nothing'})"
    )
    u.play(1)

    holder = _relay_holder(u)
    for name in IN_TURN:
        u.start(new, name)
        assert new.runs_here(name)
        u.play(1)  # old and new side by side
        stopped = datetime.now(UTC)
        old.stop(name)
        if name == "relay":
            wait_for(lambda: _relay_holder(u) not in (None, holder), "the new relay to take over")
        u.play(1, {CLOCKED: 1} if name == "scheduler" else {})
        if name == "scheduler":
            fired = u.sql(
                "SELECT count(*) AS n FROM events WHERE type = 'timed_out' AND recorded_at > $1",
                stopped,
            )[0]["n"]
            assert fired >= 1, "no timeout fired by the new scheduler"
        u.step(f"{name} replaced")

    l2 = u.start(new, "lobby")
    router.route("lobby", [ports["lobby"], l2])
    u.lobby_round()
    u.lobby_round()
    u.play(1)
    router.route("lobby", [l2])
    old.stop("lobby")
    assert not old.running
    u.lobby_round()
    u.step("lobby replaced: the new release alone")

    # a replica of this release stopping, as the next upgrade will stop it: a long-poll held
    # on it is answered 503 with Retry-After (the client asks again, at the other replica),
    # a stream is ended (the client resumes it there); nothing else is seen
    g3 = u.start(new, "game", "game-2")
    router.route("game", [g2, g3])
    u.play(1)
    follower, followed = u.follow_probe(g2)
    time.sleep(1)
    router.route("game", [g3])
    before_stop = router.seen.copy()
    new.stop("game")
    u.move_probe()
    follower.join(60)
    assert followed.get("long-poll") == followed.get("stream") == followed["after"] + 1, followed
    assert not followed["long-poll failures"], followed
    assert set(router.seen - before_stop) == {f"503 from :{g2}"}, router.seen - before_stop
    u.step("a new game replica stopped: a long-poll on it was answered 503, asked again")

    # 4. every game to its end on the new release
    for p in u.people:
        p.grant(free=True)
    for p in u.people:
        p.join(120)
        if p.failed:
            raise AssertionError(f"{p.name} failed") from p.failed
        assert p.finished, f"{p.name} did not finish"
    # a listed move is refused only while both releases serve: never once only the new one does
    late = {k: n for k, n in (router.seen - before_stop).items() if k.startswith("422")}
    assert not late, late
    u.step("every game finished")

    time.sleep(1)  # the last events through the relay
    stream: dict[str, list[int]] = {}
    entries: Any = u.redis.xrange(GAMES)
    for _, fields in entries:  # the versions each envelope tells of: the old release's one
        e = msgspec.json.decode(fields[b"m"], type=GameEvent)  # event, the new one's command
        stream.setdefault(e.game_id, []).extend(range(e.first_version or e.version, e.version + 1))
    finals = _check_logs(u, stream)
    timeouts = u.sql("SELECT count(*) AS n FROM events WHERE type = 'timed_out'")[0]["n"]
    dead = sum(int(u.redis.xlen(k)) for k in u.redis.scan_iter(match="*:dead"))
    assert dead == 0, f"{dead} dead letters"
    with u.router.client() as http:  # the new lobby saw every game finish
        host = Client(LOBBY, GAME, u.host_token, http=http)
        wait_for(lambda: host.get_room(u.rooms[first]).status == "finished", "the room to finish")
    print(
        f"\nupgrade from {FROM}: {time.monotonic() - u.began:.0f} s; steps (s): "
        + "; ".join(f"{what} {at:.1f}" for what, at in u.steps)
        + f"\ngames: {finals}; timeouts {timeouts}; moves by people "
        + str({p.key: (p.made, p.skipped) for p in u.people})
        + f"; clients saw: {dict(router.seen) or 'nothing but answers'}"
    )


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _relay_holder(u: Upgrade) -> int | None:
    rows = u.sql(
        """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
           AND classid = 0 AND objid = $1 AND objsubid = 1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())""",
        RELAY_LOCK,
    )
    return int(rows[0]["pid"]) if rows else None


def _check_logs(u: Upgrade, stream: dict[str, list[int]]) -> dict[str, int]:
    """Each game: contiguous versions, unique event ids, each event told once on the games
    stream (in its own envelope, or in its command's), its log replayed to the outcome the view shows under rules version 1."""

    async def stored() -> list[tuple[Any, list[Any]]]:
        pool = await asyncpg.create_pool(u.pg.url, min_size=1, max_size=2)
        try:
            games, events = PostgresGamesRepository(pool), PostgresEventStore(pool)
            found = []
            for game_id in u.rooms:
                record = await games.get(game_id)
                found.append((record, await events.read(stream_id(game_id))))
            return found
        finally:
            await pool.close()

    sent: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # the bots' moves, by game
    key = from_env({"TURNPOST_SECRET": u.old.env["TURNPOST_SECRET"]}).command_key()
    entries: Any = u.redis.xrange(COMMANDS)
    for _, fields in entries:
        command = json.loads(verify(key, fields[b"m"]))
        if command.get("kind") == "submit_action":
            sent.setdefault(command["game_id"], []).append((command["seat"], command["action"]))
    finals: dict[str, int] = {}
    for (record, events), p in zip(asyncio.run(stored()), u.people, strict=True):
        assert record is not None
        versions = [e.version for e in events]
        assert versions == list(range(1, len(events) + 1)), (
            f"{record.game}: versions not contiguous"
        )
        assert len({e.event_id for e in events}) == len(events), f"{record.game}: an event twice"
        assert stream.get(record.id) == versions, f"{record.game}: the games stream differs"
        with u.router.client() as http:
            view = Client(LOBBY, GAME, p.token, http=http).get_game(record.id)
        assert view.status == "finished" and view.version == versions[-1]
        assert view.rules_version == 1, f"{record.game} began before the upgrade"
        header, lines = game_record(record, events, p.sent + sent.get(record.id, []), "upgrade")
        replayed = replay(header, lines)  # every command decided again, as it was
        assert replayed.outcome == msgspec.to_builtins(view.outcome), (
            f"{record.game} {record.id}: the outcome replayed {replayed.outcome}, shown "
            f"{view.outcome}"
        )
        finals[record.game] = len(events)
    return finals
