"""Footprints in words: its legal actions and events (games/text.py).

Positions are the API's own `[row, column]` (a house is column -1), as the map names them; a
house is named by its row counted from 1 at the top, as a person counts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from games.footprints.content import (
    AnySkillBonus,
    BothActions,
    CavePaintingGoal,
    Effect,
    EngravingGoal,
    FireBonus,
    Follower,
    FootprintBonus,
    Give,
    Goal,
    Move,
    ResourceBonus,
    ResourceGoal,
    SkillBack,
    SkillBonus,
    SkillGoal,
    SkillsTotalGoal,
    load,
)
from games.footprints.events import (
    AnyEvent,
    BonusLost,
    CardPlayed,
    CavePaintingBuilt,
    ChoicesOpened,
    DeckBuilt,
    EndTriggered,
    EngravingBuilt,
    FigureMoved,
    FigurePlaced,
    FireDiscarded,
    FireDrawn,
    FireReshuffled,
    FootprintCompleted,
    FootprintDiscarded,
    FootprintDrawn,
    FootprintKept,
    FootprintsRenewed,
    FootprintsReshuffled,
    FootprintsReturned,
    GameEnded,
    GameSetUp,
    LeaderChosen,
    PanelFilled,
    PowerUsed,
    ReachedCairn,
    ResourcesChanged,
    SkillAdvanced,
    SkillMovedBack,
    StartingFootprints,
    StepDone,
    TurnBegan,
)
from games.footprints.model import (
    AnyAction,
    Bottom,
    BuildCavePainting,
    BuildEngraving,
    ChooseLeader,
    CompleteFootprint,
    DecideFootprint,
    DiscardFire,
    KeepStartingFootprint,
    Lead,
    PlaceFigure,
    Play,
    Pos,
    Skip,
    Top,
    UsePower,
)
from games.footprints.svg import token_mark
from games.text import CardInfo, a, listing, plural, who

PHASES = {
    "setup": "setting up",
    "play": "play a card",
    "act": "act",
    "act_again": "the other action",
    "build": "build",
    "power": "an engraving's power",
    "discard": "discard fire cards",
    "over": "the turn is over",
}


def effect(e: Effect) -> str:
    match e:
        case ResourceBonus(resource=resource):
            return f"1 {resource}"
        case SkillBonus(terrain=terrain):
            return f"+1 {terrain}"
        case AnySkillBonus():
            return "+1 any skill"
        case FireBonus():
            return "a fire card"
        case FootprintBonus():
            return "a footprint card"
        case Move(terrain=terrain, spaces=spaces):
            return f"move {spaces} {terrain}"
        case SkillBack(terrain=terrain):
            return f"-1 {terrain}"
        case Give(resource=resource):
            return f"give 1 {resource}"
        case BothActions(terrains=(one, two)):
            return f"both actions of {a(f'{one} or {two} follower')}"
    return type(e).__name__


def goal(g: Goal) -> str:
    match g:
        case EngravingGoal(terrain=terrain):
            return a(f"{terrain} engraving")
        case CavePaintingGoal():
            return "a cave painting"
        case ResourceGoal(resource=resource, count=count):
            return f"{count} {resource}"
        case SkillGoal(terrain=terrain, level=level):
            return f"{terrain} {level}"
        case SkillsTotalGoal(terrains=(one, two), total=total):
            return f"{one} + {two} {total}"
    return type(g).__name__


def _extras(f: Follower) -> list[str]:
    extra = [f"+1 {f.extra_move} move"] if f.extra_move else []
    return extra + ([f"+1 {f.extra_advance} skill"] if f.extra_advance else [])


def number(card_id: str) -> int:
    """The number printed on a fire or footprint card ("fire-07" -> 7)."""
    return int(card_id.rsplit("-", 1)[1])


@cache
def labels() -> dict[str, str]:
    """Every card as a person sees it, by what is printed on it: "an ice follower (+1
    mountain move)", "the Elder (leader)", "fire card 15 (...)", "footprint card 9 (...)".
    A clan's followers alike in terrain and extras read alike, as the rules make them alike."""
    content = load()
    out: dict[str, str] = {}
    for clan in content.clans.values():
        for f in clan.followers:
            extras = _extras(f)
            out[f.id] = a(f"{f.terrain} follower") + (f" ({', '.join(extras)})" if extras else "")
        for leader in clan.leaders:
            out[leader.id] = f"the {leader.name} (leader)"
    for fire in content.fire_cards.values():
        out[fire.id] = f"fire card {number(fire.id)} ({', '.join(effect(e) for e in fire.effects)})"
    for fp in content.footprint_cards.values():
        out[fp.id] = f"footprint card {number(fp.id)} ({', '.join(goal(g) for g in fp.goals)})"
    return out


SCORING = {
    "skill_x2": "twice one skill's level",
    "lowest_skill_x3": "three times the lowest skill",
    "cairn_plus_10": "10 more on the cairn",
    "per_engraving_5": "5 per engraving",
    "bonus_icons_next_to_engravings_x3": "3 per bonus icon next to your engravings",
    "engraving_points_again": "the engravings' points again",
    "per_footprint_card_5": "5 per footprint card",
}


def cards() -> list[CardInfo]:
    content = load()
    out: list[CardInfo] = []
    for clan in content.clans.values():
        symbol = content.boards[clan.clan].symbol if clan.clan in content.boards else None
        for f in clan.followers:
            traits = (f.terrain, *_extras(f))
            name = f"{f.terrain.capitalize()} follower ({clan.name})"
            out.append(CardInfo(id=f.id, kind="follower", name=name, traits=traits, glyph=symbol))
        for leader in clan.leaders:
            out.append(
                CardInfo(
                    id=leader.id,
                    kind="leader",
                    name=f"{leader.name} ({clan.name})",
                    traits=(leader.ability.replace("_", " "),),  # in words, not a key
                    text=leader.text,
                    glyph=symbol,
                )
            )
    for fire in content.fire_cards.values():
        traits = tuple(effect(e) for e in fire.effects)
        out.append(
            CardInfo(id=fire.id, kind="fire", name=f"Fire card {number(fire.id)}", traits=traits)
        )
    for fp in content.footprint_cards.values():
        traits = tuple(goal(g) for g in fp.goals)
        name = f"Footprint card {number(fp.id)}"
        out.append(CardInfo(id=fp.id, kind="footprint", name=name, traits=traits))
    for token in content.cave_tokens.values():
        what = SCORING.get(token.scoring, token.scoring)
        if token.terrain:
            what = f"{what} ({token.terrain})"
        out.append(
            CardInfo(
                id=token.id,
                kind="cave_token",
                name=f"Cave token {token.id[5:]}",
                traits=(token.scoring, *((token.terrain,) if token.terrain else ())),
                text=what,
                glyph=token_mark(token),
            )
        )
    return out


def card(card_id: str) -> str:
    return labels().get(card_id, card_id)


def named(ids: Iterable[str]) -> str:
    return listing(card(c) for c in ids) or "nothing"


def at(pos: Pos) -> str:
    return f"[{pos[0]}, {pos[1]}]"


def _fire(fire_at: int | None, fire_path: Sequence[Pos]) -> str:
    if fire_at is None:
        return ""
    where = f", then on to {at(fire_path[-1])}" if fire_path else ""
    return f", the fire card after {plural(fire_at, 'step')}{where}"


def _skills(any_skill: Sequence[str]) -> str:
    return f" (any skill: {listing(any_skill)})" if any_skill else ""


def _top(action: Top) -> str:
    if not action.path:
        return "Top action: stay" + _fire(action.fire_at, action.fire_path)
    steps = plural(len(action.path), "step")
    text = f"Top action: move to {at(action.path[-1])} ({steps})"
    return text + _fire(action.fire_at, action.fire_path) + _skills(action.any_skill)


DURING = {"after_advance": "the advance", "after_move": "the move"}


def _bottom(action: Bottom) -> str:
    where = f", moving to {at(action.to)}" if action.to is not None else ""
    text = f"Bottom action: advance{where}"
    if action.fire_during is not None:  # between the two halves, one of them first
        on = f", then on to {at(action.fire_path[-1])}" if action.fire_path else ""
        text += f", the fire card after {DURING[action.fire_during]}{on}"
        return text + _skills(action.any_skill)
    return text + _fire(action.fire_at, action.fire_path) + _skills(action.any_skill)


def _lead(action: Lead) -> str:
    parts = []
    if action.terrains:
        parts.append(f"skills {listing(action.terrains)}")
    if action.give:
        parts.append(f"give {listing(action.give)}")
    if action.resources:
        parts.append(f"take {listing(action.resources)}")
    if action.path:
        parts.append(f"move to {at(action.path[-1])}")
    if action.to is not None:
        parts.append(f"go to {at(action.to)}")
    if action.cards:
        parts.append(f"cards {named(action.cards)}")
    if action.follower:
        parts.append(f"replay {card(action.follower)}")
    if action.top:
        parts.append(_top(action.top).lower())
    if action.bottom:
        parts.append(_bottom(action.bottom).lower())
    return "Use the leader" + (": " + "; ".join(parts) if parts else "") + _skills(action.any_skill)


def describe(action: AnyAction, names: Sequence[str]) -> str:
    match action:
        case ChooseLeader(leader=leader):
            return f"Choose {card(leader)} as your secret leader"
        case KeepStartingFootprint(card=kept):
            return f"Keep {card(kept)}"
        case PlaceFigure(row=row, any_skill=any_skill):
            return f"Place your figure on the house of row {row + 1}{_skills(any_skill)}"
        case Play(card=played, fire=None):
            return f"Play {card(played)}"
        case Play(card=played, fire=fire):
            return f"Play {card(played)} with {card(fire or '?')}"
        case Top():
            return _top(action)
        case Bottom():
            return _bottom(action)
        case Lead():
            return _lead(action)
        case BuildEngraving(terrain=terrain, at=pos, any_skill=any_skill):
            return f"Build {a(f'{terrain} engraving')} at {at(pos)}{_skills(any_skill)}"
        case BuildCavePainting(site=site, any_skill=any_skill):
            return f"Paint the cave {site}{_skills(any_skill)}"
        case UsePower(terrain=terrain, pay=pay, any_skill=any_skill):
            return f"Use the {terrain} engraving's power, paying {pay}{_skills(any_skill)}"
        case Skip():
            return "Skip this step"
        case DiscardFire(cards=discarded):
            return f"Discard {named(discarded)}"
        case CompleteFootprint(card=done):
            return f"Complete {card(done)}"
        case DecideFootprint(keep=keep, card=drawn):
            which = card(drawn) if drawn else "the footprint card"
            return f"{'Keep' if keep else 'Discard'} {which}"
    raise TypeError(f"not a Footprints action: {action!r}")


def narrate(event: AnyEvent, names: Sequence[str]) -> str:
    match event:
        case GameSetUp(seats=seats, clans=clans, first_seat=first):
            clan_names = load().clans
            who_is = ", ".join(
                f"{who(names, s)} {clan_names[c].name if c in clan_names else c}"
                for s, c in enumerate(clans)
            )
            solo = " (solo)" if seats == 1 else ""
            return (
                f"A game for {plural(seats, 'player')}{solo}: {who_is}; {who(names, first)} starts"
            )
        case DeckBuilt(seat=seat, top_count=count):
            return f"{who(names, seat)}'s clan deck is shuffled ({count} cards on top)"
        case LeaderChosen(seat=seat, leader=None):
            return f"{who(names, seat)} chose a secret leader"
        case LeaderChosen(seat=seat, leader=leader):
            return f"{who(names, seat)} chose {card(leader or '?')} as their leader"
        case StartingFootprints(seat=seat, cards=None):
            return f"{who(names, seat)} was dealt footprint cards to keep one"
        case StartingFootprints(seat=seat, cards=dealt):
            return f"{who(names, seat)} was dealt {named(dealt or ())} to keep one"
        case FootprintKept(seat=seat, card=kept):
            return f"{who(names, seat)} keeps {card(kept)}"
        case FootprintDiscarded(seat=seat, card=discarded):
            return f"{who(names, seat)} discards {card(discarded)}"
        case FootprintsReturned(seat=seat, cards=None):
            return f"{who(names, seat)}'s other footprint cards go back into the deck"
        case FootprintsReturned(seat=seat, cards=returned):
            return f"{who(names, seat)}'s {named(returned or ())} go back into the deck"
        case ChoicesOpened(pending=None):
            return "Every choice is made"
        case ChoicesOpened():
            return "Players choose"
        case PanelFilled(seat=seat, card=drawn):
            return f"{card(drawn)} joins {who(names, seat)}'s panel"
        case FigurePlaced(seat=seat, at=pos):
            return f"{who(names, seat)} placed their figure on the house of row {pos[0] + 1}"
        case TurnBegan(seat=seat):
            return f"{who(names, seat)}'s turn"
        case CardPlayed(seat=seat, card=played, fire=None):
            return f"{who(names, seat)} played {card(played)}"
        case CardPlayed(seat=seat, card=played, fire=fire):
            return f"{who(names, seat)} played {card(played)} with {card(fire or '?')}"
        case FigureMoved(seat=seat, path=path):
            end = at(path[-1]) if path else "where they stand"
            return f"{who(names, seat)} moved to {end} ({plural(len(path), 'step')})"
        case SkillAdvanced(seat=seat, terrain=terrain, level=level):
            return f"{who(names, seat)}'s {terrain} skill rose to {level}"
        case SkillMovedBack(seat=seat, terrain=terrain, level=level):
            return f"{who(names, seat)}'s {terrain} skill fell back to {level}"
        case ResourcesChanged(seat=seat, resource=resource, change=change) if change >= 0:
            return f"{who(names, seat)} took {change} {resource}"
        case ResourcesChanged(seat=seat, resource=resource, change=change):
            return f"{who(names, seat)} gave up {-change} {resource}"
        case FireDrawn(seat=seat, card=None):
            return f"{who(names, seat)} drew a fire card"
        case FireDrawn(seat=seat, card=drawn):
            return f"{who(names, seat)} drew {card(drawn or '?')}"
        case FireReshuffled(count=count):
            return f"The fire discard ({plural(count, 'card')}) is shuffled into a new deck"
        case FootprintDrawn(seat=seat, card=drawn):
            return f"{who(names, seat)} drew {card(drawn)}: keep it or discard it"
        case FootprintsReshuffled(count=count):
            return f"The footprint discard ({plural(count, 'card')}) is shuffled into a new deck"
        case BonusLost(seat=seat):
            return f"{who(names, seat)}'s footprint bonus is lost: no card is left"
        case EngravingBuilt(seat=seat, terrain=terrain, at=pos):
            return f"{who(names, seat)} built {a(f'{terrain} engraving')} at {at(pos)}"
        case CavePaintingBuilt(seat=seat, site=site):
            return f"{who(names, seat)} painted the cave {site}"
        case PowerUsed(seat=seat, terrain=terrain, paid=paid):
            return f"{who(names, seat)} used the {terrain} engraving's power, paying {paid}"
        case StepDone(seat=seat, phase="over"):
            return f"{who(names, seat)}'s turn is over"
        case StepDone(seat=seat, phase=phase):
            return f"{who(names, seat)}: next, {PHASES.get(phase, phase)}"
        case FireDiscarded(seat=seat, cards=discarded):
            return f"{who(names, seat)} discarded {named(discarded)}"
        case FootprintCompleted(seat=seat, card=done):
            return f"{who(names, seat)} completed {card(done)}"
        case FootprintsRenewed(seat=seat, discarded=discarded):
            return (
                f"{who(names, seat)} renewed their footprint cards, discarding {named(discarded)}"
            )
        case ReachedCairn(seat=seat, points=points):
            return f"{who(names, seat)} reached the cairn for {plural(points, 'point')}"
        case EndTriggered(seat=seat, reason="cairn"):
            return f"{who(names, seat)} triggered the end by reaching the cairn"
        case EndTriggered(seat=seat):
            return f"{who(names, seat)} triggered the end: their panel is empty"
        case GameEnded(solo=(points, won, achievement)):
            result = "won" if won else "lost"
            return f"Game over: {who(names, 0)} {result} the solo game with {points} points ({achievement})"
        case GameEnded(scores=scores):
            # the points only: who won is the table's `game_over` (a seat that resigned and
            # whose bot scored most does not win)
            board = ", ".join(f"{who(names, s)} {n}" for s, n in enumerate(scores))
            return f"Game over: {board}"
    raise TypeError(f"not a Footprints event: {event!r}")
