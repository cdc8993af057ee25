"""The itty bitty card game as a decider: setup / decide / evolve (views: secrecy.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from games.api import IllegalAction, Outcome, Rng, Unavailable, View, fold
from games.itty_bitty import secrecy, views
from games.itty_bitty.content import Content, load
from games.itty_bitty.model import (
    BEFORE_LAST_TURN_OPTION,
    Action,
    AnyAction,
    AnyEvent,
    CardId,
    CollectorChoice,
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    CompleteCollector,
    Completed,
    DrawCollectors,
    EndTriggered,
    Event,
    GameEnded,
    GameSetUp,
    Hand,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    Options,
    PassTurn,
    State,
    SupplyReshuffled,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.itty_bitty.payments import can_pay, coins_for, paid_ittybits, payments
from games.itty_bitty.scoring import final_result
from games.itty_bitty.supply import Supply, restock
from games.questions import check_named

MARKET_SLOTS = 4
STARTING_ITTYBITS = 3
COLLECTORS_OFFERED = 2
COLLECTORS_TO_END = 8


def _without(cards: tuple[CardId, ...], *gone: CardId) -> tuple[CardId, ...]:
    out = list(cards)
    for card in gone:
        out.remove(card)
    return tuple(out)


def _set_hand(state: State, seat: int, hand: Hand) -> tuple[Hand, ...]:
    return tuple(hand if i == seat else h for i, h in enumerate(state.hands))


class IttyBitty:
    key = "itty-bitty"
    name = "The itty bitty card game"
    seats = range(2, 5)
    schema_version = 2
    # The rules new games play under (games/api.Rules.rules_version). 2: the `last_turn`
    # option (default one collector); a game of version 1 completes any in its last turn.
    rules_version = 2
    state_type = State
    action_type = AnyAction
    event_type = AnyEvent
    options_type = Options
    view_type = views.View
    bot_levels: tuple[str, ...] = ("random", "greedy", "mcts", "expert")

    def __init__(self, content: Content | None = None) -> None:
        self.content = content or load()
        # Each punk's traits, built once: listing payments asks for them very often.
        self.traits = {b.id: b.all_traits for b in self.content.ittybits.values()}.__getitem__

    # -- setup -----------------------------------------------------------------------------

    def setup(self, options: Options, seats: int, rng: Rng) -> list[Event]:
        if seats not in self.seats:
            raise IllegalAction("bad_seat_count", f"{self.name} seats 2 to 4 players")
        set_up = GameSetUp(
            seats=seats, first_seat=rng.randrange(seats), rules=self.rules_version, options=options
        )
        supply = Supply(self.evolve(None, set_up), rng)
        events = supply.events
        events.append(set_up)
        for seat in range(seats):
            cards = tuple(self._must(supply.draw("ittybits")) for _ in range(STARTING_ITTYBITS))
            events.append(IttybitsDealt(seat=seat, count=len(cards), cards=cards))
        for seat in range(seats):
            offer = tuple(self._must(supply.draw("collectors")) for _ in range(COLLECTORS_OFFERED))
            events.append(CollectorsOffered(seat=seat, count=len(offer), cards=offer))
        for slot in range(MARKET_SLOTS):
            events.append(MarketFilled(slot=slot, card=self._must(supply.draw("ittybits"))))
        return events

    @staticmethod
    def _must(card: CardId | None) -> CardId:
        if card is None:  # the decks are far larger than any setup needs
            raise RuntimeError("deck ran out during setup")
        return card

    # -- evolve ----------------------------------------------------------------------------

    def evolve(self, state: State | None, event: Event) -> State:
        if state is None:
            match event:
                case GameSetUp(seats=n, first_seat=first, rules=version, options=options):
                    return State(
                        seats=n,
                        first_seat=first,
                        rules=version,
                        options=options if version >= 2 else BEFORE_LAST_TURN_OPTION,
                        ittybit_supply=tuple(sorted(self.content.ittybits)),
                        collector_supply=tuple(sorted(self.content.collectors)),
                        hands=tuple(Hand() for _ in range(n)),
                    )
            raise ValueError(f"a game starts with game_set_up, not {type(event).__name__}")
        match event:
            case IttybitsDealt(seat=seat, cards=cards):
                assert cards is not None, "evolve needs the unredacted event"
                hand = state.hands[seat]
                return replace(
                    state,
                    ittybit_supply=_without(state.ittybit_supply, *cards),
                    hands=_set_hand(state, seat, replace(hand, ittybits=hand.ittybits + cards)),
                )
            case MarketFilled(slot=slot, card=card):
                market = list(state.market)
                market[slot] = card
                return replace(
                    state, market=tuple(market), ittybit_supply=_without(state.ittybit_supply, card)
                )
            case SupplyReshuffled(deck="ittybits"):
                return replace(
                    state,
                    ittybit_supply=tuple(sorted(state.ittybit_supply + state.ittybit_discard)),
                    ittybit_discard=(),
                )
            case SupplyReshuffled(deck="collectors"):
                return replace(
                    state,
                    collector_supply=tuple(
                        sorted(state.collector_supply + state.collector_discard)
                    ),
                    collector_discard=(),
                )
            case IttybitTaken(seat=seat, from_market=from_market, card=card):
                assert card is not None, "evolve needs the unredacted event"
                hand = state.hands[seat]
                hands = _set_hand(state, seat, replace(hand, ittybits=(*hand.ittybits, card)))
                if from_market:
                    emptied = tuple(None if c == card else c for c in state.market)
                    return replace(state, hands=hands, market=emptied, passes_in_row=0)
                supply = _without(state.ittybit_supply, card)
                return replace(state, hands=hands, ittybit_supply=supply, passes_in_row=0)
            case CollectorsOffered(seat=seat, cards=cards):
                assert cards is not None, "evolve needs the unredacted event"
                hands = _set_hand(state, seat, replace(state.hands[seat], choice=cards))
                return replace(
                    state, hands=hands, collector_supply=_without(state.collector_supply, *cards)
                )
            case CollectorKept(seat=seat, kept=kept, discarded=discarded):
                assert kept is not None, "evolve needs the unredacted event"
                hand = state.hands[seat]
                hand = replace(hand, collectors=(*hand.collectors, kept), choice=())
                discard = state.collector_discard + ((discarded,) if discarded else ())
                return replace(
                    state,
                    hands=_set_hand(state, seat, hand),
                    collector_discard=discard,
                    passes_in_row=0,
                )
            case CollectorCompleted(seat=seat, collector=col, ittybits=paid, coins=coins):
                assert col is not None, "evolve needs the unredacted event"
                hand = state.hands[seat]
                done = Completed(collector=col, ittybits=paid, coins=coins)
                hand = replace(
                    hand,
                    ittybits=_without(hand.ittybits, *paid),
                    collectors=_without(hand.collectors, col),
                    completed=(*hand.completed, done),
                    coins=hand.coins + coins,
                )
                return replace(
                    state,
                    hands=_set_hand(state, seat, hand),
                    ittybit_discard=state.ittybit_discard + paid,
                    passes_in_row=0,
                )
            case TurnPassed():
                return replace(state, passes_in_row=state.passes_in_row + 1)
            case EndTriggered(seat=seat):
                return replace(state, end_triggered_by=seat)
            case TurnBegan(seat=seat):
                return replace(state, current=seat, turn=state.turn + 1)
            case GameEnded():
                return replace(state, result=event, current=None)
        raise ValueError(f"unexpected event {type(event).__name__}")

    # -- whose move, which moves --------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        if state.result is not None:
            return frozenset()
        choosing = frozenset(s for s, h in enumerate(state.hands) if h.choice)
        if choosing or state.current is None:
            return choosing
        return frozenset({state.current})

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        return self.moves(state, seat)

    def moves(self, state: State, seat: int, every_payment: bool = True) -> Sequence[Action]:
        """`legal_actions`; with `every_payment` false, a collector is listed with one
        payment per set of grails it can pay (what a bot's playout needs: the choice of
        coins, not of cards), which costs a fraction of listing every payment."""
        if seat not in self.to_act(state):
            return []
        hand = state.hands[seat]
        if asked := self.asked(state, seat):  # keep one of the collectors offered first
            [question] = asked
            return [KeepCollector(card=c, question=question) for c in dict.fromkeys(question.cards)]
        completes: list[Action] = [
            CompleteCollector(collector=c, payments=p)
            for c in dict.fromkeys(hand.collectors)
            for p in payments(
                self.content.collectors[c], hand.ittybits, self.traits, every=every_payment
            )
        ]
        if state.end_triggered_by is not None:  # the last turn: complete, then pass to end it
            return [*completes, PassTurn()]
        actions: list[Action] = [TakeIttybit(card=c) for c in state.market if c is not None]
        if state.ittybit_supply:
            actions.append(TakeIttybit())
        if state.collector_supply:
            actions.append(DrawCollectors())
        return actions + completes or [PassTurn()]

    def asked(self, state: State, seat: int) -> tuple[CollectorChoice, ...]:
        """The question `seat` must answer now: which collector of those offered it keeps."""
        if state.result is not None or not 0 <= seat < state.seats:
            return ()
        cards = state.hands[seat].choice
        return (CollectorChoice(seat=seat, cards=cards),) if cards else ()

    def unavailable(self, state: State, seat: int) -> Sequence[Unavailable]:
        """Every collector offered may be kept: no answer is ever refused."""
        return []

    def _can_act(self, state: State, seat: int) -> bool:
        """Whether any action but `pass_turn` is legal (`legal_actions` without listing)."""
        hand = state.hands[seat]
        return (
            any(c is not None for c in state.market)
            or bool(state.ittybit_supply or state.collector_supply)
            or any(
                can_pay(self.content.collectors[c], hand.ittybits, self.traits)
                for c in hand.collectors
            )
        )

    # -- decide ----------------------------------------------------------------------------

    def decide(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        if state.result is not None:
            raise IllegalAction("game_over", "the game has ended")
        if not 0 <= seat < state.seats:
            raise IllegalAction("not_seated", f"there is no seat {seat}")
        if seat not in self.to_act(state):
            raise IllegalAction("not_your_turn", f"seat {seat} is not to act now")
        check_named(action, self.asked(state, seat))  # "stale_question"
        hand = state.hands[seat]
        if hand.choice and not isinstance(action, KeepCollector):
            raise IllegalAction(
                "choose_collector_first", "keep one of the offered collectors first"
            )
        last_turn = state.end_triggered_by is not None
        if last_turn and not isinstance(action, CompleteCollector | PassTurn):
            raise IllegalAction(
                "last_turn_completes_only",
                "the last turn is for completing collectors; pass to end it",
            )
        supply = Supply(state, rng)
        events = supply.events
        match action:
            case KeepCollector(card=card):
                events.append(self._keep(state, seat, card))
            case TakeIttybit(card=None):
                card = supply.draw("ittybits")
                if card is None:
                    raise IllegalAction("supply_empty", "no ittybits are left to take")
                events.append(IttybitTaken(seat=seat, from_market=False, card=card))
            case TakeIttybit(card=card):
                if card not in state.market:
                    raise IllegalAction("not_in_marketplace", f"{card} is not in the marketplace")
                # The slot is refilled at once, as the action ends (_end_turn).
                events.append(IttybitTaken(seat=seat, from_market=True, card=card))
            case DrawCollectors():
                offer = [c for c in (supply.draw("collectors"), supply.draw("collectors")) if c]
                if not offer:
                    raise IllegalAction("no_collectors_left", "no collectors are left to draw")
                events.append(CollectorsOffered(seat=seat, count=len(offer), cards=tuple(offer)))
            case CompleteCollector():
                events.append(self._complete(state, seat, action))
                if len(hand.completed) + 1 >= COLLECTORS_TO_END and not last_turn:
                    # a game of rules version 1 said nothing of its last turns
                    said = state.options.last_turn if state.rules >= 2 else None
                    events.append(EndTriggered(seat=seat, last_turn=said))
            case PassTurn():
                if not last_turn and self._can_act(state, seat):
                    raise IllegalAction(
                        "cannot_pass", "you cannot skip your turn while you can act"
                    )
                events.append(TurnPassed(seat=seat))
            case _:
                raise IllegalAction("unknown_action", f"{type(action).__name__} is not a move here")
        after = fold(self, events, state)
        restocked = restock(after)  # a discard made while its supply was out restocks it
        events += restocked
        after = fold(self, restocked, after)
        if after.hands[seat].choice or (
            last_turn
            and isinstance(action, CompleteCollector)
            and state.options.last_turn == "any_collectors"
        ):
            return events  # the turn goes on: keep one of two; or complete another, or pass
        if state.current is None:  # starting hands: play begins once every seat has kept one
            return events + ([] if self.to_act(after) else [TurnBegan(seat=state.first_seat)])
        return events + self._end_turn(after, rng)

    def _keep(self, state: State, seat: int, card: CardId) -> CollectorKept:
        choice = state.hands[seat].choice
        if card not in choice:
            raise IllegalAction(
                "not_offered", f"{card} is not one of the collectors offered to you"
            )
        rest = _without(choice, card)
        return CollectorKept(seat=seat, kept=card, discarded=rest[0] if rest else None)

    def _complete(self, state: State, seat: int, action: CompleteCollector) -> CollectorCompleted:
        hand = state.hands[seat]
        if action.collector not in hand.collectors:
            raise IllegalAction("collector_not_in_hand", f"{action.collector} is not in your hand")
        collector = self.content.collectors[action.collector]
        if not action.payments:
            raise IllegalAction("no_grails_paid", "pay at least one trait grail")
        grails = [p.grail for p in action.payments]
        if len(set(grails)) != len(grails):
            raise IllegalAction("grail_paid_twice", "each trait grail is paid at most once")
        used = [c for p in action.payments for c in p.ittybits]
        if len(set(used)) != len(used):
            raise IllegalAction("ittybit_used_twice", "an ittybit pays for one grail unit only")
        for payment in action.payments:
            if not 0 <= payment.grail < len(collector.grails):
                raise IllegalAction(
                    "unknown_grail", f"{action.collector} has no grail {payment.grail}"
                )
            grail = collector.grails[payment.grail]
            if len(payment.ittybits) != grail.qty:
                raise IllegalAction(
                    "wrong_quantity",
                    f"grail {payment.grail} ({grail.trait}) takes exactly {grail.qty} ittybits",
                )
            for card in payment.ittybits:
                if card not in hand.ittybits:
                    raise IllegalAction("ittybit_not_in_hand", f"{card} is not in your hand")
                if grail.trait not in self.traits(card):
                    raise IllegalAction("trait_missing", f"{card} has no {grail.trait}")
        paid = tuple(sorted(action.payments, key=lambda p: p.grail))
        return CollectorCompleted(
            seat=seat,
            collector=action.collector,
            payments=paid,
            ittybits=paid_ittybits(paid),
            coins=coins_for(collector, paid),
        )

    def _end_turn(self, state: State, rng: Rng) -> list[Event]:
        current = state.current
        assert current is not None
        if state.passes_in_row >= state.seats:  # nobody can ever act again
            return [final_result(state, "stalemate")]
        nxt = (current + 1) % state.seats
        if state.end_triggered_by is not None and nxt == state.end_triggered_by:
            return [final_result(state, "eight_collectors")]
        # Every empty marketplace slot is refilled as the action ends: the one just taken
        # from, and (our ruling) one left empty when no ittybit was left, once paid
        # ittybits have restocked the supply.
        supply = Supply(state, rng)
        events = supply.events
        for slot, card in enumerate(state.market):
            if card is None and (refill := supply.draw("ittybits")) is not None:
                events.append(MarketFilled(slot=slot, card=refill))
        return [*events, TurnBegan(seat=nxt, last_round=state.end_triggered_by is not None)]

    # -- what each seat sees -----------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        return secrecy.view(state, seat, self.asked(state, seat) if seat is not None else ())

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return secrecy.redact(event, seat)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        return Outcome(
            scores=list(r.scores),
            ranks=list(r.ranks),
            winners=list(r.winners),
            tie_break=r.tie_break,
            detail={"penalties": list(r.penalties), "reason": r.reason},
        )

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        return secrecy.sample(state, seat, rng)

    # -- for the generic checks ----------------------------------------------------------------

    def inventory(self, state: State) -> Mapping[str, Sequence[str]]:
        places: dict[str, Sequence[str]] = {
            "supply.ittybits": state.ittybit_supply,
            "supply.collectors": state.collector_supply,
            "discard.ittybits": state.ittybit_discard,
            "discard.collectors": state.collector_discard,
            "market": [c for c in state.market if c is not None],
        }
        for s, h in enumerate(state.hands):
            places[f"hand.{s}.ittybits"] = h.ittybits
            places[f"hand.{s}.collectors"] = h.collectors
            places[f"hand.{s}.choice"] = h.choice
            places[f"hand.{s}.completed"] = [d.collector for d in h.completed]
        return places

    def holdings(self, state: State, seat: int) -> frozenset[str]:
        """The cards only `seat` may know: its hand and its face-down collectors."""
        h = state.hands[seat]
        return frozenset(
            (*h.ittybits, *h.collectors, *h.choice, *(d.collector for d in h.completed))
        )

    def all_cards(self) -> frozenset[str]:
        return frozenset(self.content.ittybits) | frozenset(self.content.collectors)

    def describe(self) -> dict[str, Any]:
        """Public card content for clients (served by the catalog)."""
        return {
            "ittybits": [msgspec.to_builtins(b) for b in self.content.ittybits.values()],
            "collectors": [msgspec.to_builtins(c) for c in self.content.collectors.values()],
        }
