"""The ids of events and commands (infra/eventstore/api.py): made faster than uuid.uuid5 and
uuid.uuid4 make them, and the same UUIDs."""

from __future__ import annotations

import os
import random
import uuid

from infra.eventstore.api import event_ids, random_command_id


def test_event_ids_are_uuid5_of_the_command_and_the_index() -> None:
    for command_id in (uuid.uuid4(), uuid.UUID(int=0), uuid.UUID(int=2**128 - 1)):
        ids = event_ids(command_id, 12)
        stdlib = [uuid.uuid5(command_id, str(i)) for i in range(12)]
        assert ids == stdlib
        for made, same in zip(ids, stdlib, strict=True):  # a whole UUID: its text, its hash
            assert made.version == 5 and made.variant == uuid.RFC_4122
            assert str(made) == str(same) and made.bytes == same.bytes
            assert hash(made) == hash(same) and made.is_safe is uuid.SafeUUID.unknown
    assert event_ids(uuid.uuid4(), 0) == []


def test_command_ids_are_random_version_4_uuids() -> None:
    ids = [random_command_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert all(i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
    assert ids[0] == uuid.UUID(str(ids[0]))
    bits = [(i.int >> b) & 1 for i in ids for b in (0, 40, 61, 100, 127)]  # not stuck
    assert 0.4 < sum(bits) / len(bits) < 0.6


def test_command_ids_differ_after_a_fork() -> None:
    """random reseeds in a forked child: a worker does not repeat its parent's ids."""
    state = random.getstate()
    try:
        random.seed(1)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never back into the test run
            try:
                os.write(write, random_command_id().bytes)
            finally:
                os._exit(0)
        os.close(write)
        child = uuid.UUID(bytes=os.read(read, 16))
        os.waitpid(pid, 0)
        os.close(read)
        assert child != random_command_id()
    finally:
        random.setstate(state)  # the run's own ids stay unpredictable
