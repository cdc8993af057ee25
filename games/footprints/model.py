"""Options, actions, events and state of Footprints (all frozen Structs).

Positions are [row, column] pairs over the whole map (see board.py); a figure on a house
tile is in column -1.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from games.footprints.content import Resource, Terrain

Pos = tuple[int, int]
Phase = Literal["setup", "play", "act", "act_again", "build", "power", "discard", "over"]
FireDuring = Literal["after_advance", "after_move"]  # a fire card during a bottom action


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Room options. A one-seat room is the solo mode."""

    advanced: bool = False  # secret leader choice; three footprint cards, keep one
    snake: bool = False  # the "Snake" map (no Recluse or Scout)
    two_leaders: bool = False  # both leaders in the clan deck


# -- questions: what one seat must answer (games/questions.py) -----------------------------


class Question(msgspec.Struct, frozen=True, tag_field="kind"):
    """What a seat is asked, in its `view.private.questions`; its answers name it."""

    seat: int  # who answers


class LeaderQuestion(Question, frozen=True, kw_only=True, tag="leader"):
    """Advanced setup: the leader to shuffle into your deck, in secret, of `leaders`."""

    leaders: tuple[str, ...]


class StartingFootprintQuestion(Question, frozen=True, kw_only=True, tag="starting_footprint"):
    """Advanced setup: the footprint card to keep of the three dealt (shown to you alone)."""

    cards: tuple[str, ...]


class PlaceQuestion(Question, frozen=True, kw_only=True, tag="place"):
    """Starting positions: the house tile to place your figure on, by row (free ones)."""

    rows: tuple[int, ...]


class FootprintQuestion(Question, frozen=True, kw_only=True, tag="footprint"):
    """A footprint card drawn as a bonus (face up): keep it on your board or discard it."""

    cards: tuple[str, ...]  # the card drawn (one)


class DiscardFireQuestion(Question, frozen=True, kw_only=True, tag="discard_fire"):
    """Step 5: discard `count` fire cards, down to three."""

    count: int


AnyQuestion = (
    LeaderQuestion
    | StartingFootprintQuestion
    | PlaceQuestion
    | FootprintQuestion
    | DiscardFireQuestion
)


# -- actions -------------------------------------------------------------------------------


class Action(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class ChooseLeader(Action, frozen=True, tag="choose_leader"):
    """Advanced setup: the leader shuffled into your deck (secret). `question`, in every
    answer: the question answered (every listed answer names it; none: the open one)."""

    leader: str
    question: LeaderQuestion | None = None


class KeepStartingFootprint(Action, frozen=True, tag="keep_starting_footprint"):
    """Advanced setup: the one of three footprint cards you keep."""

    card: str
    question: StartingFootprintQuestion | None = None


class PlaceFigure(Action, frozen=True, tag="place_figure"):
    """Starting positions: the row of an unoccupied house tile."""

    row: int
    any_skill: tuple[Terrain, ...] = ()
    question: PlaceQuestion | None = None


class Play(Action, frozen=True, tag="play"):
    """Step 1: a clan card of your panel, and optionally a fire card (not with a leader)."""

    card: str
    fire: str | None = None


class Top(Action, frozen=True, tag="top"):
    """A follower's top action. `path` lists the spaces entered in order. A fire card is
    activated after `fire_at` of those steps (0: before; len(path): after; None: not used);
    a fire card's own move (`fire_path`) starts there."""

    path: tuple[Pos, ...]
    fire_at: int | None = None
    fire_path: tuple[Pos, ...] = ()
    any_skill: tuple[Terrain, ...] = ()


class Bottom(Action, frozen=True, tag="bottom"):
    """A follower's bottom action: advance, and move to `to` (next to you, or past a line of
    figures). The fire card is used before (`fire_at` 0) or after (1) it, or not (None); or,
    since rules version 2, during it (`fire_during`, `fire_at` left out): between the
    advance and the move, in either order of the two."""

    to: Pos | None  # None only for a figure already on the cairn track
    fire_at: int | None = None
    fire_path: tuple[Pos, ...] = ()
    any_skill: tuple[Terrain, ...] = ()
    # "after_advance": advance, the fire card, then move; "after_move": move, the fire card,
    # then advance (rules version 2; version 1 refuses it)
    fire_during: FireDuring | None = None


class Lead(Action, frozen=True, tag="lead"):
    """Step 2 with a leader: the fields its ability asks for (see the catalog's content)."""

    terrains: tuple[Terrain, ...] = ()
    resources: tuple[Resource, ...] = ()
    give: tuple[Resource, ...] = ()
    path: tuple[Pos, ...] = ()
    to: Pos | None = None
    cards: tuple[str, ...] = ()
    follower: str | None = None
    top: Top | None = None
    bottom: Bottom | None = None
    any_skill: tuple[Terrain, ...] = ()


class BuildEngraving(Action, frozen=True, tag="build_engraving"):
    terrain: Terrain
    at: Pos
    any_skill: tuple[Terrain, ...] = ()


class BuildCavePainting(Action, frozen=True, tag="build_cave_painting"):
    site: str
    any_skill: tuple[Terrain, ...] = ()


class UsePower(Action, frozen=True, tag="use_power"):
    """Step 4: pay `pay` resources of an engraving's power kind, advance its skill as often."""

    terrain: Terrain
    pay: int
    any_skill: tuple[Terrain, ...] = ()


class Skip(Action, frozen=True, tag="skip"):
    """Skip an optional step (build, engraving power)."""


class DiscardFire(Action, frozen=True, tag="discard_fire"):
    """Step 5: down to three fire cards in hand."""

    cards: tuple[str, ...]
    question: DiscardFireQuestion | None = None


class CompleteFootprint(Action, frozen=True, tag="complete_footprint"):
    """At any point of your turn: flip a footprint card whose goals are all met."""

    card: str


class DecideFootprint(Action, frozen=True, tag="decide_footprint"):
    """Answer to a footprint card drawn as a bonus: keep it on your board or discard it
    (`card`: which of the cards waiting; the first when left out)."""

    keep: bool
    card: str | None = None
    question: FootprintQuestion | None = None


AnyAction = (
    ChooseLeader
    | KeepStartingFootprint
    | PlaceFigure
    | Play
    | Top
    | Bottom
    | Lead
    | BuildEngraving
    | BuildCavePainting
    | UsePower
    | Skip
    | DiscardFire
    | CompleteFootprint
    | DecideFootprint
)


# -- what the game waits for ---------------------------------------------------------------


class Pending(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    pass


class SetupChoices(Pending, frozen=True, tag="setup_choices"):
    """Advanced setup: seats still choosing a leader and/or a footprint card, at once."""

    leaders: tuple[int, ...]
    footprints: tuple[tuple[int, tuple[str, ...]], ...]  # seat -> the three cards dealt


class PlaceNext(Pending, frozen=True, tag="place"):
    order: tuple[int, ...]  # seats still to place, the next first


class FootprintChoice(Pending, frozen=True, tag="footprint_choice"):
    """A footprint card drawn as a bonus, to keep or discard at once; the cards the same
    move earned after it are drawn once it is decided."""

    seat: int
    cards: tuple[str, ...]  # the card drawn (one)
    then: AnyPending | None = None  # what the game waited for before (setup placing)
    footprints: int = 0  # footprint cards still to draw, each decided in turn
    fire: int = 0  # fire cards to draw after them


AnyPending = SetupChoices | PlaceNext | FootprintChoice


# -- events --------------------------------------------------------------------------------


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


# -- state ---------------------------------------------------------------------------------


class Player(msgspec.Struct, frozen=True, kw_only=True):
    clan: str
    position: Pos | None = None  # None before placing, and once on the cairn track
    cairn_points: int | None = None
    skills: tuple[int, int, int, int] = (2, 2, 2, 2)  # mountain, ice, forest, swamp
    resources: tuple[int, int, int, int] = (0, 0, 0, 0)  # stone, mammoth, wood, berries
    deck_top: tuple[str, ...] = ()  # drawn first, in random order
    deck_bottom: tuple[str, ...] = ()
    leader: str | None = None  # the leader in the deck (hidden in advanced setup)
    panel: tuple[str, ...] = ()
    played: tuple[str, ...] = ()  # the clan discard pile, face up
    fire_hand: tuple[str, ...] = ()
    footprints: tuple[str, ...] = ()  # on the footprint board, face up
    completed: tuple[str, ...] = ()
    engravings: tuple[Terrain, ...] = ()
    cave_site: str | None = None
    turns: int = 0


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """The current turn's progress."""

    seat: int
    phase: Phase = "play"
    card: str | None = None
    fire: str | None = None
    both: bool = False  # the fire card lets this follower do both actions
    done_actions: tuple[str, ...] = ()  # "top" / "bottom", for both actions
    built: int = 0
    builds_allowed: int = 1


class State(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    options: Options
    rules: int = 1  # the rules version it began under: decide keeps to it
    tiles: tuple[str, ...]
    turned: tuple[bool, ...]
    houses: tuple[tuple[str, int], ...]
    caves: tuple[tuple[str, str], ...]
    first_seat: int
    players: tuple[Player, ...]
    fire_deck: tuple[str, ...]  # sorted: drawn at random in decide
    fire_discard: tuple[str, ...] = ()
    footprint_deck: tuple[str, ...] = ()
    footprint_discard: tuple[str, ...] = ()
    engraved: tuple[tuple[Pos, int, Terrain], ...] = ()  # where, by whom, which
    cairn_track: tuple[int, ...] = ()  # seats in order of arrival
    turn: Turn | None = None
    pending: AnyPending | None = None
    end_triggered: bool = False
    result: GameEnded | None = None
