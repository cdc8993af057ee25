"""Trades: an offer checked, accepted or declined (the Haggler's goes round the table)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.api import IllegalAction
from games.itchy_feet import characters, legal, questions
from games.itchy_feet.content import Content
from games.itchy_feet.events import BonusOffered, TradeAccepted, TradeDeclined, TradePassed
from games.itchy_feet.flow import Tx
from games.itchy_feet.model import AcceptTrade, State, TradeOffer


def check_offer(
    content: Content, state: State, seat: int, to: int, give: Sequence[str], want: Sequence[str]
) -> None:
    if state.trade_declined:
        raise IllegalAction(
            "trade_declined_this_turn", "your trade was declined: take another action"
        )
    if to == seat or not 0 <= to < state.seats:
        raise IllegalAction("bad_partner", "trade with another player at the table")
    if not give or not want:
        raise IllegalAction("empty_trade", "offer at least one card and ask for at least one")
    legal.own(state, seat, give)
    known = legal.tradeable_kinds(content, state)
    if unknown := [k for k in want if k not in known]:
        raise IllegalAction("unknown_kind", f"no card kind {unknown[0]!r} in this game")
    # "asking for a specific card or cards from another player": no more than they hold,
    # and no kind more often than copies could be out of sight (our ruling)
    unseen = {k: legal.unseen_copies(content, state, seat, k) for k in set(want)}
    if len(want) > len(state.hands[to]) or any(n > unseen[k] for k, n in Counter(want).items()):
        raise IllegalAction(
            "impossible_trade", f"seat {to} cannot hold the cards you ask for: ask for less"
        )


def accept(content: Content, tx: Tx, offer: TradeOffer, action: AcceptTrade) -> None:
    hand = tx.state.hands[offer.responder]
    wanted = Counter(offer.want)
    if action.cards is not None:
        legal.own(tx.state, offer.responder, action.cards)
        received = action.cards
        if Counter(content.kind(c) for c in received) != wanted:
            raise IllegalAction("not_what_was_asked", "hand over exactly the kinds asked for")
    else:
        if short := questions.shortfall(content, hand, offer.want):
            raise IllegalAction("cannot_fulfil_trade", questions.cannot_fulfil(*short))
        picked: list[str] = []
        # rules 2: the copies held longest (the asker learns nothing from which); rules
        # 1: the lowest ids
        order = hand if tx.state.rules >= 2 else sorted(hand)
        for kind, n in wanted.items():
            picked += [c for c in order if content.kind(c) == kind][:n]
        received = tuple(picked)
    tx.emit(
        TradeAccepted(
            asker=offer.asker, responder=offer.responder, given=offer.give, received=received
        )
    )
    if tx.can_draw():  # "both players can draw one bonus card": each says if they will
        tx.emit(BonusOffered(seats=(offer.asker, offer.responder), declined=False))


def decline(tx: Tx, offer: TradeOffer) -> None:
    state = tx.state
    partner = characters.next_partner(state, offer)
    if partner is not None:  # rules 4: the Haggler's offer goes round the table
        tx.emit(TradePassed(asker=offer.asker, decliner=offer.responder, responder=partner))
        return
    tx.emit(TradeDeclined(asker=offer.asker, responder=offer.responder))
    if state.rules >= 3:
        characters.haggle(tx, offer.asker, offer.responder)
    elif state.characters[offer.asker] == "haggler" and tx.can_draw():
        # "If the trade is declined, perform a new action instead": the bonus card
        # or the new action, the Haggler chooses (our ruling: not both)
        tx.emit(BonusOffered(seats=(offer.asker,), declined=True))
