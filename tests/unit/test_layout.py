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
