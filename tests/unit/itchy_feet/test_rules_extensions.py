"""The Itchy Feet extensions: events, special items, forbidden items, postcards, characters."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from msgspec.structs import replace

from games.itchy_feet.events import (
    ActionTaken,
    BonusAnswered,
    BonusOffered,
    CardDrawn,
    CardKept,
    CardPassed,
    CardsDiscarded,
    CardStolen,
    CentreChanged,
    DiscardRequired,
    DiscardShuffledIn,
    Event,
    EventResolved,
    EventRevealed,
    ForbiddenDisposed,
    GameWon,
    HomeChanged,
    PileReshuffled,
    PlannerChoice,
    Recycled,
    SkipScheduled,
    SpecialPlayed,
    TradeAccepted,
    TradeDeclined,
    TurnBegan,
    TurnSkipped,
)
from games.itchy_feet.flow import Tx
from games.itchy_feet.model import (
    AcceptTrade,
    BonusQuestion,
    DeclineTrade,
    Discard,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    KeepOne,
    KeepOneQuestion,
    OfferTrade,
    Options,
    PlaySpecial,
    Recycle,
    SkipBonus,
    State,
    Steal,
    Travel,
)
from games.testing import check_conservation
from tests.unit.itchy_feet.test_rules_setup import (
    ALL,
    CONTRABAND,
    ESPRESSO,
    GERMANY,
    INSURANCE,
    LUCKY,
    MAP,
    PLANS,
    POSTCARDS,
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
BOOTS, GUIDE, CUR = item("hiking-boots"), item("guidebook"), item("local-currency")
P1, P2, P3, P4, P5 = POSTCARDS


def draw_event(
    kind: str, hands: list[list[str]], *picks: str, **fields: Any
) -> tuple[list[Event], State]:
    """Seat 0 draws, and the card that comes is the event `kind`; returns (events, after)."""
    fields.setdefault("options", ALL)
    state = table(len(hands), hands=hands, **fields)
    events, after = play(state, 0, Draw(), Picks(event(kind), *picks))
    assert events[:2] == [
        ActionTaken(seat=0, action="draw"),
        EventRevealed(seat=0, card=event(kind)),  # played at once, face up
    ]
    assert EventResolved(seat=0, card=event(kind)) in events  # then discarded
    assert event(kind) in after.discard + after.draw_pile and event(kind) not in after.hands[0]
    return events, after


# -- events -----------------------------------------------------------------------------------


def test_civil_unrest_replaces_the_centre_then_the_drawer_draws_again() -> None:
    events, after = draw_event("civil-unrest", [[CAM], [SUN]], "brazil", BOOTS)
    assert events[2:5] == [
        CentreChanged(old="japan", new="brazil"),
        EventResolved(seat=0, card=event("civil-unrest")),
        CardDrawn(seat=0, reason="draw", card=BOOTS),  # the event is replaced by another draw
    ]
    assert after.centre == "brazil" and "japan" in after.country_pile
    assert "brazil" not in after.country_pile and after.hands[0] == (CAM, BOOTS)


def test_lost_luggage_makes_every_player_discard_a_random_card() -> None:
    events, after = draw_event("lost-luggage", [[CAM, SUN], [], [BOOTS, GUIDE]], SUN, GUIDE, CUR)
    assert of(CardsDiscarded, events) == [
        CardsDiscarded(seat=0, cards=(SUN,), reason="lost_luggage"),
        CardsDiscarded(seat=2, cards=(GUIDE,), reason="lost_luggage"),  # seat 1 has nothing
    ]
    assert after.hands[0] == (CAM, CUR) and after.hands[2] == (BOOTS,)


def test_duty_free_makes_everyone_draw_from_the_next_player_round_to_the_drawer() -> None:
    events, after = draw_event("duty-free", [[CAM], [SUN], [BOOTS]])
    assert [(d.seat, d.reason) for d in of(CardDrawn, events)] == [
        (1, "duty_free"),
        (2, "duty_free"),
        (0, "duty_free"),
        (0, "draw"),
    ]
    assert [len(h) for h in after.hands] == [3, 2, 2]


def test_pickpockets_pass_a_random_card_to_the_left() -> None:
    events, after = draw_event("pickpockets", [[CAM, SUN], [BOOTS], [GUIDE]], SUN, BOOTS, GUIDE)
    assert of(CardPassed, events) == [
        CardPassed(from_seat=0, to_seat=1, card=SUN),
        CardPassed(from_seat=1, to_seat=2, card=BOOTS),
        CardPassed(from_seat=2, to_seat=0, card=GUIDE),
    ]
    assert after.hands[1] == (SUN,) and after.hands[2] == (BOOTS,) and GUIDE in after.hands[0]


def test_an_air_traffic_strike_makes_the_next_player_skip_their_next_turn() -> None:
    events, after = draw_event("strike", [[CAM], [SUN], [BOOTS]])
    assert events[2] == SkipScheduled(seat=1)
    assert events[-2:] == [TurnSkipped(seat=1), TurnBegan(seat=2)]
    assert after.skips == (0, 0, 0) and after.current == 2


def test_a_currency_crash_cuts_every_hand_above_four_cards_to_four() -> None:
    six = [CAM, CAM2, SUN, SUN2, BOOTS, GUIDE]
    four = [item("umbrella", n) for n in range(1, 5)]
    five = [item("phrasebook", n) for n in range(1, 5)] + [CUR]
    events, after = draw_event("currency-crash", [[item("camera", 3)], six, four, five])
    crash = of(CardsDiscarded, events)
    assert [(c.seat, len(c.cards), c.reason) for c in crash] == [
        (1, 2, "currency_crash"),
        (3, 1, "currency_crash"),  # a hand of four keeps its four
    ]
    assert set(crash[0].cards) <= set(six) and set(crash[1].cards) <= set(five)
    assert [len(h) for h in after.hands] == [2, 4, 4, 4]  # the drawer's replacement card too


def test_an_event_kind_without_an_effect_is_a_content_error() -> None:
    with pytest.raises(ValueError, match=r"^no effect for event 'snorkel'$"):
        Tx(C, table(), Random(0)).play_event(0, "snorkel")


def test_a_customs_sweep_discards_every_forbidden_item() -> None:
    events, after = draw_event("customs-sweep", [[CAM, TRAP], [CONTRABAND, SUN]])
    assert of(CardsDiscarded, events) == [
        CardsDiscarded(seat=0, cards=(TRAP,), reason="customs_sweep"),
        CardsDiscarded(seat=1, cards=(CONTRABAND,), reason="customs_sweep"),
    ]
    assert after.hands[1] == (SUN,)


def test_tourist_season_shuffles_the_discard_into_the_draw_pile() -> None:
    events, after = draw_event("tourist-season", [[CAM], [SUN]], BOOTS, discard=[GUIDE, CUR])
    assert events[2:4] == [  # the event is on the table, not in the discard it shuffles in
        DiscardShuffledIn(count=2),
        EventResolved(seat=0, card=event("tourist-season")),
    ]
    assert {GUIDE, CUR} <= set(after.draw_pile) and after.discard == (event("tourist-season"),)


@pytest.mark.parametrize("kind", ["tourist-season", "lost-luggage"])
def test_an_event_that_was_the_last_card_resolves_once_then_is_discarded(kind: str) -> None:
    # the pile empties as the event is drawn: the reshuffle must not take it back in, or it
    # could be drawn and resolved a second time for the one draw
    state = table(
        hands=[[CAM, SUN], [BOOTS, CUR]], draw=[event(kind)], discard=[GUIDE], options=ALL
    )
    events, after = play(state, 0, Draw(), Picks(event(kind), event(kind), event(kind)))
    # the reshuffle, as the pile empties, takes in the discard without the event
    assert events[1:3] == [EventRevealed(seat=0, card=event(kind)), PileReshuffled(count=1)]
    assert len(of(EventRevealed, events)) == len(of(EventResolved, events)) == 1
    assert of(CardDrawn, events)[-1] == CardDrawn(seat=0, reason="draw", card=GUIDE)
    check_conservation(REAL, after, seed=0)


def test_an_event_drawn_while_another_resolves_waits_and_is_resolved_after() -> None:
    events, after = draw_event("duty-free", [[CAM], [SUN]], event("strike"), BOOTS)
    assert events[1:] == [
        EventRevealed(seat=0, card=event("duty-free")),
        EventRevealed(seat=1, card=event("strike")),  # seat 1's duty-free draw
        CardDrawn(seat=1, reason="duty_free", card=BOOTS),  # still gets a card
        CardDrawn(seat=0, reason="duty_free", card=events[4].card),  # type: ignore[attr-defined]
        EventResolved(seat=0, card=event("duty-free")),
        SkipScheduled(seat=1),  # then the strike, which seat 1 drew, is played
        EventResolved(seat=1, card=event("strike")),
        CardDrawn(seat=0, reason="draw", card=events[8].card),  # type: ignore[attr-defined]
        TurnSkipped(seat=1),
        TurnBegan(seat=0),
    ]
    assert after.discard == (event("duty-free"), event("strike")) and not after.revealed


@pytest.mark.parametrize("seed", range(12))
def test_a_chain_of_events_resolves_each_in_the_order_drawn_and_ends(seed: int) -> None:
    events_only = [c for c in REAL.all_cards() if C.type(c) == "event"]
    state = table(
        3,
        hands=[[CAM, SUN], [BOOTS], [GUIDE, CUR]],
        draw=[*events_only, item("umbrella", 2)],
        discard=[CAM2],
        options=ALL,
    )
    events, after = play(state, 0, Draw(), Random(seed))
    revealed = [e.card for e in of(EventRevealed, events)]
    assert revealed and [e.card for e in of(EventResolved, events)] == revealed
    assert not after.revealed and set(revealed) <= set(after.discard + after.draw_pile)
    check_conservation(REAL, after, seed)


def test_events_return_on_a_reshuffle_but_are_never_recycled() -> None:
    events, after = draw_event(
        "strike", [[CAM, SUN, BOOTS], [GUIDE]], CAM2, draw=[event("strike"), CAM2], discard=[SUN2]
    )
    assert events[4:6] == [CardDrawn(seat=0, reason="draw", card=CAM2), PileReshuffled(count=2)]
    assert after.draw_pile == (event("strike"), SUN2) and after.discard == ()


# -- special items (free moves on your turn) ---------------------------------------------------


def test_an_espresso_gives_one_more_action_this_turn() -> None:
    state = table(hands=[[ESPRESSO, CAM], [SUN]], options=ALL)
    events, after = play(state, 0, PlaySpecial(card=ESPRESSO))
    assert events == [SpecialPlayed(seat=0, card=ESPRESSO)]  # no action spent
    assert after.actions_left == 2 and after.discard == (ESPRESSO,)
    events, after = play(after, 0, Draw(), Picks(BOOTS))
    assert after.current == 0 and after.actions_left == 1 and not of(TurnBegan, events)
    assert play(after, 0, Draw(), Picks(GUIDE))[0][-1] == TurnBegan(seat=1)


def test_a_lucky_find_draws_two_cards() -> None:
    state = table(hands=[[LUCKY, CAM], [SUN]], options=ALL)
    events, after = play(state, 0, PlaySpecial(card=LUCKY), Picks(BOOTS, GUIDE))
    assert events == [
        SpecialPlayed(seat=0, card=LUCKY),
        CardDrawn(seat=0, reason="lucky_find", card=BOOTS),
        CardDrawn(seat=0, reason="lucky_find", card=GUIDE),
    ]
    assert after.hands[0] == (CAM, BOOTS, GUIDE) and after.actions_left == 1


def test_travel_in_the_turn_the_last_item_arrives_by_lucky_find_or_espresso() -> None:
    # our ruling: "on your next turn you can travel" says travelling takes an action, not
    # that an item must wait a turn: held now, it pays for a journey now
    umbrella, *rest = GERMANY
    state = table(hands=[[LUCKY, *rest, "passport-1"], [SUN]], options=ALL)
    _, found = play(state, 0, PlaySpecial(card=LUCKY), Picks(umbrella, BOOTS))
    assert found.current == 0 and found.actions_left == 1
    assert play(found, 0, Travel(pay=GERMANY))[1].visited_home == (True, False)
    state = table(hands=[[ESPRESSO, *rest, "passport-1"], [SUN]], options=ALL)
    _, twice = play(state, 0, PlaySpecial(card=ESPRESSO))
    _, drawn = play(twice, 0, Draw(), Picks(umbrella))
    assert drawn.current == 0 and drawn.actions_left == 1  # the espresso's second action
    assert play(drawn, 0, Travel(pay=GERMANY))[1].visited_home == (True, False)


def test_a_discard_down_mid_turn_lets_the_turn_go_on() -> None:
    state = table(hands=[[LUCKY, *GERMANY, CAM, SUN, CUR], [BOOTS]], options=ALL)
    events, over = play(state, 0, PlaySpecial(card=LUCKY))
    assert events[-1] == DiscardRequired(counts=((0, 1),)) and len(over.hands[0]) == 8
    events, after = play(over, 0, Discard(cards=(CUR,)))
    assert not of(TurnBegan, events) and after.current == 0 and after.actions_left == 1


def test_a_change_of_plans_swaps_a_home_not_yet_visited() -> None:
    state = table(hands=[[PLANS, CAM], [SUN]], options=ALL)
    assert PlaySpecial(card=PLANS) in REAL.legal_actions(state, 0)
    events, after = play(state, 0, PlaySpecial(card=PLANS), Picks("nepal"))
    assert events == [
        SpecialPlayed(seat=0, card=PLANS),
        HomeChanged(seat=0, old="germany", new="nepal"),
    ]
    assert after.homes == ("nepal", "france") and "germany" in after.country_pile


def test_a_change_of_plans_is_discarded_even_once_home_is_visited() -> None:
    # as printed: "discard this; if you have not visited home yet, swap your home country"
    state = table(hands=[[PLANS, CAM], [SUN]], options=ALL, visited_home=(True, False))
    assert PlaySpecial(card=PLANS) in REAL.legal_actions(state, 0)
    events, after = play(state, 0, PlaySpecial(card=PLANS))
    assert events == [SpecialPlayed(seat=0, card=PLANS)] and after.homes == state.homes
    assert after.discard == (PLANS,) and after.actions_left == 1  # a free move, no swap
    no_pile = table(hands=[[PLANS, CAM], [SUN]], options=ALL, country_pile=())
    assert play(no_pile, 0, PlaySpecial(card=PLANS))[1].homes == no_pile.homes


def test_maps_insurance_and_other_cards_are_not_played_on_their_own() -> None:
    state = table(hands=[[MAP, INSURANCE, CAM, ESPRESSO], [SUN, LUCKY]], options=ALL)
    for card in (MAP, INSURANCE, CAM):
        assert refused(state, 0, PlaySpecial(card=card)) == "not_playable_now"
    assert refused(state, 0, PlaySpecial(card=LUCKY)) == "card_not_in_hand"
    assert refused(state, 1, PlaySpecial(card=LUCKY)) == "not_your_turn"  # on your turn only
    played = {a.card for a in REAL.legal_actions(state, 0) if isinstance(a, PlaySpecial)}
    assert played == {ESPRESSO}


# -- forbidden items --------------------------------------------------------------------------


def test_a_forbidden_item_is_got_rid_of_with_one_other_card_as_a_free_move() -> None:
    state = table(hands=[[*GERMANY, TRAP, CAM, "passport-1"], [SUN]], options=ALL)
    assert DisposeForbidden(card=TRAP, with_card=CAM) in REAL.legal_actions(state, 0)
    assert refused(state, 0, DisposeForbidden(card=CAM, with_card=TRAP)) == "not_forbidden"
    assert refused(state, 0, DisposeForbidden(card=TRAP, with_card=TRAP)) == "card_named_twice"
    assert refused(state, 0, DisposeForbidden(card=TRAP, with_card=SUN)) == "card_not_in_hand"
    two = table(hands=[[*GERMANY, TRAP, CONTRABAND], [SUN]], options=ALL, rules=2)
    # rules 1-2: another forbidden item was not "one additional card"
    assert refused(two, 0, DisposeForbidden(card=TRAP, with_card=CONTRABAND)) == (
        "forbidden_cannot_pay"
    )
    disposals = [a for a in REAL.legal_actions(two, 0) if isinstance(a, DisposeForbidden)]
    assert {(a.card, a.with_card) for a in disposals} == {
        (bad, other) for bad in (TRAP, CONTRABAND) for other in GERMANY
    }  # each forbidden item with each card that is not one
    events, clean = play(state, 0, DisposeForbidden(card=TRAP, with_card=CAM))
    assert events == [ForbiddenDisposed(seat=0, card=TRAP, with_card=CAM)]
    assert clean.actions_left == 1 and clean.discard == (TRAP, CAM)
    assert play(clean, 0, Travel(pay=GERMANY))[1].visited_home == (True, False)  # now you can


def test_rules_3_a_forbidden_item_goes_with_any_additional_card_another_forbidden_too() -> None:
    # "Get rid of it by discarding it along with one additional card from your hand": the
    # rulebook bans forbidden items only as payment for a steal or a recycle
    two = table(hands=[[*GERMANY, TRAP, CONTRABAND], [SUN]], options=ALL)
    assert two.rules >= 3
    disposals = [a for a in REAL.legal_actions(two, 0) if isinstance(a, DisposeForbidden)]
    assert sorted((a.card, a.with_card) for a in disposals) == sorted(
        [(bad, other) for bad in (TRAP, CONTRABAND) for other in GERMANY]
        + [(CONTRABAND, TRAP) if CONTRABAND < TRAP else (TRAP, CONTRABAND)]
    )  # the pair of forbidden items listed once
    three = table(hands=[[*GERMANY, TRAP, CONTRABAND], [SUN]], options=ALL, rules=3)
    listed3 = {a for a in REAL.legal_actions(three, 0) if isinstance(a, DisposeForbidden)}
    assert listed3 == set(disposals)  # from rules 3 on, not only from the newest
    at3 = play(three, 0, DisposeForbidden(card=TRAP, with_card=CONTRABAND))[1]
    assert at3.hands[0] == tuple(GERMANY)  # and made, not only listed
    events, clean = play(two, 0, DisposeForbidden(card=TRAP, with_card=CONTRABAND))
    assert events == [ForbiddenDisposed(seat=0, card=TRAP, with_card=CONTRABAND)]
    assert clean.hands[0] == tuple(GERMANY) and clean.actions_left == 1
    trap2 = "forbidden-mouse-trap-2"  # two copies of one kind
    traps = table(hands=[[CAM, TRAP, trap2], [SUN]], options=ALL)
    listed = [a for a in REAL.legal_actions(traps, 0) if isinstance(a, DisposeForbidden)]
    assert sorted((a.card, a.with_card) for a in listed) == [(TRAP, trap2), (TRAP, CAM)]
    assert play(traps, 0, DisposeForbidden(card=TRAP, with_card=trap2))[1].hands[0] == (CAM,)
    # still no forbidden item pays for a steal or a recycle
    assert refused(two, 0, Steal(victim=1, discard=TRAP)) == "forbidden_cannot_pay"


def test_a_forbidden_item_can_be_stolen_and_traded() -> None:
    state = table(hands=[[CAM, SUN], [TRAP]], options=Options(forbidden_items=True))
    events = play(state, 0, Steal(victim=1, discard=CAM))[0]
    assert of(CardStolen, events) == [CardStolen(thief=0, victim=1, card=TRAP)]
    offer = OfferTrade(to=1, give=(TRAP,), want=("camera",))
    state = table(hands=[[TRAP, SUN], [CAM]], options=Options(forbidden_items=True))
    assert play(play(state, 0, offer)[1], 1, AcceptTrade())[1].hands[1][0] == TRAP


def test_a_forbidden_item_may_go_to_meet_the_hand_limit() -> None:
    state = table(hands=[[*GERMANY, TRAP, CAM, SUN, CUR], [BOOTS]], options=ALL)
    over = play(state, 0, Draw(), Picks(GUIDE))[1]
    assert play(over, 0, Discard(cards=(TRAP,)))[1].discard == (TRAP,)  # not a payment


# -- postcards --------------------------------------------------------------------------------


def test_four_postcards_win_at_once() -> None:
    state = table(hands=[[P1, P2, P3], [CAM]], options=ALL)
    events, after = play(state, 0, Draw(), Picks(P4))
    assert events[-2:] == [
        CardDrawn(seat=0, reason="draw", card=P4),
        GameWon(seat=0, reason="postcards"),
    ]
    assert after.winner == 0 and after.end == "postcards" and REAL.to_act(after) == frozenset()


def test_four_postcards_win_even_off_turn_by_a_trade_or_a_pickpocket() -> None:
    state = table(3, hands=[[P4, CAM], [P1, P2, P3, SUN], [BOOTS]], options=ALL)
    _, offered = play(state, 0, OfferTrade(to=1, give=(P4,), want=("sunscreen",)))
    events, after = play(offered, 1, AcceptTrade())
    assert events[-1] == GameWon(seat=1, reason="postcards") and after.winner == 1
    state = table(3, hands=[[P4, CAM], [P1, P2, P3, SUN], [BOOTS]], options=ALL)
    events, after = play(state, 0, Draw(), Picks(event("pickpockets"), P4, SUN))
    assert events[-1] == GameWon(seat=1, reason="postcards")
    assert after.revealed == (event("pickpockets"),)  # won mid-event: the card stays out
    check_conservation(REAL, after, seed=0)
    steal = table(hands=[[P1, P2, P3, CAM], [P4]], options=Options(postcards=True))
    assert play(steal, 0, Steal(victim=1, discard=CAM))[0][-1] == GameWon(
        seat=0, reason="postcards"
    )


def test_the_fourth_postcard_wins_before_anything_else_happens() -> None:
    state = table(
        hands=[[P1, P2, P3, CAM], [P4, BOOTS]],
        draw=[event("lost-luggage"), SUN2],
        options=Options(events=True, postcards=True),
    )
    _, offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("postcard",)))
    events, after = play(
        offered, 1, AcceptTrade(), Picks(event("lost-luggage"), P1, CAM, SUN2, CAM)
    )
    assert events[0] == TradeAccepted(asker=0, responder=1, given=(CAM,), received=(P4,))
    # seat 0 now holds four postcards: "they instantly win the game"
    assert after.winner == 0 and after.end == "postcards"
    assert events[1] == GameWon(seat=0, reason="postcards")


def test_the_planners_draw_leaves_every_other_seats_postcards_counted() -> None:
    # Pickpockets, between the Planner's two draws, hands seat 1 its fourth postcard: it
    # wins at once, before Lost Luggage (drawn next) could take one away
    state = table(
        hands=[[P4, CAM], [P1, P2, P3, SUN]],
        draw=[BOOTS, event("pickpockets"), event("lost-luggage"), GUIDE],
        options=ALL,
        characters=["planner", None],
    )
    script = Picks(BOOTS, event("pickpockets"), P4, SUN, event("lost-luggage"), CAM, P1)
    events, after = play(state, 0, Draw(), script)
    assert events[-3:] == [
        CardPassed(from_seat=0, to_seat=1, card=P4),
        CardPassed(from_seat=1, to_seat=0, card=SUN),  # the exchange ends first (rules 3)
        GameWon(seat=1, reason="postcards"),
    ]
    assert after.winner == 1 and not of(CardsDiscarded, events)


def test_the_planners_first_card_counts_for_whoever_it_is_passed_to() -> None:
    state = table(
        hands=[[CAM], [P1, P2, P3, SUN]],
        draw=[P4, event("pickpockets"), BOOTS],
        options=ALL,
        characters=["planner", None],
    )
    events = play(state, 0, Draw(), Picks(P4, event("pickpockets"), P4, SUN))[0]
    assert events[-3:] == [
        CardPassed(from_seat=0, to_seat=1, card=P4),  # undecided for the Planner, not for 1
        CardPassed(from_seat=1, to_seat=0, card=SUN),
        GameWon(seat=1, reason="postcards"),
    ]


def test_the_planners_own_first_card_does_not_count_until_kept() -> None:
    # four postcards in the Planner's hand, one of them drawn and undecided: no win while an
    # event resolves between the draws, and none if the postcard is let go
    state = table(
        hands=[[P1, P2, P3, CAM], [SUN]],
        draw=[P4, event("lost-luggage"), BOOTS],
        options=ALL,
        characters=["planner", None],
    )
    events, choosing = play(state, 0, Draw(), Picks(P4, event("lost-luggage"), CAM, SUN, BOOTS))
    assert not of(GameWon, events) and choosing.pending == KeepOne(seat=0, cards=(P4, BOOTS))
    assert play(choosing, 0, KeepCard(card=BOOTS))[1].end is None
    assert play(choosing, 0, KeepCard(card=P4))[0][-1] == GameWon(seat=0, reason="postcards")


def test_the_planner_does_not_hold_both_drawn_cards_before_choosing() -> None:
    state = table(hands=[[P1, P2, CAM], [SUN]], options=ALL, characters=["planner", None])
    events, choosing = play(state, 0, Draw(), Picks(P3, P4))
    assert not of(GameWon, events) and choosing.pending == KeepOne(seat=0, cards=(P3, P4))
    assert play(choosing, 0, KeepCard(card=P4))[1].end is None  # three postcards kept


# -- characters -------------------------------------------------------------------------------


def test_the_planner_draws_two_and_keeps_one() -> None:  # every rules version
    state = table(hands=[[CAM], [SUN]], characters=["planner", None])
    events, choosing = play(state, 0, Draw(), Picks(BOOTS, GUIDE))
    assert [(d.reason, d.card) for d in of(CardDrawn, events)] == [
        ("planner", BOOTS),
        ("planner", GUIDE),
    ]
    assert events[-1] == PlannerChoice(seat=0, cards=(BOOTS, GUIDE))
    assert choosing.pending == KeepOne(seat=0, cards=(BOOTS, GUIDE))
    asked = KeepOneQuestion(seat=0, cards=(BOOTS, GUIDE))
    assert set(REAL.legal_actions(choosing, 0)) == {
        KeepCard(card=BOOTS, question=asked),
        KeepCard(card=GUIDE, question=asked),
    }
    assert refused(choosing, 0, KeepCard(card=CAM)) == "not_drawn"
    events, after = play(choosing, 0, KeepCard(card=GUIDE))
    assert events == [CardKept(seat=0, kept=GUIDE, discarded=BOOTS), TurnBegan(seat=1)]
    assert after.hands[0] == (CAM, GUIDE) and after.discard == (BOOTS,)
    last = table(hands=[[CAM], [SUN]], characters=["planner", None], draw=[BOOTS])
    events, after = play(last, 0, Draw())  # one card left to draw: kept without a choice
    assert not of(PlannerChoice, events) and after.hands[0] == (CAM, BOOTS)


def test_the_planner_has_no_choice_when_the_first_card_is_lost_between_the_draws() -> None:
    state = table(
        hands=[[SUN], [GUIDE]],
        characters=["planner", None],
        draw=[CAM, event("lost-luggage"), BOOTS],
        options=Options(events=True),
    )
    events, after = play(state, 0, Draw(), Picks(CAM, event("lost-luggage"), CAM, GUIDE, BOOTS))
    assert [d.card for d in of(CardDrawn, events) if d.reason == "planner"] == [CAM, BOOTS]
    assert not of(PlannerChoice, events) and after.hands[0] == (SUN, BOOTS)


def test_the_planner_has_no_choice_when_the_same_card_comes_back() -> None:
    # the first card is lost to Lost Luggage, Tourist Season shuffles it back, it is drawn again
    state = table(
        hands=[[SUN], [GUIDE]],
        characters=["planner", None],
        draw=[CAM, event("lost-luggage"), event("tourist-season")],
        discard=[BOOTS],
        options=Options(events=True),
    )
    script = Picks(CAM, event("lost-luggage"), CAM, GUIDE, event("tourist-season"), CAM)
    events, after = play(state, 0, Draw(), script)
    drawn = [d.card for d in of(CardDrawn, events) if d.reason == "planner"]
    assert drawn == [CAM, CAM] and not of(PlannerChoice, events)
    assert after.pending is None and CAM in after.hands[0]
    check_conservation(REAL, after, seed=0)


def test_the_backpacker_recycles_for_one_card() -> None:  # rules 1-2 (rules 3: test_characters)
    state = table(
        hands=[[CAM, SUN], [BOOTS]],
        discard=[GUIDE, item("umbrella"), SUN2],  # any card, the oldest too
        characters=["backpacker", None],
        rules=2,
    )
    assert refused(state, 0, Recycle(discard=(CAM, SUN), take=GUIDE)) == "wrong_cost"
    events = play(state, 0, Recycle(discard=(CAM,), take=GUIDE))[0]
    assert events[1] == Recycled(seat=0, discarded=(CAM,), taken=GUIDE)


def test_the_pickpocket_steals_without_discarding() -> None:  # rules 1-2 (rules 3: test_characters)
    state = table(hands=[[CAM], [BOOTS]], characters=["pickpocket", None], rules=2)
    assert Steal(victim=1) in REAL.legal_actions(state, 0)
    assert refused(state, 0, Steal(victim=1, discard=CAM)) == "wrong_cost"
    events, after = play(state, 0, Steal(victim=1))
    assert of(CardStolen, events) == [CardStolen(thief=0, victim=1, card=BOOTS)]
    assert after.hands[0] == (CAM, BOOTS) and after.discard == ()


def test_the_hoarder_holds_eight_cards() -> None:  # every rules version
    seven = [*GERMANY, CAM, SUN, BOOTS, GUIDE]
    state = table(hands=[seven, [CUR]], characters=["hoarder", None])
    events, after = play(state, 0, Draw())
    assert not of(DiscardRequired, events) and len(after.hands[0]) == 8
    eight = table(hands=[[*seven, CAM2], [CUR]], characters=["hoarder", None])
    assert play(eight, 0, Draw())[0][-1] == DiscardRequired(counts=((0, 1),))


def test_the_haggler_draws_a_bonus_card_when_declined_instead_of_a_new_action() -> None:
    # "If the trade is declined, perform a new action instead": the bonus card, which the
    # Haggler still gets, takes the new action's place (our ruling: not both). Rules 1-2
    # (rules 3: test_characters.py)
    state = table(hands=[[CAM], [SUN]], characters=["haggler", None], rules=2)
    offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("sunscreen",)))[1]
    events, declined = play(offered, 1, DeclineTrade())
    assert events == [
        TradeDeclined(asker=0, responder=1),
        BonusOffered(seats=(0,), declined=True),
    ]
    bonus = BonusQuestion(seat=0, declined=True)
    assert REAL.legal_actions(declined, 0) == [DrawBonus(question=bonus), SkipBonus(question=bonus)]
    events, after = play(declined, 0, DrawBonus(), Picks(BOOTS))
    assert events == [
        BonusAnswered(seat=0, draw=True),
        ActionTaken(seat=0, action="bonus"),
        CardDrawn(seat=0, reason="haggler", card=BOOTS),
        TurnBegan(seat=1),
    ]
    assert after.hands[0] == (CAM, BOOTS)
    events, after = play(declined, 0, SkipBonus())  # or no card, and the new action
    assert events == [BonusAnswered(seat=0, draw=False)]
    assert after.current == 0 and after.actions_left == 1 and after.hands == state.hands


def test_only_the_haggler_is_offered_a_card_for_a_declined_trade() -> None:
    state = table(hands=[[CAM], [SUN]])
    offered = play(state, 0, OfferTrade(to=1, give=(CAM,), want=("sunscreen",)))[1]
    assert play(offered, 1, DeclineTrade())[0] == [TradeDeclined(asker=0, responder=1)]
    haggler = table(hands=[[CAM], [SUN]], characters=["haggler", None], draw=[], rules=2)
    offered = play(haggler, 0, OfferTrade(to=1, give=(CAM,), want=("sunscreen",)))[1]
    assert play(offered, 1, DeclineTrade())[1].pending is None  # nothing to draw


def test_the_globetrotter_draws_a_card_after_travelling_home() -> None:  # rules 1-2
    state = table(
        hands=[[*GERMANY, "passport-1"], [SUN]], characters=["globetrotter", None], rules=2
    )
    events = play(state, 0, Travel(pay=GERMANY), Picks(BOOTS))[0]
    assert of(CardDrawn, events) == [CardDrawn(seat=0, reason="globetrotter", card=BOOTS)]
    plain = replace(state, characters=(None, None))
    assert not of(CardDrawn, play(plain, 0, Travel(pay=GERMANY))[0])


def test_pickpockets_pass_every_card_at_once_before_four_postcards_count() -> None:
    # seat 1 is handed a fourth postcard while passing one of its own on: under rules 3 the
    # exchange is one moment ("every player passes one random card"), so nobody holds four
    hands = [[P4, CAM], [P1, P2, P3], [BOOTS]]
    events, after = draw_event("pickpockets", hands, P4, P1, BOOTS)
    assert of(CardPassed, events) == [
        CardPassed(from_seat=0, to_seat=1, card=P4),
        CardPassed(from_seat=1, to_seat=2, card=P1),
        CardPassed(from_seat=2, to_seat=0, card=BOOTS),
    ]
    assert not of(GameWon, events) and after.end is None and after.winner is None
    assert sorted(after.hands[1]) == [P2, P3, P4]
    # rules 3 (where the exchange became one moment) the same
    three = table(3, hands=hands, options=ALL, rules=3)
    events, after = play(three, 0, Draw(), Picks(event("pickpockets"), P4, P1, BOOTS))
    assert len(of(CardPassed, events)) == 3 and not of(GameWon, events) and after.end is None
    # rules 2 (games begun before): one pass at a time, and the fourth won at once
    old = table(3, hands=hands, options=ALL, rules=2)
    events, after = play(old, 0, Draw(), Picks(event("pickpockets"), P4, P1, BOOTS))
    assert events[-2:] == [
        CardPassed(from_seat=0, to_seat=1, card=P4),
        GameWon(seat=1, reason="postcards"),
    ]
    # a fourth postcard kept through the exchange still wins, once every card has passed
    kept = table(3, hands=[[P4, CAM], [P1, P2, P3, SUN], [BOOTS]], options=ALL)
    events, after = play(kept, 0, Draw(), Picks(event("pickpockets"), P4, SUN, BOOTS))
    assert [type(e).__name__ for e in events[-4:]] == ["CardPassed"] * 3 + ["GameWon"]
    assert events[-1] == GameWon(seat=1, reason="postcards") and after.winner == 1
