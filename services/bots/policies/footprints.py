"""Greedy play of Footprints from one seat's view: head for the cairn, collect, build.

It reads only the Observation (the seat's view and legal actions) and the public content
(boards, cards, tiles), and looks one move ahead at most: it is also the `mcts` level's
playout policy, so it must stay cheap. What it reads of the view is footprints_seat.py's
(`Seat`).
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

from games.footprints.content import (
    BothActions,
    CavePaintingGoal,
    EngravingGoal,
    Give,
    Leader,
    Move,
    SkillBack,
    clan_card,
    load,
)
from games.footprints.leaders import NO_CHOICES
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
from services.bots.policies.footprints_estimate import estimate as estimate
from services.bots.policies.footprints_seat import Seat, bonus_worth, cave_points
from services.bots.policies.footprints_seat import _map as _map  # tests read the map by it
from services.bots.search import Budget

SKILL_STEP_WORTH = 3  # a bottom action's skill advance, in spaces of progress
FIRE_MOVE_GAIN = 2  # a movement fire card is played when it gains this much progress
# How good each leader is to shuffle in (advanced setup), by what its text gives (see
# games/footprints/CONTENT.md): four skill advances with their bonuses or a long move in
# any terrain beat a move or a trade that only some positions make worth it.
LEADER_WORTH = {
    "advance_two_skills": 5,
    "top_action_plus_two": 5,
    "shaman": 4,
    "take_three_resources": 4,
    "fire_and_footprint": 4,
    "replay_follower": 4,
    "scout": 3,
    "recluse": 3,
    "two_fire_cards": 3,
    "build_twice": 3,
    "renew_footprints": 2,
    "trade_resources": 2,
}


def useful_fire(play: Play, me: dict[str, Any], seat: Seat | None = None) -> bool:
    """Play a fire card only when it gives something now: gains whose costs can be paid,
    both actions of this very follower, or a move that gains progress toward the cairn."""
    if play.fire is None:
        return True
    effects = load().fire_cards[play.fire].effects
    first = effects[0]  # a card that moves or gives both actions does nothing else
    if isinstance(first, Move):
        if seat is None:
            return False
        if first.terrain not in seat.fire_moves:
            seat.fire_moves[first.terrain] = seat.fire_move_gain(first)
        return seat.fire_moves[first.terrain] >= FIRE_MOVE_GAIN
    if isinstance(first, BothActions):
        card = clan_card(load(), play.card)
        return getattr(card, "terrain", None) in first.terrains
    return all(me["resources"][e.resource] >= 1 for e in effects if isinstance(e, Give)) and all(
        me["skills"][e.terrain] > 2 for e in effects if isinstance(e, SkillBack)
    )


def route(a: Top) -> list[Any]:
    """The spaces a top action enters in order: the fire card's move comes after `fire_at`
    of the action's steps, and the rest of the action follows it."""
    if a.fire_at is None or not a.fire_path:
        return list(a.path)
    return [*a.path[: a.fire_at], *a.fire_path, *a.path[a.fire_at :]]


def greedy(obs: Observation, rng: Random) -> Any:
    legal = obs.legal
    for action in legal:
        if isinstance(action, CompleteFootprint):
            return action
    kinds = {type(a) for a in legal}
    s = Seat(obs)
    me = s.me
    far, bonus_count = s.far, s.bonus_count

    if ChooseLeader in kinds:
        return max(
            (a for a in legal if isinstance(a, ChooseLeader)),
            key=lambda a: LEADER_WORTH.get(_ability(a.leader), 0),
        )
    if KeepStartingFootprint in kinds:
        return min(
            (a for a in legal if isinstance(a, KeepStartingFootprint)),
            key=lambda a: s.deficit(a.card),
        )
    if DecideFootprint in kinds:
        drawn = next(a for a in legal if isinstance(a, DecideFootprint))
        keep = drawn.card is not None and s.plausible([*me["footprints"], drawn.card])
        return next(a for a in legal if isinstance(a, DecideFootprint) and a.keep == keep)
    if PlaceFigure in kinds:

        def place(a: PlaceFigure) -> tuple[float, int]:
            house, side = s.public["map"]["houses"][a.row]
            got = s.content.house_tiles[house].sides[side]
            return (sum(bonus_worth(b) for b in got) - far((a.row, -1)), s.skill_pref(a.any_skill))

        return max((a for a in legal if isinstance(a, PlaceFigure)), key=place)
    if DiscardFire in kinds:
        return min(
            (a for a in legal if isinstance(a, DiscardFire)),
            key=lambda a: sum(s.fire_worth(c) for c in a.cards),
        )
    plays = [a for a in legal if isinstance(a, Play) and useful_fire(a, me, s)]
    if plays:
        skills = me["skills"]
        content = s.content
        ready: dict[str, bool] = {}

        def value(a: Play) -> tuple[int, int, bool]:
            card = clan_card(content, a.card)
            if isinstance(card, Leader):
                if card.id not in ready:
                    ready[card.id] = s.leader_ready(card)
                # ready: before any follower; else after them all (held for later)
                return (1 if ready[card.id] else -1, 0, a.fire is not None)
            return (0, skills[card.terrain], a.fire is not None)

        return max(plays, key=value)
    moves = [a for a in legal if isinstance(a, Top | Bottom)]
    if moves:
        here = me["position"]

        spots = s.cave_spots()

        def at_cave(end: Any) -> float:
            return spots.get((end[0], end[1]), 0.0) if spots and end is not None else 0.0

        def gain(a: Top | Bottom) -> tuple[float, bool, int, int]:
            # a short top move is worth less than a skill advance (longer moves later); the
            # fire card played is used when the move is as good either way (every use of it
            # is listed, and so is the move without it)
            used = a.fire_at is not None
            if isinstance(a, Top):
                path = route(a)
                end = path[-1] if path else here
                score = far(here) - far(end) + bonus_count(path) + at_cave(end)
                return (score, used, len(path), s.skill_pref(a.any_skill) if a.any_skill else 0)
            path = [*a.fire_path, a.to] if a.to is not None else list(a.fire_path)
            if a.fire_at == 1 and a.to is not None:
                path = [a.to, *a.fire_path]
            end = path[-1] if path else here
            score = far(here) - far(end) + SKILL_STEP_WORTH + bonus_count(path) + at_cave(end)
            return (score, used, 0, s.skill_pref(a.any_skill) if a.any_skill else 0)

        return max(moves, key=gain)
    if Lead in kinds:
        turn = s.public["turn"] or {}
        ability = _ability(turn["card"]) if turn.get("card") else ""
        # an empty Lead uses the ability of a leader that needs no choice; any other plays
        # the leader for nothing
        leads = [a for a in legal if isinstance(a, Lead) and (a != Lead() or ability in NO_CHOICES)]
        if leads:
            return max(leads, key=lambda a: _lead_gain(s, a, ability))
    builds = [a for a in legal if isinstance(a, BuildEngraving | BuildCavePainting)]
    if builds:
        return max(builds, key=lambda a: _build_value(s, a))
    powers = [a for a in legal if isinstance(a, UsePower)]
    if powers:
        return max(powers, key=lambda a: (a.pay, s.skill_pref(a.any_skill)))
    if Skip in kinds:
        return Skip()
    return rng.choice(legal)


def _ability(leader: str) -> str:
    card = clan_card(load(), leader)
    return card.ability if isinstance(card, Leader) else ""


def _lead_gain(s: Seat, a: Lead, ability: str) -> float:
    """What a use of the leader played gains, by the same measures as the other moves."""
    me = s.me
    here = me["position"]
    far, bonus_count = s.far, s.bonus_count
    pick = s.skill_pref(a.any_skill) / 100  # a tie-break: the "any skill" picks
    if a.follower is not None:  # the Chieftain: a replayed action's progress
        inner = a.top or a.bottom
        if isinstance(inner, Top) and inner.path:
            return far(here) - far(inner.path[-1]) + bonus_count(inner.path) + pick
        if isinstance(inner, Bottom) and inner.to is not None:
            return far(here) - far(inner.to) + SKILL_STEP_WORTH + bonus_count([inner.to]) + pick
        return pick
    if a.top is not None:  # the Shaman, the Pathfinder
        path = route(a.top)
        return (far(here) - far(path[-1]) + bonus_count(path) if path else 0) + pick
    if ability == "renew_footprints":
        # the Dreamer: discard the cards that cannot be done in time, keep the rest
        hopeless = {c for c in me["footprints"] if not s.plausible([c])}
        return -len(set(a.cards) ^ hopeless)
    if ability == "two_fire_cards":
        # the Fire Keeper: the cards' effects, less the point each is worth unplayed
        gained = sum(s.fire_worth(c) - 1 for c in a.cards)
        moved = far(here) - far(a.path[-1]) + bonus_count(a.path) if a.path else 0
        return gained + moved + pick
    if a.path:  # the Scout, the Fire Keeper's move alone
        return far(here) - far(a.path[-1]) + bonus_count(a.path) + pick
    if a.to is not None:  # the Recluse, the Carver
        return far(here) - far(a.to) + bonus_count([a.to]) + pick
    if a.terrains:  # the Elder: the skills the seat wants most
        return s.skill_pref(a.terrains) + pick
    if a.resources or a.give:  # the Gatherer, the Trader: toward a creation and goals
        have = Counter(me["resources"])
        have.subtract(a.give)
        have.update(a.resources)
        wants = s.wants()
        need = min((s.missing(c, have) for c in s.creations_left()), default=0)
        covered = sum(min(n, max(0, have[r] - me["resources"][r])) for r, n in wants.items())
        return float(-need + covered / 10 + sum(have.values()) / 100)
    return 0.0


def _build_value(s: Seat, a: BuildEngraving | BuildCavePainting) -> float:
    """Points the creation scores (now), the bonuses next to it, and the open footprint
    goals it meets; less half a point per resource paid (resources score 1 per 2)."""
    me = s.me
    taken = s.others()
    places = s.board.places
    goals = [g for c in me["footprints"] for g in s.content.footprint_cards[c].goals]
    if isinstance(a, BuildEngraving):
        engraving = s.card.engravings[a.terrain]
        near = [q for q in s.board.adjacent((a.at[0], a.at[1])) if q not in taken]
        bonus = sum(bonus_worth(b) for q in near if (b := places[q].bonus) is not None)
        goal = 3 * sum(isinstance(g, EngravingGoal) and g.terrain == a.terrain for g in goals)
        return engraving.points + bonus + goal - sum(engraving.cost.values()) / 2
    cave = s.board.caves.get(a.site)
    bonus = 0.0
    if cave is not None:
        bonus = sum(
            bonus_worth(b)
            for q in cave.touches
            if q not in taken and (b := places[q].bonus) is not None
        )
    goal = 3 * sum(isinstance(g, CavePaintingGoal) for g in goals)
    token = s.content.cave_tokens.get(s.public["map"]["caves"].get(a.site, ""))
    cost = sum(s.card.cave_painting.cost.values()) / 2
    return (cave_points(s, token) if token else 0) + bonus + goal - cost


# The `mcts` level's budget per move in this game (policies/__init__.py: SEARCHED): playouts
# cut at 30 moves, then the projected scores' estimate (footprints_estimate.py); a playout
# to the end cost 50-90 ms, one of 30 moves about 15, so 32 playouts cost about a third of
# what 24 to the end did.
SEARCH_BUDGET = Budget(simulations=32, width=3, rollout=30)
# The `expert` level's: its playouts go to the end, as the `mcts` level's did before they
# were cut (96 over 5 moves: `make tournament` measured that expert +25 points a seat over
# that mcts; one cut at 30 moves with 128 playouts did no better than the cut mcts, -2).
EXPERT_BUDGET = Budget(simulations=96, width=5, seconds=4.0)
