"""Questions (games/questions.py, RULES.md "Questions"): the collectors a seat keeps one of
are in its own view, as its question; the table sees only how many; every listed answer
names the question, one that names another is refused; and no answer is ever unavailable.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from games.api import IllegalAction
from games.itty_bitty.model import CollectorChoice, DrawCollectors, KeepCollector, State
from games.testing import card_ids_in, check_questions, random_playout
from tests.unit.itty_bitty.test_rules import REAL, play, ready, refused, set_up

CARDS = REAL.all_cards()


def questions(state: State, seat: int | None) -> Any:
    """The seat's questions as a client reads them (JSON)."""
    private = REAL.view(state, seat).private
    return (
        None if private is None else msgspec.json.decode(msgspec.json.encode(private["questions"]))
    )


def test_each_seat_is_asked_which_collector_it_keeps_and_the_others_see_only_how_many() -> None:
    _, state = set_up(3)
    for seat in range(3):
        cards = state.hands[seat].choice
        assert questions(state, seat) == [
            {"kind": "collector_choice", "seat": seat, "cards": list(cards)}
        ]
        asked = CollectorChoice(seat=seat, cards=cards)
        assert REAL.legal_actions(state, seat) == [
            KeepCollector(card=c, question=asked) for c in cards
        ]
        for other in (None, *(s for s in range(3) if s != seat)):
            view = REAL.view(state, other)
            assert not card_ids_in(view, CARDS) & set(cards)
            assert view.public["players"][seat]["choosing"] == 2
    assert questions(state, None) is None


def test_no_seat_outside_the_table_is_asked_and_nobody_once_the_game_is_over() -> None:
    _, state = set_up(2)  # both seats have collectors to choose from
    assert REAL.asked(state, 0) and REAL.asked(state, 1)
    assert REAL.asked(state, -1) == () and REAL.asked(state, 2) == ()
    finished = random_playout(REAL, 0, 2).states[-1].result
    assert finished is not None
    assert REAL.asked(msgspec.structs.replace(state, result=finished), 0) == ()


def test_another_seat_s_choice_leaves_a_seat_s_question_as_it_was() -> None:
    # the opening choice is made at once: one seat's keep changes nothing another is asked
    _, state = set_up(3)
    before = {s: REAL.legal_actions(state, s) for s in (1, 2)}
    after = play(state, 0, REAL.legal_actions(state, 0)[0])[1]
    assert questions(after, 0) == []
    assert {s: REAL.legal_actions(after, s) for s in (1, 2)} == before


def test_a_keep_naming_another_question_is_refused_and_one_naming_none_is_not() -> None:
    _, state = set_up(2)
    mine, theirs = state.hands[0].choice, state.hands[1].choice
    other_seats = KeepCollector(card=mine[0], question=CollectorChoice(seat=1, cards=theirs))
    assert refused(state, 0, other_seats, REAL) == "stale_question"
    wrong_cards = CollectorChoice(seat=0, cards=(mine[0], theirs[0]))
    assert refused(state, 0, KeepCollector(card=mine[0], question=wrong_cards), REAL) == (
        "stale_question"
    )
    with pytest.raises(IllegalAction) as err:
        REAL.decide(state, 0, other_seats, Random(0))
    assert err.value.message == (
        f'this answers {{"kind":"collector_choice","seat":1,"cards":["{theirs[0]}","{theirs[1]}"]}}'
        f', but you are asked {{"kind":"collector_choice","seat":0,"cards":["{mine[0]}",'
        f'"{mine[1]}"]}} now'
    )
    named = play(state, 0, REAL.legal_actions(state, 0)[0])[0]
    assert named == play(state, 0, KeepCollector(card=mine[0]))[0]


def test_the_answer_to_an_earlier_choice_is_stale_at_the_next_one() -> None:
    state = ready(2, seed=1)
    seat = state.current
    assert seat is not None
    first = play(state, seat, DrawCollectors())[1]
    answer = REAL.legal_actions(first, seat)[0]
    later = play(play(first, seat, answer)[1], 1 - seat, DrawCollectors())[1]
    later = play(later, 1 - seat, REAL.legal_actions(later, 1 - seat)[0])[1]
    again = play(later, seat, DrawCollectors())[1]
    assert refused(again, seat, answer, REAL) == "stale_question"


def test_no_answer_is_ever_unavailable_and_every_answer_names_its_question() -> None:
    for seed in range(3):
        playout = random_playout(REAL, seed, 2 + seed)
        for state in playout.states:
            for seat in range(state.seats):
                assert REAL.unavailable(state, seat) == []
                check_questions(REAL, state, seat, list(REAL.legal_actions(state, seat)))
