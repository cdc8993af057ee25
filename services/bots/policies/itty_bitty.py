"""Greedy play of the itty bitty card game from one seat's view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from random import Random
from typing import Any

from games.itty_bitty.content import Collector, load
from games.itty_bitty.model import (
    Action,
    CompleteCollector,
    DrawCollectors,
    KeepCollector,
    PassTurn,
    State,
    TakeIttybit,
)
from games.itty_bitty.rules import COLLECTORS_TO_END, IttyBitty
from services.bots.observe import Observation
from services.bots.search import Budget, win_chances

WANT_COLLECTORS = 2
_RULES = IttyBitty()


def _need(collectors: list[Collector], hand: list[str]) -> Counter[str]:
    """Grail units still missing, by trait, across the collectors held."""
    content = load()
    have = Counter(t for card in hand for t in content.traits(card))
    need: Counter[str] = Counter()
    for col in collectors:
        for g in col.grails:
            need[g.trait] += max(0, g.qty - have[g.trait])
    return need


def _promise(col: Collector, hand: list[str]) -> float:
    content = load()
    have = Counter(t for card in hand for t in content.traits(card))
    return sum(g.coins * (1 + min(have[g.trait], g.qty)) / (1 + g.qty) for g in col.grails)


def greedy(obs: Observation, rng: Random) -> Any:
    content = load()
    private = obs.view.get("private") or {}
    public = obs.view["public"]
    hand: list[str] = private.get("ittybits", [])
    held = [content.collectors[c] for c in private.get("collectors", [])]
    legal = obs.legal

    keeps = [a for a in legal if isinstance(a, KeepCollector)]
    if keeps:
        return max(keeps, key=lambda a: (_promise(content.collectors[a.card], hand), a.card))

    completes = [a for a in legal if isinstance(a, CompleteCollector)]
    if completes:

        def coins(a: CompleteCollector) -> int:
            col = content.collectors[a.collector]
            return sum(col.grails[p.grail].coins for p in a.payments)

        # Pay every grail of a card when possible; settle for part of one only when holding
        # many collectors (each costs 1 at the end) or in the last round.
        full = [
            a for a in completes if len(a.payments) == len(content.collectors[a.collector].grails)
        ]
        settle = public.get("end_triggered_by") is not None or len(held) > WANT_COLLECTORS
        pool = full or (completes if settle else [])
        if pool:
            return max(pool, key=lambda a: (coins(a), -sum(len(p.ittybits) for p in a.payments)))

    if len(held) < WANT_COLLECTORS and any(isinstance(a, DrawCollectors) for a in legal):
        return DrawCollectors()

    need = _need(held, hand)
    market = [a for a in legal if isinstance(a, TakeIttybit) and a.card is not None]
    if market:
        best = max(
            market, key=lambda a: (sum(need[t] > 0 for t in content.traits(a.card or "")), a.card)
        )
        if sum(need[t] > 0 for t in content.traits(best.card or "")) > 0:
            return best
    if any(isinstance(a, TakeIttybit) and a.card is None for a in legal):
        return TakeIttybit()
    if any(isinstance(a, DrawCollectors) for a in legal):
        return DrawCollectors()
    if market:
        return market[0]
    passes = [a for a in legal if isinstance(a, PassTurn)]
    return passes[0] if passes else rng.choice(legal)


# -- for the search (services/bots/search.py): a guessed state's worth to each seat ---------

POTENTIAL = 0.35  # of what a collector may still bring, while turns remain
HOPE = 1.0  # coins a held collector may still bring from ittybits not yet in hand
ITTYBIT = 0.5  # coins an ittybit in hand is worth while turns remain (any collector to come)
POINTS_SCALE = 5.0  # coins of lead that make a win about 73 % likely at the start
FADING = 4  # collectors the leader still lacks from which a held collector's prospects fade
SETTLED = 0.3  # the share of POINTS_SCALE left once the end is triggered


def _left(state: State) -> int:
    """Collectors the leader still lacks before the end is triggered (0 once it is)."""
    if state.end_triggered_by is not None:
        return 0
    return COLLECTORS_TO_END - max(len(hand.completed) for hand in state.hands)


def _worth(col: Collector, have: Counter[str], time: float) -> float:
    """A held collector: the grails payable now in full; while there is time (`time`, 1 to
    0), a share of the progress on the others and of what cards still to come may bring;
    less the coin it costs if it stays unfinished."""
    now = sum(g.coins for g in col.grails if have[g.trait] >= g.qty)
    progress = sum(g.coins * min(have[g.trait], g.qty) / g.qty for g in col.grails) - now
    return now + time * POTENTIAL * (progress + HOPE) - 1


def points(state: State) -> list[float]:
    """Coins so far, what each held collector is worth (`_worth`) and the ittybits in hand
    (`ITTYBIT` each, for the collectors still to come): these prospects fade over the last
    `FADING` collectors before the end, when few turns remain to meet them."""
    content = load()
    time = min(1.0, _left(state) / FADING)
    out = []
    for hand in state.hands:
        have = Counter(t for card in hand.ittybits for t in content.traits(card))
        held = sum(_worth(content.collectors[c], have, time) for c in hand.collectors)
        out.append(hand.coins + held + time * ITTYBIT * len(hand.ittybits))
    return out


def estimate(state: State) -> list[float]:
    """Each seat's chance to win from its points' lead: a lead counts for more as the end
    nears (the scale shrinks with the fourth root of the game left), so the search sees
    when ending the game wins it and when it loses it."""
    scale = POINTS_SCALE * max(SETTLED, (_left(state) / COLLECTORS_TO_END) ** 0.25)
    return win_chances(points(state), scale)


def playout_moves(state: State, seat: int) -> Sequence[Action]:
    """The moves a playout chooses among: the legal ones, each collector with one payment
    per set of grails (greedy picks by coins, then by cards paid, which every payment of the
    same grails shares)."""
    return _RULES.moves(state, seat, every_payment=False)


# The `mcts` level's budget per move in this game (policies/__init__.py: SEARCHED).
SEARCH_BUDGET = Budget(rollout=30)
