"""Greedy play of Itchy Feet from one seat's view: travel when it can, chase missing items."""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

from games.itchy_feet.content import load
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
from services.bots.search import win_chances

CHARACTER_PREFERENCE = ("pickpocket", "planner", "backpacker", "hoarder", "haggler", "globetrotter")
STEAL_FROM = 5  # steal only from a player holding at least this many cards


class _Seat:
    """What the bot makes of its own view."""

    def __init__(self, obs: Observation) -> None:
        self.content = load()
        public, private = obs.view["public"], obs.view.get("private") or {}
        self.public = public
        self.hand: list[str] = private.get("hand", [])
        seat = obs.seat
        country = public["centre"] if public["visited_home"][seat] else public["homes"][seat]
        self.needed = set(self.content.countries[country].items)
        kinds = [self.content.kind(c) for c in self.hand]
        lacking = sorted(k for k in self.needed if k not in kinds)
        self.missing = set(lacking[kinds.count("poorly-drawn-map") :])  # a map is any one
        if "passport" not in kinds:
            self.missing.add("passport")

    def worth(self, card: str) -> int:
        kind, type_ = self.content.kind(card), self.content.type(card)
        copies = sum(1 for c in self.hand if self.content.kind(c) == kind)
        if kind == "passport" or kind in self.needed:
            return 90 if copies <= 1 else 10
        if type_ == "postcard":
            return 50
        if type_ == "special":
            return 40
        return -10 if type_ == "forbidden" else 0


KEEP = 80  # never pay with a card worth this much: the only passport or needed item
HAND_LIMIT = 7


def _affordable(me: _Seat, cards: tuple[str, ...] | list[str]) -> bool:
    return all(me.worth(c) < KEEP for c in cards)


def _cost(me: _Seat, cards: tuple[str | None, ...]) -> int:
    """What paying these cards loses (the list offers every payment: pay the cheapest)."""
    return sum(me.worth(c) for c in cards if c is not None)


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
        full = len(me.hand) >= HAND_LIMIT
        draw = DrawBonus in by_type and not bonus["declined"] and not full
        return by_type[DrawBonus if draw else SkipBonus][0]  # the listed answer names the offer
    if DeclineTrade in by_type:
        offer = me.public["pending"]
        kinds = [me.content.kind(c) for c in me.hand]
        gives_away_need = any(
            (k in me.needed or k == "passport") and kinds.count(k) <= offer["want"].count(k)
            for k in offer["want"]
        )
        takes_forbidden = any(me.content.type(c) == "forbidden" for c in offer["give"])
        if AcceptTrade in by_type and not gives_away_need and not takes_forbidden:
            return by_type[AcceptTrade][0]
        return by_type[DeclineTrade][0]

    disposals = [a for a in by_type.get(DisposeForbidden, []) if me.worth(a.with_card) < KEEP]
    if disposals:
        return min(disposals, key=lambda a: (me.worth(a.with_card), a.card, a.with_card))
    if travel := by_type.get(Travel):
        return travel[0]
    for play in by_type.get(PlaySpecial, []):
        if me.content.kind(play.card) in ("espresso", "lucky-find"):
            return play
    recycles = [
        a
        for a in by_type.get(Recycle, [])
        if me.content.kind(a.take) in me.missing and _affordable(me, a.discard)
    ]
    if recycles:
        return min(recycles, key=lambda a: (_cost(me, a.discard), a.take, a.discard))
    sizes = me.public["hand_sizes"]
    # a declined offer costs nothing (another action follows), so always ask first
    offers = [
        a
        for a in by_type.get(OfferTrade, [])
        if a.want[0] in me.missing and sizes[a.to] and _affordable(me, a.give)
    ]
    if offers:
        cheapest = min(_cost(me, a.give) for a in offers)
        return rng.choice([a for a in offers if _cost(me, a.give) == cheapest])
    steals = [
        a
        for a in by_type.get(Steal, [])
        if sizes[a.victim] >= STEAL_FROM and (a.discard is None or _affordable(me, [a.discard]))
    ]
    if steals and me.missing:
        return max(steals, key=lambda a: (sizes[a.victim], -a.victim, -_cost(me, (a.discard,))))
    if Draw in by_type:
        return Draw()
    return rng.choice(legal)


# -- for the search (services/bots/search.py): a guessed state's worth to each seat ---------

STEPS_SCALE = 1.0  # cards-or-trips of lead that make a win about 73 % likely
AFTER_HOME = 0.7  # of a centre item not yet held, for a seat still on its way home


def steps(state: State, seat: int) -> float:
    """Roughly how many good actions `seat` is from winning: the cards it lacks for its next
    trip (an item, a passport; a forbidden item to be rid of), the trips, and, before home,
    the centre's items it will still have to find."""
    content = load()
    hand = state.hands[seat]
    kinds = Counter(content.kind(c) for c in hand)
    lacking = sum(1 for k in needed_items(content, state, seat) if not kinds[k])
    left = max(0, lacking - kinds[MAP]) + (0 if kinds["passport"] else 1) + 1
    left += any(content.type(c) == "forbidden" for c in hand)
    if not state.visited_home[seat]:
        centre = content.countries[state.centre].items
        left += 1 + AFTER_HOME * sum(1 for k in centre if not kinds[k])
    if state.options.postcards:
        postcards = sum(1 for c in hand if content.type(c) == "postcard")
        left = min(left, 4 - postcards)
    return left


def estimate(state: State) -> list[float]:
    if state.winner is not None:
        return [1.0 if s == state.winner else 0.0 for s in range(state.seats)]
    return win_chances([-steps(state, s) for s in range(state.seats)], STEPS_SCALE)
