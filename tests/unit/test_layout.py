"""DESIGN.md: services never import each other; they share contracts/, games/ and infra/."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICES = sorted(p.name for p in (ROOT / "services").iterdir() if (p / "__init__.py").exists())


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_imports_no_other_service(service: str) -> None:
    others = {f"services.{s}" for s in SERVICES if s != service}
    crossing = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / "services" / service).rglob("*.py")
        for name in imported(path)
        if any(name == o or name.startswith(o + ".") for o in others)
    }
    assert not crossing


@pytest.mark.parametrize("shared", ["contracts", "games", "infra"])
def test_the_shared_packages_import_no_service(shared: str) -> None:
    crossing = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / shared).rglob("*.py")
        for name in imported(path)
        if name == "services" or name.startswith("services.")
    }
    assert not crossing


CLIENT = ROOT / "clients" / "python"
CLIENT_MAY_IMPORT = ("contracts", "turnpost", "httpx", "msgspec")


def test_the_python_client_imports_only_contracts_httpx_msgspec_and_the_stdlib() -> None:
    """A third party installs the client without the servers: no services, infra or games."""
    files = sorted(CLIENT.rglob("*.py"))
    assert len(files) >= 6
    foreign = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in imported(path)
        if name.split(".")[0] not in CLIENT_MAY_IMPORT
        and name.split(".")[0] not in sys.stdlib_module_names
    }
    assert not foreign


# -- the house: modules of a size a reader can hold, no import circles ---------------------------

MAX_LINES = 500
# Modules over MAX_LINES when the bound came (issue: "services and infra cut by concern"): each
# may shrink, none may grow, and no other module may pass the bound. Each is to be cut by
# concern, and its line here goes with it.
OVER_THE_BOUND = {
    "games/footprints/content.py": 654,  # content data: the cards' table
}
# Import circles allowed: none (Footprints' turn, legal moves and leaders, which called each
# other through imports inside functions, no longer do). None may form.
KNOWN_CIRCLES: list[set[str]] = []
PACKAGES = ("contracts", "games", "infra", "services")


def test_no_module_grows_past_500_lines() -> None:
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for top in ("services", "infra", "games")
        for path in (ROOT / top).rglob("*.py")
    }
    over = {p: n for p, n in sizes.items() if n > OVER_THE_BOUND.get(p, MAX_LINES)}
    assert not over, f"over {MAX_LINES} lines (or past its ceiling): {over}; cut it by concern"


def _modules() -> dict[str, Path]:
    found = {}
    for top in PACKAGES:
        for path in (ROOT / top).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module of ours `path` imports, at any depth of the file (a function's too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in out if m in known and m != name}


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_new_import_circle() -> None:
    known = _modules()
    graph = {name: _imports_of(name, path, known) for name, path in known.items()}
    circles = _circles(graph)
    assert all(any(c <= k for k in KNOWN_CIRCLES) for c in circles), circles
    # the check finds a circle where there is one
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_list_of_the_games_outside_the_registry() -> None:
    """A game is registered in one place (games/registry.py): the services, bots, tests and
    benchmarks take the list from there, so a game added is never silently left out. A
    literal (list, tuple, set) of game keys elsewhere is such a list, and so is a table
    (rows or a dict by game) that names some games but not all: a table of every game
    (options or secrets per game) fails here when a game is added, until it says what the
    new one needs."""
    from games.registry import registry

    keys = set(registry())
    found = []
    for top in ("services", "infra", "games", "contracts", "tests", "deploy", "clients"):
        for path in (ROOT / top).rglob("*.py"):
            if path == ROOT / "games" / "registry.py" or ".venv" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
                    items = node.keys if isinstance(node, ast.Dict) else node.elts
                    named = {c for item in items if (c := _game_named(item, keys))}
                    bare = not isinstance(node, ast.Dict) and all(
                        isinstance(i, ast.Constant) for i in items
                    )  # just the keys
                    if len(named) > 1 and (bare or len(named) < len(keys)):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"lists of games outside games/registry.py: {found}"


def _game_named(item: ast.expr | None, keys: set[str]) -> str | None:
    """The game a literal's item stands for: the key itself, or a tuple's first member (a
    table's row: `("itty-bitty", 3, {})`)."""
    if isinstance(item, ast.Tuple | ast.List) and item.elts:
        item = item.elts[0]
    if isinstance(item, ast.Constant) and item.value in keys:
        return str(item.value)
    return None
