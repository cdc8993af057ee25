"""CPU time from /proc, for the benchmarks (Linux only)."""

from __future__ import annotations

import os


def ticks(pid: int) -> int:
    """User + system jiffies of one process (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def named_ticks(*names: str) -> int:
    """Jiffies of every process on the machine whose name (/proc/<pid>/comm) is one of
    `names`."""
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip() not in names:
                    continue
        except OSError:
            continue
        total += ticks(int(d))
    return total


def postgres_ticks() -> int:
    """Jiffies of every Postgres process on the machine."""
    return named_ticks("postgres", "postmaster")


def backend_ticks(database: str) -> int:
    """Jiffies of the Postgres backends connected to `database` (their process titles say
    so); a backend gone since the last sample takes its ticks with it, so this suits
    long-lived pools (the game service's), not a connection per query."""
    total = 0
    needle = f" {database} ".encode()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                title = f.read()
        except OSError:
            continue
        if title.startswith(b"postgres:") and needle in title:
            total += ticks(int(d))
    return total
