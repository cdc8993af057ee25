"""Each game's RULES.md and CONTENT.md: the rulebook and the content notes are named by a
path inside this repository or beside it (`../shared/`, as README.md does), never by one
machine's absolute path, which no other checkout has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(p for name in ("RULES.md", "CONTENT.md") for p in (ROOT / "games").glob(f"*/{name}"))
# a path in backquotes or a link that begins at a file system's root (or a home directory)
ABSOLUTE = re.compile(r"[`(](/(?:work|home|Users|tmp|root|mnt|srv|opt)/|~/|[A-Za-z]:\\)")


def test_every_game_has_its_rules_documented() -> None:
    games = {p.parent.name for p in DOCS}
    assert {"footprints", "itchy_feet", "itty_bitty"} <= games


@pytest.mark.parametrize("doc", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_the_rulebooks_and_content_notes_are_named_by_a_relative_path(doc: Path) -> None:
    text = doc.read_text()
    absolute = [line for line in text.splitlines() if ABSOLUTE.search(line)]
    assert not absolute, f"{doc.relative_to(ROOT)} names an absolute path: {absolute}"
    for named in re.findall(r"`([^`]*shared/[^`]*)`", text):
        assert named.startswith("../shared/"), named


RULE_DOCS = sorted((ROOT / "games").glob("*/RULES.md"))


@pytest.mark.parametrize("doc", RULE_DOCS, ids=[p.parent.name for p in RULE_DOCS])
def test_every_test_a_rules_map_cites_exists(doc: Path) -> None:
    """RULES.md maps each rule to the tests that cover it: a test renamed or removed leaves
    a rule mapped to nothing, so every `test_...` it cites is defined under tests/."""
    cited = set(re.findall(r"`(test_\w+)`", doc.read_text()))
    defined = {
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M)
    }
    assert cited, f"{doc.relative_to(ROOT)} cites no test"
    assert not cited - defined, f"{doc.relative_to(ROOT)} cites missing tests"
