"""The web client's explanations (clients/web/rules.js), run under node: every thing of a game a
player may tap (each card of the catalog's content, each Itchy Feet character, each
Footprints leader, fire card, follower, cave token and map symbol) has an explanation in
words: never empty, never the bare id, never a raw snake_case key.

The content is the catalog's own (services/lobby/routes/catalog.py:_content, the body of
GET /v1/catalog/{game}/content); the map symbols are the marks the board picture draws
(games/footprints/svg.py) for the content's tiles, houses and cave tokens, and its legend's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from games.footprints.content import load as load_footprints
from games.footprints.svg import LEGEND, mark, token_mark
from games.itchy_feet.characters import CHARACTERS
from games.registry import keys
from services.lobby.routes.catalog import _content

RULES_JS = Path(__file__).resolve().parents[2] / "clients" / "web" / "rules.js"

# What node runs: loads rules.js, asks for every explanation the payload lists, and prints
# the problems found (an empty list when all is well) with how many were checked.
CHECK = r"""
import fs from "node:fs";
import { pathToFileURL } from "node:url";

const [rulesPath, payloadPath] = process.argv.slice(2);
const { explain } = await import(pathToFileURL(rulesPath).href);
const payload = JSON.parse(fs.readFileSync(payloadPath, "utf8"));
const problems = [];
let checked = 0;
const SNAKE = /\b[a-z0-9]+_[a-z0-9_]+\b/;

for (const game of payload.games) {
  for (const [kind, id, bare, must] of game.asks) {
    checked += 1;
    const text = explain(game.key, kind, id, game.content);
    const what = `${game.key} ${kind} ${JSON.stringify(id)}`;
    if (typeof text !== "string" || !text.trim()) problems.push(`${what}: no explanation`);
    else if (text.trim() === String(id)) problems.push(`${what}: only the id`);
    else if (SNAKE.test(text)) problems.push(`${what}: a raw key in ${JSON.stringify(text)}`);
    else if (bare && text.includes(String(id))) problems.push(`${what}: names the id in ${JSON.stringify(text)}`);
    else {
      const lower = text.toLowerCase();
      const left = must.filter((w) => !lower.includes(String(w).toLowerCase()));
      if (left.length) problems.push(`${what}: says nothing of ${left.join(", ")} in ${JSON.stringify(text)}`);
    }
  }
}
console.log(JSON.stringify({ problems, checked }));
"""


def _content_of(key: str) -> dict[str, Any]:
    built: dict[str, Any] = msgspec.to_builtins(_content(key))
    return built


def _symbols() -> set[str]:
    """Every mark the Footprints map picture draws for the content, and its legend's codes."""
    content = load_footprints()
    codes = {"cairn"}
    for tile in content.map_tiles.values():
        codes |= {mark(s.bonus) for row in tile.rows for s in row if s.bonus is not None}
    codes |= {mark(s.bonus) for row in content.cairn_tile.rows for s in row if s.bonus is not None}
    for house in content.house_tiles.values():
        for side in house.sides:
            codes |= {mark(b) for b in side}
            codes.add(" ".join(mark(b) for b in side))  # a house's label, as drawn
    codes |= {token_mark(t) for t in content.cave_tokens.values()}
    for code, _meaning in LEGEND:
        parts = [p for p in code.split() if p != "/"]
        if all(p.isalpha() and p.islower() for p in parts):  # a phrase: "dashed cave"
            parts = [code]
        codes |= set(parts)
    return codes


Ask = tuple[str, Any, bool, list[str]]


def _words(thing: dict[str, Any]) -> list[str]:
    """The words a bonus, an effect or a goal must be said with: its terrains, resource, numbers."""
    words = [
        str(thing[k]) for k in ("terrain", "resource", "level", "total", "spaces") if k in thing
    ]
    words += list(thing.get("terrains", ()))
    words += {
        "fire": ["fire card"],
        "footprint": ["footprint card"],
        "cave_painting": ["cave painting"],
        "engraving": ["engraving"],
        "skill_any": ["any"],
        "both_actions": ["both"],
        "skill_back": ["back"],
        "give": ["give"],
    }.get(thing["kind"], [])
    return words


def _asks(key: str, content: dict[str, Any]) -> list[Ask]:
    """(kind, id, bare, must): what to explain; `bare`: the id must not appear in the text;
    `must`: words of the content the text must say (names, traits, terrains, numbers)."""
    cards = {c["id"]: c for c in content["all_cards"]}
    says: dict[str, list[str]] = {}  # card id -> words its explanation says
    asks: list[Ask] = []
    if key == "itty-bitty":
        for i in content["ittybits"]:
            says[i["id"]] = [i["type"], *i["traits"]]
        for c in content["collectors"]:
            says[c["id"]] = [g["trait"] for g in c["grails"]]
            says[c["id"]] += [f"{g['coins']} coin" for g in c["grails"]]
        traits = {t for i in content["ittybits"] for t in (i["type"], *i["traits"])}
        asks += [("trait", t, False, [t]) for t in sorted(traits)]
    if key == "itchy-feet":
        names = {c["kind"]: c["name"] for c in content["cards"]}
        for c in content["cards"]:
            must = [x["name"] for x in content["countries"] if c["kind"] in x["items"]]
            says[c["id"]] = [c["name"], *must]
            asks.append(("card", c["kind"], False, must))  # a kind, as the discard shows it
            if c["type"] == "character":
                asks.append(("character", c["id"], True, [c["name"]]))
                asks.append(("character", c["kind"], False, [c["name"]]))
        assert {c["kind"] for c in content["cards"] if c["type"] == "character"} == set(CHARACTERS)
        for x in content["countries"]:
            asks.append(("country", x["id"], False, [x["name"], *(names[k] for k in x["items"])]))
    if key == "footprints":
        for clan in content["clans"].values():
            for f in clan["followers"]:
                must = [clan["name"], f["terrain"]]
                must += [t for t in (f["extra_move"], f["extra_advance"]) if t]
                says[f["id"]] = must
                asks.append(("follower", f["id"], True, must))
            for leader in clan["leaders"]:
                says[leader["id"]] = [leader["name"], clan["name"]]
                asks.append(("leader", leader["id"], True, says[leader["id"]]))
                asks.append(("leader", leader["ability"], True, [leader["name"]]))
            asks.append(("clan", clan["clan"], True, [clan["name"]]))
        for fire in content["fire_cards"].values():
            says[fire["id"]] = [cards[fire["id"]]["name"]]
            says[fire["id"]] += [w for e in fire["effects"] for w in _words(e)]
            asks.append(("fire", fire["id"], True, says[fire["id"]]))
        for fp in content["footprint_cards"].values():
            says[fp["id"]] = [cards[fp["id"]]["name"]]
            says[fp["id"]] += [w for g in fp["goals"] for w in _words(g)]
            asks.append(("footprint", fp["id"], True, says[fp["id"]]))
        for t in content["cave_tokens"].values():
            says[t["id"]] = [t["terrain"]] if t["terrain"] else []
            asks.append(("cave", t["id"], True, says[t["id"]]))
        asks += [("symbol", s, False, []) for s in sorted(_symbols())]
        terrains = [t["terrain"] for t in content["terrains"]]
        asks += [("terrain", t, False, [t]) for t in terrains]
        asks += [("skill", t, False, [t]) for t in terrains]
        for clan, board in content["boards"].items():
            for t, track in board["tracks"].items():
                must = [t, content["clans"][clan]["name"], track["past_11"]]
                must += [w for b in track["bonuses"].values() for w in _words(b)]
                asks.append(("skill", f"{clan}:{t}", True, must))
        asks += [("resource", t["resource"], False, [t["resource"]]) for t in content["terrains"]]
    assert set(says) <= set(cards), "words for a card the content does not have"
    return [("card", c, True, says.get(c, [])) for c in cards] + asks


def _run(tmp_path: Path, wrapper: str | None = None) -> dict[str, Any]:
    """Run the check on rules.js (or on `wrapper`, a module in front of it: see below)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # rules.js is an ES module with no package.json beside it: node reads it as one by its name
    module = tmp_path / "rules.mjs"
    module.write_text(RULES_JS.read_text(encoding="utf-8"), encoding="utf-8")
    if wrapper is not None:
        module = tmp_path / "wrapper.mjs"
        module.write_text(wrapper, encoding="utf-8")
    script = tmp_path / "check.mjs"
    script.write_text(CHECK, encoding="utf-8")
    games = []
    for key in keys():
        content = _content_of(key)
        games.append({"key": key, "content": content, "asks": _asks(key, content)})
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"games": games}), encoding="utf-8")
    done = subprocess.run(
        [node, str(script), str(module), str(payload)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_every_thing_a_player_taps_is_explained(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path)
    assert not result["problems"], "\n".join(result["problems"])
    # every card of the three games, and the rest: a sign the asks were made
    assert result["checked"] > 108 + 76 + 148


# rules.js behind a module that spoils one kind of explanation: the check must say so
SPOILED = """
import * as real from "./rules.mjs";
export function explain(game, kind, id, content) {
  if (kind === %(kind)s) return %(spoilt)s;
  return real.explain(game, kind, id, content);
}
"""


@pytest.mark.parametrize(
    ("kind", "spoilt", "problem"),
    [
        ("follower", '""', "no explanation"),
        ("character", "String(id)", "only the id"),
        ("leader", '"Leader: " + id', "a raw key"),
        ("fire", '"The card " + id', "names the id"),
        ("symbol", "undefined", "no explanation"),
    ],
)
def test_the_check_finds_an_explanation_missing_or_raw(
    tmp_path: Path, kind: str, spoilt: str, problem: str
) -> None:
    wrapper = SPOILED % {"kind": json.dumps(kind), "spoilt": spoilt}
    result = _run(tmp_path, wrapper)
    found = [p for p in result["problems"] if f" {kind} " in p]
    assert found, result["problems"]
    assert any(problem in p for p in found), found
