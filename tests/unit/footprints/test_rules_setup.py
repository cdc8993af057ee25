"""The Footprints rulebook, rule by rule: general setup, personal setup (basic, advanced,
"2 Leaders", "Snake"), starting positions and the house bonuses; hidden information
(redaction, views, sampling).

The turn and its actions are in test_rules_turn.py; building, engraving powers, the end
and scoring in test_rules_end.py; the leaders, footprint cards, the decks and every
illegal-action code in test_rules_leaders.py; the generic checks in test_rules_generic.py.
The map from each rule to its code and tests is games/footprints/RULES.md; the shared
helpers are in rules_helpers.py.
"""

from __future__ import annotations

from collections import deque
from random import Random

import pytest
from msgspec.structs import replace

from games.api import IllegalAction
from games.footprints.content import TERRAINS
from games.footprints.events import (
    ChoicesOpened,
    DeckBuilt,
    FigurePlaced,
    FireDrawn,
    FootprintKept,
    FootprintsReturned,
    LeaderChosen,
    PanelFilled,
    ResourcesChanged,
    SkillAdvanced,
    StartingFootprints,
    TurnBegan,
)
from games.footprints.model import (
    ChooseLeader,
    KeepStartingFootprint,
    Options,
    PlaceFigure,
    PlaceNext,
    Play,
    SetupChoices,
)
from games.footprints.state import State
from games.footprints.text import narrate
from games.testing import check_conservation, check_sample, random_playout
from tests.unit.footprints.rules_helpers import (
    CAIRN_FS,
    CAIRN_MI,
    HOUSES,
    REAL,
    C,
    board,
    follower,
    leader,
    of,
    on_panel,
    owned,
    play,
    player,
    refusal,
    refused,
    set_up,
    table,
)

ADVANCED = Options(advanced=True)
SNAKE = Options(snake=True)
TWO = Options(two_leaders=True)


def followers(clan: str) -> set[str]:
    return {follower(clan, n) for n in range(1, 14)}


# -- general setup -----------------------------------------------------------------------------


def test_the_map_is_six_random_tiles_left_of_the_cairn_tile_each_turned_at_random() -> None:
    orders, turned = set(), set()
    for seed in range(30):
        state = set_up(2, seed)[1]
        assert sorted(state.tiles) == sorted(C.map_tiles) and len(state.turned) == 6
        orders.add(state.tiles)
        turned |= {(i, t) for i, t in enumerate(state.turned)}
        places = board(state).places
        assert len(places) == 6 * 24 + 18 and board(state).columns == 27
        assert sorted(p for p, place in places.items() if place.cairn) == [CAIRN_MI, CAIRN_FS]
        assert {places[p].tile for p in places if p[1] >= 24} == {6}  # the cairn tile, right
    assert len(orders) > 20  # 720 orders
    assert turned == {(i, t) for i in range(6) for t in (False, True)}


def test_one_random_house_tile_per_row_on_a_random_side() -> None:
    sides, rows = set(), set()
    for seed in range(30):
        state = set_up(2, seed)[1]
        assert len({house for house, _ in state.houses}) == 6
        assert {house for house, _ in state.houses} <= set(C.house_tiles)
        sides |= {side for _, side in state.houses}
        rows.add(state.houses[0][0])
        assert sorted(board(state).houses) == [(r, -1) for r in range(6)]
    assert sides == {0, 1} and len(rows) == 6


@pytest.mark.parametrize("seats", range(1, 7))
def test_cave_tokens_lie_by_the_four_tiles_nearest_the_cairn_three_with_1_to_3_players(
    seats: int,
) -> None:
    nearest = 3 if seats <= 3 else 4
    counts = set()
    for seed in range(12):
        state = set_up(seats, seed)[1]
        caves = board(state).caves.values()
        sites = sorted(site for site, _ in state.caves)
        assert sites == sorted(cave.id for cave in caves if cave.tile >= 6 - nearest)
        tokens = [token for _, token in state.caves]
        assert len(set(tokens)) == len(tokens) and set(tokens) <= set(C.cave_tokens)
        counts.add(len(sites))
    low = 4 if seats <= 3 else 6  # "6 to 8 cave tokens in play" ("4 to 6" with 1-3 players)
    assert counts <= set(range(low, low + 3)) and len(counts) > 1


def test_every_player_has_a_random_clan_and_the_first_player_is_random() -> None:
    firsts, clans = set(), set()
    for seed in range(40):
        state = set_up(3, seed)[1]
        mine = [p.clan for p in state.players]
        assert len(set(mine)) == 3 and set(mine) <= set(C.clans)
        clans |= set(mine)
        firsts.add(state.first_seat)
    assert firsts == {0, 1, 2} and clans == set(C.clans)


def test_the_game_seats_one_to_six() -> None:
    for seats in (0, 7):
        with pytest.raises(IllegalAction) as err:
            REAL.setup(Options(), seats, Random(0))
        assert err.value.code == "bad_seat_count"
        assert err.value.message == "Footprints seats 1 to 6 players"


# -- personal setup --------------------------------------------------------------------------


def test_the_clan_deck_is_seven_followers_and_leader_a_over_six_with_four_revealed() -> None:
    revealed = 0
    for seed in range(20):
        events, state = set_up(4, seed)
        for deck in of(DeckBuilt, events):
            clan = state.players[deck.seat].clan
            assert deck.top is not None and len(deck.top) == deck.top_count == 8
            assert leader(clan) in deck.top and len(deck.bottom) == 6
            assert set(deck.top) | set(deck.bottom) == followers(clan) | {leader(clan)}
            p = state.players[deck.seat]
            filled = [e.card for e in of(PanelFilled, events) if e.seat == deck.seat]
            assert p.panel == tuple(filled) and len(filled) == 4 and set(filled) <= set(deck.top)
            assert len(p.deck_top) == 4 and p.deck_bottom == deck.bottom
            assert leader(clan, "b") not in deck.top + deck.bottom  # B back in the box
            revealed += leader(clan) in p.panel
    assert 0 < revealed < 80  # shuffled in with the seven: sometimes revealed at once


def test_every_player_starts_with_one_random_footprint_card_and_markers_on_2() -> None:
    events, state = set_up(5, 3)
    kept = of(FootprintKept, events)
    assert [e.seat for e in kept] == list(range(5)) and len({e.card for e in kept}) == 5
    # each dealt to its seat (seen by that seat alone), the same card kept face up
    dealt = [StartingFootprints(seat=e.seat, cards=(e.card,)) for e in kept]
    assert of(StartingFootprints, events) == dealt
    for seat, p in enumerate(state.players):
        assert p.footprints == (kept[seat].card,) and p.position is None
        assert p.skills == (2, 2, 2, 2) and p.resources == (0, 0, 0, 0) and p.fire_hand == ()
    assert len(state.footprint_deck) == 28 - 5 and len(state.fire_deck) == 20


def test_advanced_setup_a_leader_chosen_in_secret_and_three_footprint_cards_keep_one() -> None:
    events, state = set_up(3, 1, ADVANCED)
    pending = state.pending
    assert isinstance(pending, SetupChoices) and pending.leaders == (0, 1, 2)
    assert REAL.to_act(state) == {0, 1, 2}  # everyone chooses at once
    for deck in of(DeckBuilt, events):
        clan = state.players[deck.seat].clan
        assert deck.top is not None and set(deck.top) <= followers(clan) and len(deck.top) == 7
    dealt = dict(pending.footprints)
    assert all(len(cards) == 3 for cards in dealt.values())
    assert len(state.footprint_deck) == 28 - 9 and not of(PanelFilled, events)
    clan = state.players[0].clan
    choice, state = play(state, 0, ChooseLeader(leader=leader(clan, "b")))
    assert choice == [LeaderChosen(seat=0, leader=leader(clan, "b"))]
    assert REAL.redact(choice[0], 1) == LeaderChosen(seat=0, leader=None)
    assert REAL.redact(choice[0], None) == LeaderChosen(seat=0, leader=None)
    assert REAL.redact(choice[0], 0) == choice[0]
    assert leader(clan, "b") in state.players[0].deck_top
    assert leader(clan) not in state.players[0].deck_top  # leader A goes back to the box
    assert refusal(state, 0, ChooseLeader(leader=leader(clan))) == (
        "not_your_leader",
        "choose one of your clan's leaders",
    )
    keep = dealt[0][1]
    kept, state = play(state, 0, KeepStartingFootprint(card=keep))
    back = tuple(c for c in dealt[0] if c != keep)
    assert kept == [FootprintKept(seat=0, card=keep), FootprintsReturned(seat=0, cards=back)]
    assert state.players[0].footprints == (keep,) and set(back) <= set(state.footprint_deck)
    assert REAL.to_act(state) == {1, 2}
    assert refused(state, 0, KeepStartingFootprint(card=back[0])) == "not_your_turn"
    assert refusal(state, 1, KeepStartingFootprint(card=dealt[0][0])) == (
        "not_dealt",
        "keep one of the three cards dealt to you",
    )
    assert refused(state, 1, ChooseLeader(leader=leader(clan))) == "not_your_leader"
    # a card kept once: the seat still chooses its leader, but keeps no second card
    once = play(state, 1, KeepStartingFootprint(card=dealt[1][0]))[1]
    assert 1 in REAL.to_act(once)
    assert refused(once, 1, KeepStartingFootprint(card=dealt[1][1])) == "not_dealt"
    assert refusal(state, 1, Play(card=state.players[1].deck_top[0])) == (
        "answer_first",
        "the game waits for a SetupChoices",
    )
    for seat in (1, 2):
        mine = state.players[seat].clan
        state = play(state, seat, ChooseLeader(leader=leader(mine)))[1]
        last, state = play(state, seat, KeepStartingFootprint(card=dealt[seat][0]))
    assert len(of(PanelFilled, last)) == 12 and isinstance(state.pending, PlaceNext)
    assert len(state.footprint_deck) == 28 - 3


def test_the_dealt_footprint_cards_are_seen_by_their_owner_alone_and_only_the_kept_one_shows() -> (
    None
):
    # only the chosen card is placed face up; the two returned go back unseen
    events, state = set_up(3, 1, ADVANCED)
    dealt = dict(state.pending.footprints)  # type: ignore[union-attr]
    for event in of(StartingFootprints, events):
        assert REAL.redact(event, event.seat) == event and event.cards == dealt[event.seat]
        for other in (None, *(s for s in range(3) if s != event.seat)):
            assert REAL.redact(event, other) == StartingFootprints(seat=event.seat, cards=None)
    # the choices opened: who chooses, as the view has it; each seat's own cards, nobody else's
    [opened] = [e for e in of(ChoicesOpened, events) if isinstance(e.pending, SetupChoices)]
    for seat in (None, 0, 1, 2):
        copy = REAL.redact(opened, seat)
        assert isinstance(copy, ChoicesOpened) and isinstance(copy.pending, SetupChoices)
        mine = {s: dealt[s] if s == seat else () for s in range(3)}
        assert dict(copy.pending.footprints) == mine
        assert copy.pending.leaders == opened.pending.leaders  # type: ignore[union-attr]
        text = narrate(copy, ["Ada", "Bob", "Cy"])
        assert not any(card in text for s, cards in dealt.items() if s != seat for card in cards)
    for seat in range(3):
        view = REAL.view(state, seat)
        shown = {s: tuple(cards) for s, cards in view.public["pending"]["footprints"]}
        assert shown == {s: () for s in range(3)}  # who keeps a card; which, in questions
        [mine] = [q for q in view.private["questions"] if q["kind"] == "starting_footprint"]
        assert tuple(mine["cards"]) == dealt[seat]
        for other in range(3):
            if other != seat:
                assert not set(dealt[other]) & set(str(view).split("'"))
    assert REAL.holdings(state, 0) == frozenset(dealt[0])
    keep = dealt[0][2]
    kept, state = play(state, 0, KeepStartingFootprint(card=keep))
    back = kept[-1]
    assert isinstance(back, FootprintsReturned) and REAL.redact(back, 0) == back
    assert REAL.redact(back, 1) == REAL.redact(back, None) == FootprintsReturned(seat=0, cards=None)
    assert REAL.view(state, 1).public["players"][0]["footprints"] == [keep]
    assert REAL.holdings(state, 0) == frozenset()
    # a sampled state deals the others' cards again and keeps one's own
    for seed in range(5):
        guess = REAL.sample(state, 1, Random(seed))
        mine = dict(guess.pending.footprints)  # type: ignore[union-attr]
        assert mine[1] == dealt[1] and len(mine[2]) == 3
        check_conservation(REAL, guess, seed)


def test_two_leaders_nine_followers_and_both_leaders_over_four() -> None:
    for options in (TWO, Options(two_leaders=True, advanced=True)):
        events, state = set_up(3, 2, options)
        for deck in of(DeckBuilt, events):
            clan = state.players[deck.seat].clan
            assert deck.top is not None and len(deck.top) == 11 and len(deck.bottom) == 4
            assert {leader(clan), leader(clan, "b")} <= set(deck.top)
        if options.advanced:  # no leader to choose; still three footprint cards, keep one
            assert isinstance(state.pending, SetupChoices) and state.pending.leaders == ()
            assert all(len(cards) == 3 for _, cards in state.pending.footprints)


def test_the_snake_takes_out_the_recluse_and_the_scout() -> None:
    # Scout is leader B of clan-1, Recluse leader B of clan-2 (CONTENT.md)
    barred = {leader("clan-1", "b"), leader("clan-2", "b")}
    for options in (SNAKE, Options(snake=True, two_leaders=True)):
        for seed in range(6):
            events, state = set_up(6, seed, options)
            for deck in of(DeckBuilt, events):
                assert deck.top is not None and not barred & set(deck.top + deck.bottom)
                clan = state.players[deck.seat].clan
                size = 11 - (clan in ("clan-1", "clan-2")) if options.two_leaders else 8
                assert len(deck.top) == size
    state = set_up(6, 0, Options(snake=True, advanced=True))[1]
    for seat, p in enumerate(state.players):
        offered = {a.leader for a in REAL.legal_actions(state, seat) if hasattr(a, "leader")}
        assert offered == {leader(p.clan), leader(p.clan, "b")} - barred
        if p.clan in ("clan-1", "clan-2"):
            assert refused(state, seat, ChooseLeader(leader=leader(p.clan, "b"))) == (
                "not_your_leader"
            )


def test_the_snake_map_reaches_both_cairns_at_least_30_spaces_from_any_house() -> None:
    for seed in range(4):
        state = set_up(4, seed, SNAKE)[1]
        b = board(state)
        starts = [q for h in b.houses for q in b.adjacent(h)]
        far = dict.fromkeys(starts, 1)
        queue = deque(starts)
        while queue:
            here = queue.popleft()
            for q in b.adjacent(here):
                if q not in far:
                    far[q] = far[here] + 1
                    queue.append(q)
        cairns = [p for p, place in b.places.items() if place.cairn]
        assert len(cairns) == 2 and all(far[c] >= 30 for c in cairns)  # all reachable
        for site, _ in state.caves:  # the caves in play are open at the edge
            assert b.caves[site].spot not in b.places


# -- starting positions ----------------------------------------------------------------------


def placing(seats: int, first: int, roman: int | None = None) -> State:
    """A set-up game whose first player is `first`, on the fixed house tiles; seat `roman`
    plays the Horse Clan (clan-1, the rulebook's examples)."""
    for seed in range(100):
        state = set_up(seats, seed)[1]
        if state.first_seat == first:
            state = replace(state, houses=HOUSES)
            if roman is not None:
                players = list(state.players)
                players[roman] = player("clan-1", position=None, panel=players[roman].panel)
                state = replace(state, players=tuple(players))
            return state
    raise AssertionError("no seed")


@pytest.mark.parametrize(("seats", "first"), [(2, 1), (4, 0), (4, 2), (6, 5)])
def test_figures_are_placed_from_the_right_of_the_first_player_counterclockwise(
    seats: int, first: int
) -> None:
    state = placing(seats, first)
    order = tuple((first - 1 - i) % seats for i in range(seats))
    assert state.pending == PlaceNext(order=order) and order[-1] == first
    for n, seat in enumerate(order):
        assert REAL.to_act(state) == {seat}
        other = order[(n + 1) % seats]
        if other != seat:
            assert refused(state, other, PlaceFigure(row=n)) == "not_your_turn"
        events, state = play(state, seat, PlaceFigure(row=n))
        assert events[0] == FigurePlaced(seat=seat, at=(n, -1))
    # the first player's turn begins; the last placer's house cards are drawn last
    last = [type(e) for e in events if not isinstance(e, FireDrawn)][-2:]
    assert last == [ChoicesOpened, TurnBegan] and TurnBegan(seat=first) in events
    assert state.turn is not None and state.turn.seat == first and state.turn.phase == "play"


def test_a_figure_goes_on_an_unoccupied_house_and_takes_its_bonuses_at_once() -> None:
    state = placing(3, 0, roman=2)
    # house-1 side A (row 0): "He advances his grey and light green skill markers one space
    # to the right", collecting the Horse board's level-3 bonuses: a stone, a fire card
    events, state = play(state, 2, PlaceFigure(row=0))
    drawn = of(FireDrawn, events)
    assert events == [
        FigurePlaced(seat=2, at=(0, -1)),
        SkillAdvanced(seat=2, terrain="mountain", level=3),
        ResourcesChanged(seat=2, resource="stone", change=1),
        SkillAdvanced(seat=2, terrain="swamp", level=3),
        ChoicesOpened(pending=PlaceNext(order=(1, 0))),
        *drawn,  # the card comes last, once the placing is done
    ]
    assert state.players[2].fire_hand == (drawn[0].card,)
    assert REAL.redact(drawn[0], 1) == replace(drawn[0], card=None)  # drawn in secret
    assert refusal(state, 1, PlaceFigure(row=0)) == (
        "house_taken",
        "another figure is on that house tile",
    )
    assert refusal(state, 1, PlaceFigure(row=6)) == ("no_house", "house tiles are on rows 0 to 5")
    # house-3 side A (row 2): any skill and a stone; the any-skill advance is chosen
    events, state = play(state, 1, PlaceFigure(row=2, any_skill=("forest",)))
    assert SkillAdvanced(seat=1, terrain="forest", level=3) in events
    assert ResourcesChanged(seat=1, resource="stone", change=1) in events
    # house-5 side A (row 4): a fire card and a stone
    events, state = play(state, 0, PlaceFigure(row=4))
    assert len(of(FireDrawn, events)) >= 1 and owned(state, 0)["stone"] >= 1
    assert [p.position for p in state.players] == [(4, -1), (2, -1), (0, -1)]


def test_an_any_skill_house_bonus_advances_the_lowest_skill_when_none_is_named() -> None:
    state = placing(2, 0)
    events, state = play(state, 1, PlaceFigure(row=2))  # house-3: any skill, stone
    assert of(SkillAdvanced, events)[0] == SkillAdvanced(seat=1, terrain=TERRAINS[0], level=3)


# -- hidden information --------------------------------------------------------------------


def test_fire_cards_drawn_and_leaders_chosen_are_hidden_from_the_others() -> None:
    playout = random_playout(REAL, 3, 3, Options(advanced=True), keep_states=False)
    secret = 0
    for event in playout.events:
        if isinstance(event, FireDrawn | LeaderChosen | StartingFootprints | FootprintsReturned):
            secret += 1
            field = {FireDrawn: "card", LeaderChosen: "leader"}.get(type(event), "cards")
            assert REAL.redact(event, event.seat) == event
            for other in (None, *(s for s in range(3) if s != event.seat)):
                assert getattr(REAL.redact(event, other), field) is None
        elif isinstance(event, ChoicesOpened) and isinstance(event.pending, SetupChoices):
            for s in (None, 0, 1, 2):  # the cards dealt: their owner's copy alone names them
                shown = REAL.redact(event, s).pending.footprints  # type: ignore[union-attr]
                assert all(cards == () for owner, cards in shown if owner != s)
        elif isinstance(event, DeckBuilt):
            # which followers lie above the others is unknown to everyone, the owner too
            for s in (None, 0, 1, 2):
                hidden = REAL.redact(event, s)
                assert hidden.top is None and hidden.bottom is None  # type: ignore[union-attr]
                assert hidden.top_count == event.top_count  # type: ignore[union-attr]
        else:
            assert all(REAL.redact(event, s) == event for s in (None, 0, 1, 2))
    assert secret > 3


def test_views_show_a_fire_hand_only_to_its_owner() -> None:
    state = table(players=[{"fire_hand": ("fire-07", "fire-08")}])
    mine, theirs, nobody = REAL.view(state, 0), REAL.view(state, 1), REAL.view(state, None)
    assert mine.private["fire_hand"] == ["fire-07", "fire-08"]
    assert theirs.private["fire_hand"] == [] and nobody.private is None
    assert mine.public == theirs.public == nobody.public
    assert mine.public["players"][0]["fire_cards"] == 2
    assert "fire-07" not in str(theirs.public)


def test_the_advanced_leader_is_hidden_until_it_is_on_the_panel() -> None:
    state = set_up(2, 5, Options(advanced=True))[1]
    for seat in (0, 1):
        clan = state.players[seat].clan
        state = play(state, seat, ChooseLeader(leader=leader(clan, "b")))[1]
        dealt = dict(state.pending.footprints)[seat]  # type: ignore[union-attr]
        state = play(state, seat, KeepStartingFootprint(card=dealt[0]))[1]
    for seat, p in enumerate(state.players):
        public = REAL.view(state, 1 - seat).public["players"][seat]
        assert REAL.view(state, seat).private["leaders"] == [p.leader]
        if p.leader in p.panel:
            assert public["leaders"] == [p.leader]
        else:
            assert public["leaders"] == [] and p.leader not in str(REAL.view(state, 1 - seat))


def test_sample_keeps_the_own_hand_and_every_hand_size() -> None:
    state = table(3, players=[{"fire_hand": ("fire-01",)}, {"fire_hand": ("fire-02", "fire-03")}])
    for seed in range(5):
        guess = REAL.sample(state, 0, Random(seed))
        assert guess.players[0].fire_hand == ("fire-01",)
        assert [len(p.fire_hand) for p in guess.players] == [1, 2, 0]
        check_conservation(REAL, guess, seed)


def chosen(options: Options, pick: str = "b", seed: int = 5) -> State:
    """Two seats set up with `options`, each having chosen leader `pick` (where the setup
    asks) and kept its first dealt footprint card."""
    state = set_up(2, seed, options)[1]
    for seat in (0, 1):
        if isinstance(state.pending, SetupChoices) and seat in state.pending.leaders:
            clan = state.players[seat].clan
            state = play(state, seat, ChooseLeader(leader=leader(clan, pick)))[1]
        if isinstance(state.pending, SetupChoices) and seat in dict(state.pending.footprints):
            dealt = dict(state.pending.footprints)[seat]
            state = play(state, seat, KeepStartingFootprint(card=dealt[0]))[1]
    return state


def test_sample_guesses_a_hidden_leader_again_and_keeps_everything_else_of_the_deck() -> None:
    """Advanced: the others' chosen leader, in their deck, is a secret: a guess draws it again
    from the clan's allowed leaders (either may come), in the same place of the deck, and
    the seat's own stays; the followers and the sizes of every deck's parts are kept."""
    state = chosen(ADVANCED)
    mine, theirs = state.players
    both = {leader(theirs.clan, "a"), leader(theirs.clan, "b")}
    assert theirs.leader == leader(theirs.clan, "b") and theirs.leader in theirs.deck_top
    guessed = set()
    for seed in range(16):
        guess = check_sample(REAL, state, 0, Random(seed))
        me, other = guess.players
        assert me.leader == mine.leader and me.panel == mine.panel
        assert other.leader in both and other.leader in other.deck_top
        guessed.add(other.leader)
        for real, got in ((mine, me), (theirs, other)):
            assert len(got.deck_top) == len(real.deck_top)
            assert len(got.deck_bottom) == len(real.deck_bottom)
            deck = {c for c in real.deck_top + real.deck_bottom if "-leader-" not in c}
            assert deck == {c for c in got.deck_top + got.deck_bottom if "-leader-" not in c}
            assert len([c for c in got.deck_top if "-leader-" in c]) == 1
    assert guessed == both


@pytest.mark.parametrize(
    "options", [Options(), Options(advanced=True, two_leaders=True)], ids=["basic", "both"]
)
def test_sample_keeps_a_leader_everyone_knows(options: Options) -> None:
    """Leader A of the basic setup and both leaders of the variant are public: a guess keeps
    every seat's leaders where they are in the deck's top part."""
    state = chosen(options)
    for seed in range(8):
        guess = check_sample(REAL, state, 0, Random(seed))
        for real, got in zip(state.players, guess.players, strict=True):
            assert got.leader == real.leader
            leaders = sorted(c for c in real.deck_top if "-leader-" in c)
            assert leaders and sorted(c for c in got.deck_top if "-leader-" in c) == leaders


def test_sample_keeps_a_deck_top_of_the_leader_alone() -> None:
    """The other seat's followers all drawn from the top part but its leader: the guess
    deals no follower above it (the top part's size is public)."""
    f = [follower("clan-2", n) for n in range(1, 14)]
    theirs = {"deck_top": (leader("clan-2"),), "deck_bottom": tuple(f[4:])}
    state = table(players=[{}, theirs])
    for seed in range(8):
        other = check_sample(REAL, state, 0, Random(seed)).players[1]
        assert other.deck_top == (leader("clan-2"),)
        assert sorted(other.deck_bottom) == sorted(f[4:])


def test_sample_keeps_a_hidden_leader_once_it_is_on_the_panel() -> None:
    """On the panel, the advanced leader is shown to all: the guess keeps it."""
    state = chosen(ADVANCED, pick="a")
    theirs = state.players[1]
    state = on_panel(state, 1, theirs.leader or "")
    for seed in range(8):
        other = check_sample(REAL, state, 0, Random(seed)).players[1]
        assert other.leader == theirs.leader and other.panel == state.players[1].panel


def test_a_hidden_leader_shows_in_the_view_once_on_the_panel() -> None:
    state = chosen(ADVANCED, pick="a")
    theirs = state.players[1]
    assert theirs.leader in theirs.deck_top
    assert REAL.view(state, 0).public["players"][1]["leaders"] == []  # in the deck: a secret
    own = REAL.view(state, 1).private
    assert own is not None and own["leaders"] == [theirs.leader]  # its own seat knows
    shown = on_panel(state, 1, theirs.leader or "")
    assert REAL.view(shown, 0).public["players"][1]["leaders"] == [theirs.leader]


def test_sample_deals_the_others_setup_footprints_again_and_keeps_the_seats_own() -> None:
    """While the advanced setup asks, the footprint cards dealt to the others are unknown to
    the seat: dealt again from them and the footprint deck, as many each; its own stay."""
    state = set_up(3, 2, ADVANCED)[1]
    assert isinstance(state.pending, SetupChoices)
    dealt = dict(state.pending.footprints)
    unseen = sorted([*state.footprint_deck, *dealt[1], *dealt[2]])
    seen = set()
    for seed in range(12):
        guess = check_sample(REAL, state, 0, Random(seed))
        assert isinstance(guess.pending, SetupChoices)
        again = dict(guess.pending.footprints)
        assert again[0] == dealt[0]
        assert [len(again[s]) for s in (1, 2)] == [len(dealt[s]) for s in (1, 2)]
        assert sorted([*guess.footprint_deck, *again[1], *again[2]]) == unseen
        assert list(guess.footprint_deck) == sorted(guess.footprint_deck)
        seen.add(again[1])
    assert len(seen) > 1


def test_the_leader_in_a_basic_deck_is_public_and_a_chosen_one_secret() -> None:
    from games.footprints.model import Options as Opts
    from tests.unit.footprints.rules_helpers import REAL as RULES
    from tests.unit.footprints.rules_helpers import set_up as setup_game

    _, basic = setup_game(2, 3, Opts())
    for seat, p in enumerate(basic.players):
        assert p.leader is not None and "-leader-" in p.leader
        shown = RULES.view(basic, 1 - seat).public["players"][seat]
        assert shown["leaders"] == [p.leader]  # leader A is no secret
    _, advanced = setup_game(2, 3, Opts(advanced=True))
    assert all(p.leader is None for p in advanced.players)  # not chosen yet


def test_with_two_leaders_the_view_names_both_leaders() -> None:
    state = set_up(3, 4, Options(two_leaders=True))[1]
    for seat, p in enumerate(state.players):
        both = [leader(p.clan, "a"), leader(p.clan, "b")]
        assert REAL.view(state, (seat + 1) % 3).public["players"][seat]["leaders"] == both
        assert REAL.view(state, seat).private["leaders"] == both
    # with the Snake too, the Horse and Mammoth clans have one leader each
    snake = set_up(6, 4, Options(two_leaders=True, snake=True))[1]
    shown = {
        p.clan: REAL.view(snake, None).public["players"][s]["leaders"]
        for s, p in enumerate(snake.players)
    }
    assert shown["clan-1"] == [leader("clan-1", "a")] and shown["clan-2"] == [leader("clan-2", "a")]
