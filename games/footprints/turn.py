"""The six steps of a turn, the free completion of footprint cards, and the end of the game."""

from __future__ import annotations

import msgspec

from games.footprints.board import creation_bonuses, engraving_spaces
from games.footprints.content import (
    MAP_SHAPE_LEADERS,
    TERRAINS,
    Leader,
    clan_card,
)
from games.footprints.events import (
    CardPlayed,
    CavePaintingBuilt,
    EndTriggered,
    EngravingBuilt,
    FireDiscarded,
    FootprintCompleted,
    GameEnded,
    PanelFilled,
    PowerUsed,
    ReachedCairn,
    ResourcesChanged,
    StepDone,
    TurnBegan,
)
from games.footprints.follower import follower_action
from games.footprints.goals import complete
from games.footprints.leaders import lead
from games.footprints.legal_builds import builds
from games.footprints.model import (
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    DiscardFire,
    Lead,
    Play,
    Skip,
    Top,
    UsePower,
)
from games.footprints.scoring import Tally, ranks, score, solo, tie_break
from games.footprints.table import FIRE_HAND_LIMIT, Table, illegal


def play(t: Table, seat: int, action: Play) -> None:
    """Step 1: a clan card from the panel, and optionally a fire card."""
    p = t.player(seat)
    if action.card not in p.panel:
        raise illegal("not_on_panel", f"{action.card} is not on your clan panel")
    card = clan_card(t.content, action.card)
    if action.fire is not None:
        if action.fire not in p.fire_hand:
            raise illegal("fire_not_in_hand", f"{action.fire} is not a fire card of yours")
        if isinstance(card, Leader) and card.ability != "shaman":
            raise illegal("no_fire_with_leader", "a fire card is not played with your leader")
    t.emit(CardPlayed(seat=seat, card=action.card, fire=action.fire))


def act(t: Table, seat: int, action: Top | Bottom | Lead) -> None:
    """Step 2: the follower's top or bottom action (both, with such a fire card), or the
    leader's ability."""
    turn = t.state.turn
    assert turn is not None and turn.card is not None
    card = clan_card(t.content, turn.card)
    any_skill = list(action.any_skill)
    if isinstance(card, Leader):
        if not isinstance(action, Lead):
            raise illegal("lead_with_leader", "a leader's turn is a `lead` action")
        lead(t, seat, card.ability, action, turn.fire, any_skill)
        after_action(t, seat)
        return
    if isinstance(action, Lead):
        raise illegal("not_a_leader", "this is a follower: play its top or bottom action")
    fire = None if turn.both else turn.fire  # the both-actions card does nothing else
    kind = "top" if isinstance(action, Top) else "bottom"
    if kind in turn.done_actions:
        raise illegal("action_done", f"the {kind} action is done; now the other one")
    follower_action(t, seat, card, action, fire, any_skill)
    if turn.both and not turn.done_actions:
        t.emit(StepDone(seat=seat, phase="act_again", did=kind))
        t.settle(seat)
        return
    after_action(t, seat)


def after_action(t: Table, seat: int) -> None:
    t.emit(StepDone(seat=seat, phase="build"))
    t.settle(seat)


def build(t: Table, seat: int, action: BuildEngraving | BuildCavePainting | Skip) -> None:
    """Step 3 (optional): one creation (the Carver's turn: two). Rules._step brings only
    this step's actions."""
    turn = t.state.turn
    assert turn is not None
    if isinstance(action, Skip):
        t.emit(StepDone(seat=seat, phase="power"))
        return
    any_skill = list(action.any_skill)
    p = t.player(seat)
    if p.position is None:
        raise illegal("on_cairn_track", "your figure is on the cairn track")
    board = t.board_card(seat)
    figures = t.figures()
    if isinstance(action, BuildEngraving):
        terrain, at = action.terrain, action.at
        if terrain in p.engravings:
            raise illegal("already_built", f"your {terrain} engraving is built")
        spaces = engraving_spaces(t.board, p.position, terrain, figures | t.creations())
        if at not in spaces:
            raise illegal(
                "not_eligible",
                f"an engraving goes on a {terrain} space next to you with no icon, "
                "figure, creation or cairn",
            )
        t.pay(seat, board.engravings[terrain].cost, f"the {terrain} engraving")
        t.emit(EngravingBuilt(seat=seat, terrain=terrain, at=at))
        near = creation_bonuses(t.board, [at], figures)
    else:
        site = action.site
        if p.cave_site is not None:
            raise illegal("already_built", "your cave painting is built")
        cave = t.board.caves.get(site)
        painted = {q.cave_site for q in t.state.players}
        if cave is None or site not in dict(t.state.caves) or site in painted:
            raise illegal("no_cave_token", f"no unoccupied cave token at {site}")
        if p.position not in cave.touches:
            raise illegal("not_adjacent", "the cave token must be next to your figure")
        t.pay(seat, board.cave_painting.cost, "the cave painting")
        t.emit(CavePaintingBuilt(seat=seat, site=site))
        near = sorted(q for q in cave.touches if q not in figures and t.board.places[q].bonus)
    t.collect(seat, [b for q in near if (b := t.board.places[q].bonus) is not None], any_skill)
    built = t.state.turn
    assert built is not None
    if built.built >= built.builds_allowed:
        t.emit(StepDone(seat=seat, phase="power"))
    t.settle(seat)


def power(t: Table, seat: int, action: UsePower | Skip) -> None:
    """Step 4 (optional): one revealed engraving power, once per resource paid."""
    if isinstance(action, Skip):
        t.emit(StepDone(seat=seat, phase="discard"))
        return
    if action.terrain not in t.player(seat).engravings:
        raise illegal("power_not_revealed", f"build your {action.terrain} engraving first")
    resource = t.board_card(seat).engravings[action.terrain].power
    if not 1 <= action.pay <= t.owned(seat, resource):
        raise illegal("cannot_afford", f"pay 1 to {t.owned(seat, resource)} {resource}")
    t.emit(ResourcesChanged(seat=seat, resource=resource, change=-action.pay))
    t.emit(PowerUsed(seat=seat, terrain=action.terrain, paid=action.pay))
    t.collect(seat, t.advance(seat, action.terrain, action.pay), list(action.any_skill))
    t.emit(StepDone(seat=seat, phase="discard"))
    t.settle(seat)


def discard(t: Table, seat: int, action: DiscardFire) -> None:
    """Step 5: down to three fire cards."""
    hand = t.player(seat).fire_hand
    excess = len(hand) - FIRE_HAND_LIMIT
    if len(set(action.cards)) != len(action.cards) or not set(action.cards) <= set(hand):
        raise illegal("fire_not_in_hand", "discard fire cards from your hand, once each")
    if len(action.cards) != excess:
        raise illegal("wrong_discard_count", f"discard exactly {excess} fire card(s)")
    t.emit(FireDiscarded(seat=seat, cards=tuple(sorted(action.cards))))  # no order kept
    finish(t, seat)


def complete_footprint(t: Table, seat: int, card: str) -> None:
    p = t.player(seat)
    if card not in p.footprints:
        raise illegal("not_on_board", f"{card} is not on your footprint board")
    if not complete(t.content.footprint_cards[card], t.facts(seat)):
        raise illegal("goals_not_met", "not every goal of this card is met")
    t.emit(FootprintCompleted(seat=seat, card=card))


# -- between steps ---------------------------------------------------------------------------


def flow(t: Table) -> None:
    """Pass the steps that offer nothing to choose, and end the turn once it is done."""
    while t.state.result is None and t.state.pending is None and t.state.turn is not None:
        turn = t.state.turn
        seat = turn.seat
        if turn.phase == "build" and not can_build(t, seat):
            t.emit(StepDone(seat=seat, phase="power"))
        elif turn.phase == "power" and not can_use_power(t, seat):
            t.emit(StepDone(seat=seat, phase="discard"))
        elif turn.phase == "discard":
            if turn.fire is not None:
                t.emit(FireDiscarded(seat=seat, cards=(turn.fire,)))  # the one played
            if len(t.player(seat).fire_hand) > FIRE_HAND_LIMIT:
                return  # the player chooses what to discard
            finish(t, seat)
        else:
            return


def can_build(t: Table, seat: int) -> bool:
    return bool(builds(t, seat))


def can_use_power(t: Table, seat: int) -> bool:
    """Every turn, built or not (the tip: build early "to activate engraving powers as many
    times as possible"), when a revealed power has a resource to pay."""
    board = t.board_card(seat)
    return any(t.owned(seat, board.engravings[e].power) for e in t.player(seat).engravings)


def finish(t: Table, seat: int) -> None:
    """Step 6, then the end conditions and the next turn."""
    # Our ruling: a card whose goals are met is flipped for you before your turn ends
    # (flipping is free and never worse, and the last turn may end with no step left).
    for card in t.player(seat).footprints:
        if complete(t.content.footprint_cards[card], t.facts(seat)):
            t.emit(FootprintCompleted(seat=seat, card=card))
    p = t.player(seat)
    pile = p.deck_top or p.deck_bottom
    if pile:
        t.emit(PanelFilled(seat=seat, card=t.rng.choice(sorted(pile))))
    p = t.player(seat)
    if (
        p.position is not None
        and t.board.places.get(p.position)
        and t.board.places[p.position].cairn
    ):
        track = t.content.cairn_tile.track
        points = track[min(len(t.state.cairn_track), len(track) - 1)]
        t.emit(ReachedCairn(seat=seat, points=points))
        if not t.state.end_triggered:
            t.emit(EndTriggered(seat=seat, reason="cairn"))
    if out_of_cards(t, seat):
        t.emit(EndTriggered(seat=seat, reason="empty_panel"))
    t.emit(StepDone(seat=seat, phase="over"))
    next_turn(t, seat)


def out_of_cards(t: Table, seat: int, passing: bool = False) -> bool:
    """Whether `seat`'s empty panel ends the game at the end of this turn: at the turn it
    played its last card; but since rules version 2, for a seat whose clan deck is a card
    short of the 15 "2 Leaders" promises (the Snake took one of its two leaders), at the
    turn it passes next, so that the game lasts the variant's one more turn."""
    if t.player(seat).panel or t.state.end_triggered:
        return False
    if t.state.rules < 2 or not short_of_a_leader(t, seat):
        return not passing
    return passing


def short_of_a_leader(t: Table, seat: int) -> bool:
    """With "Snake" and "2 Leaders", a clan one of whose leaders the Snake bars (the Scout,
    the Recluse) plays 13 followers and one leader: 14 cards where the others have 15."""
    options = t.state.options
    if not (options.snake and options.two_leaders):
        return False
    clan = t.content.clans[t.player(seat).clan]
    return any(x.ability in MAP_SHAPE_LEADERS for x in clan.leaders)


def next_turn(t: Table, seat: int) -> None:
    while True:
        if t.state.end_triggered and len({p.turns for p in t.state.players}) == 1:
            t.emit(game_ended(t))
            return
        seat = (seat + 1) % t.state.seats
        t.emit(TurnBegan(seat=seat))
        if t.player(seat).panel:
            return
        # no clan card left to play: the turn passes (our ruling), and may end the game
        if out_of_cards(t, seat, passing=True):
            t.emit(EndTriggered(seat=seat, reason="empty_panel"))
        t.emit(StepDone(seat=seat, phase="over"))


def game_ended(t: Table) -> GameEnded:
    parts = []
    totals = []
    skill_totals = []
    for seat, p in enumerate(t.state.players):
        mine = [at for at, owner, _ in t.state.engraved if owner == seat]
        icons = {
            q for at in mine for q in t.board.adjacent(at) if t.board.places[q].bonus is not None
        }
        token_id = dict(t.state.caves).get(p.cave_site or "")
        s = score(
            t.board_card(seat),
            Tally(
                skills=dict(zip(TERRAINS, p.skills, strict=True)),
                engravings=p.engravings,
                icons_next_to_engravings=len(icons),
                cave_token=t.content.cave_tokens[token_id] if token_id else None,
                cairn_points=p.cairn_points,
                footprints_done=len(p.completed),
                footprints_open=len(p.footprints),
                resources=sum(p.resources),
                fire_cards=len(p.fire_hand),
            ),
        )
        parts.append({k: v for k, v in msgspec.structs.asdict(s).items() if k != "total"})
        totals.append(s.total)
        skill_totals.append(sum(p.skills))
    solo_result = None
    if t.state.seats == 1:
        p = t.state.players[0]
        unused = len(p.panel) + len(p.deck_top) + len(p.deck_bottom)
        variants = int(t.state.options.snake) + int(t.state.options.two_leaders)
        solo_result = solo(totals[0], unused, variants)
        totals = [solo_result[0]]
    order = ranks(totals, skill_totals)
    return GameEnded(
        scores=tuple(totals),
        parts=tuple(parts),
        ranks=tuple(order),
        winners=tuple(
            s for s, r in enumerate(order) if r == 1 and (solo_result is None or solo_result[1])
        ),
        solo=solo_result,
        tie_break=tie_break(totals, skill_totals) if solo_result is None else None,
    )
