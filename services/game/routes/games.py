"""A game's routes: the caller's view, its legal actions, a move, resign and claim, and the move
cycle's fast paths past Litestar's request machinery (infra/http/fastpath.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, get, post
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, HeaderParameter, QueryParameter
from litestar.types import ASGIApp, Receive, Scope, Send

from contracts.game import (
    ActionAccepted,
    Claim,
    Clock,
    GameOutcome,
    GameView,
    LegalActions,
    PostAction,
    RatingChange,
    SeatClock,
    SeatStanding,
    Unavailable,
    timestamp,
)
from contracts.problems import ProblemError
from games import table as tables
from games.api import rules_version_of
from games.registry import narrator
from games.table import TableState
from infra.auth.bearer import Principal
from infra.eventstore.api import command_uuid, random_command_id
from infra.http.common import strictly
from infra.http.fastpath import (
    FastRoute,
    Slow,
    admit,
    answer,
    header,
    json_body,
    json_content,
    query,
)
from infra.http.openapi import SECURITY, problems
from services.game import seats
from services.game.commands import Accepted, bot_plays, handed_over
from services.game.loading import Loaded, status_of
from services.game.routes.common import (
    MAX_IDEMPOTENCY_KEY,
    MAX_VERSION,
    SEATED,
    SEEN_CODES,
    UNKNOWN_GAME,
    MinVersion,
    caller,
    seated,
    service_of,
)
from services.game.service import GameService


async def game_view(
    svc: GameService,
    who: Principal,
    game_id: str,
    min_version: int | None,
    at: int | None = None,
    include: str | None = None,
) -> GameView:
    """GET /v1/games/{game_id}, behind its parameters (and its fast path)."""
    if include is not None and at is not None:
        raise ProblemError(
            400,
            "include_with_at",
            "`include=legal_actions` is the game as it is now, `at` as it was: ask for one",
        )
    record = await svc.record(game_id)
    loaded = await svc.load_seen(record, min_version)
    seat = record.seat_of(who.player_id)
    whole = None
    latest = loaded.version
    if at is not None:  # the game as it stood at version `at`
        finished = outcome_of(loaded) is not None
        loaded = await svc.as_of(loaded, at)
        # nothing is secret any more: the whole state, every hand; an unlisted room's to
        # its players alone, as its record
        if finished and (seat is not None or not await svc.games.unlisted(record.room_id)):
            whole = msgspec.to_builtins(loaded.state)
    rules, state = loaded.rules, loaded.state
    ratings = None
    if at is None and outcome_of(loaded) is not None:
        changes = await svc.games.rating_changes(record.id)
        ratings = [
            RatingChange(
                seat=c["seat"],
                rating_before=c["rating_before"],
                rating_after=c["rating_after"],
                rating_change=c["rating_change"],
            )
            for c in changes or []
            if "rating_change" in c
        ] or None
    return GameView(
        id=record.id,
        game=record.game,
        version=loaded.version,
        # at an earlier version, maybe inside a command (the setup's deal, say), nobody is to
        # act until the command ends: the game was not over for that, only with an outcome
        status=status_of(rules, state) if at in (None, latest) else _status_then(loaded),
        seats=record.seats,
        to_act=sorted(rules.to_act(state)),
        your_seat=seat,
        view=msgspec.to_builtins(rules.view(state, seat)),
        outcome=outcome_of(loaded),
        standings=[
            SeatStanding(seat=i, standing=s.standing, bot=s.bot)
            for i, s in enumerate(loaded.table.seats)
        ],
        clock=_clock(loaded.table),
        rules_version=rules_version_of(state),
        room_id=record.room_id,
        state=whole,
        ratings=ratings,
        legal_actions=None if include is None or seat is None else _legal(loaded, seat, svc.now()),
    )


def _status_then(loaded: Loaded) -> Literal["active", "finished"]:
    return "active" if outcome_of(loaded) is None else "finished"


async def legal_actions_of(
    svc: GameService, who: Principal, game_id: str, min_version: int | None
) -> LegalActions:
    """GET /v1/games/{game_id}/legal-actions, behind its parameters (and its fast path)."""
    record = await svc.record(game_id)
    seat = seated(record.seat_of(who.player_id))
    return _legal(await svc.load_seen(record, min_version), seat, svc.now())


def _legal(loaded: Loaded, seat: int, now: datetime) -> LegalActions:
    """The seat's legal actions in the loaded game (nothing while a bot plays it, nor once
    its deadline handed it to one, before the takeover is recorded)."""
    rules, state, record = loaded.rules, loaded.state, loaded.record
    mine = loaded.table.seats[seat]
    # its person's posts are refused (409 seat_played_by_bot, deadline_passed): none is theirs
    if bot_plays(mine) or handed_over(loaded.table, seat, now):
        return LegalActions(
            version=loaded.version, seat=seat, actions=[], unavailable=[], standing=mine.standing
        )
    return LegalActions(
        version=loaded.version,
        seat=seat,
        actions=_described(rules, rules.legal_actions(state, seat), record.names),
        unavailable=[
            Unavailable(type=u.type, code=u.code, message=u.message)
            for u in rules.unavailable(state, seat)
        ],
        standing=mine.standing,
    )


def _fast_read(
    core: Callable[..., Awaitable[Any]], words: dict[bytes, bytes] | None = None
) -> FastRoute:
    """A read's fast path: no query but `min_version=<digits>` and the `words` (each name
    and its one value, passed on to `core` by name), at most one Authorization."""

    async def fast(scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
        try:
            found = query(scope, {b"min_version": MAX_VERSION}, words)
            authorization = header(scope, b"authorization")
        except Slow:
            await slow(scope, receive, send)
            return
        svc: GameService = scope["litestar_app"].state.service
        game_id: str = scope["path_params"]["game_id"]
        min_version = found.pop(b"min_version", None)
        named = {k.decode(): v.decode() for k, v in found.items() if isinstance(v, bytes)}

        async def read() -> Any:
            who = await admit(scope, authorization)
            return await core(svc, who, game_id, min_version, **named)

        await answer(scope, receive, send, read)

    return fast


async def _fast_post_action(scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
    try:
        json_content(scope)
        authorization = header(scope, b"authorization")
        key = header(scope, b"idempotency-key")
        if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
            raise Slow
        data, receive = await json_body(receive, PostAction)
    except Slow as slowly:
        await slow(scope, slowly.args[0] if slowly.args else receive, send)
        return
    svc: GameService = scope["litestar_app"].state.service
    game_id: str = scope["path_params"]["game_id"]

    async def accepted() -> ActionAccepted:
        return await act(svc, await admit(scope, authorization), game_id, data, key)

    await answer(scope, receive, send, accepted)


@get(
    "/v1/games/{game_id:str}",
    operation_id="getGame",
    opt={"fast": _fast_read(game_view, {b"include": b"legal_actions"})},
    summary="The caller's view of a game (a spectator's when not seated)",
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        503,
        codes={**UNKNOWN_GAME, 400: [*SEEN_CODES, "at_beyond_version", "include_with_at"]},
    ),
)
async def get_game(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    min_version: MinVersion = None,
    at: Annotated[
        int | None,
        QueryParameter(
            ge=1,
            le=MAX_VERSION,
            description="The game as it stood at this version: your own view then, and once "
            "the game has finished its whole `state` (every hand; an unlisted room's to its "
            "players alone). 400 `at_beyond_version` past the game's version.",
        ),
    ] = None,
    include: Annotated[
        Literal["legal_actions"] | None,
        QueryParameter(
            description="`legal_actions`: the caller's legal actions at the view's version "
            "in the same answer (its `legal_actions`; null for a caller with no seat), one "
            "request where a seat to act would make two. 400 `include_with_at` with `at`.",
        ),
    ] = None,
) -> GameView:
    who = await caller(request)
    return await game_view(service_of(request), who, game_id, min_version, at, include)


def outcome_of(loaded: Loaded) -> GameOutcome | None:
    """The game's result as its log's `game_over` says (people who resigned or timed out
    ranked last); for a game that ended before that event, the same made from the engine's.
    Field by field: a field the engines' Outcome gains and the contract lacks fails here."""
    result = tables.result(loaded.rules.outcome(loaded.state), loaded.table)
    if result is None:
        return None
    return GameOutcome(**msgspec.structs.asdict(result))


def _clock(table: TableState) -> Clock | None:
    if not table.timing.clocked:
        return None
    return Clock(
        timing=msgspec.to_builtins(table.timing),
        seats=[
            SeatClock(
                seat=i,
                deadline=timestamp(s.deadline) if s.deadline else None,
                bank_s=round(s.bank_s, 3) if s.bank_s is not None else None,
                overdue=s.overdue,
            )
            for i, s in enumerate(table.seats)
        ],
    )


@get(
    "/v1/games/{game_id:str}/legal-actions",
    operation_id="getLegalActions",
    opt={"fast": _fast_read(legal_actions_of)},
    summary="Every action the caller may post now, and the answers refused it now with why",
    security=SECURITY,
    responses=problems(400, 401, 403, 404, 503, codes={**SEATED, 400: SEEN_CODES}),
)
async def legal_actions(
    game_id: FromPath[str], request: Request[Any, Any, Any], min_version: MinVersion = None
) -> LegalActions:
    return await legal_actions_of(service_of(request), await caller(request), game_id, min_version)


def _described(rules: Any, actions: Sequence[Any], names: Sequence[str]) -> list[Any]:
    """The actions as the wire has them, each with its `text` (games/<game>/text.py)."""
    words = narrator(rules.key)
    wire: list[Any] = msgspec.to_builtins(actions)  # one call for all: fresh dicts to add to
    for action, out in zip(actions, wire, strict=True):
        out["text"] = words.describe(action, names)
    return wire


@post(
    "/v1/games/{game_id:str}/actions",
    operation_id="postAction",
    opt={"fast": _fast_post_action},
    summary="Play an action against expected_version",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        503,
        codes={
            **SEATED,
            400: ["malformed_request", "invalid_action_format"],
            409: ["stale_version", "seat_played_by_bot", "deadline_passed", "game_finished"],
            422: ["not_your_turn", "idempotency_key_reused"],
        },
        body=True,
    ),
)
async def post_action(
    game_id: FromPath[str],
    data: Annotated[
        PostAction,
        Body(
            description="`action` is one of the game's actions (`legal-actions` lists them)",
            examples=[
                Example(
                    summary="itty-bitty: take a marketplace card",
                    value={
                        "action": {"type": "take_ittybit", "card": "ittybit-0287"},
                        "expected_version": 12,
                    },
                )
            ],
        ),
    ],
    request: Request[Any, Any, Any],
    idempotency_key: Annotated[
        str | None,
        HeaderParameter(name="Idempotency-Key", max_length=MAX_IDEMPOTENCY_KEY, required=False),
    ] = None,
) -> ActionAccepted:
    who = await caller(request)
    data = await strictly(request, data)
    return await act(service_of(request), who, game_id, data, idempotency_key)


async def act(
    svc: GameService,
    who: Principal,
    game_id: str,
    data: PostAction,
    idempotency_key: str | None,
) -> ActionAccepted:
    """POST /v1/games/{game_id}/actions, behind its parameters (and its fast path)."""
    record = await svc.record(game_id)
    seat = seated(record.seat_of(who.player_id))
    command_id = (
        command_uuid("http", game_id, who.player_id, idempotency_key)
        if idempotency_key
        else random_command_id()
    )
    action = {k: v for k, v in data.action.items() if k != "text"}  # words, not the move
    accepted = await svc.submit(
        game_id, seat, action, data.expected_version, command_id, bool(idempotency_key)
    )
    return _answer(svc, record, accepted, seat)


def _answer(svc: GameService, record: Any, accepted: Accepted, seat: int) -> ActionAccepted:
    return ActionAccepted(
        version=accepted.version,
        events=svc.feed(svc.rules_for(record), accepted.events, seat, record.names),
        replayed=accepted.replayed,
    )


@post(
    "/v1/games/{game_id:str}/resign",
    operation_id="resign",
    summary="Hand your seat to a bot for the rest of the game; you are ranked last",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        503,
        codes={**SEATED, 409: ["game_finished", "stale_version", "seat_played_by_bot"]},
    ),
)
async def resign(game_id: FromPath[str], request: Request[Any, Any, Any]) -> ActionAccepted:
    who = await caller(request)
    svc = service_of(request)
    record = await svc.record(game_id)
    seat = seated(record.seat_of(who.player_id))
    return _answer(svc, record, await seats.resign(svc, record.id, seat), seat)


@post(
    "/v1/games/{game_id:str}/claim",
    operation_id="claim",
    summary="Hand another seat whose deadline has passed (policy wait) to a bot",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        503,
        codes={
            **SEATED,
            409: [
                "deadline_not_passed",
                "not_claimable",
                "seat_played_by_bot",
                "game_finished",
                "stale_version",
            ],
            422: ["no_such_seat", "own_seat"],
        },
        body=True,
    ),
)
async def claim(
    game_id: FromPath[str],
    data: Annotated[Claim, Body(examples=[Example(value={"seat": 2})])],
    request: Request[Any, Any, Any],
) -> ActionAccepted:
    who = await caller(request)
    data = await strictly(request, data)
    svc = service_of(request)
    record = await svc.record(game_id)
    seat = seated(record.seat_of(who.player_id))
    return _answer(svc, record, await seats.claim(svc, record.id, seat, data.seat), seat)


ROUTES = [get_game, legal_actions, post_action, resign, claim]
