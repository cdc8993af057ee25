"""One log format for every process: a JSON object a line (LOG_FORMAT=json, as compose and
Kubernetes set), or plain text for people (text, the default, as under `make run`).

Either way a line carries the request id, game id and command id bound where it was written
(infra/observability/context.py). The JSON is the standard library's (`json.dumps` in a
`logging.Formatter`): a few lines, no dependency to keep; python-json-logger would do the
same with more options than needed here.

A line is a record, whatever a client put in what it logs (a path with `%0a` in it, a name):
in the text format every control character of a field is written as an escape (`\\n`,
`\\x1b`, `\\u2028`), the message and its arguments included, and the lines of a traceback
after the record's own are indented, so that no line a client wrote can start like a record.
JSON encodes the C0 controls itself; the other characters a reader may take for the end of
a line (NEL, U+2028, U+2029) and DEL and the C1 controls are escaped too.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import traceback
from datetime import UTC, datetime
from typing import Any

from infra.observability.context import FIELDS, current

# A LogRecord's own attributes: anything else on a record came from `extra=` and is logged.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

# Controls (C0, DEL, C1), the line and paragraph separators, and the bidirectional overrides
# and isolates, which can make a line read as another on a terminal.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# What JSON leaves as it is (it escapes U+0000 to U+001F) but a reader may split a line at.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _SHORT.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escaped(text: str) -> str:
    """`text` with every control character written as an escape: one line, whatever it held."""
    return _CONTROL.sub(_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


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
        return _JSON_UNSAFE.sub(_json_escape, json.dumps(line, default=str, ensure_ascii=False))


class TextFormatter(logging.Formatter):
    """`time LEVEL logger: message [ids]`, each field escaped to one line; a traceback or
    stack after it, its lines indented."""

    def format(self, record: logging.LogRecord) -> str:
        text = (
            f"{self.formatTime(record, self.datefmt)} {escaped(record.levelname)}"
            f" {escaped(record.name)}: {escaped(record.getMessage())}"
        )
        ids = " ".join(f"{f}={escaped(str(v))}" for f in FIELDS if (v := getattr(record, f, None)))
        if ids:
            text = f"{text} [{ids}]"
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        for block in (record.exc_text, record.stack_info and self.formatStack(record.stack_info)):
            if block:
                text += "".join(f"\n  {escaped(line)}" for line in block.split("\n"))
        return text


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
