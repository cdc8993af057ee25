"""Footprints as a decider: setup / decide / evolve; views and redaction are views.py's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from games.api import IllegalAction, Outcome, Rng, Unavailable, View
from games.footprints import legal, questions, turn, views
from games.footprints.assembled import assembled_map
from games.footprints.board import assemble, cave_sites_in_play, draw_layout
from games.footprints.content import MAP_SHAPE_LEADERS, RESOURCE_OF, Content, load
from games.footprints.events import (
    AnyEvent,
    ChoicesOpened,
    DeckBuilt,
    Event,
    FigurePlaced,
    FootprintDiscarded,
    FootprintKept,
    FootprintsReturned,
    GameSetUp,
    LeaderChosen,
    PanelFilled,
    StartingFootprints,
    TurnBegan,
)
from games.footprints.evolve import evolve
from games.footprints.model import (
    Action,
    AnyAction,
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
    Options,
    PlaceFigure,
    PlaceNext,
    Play,
    SetupChoices,
    Skip,
    Top,
    UsePower,
)
from games.footprints.state import State
from games.footprints.svg import TERRAIN_FILL, CaveMark, render, token_mark
from games.footprints.table import Table, board_of, illegal
from games.questions import check_named

PANEL = 4
TOP_FOLLOWERS = {False: 7, True: 9}  # the followers shuffled with the leader(s): 2 Leaders


class Footprints:
    key = "footprints"
    name = "Footprints"
    seats = range(1, 7)
    schema_version = 2  # 2: a drawn footprint card waits alone, the cards still owed with it
    # The rules new games play under (games/api.Rules.rules_version). 2: a fire card may be
    # used during a bottom action (`Bottom.fire_during`); with "Snake" and "2 Leaders" the
    # empty panel of a clan left one leader (14 cards) ends the game at its 15th turn, which
    # it passes. A game of version 1 keeps before-or-after and the end at any empty panel.
    rules_version = 2
    state_type = State
    action_type = AnyAction
    event_type = AnyEvent
    options_type = Options
    view_type = views.View
    map_type = views.AssembledMap  # what `board_map` gives: GET /v1/games/{id}/map
    bot_levels: tuple[str, ...] = ("random", "greedy", "mcts", "expert")

    def __init__(self, content: Content | None = None) -> None:
        self.content = content or load()

    # -- setup -----------------------------------------------------------------------------

    def setup(self, options: Options, seats: int, rng: Rng) -> list[Event]:
        if seats not in self.seats:
            raise IllegalAction("bad_seat_count", "Footprints seats 1 to 6 players")
        c = self.content
        layout = draw_layout(c, rng)
        sites = cave_sites_in_play(assemble(c, layout, snake=options.snake), seats)
        tokens = rng.sample(sorted(c.cave_tokens), len(sites))
        set_up = GameSetUp(
            seats=seats,
            options=options,
            tiles=layout.tiles,
            turned=layout.turned,
            houses=layout.houses,
            caves=tuple(zip((s.id for s in sites), tokens, strict=True)),
            clans=tuple(rng.sample(sorted(c.clans), seats)),
            first_seat=rng.randrange(seats),
            rules=self.rules_version,
        )
        t = Table(c, evolve(c, None, set_up), rng)
        t.events.append(set_up)
        choosing: list[int] = []
        dealt: list[tuple[int, tuple[str, ...]]] = []
        for seat in range(seats):
            clan = c.clans[t.player(seat).clan]
            followers = [f.id for f in clan.followers]
            rng.shuffle(followers)
            n = TOP_FOLLOWERS[options.two_leaders]
            leaders = [
                x.id for x in clan.leaders if not (options.snake and x.ability in MAP_SHAPE_LEADERS)
            ]
            if options.advanced and not options.two_leaders:
                chosen: list[str] = []  # chosen in secret next
                choosing.append(seat)
            elif options.two_leaders:
                chosen = leaders
            else:
                chosen = leaders[:1]  # leader A, or the other if A is barred by the Snake
            top = tuple(sorted((*followers[:n], *chosen)))
            t.emit(
                DeckBuilt(
                    seat=seat, top=top, bottom=tuple(sorted(followers[n:])), top_count=len(top)
                )
            )
            if options.advanced:
                cards = tuple(rng.sample(t.state.footprint_deck, 3))
                t.emit(StartingFootprints(seat=seat, cards=cards))
                dealt.append((seat, cards))
            else:
                card = rng.choice(t.state.footprint_deck)
                t.emit(StartingFootprints(seat=seat, cards=(card,)))
                t.emit(FootprintKept(seat=seat, card=card))
        if choosing or dealt:
            t.emit(
                ChoicesOpened(
                    pending=SetupChoices(leaders=tuple(choosing), footprints=tuple(dealt))
                )
            )
        else:
            self._reveal_panels_and_place(t)
        return t.events

    def _reveal_panels_and_place(self, t: Table) -> None:
        for seat in range(t.state.seats):
            for _ in range(PANEL):
                p = t.player(seat)
                pile = p.deck_top or p.deck_bottom
                t.emit(PanelFilled(seat=seat, card=t.rng.choice(sorted(pile))))
        n, first = t.state.seats, t.state.first_seat
        # "Starting with the player to the right of the first player and continuing
        # counterclockwise": the first player places last.
        order = tuple((first - 1 - i) % n for i in range(n))
        t.emit(ChoicesOpened(pending=PlaceNext(order=order)))

    def evolve(self, state: State | None, event: Event) -> State:
        return evolve(self.content, state, event)

    # -- whose move ------------------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        if state.result is not None:
            return frozenset()
        match state.pending:
            case SetupChoices(leaders=leaders, footprints=footprints):
                return frozenset(leaders) | frozenset(s for s, _ in footprints)
            case PlaceNext(order=order):
                return frozenset(order[:1])
            case FootprintChoice(seat=seat):
                return frozenset({seat})
        return frozenset({state.turn.seat}) if state.turn is not None else frozenset()

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return []
        return legal.actions(Table(self.content, state, None), seat)

    def unavailable(self, state: State, seat: int) -> Sequence[Unavailable]:
        """Every answer to a Footprints question is always possible: none is refused."""
        return []

    # -- decide ----------------------------------------------------------------------------

    def decide(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        if state.result is not None:
            raise illegal("game_over", "the game has ended")
        if seat not in self.to_act(state):
            raise illegal("not_your_turn", f"seat {seat} is not to act now")
        t = Table(self.content, state, rng)
        check_named(action, questions.asked(t, seat))  # "stale_question"
        pending = state.pending
        match pending, action:
            case SetupChoices(), ChooseLeader(leader=leader):
                if seat not in pending.leaders or leader not in questions.allowed_leaders(t, seat):
                    raise illegal("not_your_leader", "choose one of your clan's leaders")
                t.emit(LeaderChosen(seat=seat, leader=leader))
                self._after_setup_choice(t)
            case SetupChoices(), KeepStartingFootprint(card=card):
                cards = dict(pending.footprints).get(seat, ())
                if card not in cards:
                    raise illegal("not_dealt", "keep one of the three cards dealt to you")
                t.emit(FootprintKept(seat=seat, card=card))
                t.emit(FootprintsReturned(seat=seat, cards=tuple(c for c in cards if c != card)))
                self._after_setup_choice(t)
            case PlaceNext(order=order), PlaceFigure(row=row):
                self._place(t, seat, row, order, list(action.any_skill))
            case FootprintChoice(cards=cards), DecideFootprint(keep=keep, card=named):
                card = named or cards[0]
                if card not in cards:
                    raise illegal("not_drawn", f"{card} is not a footprint card waiting for you")
                event = FootprintKept if keep else FootprintDiscarded
                t.emit(event(seat=seat, card=card))
                t.owed_footprints, t.owed_fire = pending.footprints, pending.fire
                t.settle(seat)  # the cards the move earned after this one
                turn.flow(t)
            case None, CompleteFootprint(card=card):
                turn.complete_footprint(t, seat, card)
            case None, _:
                self._step(t, seat, action)
                turn.flow(t)
            case _:
                raise illegal("answer_first", f"the game waits for a {type(pending).__name__}")
        return t.events

    def _after_setup_choice(self, t: Table) -> None:
        pending = t.state.pending
        if isinstance(pending, SetupChoices) and not pending.leaders and not pending.footprints:
            self._reveal_panels_and_place(t)

    def _place(
        self, t: Table, seat: int, row: int, order: tuple[int, ...], any_skill: list[str]
    ) -> None:
        if not 0 <= row < len(t.state.houses):
            raise illegal("no_house", f"house tiles are on rows 0 to {len(t.state.houses) - 1}")
        if any(p.position == (row, -1) for p in t.state.players):
            raise illegal("house_taken", "another figure is on that house tile")
        t.emit(FigurePlaced(seat=seat, at=(row, -1)))
        house, side = t.state.houses[row]
        t.collect(seat, self.content.house_tiles[house].sides[side], any_skill)  # type: ignore[arg-type]
        rest = order[1:]
        if rest:
            t.emit(ChoicesOpened(pending=PlaceNext(order=rest)))
        else:
            t.emit(ChoicesOpened(pending=None))
            t.emit(TurnBegan(seat=t.state.first_seat))
        t.settle(seat)

    def _step(self, t: Table, seat: int, action: Action) -> None:
        current = t.state.turn
        assert current is not None
        match current.phase, action:
            case "play", Play():
                turn.play(t, seat, action)
            case "act", Top() | Bottom() | Lead():
                turn.act(t, seat, action)
            case "build", BuildEngraving() | BuildCavePainting() | Skip():
                turn.build(t, seat, action)
            case "power", UsePower() | Skip():
                turn.power(t, seat, action)
            case "discard", DiscardFire():
                turn.discard(t, seat, action)
            case _:
                raise illegal(
                    "not_now", f"{type(action).__name__} is not for step '{current.phase}'"
                )

    # -- what each seat sees (views.py) -----------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        return views.view(self.content, state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return views.redact(event, seat)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        detail: dict[str, Any] = {"parts": list(r.parts)}
        if r.solo is not None:
            detail["solo"] = {"points": r.solo[0], "won": r.solo[1], "achievement": r.solo[2]}
        return Outcome(
            scores=list(r.scores),
            ranks=list(r.ranks),
            winners=list(r.winners),
            tie_break=r.tie_break,
            detail=detail,
        )

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        """A state consistent with `seat`'s view: other hands of fire cards dealt again from
        what `seat` cannot see, every clan deck split again, secret leaders drawn again, and
        the footprint cards dealt to the others in the advanced setup dealt again."""
        t = Table(self.content, state, rng)
        others = [s for s in range(state.seats) if s != seat]
        # sorted first: the guess depends on which cards are hidden, not on where they lie
        pool = sorted([*state.fire_deck, *(c for s in others for c in state.players[s].fire_hand)])
        rng.shuffle(pool)
        players = list(state.players)
        hidden = state.options.advanced and not state.options.two_leaders
        for s, p in enumerate(players):
            deck = [*p.deck_top, *p.deck_bottom]
            leader = p.leader
            if s != seat and hidden and leader in deck:
                leader = rng.choice(questions.allowed_leaders(t, s))
                deck = [leader if c == p.leader else c for c in deck]
            leaders = [c for c in deck if "-leader-" in c]
            followers = sorted(c for c in deck if "-leader-" not in c)
            rng.shuffle(followers)
            room = max(0, len(p.deck_top) - len(leaders))
            top = tuple(sorted([*followers[:room], *leaders]))
            hand = p.fire_hand
            if s != seat:
                hand, pool = tuple(pool[: len(hand)]), pool[len(hand) :]
            players[s] = replace(
                p,
                deck_top=top,
                deck_bottom=tuple(sorted(followers[room:])),
                leader=leader,
                fire_hand=hand,
            )
        state = replace(state, players=tuple(players), fire_deck=tuple(sorted(pool)))
        if isinstance(state.pending, SetupChoices):  # the others' dealt cards, dealt again
            dealt = state.pending.footprints
            cards = sorted(
                [*state.footprint_deck, *(c for s, cs in dealt if s != seat for c in cs)]
            )
            rng.shuffle(cards)
            again = []
            for s, cs in dealt:
                if s != seat:
                    cs, cards = tuple(cards[: len(cs)]), cards[len(cs) :]
                again.append((s, cs))
            state = replace(
                state,
                pending=replace(state.pending, footprints=tuple(again)),
                footprint_deck=tuple(sorted(cards)),
            )
        return state

    # -- for the generic checks and the catalog ----------------------------------------------------

    def inventory(self, state: State) -> Mapping[str, Sequence[str]]:
        places: dict[str, Sequence[str]] = {
            "fire_deck": state.fire_deck,
            "fire_discard": state.fire_discard,
            "footprint_deck": state.footprint_deck,
            "footprint_discard": state.footprint_discard,
        }
        turn_fire = state.turn.fire if state.turn else None
        if turn_fire is not None and turn_fire not in state.fire_discard:
            places["fire_in_play"] = (turn_fire,)
        match state.pending:
            case FootprintChoice(cards=cards):
                places["footprints_drawn"] = cards
            case SetupChoices(footprints=dealt):
                places["footprints_dealt"] = [c for _, cards in dealt for c in cards]
        for s, p in enumerate(state.players):
            places[f"player.{s}.fire_hand"] = p.fire_hand
            places[f"player.{s}.footprints"] = p.footprints
            places[f"player.{s}.completed"] = p.completed
        return places

    def holdings(self, state: State, seat: int) -> frozenset[str]:
        """What `seat` holds in secret: its fire cards, and the footprint cards dealt to it
        in the advanced setup while it chooses."""
        dealt: tuple[str, ...] = ()
        if isinstance(state.pending, SetupChoices):
            dealt = dict(state.pending.footprints).get(seat, ())
        return frozenset(state.players[seat].fire_hand) | frozenset(dealt)

    def all_cards(self) -> frozenset[str]:
        return frozenset(self.content.fire_cards) | frozenset(self.content.footprint_cards)

    def describe(self) -> dict[str, Any]:
        content: dict[str, Any] = msgspec.to_builtins(self.content)
        content["terrains"] = [
            {"terrain": t, "resource": r, "colour": TERRAIN_FILL[t]} for t, r in RESOURCE_OF.items()
        ]
        return content

    def board_map(self, state: State) -> views.AssembledMap:
        """The assembled map: public, and fixed once the game is set up, so served apart from
        the view a client fetches after every move (GET /v1/games/{id}/map, fetched once:
        162 spaces with their neighbours make ~25 KB, against ~3 KB for the whole view)."""
        board = board_of(self.content, state)
        return assembled_map(self.content, board, dict(state.caves), state.options.snake)

    def board_svg(self, state: State, seat: int | None, pieces: bool = True) -> str:
        """The map as one seat sees it (all of it is public): figures, creations, tokens.
        Without `pieces`, the map as set up, fixed for the whole game: no figure, engraving,
        painting or arrival on the cairn track (a client draws those from the view)."""
        colours = ("#e53935", "#1e88e5", "#fdd835", "#8e24aa", "#fb8c00", "#00897b")
        board = board_of(self.content, state)
        shown = state.players if pieces else ()
        figures = {p.position: colours[s] for s, p in enumerate(shown) if p.position}
        engravings = {at: colours[s] for at, s, _ in state.engraved} if pieces else {}
        painted = {p.cave_site: colours[s] for s, p in enumerate(shown) if p.cave_site}
        caves = {
            site: CaveMark(token_mark(self.content.cave_tokens[token]), painted.get(site))
            for site, token in state.caves
        }
        houses = {
            pos: self.content.house_tiles[house].sides[side]
            for pos, (house, side) in board.houses.items()
        }
        # the map as set up is the same for every seat (a browser keeps one copy of it)
        title = f"Footprints, seat {seat}" if seat is not None and pieces else "Footprints"
        return render(
            board,
            figures=figures,
            engravings=engravings,
            caves=caves,
            houses=houses,
            cairn_track=[colours[s] for s in state.cairn_track] if pieces else [],
            track_points=self.content.cairn_tile.track,
            title=title,
        )
