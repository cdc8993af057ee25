"""A game's rules for players, as its page shows them: the package's `HOW_TO_PLAY.md`.

The file is a title (`# ...`), then sections, each a `## heading {#id}` and its items, one
`- ` line each (the ids a page may look for: goal, table, turn, end, scoring, rulings). Written
for players from the rulebook and the game's RULES.md (the house rulings among them), beside
the engine, so that a game added by the contract brings its own (docs/game-contract.md)."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from contracts.lobby import HowToPlay, RulesSection

FILE = "HOW_TO_PLAY.md"
_HEADING = re.compile(r"^## (?P<heading>.+?) \{#(?P<id>[a-z][a-z0-9-]*)\}$")


def parse(text: str) -> HowToPlay:
    """The file's title and sections; ValueError on a line it cannot place."""
    title = ""
    sections: list[RulesSection] = []
    comment = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if comment or line.startswith("<!--"):
            comment = "-->" not in line
            continue
        if not line:
            continue
        if line.startswith("# ") and not title and not sections:
            title = line[2:].strip()
        elif found := _HEADING.match(line):
            sections.append(RulesSection(id=found["id"], heading=found["heading"], items=[]))
        elif line.startswith("- ") and sections and line[2:].strip():
            sections[-1].items.append(line[2:].strip())
        else:
            raise ValueError(f"{FILE} line {n}: neither a title, a section nor an item: {line!r}")
    if not title or not sections or not all(s.items for s in sections):
        raise ValueError(f"{FILE}: a title and sections of at least one item each are needed")
    return HowToPlay(title=title, sections=sections)


@cache
def how_to_play(package: str) -> HowToPlay | None:
    """The rules for players of the game in `package` (None: it has no HOW_TO_PLAY.md)."""
    found = resources.files(package).joinpath(FILE)
    return parse(found.read_text(encoding="utf-8")) if found.is_file() else None
