"""Cards and countries loaded from data/ and checked against the rulebook's counts."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache, cached_property
from importlib import resources
from typing import Literal

import msgspec

CardType = Literal[
    "item", "passport", "event", "special", "forbidden", "postcard", "character", "actions"
]
EXTENSIONS = ("event", "special", "forbidden", "postcard")
RULEBOOK_COUNTS = {"passport": 7, "actions": 6, "item": 32}
EXTENSION_CARDS = 31  # events + special + forbidden + postcards + characters
COUNTRIES = 13


class Card(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kind: str  # cards of one kind are interchangeable: "umbrella", "passport", "mouse-trap"
    name: str
    type: CardType
    text: str = ""
    corner: str | None = None  # the playing-card suit and number (mouse traps have none)


class Capital(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    lat: float
    lon: float


class Country(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    items: tuple[str, str, str]
    capital: Capital


class Content(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    cards: dict[str, Card]
    countries: dict[str, Country]

    def of_type(self, *types: str) -> list[Card]:
        return [c for c in self.cards.values() if c.type in types]

    @cached_property
    def copies(self) -> Counter[str]:
        """How many cards there are of each kind."""
        return Counter(c.kind for c in self.cards.values())

    @cached_property
    def ids(self) -> dict[str, frozenset[str]]:
        """The card ids of each type."""
        types = {c.type for c in self.cards.values()}
        return {t: frozenset(c.id for c in self.of_type(t)) for t in types}

    @cached_property
    def kinds(self) -> dict[str, frozenset[str]]:
        """The card kinds of each type."""
        types = {c.type for c in self.cards.values()}
        return {t: frozenset(c.kind for c in self.of_type(t)) for t in types}

    @cached_property
    def kind_of(self) -> dict[str, str]:
        """Each card id's kind (a plain dict: looked up on every move); a kind with copies,
        the name the table knows a copy by (`alike`), is its own kind."""
        kinds = {c.id: c.kind for c in self.cards.values()}
        return kinds | {k: k for k, n in self.copies.items() if n > 1}

    def kind(self, card: str) -> str:
        return self.kind_of[card]

    @cached_property
    def alike(self) -> dict[str, str]:
        """What the table sees of each card in a move of another seat: its kind where the
        kind has copies (they are identical: nobody can tell which copy was played,
        RULES.md, "Identical cards"), else the card itself."""
        return {c.id: c.kind if self.copies[c.kind] > 1 else c.id for c in self.cards.values()}

    @cached_property
    def kind_names(self) -> dict[str, str]:
        """Each kind as a person names it: its cards' name, or the kind where they differ
        (the five postcards: "Postcard")."""
        names: dict[str, set[str]] = {}
        for c in self.cards.values():
            names.setdefault(c.kind, set()).add(c.name)
        return {
            k: n.pop() if len(n) == 1 else k.replace("-", " ").capitalize()
            for k, n in names.items()
        }

    def kind_name(self, kind: str) -> str:
        return self.kind_names[kind]

    @cached_property
    def type_of(self) -> dict[str, str]:
        """Each card id's type; a kind with copies (`alike`) has its cards' type."""
        types: dict[str, str] = {c.id: c.type for c in self.cards.values()}
        return types | {c.kind: c.type for c in self.cards.values() if self.copies[c.kind] > 1}

    def type(self, card: str) -> str:
        return self.type_of[card]

    def distance_km(self, a: str, b: str) -> float:
        """Great-circle distance between two countries' capitals."""
        p, q = self.countries[a].capital, self.countries[b].capital
        la1, la2 = math.radians(p.lat), math.radians(q.lat)
        dla, dlo = la2 - la1, math.radians(q.lon - p.lon)
        h = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
        return 6371.0 * 2 * math.asin(math.sqrt(h))


class ContentError(ValueError):
    pass


def parse(cards_json: bytes, countries_json: bytes) -> Content:
    cards = msgspec.json.decode(cards_json, type=list[Card])
    countries = msgspec.json.decode(countries_json, type=list[Country])
    content = Content(cards={c.id: c for c in cards}, countries={c.id: c for c in countries})
    if len(content.cards) != len(cards) or len(content.countries) != len(countries):
        raise ContentError("card and country ids must be unique")
    validate(content)
    return content


def validate(content: Content) -> None:
    counts: Counter[str] = Counter(c.type for c in content.cards.values())
    for kind, n in RULEBOOK_COUNTS.items():
        if counts[kind] != n:
            raise ContentError(f"the rulebook has {n} {kind} cards, the data {counts[kind]}")
    ext = sum(counts[t] for t in (*EXTENSIONS, "character"))
    if ext != EXTENSION_CARDS:
        raise ContentError(f"the rulebook has {EXTENSION_CARDS} extension cards, the data {ext}")
    if len(content.countries) != COUNTRIES:
        raise ContentError(f"the rulebook has {COUNTRIES} countries")
    item_kinds = {c.kind for c in content.of_type("item")}
    for country in content.countries.values():
        if len(set(country.items)) != 3 or not set(country.items) <= item_kinds:
            raise ContentError(f"{country.id}: three different item kinds of the deck")
    per_kind = Counter(c.kind for c in content.of_type("item"))
    if len(set(per_kind.values())) != 1:
        raise ContentError("every item kind has the same number of copies")
    if len({tuple(sorted(c.items)) for c in content.countries.values()}) != COUNTRIES:
        raise ContentError("no two countries need the same items")
    for card in content.cards.values():
        if card.type not in ("item", "passport", "actions") and not card.text:
            raise ContentError(f"{card.id}: an extension card says what it does")
        if card.type in ("item", "event", "special", "postcard") and not card.corner:
            raise ContentError(f"{card.id}: has a playing-card corner")
    corners = [c.corner for c in content.cards.values() if c.corner]
    if len(corners) != 54 or len(set(corners)) != 54:
        raise ContentError("the cornered cards make one standard deck with two jokers")


def _read(name: str) -> bytes:
    return resources.files("games.itchy_feet").joinpath("data", name).read_bytes()


@cache
def load() -> Content:
    return parse(_read("cards.json"), _read("countries.json"))
