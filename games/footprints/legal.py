"""Every move a seat can make now, each postable as-is: one action for each different
result (RULES.md, "Legal actions"). Two actions that leave the same state (two paths to the
same space collecting the same bonuses, the same "any skill" advances named in another
order) are one move, listed once.

Where the list could grow very large it is bounded (long walks, many "any skill" choices,
the Trader, the Dreamer); `listing` says whether a bound cut it short, and `decide` still
accepts every legal move.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from games.footprints.content import (
    Follower,
    Leader,
    clan_card,
)
from games.footprints.goals import complete
from games.footprints.legal_builds import creations, powers
from games.footprints.legal_leads import leads
from games.footprints.legal_moves import Lister, Outcome, bottom_moves, top_moves, unique
from games.footprints.model import (
    Action,
    ChooseLeader,
    CompleteFootprint,
    DecideFootprint,
    DiscardFire,
    DiscardFireQuestion,
    FootprintQuestion,
    KeepStartingFootprint,
    LeaderQuestion,
    PlaceFigure,
    PlaceQuestion,
    Play,
    Skip,
    StartingFootprintQuestion,
)
from games.footprints.questions import asked
from games.footprints.table import Table


class Listing(NamedTuple):
    actions: list[Action]
    complete: bool  # False when a bound left some moves out (decide accepts them)


def actions(t: Table, seat: int) -> list[Action]:
    return listing(t, seat).actions


def listing(t: Table, seat: int) -> Listing:
    s = t.state
    if s.pending is not None:  # answers, each naming its question
        out: list[Action] = []
        for question in asked(t, seat):
            match question:
                case LeaderQuestion(leaders=leaders):
                    out += [ChooseLeader(leader=x, question=question) for x in leaders]
                case StartingFootprintQuestion(cards=cards):
                    out += [KeepStartingFootprint(card=c, question=question) for c in cards]
                case PlaceQuestion():
                    return _places(t, seat, question)
                case FootprintQuestion(cards=cards):  # "Immediately decide": nothing else
                    out += [
                        DecideFootprint(keep=keep, card=cards[0], question=question)
                        for keep in (True, False)
                    ]
        return Listing(out, True)
    turn = s.turn
    if turn is None or turn.seat != seat:
        return Listing([], True)
    done: list[Action] = [
        CompleteFootprint(card=c)
        for c in t.player(seat).footprints
        if complete(t.content.footprint_cards[c], t.facts(seat))
    ]
    ls = Lister(t, seat)
    match turn.phase:
        case "play":
            found: list[Action] = plays(t, seat)
        case "act":
            found = acts(ls)
        case "build":
            found = [*creations(ls), Skip()]
        case "power":
            found = powers(ls)
        case "discard":
            hand = sorted(t.player(seat).fire_hand)
            found = [
                DiscardFire(cards=c, question=question)
                for question in asked(t, seat)
                if isinstance(question, DiscardFireQuestion)
                for c in combinations(hand, question.count)
            ]
        case _:
            found = []
    return Listing([*found, *done], ls.complete)


def _places(t: Table, seat: int, question: PlaceQuestion) -> Listing:
    ls = Lister(t, seat)
    taken = {p.position for p in t.state.players}
    items: list[tuple[Outcome, Action]] = []
    for row in range(len(t.state.houses)):
        if (row, -1) in taken:
            continue
        house, side = t.state.houses[row]
        got = list(t.content.house_tiles[house].sides[side])
        for picks, led in ls.choose(row, ls.gaining(ls.led, got)):  # this Lister's only key
            place = PlaceFigure(row=row, any_skill=picks, question=question)
            items.append(((row, led), place))
    return Listing(unique(items), ls.complete)


def plays(t: Table, seat: int) -> list[Action]:
    p = t.player(seat)
    out: list[Action] = []
    for card in p.panel:
        out.append(Play(card=card))
        c = clan_card(t.content, card)
        if isinstance(c, Follower) or c.ability == "shaman":
            out += [Play(card=card, fire=f) for f in sorted(set(p.fire_hand))]
    return out


def acts(ls: Lister) -> list[Action]:
    turn = ls.t.state.turn
    assert turn is not None and turn.card is not None
    card = clan_card(ls.t.content, turn.card)
    if isinstance(card, Leader):
        return list(leads(ls, card, turn.fire))
    fire = None if turn.both else turn.fire
    # with both actions, the first one done is part of the result (the other comes next)
    first = turn.both and not turn.done_actions
    items: list[tuple[Outcome, Action]] = []
    if "top" not in turn.done_actions:
        tops = top_moves(ls, card.terrain, 0, card.extra_move, fire)
        items += [(("top" if first else "", *o), a) for o, a in tops]
    if "bottom" not in turn.done_actions:
        bottoms = bottom_moves(ls, card.terrain, card.extra_advance, fire)
        items += [(("bottom" if first else "", *o), a) for o, a in bottoms]
    return unique(items)
