"""What happens between actions: drawing (events resolve at once), hand limits, turn order."""

from __future__ import annotations

from games.api import Rng
from games.itchy_feet import characters
from games.itchy_feet.content import Content
from games.itchy_feet.events import (
    CardDrawn,
    CardPassed,
    CardsDiscarded,
    CentreChanged,
    DiscardRequired,
    DiscardShuffledIn,
    Event,
    EventResolved,
    EventRevealed,
    GameDrawn,
    GameWon,
    PileReshuffled,
    Reason,
    SkipScheduled,
    TurnBegan,
    TurnSkipped,
)
from games.itchy_feet.evolve import evolve
from games.itchy_feet.legal import can_draw
from games.itchy_feet.model import (
    KeepOne,
    State,
)

HAND_LIMIT = characters.HAND_LIMIT
EMPTY_HAND_DRAW = 3
POSTCARDS_TO_WIN = 4
TURN_LIMIT = 300  # our ruling: fifty rounds at six seats and still no winner is a draw


class Tx:
    """A decision in progress: emit events, folding each into the state at once."""

    def __init__(self, content: Content, state: State, rng: Rng) -> None:
        self.content = content
        self.state = state
        self.rng = rng
        self.events: list[Event] = []
        self.resolving = False  # an event card is being resolved: others drawn now wait
        self.drawn_by: dict[str, int] = {}  # who drew each event card on the table
        self.undecided: set[str] = set()  # the Planner's cards drawn, not yet chosen from
        self.exchanging = False  # rules 3: Pickpockets' cards are passing, all at once

    def emit(self, event: Event) -> None:
        """Fold one event in; nothing more happens once the game is over."""
        if self.state.end is not None:
            return
        self.state = evolve(self.content, self.state, event)
        self.events.append(event)
        if self.state.options.postcards and not self.exchanging:
            self.check_postcards()

    def check_postcards(self) -> None:
        """ "If a player collects four postcards they instantly win": checked after every
        single event, so nothing later in the same action can take the fourth away, and
        after Pickpockets' exchange as a whole (rules 3). Of five postcards no two seats
        can hold four at once."""
        s = self.state
        if s.end is not None:
            return
        for seat in range(s.seats):
            # only the Planner's own cards still to choose from are left out, no one else's
            undecided = self.undecided if seat == s.current else set()
            if isinstance(s.pending, KeepOne) and s.pending.seat == seat:
                undecided = set(s.pending.cards)
            held = self.content.ids["postcard"].intersection(s.hands[seat]) - undecided
            if len(held) >= POSTCARDS_TO_WIN:
                self.emit(GameWon(seat=seat, reason="postcards"))
                return

    def hand_limit(self, seat: int) -> int:
        return characters.hand_limit(self.state, seat)

    # -- drawing ---------------------------------------------------------------------------

    def can_draw(self) -> bool:
        return can_draw(self.content, self.state)

    def draw(self, seat: int, reason: Reason) -> str | None:
        """Draw one card for `seat`; events drawn on the way are played and replaced."""
        while self.state.end is None and self.can_draw():
            if not self.state.draw_pile:
                self.emit(PileReshuffled(count=len(self.state.discard)))
            card = self.rng.choice(self.state.draw_pile)
            if self.content.type(card) == "event":
                self.drawn_by[card] = seat
                self.emit(EventRevealed(seat=seat, card=card))
                self._reshuffle_if_empty()
                self.resolve_events()
                continue
            if reason == "planner":
                self.undecided.add(card)  # not the Planner's to count until one is kept
            self.emit(CardDrawn(seat=seat, reason=reason, card=card))
            self._reshuffle_if_empty()
            return card
        return None

    def resolve_events(self) -> None:
        """Play the events on the table one after another, each discarded once resolved.

        An event drawn while another resolves (a Duty Free draw) waits for it to finish:
        events never resolve inside each other, and one on the table is in no pile, so no
        reshuffle can bring it back to be drawn again before it is over."""
        if self.resolving:
            return
        self.resolving = True
        while self.state.end is None and self.state.revealed:
            card = self.state.revealed[0]
            drawer = self.drawn_by[card]
            self.play_event(drawer, self.content.kind(card))
            self.emit(EventResolved(seat=drawer, card=card))
        self.resolving = False

    def _reshuffle_if_empty(self) -> None:
        # "When the final card in the draw pile has been taken, reshuffle the discard pile."
        if not self.state.draw_pile and self.state.discard:
            self.emit(PileReshuffled(count=len(self.state.discard)))

    # -- event cards -------------------------------------------------------------------------

    def play_event(self, drawer: int, kind: str) -> None:
        s = self.state
        order = [(drawer + i) % s.seats for i in range(s.seats)]
        match kind:
            case "civil-unrest":
                if s.country_pile:
                    self.emit(CentreChanged(old=s.centre, new=self.rng.choice(s.country_pile)))
            case "lost-luggage":
                for seat in order:
                    if hand := self.state.hands[seat]:
                        card = self.rng.choice(sorted(hand))
                        self.emit(CardsDiscarded(seat=seat, cards=(card,), reason="lost_luggage"))
            case "duty-free":
                for seat in order[1:] + order[:1]:
                    self.draw(seat, "duty_free")
            case "pickpockets":
                picks = {
                    seat: self.rng.choice(sorted(s.hands[seat])) for seat in order if s.hands[seat]
                }
                # rules 3: "every player passes ... at once": the four postcards a pass hands
                # a player count once every card has passed, not before the player's own pass
                self.exchanging = s.rules >= 3
                for seat, card in picks.items():
                    self.emit(CardPassed(from_seat=seat, to_seat=(seat + 1) % s.seats, card=card))
                self.exchanging = False
                if self.state.options.postcards:
                    self.check_postcards()
            case "strike":  # "the next player" after the one whose turn it is
                assert s.current is not None  # cards are drawn only once play has begun
                self.emit(SkipScheduled(seat=(s.current + 1) % s.seats))
            case "currency-crash":
                for seat in order:
                    cards = sorted(self.state.hands[seat])
                    if len(cards) > 4:
                        lost = tuple(self.rng.sample(cards, len(cards) - 4))
                        self.emit(CardsDiscarded(seat=seat, cards=lost, reason="currency_crash"))
            case "customs-sweep":
                for seat in order:
                    bad = tuple(
                        c for c in self.state.hands[seat] if self.content.type(c) == "forbidden"
                    )
                    if bad:
                        self.emit(CardsDiscarded(seat=seat, cards=bad, reason="customs_sweep"))
            case "tourist-season":
                if self.state.discard:
                    self.emit(DiscardShuffledIn(count=len(self.state.discard)))
            case _:
                raise ValueError(f"no effect for event {kind!r}")

    # -- between actions ---------------------------------------------------------------------

    def settle(self) -> None:
        """Wins, hand limits, then the next turn once the current one is spent."""
        while True:
            s = self.state
            if s.end is not None:
                return
            if s.pending is not None or s.current is None:
                return
            over = tuple(
                (seat, len(s.hands[seat]) - self.hand_limit(seat))
                for seat in range(s.seats)
                if len(s.hands[seat]) > self.hand_limit(seat)
            )
            if over:
                self.emit(DiscardRequired(counts=over))
                return
            if s.actions_left > 0:
                return
            if s.turn >= TURN_LIMIT:
                self.emit(GameDrawn(reason="turn_limit"))
                return
            nxt = (s.current + 1) % s.seats
            while self.state.skips[nxt] > 0:
                self.emit(TurnSkipped(seat=nxt))
                nxt = (nxt + 1) % s.seats
            self.emit(TurnBegan(seat=nxt))
            if not self.state.hands[nxt]:  # "draw three cards. This does not count as an action."
                for _ in range(EMPTY_HAND_DRAW):
                    self.draw(nxt, "empty_hand")
