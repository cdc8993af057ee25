"""The web client's files at /play/ (services/lobby/web.py): what a client sends there is a
file of the client or a 404 problem, never a 500 and never a file outside the folder."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from infra.http.common import EXCEPTION_HANDLERS
from services.lobby.web import web_routes


@pytest.fixture(scope="module")
def client() -> TestClient[Litestar]:
    app = Litestar(route_handlers=web_routes(), exception_handlers=EXCEPTION_HANDLERS)
    with TestClient(app) as c:
        yield c


@pytest.mark.parametrize("path", ["/play", "/play/", "/play/app.js", "/play/index.html"])
def test_the_clients_files_are_served(client: TestClient[Litestar], path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.content


@pytest.mark.parametrize(
    "path",
    [
        "/play/%00",  # a NUL (the file system refuses it)
        "/play/dom.js%00.png",
        "/play/app.js/x",  # a path below a file
        "/play/" + "a" * 300,  # a name too long for the file system
        "/play/%2e%2e/pyproject.toml",  # outside the folder
        "/play/nothere.js",
    ],
)
def test_a_path_naming_no_file_is_a_404_problem(client: TestClient[Litestar], path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == "not_found"
