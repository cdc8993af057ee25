"""Server-Sent Events read line by line (the WHATWG parsing rules the services' streams need)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Frame:
    """One dispatched event: `id:`, `event:` and the `data:` lines joined."""

    data: str
    event: str = "message"
    id: str | None = None


class Frames:
    """Feed it the stream's lines; `line` returns a Frame when a blank line dispatches one.

    Comments (`: heartbeat`) and frames without data (the services' opening comment) give
    nothing, so a heartbeat only keeps the connection's read timeout from firing.
    """

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None

    def line(self, line: str) -> Frame | None:
        line = line.rstrip("\r\n")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> Frame | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return Frame(data="\n".join(data), event=event or "message", id=self._id)
