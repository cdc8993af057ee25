"""Typed settings, read once from the environment."""

from __future__ import annotations

import os

import msgspec


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str = "postgresql://postgres@127.0.0.1:5432/turnpost"
    redis_url: str = "redis://127.0.0.1:6379/0"
    secret: str = "dev-only-secret-change-me-in-production"
    lobby_url: str = "http://127.0.0.1:8010"
    game_url: str = "http://127.0.0.1:8020"
    lobby_port: int = 8010
    game_port: int = 8020
    stream_prefix: str = ""  # isolates test runs sharing one Redis
    snapshot_every: int = 100
    max_deliveries: int = 5
    log_level: str = "INFO"
    bot_resend_after_s: float = 30.0  # a bot turn waiting this long is sent again (backing off)
    timeout_resend_after_s: float = 5.0  # a sent timeout that did not land is sent again

    stream_key: str = ""  # signs commands on the streams; derived from `secret` when empty

    def command_key(self) -> bytes:
        """The key that signs and checks commands on turnpost:commands."""
        from infra.signing import derive_key

        return self.stream_key.encode() if self.stream_key else derive_key(self.secret)

    def stream(self, name: str) -> str:
        return f"{self.stream_prefix}{name}"


def from_env(env: dict[str, str] | None = None) -> Settings:
    e = os.environ if env is None else env
    defaults = Settings()
    return Settings(
        database_url=e.get("DATABASE_URL", defaults.database_url),
        redis_url=e.get("REDIS_URL", defaults.redis_url),
        secret=e.get("TURNPOST_SECRET", defaults.secret),
        stream_key=e.get("TURNPOST_STREAM_KEY", defaults.stream_key),
        lobby_url=e.get("LOBBY_URL", defaults.lobby_url),
        game_url=e.get("GAME_URL", defaults.game_url),
        lobby_port=int(e.get("LOBBY_PORT", defaults.lobby_port)),
        game_port=int(e.get("GAME_PORT", defaults.game_port)),
        stream_prefix=e.get("STREAM_PREFIX", defaults.stream_prefix),
        snapshot_every=int(e.get("SNAPSHOT_EVERY", defaults.snapshot_every)),
        max_deliveries=int(e.get("MAX_DELIVERIES", defaults.max_deliveries)),
        log_level=e.get("LOG_LEVEL", defaults.log_level),
        bot_resend_after_s=float(e.get("BOT_RESEND_AFTER_S", defaults.bot_resend_after_s)),
        timeout_resend_after_s=float(
            e.get("TIMEOUT_RESEND_AFTER_S", defaults.timeout_resend_after_s)
        ),
    )
