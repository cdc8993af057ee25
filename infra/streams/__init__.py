"""The streams port (api), its Redis adapter, its in-memory twin and the consumer loop."""

from infra.streams.api import Message, Streams

__all__ = ["Message", "Streams"]
