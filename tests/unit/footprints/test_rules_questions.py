"""Questions (games/questions.py, RULES.md "Questions"): the advanced setup's leader and
footprint card, where to place a figure, a footprint card drawn as a bonus, the fire cards
to discard. Each is in its seat's own view (the dealt cards there alone); the table sees what
it may; every listed answer names its question, one that names another is refused; and no
answer is ever unavailable.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from games.api import IllegalAction
from games.footprints.events import FootprintDrawn
from games.footprints.model import (
    ChooseLeader,
    DecideFootprint,
    DiscardFire,
    DiscardFireQuestion,
    FootprintQuestion,
    KeepStartingFootprint,
    LeaderQuestion,
    Options,
    PlaceFigure,
    PlaceQuestion,
    StartingFootprintQuestion,
    Top,
)
from games.footprints.state import State
from games.testing import card_ids_in, check_questions, random_playout
from tests.unit.footprints.playouts import quick_playout
from tests.unit.footprints.rules_helpers import (
    REAL,
    follower,
    goods,
    leader,
    of,
    play,
    played,
    refused,
    set_up,
    table,
    terrains,
)

ADVANCED = Options(advanced=True)
CARDS = REAL.all_cards()
FOOTPRINTS = sorted(REAL.content.footprint_cards)
F03 = follower("clan-1", 3)  # a Horse ice follower


def questions(state: State, seat: int | None) -> Any:
    """The seat's questions as a client reads them (JSON)."""
    private = REAL.view(state, seat).private
    return None if private is None else wire(private["questions"])


def wire(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def test_the_advanced_setup_asks_each_seat_its_leader_and_its_card_in_its_own_view() -> None:
    _, state = set_up(3, 1, ADVANCED)
    dealt = dict(state.pending.footprints)  # type: ignore[union-attr]
    for seat in range(3):
        clan = state.players[seat].clan
        leaders = LeaderQuestion(seat=seat, leaders=(leader(clan, "a"), leader(clan, "b")))
        cards = StartingFootprintQuestion(seat=seat, cards=dealt[seat])
        assert questions(state, seat) == wire([leaders, cards])
        assert REAL.legal_actions(state, seat) == [
            *(ChooseLeader(leader=x, question=leaders) for x in leaders.leaders),
            *(KeepStartingFootprint(card=c, question=cards) for c in cards.cards),
        ]
        # the others, and the table's picture, name no card dealt to this seat
        for other in (None, *(s for s in range(3) if s != seat)):
            assert not card_ids_in(REAL.view(state, other), CARDS) & set(dealt[seat])
    public = wire(REAL.view(state, 0).public["pending"])
    assert public == {
        "kind": "setup_choices",
        "leaders": [0, 1, 2],
        "footprints": [[0, []], [1, []], [2, []]],  # who keeps a card, not which cards
    }
    assert REAL.view(state, 1).public == REAL.view(state, None).public == REAL.view(state, 0).public


def test_a_seat_s_setup_answers_stay_as_they_were_when_others_choose() -> None:
    _, state = set_up(3, 1, ADVANCED)
    before = {s: REAL.legal_actions(state, s) for s in (1, 2)}
    leader_first, card_next = REAL.legal_actions(state, 0)[0], REAL.legal_actions(state, 0)[-1]
    after = play(state, 0, leader_first)[1]
    assert {s: REAL.legal_actions(after, s) for s in (1, 2)} == before
    # the seat's own other question is still open, its answer as listed before
    assert wire(questions(after, 0)) == [wire(card_next.question)]
    assert play(after, 0, card_next)[1].players[0].footprints == (card_next.card,)


def test_a_setup_answer_naming_another_question_is_refused() -> None:
    _, state = set_up(3, 1, ADVANCED)
    dealt = dict(state.pending.footprints)  # type: ignore[union-attr]
    mine, theirs = dealt[0], dealt[1]
    keep = KeepStartingFootprint(
        card=mine[0], question=StartingFootprintQuestion(seat=1, cards=theirs)
    )
    assert refused(state, 0, keep) == "stale_question"
    clan = state.players[0].clan
    only_a = LeaderQuestion(seat=0, leaders=(leader(clan, "a"),))
    assert refused(state, 0, ChooseLeader(leader=leader(clan), question=only_a)) == (
        "stale_question"
    )
    # answered already: the leader question is gone once the leader is chosen
    answer, keep_next = REAL.legal_actions(state, 0)[0], REAL.legal_actions(state, 0)[-1]
    after = play(state, 0, answer)[1]
    with pytest.raises(IllegalAction) as err:
        REAL.decide(after, 0, answer, Random(0))
    assert (err.value.code, err.value.message) == (
        "stale_question",
        f"this answers {text(answer)}, but you are asked {text(keep_next)} now",
    )
    # an answer naming no question answers the open one
    unnamed = KeepStartingFootprint(card=keep_next.card)  # type: ignore[attr-defined]
    assert play(state, 0, unnamed)[0] == play(state, 0, keep_next)[0]


def text(answer: Any) -> str:
    return msgspec.json.encode(answer.question).decode()


def test_placing_asks_the_next_seat_which_free_house_row() -> None:
    _, state = set_up(3, 2)
    [first] = REAL.to_act(state)
    asked = PlaceQuestion(seat=first, rows=(0, 1, 2, 3, 4, 5))
    assert questions(state, first) == wire([asked])
    listed = REAL.legal_actions(state, first)
    assert listed and all(a.question == asked for a in listed)  # type: ignore[attr-defined]
    assert all(questions(state, s) == [] for s in range(3) if s != first)
    row = listed[0].row  # type: ignore[attr-defined]
    after = play(state, first, listed[0])[1]
    [second] = REAL.to_act(after)
    rows = tuple(r for r in range(6) if r != row)
    assert questions(after, second) == wire([PlaceQuestion(seat=second, rows=rows)])
    # the first seat's question is gone: placing again with it is stale, not "not your turn"
    stale = PlaceFigure(row=rows[0], question=replace_seat(asked, second))
    assert refused(after, second, stale) == "stale_question"


def replace_seat(question: PlaceQuestion, seat: int) -> PlaceQuestion:
    return PlaceQuestion(seat=seat, rows=question.rows)


def test_a_footprint_card_drawn_as_a_bonus_is_the_drawer_s_question() -> None:
    # fire-13: take a footprint card, and berries
    state = played(table(players=[{"fire_hand": ("fire-13",)}]), 0, F03, "fire-13")
    events, state = play(state, 0, Top(path=(), fire_at=0))
    card = of(FootprintDrawn, events)[0].card
    asked = FootprintQuestion(seat=0, cards=(card,))
    assert questions(state, 0) == wire([asked]) and questions(state, 1) == []
    assert REAL.legal_actions(state, 0) == [
        DecideFootprint(keep=True, card=card, question=asked),
        DecideFootprint(keep=False, card=card, question=asked),
    ]
    # the card is face up: the table sees it waiting
    assert wire(REAL.view(state, 1).public["pending"])["cards"] == [card]
    other = FootprintQuestion(seat=0, cards=(next(c for c in FOOTPRINTS if c != card),))
    assert refused(state, 0, DecideFootprint(keep=True, question=other)) == "stale_question"


def test_the_fire_cards_to_discard_are_the_current_seat_s_question() -> None:
    hand = ("fire-07", "fire-08", "fire-09", "fire-11", "fire-12")
    state = played(table(players=[{"fire_hand": hand}]), 0, F03, "fire-07")
    state = play(state, 0, Top(path=()))[1]
    asked = DiscardFireQuestion(seat=0, count=1)
    assert questions(state, 0) == wire([asked]) and questions(state, 1) == []
    discards = [a for a in REAL.legal_actions(state, 0) if isinstance(a, DiscardFire)]
    assert len(discards) == 4 and all(a.question == asked for a in discards)
    # the table sees the step and how many fire cards the seat holds
    public = REAL.view(state, 1).public
    assert public["turn"]["phase"] == "discard" and public["players"][0]["fire_cards"] == 4
    two = DiscardFireQuestion(seat=0, count=2)
    assert refused(state, 0, DiscardFire(cards=("fire-08",), question=two)) == "stale_question"


@pytest.mark.parametrize("options", [Options(), ADVANCED], ids=["basic", "advanced"])
def test_no_answer_is_ever_unavailable_and_every_answer_names_its_question(
    options: Options,
) -> None:
    for seed in range(2):
        playout = random_playout(REAL, seed, 2 + seed, options)
        for state in playout.states[:: 1 + len(playout.states) // 150]:
            for seat in range(state.seats):
                assert REAL.unavailable(state, seat) == []
                check_questions(REAL, state, seat, list(REAL.legal_actions(state, seat)))


def test_every_seat_sees_a_players_public_part() -> None:
    f = [follower("clan-1", n) for n in range(1, 14)]
    me = {
        "position": (2, 10),
        "cairn_points": 7,
        "skills": terrains(ice=4),
        "resources": goods(stone=1, berries=2),
        "fire_hand": ("fire-01", "fire-02"),
        "footprints": ("footprint-03",),
        "completed": ("footprint-04",),
        "engravings": ("ice",),
        "cave_site": "tile-3-cave-a",
        "turns": 3,
        "deck_bottom": (f[11],),
        "played": (f[12],),
    }
    state = table(players=[me])
    public = {
        "seat": 0,
        "clan": "clan-1",
        "position": (2, 10),
        "cairn_points": 7,
        "skills": {"mountain": 2, "ice": 4, "forest": 2, "swamp": 2},
        "resources": {"stone": 1, "mammoth": 0, "wood": 0, "berries": 2},
        "panel": f[:4],
        "played": [f[12]],
        "deck": 9,  # f05-f11 and leader A above, f12 below: only how many
        "fire_cards": 2,  # only how many
        "footprints": ["footprint-03"],
        "completed": ["footprint-04"],
        "engravings": ["ice"],
        "cave_site": "tile-3-cave-a",
        "turns": 3,
        "leaders": [leader("clan-1")],  # the basic setup's leader A: known to all in the deck
    }
    for seat in (0, 1, None):
        assert REAL.view(state, seat).public["players"][0] == public


def test_the_table_s_public_part_and_a_seat_s_private_part() -> None:
    state = table(
        players=[{"fire_hand": ("fire-03",), "position": (1, 11)}, {"position": (1, 12)}],
        fire_discard=("fire-01",),
        footprint_discard=("footprint-05",),
        cairn_track=(1,),
        engraved=(((1, 11), 0, "ice"),),
        end_triggered=True,
        first_seat=1,
    )
    view = REAL.view(state, 0)
    public = {k: v for k, v in view.public.items() if k not in ("players", "map", "turn")}
    assert public == {
        "seats": 2,
        "options": {"advanced": False, "snake": False, "two_leaders": False},
        "engraved": [{"at": (1, 11), "seat": 0, "terrain": "ice"}],
        "first_seat": 1,
        "pending": None,
        "fire_deck": 18,  # only how many: 20 less one in a hand, one discarded
        "fire_discard": ["fire-01"],
        "footprint_deck": 27,
        "footprint_discard": ["footprint-05"],
        "cairn_track": [1],
        "end_triggered": True,
        "result": None,
    }
    assert view.public["map"] == {
        "tiles": list(state.tiles),
        "turned": list(state.turned),
        "houses": [list(h) for h in state.houses],
        "caves": dict(state.caves),
    }
    assert view.public["turn"] == msgspec.to_builtins(state.turn)
    deck = sorted([*(follower("clan-1", n) for n in range(5, 14)), leader("clan-1")])
    assert view.private == {
        "fire_hand": ["fire-03"],
        "leaders": [leader("clan-1")],
        "deck": deck,  # the seat's own, in no order (the split above and below is unknown)
        "questions": [],
    }
    assert REAL.view(state, None).private is None
    assert REAL.view(state, 2).private is None  # a seat beyond the table's: a spectator
    assert view.public["result"] is None
    final = quick_playout(REAL, 7, 2, Options()).states[-1]  # a game played to its end
    assert final.result is not None
    assert REAL.view(final, None).public["result"] == msgspec.to_builtins(final.result)
    assert REAL.view(state, None).public == view.public == REAL.view(state, 1).public
