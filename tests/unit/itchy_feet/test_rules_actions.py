"""The Itchy Feet rulebook: draw, recycle, trade, steal, travel; reshuffles and the hand limit."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from msgspec.structs import replace

from games.api import Outcome
from games.itchy_feet.events import (
    ActionTaken,
    BonusAnswered,
    BonusOffered,
    CardDrawn,
    CardStolen,
    DiscardRequired,
    GameWon,
    HandLimitMet,
    PileReshuffled,
    Recycled,
    StealAttempted,
    StealCancelled,
    TradeAccepted,
    TradeDeclined,
    TradeOffered,
    Travelled,
    TurnBegan,
)
from games.itchy_feet.model import (
    AcceptTrade,
    AllowSteal,
    BonusOffer,
    BonusQuestion,
    CancelSteal,
    DeclineTrade,
    Discard,
    DiscardDown,
    DiscardQuestion,
    Draw,
    DrawBonus,
    OfferTrade,
    Options,
    Recycle,
    SkipBonus,
    State,
    Steal,
    StealAnswer,
    StealQuestion,
    TradeOffer,
    TradeQuestion,
    Travel,
)
from tests.unit.itchy_feet.test_rules_setup import (
    ALL,
    GERMANY,
    INSURANCE,
    JAPAN,
    MAP,
    MAP2,
    REAL,
    TRAP,
    C,
    Picks,
    event,
    item,
    of,
    play,
    refused,
    table,
)

CAM, CAM2, SUN, SUN2 = item("camera"), item("camera", 2), item("sunscreen"), item("sunscreen", 2)
BOOTS, GUIDE, UMB2 = item("hiking-boots"), item("guidebook"), item("umbrella", 2)

# -- draw and reshuffle -----------------------------------------------------------------------


def test_draw_takes_one_card_from_the_draw_pile() -> None:
    state = table(hands=[GERMANY, [CAM]])
    events, after = play(state, 0, Draw(), Picks(SUN2))
    assert events == [
        ActionTaken(seat=0, action="draw"),
        CardDrawn(seat=0, reason="draw", card=SUN2),
        TurnBegan(seat=1),
    ]
    assert after.hands[0] == (*GERMANY, SUN2) and SUN2 not in after.draw_pile
    assert Draw() in REAL.legal_actions(state, 0)


def test_nothing_to_draw_when_no_card_but_events_is_left() -> None:
    state = table(
        hands=[GERMANY, [CAM]], draw=[], discard=[event("strike")], options=Options(events=True)
    )
    assert Draw() not in REAL.legal_actions(state, 0)
    assert refused(state, 0, Draw()) == "nothing_to_draw"


def test_the_discard_is_reshuffled_the_moment_the_last_card_is_drawn() -> None:
    state = table(hands=[GERMANY, [CAM]], draw=[CAM2], discard=[SUN, BOOTS])
    events, after = play(state, 0, Draw())
    assert events[1:3] == [CardDrawn(seat=0, reason="draw", card=CAM2), PileReshuffled(count=2)]
    assert after.draw_pile == tuple(sorted([SUN, BOOTS])) and after.discard == ()
    # a pile already empty (its discard came later) is reshuffled before the draw
    state = table(hands=[GERMANY, [CAM]], draw=[], discard=[SUN, BOOTS])
    events, after = play(state, 0, Draw(), Picks(BOOTS))
    assert events[1:3] == [PileReshuffled(count=2), CardDrawn(seat=0, reason="draw", card=BOOTS)]
    assert after.draw_pile == (SUN,)


# -- recycle ----------------------------------------------------------------------------------


def recycle_table(**fields: Any) -> State:
    return table(hands=[[*GERMANY, CAM, SUN], [BOOTS]], discard=[GUIDE, CAM2], **fields)


def test_recycle_discards_two_cards_and_takes_any_card_of_the_discard() -> None:
    state = recycle_table()
    events, after = play(state, 0, Recycle(discard=(CAM, SUN), take=GUIDE))
    assert events[:2] == [
        ActionTaken(seat=0, action="recycle"),
        Recycled(seat=0, discarded=(CAM, SUN), taken=GUIDE),
    ]
    assert after.hands[0] == (*GERMANY, GUIDE) and after.discard == (CAM2, CAM, SUN)
    assert events[-1] == TurnBegan(seat=1)


def test_recycle_costs_exactly_two_cards_of_your_hand_and_not_the_ones_just_discarded() -> None:
    state = recycle_table()
    assert refused(state, 0, Recycle(discard=(CAM,), take=GUIDE)) == "wrong_cost"
    assert refused(state, 0, Recycle(discard=(CAM, SUN, GERMANY[0]), take=GUIDE)) == "wrong_cost"
    assert refused(state, 0, Recycle(discard=(CAM, CAM), take=GUIDE)) == "card_named_twice"
    assert refused(state, 0, Recycle(discard=(CAM, BOOTS), take=GUIDE)) == "card_not_in_hand"
    assert refused(recycle_table(rules=1), 0, Recycle(discard=(CAM, SUN), take=CAM)) == (
        "not_in_discard"  # rules 1: the very card named, and that one is being paid
    )
    assert refused(state, 0, Recycle(discard=(CAM, SUN), take=BOOTS)) == "not_in_discard"
    # by its kind, as the table names the discard: no copy of it there
    assert refused(state, 0, Recycle(discard=(CAM, SUN), take="hiking-boots")) == "not_in_discard"


def test_event_cards_cannot_be_recycled() -> None:
    state = table(
        hands=[[*GERMANY, CAM, SUN], [BOOTS]],
        discard=[event("strike"), GUIDE],
        options=Options(events=True),
    )
    assert refused(state, 0, Recycle(discard=(CAM, SUN), take=event("strike"))) == (
        "cannot_recycle_event"
    )
    takes = {a.take for a in REAL.legal_actions(state, 0) if isinstance(a, Recycle)}
    assert takes == {"guidebook"}  # named as the discard shows it


def test_a_forbidden_item_cannot_pay_for_a_recycle() -> None:
    state = table(hands=[[*GERMANY, TRAP], [BOOTS]], discard=[GUIDE], options=ALL)
    assert refused(state, 0, Recycle(discard=(TRAP, GERMANY[0]), take=GUIDE)) == (
        "forbidden_cannot_pay"
    )
    assert all(
        TRAP not in a.discard for a in REAL.legal_actions(state, 0) if isinstance(a, Recycle)
    )


def test_legal_recycles_list_every_payment_with_every_kind_to_take() -> None:
    hand = [*GERMANY, CAM, item("guidebook", 2)]
    state = table(hands=[hand, [BOOTS]], discard=[GUIDE, CAM2, item("camera", 3)])
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Recycle)]
    assert {a.take for a in listed} == {"guidebook", "camera"}  # by kind, as the table sees
    # ten pairs for each kind taken, but paying a camera and taking a camera back leaves
    # the same hand as paying a guidebook and taking a guidebook back: 20 - 3 moves
    assert len(listed) == 17
    for spent in GERMANY:  # paid with a camera taken back, or with a guidebook: one move
        back = [a for a in listed if spent in a.discard and C.kind(a.take) in kinds(a.discard)]
        assert len(back) == 1
    # any copy of the discard is accepted; it stands for its kind: the camera longest in the
    # discard is taken (rules 2), or the very copy named (a game of rules 1)
    named = Recycle(discard=GERMANY[:2], take=item("camera", 3))
    assert CAM2 in play(state, 0, named)[1].hands[0]
    assert CAM2 in play(replace(state, rules=2), 0, named)[1].hands[0]  # from rules 2 on
    assert item("camera", 3) in play(replace(state, rules=1), 0, named)[1].hands[0]


def test_a_recycle_that_pays_a_kind_and_takes_it_back_is_listed_once() -> None:
    state = table(hands=[[CAM, SUN], [BOOTS]], discard=[CAM2], characters=["backpacker", None])
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Recycle)]
    assert listed == [
        Recycle(discard=(CAM,), take="camera"),
        Recycle(discard=(SUN,), take="camera"),
    ]
    after = play(state, 0, Recycle(discard=(CAM,), take=CAM2))[1]  # changes nothing
    assert after.hands[0] == (SUN, CAM2) and after.discard == (CAM,) and after.current == 1


def kinds(cards: tuple[str, ...]) -> set[str]:
    return {C.kind(c) for c in cards}


# -- trade ------------------------------------------------------------------------------------


def trade_table(**fields: Any) -> State:
    return table(3, hands=[[*GERMANY, CAM, SUN], [UMB2, BOOTS, GUIDE], [SUN2]], **fields)


def test_a_trade_offer_is_public_and_the_responder_answers() -> None:
    state = trade_table()
    offer = OfferTrade(to=1, give=(CAM,), want=("umbrella",))
    events, offered = play(state, 0, offer)
    assert events == [
        ActionTaken(seat=0, action="trade"),
        TradeOffered(asker=0, responder=1, give=(CAM,), want=("umbrella",)),
    ]
    assert offered.pending == TradeOffer(asker=0, responder=1, give=(CAM,), want=("umbrella",))
    assert REAL.to_act(offered) == frozenset({1})
    # the table, the responder too, sees the offered card by its kind (identical cards)
    assert list(REAL.view(offered, 2).public["pending"]["give"]) == ["camera"]
    asked = TradeQuestion(seat=1, asker=0, give=("camera",), want=("umbrella",))
    assert REAL.legal_actions(offered, 1) == [
        AcceptTrade(question=asked),
        DeclineTrade(question=asked),
    ]
    assert refused(offered, 0, Draw()) == "not_your_turn"
    assert refused(offered, 1, Draw()) == "answer_first"


def test_an_accepted_trade_hands_over_exactly_the_kinds_asked_then_each_may_draw() -> None:
    state = trade_table()
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("umbrella", "guidebook")))
    events, accepted = play(offered, 1, AcceptTrade())
    assert events == [
        TradeAccepted(asker=0, responder=1, given=(CAM,), received=(UMB2, GUIDE)),
        BonusOffered(seats=(0, 1), declined=False),
    ]
    assert accepted.hands[0] == (*GERMANY, SUN, UMB2, GUIDE)
    assert accepted.hands[1] == (BOOTS, CAM)  # one card for two: uneven trades are fine
    # "both players can draw one bonus card": each says whether, the asker first
    assert accepted.pending == BonusOffer(seats=(0, 1)) and REAL.to_act(accepted) == {0}
    bonus = BonusQuestion(seat=0, declined=False)
    assert REAL.legal_actions(accepted, 0) == [DrawBonus(question=bonus), SkipBonus(question=bonus)]
    assert refused(accepted, 1, DrawBonus()) == "not_your_turn"
    events, half = play(accepted, 0, DrawBonus(), Picks(item("hiking-boots", 2)))
    assert events == [
        BonusAnswered(seat=0, draw=True),
        CardDrawn(seat=0, reason="bonus", card=item("hiking-boots", 2)),
    ]
    assert half.pending == BonusOffer(seats=(1,)) and REAL.to_act(half) == {1}
    events, after = play(half, 1, SkipBonus())
    assert events == [BonusAnswered(seat=1, draw=False), TurnBegan(seat=1)]
    assert after.hands[1] == (BOOTS, CAM) and after.pending is None


def test_a_bonus_draw_can_be_left_when_it_would_hurt() -> None:
    # a forced draw could bring a Mouse Trap or Lost Luggage: a player may leave it
    state = table(
        hands=[[*GERMANY, CAM, "passport-1"], [UMB2]],
        draw=[TRAP, event("lost-luggage")],
        options=ALL,
    )
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("umbrella",)))
    accepted = play(offered, 1, AcceptTrade())[1]
    after = play(play(accepted, 0, SkipBonus())[1], 1, SkipBonus())[1]
    assert after.draw_pile == tuple(sorted([TRAP, event("lost-luggage")]))
    assert sorted(after.hands[0]) == sorted([*GERMANY, UMB2, "passport-1"])
    assert Travel(pay=GERMANY) in REAL.legal_actions(replace(after, current=0, actions_left=1), 0)


def test_no_bonus_is_offered_when_nothing_can_be_drawn() -> None:
    state = table(hands=[[CAM, SUN], [UMB2]], draw=[])
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("umbrella",)))
    events, after = play(offered, 1, AcceptTrade())
    assert not of(BonusOffered, events) and events[-1] == TurnBegan(seat=1)
    # and one that was offered cannot be drawn once the last card has gone
    asked = replace(after, pending=BonusOffer(seats=(0,)), current=0)
    assert REAL.legal_actions(asked, 0) == [
        SkipBonus(question=BonusQuestion(seat=0, declined=False))
    ]
    assert refused(asked, 0, DrawBonus()) == "nothing_to_draw"


def test_the_responder_may_pick_the_copies_but_not_other_kinds() -> None:
    state = table(hands=[[*GERMANY, CAM], [UMB2, item("umbrella", 3), BOOTS]])
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("umbrella",)))
    named = AcceptTrade(cards=(item("umbrella", 3),))
    # rules 1: the copy named; rules 2: a copy named stands for its kind, the one held longest
    events = play(replace(offered, rules=1), 1, named)[0]
    assert of(TradeAccepted, events)[0].received == (item("umbrella", 3),)
    assert of(TradeAccepted, play(offered, 1, named)[0])[0].received == (UMB2,)
    assert refused(offered, 1, AcceptTrade(cards=(BOOTS,))) == "not_what_was_asked"
    assert refused(offered, 1, AcceptTrade(cards=(UMB2, BOOTS))) == "not_what_was_asked"
    assert refused(offered, 1, AcceptTrade(cards=(SUN,))) == "card_not_in_hand"


def test_an_accept_naming_no_copy_hands_over_the_longest_held_from_rules_2() -> None:
    state = table(hands=[[*GERMANY, CAM], [item("umbrella", 3), UMB2, BOOTS]])
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("umbrella",)))
    for rules, handed in ((1, UMB2), (2, item("umbrella", 3)), (4, item("umbrella", 3))):
        events = play(replace(offered, rules=rules), 1, AcceptTrade())[0]
        assert of(TradeAccepted, events)[0].received == (handed,), rules


def test_a_responder_without_the_cards_asked_cannot_accept_lying_is_allowed() -> None:
    state = trade_table()
    _, offered = play(state, 0, OfferTrade(to=2, give=(CAM,), want=("umbrella",)))
    asked = TradeQuestion(seat=2, asker=0, give=("camera",), want=("umbrella",))
    assert REAL.legal_actions(offered, 2) == [DeclineTrade(question=asked)]  # why: unavailable
    assert refused(offered, 2, AcceptTrade()) == "cannot_fulfil_trade"
    assert refused(offered, 2, AcceptTrade(cards=(SUN2,))) == "not_what_was_asked"


def test_a_declined_trade_gives_another_action_but_not_another_trade() -> None:
    state = trade_table()
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("camera",)))
    events, after = play(offered, 1, DeclineTrade())
    assert events == [TradeDeclined(asker=0, responder=1)]  # no bonus card
    assert after.current == 0 and after.actions_left == 1 and after.trade_declined
    assert after.hands == state.hands
    again = OfferTrade(to=2, give=(CAM,), want=("sunscreen",))
    assert refused(after, 0, again) == "trade_declined_this_turn"
    assert not [a for a in REAL.legal_actions(after, 0) if isinstance(a, OfferTrade)]
    events, later = play(after, 0, Draw())
    assert events[-1] == TurnBegan(seat=1) and not later.trade_declined


def test_a_trade_names_a_partner_cards_of_yours_and_kinds_in_play() -> None:
    state = trade_table()
    assert refused(state, 0, OfferTrade(to=0, give=(CAM,), want=("umbrella",))) == "bad_partner"
    assert refused(state, 0, OfferTrade(to=3, give=(CAM,), want=("umbrella",))) == "bad_partner"
    assert refused(state, 0, OfferTrade(to=1, give=(), want=("umbrella",))) == "empty_trade"
    assert refused(state, 0, OfferTrade(to=1, give=(CAM,), want=())) == "empty_trade"
    assert refused(state, 0, OfferTrade(to=1, give=(BOOTS,), want=("camera",))) == (
        "card_not_in_hand"
    )
    for kind in ("snorkel", "postcard", "strike"):  # postcards not in play; events never
        assert refused(state, 0, OfferTrade(to=1, give=(CAM,), want=(kind,))) == "unknown_kind"


def test_a_trade_cannot_ask_for_the_impossible() -> None:
    # "asking for a specific card or cards from another player": never more than they hold,
    # nor a kind of which the asker sees every copy (in hand, on the discard, out of play)
    state = trade_table(discard=[item("umbrella", 3)])  # seat 0 holds umbrella-1
    five = OfferTrade(to=1, give=(CAM,), want=("umbrella",) * 5)
    assert refused(state, 0, five) == "impossible_trade"
    assert refused(state, 0, OfferTrade(to=2, give=(CAM,), want=("sunscreen",) * 2)) == (
        "impossible_trade"  # seat 2 holds one card
    )
    three = OfferTrade(to=1, give=(CAM,), want=("umbrella",) * 3)
    assert refused(state, 0, three) == "impossible_trade"  # two umbrellas are out of sight
    assert play(state, 0, replace(three, want=("umbrella",) * 2))[1].pending is not None
    empty = table(3, hands=[[CAM, SUN], [BOOTS], []])
    assert refused(empty, 0, OfferTrade(to=2, give=(CAM,), want=("umbrella",))) == (
        "impossible_trade"  # a partner with no cards
    )
    assert not [a for a in REAL.legal_actions(empty, 0) if isinstance(a, OfferTrade) and a.to == 2]
    seen = table(hands=[[CAM, CAM2], [BOOTS]], discard=[item("camera", 3), item("camera", 4)])
    assert refused(seen, 0, OfferTrade(to=1, give=(CAM,), want=("camera",))) == (
        "impossible_trade"  # every camera is in sight
    )


def test_offers_beyond_the_listed_one_for_one_are_accepted() -> None:
    state = trade_table()
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, OfferTrade)]
    assert all(len(a.give) == len(a.want) == 1 for a in listed)
    for offer in (
        OfferTrade(to=1, give=(CAM, SUN), want=("umbrella",)),
        OfferTrade(to=1, give=(CAM,), want=("umbrella", "guidebook", "hiking-boots")),
    ):
        assert offer not in listed
        assert play(state, 0, offer)[1].pending == TradeOffer(
            asker=0, responder=1, give=offer.give, want=offer.want
        )


@pytest.mark.parametrize("kind", ["actions", "hoarder"])
def test_a_trade_cannot_ask_for_an_actions_card_or_a_character(kind: str) -> None:
    state = trade_table()
    assert refused(state, 0, OfferTrade(to=1, give=(CAM,), want=(kind,))) == "unknown_kind"


def test_legal_trades_offer_each_kind_held_for_each_kind_a_partner_could_hold() -> None:
    state = table(3, hands=[[GERMANY[0], CAM, item("camera", 2)], [BOOTS], []], options=ALL)
    listed = [a for a in REAL.legal_actions(state, 0) if isinstance(a, OfferTrade)]
    kinds = {C.kind(c) for c in REAL.all_cards() if C.type(c) != "event"} - {"passport"}
    assert {(a.to, a.give, a.want) for a in listed} == {  # (every passport is out of play)
        (1, (give,), (kind,)) for give in (GERMANY[0], CAM) for kind in kinds
    }  # the partner with no cards is not asked; one camera offered stands for the other
    assert ("postcard",) in {a.want for a in listed}  # asking for a postcard, too


# -- steal ------------------------------------------------------------------------------------


def test_steal_discards_one_card_and_takes_a_random_card_from_the_victim() -> None:
    state = table(3, hands=[[*GERMANY, CAM], [BOOTS, GUIDE, SUN], [SUN2]])
    events, after = play(state, 0, Steal(victim=1, discard=CAM), Picks(GUIDE))
    assert events[:3] == [
        ActionTaken(seat=0, action="steal"),
        StealAttempted(thief=0, victim=1, discarded=CAM, answer_needed=False),
        CardStolen(thief=0, victim=1, card=GUIDE),
    ]
    assert after.hands[0] == (*GERMANY, GUIDE) and after.hands[1] == (BOOTS, SUN)
    assert after.discard == (CAM,) and events[-1] == TurnBegan(seat=1)
    steals = [play(state, 0, Steal(victim=1, discard=CAM), Random(s))[0] for s in range(20)]
    taken = {of(CardStolen, events)[0].card for events in steals}
    assert taken == {BOOTS, GUIDE, SUN}  # at random


def test_steal_needs_a_card_to_pay_and_a_victim_holding_cards() -> None:
    state = table(3, hands=[[*GERMANY, TRAP], [BOOTS], []], options=ALL)
    assert refused(state, 0, Steal(victim=1)) == "wrong_cost"
    assert refused(state, 0, Steal(victim=1, discard=TRAP)) == "forbidden_cannot_pay"
    assert refused(state, 0, Steal(victim=1, discard=CAM)) == "card_not_in_hand"
    assert refused(state, 0, Steal(victim=0, discard=GERMANY[0])) == "bad_victim"
    assert refused(state, 0, Steal(victim=3, discard=GERMANY[0])) == "bad_victim"
    assert refused(state, 0, Steal(victim=2, discard=GERMANY[0])) == "nothing_to_steal"
    steals = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Steal)]
    assert {(a.victim, a.discard) for a in steals} == {(1, x) for x in GERMANY}


def test_legal_steals_list_every_victim_and_every_kind_to_pay_with() -> None:
    state = table(3, hands=[[GERMANY[0], UMB2, CAM], [BOOTS], [SUN]])
    steals = [a for a in REAL.legal_actions(state, 0) if isinstance(a, Steal)]
    assert steals == [Steal(victim=v, discard=x) for v in (1, 2) for x in (CAM, GERMANY[0])]
    # (the two umbrellas are one choice: the lowest id pays)


def test_with_special_items_the_victim_always_answers_and_may_allow() -> None:
    state = table(hands=[[*GERMANY, CAM], [BOOTS, GUIDE]], options=ALL)
    events, asked = play(state, 0, Steal(victim=1, discard=CAM))
    assert events[-1] == StealAttempted(thief=0, victim=1, discarded=CAM, answer_needed=True)
    assert asked.pending == StealAnswer(thief=0, victim=1) and REAL.to_act(asked) == {1}
    victim = StealQuestion(seat=1, thief=0)
    assert REAL.legal_actions(asked, 1) == [AllowSteal(question=victim)]  # no insurance: asked
    events, after = play(asked, 1, AllowSteal(), Picks(GUIDE))
    assert events[0] == CardStolen(thief=0, victim=1, card=GUIDE) and after.pending is None


def test_two_travel_insurances_are_one_way_to_cancel() -> None:
    insured = [BOOTS, INSURANCE, "special-travel-insurance-2"]
    state = table(hands=[[*GERMANY, CAM], insured], options=ALL)
    asked = play(state, 0, Steal(victim=1, discard=CAM))[1]
    victim = StealQuestion(seat=1, thief=0)
    assert REAL.legal_actions(asked, 1) == [
        AllowSteal(question=victim),
        CancelSteal(card=INSURANCE, question=victim),
    ]


def test_travel_insurance_cancels_a_steal() -> None:
    state = table(hands=[[*GERMANY, CAM], [BOOTS, INSURANCE]], options=ALL)
    asked = play(state, 0, Steal(victim=1, discard=CAM))[1]
    victim = StealQuestion(seat=1, thief=0)
    assert REAL.legal_actions(asked, 1) == [
        AllowSteal(question=victim),
        CancelSteal(card=INSURANCE, question=victim),
    ]
    assert refused(asked, 1, CancelSteal(card=BOOTS)) == "no_travel_insurance"
    events, after = play(asked, 1, CancelSteal(card=INSURANCE))
    assert events[0] == StealCancelled(thief=0, victim=1, card=INSURANCE)
    assert not of(CardStolen, events) and events[-1] == TurnBegan(seat=1)
    assert after.hands == (GERMANY, (BOOTS,)) and after.discard == (CAM, INSURANCE)


# -- travel -----------------------------------------------------------------------------------


def test_travel_home_pays_the_items_and_keeps_the_passport() -> None:
    state = table(hands=[[*GERMANY, CAM, "passport-5"], [BOOTS]])  # any passport will do
    assert Travel(pay=GERMANY) in REAL.legal_actions(state, 0)
    events, after = play(state, 0, Travel(pay=GERMANY))
    assert events[:2] == [
        ActionTaken(seat=0, action="travel"),
        Travelled(seat=0, destination="home", country="germany", paid=GERMANY),
    ]
    assert after.hands[0] == (CAM, "passport-5") and after.discard == GERMANY
    assert after.visited_home == (True, False) and after.end is None
    assert events[-1] == TurnBegan(seat=1)


def test_home_first_then_the_centre_wins_at_once() -> None:
    state = table(hands=[[*JAPAN, "passport-1"], [BOOTS]])
    assert refused(state, 0, Travel(pay=JAPAN)) == "wrong_items"  # home first
    state = replace(state, visited_home=(True, False))
    events, after = play(state, 0, Travel(pay=JAPAN))
    assert events[1:] == [
        Travelled(seat=0, destination="centre", country="japan", paid=JAPAN),
        GameWon(seat=0, reason="centre"),
    ]
    assert after.winner == 0 and REAL.outcome(after) == Outcome(
        scores=[1, 0], ranks=[1, 2], winners=[0], detail={"reason": "centre"}
    )


def test_travel_needs_a_passport_the_exact_items_and_no_forbidden_item() -> None:
    state = table(hands=[[*GERMANY, UMB2], [BOOTS, "passport-1"]], options=ALL)
    assert refused(state, 0, Travel(pay=GERMANY)) == "no_passport"
    passport = table(hands=[[*GERMANY, UMB2, "passport-1"], [BOOTS]], options=ALL)
    assert refused(passport, 0, Travel(pay=GERMANY[:2])) == "wrong_items"
    assert refused(passport, 0, Travel(pay=(*GERMANY[:2], UMB2))) == "wrong_items"
    assert refused(passport, 0, Travel(pay=(*GERMANY, UMB2))) == "wrong_items"
    assert refused(passport, 0, Travel(pay=(*GERMANY[:2], "passport-1"))) == "wrong_items"
    trapped = table(hands=[[*GERMANY, TRAP, "passport-1"], [BOOTS]], options=ALL)
    assert refused(trapped, 0, Travel(pay=GERMANY)) == "holding_forbidden_item"
    assert not [a for a in REAL.legal_actions(trapped, 0) if isinstance(a, Travel)]


def test_a_poorly_drawn_map_counts_as_any_one_missing_item() -> None:
    state = table(hands=[[*GERMANY[:2], MAP, "passport-1"], [BOOTS]], options=ALL)
    assert Travel(pay=(*GERMANY[:2], MAP)) in REAL.legal_actions(state, 0)
    events, after = play(state, 0, Travel(pay=(*GERMANY[:2], MAP)))
    assert of(Travelled, events)[0].paid == (*GERMANY[:2], MAP) and MAP in after.discard
    two = table(hands=[[GERMANY[0], MAP, MAP2, "passport-1"], [BOOTS]], options=ALL)
    assert play(two, 0, Travel(pay=(GERMANY[0], MAP, MAP2)))[1].visited_home[0]
    assert refused(two, 0, Travel(pay=(MAP, MAP2))) == "wrong_items"  # one item each


def test_one_map_does_not_cover_two_missing_items() -> None:
    state = table(hands=[[GERMANY[0], MAP, "passport-1"], [BOOTS]], options=ALL)
    assert not [a for a in REAL.legal_actions(state, 0) if isinstance(a, Travel)]


def test_a_map_stands_only_for_an_item_you_are_missing() -> None:
    # as printed: "this counts as any one item you are missing"
    state = table(hands=[[*GERMANY, MAP, "passport-1"], [BOOTS]], options=ALL)
    assert refused(state, 0, Travel(pay=(*GERMANY[:2], MAP))) == "wrong_items"
    assert [a for a in REAL.legal_actions(state, 0) if isinstance(a, Travel)] == [
        Travel(pay=GERMANY)
    ]
    two = table(hands=[[GERMANY[0], GERMANY[1], MAP, MAP2, "passport-1"], [BOOTS]], options=ALL)
    assert refused(two, 0, Travel(pay=(GERMANY[0], MAP, MAP2))) == "wrong_items"
    assert play(two, 0, Travel(pay=(*GERMANY[:2], MAP2)))[1].visited_home[0]


# -- the hand limit ---------------------------------------------------------------------------


def test_more_than_seven_cards_discard_down_at_once() -> None:
    seven = [*GERMANY, CAM, SUN, BOOTS, "passport-1"]
    state = table(hands=[seven, [GUIDE]])
    events, over = play(state, 0, Draw(), Picks(CAM2))
    assert events[-1] == DiscardRequired(counts=((0, 1),))
    assert over.pending == DiscardDown(counts=((0, 1),)) and REAL.to_act(over) == {0}
    listed = REAL.legal_actions(over, 0)
    # every card may go; the two cameras are one choice
    owed = DiscardQuestion(seat=0, count=1)
    assert listed == [
        Discard(cards=(c,), question=owed) for c in sorted(set(over.hands[0]) - {CAM2})
    ]
    assert play(over, 0, Discard(cards=("passport-1",)))[1].pending is None
    assert refused(over, 0, Discard(cards=(CAM, SUN))) == "wrong_discard_count"
    assert refused(over, 0, Draw()) == "answer_first"
    events, after = play(over, 0, Discard(cards=(SUN,)))
    assert events == [HandLimitMet(seat=0, cards=(SUN,)), TurnBegan(seat=1)]
    assert len(after.hands[0]) == 7 and after.discard == (SUN,)


def test_several_seats_over_the_limit_discard_in_any_order() -> None:
    state = table(
        3,
        hands=[
            [*GERMANY, CAM, SUN, BOOTS, "passport-1"],
            [UMB2, *JAPAN, SUN2, CAM2, item("guidebook", 2)],
        ],
    )
    offer = OfferTrade(to=1, give=(CAM,), want=("umbrella",))
    accepted = play(play(state, 0, offer)[1], 1, AcceptTrade())[1]
    over = play(play(accepted, 0, DrawBonus())[1], 1, DrawBonus())[1]
    assert over.pending == DiscardDown(counts=((0, 1), (1, 1)))
    assert REAL.to_act(over) == frozenset({0, 1})
    assert len(list(REAL.legal_actions(over, 1))) == 5  # any card: eight of five kinds
    events, half = play(over, 1, Discard(cards=(SUN2,)))
    assert events == [HandLimitMet(seat=1, cards=(SUN2,))] and REAL.to_act(half) == {0}
    events, after = play(half, 0, Discard(cards=(SUN,)))
    assert events[-1] == TurnBegan(seat=1) and [len(h) for h in after.hands] == [7, 7, 0]
