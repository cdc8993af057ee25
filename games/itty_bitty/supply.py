"""The supply decks: cards drawn at random in decide, and the restock the moment one runs out.

"If the supply decks of ittybits or collectors runs out before end of game, shuffle the
discard pile and restock the deck." A supply is kept as a sorted set and every draw picks
at random, so restocking needs no rng: the discard simply joins the (empty) supply. It
happens at once, so cards discarded later wait on the new discard pile for the next restock.
"""

from __future__ import annotations

from typing import Literal

from games.api import Rng
from games.itty_bitty.model import CardId, Event, State, SupplyReshuffled

Deck = Literal["ittybits", "collectors"]


def restock(state: State) -> list[Event]:
    """Restock each empty supply whose discard holds cards (after a discard)."""
    events: list[Event] = []
    if not state.ittybit_supply and state.ittybit_discard:
        events.append(SupplyReshuffled(deck="ittybits", count=len(state.ittybit_discard)))
    if not state.collector_supply and state.collector_discard:
        events.append(SupplyReshuffled(deck="collectors", count=len(state.collector_discard)))
    return events


class Supply:
    """Draws cards in decide and restocks a deck as its last card is drawn.

    The `supply_reshuffled` event is appended when the last card leaves, so it comes before
    the event naming the drawn cards (a draw-2 may take one card on each side of it); folding
    is the same either way, as a restock only moves the discard into the supply.
    """

    def __init__(self, state: State, rng: Rng) -> None:
        self.state = state
        # A deck's cards and discard as this decide leaves them, copied at its first draw
        # (most moves draw from one deck or none: copying both supplies on every decide was
        # a fifth of its time under the move-cycle load).
        self.supply: dict[Deck, list[CardId]] = {}
        self.discard: dict[Deck, list[CardId]] = {}
        self.rng = rng
        self.events: list[Event] = []  # the caller adds its own events here, in order

    def draw(self, deck: Deck) -> CardId | None:
        supply = self.supply.get(deck)
        if supply is None:
            state = self.state
            if deck == "ittybits":
                supply, discard = list(state.ittybit_supply), list(state.ittybit_discard)
            elif deck == "collectors":
                supply, discard = list(state.collector_supply), list(state.collector_discard)
            else:
                raise ValueError(f"no deck {deck!r}")
            self.supply[deck], self.discard[deck] = supply, discard
        if not supply:  # its discard is empty too: nothing is left to draw
            return None
        card = self.rng.choice(supply)
        supply.remove(card)
        if not supply and self.discard[deck]:
            self.events.append(SupplyReshuffled(deck=deck, count=len(self.discard[deck])))
            self.supply[deck], self.discard[deck] = sorted(self.discard[deck]), []
        return card
