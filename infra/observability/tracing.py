"""OpenTelemetry tracing, off unless TRACING names where the spans go (`otlp`: the OTLP/HTTP
exporter, configured by the standard OTEL_EXPORTER_OTLP_* variables; `console`: stdout).

One move is one trace: the HTTP request, its append, the relay's publishing, the
dispatcher's bot turn, the worker's move, the game's command and its append, each a span
whose parent came with the message (W3C `traceparent` in the same `trace` carrier as the
request id: infra/observability/context.py). Off, every `span` is a no-op and nothing is carried.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import Span, SpanKind, Tracer

log = logging.getLogger(__name__)

_tracer: Tracer | None = None  # None: tracing is off
_pid = 0


def enabled() -> bool:
    return _tracer is not None


def use(provider: TracerProvider | None) -> None:
    """Trace through `provider` from now on (None: off). Tests use it with an in-memory
    exporter; `setup` with the settings' one."""
    global _tracer, _pid
    _tracer = None if provider is None else provider.get_tracer("turnpost")
    _pid = os.getpid()


def setup(how: str, service: str) -> None:
    """Turn tracing on in this process as TRACING says (off, otlp, console); once per process
    (a forked child sets up its own: an exporter's thread does not survive a fork)."""
    how = how.strip().lower()
    if how in ("", "off", "none", "0", "false") or (enabled() and _pid == os.getpid()):
        return
    exporter: SpanExporter
    if how == "console":
        exporter = ConsoleSpanExporter()
    elif how == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    else:
        raise ValueError(f"TRACING={how!r}: off, otlp or console")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    use(provider)
    log.info("tracing on (%s), service %s", how, service)


@contextlib.contextmanager
def span(
    name: str,
    carried: Mapping[str, str] | None = None,
    kind: SpanKind = SpanKind.INTERNAL,
    **attributes: Any,
) -> Iterator[Span | None]:
    """A span of `name`, the current one's child, or (given `carried`, what a message
    brought) the sender's; None and nothing done while tracing is off."""
    if _tracer is None:
        yield None
        return
    parent = propagate.extract(dict(carried)) if carried else None
    attrs = {f"turnpost.{k}": str(v) for k, v in attributes.items() if v is not None}
    with _tracer.start_as_current_span(name, context=parent, kind=kind, attributes=attrs) as s:
        yield s


def inject(carrier: MutableMapping[str, str]) -> None:
    """Add the current span's `traceparent` (and `tracestate`) to a message's carrier."""
    if _tracer is not None:
        propagate.inject(carrier)


def current_span() -> Span:
    return trace.get_current_span()
