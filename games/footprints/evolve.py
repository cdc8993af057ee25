"""The fold: one pure step per event."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from games.footprints.content import (
    RESOURCES,
    TERRAINS,
    BothActions,
    Content,
    Follower,
    Leader,
    clan_card,
)
from games.footprints.events import (
    BonusLost,
    CardPlayed,
    CavePaintingBuilt,
    ChoicesOpened,
    DeckBuilt,
    EndTriggered,
    EngravingBuilt,
    Event,
    FigureMoved,
    FigurePlaced,
    FireDiscarded,
    FireDrawn,
    FireReshuffled,
    FootprintCompleted,
    FootprintDiscarded,
    FootprintDrawn,
    FootprintKept,
    FootprintsRenewed,
    FootprintsReshuffled,
    FootprintsReturned,
    GameEnded,
    GameSetUp,
    LeaderChosen,
    PanelFilled,
    PowerUsed,
    ReachedCairn,
    ResourcesChanged,
    SkillAdvanced,
    SkillMovedBack,
    StartingFootprints,
    StepDone,
    TurnBegan,
)
from games.footprints.model import FootprintChoice, SetupChoices
from games.footprints.state import Player, State, Turn


def _without(cards: tuple[str, ...], *gone: str) -> tuple[str, ...]:
    out = list(cards)
    for card in gone:
        out.remove(card)
    return tuple(out)


def _player(state: State, seat: int, **changes: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def _set(values: tuple[int, int, int, int], index: int, value: int) -> tuple[int, int, int, int]:
    out = list(values)
    out[index] = value
    return (out[0], out[1], out[2], out[3])


def _owed(state: State, seat: int, card: str) -> State:
    """A footprint card decided: off the pending list (and back to what was waited for)."""
    pending = state.pending
    if not isinstance(pending, FootprintChoice) or pending.seat != seat:
        return state
    rest = _without(pending.cards, card)
    return replace(state, pending=replace(pending, cards=rest) if rest else pending.then)


def evolve(content: Content, state: State | None, event: Event) -> State:
    if state is None:
        match event:
            case GameSetUp():
                return State(
                    seats=event.seats,
                    options=event.options,
                    rules=event.rules,
                    tiles=event.tiles,
                    turned=event.turned,
                    houses=event.houses,
                    caves=event.caves,
                    first_seat=event.first_seat,
                    players=tuple(Player(clan=clan) for clan in event.clans),
                    fire_deck=tuple(sorted(content.fire_cards)),
                    footprint_deck=tuple(sorted(content.footprint_cards)),
                )
        raise ValueError(f"a game starts with game_set_up, not {type(event).__name__}")
    match event:
        case DeckBuilt(seat=seat, top=top, bottom=bottom):
            assert top is not None and bottom is not None, "evolve needs the unredacted event"
            leaders = [c for c in top if "-leader-" in c]
            return _player(
                state,
                seat,
                deck_top=top,
                deck_bottom=bottom,
                leader=leaders[0] if leaders else None,
            )
        case LeaderChosen(seat=seat, leader=leader):
            assert leader is not None, "evolve needs the unredacted event"
            pending = state.pending
            if isinstance(pending, SetupChoices):
                pending = replace(pending, leaders=tuple(s for s in pending.leaders if s != seat))
            p = state.players[seat]
            state = _player(state, seat, leader=leader, deck_top=(*p.deck_top, leader))
            return replace(state, pending=pending)
        case StartingFootprints(cards=cards):
            assert cards is not None, "evolve needs the unredacted event"
            return replace(state, footprint_deck=_without(state.footprint_deck, *cards))
        case FootprintKept(seat=seat, card=card):
            p = state.players[seat]
            state = _player(state, seat, footprints=(*p.footprints, card))
            return _settled_setup(_owed(state, seat, card), seat)
        case FootprintDiscarded(seat=seat, card=card):
            state = replace(state, footprint_discard=(*state.footprint_discard, card))
            return _settled_setup(_owed(state, seat, card), seat)
        case FootprintsReturned(cards=cards):
            assert cards is not None, "evolve needs the unredacted event"
            return replace(state, footprint_deck=tuple(sorted(state.footprint_deck + cards)))
        case ChoicesOpened(pending=pending):
            if isinstance(pending, FootprintChoice) and isinstance(state.pending, FootprintChoice):
                pending = replace(state.pending, cards=state.pending.cards + pending.cards)
            return replace(state, pending=pending)
        case PanelFilled(seat=seat, card=card):
            p = state.players[seat]
            if card in p.deck_top:
                return _player(
                    state, seat, deck_top=_without(p.deck_top, card), panel=(*p.panel, card)
                )
            return _player(
                state, seat, deck_bottom=_without(p.deck_bottom, card), panel=(*p.panel, card)
            )
        case FigurePlaced(seat=seat, at=at):
            return _player(state, seat, position=at)
        case TurnBegan(seat=seat):
            return replace(state, turn=Turn(seat=seat))
        case CardPlayed(seat=seat, card=card, fire=fire):
            p = state.players[seat]
            hand = _without(p.fire_hand, fire) if fire else p.fire_hand
            state = _player(
                state, seat, panel=_without(p.panel, card), played=(*p.played, card), fire_hand=hand
            )
            assert state.turn is not None
            both = fire is not None and _both_actions(content, fire, card)
            builds = 2 if _ability(content, card) == "build_twice" else 1
            return replace(
                state,
                turn=replace(
                    state.turn, phase="act", card=card, fire=fire, both=both, builds_allowed=builds
                ),
            )
        case FigureMoved(seat=seat, path=path):
            return _player(state, seat, position=path[-1]) if path else state
        case (
            SkillAdvanced(seat=seat, terrain=terrain, level=level)
            | SkillMovedBack(seat=seat, terrain=terrain, level=level)
        ):
            skills = _set(state.players[seat].skills, TERRAINS.index(terrain), level)
            return _player(state, seat, skills=skills)
        case ResourcesChanged(seat=seat, resource=resource, change=change):
            p = state.players[seat]
            i = RESOURCES.index(resource)
            return _player(state, seat, resources=_set(p.resources, i, p.resources[i] + change))
        case FireDrawn(seat=seat, card=card):
            assert card is not None, "evolve needs the unredacted event"
            p = state.players[seat]
            state = replace(state, fire_deck=_without(state.fire_deck, card))
            return _player(state, seat, fire_hand=(*p.fire_hand, card))
        case FireReshuffled():
            return replace(
                state,
                fire_deck=tuple(sorted(state.fire_deck + state.fire_discard)),
                fire_discard=(),
            )
        case FootprintDrawn(card=card):
            return replace(state, footprint_deck=_without(state.footprint_deck, card))
        case FootprintsReshuffled():
            deck = tuple(sorted(state.footprint_deck + state.footprint_discard))
            return replace(state, footprint_deck=deck, footprint_discard=())
        case EngravingBuilt(seat=seat, terrain=terrain, at=at):
            p = state.players[seat]
            state = _player(state, seat, engravings=(*p.engravings, terrain))
            return replace(
                state, engraved=(*state.engraved, (at, seat, terrain)), turn=_built(state.turn)
            )
        case CavePaintingBuilt(seat=seat, site=site):
            state = _player(state, seat, cave_site=site)
            return replace(state, turn=_built(state.turn))
        case PowerUsed() | BonusLost():
            return (
                state  # the payment and the advances are their own events; a lost bonus is nothing
            )
        case StepDone(phase=phase, did=did):
            assert state.turn is not None
            turn = state.turn
            if phase == "act_again":  # both actions: the one just done, then the other
                done = (*turn.done_actions, did or "")
                return replace(state, turn=replace(turn, phase="act", done_actions=done))
            if phase == "over":
                p = state.players[turn.seat]
                state = _player(state, turn.seat, turns=p.turns + 1)
            return replace(state, turn=replace(turn, phase=phase))
        case FireDiscarded(seat=seat, cards=cards):
            p = state.players[seat]
            kept = tuple(c for c in p.fire_hand if c not in cards)
            state = _player(state, seat, fire_hand=kept)
            spent = state.turn
            if spent is not None and spent.fire in cards:  # the card played is spent
                spent = replace(spent, fire=None)
            return replace(state, fire_discard=state.fire_discard + cards, turn=spent)
        case FootprintCompleted(seat=seat, card=card):
            p = state.players[seat]
            return _player(
                state, seat, footprints=_without(p.footprints, card), completed=(*p.completed, card)
            )
        case FootprintsRenewed(seat=seat, discarded=cards):
            p = state.players[seat]
            state = _player(state, seat, footprints=_without(p.footprints, *cards))
            return replace(state, footprint_discard=state.footprint_discard + cards)
        case ReachedCairn(seat=seat, points=points):
            state = _player(state, seat, position=None, cairn_points=points)
            return replace(state, cairn_track=(*state.cairn_track, seat))
        case EndTriggered():
            return replace(state, end_triggered=True)
        case GameEnded():
            return replace(state, result=event, turn=None, pending=None)
    raise ValueError(f"unexpected event {type(event).__name__}")


def _built(turn: Turn | None) -> Turn | None:
    return replace(turn, built=turn.built + 1) if turn is not None else None


def _settled_setup(state: State, seat: int) -> State:
    """Advanced setup: a seat that kept its starting card is no longer choosing one."""
    pending = state.pending
    if isinstance(pending, SetupChoices):
        rest = tuple((s, cards) for s, cards in pending.footprints if s != seat)
        pending = replace(pending, footprints=rest)
        return replace(state, pending=pending)
    return state


def _ability(content: Content, card: str) -> str | None:
    found = clan_card(content, card)
    return found.ability if isinstance(found, Leader) else None


def _both_actions(content: Content, fire: str, card: str) -> bool:
    found = clan_card(content, card)
    return isinstance(found, Follower) and any(
        isinstance(e, BothActions) and found.terrain in e.terrains
        for e in content.fire_cards[fire].effects
    )
