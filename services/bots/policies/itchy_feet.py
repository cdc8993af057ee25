"""Greedy play of Itchy Feet from one seat's view: travel when it can, chase missing items."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from random import Random
from typing import Any

from games.itchy_feet.characters import HAND_LIMIT, HOARDER_HAND_LIMIT
from games.itchy_feet.content import Content, load
from games.itchy_feet.model import (
    AcceptTrade,
    CancelSteal,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    OfferTrade,
    PlaySpecial,
    Recycle,
    SkipBonus,
    State,
    Steal,
    Travel,
)
from games.itchy_feet.travel import MAP, needed_items
from services.bots.observe import Observation
from services.bots.search import Budget, win_chances

CHARACTER_PREFERENCE = ("pickpocket", "planner", "backpacker", "hoarder", "haggler", "globetrotter")
STEAL_FROM = 5  # steal only from a player holding at least this many cards
KEEP = 80  # never pay with a card worth this much (see `_Seat.worth`)
KEEP_IN_TRADE = 30  # nor hand one worth this much to another player
GIVE_AT_MOST = 10  # offer in a trade only a card worth no more than this: a spare copy at most
POSTCARDS_HELD = 2  # postcards held from which that road is open (see `_Seat.__init__`)
POSTCARDS_TO_WIN = 4  # "If a player collects four postcards they instantly win the game!"


def _roads(
    content: Content,
    hand: Sequence[str],
    needed: Sequence[str],
    centre: Sequence[str] | None,
    postcards: bool,
) -> tuple[float, float]:
    """The two roads to a win, in good actions still to take: travelling (the cards the next
    trip lacks: an item, a passport, a forbidden item to be rid of; the trips; before home,
    a share of the centre's items to find) and, with the postcards extension, holding four
    postcards (inf without it). `steps` is the shorter of the two."""
    kinds = Counter(content.kind_of[c] for c in hand)
    lacking = sum(1 for k in needed if not kinds[k])
    left: float = max(0, lacking - kinds[MAP]) + (0 if kinds["passport"] else 1) + 1
    left += any(content.type(c) == "forbidden" for c in hand)
    if centre is not None:  # still on the way home
        left += 1 + AFTER_HOME * sum(1 for k in centre if not kinds[k])
    if not postcards:
        return left, math.inf
    return left, POSTCARDS_TO_WIN - sum(1 for c in hand if content.type(c) == "postcard")


class _Seat:
    """What the bot makes of its own view (the public part and its own hand, nothing else)."""

    def __init__(self, obs: Observation) -> None:
        self.content = content = load()
        public, private = obs.view["public"], obs.view.get("private") or {}
        self.public = public
        self.seat = seat = obs.seat
        self.hand: list[str] = private.get("hand", [])
        self.character = public["characters"][seat]
        # the abilities of the rules new games play (games/itchy_feet/characters.py)
        self.hand_limit = HOARDER_HAND_LIMIT if self.character == "hoarder" else HAND_LIMIT
        self.postcards_on = bool(public["options"]["postcards"])
        self.needed = set(self.needs_of(seat))
        home = not public["visited_home"][seat]
        self.counts = Counter(content.kind_of[c] for c in self.hand)
        lacking = sorted(k for k in self.needed if not self.counts[k])
        self.lacking = len(lacking)
        self.missing = set(lacking[self.counts[MAP] :])  # a map is any one
        if not self.counts["passport"]:
            self.missing.add("passport")
        centre = content.countries[public["centre"]].items if home else None
        travel, postcards = _roads(
            content, self.hand, tuple(self.needed), centre, self.postcards_on
        )
        # Chase postcards (recycle them, ask for them in trades) when they are the shorter
        # road by `steps`' own count, once the road is open: `steps` counts a postcard as one
        # good action like an item, but there are five postcards in the deck against twelve
        # copies of a trip's three items, so with fewer than two held the item road is the
        # quicker one in play (chasing from none lost to the old greedy: 27 % against 40 % a
        # seat at three seats, postcards on)
        self.chasing_postcards = postcards < travel and self.counts["postcard"] >= POSTCARDS_HELD
        self.wants = self.missing | ({"postcard"} if self.chasing_postcards else set())

    def needs_of(self, seat: int) -> tuple[str, ...]:
        """The items `seat`'s next trip takes (every seat's destination is public)."""
        public = self.public
        country = public["centre"] if public["visited_home"][seat] else public["homes"][seat]
        return self.content.countries[country].items

    def worth(self, card: str) -> int:
        kind, type_ = self.content.kind_of[card], self.content.type(card)
        copies = self.counts[kind]
        if kind == "passport" or kind in self.needed:
            return 90 if copies <= 1 else 10
        if type_ == "postcard":
            # never traded away (KEEP_IN_TRADE): a step to a win for whoever holds it. Two
            # held are a road open to us and shut to everyone else (four of five win): never
            # paid either. A lone one pays a recycle or a steal after every plainer card
            # (keeping even that one lost to the old greedy: 33 % against 67 % at two seats)
            return 85 if copies >= POSTCARDS_HELD else 50
        if kind == MAP:  # one standing for an item the next trip lacks is that item
            return 90 if copies <= self.lacking else 40
        if type_ == "special":
            dead = kind == "change-of-plans" and self.public["visited_home"][self.seat]
            return 0 if dead else 40
        return -10 if type_ == "forbidden" else 0

    def change_of_plans_helps(self) -> bool:
        """A new home at random from the pile (public): better if, on average, it takes
        fewer items this hand lacks than the home it replaces."""
        pile = self.public["country_pile"]
        if self.public["visited_home"][self.seat] or not pile:
            return False
        countries = self.content.countries
        lacks = [sum(1 for k in countries[c].items if not self.counts[k]) for c in pile]
        return sum(lacks) / len(lacks) < self.lacking


def _affordable(me: _Seat, cards: tuple[str, ...] | list[str]) -> bool:
    return all(me.worth(c) < KEEP for c in cards)


def _cost(me: _Seat, cards: tuple[str | None, ...]) -> int:
    """What paying these cards loses (the list offers every payment: pay the cheapest)."""
    return sum(me.worth(c) for c in cards if c is not None)


def _handed(me: _Seat, want: Sequence[str]) -> list[str]:
    """The cards an accepted trade takes: the lowest ids of each kind asked, as the engine
    picks them (games/itchy_feet/rules.py, `_accept`)."""
    out: list[str] = []
    for kind, n in Counter(want).items():
        out += sorted(c for c in me.hand if me.content.kind_of[c] == kind)[:n]
    return out


def _gives_away(me: _Seat, want: Sequence[str]) -> bool:
    """Would handing over cards of these kinds give away something of use: the last copy of
    the passport or of an item of the trip, a postcard (a step to a win for whoever holds
    it), or a special item the bot would use (a map, an insurance; all but a Change of Plans
    once home)?"""
    for kind, n in Counter(want).items():
        if (kind == "passport" or kind in me.needed) and me.counts[kind] <= n:
            return True
    return any(me.worth(c) >= KEEP_IN_TRADE for c in _handed(me, want))


def greedy(obs: Observation, rng: Random) -> Any:
    me = _Seat(obs)
    legal = obs.legal
    by_type: dict[type, list[Any]] = {}
    for action in legal:
        by_type.setdefault(type(action), []).append(action)

    if picks := by_type.get(ChooseCharacter):
        return min(picks, key=lambda a: CHARACTER_PREFERENCE.index(a.character))
    if discards := by_type.get(Discard):
        return min(discards, key=lambda a: (sum(me.worth(c) for c in a.cards), a.cards))
    if keeps := by_type.get(KeepCard):
        return max(keeps, key=lambda a: (me.worth(a.card), a.card))
    if cancel := by_type.get(CancelSteal):
        return cancel[0]
    if SkipBonus in by_type:
        # a bonus card after a declined trade costs the new action, which is worth as much
        # as a draw or more; after an accepted one it is free unless the hand is full
        bonus = me.public["pending"]
        full = len(me.hand) >= me.hand_limit
        draw = DrawBonus in by_type and not bonus["declined"] and not full
        return by_type[DrawBonus if draw else SkipBonus][0]  # the listed answer names the offer
    if DeclineTrade in by_type:
        offer = me.public["pending"]
        takes_forbidden = any(me.content.type(c) == "forbidden" for c in offer["give"])
        if AcceptTrade in by_type and not _gives_away(me, offer["want"]) and not takes_forbidden:
            return by_type[AcceptTrade][0]
        return by_type[DeclineTrade][0]

    disposals = [a for a in by_type.get(DisposeForbidden, []) if me.worth(a.with_card) < KEEP]
    if disposals:
        return min(disposals, key=lambda a: (me.worth(a.with_card), a.card, a.with_card))
    if travel := by_type.get(Travel):
        return travel[0]
    for play in by_type.get(PlaySpecial, []):
        kind = me.content.kind_of[play.card]
        if kind in ("espresso", "lucky-find") or (
            kind == "change-of-plans" and me.change_of_plans_helps()
        ):
            return play
    wants = me.wants
    recycles = [
        a
        for a in by_type.get(Recycle, [])
        if me.content.kind_of[a.take] in wants and _affordable(me, a.discard)
    ]
    if recycles:
        return min(recycles, key=lambda a: (_cost(me, a.discard), a.take, a.discard))
    sizes = me.public["hand_sizes"]
    # A trade offer against a plain Draw: a declined offer costs nothing but the right to
    # offer again this turn ("If the trade is declined, perform a new action instead"); an
    # accepted one brings the card wanted (a step) and a bonus card for the card given,
    # where a Draw brings one card at random. But the partner gains a bonus card and the
    # card given too: so offer only a card of next to no use to the bot (a plain card or a
    # spare copy; never a postcard, a special item, the last passport or trip item) and of
    # none to the partner's next trip (every seat's destination is public), else draw. Ask
    # a partner whose own trip does not take the kind wanted (it keeps what it needs), the
    # one with the larger hand first.
    offers = [
        a
        for a in by_type.get(OfferTrade, [])
        if a.want[0] in wants
        and sizes[a.to]
        and all(me.worth(c) <= GIVE_AT_MOST for c in a.give)
        and not any(me.content.kind_of[c] in me.needs_of(a.to) for c in a.give)
    ]
    if offers:

        def rank(a: OfferTrade) -> tuple[bool, int, int]:
            return (a.want[0] in me.needs_of(a.to), -sizes[a.to], _cost(me, a.give))

        best = min(rank(a) for a in offers)
        return rng.choice([a for a in offers if rank(a) == best])
    steals = [
        a
        for a in by_type.get(Steal, [])
        if sizes[a.victim] >= STEAL_FROM and (a.discard is None or _affordable(me, [a.discard]))
    ]
    if steals and me.wants:
        return max(steals, key=lambda a: (sizes[a.victim], -a.victim, -_cost(me, (a.discard,))))
    if Draw in by_type:
        return Draw()
    return rng.choice(legal)


# -- for the search (services/bots/search.py): a guessed state's worth to each seat ---------

STEPS_SCALE = 1.0  # cards-or-trips of lead that make a win about 73 % likely
AFTER_HOME = 0.7  # of a centre item not yet held, for a seat still on its way home


def steps(state: State, seat: int) -> float:
    """Roughly how many good actions `seat` is from winning: the shorter of its two roads
    (`_roads`: travelling, or with the extension holding four postcards)."""
    content = load()
    centre = None if state.visited_home[seat] else content.countries[state.centre].items
    needed = needed_items(content, state, seat)
    return min(_roads(content, state.hands[seat], needed, centre, state.options.postcards))


def estimate(state: State) -> list[float]:
    if state.winner is not None:
        return [1.0 if s == state.winner else 0.0 for s in range(state.seats)]
    return win_chances([-steps(state, s) for s in range(state.seats)], STEPS_SCALE)


# The `mcts` level's budget per move in this game (policies/__init__.py: SEARCHED). A
# playout's result is noisy here (the paired differences of two root moves after 20 moves
# have a standard deviation of 0.2-0.5) and the moves worth more than greedy's own gain
# 0.03-0.15 on it, so a move needs about a hundred guesses to gain by the search's two
# standard errors: at 96 playouts over 4 moves it hardly ever did, and played as greedy.
# 400 over 3 (the policy's own and the two best others one move ahead) lets it deviate
# where it should. Playouts to the end (rollout 400) cost 2.7 times as much a playout and
# are noisier still (a win or a loss): they did worse.
SEARCH_BUDGET = Budget(rollout=20, simulations=400, width=3)
