"""`make run` is a development stack: its processes get rate limits a developer does not hit,
and it says so when it starts; production's stay the settings' defaults."""

from __future__ import annotations

import subprocess

import pytest

from infra.http.rate_counters import parse_limit
from infra.settings import Settings, from_env
from tests.unit.test_deploy_metrics import stack

PRODUCTION = Settings()
LIMITS = ("rate_limit_register", "rate_limit_action", "rate_limit_write", "rate_limit_read")


def per_second(limit: str) -> float:
    parsed = parse_limit(limit)
    assert parsed is not None
    return parsed.amount / parsed.period_s


def started(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]) -> dict[str, str]:
    """The environment `make run` gives its processes (none started, nothing migrated)."""
    module = stack()
    given: list[dict[str, str]] = []

    def processes(env: dict[str, str], *rest: object) -> int:
        given.append(env)
        return 0

    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: None)  # the migration
    monkeypatch.setattr(module, "_run", processes)
    base = {"TURNPOST_SECRET": "s" * 48, "METRICS_PORT_BASE": "0"}
    assert module.run({**base, **environ}, "/nonexistent") == 0
    return given[0]


def test_make_run_relaxes_every_rate_limit_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = from_env(started(monkeypatch, {}))
    for name in LIMITS:  # each well above production's, and still counted
        relaxed, production = getattr(settings, name), getattr(PRODUCTION, name)
        assert per_second(relaxed) >= 10 * per_second(production), name
    assert per_second(settings.rate_limit_register) * 3600 >= 1000  # not 20 an hour
    [line] = [x for x in capsys.readouterr().out.splitlines() if "rate limits" in x]
    for name in LIMITS:
        assert f"{name.removeprefix('rate_limit_')} {getattr(settings, name)}" in line
    assert "RATE_LIMITS=production make run" in line


def test_production_limits_on_asking_and_a_limit_set_is_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = from_env(started(monkeypatch, {"RATE_LIMITS": "production"}))
    assert [getattr(settings, n) for n in LIMITS] == [getattr(PRODUCTION, n) for n in LIMITS]
    assert "production rate limits" in capsys.readouterr().out
    env = started(monkeypatch, {"RATE_LIMIT_READ": "7/minute"})
    assert env["RATE_LIMIT_READ"] == "7/minute" and env["RATE_LIMIT_REGISTER"] == "600/minute"
    [line] = [x for x in capsys.readouterr().out.splitlines() if "rate limits" in x]
    assert "register 600/minute" in line and "read" not in line  # only what it relaxed


def test_the_settings_defaults_are_production_limits() -> None:
    assert PRODUCTION.rate_limit_register == "20/hour"
    assert (PRODUCTION.rate_limit_action, PRODUCTION.rate_limit_write) == (
        "120/minute",
        "60/minute",
    )
    assert PRODUCTION.rate_limit_read == "600/minute"
