"""Itchy Feet's greedy bot on the blind spots of issue 10: postcards, special items, trades.

Each position is a real engine state (set up by the engine, cards moved with
msgspec.structs.replace, card for card conserved) that the bot sees only through
services/bots/observe.py `observation`, as the worker hands it over.
"""

from __future__ import annotations

from random import Random
from typing import Any

from msgspec.structs import replace

from games.itchy_feet.content import load
from games.itchy_feet.model import (
    AcceptTrade,
    DeclineTrade,
    Draw,
    OfferTrade,
    Options,
    PlaySpecial,
    Recycle,
    State,
    TradeOffer,
)
from games.itchy_feet.questions import asked
from games.registry import get
from games.testing import check_conservation
from services.bots.observe import observation
from services.bots.policies.itchy_feet import greedy

RULES: Any = get("itchy-feet")
C = load()
# seat 0 travels home to Brazil, seat 1 to Japan; the centre is India (all public)
BRAZIL, JAPAN, INDIA = "brazil", "japan", "india"
assert C.countries[BRAZIL].items == ("sunscreen", "umbrella", "camera")
assert C.countries[JAPAN].items == ("phrasebook", "local-currency", "guidebook")
PLAIN = "hiking-boots"  # of no use to either seat's trip home


def card(kind: str, n: int = 0) -> str:
    return sorted(c.id for c in C.cards.values() if c.kind == kind)[n]


def position(
    options: Options,
    hands: list[list[str]],
    discard: tuple[str, ...] = (),
    current: int = 0,
    pile: tuple[str, ...] | None = None,
) -> State:
    """A 2-seat game set up by the engine, then dealt these hands and this discard (every
    other card in play back to the draw pile: none lost or doubled), homes Brazil and
    Japan, centre India; `pile`: the countries set aside (else all the others)."""
    state = None
    for event in RULES.setup(options, 2, Random(0)):
        state = RULES.evolve(state, event)
    assert isinstance(state, State)
    placed = [c for h in hands for c in h] + list(discard)
    pool = {*state.draw_pile, *state.discard, *(c for h in state.hands for c in h)}
    assert set(placed) <= pool and len(set(placed)) == len(placed)
    rest = tuple(sorted(set(C.countries) - {BRAZIL, JAPAN, INDIA}))
    state = replace(
        state,
        hands=tuple(tuple(h) for h in hands),
        discard=discard,
        draw_pile=tuple(sorted(pool - set(placed))),
        homes=(BRAZIL, JAPAN),
        centre=INDIA,
        country_pile=rest if pile is None else pile,
        current=current,
        actions_left=1,
    )
    check_conservation(RULES, state, 0)
    return state


def move(state: State, seat: int) -> Any:
    obs = observation(RULES, state, seat, 0, world=False)
    action = greedy(obs, Random(0))
    assert action in obs.legal
    return action


def offered(state: State, give: str, want: str) -> State:
    """Seat 1's offer to seat 0, through the engine: seat 0 is now asked."""
    for event in RULES.decide(state, 1, OfferTrade(to=0, give=(give,), want=(want,)), Random(0)):
        state = RULES.evolve(state, event)
    assert isinstance(state.pending, TradeOffer)
    return state


def answer(state: State, accept: bool) -> Any:
    (question,) = asked(C, state, 0)
    return AcceptTrade(question=question) if accept else DeclineTrade(question=question)


# -- postcards --------------------------------------------------------------------------------


def test_a_postcard_is_never_handed_over_in_a_trade() -> None:
    """Seat 1 asks for seat 0's postcard for a plain card: the old greedy handed it over (it
    guarded only its passport and the items of its trip)."""
    state = position(
        Options(postcards=True),
        [["passport-1", card("camera"), card("postcard")], ["passport-2", card(PLAIN)]],
        current=1,
    )
    state = offered(state, card(PLAIN), "postcard")
    assert move(state, 0) == answer(state, accept=False)


def test_a_postcard_is_never_offered_in_a_trade() -> None:
    """Every other card is the passport or an item of the trip: the old greedy offered its
    postcard for the missing item; the new one draws."""
    state = position(
        Options(postcards=True),
        [
            ["passport-1", card("sunscreen"), card("umbrella"), card("postcard")],
            ["passport-2", card(PLAIN)],
        ],
    )
    assert move(state, 0) == Draw()


def test_two_postcards_are_not_paid_for_a_recycle() -> None:
    """The missing camera lies in the discard and only the two postcards could pay for it:
    the old greedy paid them; with two held the postcard road is open to it and shut to
    everyone else (four of the five win), and it keeps them."""
    state = position(
        Options(postcards=True),
        [
            [
                "passport-1",
                card("sunscreen"),
                card("umbrella"),
                card("postcard", 0),
                card("postcard", 1),
            ],
            ["passport-2", card(PLAIN)],
        ],
        discard=(card("camera"),),
    )
    assert move(state, 0) == Draw()


def test_with_two_postcards_it_goes_for_the_third_in_the_discard() -> None:
    """Two postcards and none of its home's items, home not yet visited: the postcard road
    is the shorter by `steps`, so it recycles the postcard in the discard with its two plain
    cards; the old greedy never took a postcard."""
    state = position(
        Options(postcards=True),
        [
            [
                "passport-1",
                card("postcard", 0),
                card("postcard", 1),
                card(PLAIN, 0),
                card(PLAIN, 1),
            ],
            ["passport-2"],
        ],
        discard=(card("postcard", 2),),
    )
    assert move(state, 0) == Recycle(discard=(card(PLAIN, 0), card(PLAIN, 1)), take="postcard")


def test_a_lone_postcard_is_no_road_yet_it_chases_its_items() -> None:
    """With one postcard held the items are the quicker road in play: the missing umbrella
    is recycled, not the postcard beside it."""
    state = position(
        Options(postcards=True),
        [
            ["passport-1", card("postcard", 0), card("sunscreen"), card("camera"), card(PLAIN)],
            ["passport-2"],
        ],
        discard=(card("postcard", 1), card("umbrella")),
    )
    action = move(state, 0)
    assert isinstance(action, Recycle) and action.take == "umbrella"  # the kind, as shown


# -- special items -------------------------------------------------------------------------------


def test_a_special_item_it_would_use_is_never_handed_over() -> None:
    """Asked for its Travel Insurance or its map for a plain card: the old greedy handed
    either over."""
    for special in ("travel-insurance", "poorly-drawn-map"):
        state = position(
            Options(special_items=True),
            [["passport-1", card("camera"), card(special)], ["passport-2", card(PLAIN)]],
            current=1,
        )
        state = offered(state, card(PLAIN), special)
        assert move(state, 0) == answer(state, accept=False), special


def test_a_special_item_is_never_offered() -> None:
    state = position(
        Options(special_items=True),
        [
            ["passport-1", card("sunscreen"), card("umbrella"), card("travel-insurance")],
            ["passport-2", card(PLAIN)],
        ],
    )
    assert move(state, 0) == Draw()


def test_a_change_of_plans_is_played_when_the_countries_left_suit_the_hand_better() -> None:
    """Home (Brazil) takes three items the hand lacks; the one country left in the pile,
    Canada, takes the warm jacket it holds: the swap can only help. The old greedy never
    played it."""
    plan = card("change-of-plans")
    state = position(
        Options(special_items=True),
        [["passport-1", card("warm-jacket"), plan], ["passport-2"]],
        pile=("canada",),
    )
    assert move(state, 0) == PlaySpecial(card=plan)


def test_a_change_of_plans_is_kept_when_home_suits_the_hand_best() -> None:
    state = position(
        Options(special_items=True),
        [["passport-1", card("sunscreen"), card("change-of-plans")], ["passport-2"]],
        pile=("canada",),
    )
    assert move(state, 0) != PlaySpecial(card=card("change-of-plans"))


# -- when to offer a trade ----------------------------------------------------------------------


def test_no_offer_that_hands_the_partner_an_item_of_its_own_trip() -> None:
    """Its one spare card is a phrasebook, which the partner's home (Japan) takes; homes are
    public. The old greedy offered it anyway; the new one draws rather than speed the
    partner on."""
    state = position(
        Options(),
        [
            ["passport-1", card("sunscreen"), card("umbrella"), card("phrasebook")],
            ["passport-2", card(PLAIN)],
        ],
    )
    assert move(state, 0) == Draw()


def test_it_still_offers_a_card_of_no_use_to_either_side() -> None:
    """A spare card neither trip takes: an accepted trade is a step and a bonus card for
    it, a declined offer costs nothing (another action follows)."""
    state = position(
        Options(),
        [
            ["passport-1", card("sunscreen"), card("umbrella"), card(PLAIN)],
            ["passport-2", card("warm-jacket")],
        ],
    )
    assert move(state, 0) == OfferTrade(to=1, give=(card(PLAIN),), want=("camera",))


def test_a_plain_card_for_one_it_lacks_is_still_accepted() -> None:
    """Nothing of use asked, nothing forbidden given: it takes the trade (and its bonus)."""
    state = position(
        Options(postcards=True),
        [["passport-1", card("camera"), card(PLAIN)], ["passport-2", card("umbrella")]],
        current=1,
    )
    state = offered(state, card("umbrella"), PLAIN)
    assert move(state, 0) == answer(state, accept=True)
