"""One log format for every process: a JSON object a line (LOG_FORMAT=json, as compose and
Kubernetes set), or plain text for people (text, the default, as under `make run`).

Either way a line carries the request id, game id and command id bound where it was written
(infra/context.py). The JSON is the standard library's (`json.dumps` in a
`logging.Formatter`): a few lines, no dependency to keep; python-json-logger would do the
same with more options than needed here.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from datetime import UTC, datetime
from typing import Any

from infra.context import FIELDS, current

# A LogRecord's own attributes: anything else on a record came from `extra=` and is logged.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class ContextFilter(logging.Filter):
    """Puts the bound request, game and command ids on each record (an `extra=` one wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for field, value in current().items():
            if getattr(record, field, None) is None:
                setattr(record, field, value)
        return True


class JsonFormatter(logging.Formatter):
    """{"ts", "level", "logger", "msg", request_id?, game_id?, command_id?, extras..., "exc"?}"""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and value is not None:
                line[key] = value
        if record.exc_info:
            line["exc"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """The plain format, with the bound ids after the message when there are any."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = " ".join(f"{f}={v}" for f in FIELDS if (v := getattr(record, f, None)))
        if not ids:
            return text
        head, newline, rest = text.partition("\n")  # after the message, before a traceback
        return f"{head} [{ids}]{newline}{rest}"


def configure(level: str | int = "INFO", fmt: str = "text") -> None:
    """Every record of the process to stderr in `fmt` (json | text), from `level` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if fmt.strip().lower() == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    logging.captureWarnings(True)  # a warning is a line like any other
