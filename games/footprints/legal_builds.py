"""Steps 3 and 4 of a turn as listed moves: every different creation a seat can build now
(one for each result, with the "any skill" choices its bonuses ask for) and every different
use of its engraving powers; and `builds`, whether step 3 offers anything at all
(turn.py:flow)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping

from games.footprints.board import engraving_spaces
from games.footprints.content import RESOURCES, Bonus, Resource, Terrain
from games.footprints.gains import Ledger, advance
from games.footprints.legal_moves import Lister, Outcome, unique
from games.footprints.model import Action, BuildCavePainting, BuildEngraving, Skip, UsePower
from games.footprints.table import Table


def builds(t: Table, seat: int) -> list[Action]:
    """The creations `seat` can build now (one each; for whether the step is offered)."""
    return list(dict.fromkeys(a for _, a in _creations(Lister(t, seat), choose=False)))


def creations(ls: Lister) -> list[Action]:
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


def powers(ls: Lister) -> list[Action]:
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
