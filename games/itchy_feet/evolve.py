"""The fold: one pure step per event. Decide never mutates; it emits and folds through here."""

from __future__ import annotations

from typing import TypeVar

from msgspec.structs import replace

from games.itchy_feet.content import EXTENSIONS, Content
from games.itchy_feet.events import (
    ActionTaken,
    BonusAnswered,
    BonusOffered,
    CardDrawn,
    CardKept,
    CardPassed,
    CardsDealt,
    CardsDiscarded,
    CardStolen,
    CentreChanged,
    CharacterChosen,
    CharacterOffered,
    CharactersDealt,
    DiscardRequired,
    DiscardShuffledIn,
    Event,
    EventResolved,
    EventRevealed,
    ExtensionsShuffledIn,
    ForbiddenDisposed,
    GameDrawn,
    GameSetUp,
    GameWon,
    HandLimitMet,
    HomeChanged,
    PileReshuffled,
    PlannerChoice,
    Recycled,
    SkipScheduled,
    SpecialPlayed,
    StealAttempted,
    StealCancelled,
    TradeAccepted,
    TradeDeclined,
    TradeOffered,
    TradePassed,
    Travelled,
    TurnBegan,
    TurnSkipped,
)
from games.itchy_feet.model import (
    BonusOffer,
    CharacterPick,
    DiscardDown,
    KeepOne,
    Options,
    State,
    StealAnswer,
    TradeOffer,
)

CardIds = tuple[str, ...]
T = TypeVar("T")


def extension_types(options: Options) -> tuple[str, ...]:
    """The extension card types shuffled in ("some of them or just one")."""
    chosen = (options.events, options.special_items, options.forbidden_items, options.postcards)
    return tuple(t for t, on in zip(EXTENSIONS, chosen, strict=True) if on)


def extension_cards(content: Content, options: Options) -> CardIds:
    return tuple(sorted(c.id for c in content.of_type(*extension_types(options))))


def _without(cards: CardIds, *gone: str) -> CardIds:
    out = list(cards)
    for card in gone:
        out.remove(card)
    return tuple(out)


def _hand(state: State, seat: int, hand: CardIds) -> tuple[CardIds, ...]:
    return tuple(hand if i == seat else h for i, h in enumerate(state.hands))


def _at(values: tuple[T, ...], seat: int, value: T) -> tuple[T, ...]:
    return tuple(value if i == seat else v for i, v in enumerate(values))


def _to_discard(state: State, seat: int, cards: CardIds) -> State:
    return replace(
        state,
        hands=_hand(state, seat, _without(state.hands[seat], *cards)),
        discard=state.discard + cards,
    )


def evolve(content: Content, state: State | None, event: Event) -> State:
    if state is None:
        match event:
            case GameSetUp(seats=n, options=options, centre=centre, homes=homes, first_seat=first):
                items = tuple(sorted(c.id for c in content.of_type("item")))
                box = tuple(sorted(c.id for c in content.of_type("passport", *EXTENSIONS)))
                return State(
                    seats=n,
                    options=options,
                    rules=event.rules,
                    centre=centre,
                    homes=homes,
                    first_seat=first,
                    country_pile=tuple(sorted(set(content.countries) - {centre, *homes})),
                    visited_home=(False,) * n,
                    characters=(None,) * n,
                    hands=((),) * n,
                    draw_pile=items,
                    box=box,
                    skips=(0,) * n,
                )
        raise ValueError(f"a game starts with game_set_up, not {type(event).__name__}")
    match event:
        case CharactersDealt(characters=dealt):
            return replace(state, characters=dealt)
        case CharacterOffered(seat=seat, options=choices):
            return replace(state, pending=CharacterPick(seat=seat, options=choices))
        case CharacterChosen(seat=seat, character=char):
            chosen: tuple[str | None, ...] = _at(state.characters, seat, char)
            return replace(state, characters=chosen, pending=None)
        case CardsDealt(seat=seat, cards=cards):
            assert cards is not None, "evolve needs the unredacted event"
            pile = tuple(c for c in state.draw_pile if c not in cards)
            box = tuple(c for c in state.box if c not in cards)
            return replace(
                state, draw_pile=pile, box=box, hands=_hand(state, seat, state.hands[seat] + cards)
            )
        case ExtensionsShuffledIn():
            ext = extension_cards(content, state.options)
            return replace(
                state,
                draw_pile=tuple(sorted(state.draw_pile + ext)),
                box=tuple(c for c in state.box if c not in ext),
            )
        case TurnBegan(seat=seat):
            return replace(
                state, current=seat, turn=state.turn + 1, actions_left=1, trade_declined=False
            )
        case TurnSkipped(seat=seat):
            return replace(state, skips=_at(state.skips, seat, state.skips[seat] - 1))
        case ActionTaken():
            return replace(state, actions_left=state.actions_left - 1)
        case CardDrawn(seat=seat, card=card):
            assert card is not None, "evolve needs the unredacted event"
            return replace(
                state,
                draw_pile=_without(state.draw_pile, card),
                hands=_hand(state, seat, (*state.hands[seat], card)),
            )
        case PileReshuffled() | DiscardShuffledIn():
            return replace(
                state, draw_pile=tuple(sorted(state.draw_pile + state.discard)), discard=()
            )
        case EventRevealed(card=card):
            return replace(
                state, draw_pile=_without(state.draw_pile, card), revealed=(*state.revealed, card)
            )
        case EventResolved(card=card):
            return replace(
                state, revealed=_without(state.revealed, card), discard=(*state.discard, card)
            )
        case CentreChanged(old=old, new=new):
            pile = tuple(sorted((*_without(state.country_pile, new), old)))
            return replace(state, centre=new, country_pile=pile)
        case HomeChanged(seat=seat, old=old, new=new):
            pile = tuple(sorted((*_without(state.country_pile, new), old)))
            return replace(state, homes=_at(state.homes, seat, new), country_pile=pile)
        case SkipScheduled(seat=seat):
            return replace(state, skips=_at(state.skips, seat, state.skips[seat] + 1))
        case CardsDiscarded(seat=seat, cards=cards):
            return _to_discard(state, seat, cards)
        case CardPassed(from_seat=giver, to_seat=taker, card=card):
            assert card is not None, "evolve needs the unredacted event"
            state = replace(state, hands=_hand(state, giver, _without(state.hands[giver], card)))
            return replace(state, hands=_hand(state, taker, (*state.hands[taker], card)))
        case Recycled(seat=seat, discarded=paid, taken=taken):
            hand = (*_without(state.hands[seat], *paid), taken)
            discard = (*_without(state.discard, taken), *paid)
            return replace(state, hands=_hand(state, seat, hand), discard=discard)
        case TradeOffered(asker=asker, responder=responder, give=give, want=want):
            offer = TradeOffer(asker=asker, responder=responder, give=give, want=want)
            return replace(state, pending=offer)
        case TradeAccepted(asker=asker, responder=responder, given=given, received=received):
            state = replace(
                state,
                hands=_hand(state, asker, (*_without(state.hands[asker], *given), *received)),
            )
            state = replace(
                state,
                hands=_hand(
                    state, responder, (*_without(state.hands[responder], *received), *given)
                ),
            )
            return replace(state, pending=None)
        case TradePassed(responder=responder):
            assert isinstance(state.pending, TradeOffer)
            return replace(state, pending=replace(state.pending, responder=responder))
        case TradeDeclined():
            return replace(
                state, pending=None, actions_left=state.actions_left + 1, trade_declined=True
            )
        case BonusOffered(seats=seats, declined=declined):
            return replace(state, pending=BonusOffer(seats=seats, declined=declined))
        case BonusAnswered():
            assert isinstance(state.pending, BonusOffer)
            rest = state.pending.seats[1:]
            return replace(state, pending=replace(state.pending, seats=rest) if rest else None)
        case StealAttempted(thief=thief, victim=victim, discarded=paid, answer_needed=ask):
            if paid is not None:
                state = _to_discard(state, thief, (paid,))
            if ask:
                state = replace(state, pending=StealAnswer(thief=thief, victim=victim))
            return state
        case StealCancelled(victim=victim, card=card):
            return replace(_to_discard(state, victim, (card,)), pending=None)
        case CardStolen(thief=thief, victim=victim, card=card):
            assert card is not None, "evolve needs the unredacted event"
            state = replace(state, hands=_hand(state, victim, _without(state.hands[victim], card)))
            state = replace(state, hands=_hand(state, thief, (*state.hands[thief], card)))
            return replace(state, pending=None)
        case Travelled(seat=seat, destination=dest, paid=paid):
            state = _to_discard(state, seat, paid)
            if dest == "home":
                state = replace(state, visited_home=_at(state.visited_home, seat, True))
            return state
        case SpecialPlayed(seat=seat, card=card):
            state = _to_discard(state, seat, (card,))
            if content.kind(card) == "espresso":
                state = replace(state, actions_left=state.actions_left + 1)
            return state
        case ForbiddenDisposed(seat=seat, card=card, with_card=other):
            return _to_discard(state, seat, (card, other))
        case DiscardRequired(counts=counts):
            return replace(state, pending=DiscardDown(counts=counts))
        case HandLimitMet(seat=seat, cards=cards):
            state = _to_discard(state, seat, cards)
            assert isinstance(state.pending, DiscardDown)
            owing = tuple((s, n) for s, n in state.pending.counts if s != seat)
            return replace(state, pending=DiscardDown(counts=owing) if owing else None)
        case PlannerChoice(seat=seat, cards=cards):
            assert cards is not None, "evolve needs the unredacted event"
            return replace(state, pending=KeepOne(seat=seat, cards=cards))
        case CardKept(seat=seat, discarded=other):
            return replace(_to_discard(state, seat, (other,)), pending=None)
        case GameWon(seat=seat, reason=reason):
            return replace(state, winner=seat, end=reason, pending=None, current=None)
        case GameDrawn(reason=reason):
            return replace(state, end=reason, pending=None, current=None)
    raise ValueError(f"unexpected event {type(event).__name__}")
