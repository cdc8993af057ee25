"""The reference web client (`clients/web`): its static files at /play/, and the one thing
the page cannot know by itself, where the game service is (/play/config.json).

Plain files, no build: the lobby serves them as they are in the checkout (or the image).
Like /metrics they are not part of the API: out of the OpenAPI document and of the rate
limits (infra/http/ratelimit.py). Revalidated on every load (ETag), so an edit shows at once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

from contracts.problems import ProblemError
from infra.settings import Settings, from_env

WEB_ROOT = Path(os.environ.get("WEB_CLIENT_DIR") or Path(__file__).parents[2] / "clients" / "web")


@get("/play/config.json", include_in_schema=False, sync_to_thread=False)
def web_config(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Where the page finds the services: the lobby is the page's own origin; the game
    service is WEB_GAME_URL, or the page's origin too when that is empty (a gateway)."""
    settings: Settings = request.app.state.settings or from_env()
    return {"lobby_url": "", "game_url": settings.web_game_url.rstrip("/")}


MAX_PATH = 200  # longer than any file of the client's


def _only_files_here(request: Request[Any, Any, Any]) -> None:
    """A path that cannot name one of the client's files is a 404 problem before the static
    router opens anything: a NUL, a name too long for the file system, a path below a file
    or outside the folder (each made it fail with a 500)."""
    wanted = str(request.path_params.get("file_path", "")).lstrip("/")
    if len(wanted) > MAX_PATH or "\x00" in wanted:
        raise ProblemError(404, "not_found", "no such file of the web client")
    target = (WEB_ROOT / wanted).resolve()
    root = WEB_ROOT.resolve()
    if target != root and root not in target.parents:
        raise ProblemError(404, "not_found", "no such file of the web client")
    try:
        ok = target.is_file() or (target / "index.html").is_file()
    except OSError:
        ok = False
    if not ok:
        raise ProblemError(404, "not_found", "no such file of the web client")


def web_routes() -> list[Any]:
    """The client's routes, or none where its files are not here (an image built without)."""
    if not (WEB_ROOT / "index.html").is_file():
        return []
    files: Router = create_static_files_router(
        path="/play",
        directories=[WEB_ROOT],
        html_mode=True,
        name="web_client",
        cache_control=CacheControlHeader(no_cache=True),
        include_in_schema=False,
        before_request=_only_files_here,
    )
    return [web_config, files]
