"""Prometheus and Grafana as compose provisions them (deploy/prometheus, deploy/grafana): the
files parse, every process is scraped where it serves, and every metric the dashboard asks
for is one the code registers (a typo in a query, or a metric renamed, fails here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.metrics import MetricWrapperBase

import infra.observability.metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "turnpost.json"
HTTP_PORTS = {"lobby": 8010, "game": 8020}
# What a family of each type shows on a /metrics page (the client's text exposition).
SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum"),
    "summary": ("_count", "_sum", ""),
}


def registered() -> set[str]:
    """Every series name the code's metrics (infra/observability/metrics.py) can show."""
    names = set()
    for metric in vars(infra.observability.metrics).values():
        if isinstance(metric, MetricWrapperBase):
            for family in metric.describe():
                names |= {family.name + s for s in SUFFIXES[family.type]}
    return names


def dashboard() -> dict[str, Any]:
    return dict(json.loads(DASHBOARD.read_text()))


def exprs() -> list[str]:
    return [t["expr"] for p in dashboard()["panels"] for t in p.get("targets", [])]


def test_every_metric_the_dashboard_queries_is_registered() -> None:
    known = registered()
    assert "turnpost_appends_total" in known and "turnpost_bot_task_seconds_bucket" in known
    asked = {m for e in exprs() for m in re.findall(r"\bturnpost_[a-z_]+", e)}
    assert asked, "no query names a metric"
    assert asked <= known, f"queried but never registered: {sorted(asked - known)}"


def test_the_dashboard_shows_what_the_issue_asks_for() -> None:
    text = " ".join(exprs())
    for metric in (
        "turnpost_http_request_duration_seconds_count",  # request rate
        "turnpost_http_request_duration_seconds_bucket",  # latency
        "turnpost_relay_lag_seconds",
        "turnpost_stream_lag",  # backlog
        "turnpost_stream_pending",
        "turnpost_deadletters_total",
        "turnpost_bot_task_seconds_bucket",  # bot latency
        "turnpost_scheduler_lateness_seconds_bucket",  # clocks
        "turnpost_live_subscribers",
    ):
        assert metric in text, metric


def test_each_panel_uses_the_provisioned_data_source_and_its_queries_are_balanced() -> None:
    sources = yaml.safe_load(
        (DEPLOY / "grafana/provisioning/datasources/prometheus.yml").read_text()
    )
    (source,) = sources["datasources"]
    assert source["url"] == "http://prometheus:9090"
    for panel in dashboard()["panels"]:
        assert panel["datasource"]["uid"] == source["uid"], panel["title"]
        for target in panel["targets"]:
            e = target["expr"]
            assert target["datasource"]["uid"] == source["uid"]
            for open_, close in ("()", "{}", "[]"):
                assert e.count(open_) == e.count(close), e
    boards = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/turnpost.yml").read_text())
    (provider,) = boards["providers"]
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    mounts = dict(v.split(":")[:2][::-1] for v in compose["grafana"]["volumes"])
    assert mounts[provider["options"]["path"]] == "./grafana/dashboards"


def test_prometheus_scrapes_every_process_where_it_serves() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    scraped = {
        name: sd["port"]
        for job in config["scrape_configs"]
        for sd in job.get("dns_sd_configs", [])
        for name in sd["names"]
    }
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    ours = {n for n, s in services.items() if s.get("image") == "turnpost:local" and n != "migrate"}
    assert set(scraped) == ours
    for name in ours:
        env = services[name]["environment"]
        port = HTTP_PORTS.get(name) or int(env["METRICS_PORT"])
        assert scraped[name] == port, name
    mounted = services["prometheus"]["volumes"][0].split(":")
    assert mounted[0] == "./prometheus/prometheus.yml"
