"""Typed settings, read once from the environment."""

from __future__ import annotations

import hashlib
import hmac
import os

import msgspec

from infra.auth.keys import Keyring, keyring_of


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str = "postgresql://postgres@127.0.0.1:5432/turnpost"
    redis_url: str = "redis://127.0.0.1:6379/0"
    # Token signing keys (infra/auth/keys.py): TURNPOST_KEYS "kid:secret,..." (the first signs) or
    # one TURNPOST_SECRET. Outside development mode (TURNPOST_DEV=1) a service refuses to start
    # with none, a published default or one shorter than 32 bytes.
    secret: str = ""
    keys: str = ""
    dev: bool = False
    token_check_ttl_s: float = 5.0  # the game service's cache of revoked tokens (per player)
    lobby_url: str = "http://127.0.0.1:8010"
    game_url: str = "http://127.0.0.1:8020"
    lobby_port: int = 8010
    game_port: int = 8020
    # uvicorn worker processes of the game service on its one port (infra/servers/process.py); each
    # runs its own consumers (their groups share the work) and live-feed readers, and shows
    # its own /metrics (a scrape sees one worker's)
    game_workers: int = 1
    # the move cycle's routes without Litestar's request machinery (infra/http/fastpath.py)
    fast_routes: bool = True
    stream_prefix: str = ""  # isolates test runs sharing one Redis
    snapshot_every: int = 100
    max_deliveries: int = 5
    # commands applied at once by one game service (different games; one game's in order):
    # well under the pool's 20 connections, which the REST handlers share
    command_concurrency: int = 8
    log_level: str = "INFO"
    # json: one object a line with the request, game and command ids (compose, Kubernetes);
    # text: the same lines for people (make run, the default). infra/observability/logging.py
    log_format: str = "text"
    # OpenTelemetry spans (infra/observability/tracing.py): off, otlp (OTEL_EXPORTER_OTLP_* say where) or
    # console
    tracing: str = "off"
    # Prometheus metrics of a worker process (relay, bots' worker) on this port; 0: none.
    # The HTTP services show theirs on GET /metrics instead (infra/observability/metrics.py).
    metrics_port: int = 0
    bot_resend_after_s: float = 30.0  # a bot turn waiting this long is sent again (backing off)
    # The search levels' seconds a move (services/bots/levels.py): `mcts` always; `expert` a
    # twentieth of the room's time per move, within min and max (no clock: min). The CPU a
    # move may cost a search worker's process is at most these.
    bot_mcts_s: float = 2.0
    bot_expert_min_s: float = 4.0
    bot_expert_max_s: float = 20.0
    timeout_resend_after_s: float = 5.0  # a sent timeout that did not land is sent again
    # Webhooks (services/notifier, issue 11). Endpoints on loopback, private, link-local or
    # metadata addresses, and plain http, are refused unless allowed (development, tests).
    webhook_allow_private: bool = False
    webhook_allow_http: bool = False
    webhook_max_per_player: int = 20
    webhook_connect_timeout_s: float = 3.0
    webhook_read_timeout_s: float = 5.0
    webhook_backoff_base_s: float = 5.0  # the n-th retry waits base * 2**(n-1), less jitter
    webhook_backoff_max_s: float = 300.0  # under the broker's visibility timeout (600 s)
    webhook_retry_for_s: float = 86_400.0  # a delivery is given up this long after its news
    webhook_disable_after_s: float = 86_400.0  # an endpoint failing this long is disabled
    webhook_retention_s: float = 7 * 86_400.0  # finished deliveries listed this long
    deadline_soon_s: float = 3_600.0  # deadline_soon this long before a deadline
    # The open rooms (not started, not cancelled) a player may sit in at once, hosting or not:
    # one more create or join is 409 too_many_open_rooms (services/lobby/rooms.py).
    max_open_rooms_per_player: int = 20
    # Guards (infra/http/ratelimit.py, infra/http/guards.py). A limit is "N/second|minute|hour|day" or "off".
    rate_limit_register: str = "20/hour"  # POST /v1/players, per client address
    rate_limit_action: str = "120/minute"  # moves, resign, claim: per player
    rate_limit_chat: str = "10/minute"  # table chat messages: per player
    rate_limit_write: str = "60/minute"  # other POSTs: per player (per address without a token)
    rate_limit_read: str = "600/minute"  # GETs: per player (per address without a token)
    trusted_proxies: str = ""  # addresses/CIDRs, comma-separated, whose X-Forwarded-For is believed
    max_body_bytes: int = 65_536
    max_json_depth: int = 32
    # The HTTP wire (infra/http/wire.py), per process: a request head (request line and headers)
    # over this many bytes is answered 431; a head not whole this long after its first byte
    # (or after the connection opened) is answered 408 and closed, as is a body that has not
    # arrived whole this long after its head; past this many open connections a new one is
    # answered 503 and closed (every live feed holds one).
    max_head_bytes: int = 16_384
    head_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    max_connections: int = 4_096
    # Live feeds (services/game/sse.py): a comment after this many idle seconds keeps proxies
    # and clients from taking a quiet stream for a dead one; a game's one reader per process
    # also reads the store this often without a wake-up (Redis may lose a message).
    sse_heartbeat_s: float = 15.0
    # Browsers (infra/http/common.py, cors): the origins whose pages may call the services,
    # comma-separated ("https://play.example.org,https://*.example.org"), "*" any, empty
    # none. Bearer tokens, no cookies: credentials are never allowed. Preflights are cached
    # by the browser this long.
    cors_allow_origins: str = "*"
    cors_max_age_s: int = 86_400
    # The reference web client (clients/web, served by the lobby at /play/): the game
    # service's base URL as a browser reaches it; empty: the page's own origin (a gateway
    # serving both, as compose and the Ingress do). `make run` sets its own port.
    web_game_url: str = ""

    # Connection budgets (infra/servers/db.py; docs/operations.md "Scale-out and connection budgets"). Postgres: the HTTP services'
    # pool (other processes keep small fixed ones), how long a query may wait for a
    # connection and run, and when the server gives up on a client gone silent (TCP
    # keepalives, unacknowledged data); Redis: socket timeouts above the blocking reads (a
    # few seconds), keepalives and a PING before a connection idle this long is reused.
    db_pool_min: int = 2
    db_pool_max: int = 20
    # the game service's appends in one statement at a time, together what came meanwhile
    # (infra/eventstore/batches.py); 0: each its own statement
    append_lanes: int = 1
    db_connect_timeout_s: float = 5.0
    db_acquire_timeout_s: float = 10.0
    db_command_timeout_s: float = 30.0
    db_tcp_user_timeout_s: float = 15.0
    keepalive_idle_s: int = 10  # a silent peer is probed after this long,
    keepalive_interval_s: int = 5  # then every this long,
    keepalive_count: int = 3  # and given up after this many unanswered probes
    redis_socket_timeout_s: float = 30.0
    redis_connect_timeout_s: float = 5.0
    redis_health_check_s: float = 15.0
    # The relay's lock (services/game/relay.py) goes with its Postgres session: a relay
    # whose session stays idle this long (frozen, cut off) loses both, and a standby takes
    # over. The active relay queries at least every poll (0.5 s).
    relay_lock_timeout_s: float = 5.0
    # The relay reads the outbox this often while nothing is new (at once again after a
    # batch): an event reaches the games stream within it. No notification per append
    # (migration 010; docs/operations.md "Scale-out and connection budgets").
    relay_poll_s: float = 0.05
    # After a batch the relay lets the next commands gather before it reads again: a quarter
    # of this after a batch of one command, all of it after four or more. Busy, it
    # reads and publishes several commands in one round trip each (it was a read, a script
    # and a checkpoint per doorbell ring: a tenth of a ms of CPU a move); quiet, a command
    # waits 2.5 ms more to reach the streams.
    relay_linger_s: float = 0.01
    # After a short batch the dispatcher lets the next one gather this long if the batch
    # held the bots of two games or more, a quarter of it otherwise (services/bots/
    # dispatcher.py, _weight): a few ms of a bot's reply buy reads of several commands'
    # events at once (its CPU goes mostly to two round trips to Redis a read) and bigger
    # tasks (Celery's cost and a worker's round trips paid once for several turns).
    dispatch_linger_s: float = 0.02
    # The same for the games stream's readers off a move's path, the lobby (rooms started
    # and finished) and the notifier (webhooks): a little later, in fewer round trips.
    follow_linger_s: float = 0.05
    # The game services' tail of the games stream (a move made through another replica to
    # this one's long-polls and live feeds, players' news), likewise: a quarter of it after
    # one entry. Its own moves wake its readers at once, without the stream.
    tail_linger_s: float = 0.01

    stream_key: str = ""  # signs commands on the streams; derived from the signing key when empty

    def command_key(self) -> bytes:
        """The key that signs and checks commands on turnpost:commands."""
        from infra.auth.signing import derive_key

        if self.stream_key:
            return self.stream_key.encode()
        return derive_key(self.keyring().signing.secret)

    def bot_draws_key(self) -> bytes:
        """The key that seeds a bot's random draws from its turn's public command id
        (services/bots/turns.py `draws`), never the one that signs commands."""
        return hmac.new(self.command_key(), b"turnpost:bot-draws", hashlib.sha256).digest()

    def keyring(self) -> Keyring:
        """The token keys; BadKeys if they cannot be read (infra.auth.keys.check_secrets at start)."""
        return keyring_of(self.keys, self.secret)

    def stream(self, name: str) -> str:
        return f"{self.stream_prefix}{name}"


def _flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def from_env(env: dict[str, str] | None = None) -> Settings:
    e = os.environ if env is None else env
    defaults = Settings()
    return Settings(
        database_url=e.get("DATABASE_URL", defaults.database_url),
        redis_url=e.get("REDIS_URL", defaults.redis_url),
        secret=e.get("TURNPOST_SECRET", defaults.secret),
        keys=e.get("TURNPOST_KEYS", defaults.keys),
        dev=e.get("TURNPOST_DEV", "").strip().lower() in ("1", "true", "yes", "on"),
        token_check_ttl_s=float(e.get("TOKEN_CHECK_TTL_S", defaults.token_check_ttl_s)),
        stream_key=e.get("TURNPOST_STREAM_KEY", defaults.stream_key),
        lobby_url=e.get("LOBBY_URL", defaults.lobby_url),
        game_url=e.get("GAME_URL", defaults.game_url),
        lobby_port=int(e.get("LOBBY_PORT", defaults.lobby_port)),
        game_port=int(e.get("GAME_PORT", defaults.game_port)),
        game_workers=int(e.get("GAME_WORKERS", defaults.game_workers)),
        stream_prefix=e.get("STREAM_PREFIX", defaults.stream_prefix),
        snapshot_every=int(e.get("SNAPSHOT_EVERY", defaults.snapshot_every)),
        max_deliveries=int(e.get("MAX_DELIVERIES", defaults.max_deliveries)),
        command_concurrency=int(e.get("COMMAND_CONCURRENCY", defaults.command_concurrency)),
        log_level=e.get("LOG_LEVEL", defaults.log_level),
        log_format=e.get("LOG_FORMAT", defaults.log_format),
        tracing=e.get("TRACING", defaults.tracing),
        metrics_port=int(e.get("METRICS_PORT", defaults.metrics_port)),
        bot_resend_after_s=float(e.get("BOT_RESEND_AFTER_S", defaults.bot_resend_after_s)),
        bot_mcts_s=float(e.get("BOT_MCTS_S", defaults.bot_mcts_s)),
        bot_expert_min_s=float(e.get("BOT_EXPERT_MIN_S", defaults.bot_expert_min_s)),
        bot_expert_max_s=float(e.get("BOT_EXPERT_MAX_S", defaults.bot_expert_max_s)),
        timeout_resend_after_s=float(
            e.get("TIMEOUT_RESEND_AFTER_S", defaults.timeout_resend_after_s)
        ),
        webhook_allow_private=_flag(e.get("WEBHOOK_ALLOW_PRIVATE", "")),
        webhook_allow_http=_flag(e.get("WEBHOOK_ALLOW_HTTP", "")),
        webhook_max_per_player=int(
            e.get("WEBHOOK_MAX_PER_PLAYER", defaults.webhook_max_per_player)
        ),
        webhook_connect_timeout_s=float(
            e.get("WEBHOOK_CONNECT_TIMEOUT_S", defaults.webhook_connect_timeout_s)
        ),
        webhook_read_timeout_s=float(
            e.get("WEBHOOK_READ_TIMEOUT_S", defaults.webhook_read_timeout_s)
        ),
        webhook_backoff_base_s=float(
            e.get("WEBHOOK_BACKOFF_BASE_S", defaults.webhook_backoff_base_s)
        ),
        webhook_backoff_max_s=float(e.get("WEBHOOK_BACKOFF_MAX_S", defaults.webhook_backoff_max_s)),
        webhook_retry_for_s=float(e.get("WEBHOOK_RETRY_FOR_S", defaults.webhook_retry_for_s)),
        webhook_disable_after_s=float(
            e.get("WEBHOOK_DISABLE_AFTER_S", defaults.webhook_disable_after_s)
        ),
        webhook_retention_s=float(e.get("WEBHOOK_RETENTION_S", defaults.webhook_retention_s)),
        deadline_soon_s=float(e.get("DEADLINE_SOON_S", defaults.deadline_soon_s)),
        max_open_rooms_per_player=int(
            e.get("MAX_OPEN_ROOMS_PER_PLAYER", defaults.max_open_rooms_per_player)
        ),
        rate_limit_register=e.get("RATE_LIMIT_REGISTER", defaults.rate_limit_register),
        rate_limit_action=e.get("RATE_LIMIT_ACTION", defaults.rate_limit_action),
        rate_limit_chat=e.get("RATE_LIMIT_CHAT", defaults.rate_limit_chat),
        rate_limit_write=e.get("RATE_LIMIT_WRITE", defaults.rate_limit_write),
        rate_limit_read=e.get("RATE_LIMIT_READ", defaults.rate_limit_read),
        trusted_proxies=e.get("TRUSTED_PROXIES", defaults.trusted_proxies),
        fast_routes=_flag(e.get("FAST_ROUTES", "1")),
        max_body_bytes=int(e.get("MAX_BODY_BYTES", defaults.max_body_bytes)),
        max_json_depth=int(e.get("MAX_JSON_DEPTH", defaults.max_json_depth)),
        max_head_bytes=int(e.get("MAX_HEAD_BYTES", defaults.max_head_bytes)),
        head_timeout_s=float(e.get("HEAD_TIMEOUT_S", defaults.head_timeout_s)),
        body_timeout_s=float(e.get("BODY_TIMEOUT_S", defaults.body_timeout_s)),
        max_connections=int(e.get("MAX_CONNECTIONS", defaults.max_connections)),
        sse_heartbeat_s=float(e.get("SSE_HEARTBEAT_S", defaults.sse_heartbeat_s)),
        cors_allow_origins=e.get("CORS_ALLOW_ORIGINS", defaults.cors_allow_origins),
        cors_max_age_s=int(e.get("CORS_MAX_AGE_S", defaults.cors_max_age_s)),
        web_game_url=e.get("WEB_GAME_URL", defaults.web_game_url),
        db_pool_min=int(e.get("DB_POOL_MIN", defaults.db_pool_min)),
        db_pool_max=int(e.get("DB_POOL_MAX", defaults.db_pool_max)),
        append_lanes=int(e.get("APPEND_LANES", defaults.append_lanes)),
        db_connect_timeout_s=float(e.get("DB_CONNECT_TIMEOUT_S", defaults.db_connect_timeout_s)),
        db_acquire_timeout_s=float(e.get("DB_ACQUIRE_TIMEOUT_S", defaults.db_acquire_timeout_s)),
        db_command_timeout_s=float(e.get("DB_COMMAND_TIMEOUT_S", defaults.db_command_timeout_s)),
        db_tcp_user_timeout_s=float(e.get("DB_TCP_USER_TIMEOUT_S", defaults.db_tcp_user_timeout_s)),
        keepalive_idle_s=int(e.get("KEEPALIVE_IDLE_S", defaults.keepalive_idle_s)),
        keepalive_interval_s=int(e.get("KEEPALIVE_INTERVAL_S", defaults.keepalive_interval_s)),
        keepalive_count=int(e.get("KEEPALIVE_COUNT", defaults.keepalive_count)),
        redis_socket_timeout_s=float(
            e.get("REDIS_SOCKET_TIMEOUT_S", defaults.redis_socket_timeout_s)
        ),
        redis_connect_timeout_s=float(
            e.get("REDIS_CONNECT_TIMEOUT_S", defaults.redis_connect_timeout_s)
        ),
        redis_health_check_s=float(e.get("REDIS_HEALTH_CHECK_S", defaults.redis_health_check_s)),
        relay_lock_timeout_s=float(e.get("RELAY_LOCK_TIMEOUT_S", defaults.relay_lock_timeout_s)),
        relay_poll_s=float(e.get("RELAY_POLL_S", defaults.relay_poll_s)),
        relay_linger_s=float(e.get("RELAY_LINGER_S", defaults.relay_linger_s)),
        dispatch_linger_s=float(e.get("DISPATCH_LINGER_S", defaults.dispatch_linger_s)),
        follow_linger_s=float(e.get("FOLLOW_LINGER_S", defaults.follow_linger_s)),
        tail_linger_s=float(e.get("TAIL_LINGER_S", defaults.tail_linger_s)),
    )
