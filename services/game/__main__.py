"""python -m services.game: the game service on GAME_PORT (8020)."""

import os

import uvicorn

from infra.logging import configure
from infra.settings import from_env


def main() -> None:
    settings = from_env()
    configure(settings.log_level)
    uvicorn.run(
        "services.game.app:create_app",
        factory=True,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=settings.game_port,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
