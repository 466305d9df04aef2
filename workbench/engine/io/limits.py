"""What a file may hold (docs/formats.md, "Limits"): the guard against hostile files.

The limits are stated in what a file holds (jobs, nodes, a job's n, the length of a text) and in
the memory reading it needs, not in bytes: an honest million-job trace is large, and a file that
asks for more than the machine can give is refused, with the limit named, before it is read.
"""

from __future__ import annotations

import os

MAX_DEPTH = 32  # JSON nesting; the format itself needs 4
MAX_NODES = 100_000
MAX_ITEMS = 5_000_000  # jobs, and local tasks
MAX_NODE_COUNT = 100_000  # a job's n
MAX_ID = 256  # characters of an id
MAX_TEXT = 100_000  # characters of a name, label or description
INT_DIGITS = 18  # longer integer literals are read as floats (and then must be finite)
MAX_MAGNITUDE = 1e15  # every number: times, prices, volumes, budgets, performances, attributes

# Python's objects for parsed JSON take about this many times the text's bytes (measured: a
# 57 MB, 200,000-job environment peaks at 0.9 GB while parsed and checked).
JSON_MEMORY_FACTOR = 12
# The share of the machine's memory one file may ask for.
MEMORY_SHARE = 0.5


def machine_memory() -> int:
    """The machine's physical memory in bytes (8 GiB when the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def memory_problem(needed: float, what: str) -> str | None:
    """Why reading something that needs ``needed`` bytes is refused, or None."""
    allowed = machine_memory() * MEMORY_SHARE
    if needed <= allowed:
        return None
    return (
        f"{what} needs about {needed / 2**30:.1f} GiB of memory to read; this machine allows "
        f"{allowed / 2**30:.1f} GiB for one file"
    )


def json_bytes_limit() -> int:
    """The largest JSON text read: the one whose objects fit in ``MEMORY_SHARE`` of the memory."""
    return int(machine_memory() * MEMORY_SHARE / JSON_MEMORY_FACTOR)
