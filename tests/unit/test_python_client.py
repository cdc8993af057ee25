"""The Python client's parts that need no server: the example's size, SSE framing, problems,
Retry-After and the retry policy (the rest runs against real services in
tests/integration/test_python_client.py and tests/e2e/test_example_bot.py)."""

from __future__ import annotations

import ast
import email.utils
import fnmatch
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from contracts.lobby import NewRoom
from turnpost.client import (
    AsyncClient,
    BadRequest,
    Client,
    Policy,
    RateLimited,
    ServerError,
    StaleQuestion,
    StaleVersion,
    StreamLost,
    Unprocessable,
    routes,
)
from turnpost.client.errors import error_for, retry_after
from turnpost.client.sse import Frame, Frames

BOT = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "bot.py"


def test_the_example_bot_fits_in_30_lines() -> None:
    lines = BOT.read_text().splitlines()
    assert 10 < len(lines) <= 30
    assert any("turnpost.play(" in line for line in lines)


def test_sse_frames_join_data_keep_ids_and_skip_comments() -> None:
    frames = Frames()
    text = (
        ": game g after version 3\n\n"
        'id: 4\nevent: collector_kept\ndata: {"a":\ndata: 1}\n\n'
        ": heartbeat\n\n"
        "data: no id\r\n\r\n"
    )
    got = [f for line in text.split("\n") if (f := frames.line(line)) is not None]
    assert got == [
        Frame(data='{"a":\n1}', event="collector_kept", id="4"),
        Frame(data="no id", event="message", id="4"),  # the last id stays, as EventSource's
    ]


def _answer(status: int, body: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(
        status, content=body, headers={"content-type": "application/problem+json", **headers}
    )


def test_a_problem_becomes_the_exception_of_its_status_and_code() -> None:
    stale = error_for(
        _answer(
            409,
            b'{"type":"t","title":"Conflict","status":409,"code":"stale_version",'
            b'"detail":"the game moved","current_version":14}',
        )
    )
    assert isinstance(stale, StaleVersion) and stale.current_version == 14
    assert (stale.status, stale.code, stale.detail) == (409, "stale_version", "the game moved")
    bad = error_for(
        _answer(400, b'{"type":"t","title":"Bad request","status":400,"code":"malformed_request"}')
    )
    assert isinstance(bad, BadRequest) and bad.code == "malformed_request" and bad.detail is None
    # an answer that is no problem (a proxy's page) still gives a typed error
    proxy = error_for(httpx.Response(502, text="<html>Bad Gateway</html>"))
    assert isinstance(proxy, ServerError) and proxy.status == 502 and proxy.code == "http_error"
    assert "Bad Gateway" in (proxy.detail or "")


def test_retry_after_in_seconds_or_as_a_date() -> None:
    assert retry_after(_answer(429, b"", **{"retry-after": "7"})) == 7.0
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= (retry_after(_answer(429, b"", **{"retry-after": later})) or 0) <= 30
    assert retry_after(_answer(429, b"")) is None
    limited = error_for(
        _answer(
            429,
            b'{"type":"t","title":"Too many requests","status":429,"code":"rate_limited"}',
            **{"retry-after": "2"},
        )
    )
    assert isinstance(limited, RateLimited) and limited.retry_after == 2.0


@pytest.mark.parametrize(
    ("status", "header", "attempt", "idempotent", "wait"),
    [
        (429, "3", 0, False, 3.0),
        (429, None, 0, False, 0.25),  # no Retry-After: a short backoff
        (429, "3", 3, False, None),  # the tries are spent
        (429, "61", 0, False, None),  # longer than max_retry_after: raised at once
        (409, "3", 0, True, None),  # only 429s and 503s wait
        (503, "1", 0, True, 1.0),  # a backing service away, a request sent twice is once
        (503, "1", 0, False, None),  # ... but a room made twice is two rooms
        (503, None, 0, True, None),  # the service did not say when
        (503, "1", 2, True, None),  # the tries are spent
    ],
)
def test_the_policy_waits_only_for_a_429_or_a_safe_503_and_only_so_long(
    status: int, header: str | None, attempt: int, idempotent: bool, wait: float | None
) -> None:
    headers = {"retry-after": header} if header else {}
    assert Policy().wait_for(_answer(status, b"", **headers), attempt, idempotent) == wait


def test_which_calls_are_safe_to_send_twice() -> None:
    assert routes.get_game("g").idempotent and routes.delete_webhook("w").idempotent
    assert routes.post_action("g", {"type": "pass"}, 3, "k").idempotent
    assert routes.resign("g").idempotent and routes.claim("g", 1).idempotent
    assert not routes.create_room(NewRoom(game="itty-bitty", seats=2)).idempotent
    assert not routes.start_room("r", None, True, 0).idempotent


def test_every_post_carries_an_idempotency_key_unless_given() -> None:
    policy = Policy()
    made = policy.headers("tok", "POST", b"{}", None)
    assert made["Idempotency-Key"] and made["authorization"] == "Bearer tok"
    assert made["content-type"] == "application/json"
    given = policy.headers(None, "POST", None, {"Idempotency-Key": "mine"})
    assert given["Idempotency-Key"] == "mine" and "authorization" not in given
    assert "Idempotency-Key" not in policy.headers("tok", "GET", None, None)


class Closing:
    """A service (or a proxy before it) whose every SSE stream closes cleanly at once: an
    opening comment, then the end; with `events` the first stream carries those first, and
    `finished` answers 204 (the game over, nothing left) once they were sent."""

    def __init__(self, events: int = 0, finished: bool = False) -> None:
        self.events, self.finished = events, finished
        self.resumed: list[str | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.resumed.append(request.headers.get("last-event-id"))
        body = b": opened\n\n"
        if len(self.resumed) == 1:
            body += b"".join(
                b'id: %d\nevent: e\ndata: {"version":%d,"type":"e","data":null,"seat":0,'
                b'"recorded_at":"2026-01-05T10:00:00Z","text":"t"}\n\n' % (v, v)
                for v in range(1, self.events + 1)
            )
        elif self.finished:
            return httpx.Response(204)
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


def _failing(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("refused", request=request)


QUICK = Policy(reconnects=2)  # pauses 0.25 and 0.5 s between the three connections


def test_a_stream_closed_cleanly_again_and_again_raises_stream_lost_not_the_end() -> None:
    closing = Closing()
    with Client(
        token="t", policy=QUICK, http=httpx.Client(transport=httpx.MockTransport(closing))
    ) as c:
        with pytest.raises(StreamLost) as lost:
            list(c.stream_my_news())
        assert lost.value.connections == 3 and lost.value.error is None
        assert lost.value.path == "/v1/me/stream" and len(closing.resumed) == 3
        # a game's stream alike: events, then clean closes without the game finishing
        closing = Closing(events=2)
        c._http = httpx.Client(transport=httpx.MockTransport(closing))
        got = []
        with pytest.raises(StreamLost):
            for event in c.stream_game_events("g"):
                got.append(event.version)
        assert got == [1, 2] and closing.resumed == ["0", "2", "2", "2"]


def test_a_stream_that_cannot_connect_raises_stream_lost_with_the_transport_error() -> None:
    http = httpx.Client(transport=httpx.MockTransport(_failing))
    with Client(token="t", policy=QUICK, http=http) as c, pytest.raises(StreamLost) as lost:
        list(c.stream_game_events("g"))
    assert isinstance(lost.value.error, httpx.ConnectError)
    assert lost.value.__cause__ is lost.value.error


def test_a_game_stream_ends_normally_when_the_game_is_finished() -> None:
    closing = Closing(events=3, finished=True)
    http = httpx.Client(transport=httpx.MockTransport(closing))
    with Client(token="t", policy=QUICK, http=http) as c:
        assert [e.version for e in c.stream_game_events("g")] == [1, 2, 3]
    assert closing.resumed == ["0", "3"]


async def test_the_async_streams_raise_stream_lost_alike() -> None:
    closing = Closing()
    http = httpx.AsyncClient(transport=httpx.MockTransport(closing))
    async with AsyncClient(token="t", policy=QUICK, http=http) as c:
        with pytest.raises(StreamLost) as lost:
            _ = [n async for n in c.stream_my_news()]
        assert lost.value.connections == 3 and lost.value.error is None
        c._http = httpx.AsyncClient(transport=httpx.MockTransport(_failing))
        with pytest.raises(StreamLost) as failed:
            _ = [e async for e in c.stream_game_events("g")]
        assert isinstance(failed.value.error, httpx.ConnectError)
        finished = Closing(events=2, finished=True)
        c._http = httpx.AsyncClient(transport=httpx.MockTransport(finished))
        assert [e.version async for e in c.stream_game_events("g")] == [1, 2]
        assert finished.resumed == ["0", "2"]


def test_the_map_is_one_wire_type_the_service_and_the_client_share() -> None:
    from contracts.game import GameMap
    from services.game import maps
    from turnpost import client

    assert maps.GameMap is GameMap and client.GameMap is GameMap
    assert client.routes.get_game_map("g").read(b'{"id":"g","game":"f","map":{}}') == GameMap(
        id="g", game="f", map={}
    )


ROOT = Path(__file__).resolve().parents[2]
SERVERS = ("litestar", "asyncpg", "celery", "redis", "uvicorn", "services", "infra", "games")


def test_the_client_imports_with_nothing_of_the_servers(tmp_path: Path) -> None:
    """What `pip install ./clients/python` gives: turnpost.client and contracts (nothing else
    of the repository on the path; site-packages only for httpx and msgspec)."""
    (tmp_path / "contracts").symlink_to(ROOT / "contracts", target_is_directory=True)
    code = (
        "import sys\n"
        f"sys.path[:0] = [{str(ROOT / 'clients' / 'python')!r}, {str(tmp_path)!r}]\n"
        "import turnpost.client, turnpost.client.sync, turnpost.client.asynchronous\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    loaded = set(ast.literal_eval(done.stdout))
    assert {"turnpost", "contracts", "httpx", "msgspec"} <= loaded
    assert loaded.isdisjoint(SERVERS), loaded & set(SERVERS)


def test_the_client_distribution_holds_the_client_and_contracts_and_needs_httpx_msgspec() -> None:
    meta = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "turnpost-client"
    assert {re.split(r"[<>=\[ ]", d)[0] for d in meta["project"]["dependencies"]} == {
        "httpx",
        "msgspec",
    }
    setup = meta["tool"]["setuptools"]
    here = ROOT / "clients" / "python"
    folders = {p: (here / setup["package-dir"].get(p.split(".")[0], p)) for p in setup["packages"]}
    for package, top in folders.items():
        folder = top.joinpath(*package.split(".")[1:]).resolve()
        assert (folder / "__init__.py").is_file(), package
    # every package of the client's folders is listed (a new subpackage is not left out)
    found = {
        ".".join(p.parent.relative_to(here).parts) for p in (here / "turnpost").rglob("__init__.py")
    }
    assert found | {"contracts"} == set(setup["packages"])
    assert folders["contracts"].resolve() == ROOT / "contracts"


def test_the_image_copies_every_folder_the_root_package_finds_packages_in() -> None:
    """`pip install .` in deploy/Dockerfile passes without a folder of `packages.find`,
    quietly leaving its packages out: each folder (or its packages) must be copied."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    find = meta["tool"]["setuptools"]["packages"]["find"]
    copied = {
        line.split()[1].rstrip("/")
        for line in (ROOT / "deploy" / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ") and "--from" not in line
    }
    for where in find["where"]:
        for top in sorted((ROOT / where).iterdir()):  # find's packages: top-level ones first
            if not (top / "__init__.py").is_file():
                continue
            if not any(fnmatch.fnmatch(top.name, i) for i in find["include"]):
                continue
            path = top.relative_to(ROOT).as_posix()
            assert any(path == c or path.startswith(c + "/") for c in copied), path


class Table:
    """A game service that records what each read said it had seen: the game at `version`,
    and a first move refused (409, the game moved on to `moved_to`) when `refuse_first`."""

    def __init__(
        self,
        version: int,
        moved_to: int,
        refuse_first: bool,
        code: str = "stale_version",
        includes: bool = False,
    ) -> None:
        self.version, self.moved_to, self.refuse = version, moved_to, refuse_first
        self.code = code  # or 422 stale_question: another question than the one answered
        self.includes = includes  # reads `include=legal_actions` (an older release does not)
        self.asked: list[tuple[str, str | None]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.asked.append((path.rsplit("/", 1)[-1], request.url.params.get("min_version")))
        if request.method == "POST":
            if self.refuse and self.code != "stale_version":  # a 422: stale_question, ...
                self.refuse = False
                problem = {"type": "about:blank", "title": "Unprocessable", "status": 422,
                           "code": self.code, "detail": "refused"}  # fmt: skip
                return httpx.Response(422, json=problem)
            if self.refuse:
                self.refuse, self.version = False, self.moved_to
                problem = {"type": "about:blank", "title": "Conflict", "status": 409,
                           "code": "stale_version", "detail": "moved",
                           "current_version": self.moved_to}  # fmt: skip
                return httpx.Response(409, json=problem)
            self.version += 1
            return httpx.Response(200, json={"version": self.version, "events": []})
        legal = {"version": self.version, "seat": 0, "unavailable": [],
                 "actions": [{"type": "pass", "text": "pass"}]}  # fmt: skip
        if path.endswith("/legal-actions"):
            return httpx.Response(200, json=legal)
        view = {"id": "g", "game": "itty-bitty", "version": self.version, "status": "active",
                "seats": [], "to_act": [0], "your_seat": 0, "view": {}, "outcome": None,
                "standings": [], "clock": None}  # fmt: skip
        if self.includes and request.url.params.get("include") == "legal_actions":
            view["legal_actions"] = legal
        return httpx.Response(200, json=view)


def first(view: object, legal: object) -> dict[str, str]:
    return {"type": "pass"}


def test_play_reads_say_what_they_have_seen() -> None:
    """The game read with the caller's `min_version`, the legal actions with the view's
    version, and after a 409 both again with at least the version it named."""
    table = Table(version=5, moved_to=7, refuse_first=True)
    with Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c:
        assert c.play("g", first, min_version=4).version == 8
    assert table.asked == [
        ("g", "4"), ("legal-actions", "5"), ("actions", None),
        ("g", "7"), ("legal-actions", "7"), ("actions", None),
    ]  # fmt: skip
    table = Table(version=5, moved_to=7, refuse_first=False)
    with Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c:
        c.play("g", first)
    assert table.asked[:2] == [("g", None), ("legal-actions", "5")]


def test_play_reads_the_view_and_its_legal_actions_at_once() -> None:
    """Against a service that reads `include=legal_actions`, each attempt is one read and the
    post (against the legal actions' version), a 409's retry too; against an older one (the
    tests above), the legal actions are read apart."""
    table = Table(version=5, moved_to=7, refuse_first=True, includes=True)
    with Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c:
        assert c.play("g", first, min_version=4).version == 8
    assert table.asked == [("g", "4"), ("actions", None), ("g", "7"), ("actions", None)]


def test_play_answers_again_when_the_question_was_another() -> None:
    """A 422 stale_question (answered meanwhile, or read from a replica of another release
    during an upgrade) is read again and decided anew, as a 409 is; a client's other 422s
    are not."""
    table = Table(version=5, moved_to=5, refuse_first=True, code="stale_question")
    with Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c:
        assert c.play("g", first).version == 6
    assert [a for a, _ in table.asked] == ["g", "legal-actions", "actions"] * 2
    # any 422 to a move posted as listed: the listing changed under it (a replica of
    # another release answered, during a rolling upgrade): read again, decide anew
    table = Table(version=5, moved_to=5, refuse_first=True, code="not_in_discard")
    with Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c:
        assert c.play("g", lambda view, legal: legal.actions[0]).version == 6
    assert [a for a, _ in table.asked] == ["g", "legal-actions", "actions"] * 2
    # a move of the caller's own making, refused: the rules said no, raised at once
    table = Table(version=5, moved_to=5, refuse_first=True, code="not_in_discard")
    with (
        Client(token="t", http=httpx.Client(transport=httpx.MockTransport(table))) as c,
        pytest.raises(Unprocessable),
    ):
        c.play("g", first)
    stale = error_for(
        _answer(422, b'{"type":"t","title":"U","status":422,"code":"stale_question"}')
    )
    assert isinstance(stale, StaleQuestion) and isinstance(stale, Unprocessable)
    other = error_for(_answer(422, b'{"type":"t","title":"U","status":422,"code":"not_yours"}'))
    assert type(other) is Unprocessable


async def test_the_async_client_plays_alike() -> None:
    table = Table(version=5, moved_to=7, refuse_first=True)
    http = httpx.AsyncClient(transport=httpx.MockTransport(table))
    async with AsyncClient(token="t", http=http) as c:
        assert (await c.play("g", first, min_version=4)).version == 8
    assert [v for _, v in table.asked] == ["4", "5", None, "7", "7", None]
    table = Table(version=5, moved_to=7, refuse_first=True, includes=True)
    http = httpx.AsyncClient(transport=httpx.MockTransport(table))
    async with AsyncClient(token="t", http=http) as c:
        assert (await c.play("g", first, min_version=4)).version == 8
    assert [a for a, _ in table.asked] == ["g", "actions"] * 2
