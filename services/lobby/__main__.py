"""python -m services.lobby: the lobby on LOBBY_PORT (8010)."""

from infra.servers.process import serve

if __name__ == "__main__":
    serve("services.lobby.app:create_app", lambda s: s.lobby_port)
