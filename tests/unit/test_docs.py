"""The docs hold together: every relative link of the README, of `docs/` and of the games' notes
leads to a file of this repository (or beside it, in `../shared/`) and to a heading of it; every
setting `infra/settings.py` reads is documented in docs/operations.md; no doc names one
machine's absolute path; and the README stays short enough to read first."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from infra.settings import Settings, from_env

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"  # the design and content notes beside the repository
README = ROOT / "README.md"
OPERATIONS = ROOT / "docs" / "operations.md"
README_MAX_LINES = 200


def _docs() -> list[Path]:
    docs = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    docs += [ROOT / "deploy" / "README.md", ROOT / "tests" / "corpus" / "README.md"]
    docs += [ROOT / "tests" / "bench" / "README.md"]
    docs += sorted((ROOT / "tests" / "bench" / "runs").glob("*.md"))
    docs += sorted((ROOT / "games").glob("*/RULES.md"))
    docs += sorted((ROOT / "games").glob("*/CONTENT.md"))
    return [p for p in docs if p.is_file()]


DOCS = _docs()
IDS = [str(p.relative_to(ROOT)) for p in DOCS]

FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target), with an optional "title"; the text may hold brackets
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fence = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        if m := FENCE.match(line):
            if not fence:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = ""
            continue
        if not fence:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered (code spans and links reduced to
    their words), lower case, every character but letters, digits, spaces, hyphens and
    underscores dropped (emphasis's asterisks with them), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = "".join(c for c in text.lower() if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor GitHub makes for the headings of a markdown text (a repeated heading's
    anchor gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(text):
        if m := HEADING.match(line):
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every link and image in the prose of a markdown text."""
    found = []
    for number, line in prose_lines(text):
        for target in LINK.findall(CODE_SPAN.sub("code", line)):
            found.append((number, target))
    return found


def problems(doc: Path, text: str | None = None) -> list[str]:
    """What is wrong with the relative links of one file (its text, when given, for a file
    not written), one line a link."""
    text = doc.read_text() if text is None else text
    wrong = []
    for number, target in links(text):
        where = f"{doc.relative_to(ROOT)}:{number}: {target}"
        if SCHEME.match(target) or target.startswith("//"):
            continue  # http(s), mailto: the web's, not ours to check
        path, _, anchor = target.partition("#")
        path, anchor = unquote(path), unquote(anchor)
        linked = Path(os.path.normpath(doc.parent / path)) if path else doc
        if not linked.is_relative_to(ROOT):
            if not linked.is_relative_to(SHARED):
                wrong.append(f"{where}: leaves the repository, and not for ../shared/")
            continue  # beside the repository: not in every checkout, so not required
        if linked == doc:
            headings = anchors(text)
        elif not linked.exists():
            wrong.append(f"{where}: no such file")
            continue
        elif linked.suffix == ".md":
            headings = anchors(linked.read_text())
        else:
            continue  # a folder, a picture, a source file: its existence is enough
        if anchor and anchor not in headings:
            wrong.append(f"{where}: no heading of {linked.relative_to(ROOT)} has that anchor")
    return wrong


def test_the_slugs_are_github_s() -> None:
    assert slug("PostgreSQL and Redis: the machine's own, or embedded") == (
        "postgresql-and-redis-the-machines-own-or-embedded"
    )
    assert slug("Live feeds (Server-Sent Events)") == "live-feeds-server-sent-events"
    assert slug("`min_version` and the `Rng`") == "min_version-and-the-rng"
    assert slug("Clocks, resigning, claiming, rematches") == "clocks-resigning-claiming-rematches"
    assert slug("A [linked](x.md) **bold** heading") == "a-linked-bold-heading"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("[k](operations.md#keys-and-their-rotation)", ""),
        ("[a](#a-heading) [web](https://example.org/x.md) [mail](mailto:a@example.org)", ""),
        ("[d](../../shared/DESIGN.md) ![shot](../clients/web/screenshots/footprints.png)", ""),
        ("`[code](nowhere.md)`", ""),
        ("[k](operations.md#no-such-heading)", "no heading of docs/operations.md"),
        ("[s](#no-such-heading)", "no heading of docs/_example.md"),
        ("[f](no-such-file.md)", "no such file"),
        ("[out](../../elsewhere/x.md)", "leaves the repository"),
    ],
)
def test_the_check_finds_broken_links_and_only_those(link: str, expected: str) -> None:
    doc = ROOT / "docs" / "_example.md"  # never written: its text is given
    text = f"# A heading\n\n{link}\n\n```\n[fenced](nowhere.md)\n```\n"
    found = problems(doc, text)
    if expected:
        assert len(found) == 1 and expected in found[0], found
    else:
        assert found == []


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_relative_link_resolves(doc: Path) -> None:
    wrong = problems(doc)
    assert not wrong, "broken links:\n" + "\n".join(wrong)


def test_the_docs_checked_include_the_readme_and_docs() -> None:
    names = set(IDS)
    assert {"README.md", "docs/api.md", "docs/operations.md", "docs/architecture.md"} <= names


# a path that begins at one machine's file system root, home or temporary folder
ABSOLUTE = re.compile(r"(?<![\w.:/~-])(/(?:work|home|Users|root|tmp)/|~/)")


@pytest.mark.parametrize(
    "doc", [README, *sorted((ROOT / "docs").rglob("*.md"))], ids=lambda p: p.name
)
def test_no_doc_names_a_machine_s_absolute_path(doc: Path) -> None:
    named = [line for line in doc.read_text().splitlines() if ABSOLUTE.search(line)]
    assert not named, f"{doc.relative_to(ROOT)} names an absolute path: {named}"


class _Asked(dict[str, str]):
    """An empty environment that remembers every variable asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.append(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.append(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.append(key)
        return super().__contains__(key)


def settings_variables() -> list[str]:
    """The environment variables `infra.settings.from_env` reads, in its order."""
    env = _Asked()
    assert from_env(env) == Settings()  # nothing set: every default
    return list(dict.fromkeys(env.asked))


def test_the_settings_are_found() -> None:
    names = settings_variables()
    assert {"DATABASE_URL", "TURNPOST_KEYS", "RATE_LIMIT_READ", "FOLLOW_LINGER_S"} <= set(names)
    assert len(names) >= 60


@pytest.mark.parametrize("name", settings_variables())
def test_every_setting_is_documented_in_operations(name: str) -> None:
    assert re.search(rf"(?<![A-Z0-9_]){name}(?![A-Z0-9_])", OPERATIONS.read_text()), (
        f"{name} (infra/settings.py) is not in docs/operations.md: add it to its table of settings"
    )


def test_the_readme_is_short() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move the rest into docs/"
