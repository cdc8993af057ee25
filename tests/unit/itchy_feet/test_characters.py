"""The characters' abilities of rules 4 (games/itchy_feet/characters.py; RULES.md,
"Characters"), and where rules 3 differs, rules 3's (`rules=3`). Games of rules 1 and 2 keep
the first abilities: test_rules_extensions.py tests those, with `rules=2`, and the corpus
replays recorded games of every version."""

from __future__ import annotations

from msgspec.structs import replace

from games.itchy_feet.characters import CHARACTERS
from games.itchy_feet.events import (
    ActionTaken,
    BonusOffered,
    CardDrawn,
    CardKept,
    CardStolen,
    PlannerChoice,
    Recycled,
    StealAttempted,
    TradeAccepted,
    TradeDeclined,
    TradePassed,
    Travelled,
    TurnBegan,
)
from games.itchy_feet.model import (
    AcceptTrade,
    AllowSteal,
    DeclineTrade,
    Draw,
    KeepOne,
    OfferTrade,
    Options,
    Recycle,
    Steal,
    TradeOffer,
    Travel,
)
from tests.unit.itchy_feet.test_rules_setup import (
    GERMANY,
    REAL,
    TRAP,
    Picks,
    item,
    of,
    play,
    refused,
    table,
)

CAM, SUN, SUN2 = item("camera"), item("sunscreen"), item("sunscreen", 2)
BOOTS, GUIDE, CUR, UMB2 = (
    item("hiking-boots"),
    item("guidebook"),
    item("local-currency"),
    item("umbrella", 2),
)
FORBIDDEN = Options(forbidden_items=True)


def test_the_table_plays_rules_4() -> None:
    assert REAL.rules_version == 4 and table().rules == 4
    assert CHARACTERS == (
        "backpacker",
        "pickpocket",
        "hoarder",
        "planner",
        "haggler",
        "globetrotter",
    )


def test_the_backpacker_recycles_the_newest_discard_for_one_card() -> None:
    # discard, oldest first: guidebook, umbrella: the newest (umbrella) costs one card
    state = table(
        hands=[[CAM, BOOTS], [CUR]], discard=[GUIDE, UMB2], characters=["backpacker", None]
    )
    events = REAL.decide(state, 0, Recycle(discard=(CAM,), take="umbrella"), Picks())
    assert events[1] == Recycled(seat=0, discarded=(CAM,), taken=UMB2)
    assert refused(state, 0, Recycle(discard=(CAM, BOOTS), take="umbrella")) == "wrong_cost"
    # an older card costs two, as it does anyone
    assert refused(state, 0, Recycle(discard=(CAM,), take="guidebook")) == "wrong_cost"
    events = REAL.decide(state, 0, Recycle(discard=(CAM, BOOTS), take="guidebook"), Picks())
    assert events[1] == Recycled(seat=0, discarded=(CAM, BOOTS), taken=GUIDE)
    listed = {(a.discard, a.take) for a in REAL.legal_actions(state, 0) if isinstance(a, Recycle)}
    assert ((CAM,), "umbrella") in listed and ((CAM, BOOTS), "umbrella") not in listed
    assert ((CAM, BOOTS), "guidebook") in listed and ((CAM,), "guidebook") not in listed
    # of two copies the newest is taken
    two = table(hands=[[CAM], [CUR]], discard=[SUN, GUIDE, SUN2], characters=["backpacker", None])
    events = REAL.decide(two, 0, Recycle(discard=(CAM,), take="sunscreen"), Picks())
    assert events[1] == Recycled(seat=0, discarded=(CAM,), taken=SUN2)
    # anyone else pays two for the newest card too
    plain = replace(state, characters=(None, None))
    assert refused(plain, 0, Recycle(discard=(CAM,), take="umbrella")) == "wrong_cost"
    # rules 3 the same: the newest for one card, an older one for two
    three = replace(state, rules=3)
    assert REAL.decide(three, 0, Recycle(discard=(CAM,), take="umbrella"), Picks())[1].taken == UMB2
    assert refused(three, 0, Recycle(discard=(CAM,), take="guidebook")) == "wrong_cost"
    events = REAL.decide(
        replace(two, rules=3), 0, Recycle(discard=(CAM,), take="sunscreen"), Picks()
    )
    assert events[1].taken == SUN2  # of two copies, the newest there too


def test_the_backpacker_of_rules_2_recycles_any_card_for_one() -> None:
    state = table(
        hands=[[CAM, BOOTS], [CUR]],
        discard=[GUIDE, UMB2, SUN2],
        characters=["backpacker", None],
        rules=2,
    )
    events = REAL.decide(state, 0, Recycle(discard=(CAM,), take="guidebook"), Picks())
    assert events[1] == Recycled(seat=0, discarded=(CAM,), taken=GUIDE)


def test_the_pickpocket_steals_two_cards_for_one() -> None:
    state = table(hands=[[CAM], [BOOTS, GUIDE, CUR]], characters=["pickpocket", None])
    assert refused(state, 0, Steal(victim=1)) == "wrong_cost"  # a card to discard, as anyone
    assert Steal(victim=1) not in REAL.legal_actions(state, 0)
    assert Steal(victim=1, discard=CAM) in REAL.legal_actions(state, 0)
    events, after = play(state, 0, Steal(victim=1, discard=CAM), Picks(GUIDE, CUR))
    assert of(CardStolen, events) == [
        CardStolen(thief=0, victim=1, card=GUIDE),
        CardStolen(thief=0, victim=1, card=CUR),
    ]
    assert after.hands == ((GUIDE, CUR), (BOOTS,)) and after.discard == (CAM,)
    # a victim holding one card loses that one; anyone else takes one card
    one = table(hands=[[CAM], [BOOTS]], characters=["pickpocket", None])
    assert play(one, 0, Steal(victim=1, discard=CAM))[1].hands[0] == (BOOTS,)
    plain = replace(state, characters=(None, None))
    assert len(of(CardStolen, play(plain, 0, Steal(victim=1, discard=CAM))[0])) == 1


def test_the_pickpocket_takes_two_only_from_a_bigger_hand() -> None:
    # rules 4: the victim must hold more cards than the Pickpocket once the steal is paid
    even = table(hands=[[CAM, SUN, SUN2], [BOOTS, GUIDE]], characters=["pickpocket", None])
    events, after = play(even, 0, Steal(victim=1, discard=CAM), Picks(GUIDE))
    assert of(CardStolen, events) == [CardStolen(thief=0, victim=1, card=GUIDE)]
    assert after.hands[1] == (BOOTS,)
    bigger = table(hands=[[CAM, SUN], [BOOTS, GUIDE]], characters=["pickpocket", None])
    assert len(of(CardStolen, play(bigger, 0, Steal(victim=1, discard=CAM))[0])) == 2
    # rules 3: two cards from any hand
    old = replace(even, rules=3)
    assert len(of(CardStolen, play(old, 0, Steal(victim=1, discard=CAM))[0])) == 2


def test_the_pickpockets_two_cards_wait_for_travel_insurance() -> None:
    state = table(
        hands=[[CAM], [BOOTS, GUIDE]],
        characters=["pickpocket", None],
        options=Options(special_items=True),
    )
    events, asked = play(state, 0, Steal(victim=1, discard=CAM))
    assert events[-1] == StealAttempted(thief=0, victim=1, discarded=CAM, answer_needed=True)
    events, after = play(asked, 1, AllowSteal(), Picks(BOOTS, GUIDE))
    assert len(of(CardStolen, events)) == 2 and after.hands[0] == (BOOTS, GUIDE)


def test_the_hoarder_draws_two_while_holding_fewer_than_three_cards() -> None:
    state = table(hands=[[CAM, SUN], [CUR]], characters=["hoarder", None])
    events, after = play(state, 0, Draw(), Picks(BOOTS, GUIDE))
    assert [(d.reason, d.card) for d in of(CardDrawn, events)] == [
        ("draw", BOOTS),
        ("draw", GUIDE),
    ]
    assert after.hands[0] == (CAM, SUN, BOOTS, GUIDE) and after.current == 1
    three = table(hands=[[CAM, SUN, CUR], [UMB2]], characters=["hoarder", None])
    assert len(of(CardDrawn, play(three, 0, Draw())[0])) == 1
    plain = replace(state, characters=(None, None))
    assert len(of(CardDrawn, play(plain, 0, Draw())[0])) == 1
    assert len(of(CardDrawn, play(replace(state, rules=3), 0, Draw())[0])) == 2  # rules 3 too
    old = replace(state, rules=2)  # rules 1-2: the hand limit alone
    assert len(of(CardDrawn, play(old, 0, Draw())[0])) == 1


def test_the_planner_never_lets_a_forbidden_item_go() -> None:
    state = table(hands=[[CAM], [SUN]], characters=["planner", None], options=FORBIDDEN)
    events, after = play(state, 0, Draw(), Picks(TRAP, BOOTS))
    assert events[-2:] == [CardKept(seat=0, kept=TRAP, discarded=BOOTS), TurnBegan(seat=1)]
    assert after.hands[0] == (CAM, TRAP) and after.discard == (BOOTS,)
    assert not of(PlannerChoice, events)
    three = play(replace(state, rules=3), 0, Draw(), Picks(TRAP, BOOTS))[0]  # rules 3 too
    assert three[-2] == CardKept(seat=0, kept=TRAP, discarded=BOOTS)
    # two forbidden items, or none: the Planner chooses
    two = play(state, 0, Draw(), Picks(TRAP, item("mouse-trap", 2)))[1]
    assert isinstance(two.pending, KeepOne)
    # rules 1-2: a free choice
    old = replace(state, rules=2)
    events, choosing = play(old, 0, Draw(), Picks(TRAP, BOOTS))
    assert events[-1] == PlannerChoice(seat=0, cards=(TRAP, BOOTS))
    assert choosing.pending == KeepOne(seat=0, cards=(TRAP, BOOTS))


def test_a_declined_trade_hands_the_haggler_a_random_card_of_the_decliner() -> None:
    state = table(hands=[[CAM], [SUN, BOOTS]], characters=["haggler", None])
    offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("guidebook",)))[1]
    events, after = play(offered, 1, DeclineTrade(), Picks(BOOTS))
    assert events == [
        TradeDeclined(asker=0, responder=1),
        ActionTaken(seat=0, action="haggle"),  # instead of the new action
        CardStolen(thief=0, victim=1, card=BOOTS),
        TurnBegan(seat=1),
    ]
    assert after.hands == ((CAM, BOOTS), (SUN,)) and not of(BonusOffered, events)
    # anyone else: the new action, nothing taken
    plain = replace(offered, characters=(None, None))
    events, after = play(plain, 1, DeclineTrade())
    assert events == [TradeDeclined(asker=0, responder=1)] and after.actions_left == 1
    # rules 3 the same (a card from whoever declines, at once: no table to go round here)
    events = play(replace(offered, rules=3), 1, DeclineTrade(), Picks(BOOTS))[0]
    assert events[:3] == [
        TradeDeclined(asker=0, responder=1),
        ActionTaken(seat=0, action="haggle"),
        CardStolen(thief=0, victim=1, card=BOOTS),
    ]
    # rules 1-2: the Haggler's bonus card instead of the new action
    old = replace(offered, rules=2)
    assert play(old, 1, DeclineTrade())[0][-1] == BonusOffered(seats=(0,), declined=True)


def test_the_hagglers_declined_offer_goes_round_the_table() -> None:
    # four seats, the Haggler in seat 1 asks seat 2: then seat 3, then seat 0 (seat 3 holds
    # no card and cannot hand over the one asked for: passed over), then the card
    hands = [[BOOTS, UMB2], [CAM], [SUN, GUIDE], []]
    state = table(4, hands=hands, characters=[None, "haggler", None, None], current=1)
    offer = OfferTrade(to=2, give=(CAM,), want=("umbrella",))
    events, asked = play(state, 1, offer)
    assert asked.pending == TradeOffer(asker=1, responder=2, give=(CAM,), want=("umbrella",))
    events, passed = play(asked, 2, DeclineTrade())
    assert events == [TradePassed(asker=1, decliner=2, responder=0)]
    assert passed.pending == replace(asked.pending, responder=0)
    assert passed.actions_left == asked.actions_left and not passed.trade_declined
    assert REAL.to_act(passed) == {0} and any(
        isinstance(a, DeclineTrade) for a in REAL.legal_actions(passed, 0)
    )
    events, after = play(passed, 0, DeclineTrade(), Picks(BOOTS))
    assert events[:3] == [
        TradeDeclined(asker=1, responder=0),
        ActionTaken(seat=1, action="haggle"),
        CardStolen(thief=1, victim=0, card=BOOTS),
    ]
    assert after.hands[1] == (CAM, BOOTS) and after.hands[0] == (UMB2,)
    # an accept along the way makes the trade with whoever accepted
    events, traded = play(passed, 0, AcceptTrade())
    assert (
        of(TradeAccepted, events)
        == [TradeAccepted(asker=1, responder=0, given=(CAM,), received=("umbrella-1",))]
        or of(TradeAccepted, events)[0].responder == 0
    )
    assert CAM in traded.hands[0] and CAM not in traded.hands[1]
    # rules 3, or anyone but the Haggler: the first decline ends it
    assert play(replace(asked, rules=3), 2, DeclineTrade())[0][0] == TradeDeclined(
        asker=1, responder=2
    )
    plain = replace(asked, characters=(None, None, None, None))
    assert play(plain, 2, DeclineTrade())[0] == [TradeDeclined(asker=1, responder=2)]
    # a seat holding exactly as many cards as asked for is asked; one holding fewer is not
    one_card = replace(asked, hands=(asked.hands[0], asked.hands[1], asked.hands[2], (SUN2,)))
    assert play(one_card, 2, DeclineTrade())[0] == [TradePassed(asker=1, decliner=2, responder=3)]


def test_the_globetrotters_trip_home_takes_no_action() -> None:
    state = table(hands=[[*GERMANY, "passport-1"], [SUN]], characters=["globetrotter", None])
    events, after = play(state, 0, Travel(pay=GERMANY))
    assert not of(ActionTaken, events) and of(Travelled, events) and not of(CardDrawn, events)
    assert after.current == 0 and after.actions_left == 1 and after.visited_home[0]
    assert play(after, 0, Draw())[1].current == 1  # then the turn's one action
    plain = replace(state, characters=(None, None))
    events, after = play(plain, 0, Travel(pay=GERMANY))
    assert of(ActionTaken, events) and after.current == 1 and not of(CardDrawn, events)
    three = replace(state, rules=3)  # rules 3: a card drawn too
    events, after = play(three, 0, Travel(pay=GERMANY), Picks(BOOTS))
    assert of(CardDrawn, events) == [CardDrawn(seat=0, reason="globetrotter", card=BOOTS)]
    assert not of(ActionTaken, events) and after.current == 0
    old = replace(state, rules=2)  # rules 1-2: the card, and the action spent
    events, after = play(old, 0, Travel(pay=GERMANY), Picks(BOOTS))
    assert of(ActionTaken, events) and after.current == 1 and len(of(CardDrawn, events)) == 1
