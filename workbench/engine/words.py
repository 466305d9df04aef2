"""How the engine words what it reports: lists of jobs, and numbers (``numbers.number``).

A step label or a message is read by a person: no scientific notation (a time of 1,204,290 s
printed as 1.20429e+06 is known to ±50 s), at most four decimals, and job ids named as jobs
("job 7 finished", never "7 finished", which reads as a count).
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engine.numbers import number

MOST_NAMED = 5  # jobs named in one list; the rest are counted


def jobs(ids: Sequence[str]) -> str:
    """'job 7', 'jobs 7 and 9', 'jobs 7, 9, 12, 15, 16 and 4 more'."""
    if len(ids) == 1:
        return f"job {ids[0]}"
    if len(ids) <= MOST_NAMED:
        return f"jobs {', '.join(ids[:-1])} and {ids[-1]}"
    return f"jobs {', '.join(ids[:MOST_NAMED])} and {len(ids) - MOST_NAMED} more"


__all__ = ["jobs", "number"]
