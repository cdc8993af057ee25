"""Questions (games/questions.py, RULES.md "Questions"): what a seat must answer is in its
own view, whole; the table sees what it may; every listed answer names its question, one that
names another is refused; an answer the rules refuse now is listed as unavailable, with why.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from games.api import IllegalAction, Unavailable
from games.itchy_feet.model import (
    AcceptTrade,
    AllowSteal,
    BonusOffer,
    BonusQuestion,
    CancelSteal,
    CharacterQuestion,
    DeclineTrade,
    Discard,
    DiscardDown,
    DiscardQuestion,
    Draw,
    DrawBonus,
    KeepCard,
    KeepOneQuestion,
    OfferTrade,
    Options,
    SkipBonus,
    State,
    Steal,
    StealQuestion,
    TradeQuestion,
)
from games.itchy_feet.rules import CHARACTERS
from games.testing import card_ids_in, check_questions
from tests.unit.itchy_feet.test_generic import options
from tests.unit.itchy_feet.test_generic import play as greedy_game
from tests.unit.itchy_feet.test_rules_actions import BOOTS, CAM, CAM2, GUIDE, SUN, SUN2, UMB2
from tests.unit.itchy_feet.test_rules_setup import (
    ALL,
    GERMANY,
    INSURANCE,
    JAPAN,
    REAL,
    Picks,
    item,
    play,
    refused,
    set_up,
    table,
)

CARDS = REAL.all_cards()
# the answers to each kind of question: each is listed, or unavailable with a reason
ANSWERS = {
    "trade": {"accept_trade", "decline_trade"},
    "bonus": {"draw_bonus", "skip_bonus"},
    "steal": {"allow_steal", "cancel_steal"},
    "discard_down": {"discard"},
    "keep_one": {"keep_card"},
    "character": {"choose_character"},
}


def questions(state: State, seat: int | None) -> Any:
    """The seat's questions as a client reads them (JSON)."""
    private = REAL.view(state, seat).private
    return None if private is None else wire(private["questions"])


def wire(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def offered(to: int = 1, want: tuple[str, ...] = ("umbrella",)) -> State:
    state = table(3, hands=[[*GERMANY, CAM, SUN], [UMB2, BOOTS, GUIDE], [SUN2]])
    return play(state, 0, OfferTrade(to=to, give=(CAM,), want=want))[1]


# -- in the view of the seat asked, and only what the table sees for the others ---------------


def test_the_responder_sees_the_offer_with_its_cards_and_who_made_it() -> None:
    state = offered()
    # the cards offered by their kind: copies are identical (RULES.md, "Identical cards")
    question = TradeQuestion(seat=1, asker=0, give=("camera",), want=("umbrella",))
    assert questions(state, 1) == [
        {"kind": "trade", "seat": 1, "asker": 0, "give": ["camera"], "want": ["umbrella"]}
    ]
    assert questions(state, 0) == questions(state, 2) == [] and questions(state, None) is None
    # the offer is public (asked aloud): the others see it as the table does
    pending = {
        "kind": "trade",
        "asker": 0,
        "responder": 1,
        "give": ["camera"],
        "want": ["umbrella"],
    }
    assert all(wire(REAL.view(state, s).public["pending"]) == pending for s in (None, 0, 1, 2))
    assert REAL.legal_actions(state, 1) == [
        AcceptTrade(question=question),
        DeclineTrade(question=question),
    ]
    assert wire(REAL.legal_actions(state, 1)[0]) == {
        "type": "accept_trade",
        "cards": None,
        "question": questions(state, 1)[0],
    }


def test_a_discard_down_asks_each_seat_its_own_count_and_the_table_sees_them_all() -> None:
    nine = [*GERMANY, CAM, SUN, BOOTS, "passport-1", item("umbrella", 3), item("camera", 3)]
    ten = [UMB2, *JAPAN, SUN2, CAM2, "passport-2", "passport-3", item("sunscreen", 3)]
    ten.append(item("hiking-boots", 2))
    state = replace(table(3, hands=[nine, ten]), pending=DiscardDown(counts=((0, 2), (1, 3))))
    assert questions(state, 0) == [{"kind": "discard_down", "seat": 0, "count": 2}]
    assert questions(state, 1) == [{"kind": "discard_down", "seat": 1, "count": 3}]
    assert questions(state, 2) == []
    assert wire(REAL.view(state, 2).public["pending"]) == {
        "kind": "discard_down",
        "counts": [[0, 2], [1, 3]],
    }
    mine = REAL.legal_actions(state, 1)
    assert mine and all(a == replace(a, question=DiscardQuestion(seat=1, count=3)) for a in mine)
    # another seat's answer leaves this seat's question, and so its answers, as they were
    after = play(state, 0, Discard(cards=(CAM, SUN)))[1]
    assert questions(after, 1) == questions(state, 1) and REAL.legal_actions(after, 1) == mine
    assert wire(REAL.view(after, 2).public["pending"]) == {
        "kind": "discard_down",
        "counts": [[1, 3]],
    }


def test_the_planners_two_cards_are_in_its_question_and_nobody_else_s_view() -> None:
    state = table(hands=[[CAM], [SUN]], characters=["planner", None])
    choosing = play(state, 0, Draw(), Picks(BOOTS, GUIDE))[1]
    question = KeepOneQuestion(seat=0, cards=(BOOTS, GUIDE))
    assert questions(choosing, 0) == [wire(question)]
    assert REAL.legal_actions(choosing, 0) == [
        KeepCard(card=GUIDE, question=question),
        KeepCard(card=BOOTS, question=question),
    ]
    for seat in (None, 1):
        view = REAL.view(choosing, seat)
        assert view.public["pending"] == {"kind": "keep_one", "seat": 0}  # who, not what
        assert not card_ids_in(view, CARDS) & {BOOTS, GUIDE}


@pytest.mark.parametrize(
    ("position", "seat", "question"),
    [
        (
            lambda: replace(table(hands=[[CAM], [SUN]]), pending=BonusOffer(seats=(1, 0))),
            1,
            BonusQuestion(seat=1, declined=False),
        ),
        (
            lambda: replace(
                table(hands=[[CAM], [SUN]], characters=["haggler", None]),
                pending=BonusOffer(seats=(0,), declined=True),
            ),
            0,
            BonusQuestion(seat=0, declined=True),
        ),
        (
            lambda: play(
                table(hands=[[*GERMANY, CAM], [BOOTS, INSURANCE]], options=ALL),
                0,
                Steal(victim=1, discard=CAM),
            )[1],
            1,
            StealQuestion(seat=1, thief=0),
        ),
        (
            lambda: set_up(3, seed=4, options=Options(characters="choose"))[1],
            None,
            None,
        ),
    ],
    ids=["bonus", "haggler's bonus", "steal", "character"],
)
def test_every_kind_of_question_is_in_its_seat_s_view_and_named_by_every_answer(
    position: Any, seat: int | None, question: Any
) -> None:
    state = position()
    if seat is None:  # the character choice: the first seat, offered every character
        [seat] = REAL.to_act(state)
        question = CharacterQuestion(seat=seat, options=CHARACTERS)
    assert questions(state, seat) == [wire(question)]
    assert all(questions(state, s) == [] for s in range(state.seats) if s != seat)
    listed = REAL.legal_actions(state, seat)
    assert listed and all(a.question == question for a in listed)  # type: ignore[attr-defined]
    check_questions(REAL, state, seat, list(listed))


# -- a named question must be the one asked ---------------------------------------------------


def test_an_answer_naming_another_question_is_refused_and_one_naming_none_is_not() -> None:
    state = offered()
    asked = TradeQuestion(seat=1, asker=0, give=("camera",), want=("umbrella",))
    # an offer that is not the one open (another card offered), or one to another seat
    assert refused(state, 1, AcceptTrade(question=replace(asked, give=(SUN,)))) == "stale_question"
    assert refused(state, 1, AcceptTrade(question=replace(asked, give=("sunscreen",)))) == (
        "stale_question"
    )
    assert refused(state, 1, DeclineTrade(question=replace(asked, seat=2))) == "stale_question"
    assert refused(state, 1, AcceptTrade(question=replace(asked, asker=2))) == "stale_question"
    # an answer that names no question answers the open one (clients before questions)
    assert play(state, 1, AcceptTrade())[0] == play(state, 1, AcceptTrade(question=asked))[0]
    # and one naming it as it was shown before the cards offered were shown by kind (by the
    # very cards: a client that read it then) answers it too
    by_id = replace(asked, give=(CAM,))
    assert play(state, 1, AcceptTrade(question=by_id))[0] == play(state, 1, AcceptTrade())[0]


def test_naming_the_offered_cards_by_id_tells_no_copy_from_another() -> None:
    """The responder sees the offer by kind. An answer naming the offered cards by id names
    the same question whichever copy it names: a refusal (here of a card the responder does
    not hold) is the same for the copy offered and for another, so no copy is told apart by
    probing; a card of another kind is another question."""
    state = offered()
    asked = TradeQuestion(seat=1, asker=0, give=("camera",), want=("umbrella",))
    for copy in (CAM, CAM2):  # CAM is the copy offered
        named = replace(asked, give=(copy,))
        assert play(state, 1, AcceptTrade(question=named))[0] == play(state, 1, AcceptTrade())[0]
        wrong = AcceptTrade(cards=(SUN2,), question=named)
        assert refused(state, 1, wrong) == refused(state, 1, replace(wrong, question=asked))
        assert refused(state, 1, wrong) != "stale_question"
    assert refused(state, 1, AcceptTrade(question=replace(asked, give=(SUN,)))) == (
        "stale_question"
    )
    # the question of another seat, or of no trade, is not made the open one by its kinds
    assert refused(state, 1, AcceptTrade(question=replace(asked, give=(CAM2,), seat=2))) == (
        "stale_question"
    )


def test_an_answer_to_a_question_already_answered_is_stale() -> None:
    state = table(hands=[[CAM], [SUN]], characters=["planner", None])
    first = play(state, 0, Draw(), Picks(BOOTS, GUIDE))[1]
    keep = REAL.legal_actions(first, 0)[0]
    after = play(first, 0, keep)[1]
    after = play(after, 1, Draw(), Picks(CAM2))[1]
    again = play(after, 0, Draw(), Picks(SUN2, item("umbrella", 3)))[1]
    # the Planner draws again: the answer to the first choice names a question now gone
    assert refused(again, 0, keep) == "stale_question"
    with pytest.raises(IllegalAction, match=r'^this answers \{"kind":"keep_one","seat":0,"cards":'):
        REAL.decide(again, 0, keep, Random(0))
    # a question of another kind (a bonus answered with a trade's question) is stale too
    bonus = replace(table(hands=[[CAM], [SUN]]), pending=BonusOffer(seats=(0,)))
    trade = TradeQuestion(seat=0, asker=1, give=(SUN,), want=("camera",))
    assert refused(bonus, 0, DrawBonus(question=trade)) == "stale_question"  # type: ignore[arg-type]


# -- an answer the rules refuse now is listed as unavailable, with why ------------------------


def test_a_responder_without_the_cards_asked_is_told_why_it_cannot_accept() -> None:
    state = offered(to=2)
    question = TradeQuestion(seat=2, asker=0, give=("camera",), want=("umbrella",))
    assert REAL.legal_actions(state, 2) == [DeclineTrade(question=question)]  # alone
    why = Unavailable(
        type="accept_trade",
        code="cannot_fulfil_trade",
        message="you do not hold 1 x umbrella: decline",
    )
    assert REAL.unavailable(state, 2) == [why]
    # what posting it would get, word for word
    with pytest.raises(IllegalAction) as err:
        REAL.decide(state, 2, AcceptTrade(question=question), Random(0))
    assert (err.value.code, err.value.message) == (why.code, why.message)
    # the asker and the others are asked nothing: nothing is unavailable to them
    assert REAL.unavailable(state, 0) == REAL.unavailable(state, 1) == []
    # a responder who holds the cards may accept: nothing is unavailable
    assert REAL.unavailable(offered(to=1), 1) == []
    # two of a kind asked, one held: says how many
    two = offered(to=1, want=("umbrella", "umbrella"))
    assert REAL.unavailable(two, 1)[0].message == "you do not hold 2 x umbrella: decline"


def test_a_bonus_with_nothing_left_to_draw_and_a_steal_without_insurance_say_why() -> None:
    nothing = replace(table(hands=[[CAM, SUN], [UMB2]], draw=[]), pending=BonusOffer(seats=(0,)))
    assert REAL.legal_actions(nothing, 0) == [
        SkipBonus(question=BonusQuestion(seat=0, declined=False))
    ]
    assert REAL.unavailable(nothing, 0) == [
        Unavailable(
            type="draw_bonus",
            code="nothing_to_draw",
            message="no card is left to draw: skip the bonus",
        )
    ]
    assert refused(nothing, 0, DrawBonus()) == "nothing_to_draw"
    uninsured = play(
        table(hands=[[*GERMANY, CAM], [BOOTS, GUIDE]], options=ALL), 0, Steal(victim=1, discard=CAM)
    )[1]
    assert REAL.legal_actions(uninsured, 1) == [AllowSteal(question=StealQuestion(seat=1, thief=0))]
    assert REAL.unavailable(uninsured, 1) == [
        Unavailable(
            type="cancel_steal",
            code="no_travel_insurance",
            message="you hold no Travel Insurance to cancel the steal with",
        )
    ]
    assert refused(uninsured, 1, CancelSteal(card=BOOTS)) == "no_travel_insurance"
    insured = play(
        table(hands=[[*GERMANY, CAM], [BOOTS, INSURANCE]], options=ALL),
        0,
        Steal(victim=1, discard=CAM),
    )[1]
    assert REAL.unavailable(insured, 1) == []


# seeds whose games have every extension and characters chosen (test_generic.options)
EVERYTHING = [47 + 48 * k for k in range(6)]


def test_no_answer_is_ever_silently_missing() -> None:
    # over whole games: at every question, each of its answers is listed or unavailable with
    # a reason, and the listing names it
    full = Options(
        events=True, special_items=True, forbidden_items=True, postcards=True, characters="choose"
    )
    assert all(options(seed) == full for seed in EVERYTHING)
    seen: set[str] = set()
    for i, seed in enumerate(EVERYTHING):
        playout = greedy_game(seed, 2 + i % 4)
        for state in playout.states:
            for seat in sorted(REAL.to_act(state)):
                asked = questions(state, seat)
                listed = list(REAL.legal_actions(state, seat))
                check_questions(REAL, state, seat, listed)
                if not asked:
                    assert not REAL.unavailable(state, seat)
                    continue
                [question] = asked
                kinds = {a.type for a in REAL.unavailable(state, seat)}
                kinds |= {msgspec.to_builtins(a)["type"] for a in listed}
                assert kinds == ANSWERS[question["kind"]], (playout.seed, question, kinds)
                seen.add(question["kind"])
    assert seen == set(ANSWERS)
