"""Itchy Feet as a decider: setup / decide / evolve, views and redaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from games.api import IllegalAction, Outcome, Rng, Unavailable, View
from games.itchy_feet import characters, legal, questions, sampling, trades, views
from games.itchy_feet.characters import CHARACTERS
from games.itchy_feet.content import EXTENSIONS, Content, load
from games.itchy_feet.events import (
    ActionTaken,
    AnyEvent,
    BonusAnswered,
    CardKept,
    CardsDealt,
    CharacterChosen,
    CharacterOffered,
    CharactersDealt,
    Event,
    ExtensionsShuffledIn,
    ForbiddenDisposed,
    GameDrawn,
    GameSetUp,
    GameWon,
    HandLimitMet,
    HomeChanged,
    Recycled,
    SpecialPlayed,
    StealAttempted,
    StealCancelled,
    TradeOffered,
    Travelled,
    TurnBegan,
)
from games.itchy_feet.evolve import evolve, extension_cards
from games.itchy_feet.flow import Tx
from games.itchy_feet.model import (
    AcceptTrade,
    Action,
    AllowSteal,
    AnyAction,
    BonusOffer,
    CancelSteal,
    CharacterPick,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DiscardDown,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    KeepOne,
    OfferTrade,
    Options,
    PassTurn,
    PlaySpecial,
    Recycle,
    SkipBonus,
    State,
    Steal,
    StealAnswer,
    TradeOffer,
    Travel,
)
from games.itchy_feet.travel import MAP, destination, needed_items
from games.questions import check_named

STARTING_ITEMS = 3
# the fields of each move that name cards of the mover's own hand (rules 2: each stands for
# its kind, `ItchyFeet._held_copies`)
COPY_FIELDS: dict[type, tuple[str, ...]] = {
    Recycle: ("discard",),
    OfferTrade: ("give",),
    AcceptTrade: ("cards",),
    Steal: ("discard",),
    CancelSteal: ("card",),
    Travel: ("pay",),
    PlaySpecial: ("card",),
    DisposeForbidden: ("card", "with_card"),
    Discard: ("cards",),
}


def _illegal(code: str, message: str) -> IllegalAction:
    return IllegalAction(code, message)


class ItchyFeet:
    key = "itchy-feet"
    name = "Itchy Feet: The Travel Game"
    seats = range(2, 7)
    schema_version = 2
    # The rules new games play under (games/api.Rules.rules_version). 2: a card named from
    # a hand stands for its kind: the copies moved are the hand's longest held of it
    # (`_held_copies`; an accepted trade's too); games of version 1 move the copies named
    # (an accepted trade naming none: the lowest ids). 3: Pickpockets' cards pass at once,
    # four postcards counted after the whole exchange (`flow.py:Tx.play_event`); a forbidden
    # item may go with another as the additional card; the characters' abilities of RULES.md.
    rules_version = 4
    state_type = State
    action_type = AnyAction
    event_type = AnyEvent
    options_type = Options
    view_type = views.View
    bot_levels: tuple[str, ...] = ("random", "greedy", "mcts", "expert")

    def __init__(self, content: Content | None = None) -> None:
        self.content = content or load()

    # -- setup -----------------------------------------------------------------------------

    def setup(self, options: Options, seats: int, rng: Rng) -> list[Event]:
        if seats not in self.seats:
            raise _illegal("bad_seat_count", f"{self.name} seats 2 to 6 players (six action cards)")
        countries = sorted(self.content.countries)
        rng.shuffle(countries)
        homes, centre = tuple(countries[:seats]), countries[seats]
        # "The player whose country card is geographically closest to the centre goes first."
        first = min(range(seats), key=lambda s: (self.content.distance_km(homes[s], centre), s))
        set_up = GameSetUp(
            seats=seats,
            options=options,
            centre=centre,
            homes=homes,
            first_seat=first,
            rules=self.rules_version,
        )
        tx = Tx(self.content, evolve(self.content, None, set_up), rng)
        tx.events.append(set_up)
        if options.characters == "random":
            tx.emit(CharactersDealt(characters=tuple(rng.sample(CHARACTERS, seats))))
        for seat in range(seats):  # three items from the item-only pile, and a passport
            items = tuple(rng.sample(tx.state.draw_pile, STARTING_ITEMS))
            cards = (*items, f"passport-{seat + 1}")
            tx.emit(CardsDealt(seat=seat, count=len(cards), cards=cards))
        if extension_cards(self.content, options):
            tx.emit(ExtensionsShuffledIn(count=len(extension_cards(self.content, options))))
        if options.characters == "choose":
            tx.emit(CharacterOffered(seat=first, options=CHARACTERS))
        else:
            tx.emit(TurnBegan(seat=first))
        return tx.events

    def evolve(self, state: State | None, event: Event) -> State:
        return evolve(self.content, state, event)

    # -- whose move ------------------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        if state.end is not None:
            return frozenset()
        match state.pending:
            case BonusOffer(seats=seats):
                return frozenset(seats[:1])
            case (
                TradeOffer(responder=seat)
                | StealAnswer(victim=seat)
                | KeepOne(seat=seat)
                | CharacterPick(seat=seat)
            ):
                return frozenset({seat})
            case DiscardDown(counts=counts):
                return frozenset(s for s, _ in counts)
        return frozenset() if state.current is None else frozenset({state.current})

    # -- decide ----------------------------------------------------------------------------

    def decide(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        if state.end is not None:
            raise _illegal("game_over", "the game has ended")
        if seat not in self.to_act(state):
            raise _illegal("not_your_turn", f"seat {seat} is not to act now")
        asked = questions.asked(self.content, state, seat)
        check_named(questions.by_kind(self.content, action), asked)  # "stale_question"
        tx = Tx(self.content, state, rng)
        if state.rules >= 2 and type(action) in COPY_FIELDS:
            action = self._held_copies(state, seat, action)
        pending = state.pending
        match pending, action:
            case TradeOffer(), AcceptTrade():
                trades.accept(self.content, tx, pending, action)
            case TradeOffer(), DeclineTrade():
                trades.decline(tx, pending)
            case BonusOffer(), DrawBonus():
                if not tx.can_draw():
                    raise _illegal("nothing_to_draw", questions.NOTHING_TO_DRAW)
                tx.emit(BonusAnswered(seat=seat, draw=True))
                if pending.declined:  # the card takes the place of the new action
                    tx.emit(ActionTaken(seat=seat, action="bonus"))
                tx.draw(seat, "haggler" if pending.declined else "bonus")
            case BonusOffer(), SkipBonus():
                tx.emit(BonusAnswered(seat=seat, draw=False))
            case StealAnswer(), AllowSteal():
                characters.steal(tx, pending.thief, pending.victim)
            case StealAnswer(), CancelSteal(card=card):
                if card not in state.hands[seat] or self.content.kind(card) != "travel-insurance":
                    raise _illegal(
                        "no_travel_insurance", f"{card} is not a Travel Insurance of yours"
                    )
                tx.emit(StealCancelled(thief=pending.thief, victim=seat, card=card))
            case DiscardDown(), Discard(cards=cards):
                owed = dict(pending.counts)[seat]
                legal.own(state, seat, cards)
                if len(cards) != owed:
                    raise _illegal("wrong_discard_count", f"discard exactly {owed} card(s)")
                tx.emit(HandLimitMet(seat=seat, cards=cards))
            case KeepOne(), KeepCard(card=card):
                if card not in pending.cards:
                    raise _illegal("not_drawn", f"{card} is not one of the cards you drew")
                other = next(c for c in pending.cards if c != card)
                tx.emit(CardKept(seat=seat, kept=card, discarded=other))
            case CharacterPick(), ChooseCharacter(character=char):
                if char not in pending.options:
                    raise _illegal("character_taken", f"choose one of {', '.join(pending.options)}")
                tx.emit(CharacterChosen(seat=seat, character=char))
                left = tuple(c for c in pending.options if c != char)
                nxt = (seat + 1) % state.seats
                if nxt != state.first_seat:
                    tx.emit(CharacterOffered(seat=nxt, options=left))
                else:
                    tx.emit(TurnBegan(seat=state.first_seat))
            case None, _:
                self._turn(tx, seat, action)
            case _:
                raise _illegal("answer_first", f"the game waits for a {type(pending).__name__}")
        tx.settle()
        return tx.events

    def _turn(self, tx: Tx, seat: int, action: Action) -> None:
        state = tx.state
        match action:
            case PlaySpecial(card=card):
                self._play_special(tx, seat, card)
            case DisposeForbidden(card=card, with_card=other):
                legal.own(state, seat, (card, other))
                if self.content.type(card) != "forbidden" or card == other:
                    raise _illegal("not_forbidden", f"{card} is not a forbidden item to get rid of")
                if self.content.type(other) == "forbidden" and state.rules < 3:
                    # rules 1-2 (RULES.md): another forbidden item was no "additional card"
                    raise _illegal(
                        "forbidden_cannot_pay",
                        "get rid of a forbidden item with a card that is not one",
                    )
                tx.emit(ForbiddenDisposed(seat=seat, card=card, with_card=other))
            case Draw():
                if not tx.can_draw():
                    raise _illegal(
                        "nothing_to_draw", "the draw and discard piles hold no card to draw"
                    )
                tx.emit(ActionTaken(seat=seat, action="draw"))
                if state.characters[seat] == "planner":
                    characters.planner_draws(tx, seat)
                else:
                    for _ in range(characters.draws(state, seat)):  # the Hoarder's two
                        tx.draw(seat, "draw")
            case Recycle(discard=paid, take=named):
                take = self._from_discard(state, named)
                cost = characters.recycle_cost(self.content, state, seat, take)
                if cost == 1 and state.rules >= 3:  # the Backpacker's: among the newest
                    take = characters.newest_copy(self.content, state, take) or take
                self._pay(state, seat, paid, cost, "recycle")
                if take not in state.discard:
                    raise _illegal("not_in_discard", f"{named} is not in the discard pile")
                if self.content.type(take) == "event":
                    raise _illegal("cannot_recycle_event", "event cards cannot be recycled")
                tx.emit(ActionTaken(seat=seat, action="recycle"))
                tx.emit(Recycled(seat=seat, discarded=paid, taken=take))
            case OfferTrade(to=to, give=give, want=want):
                trades.check_offer(self.content, state, seat, to, give, want)
                tx.emit(ActionTaken(seat=seat, action="trade"))
                tx.emit(TradeOffered(asker=seat, responder=to, give=give, want=want))
            case Steal(victim=victim, discard=paid):
                self._check_steal(state, seat, victim, paid)
                tx.emit(ActionTaken(seat=seat, action="steal"))
                ask = state.options.special_items
                tx.emit(
                    StealAttempted(thief=seat, victim=victim, discarded=paid, answer_needed=ask)
                )
                if not ask:
                    characters.steal(tx, seat, victim)
            case Travel(pay=paid):
                self._travel(tx, seat, paid)
            case PassTurn():
                if self.legal_actions(state, seat) != [PassTurn()]:
                    raise _illegal("cannot_pass", "you cannot skip your turn while you can act")
                tx.emit(ActionTaken(seat=seat, action="pass"))
                if not any(self._turn_actions(state, s) for s in range(state.seats)):
                    tx.emit(GameDrawn(reason="no_cards"))  # nobody can ever act again
            case _:
                raise _illegal("not_now", f"{type(action).__name__} is not a move for now")

    # -- the actions -----------------------------------------------------------------------

    def _pay(self, state: State, seat: int, paid: Sequence[str], cost: int, what: str) -> None:
        legal.own(state, seat, paid)
        if len(paid) != cost:
            raise _illegal("wrong_cost", f"{what} costs exactly {cost} card(s) from your hand")
        if any(self.content.type(c) == "forbidden" for c in paid):
            raise _illegal("forbidden_cannot_pay", f"a forbidden item cannot pay for a {what}")

    def _held_copies(self, state: State, seat: int, action: Action) -> Action:
        """Rules 2: each card of its own hand a move names stands for its kind, and the
        copies it moves are the hand's longest held of that kind (the first in the hand):
        copies are identical, so which one a seat names tells nobody anything, not even a
        seat that later holds it (RULES.md, "Identical cards"). A card not in the hand is
        left as named, for `decide` to refuse."""
        fields = COPY_FIELDS[type(action)]
        hand = state.hands[seat]
        named: list[str] = []
        for field in fields:
            value = getattr(action, field)
            named += [value] if isinstance(value, str) else list(value or ())
        kind = self.content.kind
        moved: dict[str, str] = {}
        for x in dict.fromkeys(x for x in named if x in hand):  # in the order named
            held = [y for y in hand if kind(y) == kind(x) and y not in moved.values()]
            moved[x] = held[0]
        changes: dict[str, Any] = {}
        for field in fields:
            value = getattr(action, field)
            if isinstance(value, str):
                changes[field] = moved.get(value, value)
            elif value is not None:
                changes[field] = tuple(moved.get(x, x) for x in value)
        return replace(action, **changes)

    def _from_discard(self, state: State, named: str) -> str:
        """The card a recycle takes. Named by its kind (as the table sees the discard:
        `Content.alike`), or by any copy of it (rules 2; rules 1: the very card), it is the
        copy of that kind longest in the discard; none there, it is left as named, for
        `decide` to refuse. Under rules 2 the copy named is never looked for: whether that
        very copy is in the discard, which the table sees by kind, is not told by a refusal."""
        kind = self.content.kind_of.get(named)
        if kind is None or (named != kind and state.rules < 2):
            return named
        return next((x for x in state.discard if self.content.kind_of[x] == kind), named)

    def _check_steal(self, state: State, seat: int, victim: int, paid: str | None) -> None:
        if victim == seat or not 0 <= victim < state.seats:
            raise _illegal("bad_victim", "steal from another player at the table")
        if not state.hands[victim]:
            raise _illegal("nothing_to_steal", f"seat {victim} holds no card")
        if characters.free_steal(state, seat):
            if paid is not None:
                raise _illegal("wrong_cost", "the Pickpocket steals without discarding")
            return
        if paid is None:
            raise _illegal("wrong_cost", "discard one card from your hand to steal")
        self._pay(state, seat, (paid,), 1, "steal")

    def _travel(self, tx: Tx, seat: int, paid: Sequence[str]) -> None:
        state = tx.state
        hand = state.hands[seat]
        if not any(self.content.kind(c) == "passport" for c in hand):
            raise _illegal("no_passport", "you need a passport in your hand to travel")
        if any(self.content.type(c) == "forbidden" for c in hand):
            raise _illegal(
                "holding_forbidden_item", "you cannot travel while you hold a forbidden item"
            )
        legal.own(state, seat, paid)
        dest, country = destination(state, seat)
        needed = needed_items(self.content, state, seat)
        held = {self.content.kind(c) for c in hand} & set(needed)
        kinds = [self.content.kind(c) for c in paid]
        items = [k for k in kinds if k != MAP]
        # a map "counts as any one item you are missing": never one you hold
        if sorted(items) != sorted(held) or len(paid) != len(needed):
            raise _illegal(
                "wrong_items",
                f"travel to {country} takes one each of {', '.join(needed)}"
                " (a map for each one you are missing)",
            )
        if not (dest == "home" and characters.free_trip_home(state, seat)):
            tx.emit(ActionTaken(seat=seat, action="travel"))  # rules 3: the Globetrotter's is free
        tx.emit(Travelled(seat=seat, destination=dest, country=country, paid=tuple(paid)))
        if dest == "centre":
            tx.emit(GameWon(seat=seat, reason="centre"))
            return
        for _ in range(characters.home_draws(state, seat)):
            tx.draw(seat, "globetrotter")

    def _play_special(self, tx: Tx, seat: int, card: str) -> None:
        state = tx.state
        legal.own(state, seat, (card,))
        kind = self.content.kind(card)
        if kind not in legal.PLAYABLE:
            raise _illegal(
                "not_playable_now", f"{self.content.cards[card].name} is not played this way"
            )
        tx.emit(SpecialPlayed(seat=seat, card=card))
        if kind == "lucky-find":
            tx.draw(seat, "lucky_find")
            tx.draw(seat, "lucky_find")
        # "discard this; if you have not visited home yet, swap your home country"
        elif kind == "change-of-plans" and not state.visited_home[seat] and state.country_pile:
            new = tx.rng.choice(tx.state.country_pile)
            tx.emit(HomeChanged(seat=seat, old=state.homes[seat], new=new))

    # -- legal actions (every move with a result of its own: legal.py) ----------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return []
        return legal.actions(self.content, state, seat)

    def unavailable(self, state: State, seat: int) -> Sequence[Unavailable]:
        """Answers to the seat's question refused now: accepting a trade without the cards
        asked, drawing a bonus card with none left, cancelling a steal without insurance."""
        if seat not in self.to_act(state):
            return []
        can_draw = legal.can_draw(self.content, state)
        return questions.unavailable(self.content, state, seat, can_draw)

    def _turn_actions(self, state: State, seat: int) -> list[Action]:
        return legal.turn_actions(self.content, state, seat)

    # -- what each seat sees -----------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        return views.view(self.content, state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return views.redact(self.content, event, seat)

    def outcome(self, state: State) -> Outcome | None:
        if state.end is None:
            return None
        if state.winner is None:
            n = state.seats
            return Outcome(
                scores=[0] * n,
                ranks=[1] * n,
                winners=[],
                tie_break="draw",
                detail={"reason": state.end},
            )
        return Outcome(
            scores=[int(s == state.winner) for s in range(state.seats)],
            ranks=[1 if s == state.winner else 2 for s in range(state.seats)],
            winners=[state.winner],
            detail={"reason": state.end},
        )

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        return sampling.sample(self.content, state, seat, rng)

    # -- for the generic checks and the catalog ----------------------------------------------------

    def inventory(self, state: State) -> Mapping[str, Sequence[str]]:
        places: dict[str, Sequence[str]] = {
            "draw_pile": state.draw_pile,
            "discard": state.discard,
            "revealed": state.revealed,
            "box": state.box,
        }
        for s, h in enumerate(state.hands):
            places[f"hand.{s}"] = h
        return places

    def holdings(self, state: State, seat: int) -> frozenset[str]:
        return frozenset(state.hands[seat])

    def all_cards(self) -> frozenset[str]:
        return frozenset(c.id for c in self.content.of_type("item", "passport", *EXTENSIONS))

    def copy_class(self, card: str) -> str:
        """Cards the rules never tell apart: copies of one kind (four `umbrella` cards)."""
        return self.content.kind(card)

    def describe(self) -> dict[str, Any]:
        return {
            "cards": [msgspec.to_builtins(c) for c in self.content.cards.values()],
            "countries": [msgspec.to_builtins(c) for c in self.content.countries.values()],
        }
