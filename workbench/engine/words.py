"""How the engine words what it reports: numbers as people read them, and lists of jobs.

A step label or a message is read by a person: no scientific notation (a time of 1,204,290 s
printed as 1.20429e+06 is known to ±50 s), at most four decimals, and job ids named as jobs
("job 7 finished", never "7 finished", which reads as a count).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

DECIMALS = 4
MOST_NAMED = 5  # jobs named in one list; the rest are counted


def number(value: float | int, decimals: int = DECIMALS) -> str:
    """A number for display: 29820, 1285250, 38.2143, 0.6199, ∞."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if abs(value) >= 1e15:
        return f"{value:.6g}"
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def jobs(ids: Sequence[str]) -> str:
    """'job 7', 'jobs 7 and 9', 'jobs 7, 9, 12, 15, 16 and 4 more'."""
    if len(ids) == 1:
        return f"job {ids[0]}"
    if len(ids) <= MOST_NAMED:
        return f"jobs {', '.join(ids[:-1])} and {ids[-1]}"
    return f"jobs {', '.join(ids[:MOST_NAMED])} and {len(ids) - MOST_NAMED} more"
