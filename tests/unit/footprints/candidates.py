"""Brute-force candidate moves for the listing oracle (games/testing.py: check_listing).

Built from the action shapes and the map alone, never from games/footprints/legal*.py:
every field a move has is tried over a wide range of values (most of them illegal), short
paths exhaustively and longer ones at random, each with several "any skill" lists. The
oracle decides each; every one accepted must have a listed move with its result.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, combinations_with_replacement, permutations, product
from random import Random
from typing import Any

from games.footprints.board import MapBoard, Pos
from games.footprints.content import RESOURCES, TERRAINS, Follower, Leader, clan_card
from games.footprints.model import (
    Action,
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    ChooseLeader,
    CompleteFootprint,
    DecideFootprint,
    DiscardFire,
    FireDuring,
    FootprintChoice,
    KeepStartingFootprint,
    Lead,
    PlaceFigure,
    PlaceNext,
    Play,
    SetupChoices,
    Skip,
    Top,
    UsePower,
)
from games.footprints.rules import Footprints
from games.footprints.state import State
from games.footprints.table import board_of

Path = tuple[Pos, ...]
SKILL_LISTS: tuple[tuple[str, ...], ...] = ((), *((t,) for t in TERRAINS))
DURING: tuple[FireDuring, ...] = ("after_advance", "after_move")


def candidates(
    rules: Footprints, state: State, seat: int, rng: Random, budget: int | None = None
) -> list[Action]:
    """Candidate actions for `seat` in `state`: all of them, or `budget` of them at random
    (every position sampled tries another part of the range)."""
    found = list(_candidates(rules, state, seat, rng))
    if budget is not None and len(found) > budget:
        found = rng.sample(found, budget)
    return found


def _candidates(rules: Footprints, state: State, seat: int, rng: Random) -> Iterator[Action]:
    c = rules.content
    p = state.players[seat]
    footprints = (*p.footprints, *sorted(c.footprint_cards)[:2])
    yield from (CompleteFootprint(card=f) for f in footprints)
    yield Skip()
    match state.pending:
        case SetupChoices(footprints=dealt):
            yield from (ChooseLeader(leader=x.id) for x in c.leaders())
            cards = {card for _, cs in dealt for card in cs}
            yield from (KeepStartingFootprint(card=card) for card in sorted(cards))
            return
        case PlaceNext():
            for row in range(-1, len(state.houses) + 1):
                yield from (PlaceFigure(row=row, any_skill=s) for s in _skill_lists(rng, 3))
            return
        case FootprintChoice(cards=cards):
            for keep in (True, False):
                for card in (None, *cards, sorted(c.footprint_cards)[0]):
                    yield DecideFootprint(keep=keep, card=card)
            return
    turn = state.turn
    if turn is None:
        return
    board = board_of(c, state)
    here = p.position
    match turn.phase:
        case "play":
            hand = (*p.fire_hand, "fire-01", None)
            for card in (*p.panel, *p.played[:1]):
                yield from (Play(card=card, fire=f) for f in hand)
        case "act":
            yield from _acts(rules, state, seat, board, rng)
        case "build":
            near = _within(board, here, 2) if here is not None else []
            for terrain, at in product(TERRAINS, near):
                yield BuildEngraving(terrain=terrain, at=at, any_skill=rng.choice(SKILL_LISTS))
            for site in sorted(board.caves):
                for skills in SKILL_LISTS:
                    yield BuildCavePainting(site=site, any_skill=skills)
            for terrain in TERRAINS:  # every "any skill" choice where an engraving may go
                for at in _within(board, here, 1) if here is not None else []:
                    for skills in _skill_lists(rng, 2):
                        yield BuildEngraving(terrain=terrain, at=at, any_skill=skills)
        case "power":
            for terrain, pay in product(TERRAINS, range(0, max(p.resources) + 2)):
                for skills in _skill_lists(rng, 2):
                    yield UsePower(terrain=terrain, pay=pay, any_skill=skills)
        case "discard":
            hand = p.fire_hand
            for n in range(max(0, len(hand) - 4), len(hand)):
                yield from (DiscardFire(cards=cs) for cs in permutations(hand, n))
            yield DiscardFire(cards=(hand[0], hand[0]))


def _skill_lists(rng: Random, longest: int) -> list[tuple[str, ...]]:
    """(), every single skill, and a few longer lists at random."""
    out = list(SKILL_LISTS)
    for n in range(2, longest + 1):
        out += [tuple(rng.choice(TERRAINS) for _ in range(n)) for _ in range(3)]
    return out


def _within(board: MapBoard, start: Pos | None, radius: int) -> list[Pos]:
    if start is None:
        return []
    return sorted(q for q in board.places if board.distance(start, q) <= radius)


def _walks(board: MapBoard, start: Pos | None, longest: int, rng: Random, count: int) -> list[Path]:
    """Every path of up to two steps, and `count` random ones up to `longest` steps."""
    if start is None:
        return [()]
    out: list[Path] = [()]
    for a in board.adjacent(start):
        out.append((a,))
        out += [(a, b) for b in board.adjacent(a)]
    for _ in range(count):
        path: list[Pos] = []
        for _ in range(rng.randint(1, max(1, longest))):
            path.append(rng.choice(board.adjacent(path[-1] if path else start)))
        out.append(tuple(path))
    return out


def _tops(
    board: MapBoard, start: Pos | None, longest: int, fire: bool, rng: Random
) -> Iterator[Top]:
    for path in _walks(board, start, longest, rng, 60):
        yield Top(path=path, any_skill=rng.choice(SKILL_LISTS))
        if fire:
            at = rng.randint(0, len(path))
            end = path[at - 1] if at else start
            for fire_path in _walks(board, end, 3, rng, 2)[:: max(1, len(path))]:
                yield Top(
                    path=path, fire_at=at, fire_path=fire_path, any_skill=rng.choice(SKILL_LISTS)
                )
    for path in _walks(board, start, longest, rng, 8):  # every "any skill" choice
        for skills in _skill_lists(rng, 3):
            yield Top(path=path, any_skill=skills, fire_at=len(path) if fire else None)


def _bottoms(board: MapBoard, start: Pos | None, fire: bool, rng: Random) -> Iterator[Bottom]:
    ends: list[Pos | None] = [None, *_within(board, start, 3)]
    for to in ends:
        for skills in _skill_lists(rng, 2):
            yield Bottom(to=to, any_skill=skills)
        if fire:
            for at in (0, 1):
                yield Bottom(to=to, fire_at=at, any_skill=rng.choice(SKILL_LISTS))
                base = start if at == 0 else to
                for fire_path in _walks(board, base, 3, rng, 3)[1:]:
                    picks = rng.choice(SKILL_LISTS)  # the spaces walked may ask for a skill
                    yield Bottom(to=to, fire_at=at, fire_path=fire_path, any_skill=picks)
            for during in DURING:  # between the advance and the move, either first
                for skills in _skill_lists(rng, 2):
                    yield Bottom(to=to, fire_during=during, any_skill=skills)
                yield Bottom(to=to, fire_at=0, fire_during=during)
                base = start if during == "after_advance" else to
                for fire_path in _walks(board, base, 3, rng, 2)[1:]:
                    picks = rng.choice(SKILL_LISTS)
                    yield Bottom(to=to, fire_during=during, fire_path=fire_path, any_skill=picks)


def _acts(
    rules: Footprints, state: State, seat: int, board: MapBoard, rng: Random
) -> Iterator[Action]:
    c = rules.content
    turn = state.turn
    assert turn is not None and turn.card is not None
    p = state.players[seat]
    card = clan_card(c, turn.card)
    longest = max(p.skills) + 3
    fire = turn.fire is not None
    yield from _tops(board, p.position, longest, fire, rng)
    yield from _bottoms(board, p.position, fire, rng)
    yield Lead()
    if isinstance(card, Follower):
        return
    yield from _leads(rules, state, seat, card, board, rng)


def _leads(
    rules: Footprints, state: State, seat: int, card: Leader, board: MapBoard, rng: Random
) -> Iterator[Lead]:
    p = state.players[seat]
    here = p.position
    for a, b in permutations(TERRAINS, 2):
        yield Lead(terrains=(a, b), any_skill=rng.choice(SKILL_LISTS))
    for a, b in combinations(TERRAINS, 2):
        for skills in _skill_lists(rng, 3):
            yield Lead(terrains=(a, b), any_skill=skills)
    for taken in combinations_with_replacement(RESOURCES, 3):
        yield Lead(resources=taken)
    yield Lead(resources=("stone", "wood"))
    for give in _some_gives(p.resources, rng):
        for _ in range(4):
            take = tuple(rng.choice(RESOURCES) for _ in range(len(give) + 1))
            yield Lead(give=give, resources=take)
    for path in _walks(board, here, 6, rng, 20):
        for skills in SKILL_LISTS:
            yield Lead(path=path, any_skill=skills)
    if here is not None:
        for d in range(6):
            line = list(board.line(here, d))
            for n in range(1, min(len(line), 7) + 1):
                yield Lead(path=tuple(line[:n]), any_skill=rng.choice(SKILL_LISTS))
    for to in _within(board, here, 5):
        yield Lead(to=to, any_skill=rng.choice(SKILL_LISTS))
    for to in _within(board, here, 2):
        for skills in SKILL_LISTS:
            yield Lead(to=to, any_skill=skills)
    marks = p.footprints
    for n in range(len(marks) + 1):
        yield from (Lead(cards=cs) for cs in combinations(marks, n))
    hand = p.fire_hand
    for n in (1, 2):
        for cs in permutations(hand, n):
            for path in _walks(board, here, 3, rng, 10):
                yield Lead(cards=cs, path=path, any_skill=rng.choice(SKILL_LISTS))
    for terrain in TERRAINS:
        for top in _tops(board, here, max(p.skills) + 2, card.ability == "shaman", rng):
            yield Lead(
                terrains=(terrain,),
                top=Top(path=top.path, fire_at=top.fire_at, fire_path=top.fire_path),
                any_skill=top.any_skill,
            )
    for played in sorted(set(p.played)):
        for top in _tops(board, here, max(p.skills) + 1, False, rng):
            yield Lead(follower=played, top=Top(path=top.path), any_skill=top.any_skill)
        for bottom in _bottoms(board, here, False, rng):
            yield Lead(follower=played, bottom=Bottom(to=bottom.to), any_skill=bottom.any_skill)
            yield Lead(follower=played, bottom=Bottom(to=bottom.to, fire_during="after_move"))


def _some_gives(have: tuple[int, int, int, int], rng: Random) -> list[tuple[Any, ...]]:
    pool = [r for i, r in enumerate(RESOURCES) for _ in range(have[i])]
    out: list[tuple[Any, ...]] = [()]
    for _ in range(6):
        n = rng.randint(0, len(pool))
        out.append(tuple(sorted(rng.sample(pool, n))))
    return out
