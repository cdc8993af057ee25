"""Stream consumers of the game service: rooms to games, commands to actions."""

from __future__ import annotations

import logging
import uuid

import msgspec
from opentelemetry.trace import SpanKind

from contracts.problems import ProblemError
from contracts.streams import ClockTimeout, Command, RoomStarted, SubmitAction
from infra.auth import signing
from infra.observability import tracing
from infra.observability.context import bind_carried
from infra.streams import Message
from services.game import seats
from services.game.service import GameService

log = logging.getLogger(__name__)

_room_started = msgspec.json.Decoder(RoomStarted)
_command = msgspec.json.Decoder(Command)


class _GameOf(msgspec.Struct):
    game_id: str


_game_of = msgspec.json.Decoder(_GameOf)
_SIGNED_HEAD = len(signing.PREFIX) + 64 + 1  # "v1.<hex digest>."


def command_game(message: Message) -> str:
    """The game a command is for, its consumer's lane: one game's commands in stream order.

    Read without checking the signature (the handler checks it): a forged command names a
    lane at worst, and is refused in it."""
    return _game_of.decode(message.payload[_SIGNED_HEAD:]).game_id


def on_room_started(service: GameService):  # type: ignore[no-untyped-def]
    async def handle(message: Message) -> None:
        msg = _room_started.decode(message.payload)
        with (
            bind_carried(msg.trace),
            tracing.span("room started", msg.trace, SpanKind.CONSUMER, room_id=msg.room_id),
        ):
            game_id = await service.create_from_room(msg)
            log.info("room %s -> game %s", msg.room_id, game_id, extra={"game_id": game_id})

    return handle


def on_command(service: GameService, key: bytes):  # type: ignore[no-untyped-def]
    """Bots' moves and the scheduler's timeouts, signed with the service key (`key`). A
    rejected command is an answer, not a failure: retrying cannot change it, so it is logged
    and acked; so is a forged one (unsigned or signed with another key), and nothing of it
    is applied."""

    async def handle(message: Message) -> None:
        try:
            body = signing.verify(key, message.payload)
        except signing.BadSignature as exc:
            log.error("command %s on %s refused: %s", message.id, message.stream, exc)
            return
        cmd = _command.decode(body)
        with (
            bind_carried(cmd.trace, game_id=cmd.game_id, command_id=cmd.command_id),
            tracing.span(
                "command",
                cmd.trace,
                SpanKind.CONSUMER,
                game_id=cmd.game_id,
                command_id=cmd.command_id,
            ),
        ):
            await _apply(service, cmd)

    return handle


async def _apply(service: GameService, cmd: Command) -> None:
    """A command's effect: a rejection is logged (retrying cannot change it), never raised."""
    try:
        match cmd:
            case SubmitAction():
                accepted = await service.submit(
                    cmd.game_id,
                    cmd.seat,
                    cmd.action,
                    cmd.expected_version,
                    uuid.UUID(cmd.command_id),
                    by_bot=True,
                )
            case ClockTimeout():
                accepted = await seats.timeout(
                    service, cmd.game_id, cmd.seat, uuid.UUID(cmd.command_id)
                )
    except ProblemError as exc:
        log.warning(
            "command %s on %s rejected: %s %s", cmd.command_id, cmd.game_id, exc.code, exc.detail
        )
        return
    if accepted is not None:
        log.debug("command %s on %s -> v%d", cmd.command_id, cmd.game_id, accepted.version)
