"""The moves a seat can make now, each postable as-is: every move with a different result.

Copies of one kind are interchangeable (RULES.md), so a choice of cards is listed once per
choice of kinds, paid with the lowest ids (rules 2: whatever copy is named, the copies moved
are the longest held), and a card to take from the discard is named by its kind, as the
table sees it. Trade offers are the one place the full list would explode (any cards of
yours for any cards of a partner's): one card for one card is listed, and `decide` accepts
every other offer the rules allow (RULES.md, "Legal actions").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from games.api import IllegalAction
from games.itchy_feet import characters
from games.itchy_feet.content import Content
from games.itchy_feet.evolve import extension_types
from games.itchy_feet.model import (
    AcceptTrade,
    Action,
    AllowSteal,
    BonusQuestion,
    CancelSteal,
    CharacterQuestion,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DiscardQuestion,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    KeepOneQuestion,
    OfferTrade,
    PassTurn,
    PlaySpecial,
    Recycle,
    SkipBonus,
    State,
    Steal,
    StealQuestion,
    TradeQuestion,
    Travel,
)
from games.itchy_feet.questions import asked, shortfall
from games.itchy_feet.travel import needed_items, payment

PLAYABLE = ("espresso", "lucky-find", "change-of-plans")


def actions(c: Content, state: State, seat: int) -> list[Action]:
    """For a seat that is to act: its answers to its question, each naming it (the answers
    refused now are `questions.unavailable`), or its turn."""
    hand = state.hands[seat]
    for question in asked(c, state, seat):  # one at most
        match question:
            case TradeQuestion(want=want):
                decline: list[Action] = [DeclineTrade(question=question)]
                if shortfall(c, hand, want) is not None:
                    return decline
                return [AcceptTrade(question=question), *decline]
            case BonusQuestion():
                skip: list[Action] = [SkipBonus(question=question)]
                return [DrawBonus(question=question), *skip] if can_draw(c, state) else skip
            case StealQuestion():
                insurance = sorted(x for x in hand if c.kind(x) == "travel-insurance")
                return [AllowSteal(question=question)] + [
                    CancelSteal(card=x, question=question) for x in insurance[:1]
                ]
            case DiscardQuestion(count=count):
                return [Discard(cards=x, question=question) for x in choices(c, hand, count)]
            case KeepOneQuestion(cards=cards):
                return [KeepCard(card=x, question=question) for x in by_kind(c, cards).values()]
            case CharacterQuestion(options=options):
                return [ChooseCharacter(character=x, question=question) for x in options]
    return turn_actions(c, state, seat) or [PassTurn()]


def by_kind(c: Content, cards: Iterable[str]) -> dict[str, str]:
    """The lowest id of each kind among `cards`, by kind."""
    lowest: dict[str, str] = {}
    kind_of = c.kind_of
    for card in sorted(cards):
        lowest.setdefault(kind_of[card], card)
    return dict(sorted(lowest.items()))


def choices(c: Content, cards: Iterable[str], n: int) -> list[tuple[str, ...]]:
    """Every way to pick `n` of `cards` that differs in kinds (lowest ids of each kind)."""
    groups: dict[str, list[str]] = {}
    kind_of = c.kind_of
    for card in sorted(cards):
        groups.setdefault(kind_of[card], []).append(card)
    return list(_pick(sorted(groups.values()), 0, n))


def _pick(piles: list[list[str]], i: int, left: int) -> Iterator[tuple[str, ...]]:
    """`left` cards from piles[i:], the first k of a pile each time. A function of the module,
    not a closure of `choices`: a nested function that calls itself holds itself in its
    closure, a reference cycle only the garbage collector frees (games/itty_bitty/payments.py)."""
    if left == 0:
        yield ()
        return
    if i == len(piles):
        return
    for k in range(min(left, len(piles[i])), -1, -1):
        for rest in _pick(piles, i + 1, left - k):
            yield (*piles[i][:k], *rest)


def playable(c: Content, card: str) -> bool:
    return c.kind(card) in PLAYABLE


def can_draw(c: Content, state: State) -> bool:
    return any(c.type(x) != "event" for x in state.draw_pile + state.discard)


def tradeable_kinds(c: Content, state: State) -> frozenset[str]:
    """Kinds of hand cards in this game: no events, characters or action cards."""
    types = {"item", "passport", *extension_types(state.options)} - {"event"}
    return frozenset().union(*(c.kinds[t] for t in types))


def unseen_copies(c: Content, state: State, seat: int, kind: str) -> int:
    """Copies of `kind` the seat cannot see: in play but not in its hand or face up."""
    seen = (*state.hands[seat], *state.discard, *state.revealed, *state.box)
    return c.copies[kind] - [c.kind_of[x] for x in seen].count(kind)


def turn_actions(c: Content, state: State, seat: int) -> list[Action]:
    hand = state.hands[seat]
    kinds = by_kind(c, hand)
    usable = [x for x in hand if c.type(x) != "forbidden"]  # what may pay (RULES.md)
    out: list[Action] = [PlaySpecial(card=x) for x in kinds.values() if playable(c, x)]
    # rules 3: "along with one additional card from your hand", any card, another forbidden
    # item too (listed once a pair); rules 1-2: only a card that may pay
    goes_with = hand if state.rules >= 3 else usable
    out += [
        DisposeForbidden(card=bad, with_card=other)
        for bad in kinds.values()
        if c.type(bad) == "forbidden"
        for other in by_kind(c, [x for x in goes_with if x != bad]).values()
        if c.type(other) != "forbidden" or other > bad
    ]
    if can_draw(c, state):
        out.append(Draw())
    out += recycles(c, state, seat, usable)
    if not state.trade_declined:
        out += offers(c, state, seat, list(kinds.values()))
    free = characters.free_steal(state, seat)
    costs: list[str | None] = [None] if free else list(by_kind(c, usable).values())
    out += [
        Steal(victim=victim, discard=cost)
        for victim in range(state.seats)
        if victim != seat and state.hands[victim]
        for cost in costs
    ]
    has_passport = "passport" in kinds
    clean = not any(c.type(x) == "forbidden" for x in hand)
    pay = payment(c, hand, needed_items(c, state, seat))
    if has_passport and clean and pay is not None:
        out.append(Travel(pay=pay))
    return out


def recycles(c: Content, state: State, seat: int, usable: list[str]) -> list[Action]:
    """Every payment with every kind to take (named as the discard shows it: by its kind;
    the copy longest in the discard is taken); two that leave the same cards are one."""
    takes = by_kind(c, (x for x in state.discard if c.type(x) != "event"))
    costs = {kind: characters.recycle_cost(c, state, seat, take) for kind, take in takes.items()}
    out: list[Action] = []
    seen: set[tuple[tuple[str, ...], str | None]] = set()
    for paid in [p for n in (1, 2) if n in costs.values() for p in choices(c, usable, n)]:
        kinds = [c.kind_of[x] for x in paid]
        for kind, take in takes.items():
            if costs[kind] != len(paid):
                continue
            # what the hand gives up for what it gains: paying a kind and taking one back
            # is the same as not paying it
            key: tuple[tuple[str, ...], str | None] = (tuple(kinds), kind)
            if kind in kinds:
                net = list(kinds)
                net.remove(kind)
                key = (tuple(net), None)
            if key not in seen:
                seen.add(key)
                out.append(Recycle(discard=paid, take=c.alike[take]))  # a kind: as shown
    return out


def offers(c: Content, state: State, seat: int, gives: list[str]) -> list[Action]:
    """One card of each kind held for one card of each kind the partner could hold."""
    seen = (*state.hands[seat], *state.discard, *state.revealed, *state.box)
    unseen = c.copies - Counter(c.kind(x) for x in seen)
    wants = sorted(k for k in tradeable_kinds(c, state) if unseen[k] > 0)
    return [
        OfferTrade(to=partner, give=(give,), want=(want,))
        for partner in range(state.seats)
        if partner != seat and state.hands[partner]
        for give in gives
        for want in wants
    ]


def own(state: State, seat: int, cards: Sequence[str]) -> None:
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_named_twice", "name each card once")
    for card in cards:
        if card not in state.hands[seat]:
            raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
