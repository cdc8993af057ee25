"""Greedy play of Footprints from one seat's view: head for the cairn, collect, build."""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from random import Random
from typing import Any

from games.footprints.board import Layout, MapBoard, assemble
from games.footprints.content import load
from games.footprints.model import (
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    ChooseLeader,
    CompleteFootprint,
    DecideFootprint,
    DiscardFire,
    KeepStartingFootprint,
    Lead,
    PlaceFigure,
    Play,
    Skip,
    Top,
    UsePower,
)
from services.bots.observe import Observation

KEEP_OPEN = 2  # keep a drawn footprint card while fewer are open
SKILL_STEP_WORTH = 3  # a bottom action's skill advance, in spaces of progress


@lru_cache(maxsize=64)
def _map(
    tiles: tuple[str, ...],
    turned: tuple[bool, ...],
    houses: tuple[tuple[str, int], ...],
    snake: bool,
) -> tuple[MapBoard, dict[tuple[int, int], int]]:
    board = assemble(load(), Layout(tiles=tiles, turned=turned, houses=houses), snake=snake)
    cairns = [p for p, place in board.places.items() if place.cairn]
    distance = dict.fromkeys(cairns, 0)
    queue = deque(cairns)
    while queue:
        here = queue.popleft()
        for nxt in board.adjacent(here):
            if nxt not in distance:
                distance[nxt] = distance[here] + 1
                queue.append(nxt)
    return board, distance


def useful_fire(play: Play, me: dict[str, Any]) -> bool:
    """Play a fire card only when it gives something now: gains whose costs can be paid,
    or both actions of this very follower (its fire moves are left to the random bot)."""
    if play.fire is None:
        return True
    from games.footprints.content import BothActions, Give, Move, SkillBack, clan_card

    effects = load().fire_cards[play.fire].effects
    card = clan_card(load(), play.card)
    if any(isinstance(e, Move) for e in effects):
        return False
    if any(isinstance(e, BothActions) for e in effects):
        return any(
            isinstance(e, BothActions) and getattr(card, "terrain", None) in e.terrains
            for e in effects
        )
    return all(me["resources"][e.resource] >= 1 for e in effects if isinstance(e, Give)) and all(
        me["skills"][e.terrain] > 2 for e in effects if isinstance(e, SkillBack)
    )


def greedy(obs: Observation, rng: Random) -> Any:
    public = obs.view["public"]
    me = public["players"][obs.seat]
    m = public["map"]
    board, distance = _map(
        tuple(m["tiles"]),
        tuple(m["turned"]),
        tuple(tuple(h) for h in m["houses"]),
        bool(public["options"]["snake"]),
    )
    legal = obs.legal

    def far(pos: Any) -> int:
        return distance.get(tuple(pos), 99) if pos is not None else 0

    def bonus_count(path: Any) -> int:  # each space pays once, however often it is passed
        spaces = {tuple(p) for p in path}
        return sum(1 for p in spaces if board.places.get(p) and board.places[p].bonus)

    for action in legal:
        if isinstance(action, CompleteFootprint):
            return action
    kinds = {type(a) for a in legal}
    if DecideFootprint in kinds:
        keep = len(me["footprints"]) < KEEP_OPEN
        return next(a for a in legal if isinstance(a, DecideFootprint) and a.keep == keep)
    if kinds & {ChooseLeader, KeepStartingFootprint, PlaceFigure, DiscardFire}:
        return legal[0]
    plays = [a for a in legal if isinstance(a, Play) and useful_fire(a, me)]
    if plays:
        skills = me["skills"]
        from games.footprints.content import clan_card

        def value(a: Play) -> tuple[int, int]:
            card = clan_card(load(), a.card)
            level = skills.get(getattr(card, "terrain", ""), 0)
            return (level if hasattr(card, "terrain") else 3, a.fire is not None)

        return max(plays, key=value)
    moves = [a for a in legal if isinstance(a, Top | Bottom)]
    if moves:
        here = me["position"]

        def gain(a: Top | Bottom) -> tuple[int, bool, int]:
            # a short top move is worth less than a skill advance (longer moves later); the
            # fire card played is used when the move is as good either way (every use of it
            # is listed, and so is the move without it)
            used = a.fire_at is not None
            if isinstance(a, Top):
                path = [*a.path, *a.fire_path]
                end = path[-1] if path else here
                return (far(here) - far(end) + bonus_count(path), used, len(path))
            step = far(here) - far(a.to) if a.to is not None else 0
            return (step + SKILL_STEP_WORTH + bonus_count([a.to] if a.to else []), used, 0)

        return max(moves, key=gain)
    leads = [a for a in legal if isinstance(a, Lead) and a != Lead()]
    if leads:

        def lead_gain(a: Lead) -> int:
            if a.top is not None:
                path = [*a.top.path, *a.top.fire_path]
                return far(me["position"]) - far(path[-1]) if path else 0
            if a.path:
                return far(me["position"]) - far(a.path[-1])
            if a.to is not None:
                return far(me["position"]) - far(a.to)
            if a.follower is not None:  # the Chieftain: a replayed action's progress
                inner = a.top or a.bottom
                if isinstance(inner, Top) and inner.path:
                    return far(me["position"]) - far(inner.path[-1]) + bonus_count(inner.path)
                if isinstance(inner, Bottom) and inner.to is not None:
                    return far(me["position"]) - far(inner.to) + SKILL_STEP_WORTH
                return 0
            if a.cards and not a.resources:  # the Dreamer's discard: keep what can be done
                return -len(a.cards)
            return len(a.resources) + len(a.terrains)

        return max(leads, key=lead_gain)
    builds = [a for a in legal if isinstance(a, BuildEngraving | BuildCavePainting)]
    if builds:
        return builds[0]
    powers = [a for a in legal if isinstance(a, UsePower)]
    if powers:
        return max(powers, key=lambda a: a.pay)
    if Skip in kinds:
        return Skip()
    return rng.choice(legal)
