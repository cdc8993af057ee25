"""Every different top and bottom action (a follower's, the Shaman's, the Pathfinder's, the
Chieftain's), with the fire card played in step 1 used before, during or after it, or not.

Each candidate comes with its outcome: where the figure ends and the mover's ledger
(skills, resources, cards earned); two actions with the same outcome leave the same state,
so the lister keeps one. Where a bound cuts the search short, `Lister.complete` is False.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from games.footprints import walks
from games.footprints.board import Pos, TopMove, bottom_destinations
from games.footprints.content import TERRAINS, Bonus, Effect, Move, SkillBack, Terrain
from games.footprints.gains import (
    Ledger,
    Unaffordable,
    Undecided,
    advance,
    gain,
    pay_costs,
    use_fire,
)
from games.footprints.model import Bottom, FireDuring, Top
from games.footprints.table import Table

MAX_PICKS = 5  # "any skill" choices one action is listed with (see RULES.md)

Run = Callable[[list[Terrain]], Ledger]
Picks = tuple[Terrain, ...]


class Lister:
    """One seat's listing: its table, what it owns, and caches shared by its moves."""

    def __init__(self, t: Table, seat: int) -> None:
        self.t = t
        self.seat = seat
        self.complete = True
        self.board = t.board
        self.tracks = t.board_card(seat).tracks
        self.led = t.ledger(seat)
        self.kinds = walks.kinds(t.board)
        self.start = t.player(seat).position
        self.others = frozenset(t.figures(but=seat))
        self._walks: dict[Hashable, walks.Walks] = {}
        self._choices: dict[Hashable, list[tuple[Picks, Ledger]]] = {}

    def walks(self, move: TopMove, fire: Move | None = None) -> walks.Walks:
        key = (move, fire)
        if key not in self._walks:
            assert self.start is not None
            found = walks.top_walks(self.board, self.start, move, self.others, fire)
            self.complete &= found.complete
            self._walks[key] = found
        return self._walks[key]

    def choose(self, key: Hashable, run: Run) -> list[tuple[Picks, Ledger]]:
        """Every different ledger `run` can end with, by the "any skill" choices it asks
        for (`run` raises Undecided for one more, Unaffordable for a cost it cannot pay),
        each with the first choices found."""
        if key in self._choices:
            return self._choices[key]
        out: dict[Ledger, Picks] = {}
        stack: list[Picks] = [()]
        while stack:
            picks = stack.pop()
            try:
                led = run(list(picks))
            except Undecided:
                if len(picks) < MAX_PICKS:
                    stack.extend((*picks, t) for t in reversed(TERRAINS))
                else:
                    self.complete = False
                continue
            except Unaffordable:
                continue
            out.setdefault(led, picks)
        found = [(picks, led) for led, picks in out.items()]
        self._choices[key] = found
        return found

    def bonuses(self, spaces: Iterable[Pos]) -> list[Bonus]:
        return self.kinds.unpack(self.kinds.bag(spaces, self.others))

    def gain(self, led: Ledger, bonuses: list[Bonus], picks: list[Terrain]) -> Ledger:
        return gain(self.tracks, led, bonuses, picks, strict=True)

    def gaining(self, led: Ledger, bonuses: list[Bonus]) -> Run:
        """A run collecting `bonuses` from `led`."""
        return lambda picks: self.gain(led, bonuses, picks)

    def use(self, led: Ledger, effects: tuple[Effect, ...], picks: list[Terrain]) -> Ledger:
        return use_fire(self.tracks, led, effects, picks, strict=True)

    def effects(self, fire: str | None) -> tuple[Effect, ...]:
        """A fire card's costs and gains (not its move, nor its both-actions)."""
        if fire is None:
            return ()
        return tuple(
            e
            for e in self.t.content.fire_cards[fire].effects
            if not isinstance(e, Move) and type(e).__name__ != "BothActions"
        )


Outcome = tuple[Any, ...]


def top_moves(
    ls: Lister, terrain: Terrain, plus: int, extra: Terrain | None, fire: str | None
) -> list[tuple[Outcome, Top]]:
    """Every different top action of `terrain` (and `extra`), with `fire` used or not."""
    led0 = ls.led
    effects = ls.effects(fire)
    out: list[tuple[Outcome, Top]] = []
    if ls.start is None:  # on the cairn track: no move; the fire card's effects at most
        out.append(((None, led0), Top(path=())))
        if fire is not None and effects:
            for picks, led in ls.choose(("use", fire), lambda p: ls.use(led0, effects, p)):
                out.append(((None, led), Top(path=(), fire_at=0, any_skill=picks)))
        return out
    level = ls.t.skill(ls.seat, terrain) + plus
    fire_move = ls.t.fire_move(fire)
    found = ls.walks(TopMove(terrain=terrain, level=level, extra=extra), fire_move)
    for (end, bag), walk in found.found.items():
        bonuses = ls.kinds.unpack(bag)
        for picks, led in ls.choose(("gain", bag), ls.gaining(led0, bonuses)):
            out.append(((end, led), _top(walk, picks)))
    if fire is None or fire_move is not None or not effects:
        return out
    when = timings(ls, effects)
    base = found
    for (end, bag), walk in base.found.items():  # used after the action
        if walk.path and "after" in when:
            bonuses = ls.kinds.unpack(bag)

            def after(p: list[Terrain], b: list[Bonus] = bonuses) -> Ledger:
                return ls.use(ls.gain(led0, b, p), effects, p)

            for picks, led in ls.choose(("after", fire, bag), after):
                top = Top(path=walk.path, fire_at=len(walk.path), any_skill=picks)
                out.append(((end, led), top))
    for (end, bag), walk in base.long.items() if "during" in when else ():
        bonuses = ls.kinds.unpack(bag)  # during: the allowance it started with

        def during(p: list[Terrain], b: list[Bonus] = bonuses) -> Ledger:
            return ls.gain(ls.use(led0, effects, p), b, p)

        for picks, led in ls.choose(("during", fire, bag), during):
            out.append(((end, led), Top(path=walk.path, fire_at=1, any_skill=picks)))
    # before: the card's effects first, which may change the allowance
    befores = ls.choose(("use", fire), lambda p: ls.use(led0, effects, p))
    for first, led1 in befores if "before" in when else ():
        level1 = led1.skills[TERRAINS.index(terrain)] + plus
        moved = ls.walks(TopMove(terrain=terrain, level=level1, extra=extra))
        for (end, bag), walk in moved.found.items():
            bonuses = ls.kinds.unpack(bag)

            def then(p: list[Terrain], b: list[Bonus] = bonuses, at: Ledger = led1) -> Ledger:
                return ls.gain(at, b, p)

            for picks, led in ls.choose(("from", led1, bag), then):
                top = Top(path=walk.path, fire_at=0, any_skill=first + picks)
                out.append(((end, led), top))
    return out


def timings(ls: Lister, effects: tuple[Effect, ...]) -> frozenset[str]:
    """When the fire card's use needs listing. Its gains and a resource given commute with
    the action's: used before, during or after, it ends the same wherever the path is legal,
    and before allows the most (its gains may raise the allowance), unless only the action's
    bonuses can pay for it: then after. A marker moved back does not commute with advances
    on that track (the bonuses come again): then every timing."""
    if any(isinstance(e, SkillBack) for e in effects):
        return frozenset({"before", "during", "after"})
    try:
        pay_costs(ls.led, effects)
    except Unaffordable:
        return frozenset({"after"})
    return frozenset({"before"})


def _top(walk: walks.Walk, picks: Picks) -> Top:
    if not walk.fire:
        return Top(path=walk.path, any_skill=picks)
    return Top(path=walk.path, fire_at=len(walk.first), fire_path=walk.fire, any_skill=picks)


def bottom_moves(
    ls: Lister, terrain: Terrain, extra: Terrain | None, fire: str | None
) -> list[tuple[Outcome, Bottom]]:
    """Every different bottom action: advance `terrain` (and `extra`), move to the next
    unoccupied space; `fire` used before it, after it, during it (rules version 2: between
    the advance and the move, either first, where the card moves a marker back), or not."""
    led0 = ls.led
    effects = ls.effects(fire)
    fire_move = ls.t.fire_move(fire)
    kind = ("bottom", terrain, extra)

    def climb(led: Ledger, p: list[Terrain]) -> Ledger:
        led, passed = advance(ls.tracks, led, terrain, 1)
        if extra is not None:
            led, more = advance(ls.tracks, led, extra, 1)
            passed += more
        return ls.gain(led, passed, p)

    def climbed(bonuses: list[Bonus]) -> Run:
        return lambda p: ls.gain(climb(led0, p), bonuses, p)

    ends: list[Pos | None] = [None]
    if ls.start is not None:
        ends = list(sorted(bottom_destinations(ls.board, ls.start, ls.others)))
    out: list[tuple[Outcome, Bottom]] = []
    for to in ends:
        here = ls.bonuses([to] if to is not None else [])
        for picks, led in ls.choose((*kind, "bag", _bag(ls, here)), climbed(here)):
            out.append(((to, led), Bottom(to=to, any_skill=picks)))
        if not effects:  # no fire card, or one with no gain or cost (its move: below)
            continue
        when = timings(ls, effects)

        def before(p: list[Terrain], b: list[Bonus] = here) -> Ledger:
            return ls.gain(climb(ls.use(led0, effects, p), p), b, p)

        def after(p: list[Terrain], b: list[Bonus] = here) -> Ledger:
            return ls.use(ls.gain(climb(led0, p), b, p), effects, p)

        bag = _bag(ls, here)
        if "before" in when:
            for picks, led in ls.choose((*kind, "before", fire, bag), before):
                out.append(((to, led), Bottom(to=to, fire_at=0, any_skill=picks)))
        if "after" in when:
            for picks, led in ls.choose((*kind, "after", fire, bag), after):
                out.append(((to, led), Bottom(to=to, fire_at=1, any_skill=picks)))
        if "during" in when and ls.t.state.rules >= 2:  # between the advance and the move

            def after_advance(p: list[Terrain], b: list[Bonus] = here) -> Ledger:
                return ls.gain(ls.use(climb(led0, p), effects, p), b, p)

            def after_move(p: list[Terrain], b: list[Bonus] = here) -> Ledger:
                return climb(ls.use(ls.gain(led0, b, p), effects, p), p)

            durings: tuple[tuple[FireDuring, Run], ...] = (
                ("after_advance", after_advance),
                ("after_move", after_move),
            )
            for during, run in durings:
                for picks, led in ls.choose((*kind, during, fire, bag), run):
                    out.append(((to, led), Bottom(to=to, fire_during=during, any_skill=picks)))
    if fire_move is None or ls.start is None:
        return out
    # the fire card's move before the action (it may end on a figure: the bottom move then
    # starts there), or after it from where the action ended (it may not)
    others = ls.others
    for (end, _), path in walks.fire_walks(ls.board, ls.start, fire_move, others, False).items():
        for to in sorted(bottom_destinations(ls.board, end, others)):
            got = ls.bonuses([*path, to])
            for picks, led in ls.choose((*kind, "bag", _bag(ls, got)), climbed(got)):
                action = Bottom(to=to, fire_at=0, fire_path=path, any_skill=picks)
                out.append(((to, led), action))
    for to in ends:
        assert to is not None
        for (end, _), path in walks.fire_walks(ls.board, to, fire_move, others, True).items():
            got = ls.bonuses([to, *path])
            for picks, led in ls.choose((*kind, "bag", _bag(ls, got)), climbed(got)):
                action = Bottom(to=to, fire_at=1, fire_path=path, any_skill=picks)
                out.append(((end, led), action))
    return out


def _bag(ls: Lister, bonuses: list[Bonus]) -> tuple[int, ...]:
    return tuple(sorted(ls.kinds.bonuses.index(b) for b in bonuses))


def unique(items: Iterable[tuple[Outcome, Any]]) -> list[Any]:
    """One action per outcome, the first listed."""
    seen: dict[Outcome, Any] = {}
    for outcome, action in items:
        seen.setdefault(outcome, action)
    return list(seen.values())
