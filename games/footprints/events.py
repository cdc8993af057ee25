"""The events of Footprints: what happened, as the log keeps it (all frozen Structs)."""

from __future__ import annotations

from typing import Literal

import msgspec

from games.footprints.content import Resource, Terrain
from games.footprints.model import AnyPending, Options, Phase, Pos


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class GameSetUp(Event, frozen=True, tag="game_set_up"):
    seats: int
    options: Options
    tiles: tuple[str, ...]
    turned: tuple[bool, ...]
    houses: tuple[tuple[str, int], ...]
    caves: tuple[tuple[str, str], ...]  # site -> cave token, face up
    clans: tuple[str, ...]  # per seat
    first_seat: int
    rules: int = 1  # the rules version the game plays under (games/api.Rules.rules_version)


class DeckBuilt(Event, frozen=True, tag="deck_built"):
    """The clan deck: `top` (shuffled, holds the leader(s)) over `bottom`; no order kept.
    Which followers lie in which part is nobody's to know: every copy hides both."""

    seat: int
    top: tuple[str, ...] | None
    bottom: tuple[str, ...] | None
    top_count: int


class LeaderChosen(Event, frozen=True, tag="leader_chosen"):
    seat: int
    leader: str | None  # None in another seat's copy


class StartingFootprints(Event, frozen=True, tag="starting_footprints"):
    """The footprint cards dealt to a seat, seen by that seat alone (None in the others'
    copies); the one kept is placed face up (`FootprintKept`)."""

    seat: int
    cards: tuple[str, ...] | None


class FootprintKept(Event, frozen=True, tag="footprint_kept"):
    seat: int
    card: str


class FootprintDiscarded(Event, frozen=True, tag="footprint_discarded"):
    seat: int
    card: str


class FootprintsReturned(Event, frozen=True, tag="footprints_returned"):
    """Advanced setup: the two cards `seat` did not keep go back into the deck unseen (None
    in the others' copies)."""

    cards: tuple[str, ...] | None
    seat: int | None = None  # None only in events recorded before it was named


class ChoicesOpened(Event, frozen=True, tag="choices_opened"):
    pending: AnyPending | None  # None: nothing left to wait for


class PanelFilled(Event, frozen=True, tag="panel_filled"):
    """A clan card drawn onto the panel, face up."""

    seat: int
    card: str


class FigurePlaced(Event, frozen=True, tag="figure_placed"):
    seat: int
    at: Pos


class TurnBegan(Event, frozen=True, tag="turn_began"):
    seat: int


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: int
    card: str
    fire: str | None


class FigureMoved(Event, frozen=True, tag="figure_moved"):
    seat: int
    path: tuple[Pos, ...]


class SkillAdvanced(Event, frozen=True, tag="skill_advanced"):
    seat: int
    terrain: Terrain
    level: int


class SkillMovedBack(Event, frozen=True, tag="skill_moved_back"):
    seat: int
    terrain: Terrain
    level: int


class ResourcesChanged(Event, frozen=True, tag="resources_changed"):
    seat: int
    resource: Resource
    change: int


class FireDrawn(Event, frozen=True, tag="fire_drawn"):
    seat: int
    card: str | None  # None in another seat's copy


class FireReshuffled(Event, frozen=True, tag="fire_reshuffled"):
    count: int


class FootprintDrawn(Event, frozen=True, tag="footprint_drawn"):
    """A footprint card drawn as a bonus: its owner keeps or discards it next (face up)."""

    seat: int
    card: str


class FootprintsReshuffled(Event, frozen=True, tag="footprints_reshuffled"):
    count: int


class BonusLost(Event, frozen=True, tag="bonus_lost"):
    """A footprint bonus with no card left anywhere is cancelled."""

    seat: int


class EngravingBuilt(Event, frozen=True, tag="engraving_built"):
    seat: int
    terrain: Terrain
    at: Pos


class CavePaintingBuilt(Event, frozen=True, tag="cave_painting_built"):
    seat: int
    site: str


class PowerUsed(Event, frozen=True, tag="power_used"):
    seat: int
    terrain: Terrain
    paid: int


class StepDone(Event, frozen=True, tag="step_done"):
    """The turn moves on to `phase` (the current step was done or skipped); with both
    actions of a follower, `did` names the one just done ("top" or "bottom")."""

    seat: int
    phase: Phase
    did: str | None = None


class FireDiscarded(Event, frozen=True, tag="fire_discarded"):
    seat: int
    cards: tuple[str, ...]  # face up on the shared discard


class FootprintCompleted(Event, frozen=True, tag="footprint_completed"):
    seat: int
    card: str


class FootprintsRenewed(Event, frozen=True, tag="footprints_renewed"):
    seat: int
    discarded: tuple[str, ...]


class ReachedCairn(Event, frozen=True, tag="reached_cairn"):
    seat: int
    points: int


class EndTriggered(Event, frozen=True, tag="end_triggered"):
    seat: int
    reason: Literal["cairn", "empty_panel"]


class GameEnded(Event, frozen=True, tag="game_ended"):
    scores: tuple[int, ...]
    parts: tuple[dict[str, int], ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    solo: tuple[int, bool, str] | None  # final points, won, achievement
    tie_break: str | None = None  # "skill_total" or "shared" when the most points tied


AnyEvent = (
    GameSetUp
    | DeckBuilt
    | LeaderChosen
    | StartingFootprints
    | FootprintKept
    | FootprintDiscarded
    | FootprintsReturned
    | ChoicesOpened
    | PanelFilled
    | FigurePlaced
    | TurnBegan
    | CardPlayed
    | FigureMoved
    | SkillAdvanced
    | SkillMovedBack
    | ResourcesChanged
    | FireDrawn
    | FireReshuffled
    | FootprintDrawn
    | FootprintsReshuffled
    | BonusLost
    | EngravingBuilt
    | CavePaintingBuilt
    | PowerUsed
    | StepDone
    | FireDiscarded
    | FootprintCompleted
    | FootprintsRenewed
    | ReachedCairn
    | EndTriggered
    | GameEnded
)
