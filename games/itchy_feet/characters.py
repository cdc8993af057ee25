"""The six characters and their abilities (RULES.md, "Characters").

Games of rules 1 and 2 keep the first abilities; rules 3 changed four of them and the
numbers of another, so that each changes play and none wins far more than its share;
rules 4 sends the Haggler's offer round the table, gives the Pickpocket its second card only
from a bigger hand and the Globetrotter no card, so that they are fair at three to five
seats too (RULES.md gives the win rates that chose the numbers below)."""

from __future__ import annotations

from typing import Protocol

from games.api import Rng
from games.itchy_feet.content import Content
from games.itchy_feet.events import (
    ActionTaken,
    CardKept,
    CardStolen,
    Event,
    PlannerChoice,
    Reason,
)
from games.itchy_feet.model import (
    State,
    TradeOffer,
)


class Tx(Protocol):
    """What the abilities use of `flow.py:Tx` (which reads the hand limits here)."""

    content: Content
    state: State
    rng: Rng
    undecided: set[str]

    def emit(self, event: Event) -> None: ...
    def draw(self, seat: int, reason: Reason) -> str | None: ...
    def check_postcards(self) -> None: ...


CHARACTERS = ("backpacker", "pickpocket", "hoarder", "planner", "haggler", "globetrotter")
HAND_LIMIT = 7  # "You can have a maximum of seven cards in your hand."

# rules 3: the numbers on the cards
BACKPACKER_NEWEST = 1  # "... when you take the newest card of the discard pile"
PICKPOCKET_TAKES = 2  # "When you steal from a player holding more cards than you, you take
# two cards instead of one." (rules 3: from anyone)
HOARDER_HAND_LIMIT = 8
HOARDER_DRAWS_TWO_BELOW = 3  # "... when you draw holding fewer than three cards, draw two"
GLOBETROTTER_DRAWS = 1  # rules 3: "When you travel home, draw a card and take another
# action." (rules 4: "When you travel home, take another action.")


def of(state: State, seat: int) -> str | None:
    return state.characters[seat]


def hand_limit(state: State, seat: int) -> int:
    return HOARDER_HAND_LIMIT if state.characters[seat] == "hoarder" else HAND_LIMIT


def recycle_cost(content: Content, state: State, seat: int, take: str) -> int:
    """Cards a recycle taking `take` (a card of the discard, or a kind) costs: the
    Backpacker's one (rules 1-2: always; rules 3: for a kind among the newest cards of the
    discard)."""
    if state.characters[seat] != "backpacker":
        return 2
    if state.rules < 3:
        return 1
    return 1 if newest_copy(content, state, take) is not None else 2


def newest_copy(content: Content, state: State, take: str) -> str | None:
    """Rules 3: the copy of `take`'s kind among the Backpacker's newest cards of the
    discard (the newest one), if any."""
    kind = content.kind_of.get(take)
    newest = state.discard[len(state.discard) - BACKPACKER_NEWEST :]
    return next((x for x in reversed(newest) if content.kind_of[x] == kind), None)


def free_steal(state: State, seat: int) -> bool:
    """Whether a steal costs no card: the Pickpocket's under rules 1-2 (from rules 3 a steal
    costs one card, the Pickpocket's like anyone's)."""
    return state.characters[seat] == "pickpocket" and state.rules < 3


def steal_takes(state: State, thief: int, victim: int) -> int:
    """Cards a steal takes, counted as it goes ahead (its card paid): the Pickpocket's two
    (rules 3; rules 4: only from a victim holding more cards than the Pickpocket)."""
    if state.characters[thief] != "pickpocket" or state.rules < 3:
        return 1
    if state.rules >= 4 and len(state.hands[victim]) <= len(state.hands[thief]):
        return 1
    return PICKPOCKET_TAKES


def draws(state: State, seat: int) -> int:
    """Cards a Draw takes: the Hoarder's two while holding fewer than three (rules 3); the
    Planner's two are drawn apart (`planner_draws`)."""
    small = len(state.hands[seat]) < HOARDER_DRAWS_TWO_BELOW
    return 2 if state.rules >= 3 and state.characters[seat] == "hoarder" and small else 1


def home_draws(state: State, seat: int) -> int:
    """Cards the Globetrotter draws on travelling home: one under rules 1-3, none under rules
    4 (rules 3 and 4 add another action: `free_trip_home`)."""
    if state.characters[seat] != "globetrotter" or state.rules >= 4:
        return 0
    return GLOBETROTTER_DRAWS


def haggle(tx: Tx, asker: int, responder: int) -> None:
    """Rules 3: a player who declines the Haggler's trade hands the Haggler a random card of
    theirs, which takes the place of the new action (`ActionTaken(action="haggle")`)."""
    if tx.state.characters[asker] == "haggler" and tx.state.hands[responder]:
        tx.emit(ActionTaken(seat=asker, action="haggle"))
        take_random(tx, asker, responder)


def steal(tx: Tx, thief: int, victim: int) -> None:
    """The steal goes ahead: one random card, or the Pickpocket's two (`steal_takes`)."""
    for _ in range(steal_takes(tx.state, thief, victim)):
        if tx.state.hands[victim]:
            take_random(tx, thief, victim)


def take_random(tx: Tx, thief: int, victim: int) -> None:
    hand = tx.state.hands[victim]  # not empty: checked before
    tx.emit(CardStolen(thief=thief, victim=victim, card=tx.rng.choice(sorted(hand))))


def planner_draws(tx: Tx, seat: int) -> None:
    """The Planner's draw: two cards, one kept (`PlannerChoice`, then `KeepCard`)."""
    state = tx.state
    first, second = tx.draw(seat, "planner"), tx.draw(seat, "planner")
    tx.undecided.clear()
    # an event between the two draws may have taken the first away again
    # and a reshuffle in between may even bring the same card back
    held = tx.state.hands[seat]
    drawn = tuple(dict.fromkeys(c for c in (first, second) if c and c in held))
    stuck = must_keep(tx.content, state, drawn)
    if stuck is not None:  # rules 3: a forbidden item is never let go
        other = next(c for c in drawn if c != stuck)
        tx.emit(CardKept(seat=seat, kept=stuck, discarded=other))
    elif len(drawn) == 2:
        tx.emit(PlannerChoice(seat=seat, cards=drawn))
    elif state.options.postcards:
        tx.check_postcards()


def free_trip_home(state: State, seat: int) -> bool:
    """Rules 3: the Globetrotter's trip home takes no action."""
    return state.rules >= 3 and state.characters[seat] == "globetrotter"


def must_keep(content: Content, state: State, drawn: tuple[str, ...]) -> str | None:
    """Rules 3: of the Planner's two cards, a forbidden item is never the one let go (a
    forbidden item goes only with one other card): it is kept, without a choice."""
    if state.rules < 3 or len(drawn) != 2:
        return None
    bad = [x for x in drawn if content.type(x) == "forbidden"]
    return bad[0] if len(bad) == 1 else None


def next_partner(state: State, offer: TradeOffer) -> int | None:
    """Rules 4: the seat the Haggler's declined offer goes on to: the next in turn order
    after the decliner that holds at least as many cards as asked for, until the offer
    comes back round to the Haggler (None: the trade is declined)."""
    if state.rules < 4 or state.characters[offer.asker] != "haggler":
        return None
    seat = (offer.responder + 1) % state.seats
    while seat != offer.asker:
        if len(state.hands[seat]) >= len(offer.want):
            return seat
        seat = (seat + 1) % state.seats
    return None
