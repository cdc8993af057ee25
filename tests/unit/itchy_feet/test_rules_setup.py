"""The Itchy Feet rulebook, rule by rule: setup, characters, turns, passing, the end.

The five actions, the hand limit and reshuffles are in test_rules_actions.py; the four
extensions and the characters in test_rules_extensions.py; redaction, views and the
card content in test_rules_secrecy.py. The map from each rule to its code and tests is
games/itchy_feet/RULES.md. The helpers here are shared by those modules.

Positions are built by folding `setup` with a seeded Random, then crafted with
`msgspec.structs.replace` (`table` checks every crafted position conserves the cards).
Draws are made in `decide` from the Random it is given: `Picks` scripts which card comes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from random import Random
from typing import Any

import pytest
from msgspec.structs import replace

from games.api import IllegalAction, Outcome, fold
from games.itchy_feet.events import (
    ActionTaken,
    CardDrawn,
    CardsDealt,
    CharacterChosen,
    CharacterOffered,
    CharactersDealt,
    Event,
    ExtensionsShuffledIn,
    GameDrawn,
    GameSetUp,
    TurnBegan,
)
from games.itchy_feet.model import (
    AcceptTrade,
    CharacterQuestion,
    ChooseCharacter,
    Draw,
    Options,
    PassTurn,
    State,
)
from games.itchy_feet.rules import CHARACTERS, ItchyFeet
from games.testing import check_conservation

REAL = ItchyFeet()
C = REAL.content
NONE = Options()
ALL = Options(events=True, special_items=True, forbidden_items=True, postcards=True)
HOMES = ("germany", "france", "italy", "spain", "uk", "usa")
# Germany: umbrella, phrasebook, warm-jacket. Japan (the usual centre): phrasebook,
# local-currency, guidebook. France: phrasebook, camera, guidebook.


def item(kind: str, n: int = 1) -> str:
    return f"item-{kind}-{n}"


GERMANY = (item("umbrella"), item("phrasebook"), item("warm-jacket"))
JAPAN = (item("phrasebook", 2), item("local-currency"), item("guidebook"))
MAP, MAP2 = "special-poorly-drawn-map-1", "special-poorly-drawn-map-2"
INSURANCE, ESPRESSO = "special-travel-insurance-1", "special-espresso-1"
LUCKY, PLANS = "special-lucky-find-1", "special-change-of-plans-1"
TRAP, CONTRABAND = "forbidden-mouse-trap-1", "forbidden-contraband-1"
POSTCARDS = tuple(f"postcard-postcard-{n}" for n in range(1, 6))


def event(kind: str) -> str:
    return f"event-{kind}-1"


class Picks(Random):
    """A seeded Random whose `choice` returns the scripted values in order, when offered.

    Once the script is used up (or its next value is not among the choices) it takes the
    first choice that is not an event card, so events come only when scripted and a
    crafted position plays out exactly.
    """

    def __init__(self, *picks: Any) -> None:
        super().__init__(0)
        self.picks = list(picks)

    def choice(self, seq: Any) -> Any:
        if self.picks and self.picks[0] in seq:
            return self.picks.pop(0)
        return next((x for x in seq if not str(x).startswith("event-")), seq[0])


def set_up(seats: int = 2, seed: int = 0, options: Options = NONE) -> tuple[list[Event], State]:
    events = REAL.setup(options, seats, Random(seed))
    return events, fold(REAL, events)


def play(
    state: State, seat: int, action: Any, rng: Random | None = None
) -> tuple[list[Event], State]:
    events = REAL.decide(state, seat, action, rng or Picks())
    return events, fold(REAL, events, state)


CARD = r"[a-z0-9-]+"
# what each refusal says, in full (the message a client shows; {…} parts as patterns)
MESSAGES = {
    "bad_seat_count": r"Itchy Feet: The Travel Game seats 2 to 6 players \(six action cards\)",
    "game_over": r"the game has ended",
    "not_your_turn": r"seat -?\d+ is not to act now",
    "nothing_to_draw": r"no card is left to draw: skip the bonus"
    r"|the draw and discard piles hold no card to draw",
    "no_travel_insurance": rf"{CARD} is not a Travel Insurance of yours",
    "wrong_discard_count": r"discard exactly \d+ card\(s\)",
    "not_drawn": rf"{CARD} is not one of the cards you drew",
    "character_taken": r"choose one of [a-z]+(, [a-z]+)*",
    "answer_first": r"the game waits for a (TradeOffer|BonusOffer|StealAnswer|DiscardDown"
    r"|KeepOne|CharacterPick)",
    "not_forbidden": rf"{CARD} is not a forbidden item to get rid of",
    "forbidden_cannot_pay": r"get rid of a forbidden item with a card that is not one"
    r"|a forbidden item cannot pay for a (recycle|steal)",
    "not_in_discard": rf"{CARD} is not in the discard pile",
    "cannot_recycle_event": r"event cards cannot be recycled",
    "cannot_pass": r"you cannot skip your turn while you can act",
    "not_now": r"[A-Za-z]+ is not a move for now",
    "card_named_twice": r"name each card once",
    "card_not_in_hand": rf"{CARD} is not in your hand",
    "wrong_cost": r"(recycle|steal) costs exactly \d card\(s\) from your hand"
    r"|the Pickpocket steals without discarding|discard one card from your hand to steal",
    "trade_declined_this_turn": r"your trade was declined: take another action",
    "bad_partner": r"trade with another player at the table",
    "empty_trade": r"offer at least one card and ask for at least one",
    "unknown_kind": r"no card kind '[a-z-]+' in this game",
    "impossible_trade": r"seat \d+ cannot hold the cards you ask for: ask for less",
    "not_what_was_asked": r"hand over exactly the kinds asked for",
    "cannot_fulfil_trade": r"you do not hold \d+ x [a-z-]+: decline",
    "bad_victim": r"steal from another player at the table",
    "nothing_to_steal": r"seat \d+ holds no card",
    "no_passport": r"you need a passport in your hand to travel",
    "holding_forbidden_item": r"you cannot travel while you hold a forbidden item",
    "wrong_items": r"travel to [a-z]+ takes one each of [a-z-]+, [a-z-]+, [a-z-]+"
    r" \(a map for each one you are missing\)",
    "not_playable_now": r"[A-Z][A-Za-z ]+ is not played this way",
    "stale_question": r"this answers \{.+\}, but you are asked (\{.+\}|nothing) now",
}


def refused(state: State, seat: int, action: Any) -> str:
    """The code `decide` refuses the action with (checking its message says why)."""
    with pytest.raises(IllegalAction) as err:
        REAL.decide(state, seat, action, Picks())
    code, message = err.value.code, err.value.message
    assert re.fullmatch(MESSAGES[code], message), f"{code}: {message!r}"
    return code


def of(kind: type, events: Sequence[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def table(
    seats: int = 2,
    *,
    hands: Sequence[Sequence[str]] = (),
    discard: Sequence[str] = (),
    draw: Sequence[str] | None = None,
    options: Options = NONE,
    current: int = 0,
    homes: Sequence[str] | None = None,
    centre: str = "japan",
    characters: Sequence[str | None] | None = None,
    **fields: Any,
) -> State:
    """A crafted position at the start of `current`'s turn. Cards not placed lie in the draw
    pile (passports not placed are out of the game); when `draw` is given, the rest are out
    of play (the box)."""
    base = set_up(seats, 0, replace(options, characters="off"))[1]
    out = [c for c in base.box if C.type(c) != "passport"]  # extensions not chosen
    all_hands = tuple(tuple(h) for h in hands) + ((),) * (seats - len(hands))
    placed = {c for h in all_hands for c in h} | set(discard)
    rest = [c for c in sorted(REAL.all_cards() - set(out)) if c not in placed]
    if draw is None:
        draw = [c for c in rest if C.type(c) != "passport"]
    homes = tuple(homes or HOMES[:seats])
    values: dict[str, Any] = {
        "options": options,
        "homes": homes,
        "centre": centre,
        "country_pile": tuple(sorted(set(C.countries) - {centre, *homes})),
        "first_seat": 0,
        "visited_home": (False,) * seats,
        "characters": tuple(characters or (None,) * seats),
        "hands": all_hands,
        "draw_pile": tuple(sorted(draw)),
        "discard": tuple(discard),
        "box": tuple(sorted([*out, *(c for c in rest if c not in draw)])),
        "current": current,
        "turn": 1,
        "actions_left": 1,
        "skips": (0,) * seats,
        "pending": None,
    }
    values.update(fields)
    state = replace(base, **values)
    check_conservation(REAL, state, seed=0)  # the crafted position is a real one
    return state


# -- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_setup_gives_homes_a_centre_three_items_and_a_passport_each(seats: int) -> None:
    events, state = set_up(seats, seed=seats)
    homes, centre = state.homes, state.centre
    assert len(set(homes)) == seats and centre not in homes
    assert set(state.country_pile) == set(C.countries) - {centre, *homes}  # set to one side
    dealt = of(CardsDealt, events)
    assert [d.seat for d in dealt] == list(range(seats))
    for d in dealt:
        assert d.count == 4 and d.cards[-1] == f"passport-{d.seat + 1}"
        assert [C.type(c) for c in d.cards[:3]] == ["item"] * 3
        assert state.hands[d.seat] == d.cards
    assert len(state.draw_pile) == 32 - 3 * seats and state.discard == ()
    assert sorted(c for c in state.box if C.type(c) == "passport") == [
        f"passport-{n}" for n in range(seats + 1, 8)
    ]  # unused passports are out of the game
    assert state.visited_home == (False,) * seats
    assert (state.skips, state.characters, state.revealed) == ((0,) * seats, (None,) * seats, ())
    assert (state.turn, state.actions_left, state.pending, state.end) == (1, 1, None, None)
    assert REAL.to_act(fold(REAL, events[:1])) == frozenset()  # nobody, before the first turn


def test_a_game_is_folded_from_its_set_up_and_known_events_only() -> None:
    with pytest.raises(ValueError, match=r"^a game starts with game_set_up, not TurnBegan$"):
        REAL.evolve(None, TurnBegan(seat=0))
    with pytest.raises(ValueError, match=r"^unexpected event Event$"):
        REAL.evolve(set_up()[1], Event())


@pytest.mark.parametrize("seats", [1, 7, 0])
def test_the_game_seats_two_to_six_players(seats: int) -> None:
    with pytest.raises(IllegalAction) as err:
        REAL.setup(Options(), seats, Random(0))
    assert err.value.code == "bad_seat_count"
    assert re.fullmatch(MESSAGES["bad_seat_count"], err.value.message)


@pytest.mark.parametrize(
    "options",
    [Options(), ALL, Options(events=True), Options(special_items=True, postcards=True)],
    ids=["none", "all", "events", "special+postcards"],
)
def test_extension_cards_are_shuffled_in_only_after_dealing_and_only_those_chosen(
    options: Options,
) -> None:
    events, state = set_up(4, seed=3, options=options)
    chosen = {
        t
        for t, on in [
            ("event", options.events),
            ("special", options.special_items),
            ("forbidden", options.forbidden_items),
            ("postcard", options.postcards),
        ]
        if on
    }
    types = Counter(C.type(c) for c in state.draw_pile)
    assert set(types) == {"item"} | chosen
    assert all(C.type(c) in ("item", "passport") for d in of(CardsDealt, events) for c in d.cards)
    shuffled = of(ExtensionsShuffledIn, events)
    if chosen:
        last_deal = max(i for i, e in enumerate(events) if isinstance(e, CardsDealt))
        assert events.index(shuffled[0]) == last_deal + 1
        assert shuffled[0].count == sum(types[t] for t in chosen)
    else:
        assert shuffled == []
    assert not {C.type(c) for c in state.box} & chosen  # the rest stay in the box


def test_the_first_player_is_the_one_whose_home_capital_is_closest_to_the_centres() -> None:
    for seed in range(30):
        events, state = set_up(2 + seed % 5, seed=seed)
        distances = [C.distance_km(home, state.centre) for home in state.homes]
        assert state.first_seat == distances.index(min(distances))
        assert events[-1] == TurnBegan(seat=state.first_seat) and state.current == state.first_seat
    assert round(C.distance_km("uk", "france")) == 343  # London-Paris, great circle


def test_the_draw_pile_order_is_not_stored_each_draw_is_made_in_decide() -> None:
    _, state = set_up(3, seed=1)
    assert "draw_pile" not in GameSetUp.__struct_fields__  # no order, not even a list
    assert state.draw_pile == tuple(sorted(state.draw_pile)) and state.current is not None
    draws = [play(state, state.current, Draw(), Random(s))[0] for s in range(12)]
    drawn = {of(CardDrawn, events)[0].card for events in draws}
    assert len(drawn) > 1
    assert set_up(3, seed=1)[0] == set_up(3, seed=1)[0]  # same seed, same game


def test_characters_are_dealt_at_random_and_public_or_left_out() -> None:
    events, state = set_up(5, seed=2, options=Options(characters="random"))
    dealt = of(CharactersDealt, events)
    assert len(dealt) == 1 and len(set(dealt[0].characters)) == 5
    assert set(dealt[0].characters) <= set(CHARACTERS) and state.characters == dealt[0].characters
    assert all(REAL.redact(dealt[0], s) == dealt[0] for s in (None, 0, 4))
    assert REAL.view(state, None).public["characters"] == list(state.characters)
    assert len({set_up(3, s, Options(characters="random"))[1].characters for s in range(8)}) > 1
    assert set_up(3, 2)[1].characters == (None, None, None)  # "off"


def test_characters_are_chosen_in_turn_order_from_the_first_player() -> None:
    events, state = set_up(3, seed=4, options=Options(characters="choose"))
    first = state.first_seat
    assert events[-1] == CharacterOffered(seat=first, options=CHARACTERS)
    assert REAL.to_act(state) == frozenset({first}) and state.current is None
    assert refused(state, first, Draw()) == "answer_first"
    picks = ["hoarder", "planner", "haggler"]
    for i, char in enumerate(picks):
        seat = (first + i) % 3
        left = tuple(c for c in CHARACTERS if c not in picks[:i])
        asked = CharacterQuestion(seat=seat, options=left)
        assert REAL.legal_actions(state, seat) == [
            ChooseCharacter(character=c, question=asked) for c in left
        ]
        if i:
            assert refused(state, seat, ChooseCharacter(character=picks[0])) == "character_taken"
        events, state = play(state, seat, ChooseCharacter(character=char))
        assert events[0] == CharacterChosen(seat=seat, character=char)
    assert events[-1] == TurnBegan(seat=first) and state.current == first
    assert state.characters[first] == "hoarder" and state.characters[(first + 2) % 3] == "haggler"


# -- turns ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_one_action_per_turn_then_the_next_player(seats: int) -> None:
    _, state = set_up(seats, seed=seats)
    first = state.current
    for i in range(seats + 1):
        seat = state.current
        assert seat == (first + i) % seats  # wraps round the table
        events, state = play(state, seat, Draw())
        assert events[0] == ActionTaken(seat=seat, action="draw")
        assert events[-1] == TurnBegan(seat=(seat + 1) % seats)
        assert refused(state, seat, Draw()) == "not_your_turn"
        assert REAL.legal_actions(state, seat) == []


def test_only_the_seat_to_act_may_act_and_only_with_a_move_for_now() -> None:
    state = table(3, hands=[GERMANY, [item("camera")], [item("sunscreen")]])
    for seat in (1, 2, 9):
        assert refused(state, seat, Draw()) == "not_your_turn"
    assert refused(state, 0, AcceptTrade()) == "not_now"
    with pytest.raises(IllegalAction, match=r"^AcceptTrade is not a move for now$"):
        REAL.decide(state, 0, AcceptTrade(), Picks())
    assert refused(replace(state, end="turn_limit"), 0, Draw()) == "game_over"
    assert REAL.to_act(replace(state, end="centre", winner=1)) == frozenset()


def test_an_empty_hand_at_the_start_of_a_turn_draws_three_cards_for_free() -> None:
    state = table(3, hands=[GERMANY, [], [item("camera")]])
    events, after = play(state, 0, Draw())
    start = events.index(TurnBegan(seat=1))
    free = of(CardDrawn, events[start:])
    assert [(d.seat, d.reason) for d in free] == [(1, "empty_hand")] * 3
    assert len(after.hands[1]) == 3 and after.current == 1 and after.actions_left == 1
    assert [d.seat for d in of(CardDrawn, events[:start])] == [0]  # seat 0's own draw


def test_pass_turn_only_when_no_other_action_is_possible() -> None:
    # every other card out of play; seat 1 can still play its espresso
    stuck = table(hands=[[], ["special-espresso-1"]], draw=[], options=Options(special_items=True))
    assert REAL.legal_actions(stuck, 0) == [PassTurn()]
    events = play(stuck, 0, PassTurn())[0]
    assert events[:2] == [ActionTaken(seat=0, action="pass"), TurnBegan(seat=1)]
    state = table(hands=[GERMANY, [item("camera")]])
    assert PassTurn() not in REAL.legal_actions(state, 0)
    assert refused(state, 0, PassTurn()) == "cannot_pass"


def test_the_game_is_drawn_when_nobody_can_ever_act_again() -> None:
    # Our ruling: every hand empty, nothing to draw: passing forever would be no game.
    stuck = table(hands=[[], []], draw=[])
    assert REAL.legal_actions(stuck, 0) == [PassTurn()]
    events, after = play(stuck, 0, PassTurn())
    assert events[-1] == GameDrawn(reason="no_cards") and after.end == "no_cards"
    outcome = REAL.outcome(after)
    assert outcome is not None and outcome.winners == [] and REAL.to_act(after) == frozenset()


def test_the_game_is_drawn_once_turn_300_is_over() -> None:
    state = table(hands=[GERMANY, [item("camera")]], turn=300)
    events, after = play(state, 0, Draw())
    assert events[-1] == GameDrawn(reason="turn_limit") and after.end == "turn_limit"
    assert REAL.outcome(after) == Outcome(
        scores=[0, 0], ranks=[1, 1], winners=[], tie_break="draw", detail={"reason": "turn_limit"}
    )
    assert REAL.to_act(after) == frozenset() and refused(after, 1, Draw()) == "game_over"
    events, after = play(replace(state, turn=299), 0, Draw())
    assert events[-1] == TurnBegan(seat=1) and after.turn == 300 and REAL.outcome(after) is None
