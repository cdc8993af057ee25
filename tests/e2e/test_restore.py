"""Backup and restore, shown (docs/operations-backup.md): a point-in-time restore of the
database, and the games go on from it.

A private Postgres cluster archives its WAL into a folder (archive_command: cp), beside a
private Redis and the stack's processes, started one by one. Ada plays itty bitty against
a random bot through the Python client (her webhook receiver and her /v1/me/stream take
her news); Bo plays Itchy Feet against a greedy bot on a clock. A base backup is taken with
pg_basebackup while all of it runs; play goes on; a named restore point is made with the
game awaiting Ada; play goes on, the moves the restore will lose. Meanwhile the notifier
and the bots' worker die (SIGKILL), so that the games stream holds envelopes of lost moves
the notifier never read and the bots' queue a turn of a lost version, as a crash leaves
them. Then the stack and the old server stop, the base backup is restored into a new
cluster (a folder and port of its own) that replays the archived WAL up to the restore
point and is promoted, and the stack starts on it with the same Redis, untouched: the case
where only the database is restored.

Shown: every move before the restore point is there (those after the base backup from the
archived WAL) and none after; a client holding a lost version is told (400
min_version_beyond_version, 409 stale_version, 400 after_beyond_version) and moves at the
restored one; Ada's game is played again to the very versions it had (the same choices,
the same draws); Bo's deadline, passed while the service was down, fires and bots finish
his game; each game's versions are contiguous, its event ids unique; the relay publishes
what the restored database holds from its restored checkpoint on, each event once, in
order; no trigger of a lost version is dead-lettered; and news is told once per event:
each event's news reaches the webhook receiver and the news stream once as new (a repeated
webhook-id or news is the same news again, as a receiver deduplicating by it takes it),
including the news at versions the lost moves had reached, and none of a lost move.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import itertools
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis
from standardwebhooks import Webhook

from contracts.lobby import Timing
from contracts.streams import GAMES, GameEvent
from infra.servers.embedded import EmbeddedPostgres
from infra.tasks import FAST_QUEUE
from tests.e2e.conftest import wait_for
from tests.e2e.servers import PrivatePostgres, PrivateRedis, Processes, _wait_port, free_port
from turnpost.client import BadRequest, Client, Policy, StaleVersion, my_turn

pytestmark = pytest.mark.e2e

RESTORE_POINT = "before-the-mistake"
News = tuple[str, str, int, int, str]  # type, game id, seat, version, recorded_at


def first(view: Any, legal: Any) -> Any:
    """A person's choice: the first legal action, so that a game played again from a version
    makes the same moves (the draws derive from the version too)."""
    return legal.actions[0]


# -- the database's servers ----------------------------------------------------------------


def archiving(archive: Path) -> dict[str, str]:
    """Continuous archiving into `archive`: each finished WAL segment copied there once."""
    return {
        "wal_level": "replica",
        "archive_mode": "on",
        "archive_command": f"test ! -f {archive}/%f && cp %p {archive}/%f",
    }


def as_server_user(pg: EmbeddedPostgres) -> dict[str, Any]:
    """Run a client as the server's own user (as root, the server runs as another)."""
    return {"user": pg.uid, "group": pg.gid} if pg.uid is not None else {}


def basebackup(pg: PrivatePostgres, into: Path) -> None:
    """A base backup of the running cluster, as plain files with the WAL it needs."""
    subprocess.run(
        [str(pg.bin / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", "postgres",
         "-D", str(into), "-Fp", "-X", "stream", "--checkpoint=fast", "--no-sync"],
        check=True, capture_output=True, **as_server_user(pg.server),
    )  # fmt: skip


def archive_all(url: str, seconds: float = 30) -> None:
    """Close the WAL segment in use and wait until the archiver has copied it."""
    [row] = sql(url, "SELECT pg_walfile_name(pg_switch_wal()) AS wal")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        [done] = sql(url, "SELECT last_archived_wal FROM pg_stat_archiver")
        if done["last_archived_wal"] and done["last_archived_wal"] >= row["wal"]:
            return
        time.sleep(0.1)
    raise AssertionError(f"{row['wal']} was not archived in {seconds} s")


def restore(pg: PrivatePostgres, backup: Path, archive: Path, folder: Path) -> EmbeddedPostgres:
    """A new cluster from the base backup that replays the archive up to RESTORE_POINT, is
    promoted (a new timeline) and archives on; started on a port of its own."""
    data = folder / "pgdata"
    subprocess.run(["cp", "-a", str(backup), str(data)], check=True)  # owners kept
    (data / "recovery.signal").touch()
    if pg.server.uid is not None:
        os.chown(data / "recovery.signal", pg.server.uid, pg.server.gid or -1)
    settings = {
        **archiving(archive),
        "restore_command": f"cp {archive}/%f %p",
        "recovery_target_name": RESTORE_POINT,
        "recovery_target_action": "promote",
    }
    server = EmbeddedPostgres(data, free_port(), durable=False, bin=pg.bin, settings=settings)
    server.start()  # ready once promoted
    return server


def sql(url: str, query: str, *args: Any) -> list[asyncpg.Record]:
    async def run() -> list[asyncpg.Record]:
        conn = await asyncpg.connect(url)
        try:
            return list(await conn.fetch(query, *args))
        finally:
            await conn.close()

    return asyncio.run(run())


def versions(url: str) -> dict[str, int]:
    """Each game's version as the database holds it."""
    rows = sql(url, "SELECT stream_id, max(version) AS v FROM events GROUP BY stream_id")
    return {r["stream_id"].removeprefix("game-"): int(r["v"]) for r in rows}


def rfc3339(moment: Any) -> str:
    return msgspec.json.encode(moment).decode()[1:-1].replace("+00:00", "Z")


def news_of_log(url: str, game_id: str, people: Iterable[int]) -> list[News]:
    """The news the game's log holds for its people, as docs/api.md defines it: game_started
    after the set-up, your_turn for a person who must act after a command and did not
    before it, game_finished after the last; each named by its event's version and time."""
    rows = sql(
        url,
        """SELECT version, recorded_at, metadata::text AS m FROM events WHERE stream_id = $1
           AND coalesce((metadata ->> 'batch_end')::boolean, true) ORDER BY version""",
        f"game-{game_id}",
    )
    out: list[News] = []
    before: set[int] | None = None
    for row in rows:
        m, at = json.loads(row["m"]), rfc3339(row["recorded_at"])
        tell = [(kind, seat) for kind in ["game_started"] if before is None for seat in people]
        if m["status"] == "active":
            tell += [
                ("your_turn", seat)
                for seat in m["to_act"]
                if seat in people and str(seat) not in m["bots"] and seat not in (before or ())
            ]
        else:
            tell += [("game_finished", seat) for seat in people]
        out += [(kind, game_id, seat, row["version"], at) for kind, seat in tell]
        before = set(m["to_act"])
    return out


# -- what a person's clients are told ------------------------------------------------------


@dataclass
class Told:
    """One person's webhook deliveries (verified) and /v1/me/stream news, in arrival order."""

    webhooks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (id, data)
    news: list[dict[str, Any]] = field(default_factory=list)
    streams_opened: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cut(self) -> tuple[int, int]:
        with self.lock:
            return len(self.webhooks), len(self.news)

    def new_webhooks(self, since: int) -> list[News]:
        """The deliveries after `since` whose webhook-id had not come before: what a
        receiver that deduplicates by webhook-id takes as news. A repeated id must bring
        the same news."""
        with self.lock:
            seen: dict[str, dict[str, Any]] = {}
            out = []
            for n, (hid, data) in enumerate(self.webhooks):
                if hid in seen:
                    assert seen[hid] == data, f"webhook-id {hid} with other news: {data}"
                    continue
                seen[hid] = data
                if n >= since:
                    out.append(key(data))
            return out

    def new_news(self, since: int) -> list[News]:
        """The stream's news after `since` that had not come before (by what names it)."""
        with self.lock:
            seen = {key(d) for d in self.news[:since]}
            out = []
            for data in self.news[since:]:
                if key(data) not in seen:
                    seen.add(key(data))
                    out.append(key(data))
            return out


def key(data: dict[str, Any]) -> News:
    return data["type"], data["game_id"], data["seat"], data["version"], data["recorded_at"]


def receiver(told: Told, secret: list[str]) -> http.server.ThreadingHTTPServer:
    """A webhook receiver: each delivery verified with the endpoint's secret, then kept."""

    class Receive(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            payload = Webhook(secret[0]).verify(body, dict(self.headers))
            with told.lock:
                told.webhooks.append((self.headers["webhook-id"], payload["data"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Receive)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def read_news(game_url: str, token: str, told: Told, stop: threading.Event) -> None:
    """/v1/me/stream, opened again whenever it closes (the game service restarts)."""
    while not stop.is_set():
        with contextlib.suppress(httpx.HTTPError):
            with httpx.stream(
                "GET",
                f"{game_url}/v1/me/stream",
                headers={"authorization": f"Bearer {token}"},
                timeout=httpx.Timeout(5, read=5),
            ) as response:
                for line in response.iter_lines():
                    if stop.is_set():
                        return
                    if line.startswith(": news of player"):
                        with told.lock:
                            told.streams_opened += 1
                    elif line.startswith("data:"):
                        with told.lock:
                            told.news.append(json.loads(line[5:]))
        time.sleep(0.2)


# -- the stack and its people --------------------------------------------------------------


class Site:
    """The stack on one database, with the shared Redis, on the ports given: after the
    restore the clients find the services where they were."""

    def __init__(self, database_url: str, redis_url: str, log: Path, secret: str, ports: Any):
        self.lobby_port, self.game_port = ports
        self.lobby = f"http://127.0.0.1:{self.lobby_port}"
        self.game = f"http://127.0.0.1:{self.game_port}"
        self.log = log
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "STREAM_PREFIX": "",
            "LOBBY_PORT": str(self.lobby_port),
            "GAME_PORT": str(self.game_port),
            "TURNPOST_SECRET": secret,  # the same keys after the restore: tokens still hold
            "LOG_LEVEL": "WARNING",
            "METRICS_PORT": "0",
            "BOT_RESEND_AFTER_S": "2",
            "TIMEOUT_RESEND_AFTER_S": "2",
            "SSE_HEARTBEAT_S": "1",
            "WEBHOOK_ALLOW_PRIVATE": "1",
            "WEBHOOK_ALLOW_HTTP": "1",
            "RATE_LIMIT_REGISTER": "10000/minute",
            "RATE_LIMIT_ACTION": "10000/minute",
            "RATE_LIMIT_WRITE": "10000/minute",
            "RATE_LIMIT_READ": "10000/minute",
        }
        self.procs = Processes(env, log)

    def start(self, but: tuple[str, ...] = ()) -> None:
        self.procs.migrate()
        for name in self.procs.commands:
            if name not in but:
                self.procs.start(name)
        for port in (self.lobby_port, self.game_port):
            _wait_port(port, 60)

    def stop(self) -> None:
        self.procs.stop_all()


class Person:
    """A person playing one game through the Python client, the first legal action each turn."""

    def __init__(self, site: Site, name: str) -> None:
        self.client = Client(site.lobby, site.game, policy=Policy(timeout=10))
        self.client.register(name)
        self.game_id = ""

    def wait_turn(self, seconds: float = 30) -> int:
        """Wait until this person must act; the version then."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            view = self.client.get_game(self.game_id)
            assert view.status == "active", (self.game_id, view.status)
            if my_turn(view):
                return view.version
            self.client.get_events(self.game_id, view.version, wait=5)
        raise AssertionError(f"{self.game_id}: no turn within {seconds} s")

    def move(self) -> int:
        """Wait for this person's turn and play it; the version the move reached."""
        while True:
            seen = self.wait_turn()
            accepted = self.client.play(self.game_id, first, min_version=seen)
            if accepted is not None:
                return accepted.version

    def play_to_end(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while self.client.get_game(self.game_id).status != "finished":
            assert time.monotonic() < deadline, f"{self.game_id} did not finish"
            view = self.client.get_game(self.game_id)
            if my_turn(view):
                self.client.play(self.game_id, first, min_version=view.version)
            else:
                self.client.get_events(self.game_id, view.version, wait=5)


def caught_up(r: redis.Redis, group: str) -> bool:
    """The group has read the games stream to its end and acked all of it."""
    newest: Any = r.xrevrange(GAMES, count=1)
    groups: Any = r.xinfo_groups(GAMES)
    mine = next(g for g in groups if g["name"].decode() == group)
    return bool(mine["pending"] == 0 and newest and mine["last-delivered-id"] == newest[0][0])


def test_a_point_in_time_restore_keeps_the_moves_before_it_and_the_games_play_on(
    tmp_path: Path,
) -> None:
    old = PrivatePostgres()
    if not (old.bin / "pg_basebackup").exists():
        pytest.skip(f"no pg_basebackup beside {old.bin}")
    archive = old.folder_for_server("archive")
    backups = old.folder_for_server("backups")
    old.server.settings.update(archiving(archive))
    rd = PrivateRedis()
    restored: EmbeddedPostgres | None = None
    restored_folder = Path(tempfile.mkdtemp(prefix="turnpost-pg-restored-"))
    restored_folder.chmod(0o755)
    secret, ports = secrets.token_urlsafe(48), (free_port(), free_port())
    ada_told, bo_told = Told(), Told()
    hook_secret: list[str] = []
    hooks = receiver(ada_told, hook_secret)
    stop_news = threading.Event()
    sites: list[Site] = []
    people: list[Person] = []
    try:
        old.start()
        rd.start()
        site = Site(old.url, rd.url, tmp_path / "stack.log", secret, ports)
        sites.append(site)
        site.start()
        ada, bo = Person(site, "Ada"), Person(site, "Bo")
        people += [ada, bo]
        made = ada.client.create_webhook(
            f"http://127.0.0.1:{hooks.server_address[1]}/hook",
            ["your_turn", "game_started", "game_finished"],
        )
        hook_secret.append(made.secret)
        for person, told in ((ada, ada_told), (bo, bo_told)):
            assert person.client.token is not None
            threading.Thread(
                target=read_news,
                args=(site.game, person.client.token, told, stop_news),
                daemon=True,
            ).start()
        wait_for(lambda: ada_told.streams_opened and bo_told.streams_opened, "the news streams")

        room = ada.client.create_room("itty-bitty", 2)
        ada.client.add_bot(room.id, "random")
        ada.game_id = str(ada.client.start_room(room.id, wait=10).game_id)
        clock = Timing(per_move_s=8, on_timeout="bot_takeover")
        room_b = bo.client.create_room("itchy-feet", 2, options={"events": True}, timing=clock)
        bo.game_id = str(bo.client.start_room(room_b.id, "greedy", wait=10).game_id)
        for _ in range(3):
            ada.move()
            bo.move()

        basebackup(old, backups / "base")  # while everything runs
        at_backup = versions(old.url)
        for _ in range(3):  # kept: replayed from the archived WAL
            ada.move()
            bo.move()
        kept = ada.wait_turn()  # the bot has answered: the game awaits Ada
        around = versions(old.url)
        sql(old.url, "SELECT pg_create_restore_point($1)", RESTORE_POINT)
        after = versions(old.url)
        assert around[ada.game_id] == after[ada.game_id] == kept

        # the moves the restore loses; the notifier and the bots' worker die on the way
        lost = [ada.move()]
        lost_turns = [ada.wait_turn()]
        bo.move()
        wait_for(lambda: caught_up(redis.Redis.from_url(rd.url), "notifier"), "the notifier")
        site.procs.kill("notifier")  # what follows stays unread on the games stream
        lost += [ada.move()]
        lost_turns += [ada.wait_turn()]
        site.procs.kill("worker")  # the bot's next turn stays in its queue
        lost += [ada.move()]
        wait_for(lambda: redis.Redis.from_url(rd.url).llen(FAST_QUEUE), "the bot's turn queued")
        wait_for(lambda: ada_told.cut()[1] and key(ada_told.news[-1])[3] == lost_turns[-1], "news")
        archive_all(old.url)
        site.stop()
        old.server.stop()

        restored = restore(old, backups / "base", archive, restored_folder)
        new_url = restored.url("turnpost")
        now = versions(new_url)
        assert now[ada.game_id] == kept  # every move before the restore point, none after
        assert now[ada.game_id] > at_backup[ada.game_id]  # those after the backup: the WAL's
        assert around[bo.game_id] <= now[bo.game_id] <= after[bo.game_id]
        assert now[bo.game_id] > at_backup[bo.game_id]

        r = redis.Redis.from_url(rd.url)
        newest: Any = r.xrevrange(GAMES, count=1)
        mark = newest[0][0]  # what the relay publishes from now on comes after
        webhooks_cut, ada_news_cut = ada_told.cut()
        _, bo_news_cut = bo_told.cut()
        opened = (ada_told.streams_opened, bo_told.streams_opened)
        site = Site(new_url, rd.url, tmp_path / "stack-restored.log", secret, ports)
        sites.append(site)
        site.start(but=("worker",))  # the bots' worker comes up late: see below
        wait_for(
            lambda: ada_told.streams_opened > opened[0] and bo_told.streams_opened > opened[1],
            "the news streams to open again",
        )
        wait_for(lambda: caught_up(r, "notifier"), "the notifier to read what it left")

        # a client holding a lost version is told, and moves at the restored one
        with pytest.raises(BadRequest) as beyond:
            ada.client.get_game(ada.game_id, min_version=lost[-1])
        assert beyond.value.code == "min_version_beyond_version"
        with pytest.raises(BadRequest) as beyond:
            ada.client.get_events(ada.game_id, lost[-1])
        assert beyond.value.code == "after_beyond_version"
        legal = ada.client.get_legal_actions(ada.game_id)
        assert legal.version == kept and legal.actions
        with pytest.raises(StaleVersion) as stale:
            ada.client.post_action(ada.game_id, legal.actions[0], lost[-1])
        assert stale.value.current_version == kept
        again = [ada.move()]
        assert again == lost[:1]  # the same move, the same version
        # the bot must answer now; its worker finds first the turn the lost move queued
        site.procs.start("worker")
        again += [ada.move() for _ in lost[1:]]
        assert again == lost  # the game played again reaches the versions it had
        ada.play_to_end()
        wait_for(lambda: bo.client.get_game(bo.game_id).status == "finished", "Bo's game", 60)

        finals = versions(new_url)
        for game_id in (ada.game_id, bo.game_id):
            [log] = sql(
                new_url,
                """SELECT count(*) AS n, count(DISTINCT event_id) AS ids, min(version) AS first,
                          count(*) FILTER (WHERE type = 'timed_out' AND version > $2) AS fired
                   FROM events WHERE stream_id = $1""",
                f"game-{game_id}",
                now[game_id],
            )
            assert (log["first"], log["n"], log["ids"]) == (1, finals[game_id], finals[game_id])
            if game_id == bo.game_id:  # his deadline passed while the service was down
                assert log["fired"] == 1
                assert bo.client.get_game(game_id).standings[0].standing == "timed_out"
        for room_id, person in ((room.id, ada), (room_b.id, bo)):
            wait_for(
                lambda rid=room_id, p=person: p.client.get_room(rid).status == "finished",
                "the rooms to finish",
            )

        # the relay published what the restored database holds from its checkpoint on,
        # each command once and in order (one envelope per command, its last event's)
        published: dict[str, list[GameEvent]] = {}
        for _, fields in r.xrange(GAMES, min=f"({mark.decode()}"):
            e = msgspec.json.decode(fields[b"m"], type=GameEvent)
            published.setdefault(e.game_id, []).append(e)
        for game_id, final in finals.items():
            got = [(e.first_version, e.version) for e in published[game_id]]
            assert got[0][0] <= now[game_id] + 1 and got[-1][1] == final, got
            assert all(a[1] + 1 == b[0] <= b[1] for a, b in itertools.pairwise(got)), got
            stored = {
                row["version"]: row["recorded_at"]
                for row in sql(
                    new_url,
                    "SELECT version, recorded_at FROM events WHERE stream_id = $1",
                    f"game-{game_id}",
                )
            }
            assert all(e.recorded_at == stored[e.version] for e in published[game_id])

        # the lost turn left in the bots' queue was dropped, not failed nor dead-lettered
        assert "a trigger of a restored database's lost moves, dropped" in site.log.read_text()
        assert sum(int(r.xlen(k)) for k in r.scan_iter(match="*:dead")) == 0

        # news: each event's once as new, whatever repeats; the lost moves' none
        told_a = [n for n in news_of_log(new_url, ada.game_id, [0]) if n[3] > kept]
        told_b = [n for n in news_of_log(new_url, bo.game_id, [0]) if n[3] > now[bo.game_id]]
        assert told_a[-1][0] == "game_finished" and told_b[-1][0] == "game_finished"
        reused = {n[3] for n in told_a if n[0] == "your_turn"} & set(lost_turns)
        assert reused == set(lost_turns)  # the news of the replay comes at the lost versions
        # a room's game_finished comes once the lobby has recorded and rated it (two hops more
        # than the other news); webhooks are delivered by many threads, in no set order (the
        # end may arrive before a your_turn), so the wait is for all of them; a slow run says
        # what Ada was not told
        try:
            wait_for(lambda: sorted(ada_told.new_webhooks(webhooks_cut)) == sorted(told_a), "", 120)
        except AssertionError:
            missing = set(told_a) - set(ada_told.new_webhooks(webhooks_cut))
            raise AssertionError(f"Ada's webhooks never came: {sorted(missing)}") from None
        wait_for(lambda: ada_told.news and key(ada_told.news[-1])[0] == "game_finished", "news")
        wait_for(lambda: bo_told.news and key(bo_told.news[-1])[0] == "game_finished", "Bo's")
        assert sorted(ada_told.new_webhooks(webhooks_cut)) == sorted(told_a)
        assert sorted(ada_told.new_news(ada_news_cut)) == sorted(told_a)
        assert sorted(bo_told.new_news(bo_news_cut)) == sorted(told_b)
    finally:
        stop_news.set()
        hooks.shutdown()
        for person in people:
            person.client.close()
        for s in reversed(sites):
            s.stop()
        if restored is not None:
            restored.kill()
        shutil.rmtree(restored_folder, ignore_errors=True)
        rd.stop()
        old.stop()
