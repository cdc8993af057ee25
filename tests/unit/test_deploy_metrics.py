"""Every process' metrics reachable as deployed: make run's ports, compose, Kubernetes."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HTTP = {"lobby": 8010, "game": 8020}


def stack() -> ModuleType:
    spec = importlib.util.spec_from_file_location("turnpost_stack_t", DEPLOY / "stack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_run_of_ports(n: int) -> int:
    """A base port with the n after it free (as far as one can tell)."""
    for base in range(20_000, 60_000, 97):
        socks = []
        try:
            for port in range(base, base + n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise AssertionError("no run of free ports")


def test_make_run_gives_every_process_without_http_a_port_of_its_own() -> None:
    module = stack()
    names = list(module.PROCESSES)
    base = free_run_of_ports(len(names))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", base + 1))  # another stack holds the second one
        taken.listen()
        ports = module.metrics_ports(names, base)
    assert set(ports) == set(names) - set(HTTP)
    assert {"relay", "dispatcher", "scheduler", "worker", "worker-mcts", "worker-expert"} <= set(
        ports
    )
    assert len(set(ports.values())) == len(ports)  # one each
    assert base + 1 not in ports.values()
    assert ports["relay"] == base + [n for n in names if n not in HTTP].index("relay")
    assert module.metrics_ports(names, 0) == {}  # METRICS_PORT_BASE=0: none


def compose() -> dict[str, Any]:
    return dict(yaml.safe_load((DEPLOY / "compose.yaml").read_text()))


def test_compose_gives_every_process_a_metrics_port() -> None:
    services = compose()["services"]
    apps = {n: s for n, s in services.items() if s.get("image") == "turnpost:local"}
    for name, service in apps.items():
        if name in HTTP or name == "migrate":
            continue
        assert service["environment"]["METRICS_PORT"] == "9100", name
        assert service.get("expose") == ["9100"], name
    for name in ("worker-mcts", "worker-expert"):
        search = services[name]["command"]
        assert "--pool" in search and search[search.index("--pool") + 1] == "prefork"
        assert any(str(a).startswith("PROMETHEUS_MULTIPROC_DIR=") for a in search)


def deployments() -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") == "Deployment":
                found[doc["metadata"]["labels"]["app.kubernetes.io/component"]] = doc
    return found


def test_every_kubernetes_pod_asks_to_be_scraped_on_a_port_it_names() -> None:
    found = deployments()
    assert set(found) >= {"lobby", "game", "relay", "dispatcher", "scheduler", "notifier"}
    for name, doc in found.items():
        pod = doc["spec"]["template"]
        notes = pod["metadata"]["annotations"]
        assert notes["prometheus.io/scrape"] == "true", name
        assert notes["prometheus.io/path"] == "/metrics", name
        (container,) = pod["spec"]["containers"]
        ports = {p["containerPort"]: p["name"] for p in container["ports"]}
        port = int(notes["prometheus.io/port"])
        assert port in ports, name
        if name not in HTTP:
            env = {e["name"]: e["value"] for e in container["env"]}
            assert (ports[port], env["METRICS_PORT"]) == ("metrics", str(port)), name
    for search in ("worker-mcts", "worker-expert"):
        env = {
            e["name"]: e["value"]
            for e in found[search]["spec"]["template"]["spec"]["containers"][0]["env"]
        }
        assert env["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")  # the pod's writable emptyDir


def _queues(command: list[Any]) -> set[str]:
    args = [str(a) for a in command]
    return set(args[args.index("--queues") + 1].split(",")) if "--queues" in args else set()


def test_every_bot_queue_is_taken_by_a_process_of_its_own_everywhere() -> None:
    """make run, compose and Kubernetes each start a worker for every queue a level's turns
    wait in, and no worker takes two of them (a long search would hold the other up)."""
    from infra.tasks import BOT_QUEUES, QUEUE_OF_LEVEL

    assert set(QUEUE_OF_LEVEL.values()) <= set(BOT_QUEUES)
    services = compose()["services"]
    pods = deployments()
    commands = {
        "make run": [list(c) for c in stack().PROCESSES.values()],
        "compose": [s["command"] for s in services.values() if "command" in s],
        "kubernetes": [
            d["spec"]["template"]["spec"]["containers"][0]["command"] for d in pods.values()
        ],
    }
    for where, each in commands.items():
        taken = [_queues(c) for c in each]
        for queue in BOT_QUEUES:
            assert [queue] in [sorted(q) for q in taken], (where, queue)
