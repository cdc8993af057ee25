"""Card content loaded from data/ and validated against the rulebook at import."""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources

import msgspec


class Grail(msgspec.Struct, frozen=True, kw_only=True):
    trait: str
    qty: int
    coins: int


class Collector(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    grails: tuple[Grail, ...]


class Ittybit(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    number: int
    type: str
    traits: tuple[str, ...]

    @property
    def all_traits(self) -> frozenset[str]:
        # The punk's type counts as a trait a collector can ask for (content/README.md).
        return frozenset((self.type, *self.traits))


class _RawIttybit(msgspec.Struct, frozen=True):
    id: int
    type: str
    traits: tuple[str, ...]


class _RawCollector(msgspec.Struct, frozen=True):
    id: str
    grails: tuple[Grail, ...]


class Content(msgspec.Struct, frozen=True, kw_only=True):
    ittybits: dict[str, Ittybit]
    collectors: dict[str, Collector]

    def traits(self, card: str) -> frozenset[str]:
        return self.ittybits[card].all_traits


class ContentError(ValueError):
    pass


def ittybit_id(number: int) -> str:
    return f"ittybit-{number:04d}"


def collector_id(raw: str) -> str:
    return f"collector-{raw}"


def _read(name: str) -> bytes:
    return resources.files("games.itty_bitty").joinpath("data", name).read_bytes()


def parse(ittybits_json: bytes, collectors_json: bytes) -> Content:
    raw_bits = msgspec.json.decode(ittybits_json, type=list[_RawIttybit])
    raw_cols = msgspec.json.decode(collectors_json, type=list[_RawCollector])
    bits = {
        ittybit_id(b.id): Ittybit(id=ittybit_id(b.id), number=b.id, type=b.type, traits=b.traits)
        for b in raw_bits
    }
    cols = {collector_id(c.id): Collector(id=collector_id(c.id), grails=c.grails) for c in raw_cols}
    content = Content(ittybits=bits, collectors=cols)
    validate(content, len(raw_bits), len(raw_cols))
    return content


def validate(content: Content, n_bits: int, n_cols: int) -> None:
    if len(content.ittybits) != n_bits:
        raise ContentError("ittybit ids are not unique")
    if len(content.collectors) != n_cols:
        raise ContentError("collector ids are not unique")
    looks = Counter(b.all_traits for b in content.ittybits.values())
    twins = sorted(b.id for b in content.ittybits.values() if looks[b.all_traits] > 1)
    if twins:  # "each with their own unique set of traits" (the punk's type counts as one)
        raise ContentError(f"ittybits share a set of traits: {twins}")
    supply = Counter(t for b in content.ittybits.values() for t in b.all_traits)
    for col in content.collectors.values():
        if not 1 <= len(col.grails) <= 4:
            raise ContentError(f"{col.id}: a collector has 1-4 trait grails")
        for g in col.grails:
            if g.qty < 1 or g.coins < 1:
                raise ContentError(f"{col.id}: grail {g.trait} needs qty and coins >= 1")
            if supply[g.trait] < g.qty:
                raise ContentError(
                    f"{col.id}: grail {g.trait} x{g.qty} cannot be met from the deck"
                )
        if len({g.trait for g in col.grails}) != len(col.grails):
            raise ContentError(f"{col.id}: two grails name the same trait")


@cache
def load() -> Content:
    return parse(_read("ittybits.json"), _read("collectors.json"))
