"""The reference web client (`clients/web`): its static files at /play/, and the one thing
the page cannot know by itself, where the game service is (/play/config.json).

Plain files, no build: the lobby serves them as they are in the checkout (or the image).
Like /metrics they are not part of the API: out of the OpenAPI document and of the rate
limits (infra/ratelimit.py). Revalidated on every load (ETag), so an edit shows at once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

from infra.settings import Settings, from_env

WEB_ROOT = Path(os.environ.get("WEB_CLIENT_DIR") or Path(__file__).parents[2] / "clients" / "web")


@get("/play/config.json", include_in_schema=False, sync_to_thread=False)
def web_config(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Where the page finds the services: the lobby is the page's own origin; the game
    service is WEB_GAME_URL, or the page's origin too when that is empty (a gateway)."""
    settings: Settings = request.app.state.settings or from_env()
    return {"lobby_url": "", "game_url": settings.web_game_url.rstrip("/")}


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
    )
    return [web_config, files]
