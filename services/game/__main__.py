"""python -m services.game: the game service on GAME_PORT (8020), GAME_WORKERS processes (1)."""

from infra.servers.process import serve

if __name__ == "__main__":
    serve("services.game.app:create_app", lambda s: s.game_port, lambda s: s.game_workers)
