"""A decision in progress: emit events, fold each at once, and the effects every step uses
(collecting bonuses, advancing skills, drawing cards, moving figures)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.api import IllegalAction, Rng
from games.footprints import gains
from games.footprints.board import (
    IllegalMove,
    Layout,
    MapBoard,
    TopMove,
    assemble,
    bottom_destinations,
    check_path,
    check_top_steps,
    collected,
)
from games.footprints.content import (
    RESOURCES,
    TERRAINS,
    Board,
    Bonus,
    Content,
    Move,
    Resource,
    Terrain,
)
from games.footprints.events import (
    BonusLost,
    ChoicesOpened,
    Event,
    FigureMoved,
    FireDrawn,
    FireReshuffled,
    FootprintDrawn,
    FootprintsReshuffled,
    ResourcesChanged,
    SkillAdvanced,
    SkillMovedBack,
)
from games.footprints.evolve import evolve
from games.footprints.gains import Change, Ledger
from games.footprints.goals import Facts
from games.footprints.model import FireDuring, FootprintChoice, Pos
from games.footprints.state import Player, State

MAX_FIRE_SPACES = 3
FIRE_HAND_LIMIT = 3  # "more than 3 fire cards in hand, discard until you have only 3"


def illegal(code: str, message: str) -> IllegalAction:
    return IllegalAction(code, message)


_boards: dict[tuple[int, Layout, bool], MapBoard] = {}


def board_of(content: Content, state: State) -> MapBoard:
    layout = Layout(tiles=state.tiles, turned=state.turned, houses=state.houses)
    key = (id(content), layout, state.options.snake)
    if key not in _boards:
        _boards[key] = assemble(content, layout, snake=state.options.snake)
    return _boards[key]


class Table:
    def __init__(self, content: Content, state: State, rng: Rng | None) -> None:
        self.content = content
        self.state = state
        self._rng = rng  # None when only reading (legal actions): nothing is drawn then
        self.events: list[Event] = []
        self.board = board_of(content, state)
        # cards earned but not drawn yet: drawn by `settle` once the move's gains are made
        self.owed_fire = 0
        self.owed_footprints = 0

    @property
    def rng(self) -> Rng:
        if self._rng is None:
            raise RuntimeError("this table only reads: it draws nothing")
        return self._rng

    def emit(self, event: Event) -> None:
        self.state = evolve(self.content, self.state, event)
        self.events.append(event)

    # -- reading ---------------------------------------------------------------------------

    def player(self, seat: int) -> Player:
        return self.state.players[seat]

    def board_card(self, seat: int) -> Board:
        return self.content.boards[self.player(seat).clan]

    def skill(self, seat: int, terrain: Terrain) -> int:
        return self.player(seat).skills[TERRAINS.index(terrain)]

    def owned(self, seat: int, resource: str) -> int:
        return self.player(seat).resources[RESOURCES.index(resource)]

    def figures(self, but: int | None = None) -> set[Pos]:
        return {
            p.position
            for s, p in enumerate(self.state.players)
            if p.position is not None and s != but
        }

    def creations(self) -> set[Pos]:
        return {at for at, _, _ in self.state.engraved}

    def facts(self, seat: int) -> Facts:
        """What `seat`'s footprint cards' goals are checked against (goals.py:complete)."""
        p = self.player(seat)
        return Facts(
            skills=dict(zip(TERRAINS, p.skills, strict=True)),
            resources={r: self.owned(seat, r) for r in ("stone", "mammoth", "wood", "berries")},
            engravings=p.engravings,
            cave_painting=p.cave_site is not None,
        )

    # -- gains -----------------------------------------------------------------------------

    def ledger(self, seat: int) -> Ledger:
        p = self.player(seat)
        return Ledger(skills=p.skills, resources=p.resources)

    def _book(self, seat: int, led: Ledger, log: list[Change]) -> None:
        """Emit the changes `gains` worked out, and owe the cards it counted."""
        for kind, name, value in log:
            match kind:
                case "skill":
                    self.emit(SkillAdvanced(seat=seat, terrain=name, level=value))  # type: ignore[arg-type]
                case "back":
                    self.emit(SkillMovedBack(seat=seat, terrain=name, level=value))  # type: ignore[arg-type]
                case "resource":
                    self.emit(ResourcesChanged(seat=seat, resource=name, change=value))  # type: ignore[arg-type]
        self.owed_fire += led.fire
        self.owed_footprints += led.footprints

    def collect(self, seat: int, bonuses: Iterable[Bonus], any_skill: list[Terrain]) -> None:
        """Collect in order; a skill advance's own bonuses come right after it. An "any
        skill" bonus takes the next of `any_skill` (the lowest skill when none is left).
        Fire and footprint cards are owed, drawn by `settle` when the move is done."""
        log: list[Change] = []
        led = gains.gain(self.board_card(seat).tracks, self.ledger(seat), bonuses, any_skill, log)
        self._book(seat, led, log)

    def advance(self, seat: int, terrain: Terrain, steps: int) -> list[Bonus]:
        """Move a marker on; the bonuses it passed are returned, to collect."""
        log: list[Change] = []
        led, passed = gains.advance(
            self.board_card(seat).tracks, self.ledger(seat), terrain, steps, log
        )
        self._book(seat, led, log)
        return passed

    def pay(self, seat: int, cost: Mapping[Resource, int], what: str) -> None:
        for resource, n in cost.items():
            if self.owned(seat, resource) < n:
                raise illegal("cannot_afford", f"{what} costs {n} {resource}")
        for resource, n in cost.items():
            self.emit(ResourcesChanged(seat=seat, resource=resource, change=-n))

    def draw_fire(self, seat: int) -> None:
        if not self.state.fire_deck and self.state.fire_discard:
            self.emit(FireReshuffled(count=len(self.state.fire_discard)))
        if self.state.fire_deck:
            self.emit(FireDrawn(seat=seat, card=self.rng.choice(self.state.fire_deck)))

    def draw_footprint(self, seat: int) -> str | None:
        if not self.state.footprint_deck and self.state.footprint_discard:
            self.emit(FootprintsReshuffled(count=len(self.state.footprint_discard)))
        if not self.state.footprint_deck:
            # "If there are no discarded cards, the bonus is cancelled."
            self.emit(BonusLost(seat=seat))
            return None
        card = self.rng.choice(self.state.footprint_deck)
        self.emit(FootprintDrawn(seat=seat, card=card))
        return card

    def settle(self, seat: int) -> None:
        """Draw the cards the move earned: footprint cards first, one at a time, each to be
        kept or discarded at once (the game waits, and the rest waits with it), then the
        fire cards."""
        while self.owed_footprints:
            self.owed_footprints -= 1
            card = self.draw_footprint(seat)
            if card is not None:
                choice = FootprintChoice(
                    seat=seat,
                    cards=(card,),
                    then=self.state.pending,
                    footprints=self.owed_footprints,
                    fire=self.owed_fire,
                )
                self.owed_footprints = self.owed_fire = 0
                self.emit(ChoicesOpened(pending=choice))
                return
        while self.owed_fire:
            self.owed_fire -= 1
            self.draw_fire(seat)

    # -- fire cards ------------------------------------------------------------------------

    def fire_effects(self, seat: int, fire: str, any_skill: list[Terrain]) -> None:
        """A fire card's costs and gains (its move is made by the action that uses it)."""
        log: list[Change] = []
        effects = self.content.fire_cards[fire].effects
        try:
            led = gains.use_fire(
                self.board_card(seat).tracks, self.ledger(seat), effects, any_skill, log
            )
        except gains.Unaffordable as exc:
            raise illegal("cannot_afford", str(exc)) from exc
        self._book(seat, led, log)

    def fire_move(self, fire: str | None) -> Move | None:
        if fire is None:
            return None
        return next((e for e in self.content.fire_cards[fire].effects if isinstance(e, Move)), None)

    # -- moving ----------------------------------------------------------------------------

    def move_top(
        self,
        seat: int,
        terrain: Terrain,
        plus: int,
        extra: Terrain | None,
        path: Sequence[Pos],
        fire: str | None,
        fire_at: int | None,
        fire_path: Sequence[Pos],
        any_skill: list[Terrain],
    ) -> None:
        """A top action (and the fire card played with it, activated after `fire_at` steps).
        Bonuses come from the unoccupied spaces passed or stopped on, after all movement."""
        start = self.player(seat).position
        if start is None:
            if path or fire_path:
                raise illegal("on_cairn_track", "your figure is on the cairn track")
            start = (-99, -99)
        fire_at = self._check_fire_timing(fire, fire_at, len(path), fire_path)
        if fire is not None and fire_at == 0:
            self.fire_effects(seat, fire, any_skill)  # before: it may raise the skill used
        # the allowance is set when moving starts (our ruling)
        move = TopMove(terrain=terrain, level=self.skill(seat, terrain) + plus, extra=extra)
        first, second = list(path[: fire_at or 0]), list(path[fire_at or 0 :])
        if fire_at is None:
            first, second = list(path), []
        try:
            check_path(self.board, start, first)
            here = first[-1] if first else start
            check_path(self.board, here, fire_path)
            here = fire_path[-1] if fire_path else here
            check_path(self.board, here, second)
            check_top_steps(self.board, first + second, move)
            self._check_fire_steps(fire, fire_path)
        except IllegalMove as exc:
            raise illegal(exc.code, str(exc)) from exc
        full = [*first, *fire_path, *second]
        others = self.figures(but=seat)
        if full and full[-1] in others:
            raise illegal("occupied", "you may move through figures but not end on one")
        if fire is not None and fire_at and fire_at == len(path):
            # after the action: its movement and bonuses first, then the card (and its move)
            if first:
                self.emit(FigureMoved(seat=seat, path=tuple(first)))
            self.collect(seat, self._space_bonuses(first, others), any_skill)
            self.fire_effects(seat, fire, any_skill)
            if fire_path:
                self.emit(FigureMoved(seat=seat, path=tuple(fire_path)))
                fresh = [p for p in fire_path if p not in first]
                self.collect(seat, self._space_bonuses(fresh, others), any_skill)
            return
        if full:
            self.emit(FigureMoved(seat=seat, path=tuple(full)))
        if fire is not None and fire_at:
            self.fire_effects(seat, fire, any_skill)  # during: before the rest is done
        self.collect(seat, self._space_bonuses(full, others), any_skill)

    def _check_fire_timing(
        self, fire: str | None, fire_at: int | None, steps: int, fire_path: Sequence[Pos]
    ) -> int | None:
        if fire is None:
            if fire_at is not None or fire_path:
                raise illegal("no_fire_card", "no fire card was played with this card")
            return None
        if fire_at is None:
            if fire_path:
                raise illegal("fire_not_used", "say when the fire card is used (fire_at)")
            return None
        if not 0 <= fire_at <= steps:
            raise illegal("bad_fire_timing", f"fire_at is between 0 and {steps}")
        return fire_at

    def _check_fire_steps(self, fire: str | None, fire_path: Sequence[Pos]) -> None:
        move = self.fire_move(fire)
        if not fire_path:
            return
        if move is None:
            raise IllegalMove("fire_has_no_move", "this fire card has no move")
        if len(fire_path) > min(move.spaces, MAX_FIRE_SPACES):
            raise IllegalMove("too_far", f"the fire card moves {move.spaces} spaces or fewer")
        if any(not self.board.has(p, move.terrain) for p in fire_path):
            raise IllegalMove("wrong_terrain", f"the fire card moves over {move.terrain} only")

    def _space_bonuses(self, path: Sequence[Pos], others: set[Pos]) -> list[Bonus]:
        bonuses: list[Bonus] = []
        for pos in collected(self.board, path, others):
            bonus = self.board.places[pos].bonus
            if bonus is not None:
                bonuses.append(bonus)
        return bonuses

    def move_bottom(
        self,
        seat: int,
        terrain: Terrain,
        extra: Terrain | None,
        to: Pos | None,
        fire: str | None,
        fire_at: int | None,
        fire_path: Sequence[Pos],
        any_skill: list[Terrain],
        during: FireDuring | None = None,
    ) -> None:
        """Advance the skill (and the extra one), and move to the next unoccupied space; the
        fire card before it, after it, or (`during`) between the advance and the move."""
        if during is not None:
            if fire is None:
                raise illegal("no_fire_card", "no fire card was played with this card")
            if fire_at is not None:
                raise illegal("bad_fire_timing", "give fire_at or fire_during, not both")
            self._bottom_during(seat, terrain, extra, to, fire, during, fire_path, any_skill)
            return
        fire_at = self._check_fire_timing(fire, fire_at, 1, fire_path)
        start = self.player(seat).position
        others = self.figures(but=seat)
        moved: list[Pos] = []
        if fire is not None and fire_at == 0:
            moved += self._fire_walk(seat, fire, fire_path, start)
            self.fire_effects(seat, fire, any_skill)
            start = self.player(seat).position
        bonuses = self.advance(seat, terrain, 1)
        if extra is not None:
            bonuses += self.advance(seat, extra, 1)
        self.collect(seat, bonuses, any_skill)
        if start is None:
            if to is not None:
                raise illegal("on_cairn_track", "your figure is on the cairn track")
        else:
            ends = bottom_destinations(self.board, start, others)
            if to not in ends:
                raise illegal(
                    "not_next_space", f"{to} is not the next unoccupied space from {start}"
                )
            self.emit(FigureMoved(seat=seat, path=(to,)))
            moved.append(to)
        # the action's bonuses after all its movement; a fire card used after comes next
        self.collect(seat, self._space_bonuses(moved, others), any_skill)
        if fire is not None and fire_at == 1:
            self.fire_effects(seat, fire, any_skill)
            walked = self._fire_walk(seat, fire, fire_path, self.player(seat).position)
            if walked and walked[-1] in others:
                raise illegal("occupied", "you may move through figures but not end on one")
            fresh = [p for p in walked if p not in moved]
            self.collect(seat, self._space_bonuses(fresh, others), any_skill)

    def _bottom_during(
        self,
        seat: int,
        terrain: Terrain,
        extra: Terrain | None,
        to: Pos | None,
        fire: str,
        during: FireDuring,
        fire_path: Sequence[Pos],
        any_skill: list[Terrain],
    ) -> None:
        """A bottom action with the fire card used between its two halves (rules version 2):
        advance, the card, move ("after_advance"), or move, the card, advance
        ("after_move"). The card's own move goes with it, as before or after the action."""
        others = self.figures(but=seat)

        def climb() -> None:
            bonuses = self.advance(seat, terrain, 1)
            if extra is not None:
                bonuses += self.advance(seat, extra, 1)
            self.collect(seat, bonuses, any_skill)

        def step() -> list[Pos]:
            start = self.player(seat).position
            if start is None:
                if to is not None:
                    raise illegal("on_cairn_track", "your figure is on the cairn track")
                return []
            if to not in bottom_destinations(self.board, start, others):
                raise illegal(
                    "not_next_space", f"{to} is not the next unoccupied space from {start}"
                )
            self.emit(FigureMoved(seat=seat, path=(to,)))
            return [to]

        if during == "after_advance":
            climb()
            moved = self._fire_walk(seat, fire, fire_path, self.player(seat).position)
            self.fire_effects(seat, fire, any_skill)
            moved += step()
            self.collect(seat, self._space_bonuses(moved, others), any_skill)
            return
        moved = step()
        self.collect(seat, self._space_bonuses(moved, others), any_skill)
        self.fire_effects(seat, fire, any_skill)
        walked = self._fire_walk(seat, fire, fire_path, self.player(seat).position)
        if walked and walked[-1] in others:
            raise illegal("occupied", "you may move through figures but not end on one")
        fresh = [p for p in walked if p not in moved]
        self.collect(seat, self._space_bonuses(fresh, others), any_skill)
        climb()

    def _fire_walk(self, seat: int, fire: str, path: Sequence[Pos], start: Pos | None) -> list[Pos]:
        if not path:
            return []
        if start is None:
            raise illegal("on_cairn_track", "your figure is on the cairn track")
        try:
            check_path(self.board, start, path)
            self._check_fire_steps(fire, path)
        except IllegalMove as exc:
            raise illegal(exc.code, str(exc)) from exc
        self.emit(FigureMoved(seat=seat, path=tuple(path)))
        return list(path)
