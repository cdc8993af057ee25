"""Options, questions, actions and what the game waits for, in Footprints (all frozen
Structs); the events are in events.py, the state in state.py.

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
