"""Table chat: words said at a game, kept in its log as `chat_said` table events.

A seated player speaks in the `players` channel, anyone else with a token (a spectator) in
the `spectators` one. A message goes into the game's log like a resignation does
(`table_command`): the feed, the SSE stream and the record carry it beside the game's own
events, in order, and no engine sees it; nothing at the table changes for it (no clock
stops, no bot is asked, nobody is told it is their turn). Chat is open while the game is;
its record keeps it.

What a reader reads of it is theirs to choose (`ChatSettings`, per player): the messages of
the players they muted never reach them, nor, with `hide_spectators`, the spectators'
channel: not in the feed, the stream or `GET …/chat` (left out), nor in the record (there
the message stays, for the log's versions to stay whole, without its author or its words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg
import msgspec

from contracts.game import PLAYER_ID, ChatMessage, ChatSettings, timestamp
from contracts.problems import ProblemError
from games.table import CHAT_SINCE, ChatSaid
from infra.auth.bearer import Principal
from infra.eventstore import StoredEvent
from infra.eventstore.api import command_uuid, random_command_id
from infra.eventstore.postgres import COLUMNS, stored_event
from services.game.commands import fingerprint
from services.game.repository import PostgresGamesRepository, stream_id
from services.game.service import GameService

CHAT = ChatSaid.__struct_config__.tag
_said = msgspec.json.Decoder(ChatSaid)


class ChatView(msgspec.Struct, frozen=True, kw_only=True):
    """What one reader leaves out of the chat."""

    muted: frozenset[str] = frozenset()
    hide_spectators: bool = False

    @property
    def hides_any(self) -> bool:
        return bool(self.muted) or self.hide_spectators

    def hides(self, event: StoredEvent) -> bool:
        if event.type != CHAT or not self.hides_any:
            return False
        said = _said.decode(event.data)
        return said.player_id in self.muted or (
            self.hide_spectators and said.channel == "spectators"
        )

    def visible(self, events: Iterable[StoredEvent]) -> list[StoredEvent]:
        return [e for e in events if not self.hides(e)]

    def redacted(self, events: Sequence[StoredEvent]) -> list[StoredEvent]:
        """For a record: each hidden message kept, its author and words taken out."""
        if not self.hides_any:
            return list(events)
        out = []
        for e in events:
            if self.hides(e):
                said = _said.decode(e.data)
                blank = msgspec.structs.replace(
                    said, player_id="", name="", seat=None, text="", hidden=True
                )
                e = msgspec.structs.replace(e, data=msgspec.json.encode(blank))
            out.append(e)
        return out


def check_text(text: str) -> str:
    if not text.strip():
        raise ProblemError(422, "empty_message", "say something: the message is blank")
    if "\x00" in text:
        raise ProblemError(422, "invalid_text", "a message may not hold a NUL character")
    return text


class ChatPrefs:
    """Players' chat settings: Postgres (`chat_settings`), or memory when embedded."""

    def __init__(self, pool: asyncpg.Pool | None) -> None:
        self.pool = pool
        self._memory: dict[str, ChatSettings] = {}

    @classmethod
    def of(cls, svc: GameService) -> ChatPrefs:
        games = svc.games
        return cls(games.pool if isinstance(games, PostgresGamesRepository) else None)

    async def get(self, player_id: str) -> ChatSettings:
        if self.pool is None:
            return self._memory.get(player_id, ChatSettings())
        row = await self.pool.fetchrow(
            "SELECT muted, hide_spectators FROM chat_settings WHERE player_id = $1", player_id
        )
        if row is None:
            return ChatSettings()
        return ChatSettings(muted=list(row["muted"]), hide_spectators=row["hide_spectators"])

    async def put(self, player_id: str, settings: ChatSettings) -> ChatSettings:
        if player_id in settings.muted:
            raise ProblemError(422, "own_mute", "you cannot mute yourself")
        if bad := next((m for m in settings.muted if not re.fullmatch(PLAYER_ID, m)), None):
            raise ProblemError(422, "invalid_player_id", f"{bad[:70]!r} is no player's id")
        muted = sorted(set(settings.muted))
        settings = ChatSettings(muted=muted, hide_spectators=settings.hide_spectators)
        if self.pool is None:
            self._memory[player_id] = settings
            return settings
        await self.pool.execute(
            """INSERT INTO chat_settings (player_id, muted, hide_spectators) VALUES ($1, $2, $3)
               ON CONFLICT (player_id) DO UPDATE SET muted = EXCLUDED.muted,
                   hide_spectators = EXCLUDED.hide_spectators, updated_at = now()""",
            player_id,
            muted,
            settings.hide_spectators,
        )
        return settings

    async def view(self, player_id: str) -> ChatView:
        settings = await self.get(player_id)
        return ChatView(muted=frozenset(settings.muted), hide_spectators=settings.hide_spectators)


async def say(
    svc: GameService, game_id: str, who: Principal, text: str, key: str | None
) -> ChatMessage:
    """Append one message to the game's log (409 `game_finished` once the game is over).
    With an Idempotency-Key, a retry appends nothing more and answers the same message."""
    record = await svc.record(game_id)
    seat = record.seat_of(who.player_id)
    text = check_text(text)
    setup = await svc.store.read(stream_id(record.id), limit=1)
    if setup and setup[0].metadata.get("table_rules", 1) < CHAT_SINCE:
        raise ProblemError(
            409,
            "chat_unavailable",
            "this game began before table chat: its log stays one every replica can read",
        )
    request = fingerprint(-1 if seat is None else seat, {"type": CHAT, "text": text})
    # as a move's: a retry with its Idempotency-Key is the same command
    command_id = command_uuid("chat", game_id, who.player_id, key) if key else random_command_id()
    if (earlier := await svc.earlier(record, command_id, request)) is not None:
        return message_of(earlier.events[0])

    def decide(_: Any) -> list[Any]:
        return [
            ChatSaid(
                channel="spectators" if seat is None else "players",
                player_id=who.player_id,
                name=(record.names[seat] if seat is not None else None) or who.name or "?",
                seat=seat,
                text=text,
                at=svc.now(),
            )
        ]

    accepted = await svc.table_command(record, command_id, request, seat, decide)
    assert accepted is not None
    return message_of(accepted.events[0])


def message_of(event: StoredEvent) -> ChatMessage:
    said = _said.decode(event.data)
    return ChatMessage(
        version=event.version,
        channel=said.channel,
        player_id=said.player_id,
        name=said.name,
        seat=said.seat,
        text=said.text,
        at=timestamp(said.at),
    )


async def history(
    svc: GameService, game_id: str, after: int, limit: int
) -> tuple[list[StoredEvent], bool]:
    """The game's messages after version `after`, oldest first, at most `limit`; whether
    more follow. Postgres reads the chat events alone; memory filters the log."""
    record = await svc.record(game_id)
    games = svc.games
    if isinstance(games, PostgresGamesRepository):
        rows = await games.pool.fetch(
            f"""SELECT {COLUMNS} FROM events
               WHERE stream_id = $1 AND type = $2 AND version > $3
               ORDER BY version LIMIT $4""",
            stream_id(record.id),
            CHAT,
            after,
            limit + 1,
        )
        found = [stored_event(r) for r in rows]
    else:
        stored = await svc.store.read(stream_id(record.id), after=after)
        found = [e for e in stored if e.type == CHAT][: limit + 1]
    return found[:limit], len(found) > limit
