"""Every move a seat can make now, each postable as-is.

Moves are listed by destination with one default path (shortest); POST accepts any legal
path. A fire card played with a follower is listed as used after the action (or, for a
fire move, on its own); any other legal timing is accepted too.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

from games.footprints.board import (
    TopMove,
    bottom_destinations,
    engraving_spaces,
    top_destinations,
)
from games.footprints.content import (
    RESOURCES,
    SKILL_START,
    TERRAINS,
    Follower,
    Give,
    Leader,
    SkillBack,
    Terrain,
    clan_card,
)
from games.footprints.goals import complete
from games.footprints.model import (
    Action,
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    ChooseLeader,
    CompleteFootprint,
    DecideFootprint,
    DiscardFire,
    FootprintChoice,
    KeepStartingFootprint,
    Lead,
    PlaceFigure,
    PlaceNext,
    Play,
    SetupChoices,
    Skip,
    Top,
    UsePower,
)
from games.footprints.table import Table
from games.footprints.turn import FIRE_HAND_LIMIT, facts


def actions(t: Table, seat: int) -> list[Action]:
    s = t.state
    match s.pending:
        case SetupChoices(leaders=leaders, footprints=footprints):
            out: list[Action] = []
            if seat in leaders:
                out += [ChooseLeader(leader=x) for x in allowed_leaders(t, seat)]
            for owner, cards in footprints:
                if owner == seat:
                    out += [KeepStartingFootprint(card=c) for c in cards]
            return out
        case PlaceNext():
            taken = {p.position for p in s.players}
            return [PlaceFigure(row=r) for r in range(len(s.houses)) if (r, -1) not in taken]
        case FootprintChoice():
            return [DecideFootprint(keep=True), DecideFootprint(keep=False)]
    turn = s.turn
    if turn is None or turn.seat != seat:
        return []
    done: list[Action] = [
        CompleteFootprint(card=c)
        for c in t.player(seat).footprints
        if complete(t.content.footprint_cards[c], facts(t, seat))
    ]
    match turn.phase:
        case "play":
            return plays(t, seat) + done
        case "act":
            return acts(t, seat) + done
        case "build":
            return [*builds(t, seat), Skip(), *done]
        case "power":
            return [*powers(t, seat), Skip(), *done]
        case "discard":
            hand = sorted(t.player(seat).fire_hand)
            excess = len(hand) - FIRE_HAND_LIMIT
            return [*(DiscardFire(cards=c) for c in combinations(hand, excess)), *done]
    return done


def allowed_leaders(t: Table, seat: int) -> list[str]:
    from games.footprints.content import MAP_SHAPE_LEADERS

    clan = t.content.clans[t.player(seat).clan]
    return [
        x.id for x in clan.leaders if not (t.state.options.snake and x.ability in MAP_SHAPE_LEADERS)
    ]


def plays(t: Table, seat: int) -> list[Action]:
    p = t.player(seat)
    out: list[Action] = []
    for card in p.panel:
        out.append(Play(card=card))
        c = clan_card(t.content, card)
        if isinstance(c, Follower) or c.ability == "shaman":
            out += [Play(card=card, fire=f) for f in sorted(set(p.fire_hand))]
    return out


def affordable_fire(t: Table, seat: int, fire: str | None) -> bool:
    """Its costs can be paid: the resource to give, a marker above 2 to move back."""
    if fire is None:
        return False
    effects = t.content.fire_cards[fire].effects
    return all(t.owned(seat, e.resource) >= 1 for e in effects if isinstance(e, Give)) and all(
        t.skill(seat, e.terrain) > SKILL_START for e in effects if isinstance(e, SkillBack)
    )


def tops(
    t: Table, seat: int, terrain: Terrain, plus: int, extra: Terrain | None, fire: str | None
) -> list[Top]:
    start = t.player(seat).position
    if start is None:
        return [Top(path=())]
    use = affordable_fire(t, seat, fire)
    others = t.figures(but=seat)
    move = TopMove(terrain=terrain, level=t.skill(seat, terrain) + plus, extra=extra)
    paths = [(), *top_destinations(t.board, start, move, others).values()]
    out = [Top(path=tuple(p), fire_at=len(p) if use else None) for p in paths]
    fire_move = t.fire_move(fire) if use else None
    if fire_move is not None:
        walk = TopMove(terrain=fire_move.terrain, level=fire_move.spaces)
        for p in top_destinations(t.board, start, walk, others).values():
            out.append(Top(path=(), fire_at=0, fire_path=tuple(p)))
    return out


def bottoms(t: Table, seat: int, fire: str | None) -> list[Bottom]:
    start = t.player(seat).position
    use = affordable_fire(t, seat, fire)
    if start is None:
        return [Bottom(to=None, fire_at=1 if use else None)]
    ends = bottom_destinations(t.board, start, t.figures(but=seat))
    return [Bottom(to=end, fire_at=1 if use else None) for end in sorted(ends)]


def acts(t: Table, seat: int) -> list[Action]:
    turn = t.state.turn
    assert turn is not None and turn.card is not None
    card = clan_card(t.content, turn.card)
    if isinstance(card, Leader):
        return leads(t, seat, card, turn.fire)
    fire = None if turn.both else turn.fire
    out: list[Action] = []
    if "top" not in turn.done_actions:
        out += tops(t, seat, card.terrain, 0, card.extra_move, fire)
    if "bottom" not in turn.done_actions:
        out += bottoms(t, seat, fire)
    return out


def leads(t: Table, seat: int, card: Leader, fire: str | None) -> list[Action]:
    """The ability's choices; an empty `lead` (skip an ability that needs choices) always."""
    options = _leads(t, seat, card, fire)
    return options if Lead() in options else [*options, Lead()]


def _leads(t: Table, seat: int, card: Leader, fire: str | None) -> list[Action]:
    from games.footprints.leaders import GATHER, SCOUT_SPACES, recluse_targets

    p = t.player(seat)
    start = p.position
    others = t.figures(but=seat)
    match card.ability:
        case "advance_two_skills":
            return [Lead(terrains=pair) for pair in combinations(TERRAINS, 2)]
        case "take_three_resources":
            return [Lead(resources=r) for r in combinations_with_replacement(RESOURCES, GATHER)]
        case "scout":
            out: list[Action] = []
            if start is not None:
                for d in range(6):
                    line = list(t.board.line(start, d))[:SCOUT_SPACES]
                    for n in range(1, len(line) + 1):
                        path = tuple(line[:n])
                        if all(q in t.board.places for q in path) and path[-1] not in others:
                            out.append(Lead(path=path))
            return out
        case "recluse":
            return [Lead(to=q) for q in recluse_targets(t, seat)]
        case "shaman" | "top_action_plus_two":
            plus = 2 if card.ability == "top_action_plus_two" else 0
            used = fire if card.ability == "shaman" else None
            return [
                Lead(terrains=(terrain,), top=top)
                for terrain in TERRAINS
                for top in tops(t, seat, terrain, plus, None, used)
            ]
        case "renew_footprints":
            return [Lead(), Lead(cards=p.footprints)] if p.footprints else [Lead()]
        case "fire_and_footprint":
            return [Lead()]
        case "build_twice":
            if start is None:
                return [Lead()]
            return [Lead(to=end) for end in sorted(bottom_destinations(t.board, start, others))]
        case "trade_resources":
            out = [Lead(resources=(r,)) for r in RESOURCES]
            for give in RESOURCES:
                if t.owned(seat, give):
                    out += [Lead(give=(give,), resources=(r, r)) for r in RESOURCES if r != give]
            return out
        case "two_fire_cards":
            hand = sorted(set(p.fire_hand))
            usable = [c for c in hand if affordable_fire(t, seat, c)]
            out = [Lead(cards=(c,)) for c in usable]
            out += [
                Lead(cards=pair)
                for pair in combinations(usable, 2)
                if _affordable_together(t, seat, pair)
            ]
            return out
        case "replay_follower":
            out = []
            for played in list(dict.fromkeys(p.played))[-3:]:  # the latest three followers
                c = clan_card(t.content, played)
                if isinstance(c, Follower):
                    out += [
                        Lead(follower=played, top=top)
                        for top in tops(t, seat, c.terrain, 0, c.extra_move, None)
                    ]
                    out += [Lead(follower=played, bottom=b) for b in bottoms(t, seat, None)]
            return out
    return []


def _affordable_together(t: Table, seat: int, cards: tuple[str, ...]) -> bool:
    need: dict[str, int] = {}
    back: dict[Terrain, int] = {}
    for card in cards:
        for e in t.content.fire_cards[card].effects:
            if isinstance(e, Give):
                need[e.resource] = need.get(e.resource, 0) + 1
            if isinstance(e, SkillBack):
                back[e.terrain] = back.get(e.terrain, 0) + 1
    return all(t.owned(seat, r) >= n for r, n in need.items()) and all(
        t.skill(seat, terrain) - n >= SKILL_START for terrain, n in back.items()
    )


def builds(t: Table, seat: int) -> list[Action]:
    p = t.player(seat)
    turn = t.state.turn
    if p.position is None or turn is None or turn.built >= turn.builds_allowed:
        return []
    board = t.board_card(seat)
    figures = t.figures()
    out: list[Action] = []
    for terrain in TERRAINS:
        cost = board.engravings[terrain].cost
        if terrain in p.engravings or any(t.owned(seat, r) < n for r, n in cost.items()):
            continue
        for at in engraving_spaces(t.board, p.position, terrain, figures | t.creations()):
            out.append(BuildEngraving(terrain=terrain, at=at))
    cost = board.cave_painting.cost
    if p.cave_site is None and all(t.owned(seat, r) >= n for r, n in cost.items()):
        painted = {q.cave_site for q in t.state.players}
        for site, _ in t.state.caves:
            cave = t.board.caves.get(site)
            if cave and site not in painted and p.position in cave.touches:
                out.append(BuildCavePainting(site=site))
    return out


def powers(t: Table, seat: int) -> list[Action]:
    turn = t.state.turn
    if turn is None or turn.built == 0:
        return []
    board = t.board_card(seat)
    out: list[Action] = []
    for terrain in t.player(seat).engravings:
        owned = t.owned(seat, board.engravings[terrain].power)
        out += [UsePower(terrain=terrain, pay=n) for n in range(1, owned + 1)]
    return out
