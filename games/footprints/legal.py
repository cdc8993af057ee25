"""Every move a seat can make now, each postable as-is: one action for each different
result (RULES.md, "Legal actions"). Two actions that leave the same state (two paths to the
same space collecting the same bonuses, the same "any skill" advances named in another
order) are one move, listed once.

Where the list could grow very large it is bounded (long walks, many "any skill" choices,
the Trader, the Dreamer); `listing` says whether a bound cut it short, and `decide` still
accepts every legal move.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from itertools import combinations
from typing import NamedTuple

from games.footprints.board import engraving_spaces
from games.footprints.content import (
    RESOURCES,
    Bonus,
    Follower,
    Leader,
    Resource,
    Terrain,
    clan_card,
)
from games.footprints.gains import Ledger, advance
from games.footprints.goals import complete
from games.footprints.legal_leads import leads
from games.footprints.legal_moves import Lister, Outcome, bottom_moves, top_moves, unique
from games.footprints.model import (
    Action,
    BuildCavePainting,
    BuildEngraving,
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
    UsePower,
)
from games.footprints.questions import asked
from games.footprints.table import Table
from games.footprints.turn import facts


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
        if complete(t.content.footprint_cards[c], facts(t, seat))
    ]
    ls = Lister(t, seat)
    match turn.phase:
        case "play":
            found: list[Action] = plays(t, seat)
        case "act":
            found = acts(ls)
        case "build":
            found = [*_builds(ls), Skip()]
        case "power":
            found = _powers(ls)
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
        for picks, led in ls.choose(("house", row), ls.gaining(ls.led, got)):
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


def builds(t: Table, seat: int) -> list[Action]:
    """The creations `seat` can build now (one each; for whether the step is offered)."""
    return list(dict.fromkeys(a for _, a in _creations(Lister(t, seat), choose=False)))


def _builds(ls: Lister) -> list[Action]:
    return unique(_creations(ls, choose=True))


def _creations(ls: Lister, choose: bool) -> Iterator[tuple[Outcome, Action]]:
    t, seat = ls.t, ls.seat
    p = t.player(seat)
    turn = t.state.turn
    if p.position is None or turn is None or turn.built >= turn.builds_allowed:
        return
    board = t.board_card(seat)
    figures = t.figures()
    for terrain in board.engravings:
        cost = board.engravings[terrain].cost
        if terrain in p.engravings or any(t.owned(seat, r) < n for r, n in cost.items()):
            continue
        for at in engraving_spaces(t.board, p.position, terrain, figures | t.creations()):
            near = [q for q in t.board.adjacent(at) if q != at]
            got = [b for q in near if q not in figures and (b := t.board.places[q].bonus)]
            paid = _pay(ls.led, cost)
            for picks, led in _choices(ls, ("near", at, terrain), paid, got, choose):
                yield ((terrain, at), led), BuildEngraving(terrain=terrain, at=at, any_skill=picks)
    cost = board.cave_painting.cost
    if p.cave_site is None and all(t.owned(seat, r) >= n for r, n in cost.items()):
        painted = {q.cave_site for q in t.state.players}
        for site, _ in t.state.caves:
            cave = t.board.caves.get(site)
            if cave and site not in painted and p.position in cave.touches:
                got = [
                    b
                    for q in sorted(cave.touches)
                    if q not in figures and (b := t.board.places[q].bonus)
                ]
                paid = _pay(ls.led, cost)
                for picks, led in _choices(ls, ("cave", site), paid, got, choose):
                    yield (site, led), BuildCavePainting(site=site, any_skill=picks)


def _pay(led: Ledger, cost: Mapping[Resource, int]) -> Ledger:
    res = list(led.resources)
    for resource, n in cost.items():
        res[RESOURCES.index(resource)] -= n
    return led._replace(resources=(res[0], res[1], res[2], res[3]))


def _choices(
    ls: Lister, key: Hashable, led: Ledger, got: list[Bonus], choose: bool
) -> list[tuple[tuple[Terrain, ...], Ledger]]:
    if not choose:
        return [((), led)]
    return ls.choose(key, ls.gaining(led, got))


def _powers(ls: Lister) -> list[Action]:
    t, seat = ls.t, ls.seat
    board = t.board_card(seat)
    items: list[tuple[Outcome, Action]] = [(ls.led, Skip())]  # a power can change nothing
    for terrain in t.player(seat).engravings:
        resource = board.engravings[terrain].power
        for n in range(1, t.owned(seat, resource) + 1):
            paid = _pay(ls.led, {resource: n})

            def run(
                p: list[Terrain], led: Ledger = paid, terrain: Terrain = terrain, n: int = n
            ) -> Ledger:
                led, passed = advance(ls.tracks, led, terrain, n)
                return ls.gain(led, passed, p)

            for picks, led in ls.choose(("power", terrain, n), run):
                items.append((led, UsePower(terrain=terrain, pay=n, any_skill=picks)))
    return unique(items)
