"""What the Footprints greedy policy (footprints.py) reads of its seat's view: the map and
each space's distance to the cairn, the seat's creations and footprint goals, when a leader
is worth playing, what a fire card gives. Worked out only when asked for: the policy is also
the `mcts` level's playout policy, so it must stay cheap.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from games.footprints.board import Layout, MapBoard, assemble
from games.footprints.content import (
    AnySkillBonus,
    BothActions,
    CavePaintingGoal,
    EngravingGoal,
    FireBonus,
    Follower,
    FootprintBonus,
    Give,
    Leader,
    Move,
    ResourceBonus,
    ResourceGoal,
    SkillBack,
    SkillBonus,
    SkillGoal,
    SkillsTotalGoal,
    clan_card,
    load,
)
from services.bots.observe import Observation

# what a bonus is worth, in spaces of progress (a skill advance: longer moves, track bonuses)
BONUS_WORTH: dict[type, float] = {
    ResourceBonus: 1.0,
    SkillBonus: 2.0,
    AnySkillBonus: 2.0,
    FireBonus: 1.5,
    FootprintBonus: 0.5,
}
LATE_TURNS = 2  # a held leader is played once the seat has this few turns left
LEADER_MOVE = 4  # the Scout or Recluse is played when it gains this much progress
LONG_TOP = 5  # the Shaman, Pathfinder or Chieftain waits for a skill this high
CAVE_PULL = 8.0  # the most a space next to a cave worth painting adds to a move ending there
FOOTPRINT_PACE = 2.0  # goal units (a skill level, a resource) a turn can gain, all told


@lru_cache(maxsize=64)
def _map(
    tiles: tuple[str, ...],
    turned: tuple[bool, ...],
    houses: tuple[tuple[str, int], ...],
    snake: bool,
) -> tuple[MapBoard, dict[tuple[int, int], int], frozenset[tuple[int, int]]]:
    """The map, each space's distance to the nearer cairn (a house: one step before its
    row's first space), and the spaces with a bonus."""
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
    for house in board.houses:  # one step before its row's first space
        distance[house] = 1 + min((distance.get(q, 99) for q in board.adjacent(house)), default=98)
    bonus = frozenset(p for p, place in board.places.items() if place.bonus is not None)
    return board, distance, bonus


def bonus_worth(bonus: Any) -> float:
    return BONUS_WORTH.get(type(bonus), 1.0)


class Seat:
    """What greedy reads of its seat's view, worked out only when asked for."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.public = obs.view["public"]
        self.private = obs.view.get("private") or {}
        self.me = self.public["players"][obs.seat]
        m = self.public["map"]
        self.board, self.distance, self.bonus_spaces = _map(
            tuple(m["tiles"]),
            tuple(m["turned"]),
            tuple(tuple(h) for h in m["houses"]),
            bool(self.public["options"]["snake"]),
        )
        self.content = load()
        self.card = self.content.boards[self.me["clan"]]
        self._prefs: dict[str, int] | None = None
        self._spots: dict[tuple[int, int], float] | None = None
        self.fire_moves: dict[str, int] = {}  # a fire card's move's gain, by its terrain

    def far(self, pos: Any) -> int:
        return self.distance.get(tuple(pos), 99) if pos is not None else 0

    def bonus_count(self, path: Iterable[tuple[int, int]]) -> int:
        """Bonus spaces on a path (each pays once, however often it is passed)."""
        return len(self.bonus_spaces.intersection(path))

    def others(self) -> set[tuple[int, int]]:
        return {
            tuple(p["position"])
            for s, p in enumerate(self.public["players"])
            if s != self.obs.seat and p["position"] is not None
        }

    def turns_left(self) -> int:
        """The turns this seat can still expect: its clan cards, fewer once someone is
        near the cairn (the game ends after a figure ends its move there)."""
        cards = len(self.me["panel"]) + int(self.me["deck"])
        if self.public["end_triggered"]:
            return min(cards, 1)
        nearest = min(
            (self.far(p["position"]) for p in self.public["players"] if p["position"]),
            default=99,
        )
        return min(cards, 1 + nearest // 2)

    def followers_left(self) -> Counter[str]:
        """Followers still to play, by terrain: the panel and the clan deck (the seat's own
        deck list is its to see)."""
        out: Counter[str] = Counter()
        for c in (*self.me["panel"], *self.private.get("deck", ())):
            card = clan_card(self.content, c)
            if isinstance(card, Follower):
                out[card.terrain] += 1
        return out

    # -- creations and footprint goals ------------------------------------------------------

    def missing(self, cost: Mapping[Any, int], have: Mapping[Any, int] | None = None) -> int:
        have = self.me["resources"] if have is None else have
        return sum(max(0, n - have.get(r, 0)) for r, n in cost.items())

    def creations_left(self) -> list[Mapping[Any, int]]:
        """The costs of what the seat may still build."""
        costs: list[Mapping[Any, int]] = [
            e.cost for t, e in self.card.engravings.items() if t not in self.me["engravings"]
        ]
        if self.me["cave_site"] is None and self._cave_free():
            costs.append(self.card.cave_painting.cost)
        return costs

    def cave_spots(self) -> dict[tuple[int, int], float]:
        """Where the seat could paint its cave next turn, and what for: the spaces touching
        a free cave site, while it has no painting and can pay for one (the token's points
        as things stand, halved: a detour to a cave is worth a few spaces)."""
        if self._spots is None:
            self._spots = {}
            if self.me["cave_site"] is None and not self.missing(self.card.cave_painting.cost):
                painted = {p["cave_site"] for p in self.public["players"]}
                for site, token in self.public["map"]["caves"].items():
                    cave = self.board.caves.get(site)
                    if cave is None or site in painted or token is None:
                        continue
                    pull = min(CAVE_PULL, cave_points(self, self.content.cave_tokens[token]) / 2)
                    for q in cave.touches:
                        self._spots[q] = max(self._spots.get(q, 0.0), pull)
        return self._spots

    def _cave_free(self) -> bool:
        painted = {p["cave_site"] for p in self.public["players"]}
        return any(site not in painted for site in self.public["map"]["caves"])

    def deficit(self, card_id: str) -> float:
        """How far the seat is from a footprint card's goals: skill levels and resources
        still to gain, creations' missing resources (and a turn to place them)."""
        me = self.me
        skills, have = me["skills"], me["resources"]
        total = 0.0
        for goal in self.content.footprint_cards[card_id].goals:
            match goal:
                case EngravingGoal(terrain=terrain):
                    if terrain not in me["engravings"]:
                        total += 1 + self.missing(self.card.engravings[terrain].cost)
                case CavePaintingGoal():
                    if me["cave_site"] is None:
                        if not self._cave_free():
                            return float("inf")
                        total += 2 + self.missing(self.card.cave_painting.cost)
                case ResourceGoal(resource=resource, count=count):
                    total += max(0, count - have[resource])
                case SkillGoal(terrain=terrain, level=level):
                    total += max(0, level - skills[terrain])
                case SkillsTotalGoal(terrains=(a, b), total=need):
                    total += max(0, need - skills[a] - skills[b])
        return total

    def plausible(self, cards: Iterable[str]) -> bool:
        """Can these footprint cards all be completed in the turns left, at a fair pace?"""
        return sum(self.deficit(c) for c in cards) <= FOOTPRINT_PACE * self.turns_left()

    def goal_terrains(self) -> Counter[str]:
        """Skills the open footprint cards ask for."""
        out: Counter[str] = Counter()
        for c in self.me["footprints"]:
            for goal in self.content.footprint_cards[c].goals:
                if isinstance(goal, SkillGoal):
                    out[goal.terrain] += 1
                elif isinstance(goal, SkillsTotalGoal):
                    out.update(goal.terrains)
        return out

    def wants(self) -> Counter[str]:
        """Resources worth taking: those missing for the nearest creation and the open
        footprint cards' resource goals."""
        out: Counter[str] = Counter()
        have = self.me["resources"]
        costs = self.creations_left()
        if costs:
            near = min(costs, key=self.missing)
            for r, n in near.items():
                out[r] += max(0, n - have[r])
        for c in self.me["footprints"]:
            for goal in self.content.footprint_cards[c].goals:
                if isinstance(goal, ResourceGoal):
                    out[goal.resource] += max(0, goal.count - have[goal.resource])
        return out

    def skill_pref(self, terrains: Iterable[str]) -> int:
        """How much the seat wants these skills advanced: followers left to move with them
        and footprint goals asking for them (none past 11). Worked out once a move."""
        if not terrains:
            return 0
        if self._prefs is None:
            left = self.followers_left()
            goals = self.goal_terrains()
            self._prefs = {
                t: (left[t] + 2 * goals[t] if n < 11 else 0) for t, n in self.me["skills"].items()
            }
        return sum(self._prefs[t] for t in terrains)

    # -- leaders ----------------------------------------------------------------------------

    def leader_ready(self, leader: Leader) -> bool:
        """Whether to play the leader now rather than a follower: when what it gives is at
        hand, or the seat's turns are running out (an unplayed leader gives nothing)."""
        if self.turns_left() <= LATE_TURNS:
            return True
        me = self.me
        skills = me["skills"]
        match leader.ability:
            case "advance_two_skills" | "fire_and_footprint":
                return True  # skills and cards early pay longer moves and more bonuses
            case "take_three_resources":
                return any(0 < self.missing(c) <= 3 for c in self.creations_left())
            case "trade_resources":
                owned = sum(me["resources"].values())
                return any(
                    self.missing(c) > 0 and owned + 1 >= sum(c.values())
                    for c in self.creations_left()
                )
            case "build_twice":
                return self._two_builds()
            case "two_fire_cards":
                return int(me["fire_cards"]) >= 2
            case "scout" | "recluse":
                return self.leader_move(leader.ability) >= LEADER_MOVE
            case "shaman" | "top_action_plus_two":
                return int(max(skills.values())) >= LONG_TOP
            case "replay_follower":
                return any(
                    isinstance(f := clan_card(self.content, c), Follower)
                    and skills[f.terrain] >= LONG_TOP
                    for c in me["played"]
                )
            case "renew_footprints":
                return any(not self.plausible([c]) for c in me["footprints"])
        return True

    def _two_builds(self) -> bool:
        costs = self.creations_left()
        have = self.me["resources"]
        for i, a in enumerate(costs):
            for b in costs[i + 1 :]:
                both = Counter(a) + Counter(b)
                if all(have[r] >= n for r, n in both.items()):
                    return True
        return False

    def leader_move(self, ability: str) -> int:
        """The most progress the Scout's line or the Recluse's jump gives now."""
        here = self.me["position"]
        if here is None:
            return 0
        start = tuple(here)
        others = self.others()
        best = 0
        if ability == "scout":
            for d in range(6):
                for n, p in enumerate(self.board.line(start, d)):
                    if n >= 6 or p not in self.board.places:
                        break
                    if p not in others:
                        best = max(best, self.far(start) - self.far(p))
            return best
        for p in self.board.places:
            if abs(p[1] - start[1]) <= 4 and p not in others and p != start:
                gain = self.far(start) - self.far(p)
                if gain > best and all(self.board.distance(p, q) > 2 for q in others):
                    best = gain
        return best

    # -- fire cards -------------------------------------------------------------------------

    def fire_move_gain(self, move: Move) -> int:
        """The most progress a fire card's move (up to 3 spaces of its terrain, through
        figures but not ending on one) gives from here, plus the bonuses on the way."""
        here = self.me["position"]
        if here is None:
            return 0
        start = tuple(here)
        others = self.others()
        places = self.board.places
        best = 0
        frontier = [(start, frozenset[tuple[int, int]]())]
        for _ in range(move.spaces):
            nxt = []
            for pos, seen in frontier:
                for q in self.board.adjacent(pos):
                    if move.terrain in places[q].terrains and q not in seen:
                        path = seen | {q}
                        nxt.append((q, path))
                        if q not in others:
                            best = max(best, self.far(start) - self.far(q) + self.bonus_count(path))
            frontier = nxt
        return best

    def fire_worth(self, fire: str) -> float:
        """What a fire card in hand is worth playing: its gains less its costs."""
        worth = 0.0
        for e in self.content.fire_cards[fire].effects:
            if isinstance(e, Move | BothActions):
                worth += 2
            elif isinstance(e, SkillBack | Give):
                worth -= 1
            else:
                worth += bonus_worth(e)
        return worth


def cave_points(s: Seat, token: Any) -> float:
    """What a cave token would score for the seat as things stand (its scoring rules)."""
    me = s.me
    skills = me["skills"]
    points = sum(s.card.engravings[t].points for t in me["engravings"])
    match token.scoring:
        case "skill_x2":
            return 2.0 * int(skills[token.terrain])
        case "lowest_skill_x3":
            return 3.0 * int(min(skills.values()))
        case "cairn_plus_10":
            return 10.0 + (me["cairn_points"] or 0)
        case "per_engraving_5":
            return 5 * len(me["engravings"])
        case "bonus_icons_next_to_engravings_x3":
            mine = [tuple(e["at"]) for e in s.public["engraved"] if e["seat"] == s.obs.seat]
            places = s.board.places
            return 3 * sum(
                1 for p in mine for q in s.board.adjacent(p) if places[q].bonus is not None
            )
        case "engraving_points_again":
            return points
        case "per_footprint_card_5":
            return 5 * len(me["completed"])
    return 0.0
