"""Every different use of a leader's ability (games/footprints/leaders.py), and the empty
`Lead()` that plays the leader for nothing (or, for the Storyteller and the Dreamer, uses
the ability that needs no choice). One action per outcome, `Lead()` first."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, combinations_with_replacement, permutations

from games.footprints import walks
from games.footprints.board import bottom_destinations
from games.footprints.content import (
    RESOURCES,
    TERRAINS,
    Bonus,
    Follower,
    Leader,
    Resource,
    Terrain,
    clan_card,
)
from games.footprints.gains import Ledger, advance
from games.footprints.leaders import NO_CHOICES, SCOUT_SPACES, recluse_targets
from games.footprints.legal_moves import Lister, Outcome, bottom_moves, top_moves, unique
from games.footprints.model import Bottom, Lead, Top

MAX_TRADES = 1_500  # the Trader's different results listed (see RULES.md)
MAX_RENEWALS = 256  # the Dreamer's sets of cards to discard listed


def leads(ls: Lister, card: Leader, fire: str | None) -> list[Lead]:
    items: list[tuple[Outcome, Lead]] = [(_still(ls), Lead())]
    if card.ability in NO_CHOICES:
        items = []  # their empty `Lead()` uses the ability
    items += list(_uses(ls, card, fire))
    return unique(items)


def _still(ls: Lister) -> Outcome:
    return (ls.start, ls.led)


def _uses(ls: Lister, card: Leader, fire: str | None) -> Iterator[tuple[Outcome, Lead]]:
    t, seat, led0, start = ls.t, ls.seat, ls.led, ls.start
    match card.ability:
        case "advance_two_skills":
            for a, b in combinations(TERRAINS, 2):

                def two(p: list[Terrain], a: Terrain = a, b: Terrain = b) -> Ledger:
                    led, passed = advance(ls.tracks, led0, a, 2)
                    led, more = advance(ls.tracks, led, b, 2)
                    return ls.gain(led, passed + more, p)

                for picks, led in ls.choose(("elder", a, b), two):
                    yield (start, led), Lead(terrains=(a, b), any_skill=picks)
        case "take_three_resources":
            for taken in combinations_with_replacement(RESOURCES, 3):
                yield (start, _plus(led0, taken)), Lead(resources=taken)
        case "scout":
            yield from _scout(ls)
        case "recluse":
            for to in recluse_targets(t, seat):
                got = ls.bonuses([to])
                for picks, led in ls.choose(("to", to), ls.gaining(led0, got)):
                    yield (to, led), Lead(to=to, any_skill=picks)
        case "shaman" | "top_action_plus_two":
            plus, used = (0, fire) if card.ability == "shaman" else (2, None)
            for terrain in TERRAINS:
                for outcome, top in top_moves(ls, terrain, plus, None, used):
                    inner = Top(path=top.path, fire_at=top.fire_at, fire_path=top.fire_path)
                    yield outcome, Lead(terrains=(terrain,), top=inner, any_skill=top.any_skill)
        case "renew_footprints":
            mine = sorted(t.player(seat).footprints)
            count = 0
            for n in range(len(mine) + 1):
                for gone in combinations(mine, n):
                    count += 1
                    if count > MAX_RENEWALS:
                        ls.complete = False
                        return
                    yield ("renew", gone), Lead(cards=gone)
        case "fire_and_footprint":
            yield ("told",), Lead()
        case "build_twice":
            if start is not None:
                for to in sorted(bottom_destinations(ls.board, start, ls.others)):
                    got = ls.bonuses([to])
                    for picks, led in ls.choose(("to", to), ls.gaining(led0, got)):
                        yield (to, led), Lead(to=to, any_skill=picks)
        case "trade_resources":
            yield from _trades(ls)
        case "two_fire_cards":
            yield from _fire_keeper(ls)
        case "replay_follower":
            for played in sorted(set(t.player(seat).played)):
                follower = clan_card(t.content, played)
                if not isinstance(follower, Follower):
                    continue
                tops = top_moves(ls, follower.terrain, 0, follower.extra_move, None)
                for outcome, top in tops:
                    again = Lead(follower=played, top=Top(path=top.path), any_skill=top.any_skill)
                    yield outcome, again
                bottoms = bottom_moves(ls, follower.terrain, follower.extra_advance, None)
                for outcome, bottom in bottoms:
                    below = Bottom(to=bottom.to)
                    yield outcome, Lead(follower=played, bottom=below, any_skill=bottom.any_skill)


def _plus(led: Ledger, taken: tuple[Resource, ...]) -> Ledger:
    res = list(led.resources)
    for r in taken:
        res[RESOURCES.index(r)] += 1
    return led._replace(resources=(res[0], res[1], res[2], res[3]))


def _scout(ls: Lister) -> Iterator[tuple[Outcome, Lead]]:
    if ls.start is None:
        return
    for d in range(6):
        line = list(ls.board.line(ls.start, d))[:SCOUT_SPACES]
        for n in range(1, len(line) + 1):
            path = tuple(line[:n])
            if any(q not in ls.board.places for q in path) or path[-1] in ls.others:
                continue
            got = ls.bonuses(path)
            for picks, led in ls.choose(("scout", path), ls.gaining(ls.led, got)):
                yield (path[-1], led), Lead(path=path, any_skill=picks)


def _trades(ls: Lister) -> Iterator[tuple[Outcome, Lead]]:
    """Give any tokens, take as many plus one: every different set of resources after it,
    each reached by giving only what it has less of."""
    have = ls.led.resources
    total = sum(have) + 1
    count = 0
    for a in range(total + 1):
        for b in range(total - a + 1):
            for c in range(total - a - b + 1):
                after = (a, b, c, total - a - b - c)
                count += 1
                if count > MAX_TRADES:
                    ls.complete = False
                    return
                give = tuple(r for i, r in enumerate(RESOURCES) for _ in range(have[i] - after[i]))
                take = tuple(r for i, r in enumerate(RESOURCES) for _ in range(after[i] - have[i]))
                yield (ls.start, ls.led._replace(resources=after)), Lead(give=give, resources=take)


def _fire_keeper(ls: Lister) -> Iterator[tuple[Outcome, Lead]]:
    """Up to two fire cards from hand, in either order (the first with a move may walk),
    then a fire card drawn."""
    hand = sorted(set(ls.t.player(ls.seat).fire_hand))
    led0 = ls.led._replace(fire=ls.led.fire + 1)
    yield (ls.start, led0, ()), Lead()  # no card played: a fire card taken all the same
    orders = [(c,) for c in hand] + list(permutations(hand, 2))
    for cards in orders:
        walker = next((c for c in cards if ls.t.fire_move(c) is not None), None)
        paths: list[tuple[tuple[int, int], ...]] = [()]
        if walker is not None and ls.start is not None:
            move = ls.t.fire_move(walker)
            assert move is not None
            found = walks.fire_walks(ls.board, ls.start, move, ls.others, True)
            paths += list(found.values())
        for path in paths:
            got = ls.bonuses(path)
            end = path[-1] if path else ls.start

            def run(
                p: list[Terrain],
                cards: tuple[str, ...] = cards,
                got: list[Bonus] = got,
                walker: str | None = walker,
            ) -> Ledger:
                led = led0
                for card in cards:
                    if card == walker and got:
                        led = ls.gain(led, got, p)
                    led = ls.use(led, ls.effects(card), p)
                return led

            for picks, led in ls.choose(("keeper", cards, path), run):
                yield (
                    (end, led, tuple(sorted(cards))),
                    Lead(cards=cards, path=path, any_skill=picks),
                )
